// A dense primal simplex specialised to LP (23) of paper 000 (model (6) when delta = 0), for small m.
//
// The LP in the form of robust.hpp, with one surplus column per row:
//
//   columns  [u+ (m), u- (m), gamma (1, free), xi (m), s (m)]          N = 4m + 1
//   min      e^T u+ + e^T u- + nu e^T xi
//   s.t.     A z - s = e,   A = [DKD - delta r^T, -DKD - delta r^T, -y, I],   all columns >= 0 except gamma
//
// The xi columns form an identity, and xi = e (u = 0, gamma = 0, s = 0) is a feasible vertex, so there is no
// phase 1: the primal simplex starts there, on a dense m x N tableau (row-major, one rank-one update per pivot,
// O(m N) = O(4 m^2) flops). Dantzig pricing, a ratio test that prefers the largest pivot among ties, and Bland's
// rule after a run of degenerate pivots (no cycling). The free gamma enters in whichever direction improves
// and never leaves the basis once in it.
//
// Changing nu keeps the basis primal feasible, so `solve(nu)` after a first solve only re-prices the tableau
// and continues from the previous optimal basis (the paper's nu grid costs a few pivots per value).
//
// Why: HiGHS's fixed per-solve cost on the tiny LPs of the paper's smallest data sets (m ~ 50-150) exceeds
// the whole simplex here (docs/performance.md#robustsvc-design-figures); at m ~ 600 HiGHS's factored revised
// simplex wins, hence `RobustSVC(lp_solver="auto")` picks this solver for small m only
// (svmopt.robust.estimator.DENSE_LP_MAX_M).
//
// Every answer is checked against the *original* data, not the tableau: primal feasibility of z, dual
// feasibility of pi (the reduced costs of the surplus columns: 0 <= pi <= nu, y^T pi = 0, A_j^T pi <= 1 for the
// u columns) and the duality gap e^T pi vs the objective. If the certificate fails (round-off after many pivots)
// or the iteration limit is hit, `status` says so and the caller falls back to HiGHS.
#pragma once

#include <vector>

#include "svmopt/common.hpp"

namespace svmopt {

enum class DenseLPStatus { Optimal = 0, IterationLimit = 1, Unbounded = 2, CertificateFailed = 3 };

struct DenseLPResult {
  DenseLPStatus status = DenseLPStatus::IterationLimit;
  std::vector<double> x;  // 3m + 1 values [u+, u-, gamma, xi]
  std::vector<double> dual;  // m row duals pi
  double objective = 0.0;
  double dual_objective = 0.0;
  double primal_infeasibility = 0.0;  // max over rows of (1 - (A z)_i)_+ and over columns of (-z_j)_+
  double dual_infeasibility = 0.0;    // max violation of the dual constraints
  Index iterations = 0;               // pivots of this solve
};

class GsvmDenseLP {
 public:
  // K m x m symmetric, y in {-1, +1}, delta >= 0 (nullptr: deterministic). Copies what it needs.
  GsvmDenseLP(const MatrixView& K, const double* y, const double* delta);

  // Solve for this nu (> 0), warm-started from the previous call's basis. `max_iter` <= 0: 10 (4m + 1).
  // `tol`: the certificate's relative tolerance.
  DenseLPResult solve(double nu, Index max_iter = 0, double tol = 1e-7);

  Index m() const { return m_; }

 private:
  void price(double nu);
  void pivot(Index r, Index q);
  DenseLPResult certify(double nu, Index iterations, double tol) const;

  Index m_ = 0, n_ = 0;                  // rows, tableau columns (4m + 1)
  std::vector<double> A_;                // original u-block columns [u+ | u-], column-major m x 2m
  std::vector<double> y_;                // labels
  std::vector<double> T_;                // tableau, row-major m x n_
  std::vector<double> b_;                // basic values
  std::vector<double> d_;                // reduced costs
  std::vector<double> c_;                // current costs
  std::vector<Index> head_;              // basic column of each row
  std::vector<char> is_basic_;           // per column
  double gamma_sign_ = 1.0;              // gamma column negated when it entered downwards
};

}  // namespace svmopt
