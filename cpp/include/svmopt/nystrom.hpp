// Nystrom features of the fixed-size LS-SVM (paper 002, Section 3.1, eq. (5)) and the blockwise
// accumulation of Phi_e^T Phi_e and Phi_e^T Y per CV fold (Sections 6.1-6.2, Algorithms 3, 3B, 4).
//
// phi(x) = P^T k_m(x), P = U' Lambda'^{-1/2} (m x m', from the eigendecomposition of Omega_mm with
// eigenpairs with lambda <= m eps lambda_max dropped), and the extended feature row is [phi(x), 1]. In "explicit
// linear" mode the features are the inputs themselves (the linear FS-LSSVM) and no prototypes are used.
//
// The accumulator streams row blocks: it groups a block's rows by fold, computes the features of up to
// `chunk` rows of one fold at a time (memory O(chunk * (m + m'))), and adds each fold's rows into the lower
// triangle of G_u with a symmetric rank-k update split into column panels across threads (each
// output element is written by one thread in a fixed order, so results do not depend on the thread
// count). Total memory O(chunk * m + v * m'^2); never O(n m).
#pragma once

#include <cstdint>
#include <mutex>
#include <vector>

#include "svmopt/common.hpp"
#include "svmopt/kernels.hpp"

namespace svmopt {

// out (n x m') = K(X, PV) P.  (n_threads <= 0: all.)
void nystrom_features(const MatrixView& X, const MatrixView& PV, const KernelParams& params, const MatrixView& P,
                      RowMatrixMap out, int n_threads = 0, Index chunk = 0);

class FoldAccumulator {
 public:
  // Nystrom mode: PV (m x d), P (m x m'). Explicit-linear mode: pass PV with 0 rows and P with
  // 0 columns and set n_features_linear = d.
  // keep_features: also keep every block's features, in fold order as computed (no copy), for predict_kept.
  FoldAccumulator(RowMatrix PV, KernelParams params, RowMatrix P, Index n_folds, Index n_targets,
                  Index n_features_linear = 0, int n_threads = 0, Index chunk = 0, bool keep_features = false);

  Index n_folds() const { return v_; }
  Index n_targets() const { return k_; }
  Index dim() const { return p_; }  // m' + 1 (features plus the constant column)
  Index n_rows() const { return n_rows_; }
  bool keeps_features() const { return keep_; }

  // Add the rows of a block. Y: rows x n_targets. folds: one fold id in [0, v) per row, or empty
  // (all rows in fold 0). features_out (optional, rows x dim, row-major): receives Phi_e of the block.
  void add(const MatrixView& X, const MatrixView& Y, const std::int32_t* folds, double* features_out);

  // Extended features Phi_e = [phi(X), 1] of a block (rows x dim, row-major), nothing accumulated.
  void features(const MatrixView& X, double* out);

  // Results: G_u (dim x dim, symmetric, filled from the lower triangle), t_u (dim x k),
  // yy_u (k: sums of squares of Y per column), counts_u.
  RowMatrix gram(Index u) const;
  const Eigen::MatrixXd& cross(Index u) const { return t_[u]; }
  const Eigen::VectorXd& yy(Index u) const { return yy_[u]; }
  Index count(Index u) const { return counts_[u]; }

  // The fold models of the fast CV (19)-(21) from the accumulated statistics, without copying them out:
  // theta_u = (S - G_u + R/gamma)^{-1} (c - t_u), S = sum_u G_u, c = sum_u t_u (kept until the next add).
  std::vector<Eigen::MatrixXd> fold_solve(double gamma, bool regularize_bias);

  // With keep_features: row i of everything added (stream order), predicted by its own fold's model,
  // Phi_e[i] theta[fold(i)] (out: n_rows x k) -- fold_predict without a stream-ordered copy of Phi_e.
  void predict_kept(const std::vector<Eigen::MatrixXd>& theta, RowMatrixMap out) const;
  // With keep_features: the kept features in stream order (out: n_rows x dim).
  void kept_features(RowMatrixMap out) const;

 private:
  void compute_features(const MatrixView& X, Index r0, Index nr, Eigen::MatrixXd& F);
  void add_by_fold(const MatrixView& X, const MatrixView& Y, const std::int32_t* folds, double* features_out);
  void invalidate_totals();
  void update_totals();

  RowMatrix pv_;
  KernelParams params_;
  RowMatrix P_;
  Index v_, k_, d_lin_, p_;
  int threads_;
  Index chunk_;
  Index n_rows_ = 0;
  std::vector<Eigen::MatrixXd> G_;  // lower triangle valid
  std::vector<Eigen::MatrixXd> t_;
  std::vector<Eigen::VectorXd> yy_;
  std::vector<Index> counts_;
  RowMatrix kbuf_;
  // Kept features: one col-major chunk per fold piece, with the stream positions of its rows (empty rows: the
  // contiguous range start .. start + F.rows()).
  struct KeptChunk {
    Index fold = 0, start = 0;
    std::vector<Index> rows;
    Eigen::MatrixXd F;
  };
  bool keep_ = false;
  std::vector<KeptChunk> kept_;
  Eigen::MatrixXd S_, c_;  // sums over the folds (S_: lower triangle), valid while totals_valid_
  bool totals_valid_ = false;
  std::mutex totals_mutex_;  // fold_solve may run from several Python threads at once (the GIL is released)
};

// G (p x p, lower triangle) += F^T F for the rows of F (col-major, rows x p), in column panels
// across threads. Exposed for the benchmark against numpy's P.T @ P.
void syrk_lower_panels(const Eigen::Ref<const Eigen::MatrixXd>& F, Eigen::Ref<Eigen::MatrixXd> G, int n_threads);

}  // namespace svmopt
