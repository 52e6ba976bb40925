// The pass over the data of the reduced-kernel robust LP (paper 000's model (23) with the surface expanded over
// landmarks z_1..z_L instead of every training point; Lee & Mangasarian's reduced SVM):
//
//   min  ||v||_1 + nu sum_i xi_i
//   s.t. y_i (Phi_i v - gamma) - delta_i S(v) >= 1 - xi_i,  xi >= 0,     Phi_i = [k(x_i, z_1) .. k(x_i, z_L)],
//        S(v) = sum_j sqrt(k(z_j, z_j)) |v_j|
//
// solved by cutting planes on the hinge sum (the 1-slack form of Joachims 2006: sum_i xi_i =
// max_{c in {0,1}^n} sum_i c_i (a_i + y_i gamma - y_i Phi_i v + delta_i S(v))). One pass at an iterate (v, gamma)
// returns the most violated aggregated cut -- c_i = [a_i + y_i gamma - y_i f_i + delta_i S > 0], f = Phi v -- as its
// sums, and the hinge sum that makes the iterate's true objective (the upper bound of the certified gap).
//
// The margin offsets a_i are 1 in paper 000's model. With Phi = X (linear rows) the same pass serves the l1-SVMs of
// paper 001: a_i = 1 is the hinge max(0, 1 - y_i f(x_i)), and a CCCP step of the ramp loss (Collobert et al. 2006)
// replaces the hinge of each current outlier by max(0, t_i - 1), i.e. label -y_i and offset a_i = -1.
#pragma once

#include "svmopt/common.hpp"
#include "svmopt/kernels.hpp"

namespace svmopt {

struct CutSums {
  Vector a;          // sum_i c_i y_i Phi_i  (L)
  double b = 0.0;    // sum_i c_i y_i
  double e = 0.0;    // sum_i c_i delta_i
  double n_c = 0.0;  // sum_i c_i a_i (the count of violated rows when every a_i = 1)
  double hinge = 0.0;  // sum_i max(0, a_i + y_i gamma - y_i f_i + delta_i S)
  // The same sums over each of G groups of consecutive rows (group g: rows [g n / G, (g + 1) n / G)), for the
  // multi-cut master: a_groups is G x L, the others have G entries. Their totals are the sums above.
  RowMatrix a_groups;
  Vector b_groups, e_groups, n_c_groups, hinge_groups;
};

// The kernel rows come from Phi (n x L, any strides) when Phi.data is set, else they are computed block by block as
// K(X, Z) with `params` (memory O(block x L)). y in {-1, +1}; delta (may be nullptr: 0); offset (may be nullptr: 1);
// S = S(v) of the iterate; weight (may be nullptr: 1) the sample weights w_i > 0, which multiply each row's hinge
// term -- the objective's nu sum_i w_i xi_i -- and so every sum of the cut. scores_out (optional, n): f = Phi v. Blocks are added up in order, so the sums do not
// depend on the thread count.
// The rows may be rows row_offset .. row_offset + n - 1 of a larger data set of n_total rows (< 0: n), one chunk of a
// Dask array: the groups are those of the whole data set, so the chunks' group sums add up to its own.
CutSums reduced_cut_pass(const MatrixView& Phi, const MatrixView& X, const MatrixView& Z, const KernelParams& params,
                         const double* y, const double* delta, const double* offset, const Vector& v, double gamma,
                         double S, double* scores_out, int n_threads = 0, Index block = 4096, Index n_groups = 1,
                         Index row_offset = 0, Index n_total = -1, const double* weight = nullptr);

// The pass of the interior-point solver of the same LP (python/svmopt/robust/ipm.py): over the rows
// u_i = [Phi_i (L), 1, extra_i] (p = L + 1 columns, L + 2 with `extra`, which may be nullptr),
//
//   G = sum_i theta_i u_i u_i'  (p x p; with theta, n values >= 0; the Newton matrix's n L^2 part, one dsyrk),
//   H = U' B                    (p x k; with B, n x k),
//   F = U V                     (n x k2 into F_out, row-major; with V, p x k2).
//
//   Hq = U' b,  b_i = g_i e_i (1 + k_i e_i),  e_i = h_i - F_i0   (with Q = [g, h, k], n x 3, and V): a right-hand
//                                                                  side quadratic in each row's own F_i0, which
//                                                                  the solver's corrector needs in the same pass.
//
// An empty view (data nullptr) leaves its product out; G, H or Hq are then 0 x 0. The kernel rows come from Phi or
// are computed block by block as K(X, Z) (memory O(block x p)); the blocks are added up in order.
struct NormalSums {
  Eigen::MatrixXd G;
  Eigen::MatrixXd H;
  Eigen::VectorXd Hq;
};

NormalSums reduced_normal_pass(const MatrixView& Phi, const MatrixView& X, const MatrixView& Z,
                               const KernelParams& params, const double* extra, const double* theta,
                               const MatrixView& B, const MatrixView& V, double* F_out, const MatrixView& Q,
                               int n_threads = 0, Index block = 4096);

}  // namespace svmopt
