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
//
// Kernel statistics. Everything the model needs from the features is a fixed linear map of the statistics of the
// kernel block C = [K(X, PV), 1]: with P~ = [[P, 0], [0, 1]], Phi_e = C P~, so Phi_u^T Phi_u = P~^T (C_u^T C_u) P~,
// Phi_u^T Y_u = P~^T (C_u^T Y_u), and a held-out prediction is Phi_e theta = C (P~ theta). Accumulating C^T C costs
// one symmetric rank-k update of order m + 1 (n m^2 flops) instead of the projection C P (2 n m m') plus the update
// of order m' + 1; the m x m' transforms run once per fold when the statistics are read. The transform multiplies
// the rounding errors of C^T C by ||P||^2 = 1 / lambda'_min, so the kernel statistics are used only where the kept
// spectrum of Omega_mm is well conditioned (kKernelStatsMaxCond; measured in
// docs/performance.md#which-statistics-and-how-accurate) and the features otherwise.
#pragma once

#include <cstdint>
#include <mutex>
#include <utility>
#include <vector>

#include "svmopt/common.hpp"
#include "svmopt/kernels.hpp"

namespace svmopt {

// out (n x m') = K(X, PV) P.  (n_threads <= 0: all.)
void nystrom_features(const MatrixView& X, const MatrixView& PV, const KernelParams& params, const MatrixView& P,
                      RowMatrixMap out, int n_threads = 0, Index chunk = 0);

// Which statistics a FoldAccumulator accumulates (see above). Auto: kernel_statistics_preferred.
enum class Statistics { Auto, Features, Kernel };

// Largest lambda_max / lambda'_min of the kept spectrum (from P's column norms, ||P_j||^2 = 1 / lambda_j) at which
// Auto accumulates the kernel statistics.
constexpr double kKernelStatsMaxCond = 1e5;

// Auto's rule: Nystrom mode, P's columns conditioned within kKernelStatsMaxCond, and fewer flops per row:
// (m + 1 + k)^2 (FoldAccumulator::kept_row_doubles squared) for the kernel statistics against 2 m m' + (m' + 1)^2
// for the features.
bool kernel_statistics_preferred(const RowMatrix& P, Index n_targets);

// The full symmetric matrix whose lower triangle is L's (the accumulators keep lower triangles only).
RowMatrix symmetric_from_lower(const Eigen::Ref<const Eigen::MatrixXd>& L);

// The feature statistics from summed kernel statistics: G_u = P~^T Gk_u P~, t_u = P~^T tk_u (lower triangles read).
std::pair<std::vector<Eigen::MatrixXd>, std::vector<Eigen::MatrixXd>> project_statistics(
    const std::vector<Eigen::MatrixXd>& Gk, const std::vector<Eigen::MatrixXd>& tk, const RowMatrix& P);

class FoldAccumulator {
 public:
  // Nystrom mode: PV (m x d), P (m x m'). Explicit-linear mode: pass PV with 0 rows and P with
  // 0 columns and set n_features_linear = d.
  // keep_features: also keep every block's features, in fold order as computed (no copy), for predict_kept.
  FoldAccumulator(RowMatrix PV, KernelParams params, RowMatrix P, Index n_folds, Index n_targets,
                  Index n_features_linear = 0, int n_threads = 0, Index chunk = 0, bool keep_features = false,
                  Statistics statistics = Statistics::Auto);

  // Doubles a row of the kernel block [K(x, PV), 1, y] holds for m prototypes and k targets: the order of the
  // rank-k update per row block with kernel statistics, and what keep_features keeps per row there (the bound of
  // the feature budgets: tuning.hpp's CVCost, svmopt.fixed_size.cv_engine.CVEngine).
  static constexpr Index kept_row_doubles(Index m, Index k) { return m + 1 + k; }

  Index n_folds() const { return v_; }
  Index n_targets() const { return k_; }
  Index dim() const { return p_; }  // m' + 1 (features plus the constant column)
  Index n_rows() const { return n_rows_; }
  bool keeps_features() const { return keep_; }
  bool kernel_statistics() const { return kernel_; }

  // Add the rows of a block (interruptible between chunks: an add stopped half-way leaves the accumulator
  // unusable, every later call a std::logic_error). Y: rows x n_targets. folds: one fold id in [0, v) per row, or empty
  // (all rows in fold 0). features_out (optional, rows x dim, row-major): receives Phi_e of the block.
  // weights (optional, one per row, finite and > 0; std::invalid_argument otherwise): weighted least squares, row i
  // entering every sum with weight w_i -- G_u += Phi_u^T W_u Phi_u, t_u += Phi_u^T W_u Y_u, yy_u += sum w y^2 (the
  // bias column included: G_u's last diagonal entry sums the weights). Each row of what enters the rank-k update
  // ([Phi_e, Y], or the kernel block [K(x, PV), 1, Y]) is multiplied by sqrt(w_i) on its way there, so both
  // statistics take the weights with no extra pass. features_out and the kept rows (keep_features) are those of the
  // rows themselves, not scaled: predict_kept gives Phi_e[i] theta as without weights. counts stay row counts.
  void add(const MatrixView& X, const MatrixView& Y, const std::int32_t* folds, double* features_out,
           const double* weights = nullptr);

  // Extended features Phi_e = [phi(X), 1] of a block (rows x dim, row-major), nothing accumulated.
  void features(const MatrixView& X, double* out);

  // Results: G_u (dim x dim, symmetric, filled from the lower triangle), t_u (dim x k),
  // yy_u (k: sums of squares of Y per column), counts_u (rows, weighted or not). With kernel statistics, transformed
  // on first read.
  RowMatrix gram(Index u) const;
  const Eigen::MatrixXd& cross(Index u) const;
  // The statistics summed over the folds, G = sum_u G_u (symmetric, full) and t = sum_u t_u: the final fit (7).
  // With kernel statistics the raw sums are mapped once, not every fold's.
  std::pair<Eigen::MatrixXd, Eigen::MatrixXd> totals() const;
  // With kernel statistics, the raw ones: C_u^T C_u ((m + 1) x (m + 1), symmetric) and C_u^T Y_u ((m + 1) x k),
  // C = [K(X, PV), 1] (summed over data partitions, then project_statistics).
  RowMatrix kernel_gram(Index u) const;
  Eigen::MatrixXd kernel_cross(Index u) const;
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
  // sqrt_w (optional): sqrt(w_i) per row of the block (weighted statistics, see add).
  void add_by_fold(const MatrixView& X, const MatrixView& Y, const std::int32_t* folds, double* features_out,
                   const double* sqrt_w, Interruption& intr);
  // std::logic_error once an add stopped half-way (its statistics are then incomplete).
  void require_complete() const;
  // The statistics of one piece of rows' features F (nr x dim) and targets Yc (nr x k) into fold u; sqrt_w
  // (optional, indexed by rows[i] or r0 + i as Y): the weighted sums. F is kept (keep_features) unscaled.
  void add_feature_piece(Eigen::MatrixXd& F, Eigen::MatrixXd& Yc, Index u, const double* sqrt_w, const Index* rows,
                         Index r0);
  void invalidate_totals();
  void update_totals();
  // Kernel statistics: the rows [r0, r0 + nr) of X (or of a gathered block) into W_ = [K(X, PV), 1, Y] and its
  // Gram into G_[u]; features_out (optional) receives their features.
  // sqrt_w (optional, indexed as Y): the block's rows scaled by sqrt(w_i) before the update (weighted statistics).
  void add_kernel_block(const MatrixView& X, Index r0, Index nr, const MatrixView& Y, const Index* y_rows,
                        Index u, double* features_out, const Index* out_rows, const double* sqrt_w);
  // The Phi-space statistics Gp_, tp_ from the kernel statistics (kernel mode; lazily, under totals_mutex_).
  void ensure_transformed() const;
  const std::vector<Eigen::MatrixXd>& phi_G() const;
  const std::vector<Eigen::MatrixXd>& phi_t() const;

  RowMatrix pv_;
  KernelParams params_;
  RowMatrix P_;
  Index v_, k_, d_lin_, p_;
  bool kernel_ = false;  // kernel statistics: G_[u] is the Gram of [C, Y] (ext_ x ext_), t_ unused
  Index m_ = 0, ext_ = 0;
  RowMatrix Pt_, PtT_;   // P~ ((m + 1) x dim) and its transpose, row-major (kernel mode)
  RowMatrix W_;          // the current block [K(X, PV), 1, Y] (kernel mode)
  RowMatrix Ws_;         // W_ with its rows scaled by sqrt(w) (weighted, kernel mode, keep_features: W_ is kept)
  Eigen::MatrixXd Fs_;   // the same for the features (weighted, features mode, keep_features)
  RowMatrix pvt_, xpack_;  // PV^T (d x m) and a packed copy of a strided block (kernel mode)
  Eigen::VectorXd pvnorm_;  // PV's squared row norms (kernel mode)
  mutable std::vector<Eigen::MatrixXd> Gp_, tp_;  // Phi-space statistics (kernel mode), valid while phi_valid_
  mutable bool phi_valid_ = false;
  mutable std::mutex phi_mutex_;
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
    RowMatrix W;  // kernel mode: [K(X, PV), 1, Y] of the chunk instead of its features
  };
  bool keep_ = false;
  std::vector<KeptChunk> kept_;
  Eigen::MatrixXd S_, c_;  // sums over the folds (S_: lower triangle), valid while totals_valid_
  bool totals_valid_ = false;
  bool incomplete_ = false;  // an add stopped half-way (an exception, e.g. a Ctrl-C, after the first chunk)
  mutable std::mutex totals_mutex_;  // fold_solve may run from several Python threads at once (the GIL is released)
};

// G (p x p, lower triangle) += F^T F for the rows of F (col-major, rows x p), in column panels
// across threads. Exposed for the benchmark against numpy's P.T @ P.
void syrk_lower_panels(const Eigen::Ref<const Eigen::MatrixXd>& F, Eigen::Ref<Eigen::MatrixXd> G, int n_threads);

}  // namespace svmopt
