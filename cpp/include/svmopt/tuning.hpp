// Tuning of the fixed-size LS-SVM (paper 002, Section 6) run in the core from end to end: the Nyström projection
// (Section 3.1), the simplex of Section 6.3, CSA followed by the simplex, and the fast v-fold CV cost (Algorithm 3,
// eqs. (19)-(21)) of rows held in memory, so that the default tuning path calls no Python per evaluation.
//
// The CV cost streams the rows of a problem from the caller's array in the blocks the Python engine
// (svmopt.fixed_size.cv_engine.CVEngine) uses -- standardized, restricted to the problem's rows -- through a
// FoldAccumulator, and then solves the folds by v Cholesky factorizations or, for many small folds, by the holdout
// identity; it is that engine's in-memory path (features kept, within the feature budget), tested against it.
#pragma once

#include <atomic>
#include <cstdint>
#include <functional>
#include <list>
#include <memory>
#include <mutex>
#include <vector>

#include "svmopt/common.hpp"
#include "svmopt/csa.hpp"
#include "svmopt/kernels.hpp"
#include "svmopt/nystrom.hpp"

namespace svmopt {

// P = U' Lambda'^{-1/2} (m x m') from the eigendecomposition of Omega_mm = K(PV, PV), eigenpairs in decreasing order,
// those with lambda <= m eps lambda_max dropped (no jitter is added). Throws std::invalid_argument when Omega_mm is
// zero (the Nyström map is undefined).
struct NystromProjection {
  RowMatrix P;
  Vector lambda;  // the kept eigenvalues, decreasing
};
NystromProjection nystrom_projection(const MatrixView& PV, const KernelParams& params, int n_threads = 0);

using CostFunction = std::function<double(const Vector&)>;

// One search: the best point ever evaluated, every evaluation (x..., cost), and what each stage spent.
struct SearchResult {
  Vector x;
  double fun = 0.0;
  RowMatrix history;
  Index n_csa = 0, n_simplex = 0;
  double Tac = 0.0;  // CSA's final acceptance temperature (0 without CSA)
  Index n_stages = 0;
  bool timed_out = false;  // stopped by the time limit before the evaluation budget was spent
};

// Nelder-Mead with coefficients (1, 2, 0.5, 0.5) from the simplex x0, x0 + step e_i (Section 6.3), at most
// max_evals costs; stops when the simplex spans at most tol in x and in cost. With bounds the evaluated point is
// clipped into [lower, upper] (the simplex itself is not), and a NaN cost counts as +inf. The same sequence of steps
// as scipy.optimize.minimize(method="Nelder-Mead") with xatol = fatol = tol.
// No evaluation starts after `deadline` (csa.hpp): the best point so far is returned, timed_out set.
SearchResult nelder_mead(const CostFunction& cost, const Vector& x0, const Vector* lower, const Vector* upper,
                         Index max_evals = 70, double step = 0.5, double tol = 1e-4,
                         const Deadline& deadline = Deadline());

// The paper's tuning (Section 6.3): CSA (csa.hpp) for n_csa costs from the q initial states x0, then Nelder-Mead for
// n_simplex costs from the CSA best; the result is the best point over all evaluations. n_csa = 0 skips CSA (the
// simplex starts from the first initial state). time_limit: seconds for both stages together (negative or infinite:
// none), checked between evaluations; a search stopped by it returns its best point so far, timed_out set.
SearchResult csa_simplex(const CostFunction& cost, const RowMatrix& x0, const Vector& lower, const Vector& upper,
                         Index n_csa = 90, Index n_simplex = 70, Index inner = 5, std::uint64_t seed = 0,
                         double step = 0.5, double time_limit = -1.0);

// Whether the holdout identity beats v Cholesky solves at n rows, p features, v folds (the rule and its measured
// factor 2 are documented at svmopt.fixed_size.cv_engine.holdout_cheaper).
bool holdout_cheaper(Index n, Index p, Index v);

enum class CVTask { Classification = 0, Regression = 1 };

// The rows of one problem: rows `rows` (sorted; empty: all) of X, standardized by (x - mean) / scale when mean is
// not empty, read in source blocks of `block` rows; targets Y (one row per problem row, k columns) and fold ids;
// weights (one per problem row, finite and > 0; empty: unweighted): weighted least squares, row i entering the fold
// sums with weight w_i (FoldAccumulator::add) and the CV cost as w_i L_i / sum w.
struct CVRows {
  MatrixView X;
  std::vector<Index> rows;
  Vector mean, scale;
  Index block = 65536;
  RowMatrix Y;
  std::vector<std::int32_t> folds;
  Index n_folds = 1;
  Vector weights;
};

class CVCost {
 public:
  // Nyström mode: PV (m x d) and `params` (for an RBF kernel with tune_rbf, alpha is set from sigma2 at each call:
  // alpha = sqrt(sigma2 / 2)). Explicit-linear mode: PV with 0 rows and n_features_linear = d. The features must fit
  // `feature_budget` bytes (n x (d + 1) doubles, or in Nystrom mode n x FoldAccumulator::kept_row_doubles(m, k) =
  // n x (m + 1 + k): the kernel block kept with kernel statistics); throws std::invalid_argument otherwise (use the
  // streaming engine). `statistics`: what each sigma^2's FoldAccumulator accumulates (nystrom.hpp).
  CVCost(CVRows data, RowMatrix PV, KernelParams params, bool tune_rbf, Index n_features_linear, CVTask task,
         bool regularize_bias, std::int64_t feature_budget, int n_threads, Index cache_size = 4,
         Statistics statistics = Statistics::Auto);

  // The CV cost (19)-(21): misclassification rate of sign(f) (sign(0) = +1) or MSE, pooled over folds and targets;
  // with weights the weighted mean sum_i w_i L_i / (k sum_i w_i) of the held-out losses L_i (summed over the k
  // targets). Weighted, the folds are always solved by v Cholesky factorizations (no holdout identity).
  double cost(double gamma, double sigma2);
  // The final fit (7) on all rows: P (empty in explicit-linear mode) and theta = [w; b] (p x k).
  std::pair<RowMatrix, Eigen::MatrixXd> fit(double gamma, double sigma2);

  Index n_rows() const { return static_cast<Index>(data_.folds.size()); }
  Index n_passes() const { return n_passes_.load(); }
  Index n_evals() const { return n_evals_.load(); }
  bool holdout() const { return holdout_; }

 private:
  struct Stats {
    double sigma2 = 0.0;
    RowMatrix P;
    std::unique_ptr<FoldAccumulator> acc;
    RowMatrix Phi;  // stream-ordered features (holdout form only)
  };
  Stats& stats(double sigma2);
  KernelParams params_for(double sigma2) const;
  void check_hyperparameters(double gamma, double sigma2) const;

  CVRows data_;
  RowMatrix pv_;
  KernelParams params_;
  bool tune_rbf_;
  Index d_lin_;
  CVTask task_;
  bool regularize_bias_;
  int n_threads_;
  bool holdout_ = false;
  Index cache_size_;
  // Bytes of features one cached sigma^2 keeps (n x kept row doubles) and the feature budget: the cache holds no
  // more sigma^2 than fit the budget together (at least the newest).
  double entry_bytes_ = 0.0, feature_budget_ = 0.0;
  Statistics statistics_ = Statistics::Auto;
  std::list<Stats> cache_;  // most recently used first
  std::atomic<Index> n_passes_{0}, n_evals_{0};  // read without the lock (properties)
  std::mutex mutex_;  // cost and fit may be called from several Python threads at once (the GIL is released)
};

// The estimator's tuning of (log gamma, log sigma2) -- either or both -- by csa_simplex on cv.cost. A cost that
// throws (a fold system not positive definite, an undefined Nyström map) counts as +inf, as in the Python path.
SearchResult tune_cv(CVCost& cv, const RowMatrix& x0, const Vector& lower, const Vector& upper, bool tune_gamma,
                     bool tune_sigma2, double gamma, double sigma2, Index n_csa = 90, Index n_simplex = 70,
                     Index inner = 5, std::uint64_t seed = 0, double step = 0.5, double time_limit = -1.0);

}  // namespace svmopt
