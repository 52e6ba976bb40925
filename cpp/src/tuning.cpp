#include "svmopt/tuning.hpp"

#include <Eigen/Eigenvalues>

#include <algorithm>
#include <cmath>
#include <limits>
#include <numeric>
#include <stdexcept>
#include <string>

#include "svmopt/blas.hpp"
#include "svmopt/csa.hpp"
#include "svmopt/fast_cv.hpp"

namespace svmopt {
namespace {

constexpr double kInf = std::numeric_limits<double>::infinity();

// Raised by a bounded cost once its budget is spent (scipy's _MaxFuncCallError).
struct BudgetSpent {};

// Row `i` of `history` for an evaluation at x with cost e.
void record(std::vector<double>& history, const Vector& x, double e) {
  history.insert(history.end(), x.data(), x.data() + x.size());
  history.push_back(e);
}

RowMatrix to_history(const std::vector<double>& h, Index dim) {
  const Index rows = static_cast<Index>(h.size()) / (dim + 1);
  return Eigen::Map<const RowMatrix>(h.data(), rows, dim + 1);
}

// The first evaluation with the lowest cost (numpy's argmin).
void take_best(SearchResult& r, Index dim) {
  if (r.history.rows() == 0) {
    r.fun = kInf;
    return;
  }
  Index b = 0;
  for (Index i = 1; i < r.history.rows(); ++i)
    if (r.history(i, dim) < r.history(b, dim)) b = i;
  r.x = r.history.row(b).head(dim).transpose();
  r.fun = r.history(b, dim);
}

}  // namespace

NystromProjection nystrom_projection(const MatrixView& PV, const KernelParams& params, int n_threads) {
  const Index m = PV.rows;
  if (m < 1) throw std::invalid_argument("PV must have at least one row");
  check_finite_rows(PV, "PV");
  // Below 600 prototypes one thread: the tiles are too few for a parallel Gram to pay for its barrier.
  RowMatrix Omega(m, m);
  gram(PV, params, RowMatrixMap(Omega.data(), m, m), m < 600 ? 1 : n_threads);
  // Ascending eigenpairs: LAPACK's dsyevd from order blas::kMinSyevd where installed (numpy.linalg.eigh's routine),
  // else Eigen's solver (as fast below that order).
  Eigen::MatrixXd U = Omega;  // symmetric: row- and column-major agree
  Vector w(m);
  Index info = 0;
  if (!(m >= blas::kMinSyevd && blas::syevd_lower(m, U.data(), m, w.data(), &info))) {
    const Eigen::SelfAdjointEigenSolver<Eigen::MatrixXd> es(U);
    info = es.info() == Eigen::Success ? 0 : 1;
    if (info == 0) {
      U = es.eigenvectors();
      w = es.eigenvalues();
    }
  }
  if (info != 0) throw std::runtime_error("the eigendecomposition of Omega_mm did not converge");
  const Vector lam = w.reverse();  // decreasing
  const double lam_max = std::max(lam(0), 0.0);
  std::vector<Index> keep;
  for (Index i = 0; i < m; ++i)
    if (lam(i) > static_cast<double>(m) * std::numeric_limits<double>::epsilon() * lam_max) keep.push_back(i);
  if (keep.empty() && lam(0) > 0.0) keep.push_back(0);
  if (keep.empty()) throw std::invalid_argument("the prototype kernel matrix is zero; the Nyström map is undefined");
  NystromProjection out;
  out.P.resize(m, static_cast<Index>(keep.size()));
  out.lambda.resize(static_cast<Index>(keep.size()));
  for (std::size_t c = 0; c < keep.size(); ++c) {
    const Index i = keep[c];
    out.lambda(static_cast<Index>(c)) = lam(i);
    out.P.col(static_cast<Index>(c)) = U.col(m - 1 - i) / std::sqrt(lam(i));
  }
  return out;
}

SearchResult nelder_mead(const CostFunction& cost, const Vector& x0, const Vector* lower, const Vector* upper,
                         Index max_evals, double step, double tol, const Deadline& deadline) {
  const Index N = x0.size();
  if (N < 1) throw std::invalid_argument("x0 must not be empty");
  if ((lower == nullptr) != (upper == nullptr)) throw std::invalid_argument("give both bounds or neither");
  if (lower && (lower->size() != N || upper->size() != N)) throw std::invalid_argument("bounds must have dim entries");
  if (lower) {
    for (Index j = 0; j < N; ++j)
      if (!((*lower)(j) <= (*upper)(j))) throw std::invalid_argument("lower <= upper required in every coordinate");
  }
  SearchResult r;
  std::vector<double> hist;
  Index evals = 0;
  Interruption intr;  // between evaluations (a cost in the core runs no Python code of its own)
  auto func = [&](const Vector& x) {
    intr.check();
    if (evals >= max_evals) throw BudgetSpent{};
    if (!deadline.allows_next()) {
      r.timed_out = true;
      throw BudgetSpent{};
    }
    ++evals;
    const Vector xc = lower ? Vector(x.cwiseMax(*lower).cwiseMin(*upper)) : x;
    const auto t0 = std::chrono::steady_clock::now();
    double e = cost(xc);
    deadline.record(std::chrono::steady_clock::now() - t0);
    if (std::isnan(e)) e = kInf;
    record(hist, xc, e);
    return e;
  };
  // The (1, 2, 0.5, 0.5) coefficients: reflection, expansion, contraction, shrink.
  constexpr double rho = 1.0, chi = 2.0, psi = 0.5, sigma = 0.5;
  std::vector<Vector> sim(static_cast<std::size_t>(N + 1), x0);
  for (Index k = 0; k < N; ++k) sim[static_cast<std::size_t>(k + 1)](k) += step;
  std::vector<double> fsim(static_cast<std::size_t>(N + 1), kInf);
  auto sort_simplex = [&] {  // numpy's argsort on N + 1 <= 16 entries is an insertion sort: stable
    std::vector<std::size_t> ind(sim.size());
    std::iota(ind.begin(), ind.end(), 0);
    std::stable_sort(ind.begin(), ind.end(), [&](std::size_t a, std::size_t b) { return fsim[a] < fsim[b]; });
    std::vector<Vector> s2;
    std::vector<double> f2;
    for (std::size_t i : ind) {
      s2.push_back(sim[i]);
      f2.push_back(fsim[i]);
    }
    sim.swap(s2);
    fsim.swap(f2);
  };
  if (max_evals > 0) {
    try {
      for (std::size_t k = 0; k < sim.size(); ++k) fsim[k] = func(sim[k]);
    } catch (const BudgetSpent&) {
    }
    sort_simplex();
    const std::size_t last = static_cast<std::size_t>(N);
    while (evals < max_evals && !r.timed_out) {
      try {
        bool converged = true;  // every |x_j - x_0| <= tol and |f_0 - f_j| <= tol (NaN: not converged)
        for (std::size_t j = 1; j <= last && converged; ++j) {
          for (Index i = 0; i < N; ++i)
            if (!(std::abs(sim[j](i) - sim[0](i)) <= tol)) converged = false;
          if (!(std::abs(fsim[0] - fsim[j]) <= tol)) converged = false;
        }
        if (converged) break;
        Vector xbar = sim[0];
        for (std::size_t j = 1; j < last; ++j) xbar += sim[j];
        xbar /= static_cast<double>(N);
        const Vector xr = (1 + rho) * xbar - rho * sim[last];
        const double fxr = func(xr);
        bool shrink = false;
        if (fxr < fsim[0]) {
          const Vector xe = (1 + rho * chi) * xbar - rho * chi * sim[last];
          const double fxe = func(xe);
          if (fxe < fxr) {
            sim[last] = xe;
            fsim[last] = fxe;
          } else {
            sim[last] = xr;
            fsim[last] = fxr;
          }
        } else if (fxr < fsim[last - 1]) {
          sim[last] = xr;
          fsim[last] = fxr;
        } else if (fxr < fsim[last]) {  // outside contraction
          const Vector xc = (1 + psi * rho) * xbar - psi * rho * sim[last];
          const double fxc = func(xc);
          if (fxc <= fxr) {
            sim[last] = xc;
            fsim[last] = fxc;
          } else {
            shrink = true;
          }
        } else {  // inside contraction
          const Vector xcc = (1 - psi) * xbar + psi * sim[last];
          const double fxcc = func(xcc);
          if (fxcc < fsim[last]) {
            sim[last] = xcc;
            fsim[last] = fxcc;
          } else {
            shrink = true;
          }
        }
        if (shrink) {
          for (std::size_t j = 1; j <= last; ++j) {
            sim[j] = sim[0] + sigma * (sim[j] - sim[0]);
            fsim[j] = func(sim[j]);
          }
        }
      } catch (const BudgetSpent&) {
      }
      sort_simplex();
    }
  }
  r.history = to_history(hist, N);
  r.n_simplex = r.history.rows();
  take_best(r, N);
  if (r.history.rows() == 0) r.x = x0;
  return r;
}

SearchResult csa_simplex(const CostFunction& cost, const RowMatrix& x0, const Vector& lower, const Vector& upper,
                         Index n_csa, Index n_simplex, Index inner, std::uint64_t seed, double step,
                         double time_limit) {
  check_search_box(x0, lower, upper);  // whether CSA runs or not
  const Deadline deadline(time_limit);  // shared by both stages (the simplex starts with CSA's mean duration)
  if (n_csa > 0 && n_csa < x0.rows()) {
    throw std::invalid_argument("n_csa must be 0 or at least the number of initial states (" +
                                std::to_string(x0.rows()) + ")");
  }
  CSAResult c;
  if (n_csa > 0) {
    CSAOptions opt;
    opt.max_evals = n_csa;
    opt.inner = inner;
    opt.seed = seed;
    opt.deadline = deadline;
    c = csa_minimize(cost, x0, lower, upper, opt);
    deadline.total = opt.deadline.total;  // the simplex starts from CSA's mean evaluation time
    deadline.count = opt.deadline.count;
  } else {  // no CSA stage: the simplex starts from the first initial state
    c.x_best = x0.row(0).transpose();
    c.history.resize(0, x0.cols() + 1);
  }
  // After a timed-out CSA the simplex evaluates nothing (the deadline allows no further evaluation).
  const SearchResult s = nelder_mead(cost, c.x_best, &lower, &upper, c.timed_out ? 0 : n_simplex, step, 1e-4, deadline);
  const Index dim = x0.cols();
  SearchResult r;
  r.history.resize(c.history.rows() + s.history.rows(), dim + 1);
  r.history << c.history, s.history;
  r.n_csa = c.history.rows();
  r.n_simplex = s.history.rows();
  r.Tac = c.Tac_final;
  r.n_stages = c.n_stages;
  r.timed_out = c.timed_out || s.timed_out;
  take_best(r, dim);
  if (r.history.rows() == 0) r.x = c.x_best;  // nothing evaluated: the start
  return r;
}

bool holdout_cheaper(Index n, Index p, Index v) {
  if (v < 2) return false;
  const double nd = static_cast<double>(n), pd = static_cast<double>(p), nu = nd / static_cast<double>(v);
  return pd * pd * pd / 3 + nd * pd * pd + nd * nu * (pd + nu / 3) < 2.0 * static_cast<double>(v) * pd * pd * pd / 3;
}

CVCost::CVCost(CVRows data, RowMatrix PV, KernelParams params, bool tune_rbf, Index n_features_linear, CVTask task,
               bool regularize_bias, std::int64_t feature_budget, int n_threads, Index cache_size,
               Statistics statistics)
    : data_(std::move(data)),
      pv_(std::move(PV)),
      params_(params),
      tune_rbf_(tune_rbf),
      d_lin_(pv_.rows() == 0 ? n_features_linear : 0),
      task_(task),
      regularize_bias_(regularize_bias),
      cache_size_(std::max<Index>(cache_size, 1)),
      statistics_(statistics) {
  const Index n = n_rows(), d = data_.X.cols;
  if (pv_.rows() == 0 && d_lin_ != d) throw std::invalid_argument("n_features_linear must equal X's columns");
  if (pv_.rows() > 0 && pv_.cols() != d) throw std::invalid_argument("PV and X must have the same columns");
  if (n < 1) throw std::invalid_argument("no rows");
  if (data_.Y.rows() != n || data_.Y.cols() < 1) throw std::invalid_argument("Y must have one row per fold id");
  if (!data_.Y.allFinite()) throw std::invalid_argument("Y must be finite");
  if (task_ == CVTask::Classification && !(data_.Y.array().abs() == 1.0).all()) {
    throw std::invalid_argument("Y must hold labels -1 or +1 for classification");
  }
  if (!data_.rows.empty() && static_cast<Index>(data_.rows.size()) != n) {
    throw std::invalid_argument("rows and folds must have the same length");
  }
  if (data_.rows.empty() && data_.X.rows != n) throw std::invalid_argument("X must have one row per fold id");
  for (std::size_t i = 0; i < data_.rows.size(); ++i) {
    if (data_.rows[i] < 0 || data_.rows[i] >= data_.X.rows || (i && data_.rows[i] <= data_.rows[i - 1])) {
      throw std::invalid_argument("rows must be increasing row indices of X");
    }
  }
  if (!(data_.mean.size() == 0 || (data_.mean.size() == d && data_.scale.size() == d))) {
    throw std::invalid_argument("mean and scale must have one entry per column of X");
  }
  if (data_.block < 1) throw std::invalid_argument("block must be >= 1");
  if (data_.n_folds < 1) throw std::invalid_argument("n_folds must be >= 1");
  for (const auto f : data_.folds)
    if (f < 0 || f >= data_.n_folds) throw std::invalid_argument("fold ids must lie in [0, n_folds)");
  const bool weighted = data_.weights.size() > 0;
  if (weighted) {
    if (data_.weights.size() != n) throw std::invalid_argument("weights must hold one weight per fold id");
    if (!(data_.weights.array().isFinite() && data_.weights.array() > 0.0).all()) {
      throw std::invalid_argument("weights must be finite and > 0");
    }
  }
  const Index p = (pv_.rows() > 0 ? pv_.rows() : d) + 1;  // before the small eigenpairs are dropped
  // What is kept per row: the features, or with kernel statistics the block [K(x, PV), 1, y] (the larger).
  const Index kept = pv_.rows() > 0 ? FoldAccumulator::kept_row_doubles(pv_.rows(), data_.Y.cols()) : p;
  entry_bytes_ = static_cast<double>(n) * static_cast<double>(kept) * 8.0;
  feature_budget_ = static_cast<double>(feature_budget);
  if (entry_bytes_ > feature_budget_) {
    throw std::invalid_argument("the features of " + std::to_string(n) + " rows exceed the feature budget; " +
                                "use the streaming engine");
  }
  // Small problems run on one thread: an OpenMP barrier costs milliseconds on a loaded machine.
  n_threads_ = static_cast<double>(n) * static_cast<double>(p) * static_cast<double>(p) < 2e8 ? 1 : n_threads;
  // The holdout identity works on the unweighted rows of Phi_e: weighted fits take the per-fold solves.
  holdout_ = pv_.rows() > 0 && !weighted && holdout_cheaper(n, p, data_.n_folds);
}

KernelParams CVCost::params_for(double sigma2) const {
  KernelParams p = params_;
  if (tune_rbf_) p.alpha = std::sqrt(sigma2 / 2.0);
  return p;
}

CVCost::Stats& CVCost::stats(double sigma2) {
  for (auto it = cache_.begin(); it != cache_.end(); ++it) {
    if (it->sigma2 == sigma2) {
      cache_.splice(cache_.begin(), cache_, it);
      return cache_.front();
    }
  }
  Stats s;
  s.sigma2 = sigma2;
  const Index n = n_rows(), d = data_.X.cols;
  const Index v = holdout_ ? 1 : data_.n_folds;
  if (pv_.rows() > 0) {
    const KernelParams kp = params_for(sigma2);
    s.P = nystrom_projection(view_of(pv_), kp, n_threads_).P;
    s.acc = std::make_unique<FoldAccumulator>(pv_, kp, s.P, v, data_.Y.cols(), 0, n_threads_, 0, !holdout_,
                                              statistics_);
  } else {
    s.acc = std::make_unique<FoldAccumulator>(RowMatrix(0, d), params_, RowMatrix(0, 0), v, data_.Y.cols(), d_lin_,
                                              n_threads_, 0, !holdout_);
  }
  // Every entry keeps its rows' features: older ones go first, so that the features held stay within the budget
  // (once the projection exists: it may throw, and a failed evaluation then costs no remembered sigma^2).
  while (!cache_.empty() && static_cast<double>(cache_.size() + 1) * entry_bytes_ > feature_budget_) {
    cache_.pop_back();
  }
  if (holdout_) s.Phi.resize(n, s.acc->dim());
  ++n_passes_;
  // The Python engine's stream: source blocks of `block` rows, restricted to the problem's rows, standardized.
  RowMatrix xb;
  const bool all = data_.rows.empty();
  const bool standardize = data_.mean.size() > 0;
  Index t0 = 0;  // problem rows consumed
  Interruption intr;
  for (Index r0 = 0; r0 < data_.X.rows && t0 < n; r0 += data_.block) {
    intr.check();
    const Index r1 = std::min(r0 + data_.block, data_.X.rows);
    Index t1 = t0;
    if (all) {
      t1 = r1;
    } else {
      while (t1 < n && data_.rows[static_cast<std::size_t>(t1)] < r1) ++t1;
    }
    const Index nb = t1 - t0;
    if (nb == 0) continue;
    xb.resize(nb, d);
    for (Index i = 0; i < nb; ++i) {
      const Index src = all ? r0 + i : data_.rows[static_cast<std::size_t>(t0 + i)];
      for (Index j = 0; j < d; ++j) {
        const double x = data_.X(src, j);
        xb(i, j) = standardize ? (x - data_.mean(j)) / data_.scale(j) : x;
      }
    }
    MatrixView yv;
    yv.data = data_.Y.data() + t0 * data_.Y.cols();
    yv.rows = nb;
    yv.cols = data_.Y.cols();
    yv.row_stride = data_.Y.cols();
    yv.col_stride = 1;
    s.acc->add(view_of(xb), yv, holdout_ ? nullptr : data_.folds.data() + t0,
               holdout_ ? s.Phi.data() + t0 * s.Phi.cols() : nullptr,
               data_.weights.size() ? data_.weights.data() + t0 : nullptr);
    t0 = t1;
  }
  cache_.push_front(std::move(s));
  while (static_cast<Index>(cache_.size()) > cache_size_) cache_.pop_back();
  return cache_.front();
}

void CVCost::check_hyperparameters(double gamma, double sigma2) const {
  if (!(gamma > 0.0) || !std::isfinite(gamma)) throw std::invalid_argument("gamma must be finite and > 0");
  if (tune_rbf_ && (!(sigma2 > 0.0) || !std::isfinite(sigma2))) {
    throw std::invalid_argument("sigma2 must be finite and > 0");
  }
}

double CVCost::cost(double gamma, double sigma2) {
  const std::lock_guard<std::mutex> lock(mutex_);
  ++n_evals_;  // every attempt counts, as in the Python engine
  check_hyperparameters(gamma, sigma2);
  Stats& s = stats(sigma2);
  const Index n = n_rows(), k = data_.Y.cols();
  RowMatrix f(n, k);
  if (holdout_) {
    fast_cv_holdout(view_of(s.Phi), view_of(data_.Y), data_.folds.data(), data_.n_folds, s.acc->gram(0),
                    s.acc->cross(0), gamma, regularize_bias_, RowMatrixMap(f.data(), n, k), n_threads_);
  } else {
    s.acc->predict_kept(s.acc->fold_solve(gamma, regularize_bias_), RowMatrixMap(f.data(), n, k));
  }
  const bool weighted = data_.weights.size() > 0;
  double total = 0.0;
  for (Index i = 0; i < n; ++i) {
    double row = 0.0;  // L_i summed over the targets
    for (Index j = 0; j < k; ++j) {
      if (task_ == CVTask::Regression) {
        const double e = data_.Y(i, j) - f(i, j);
        row += e * e;
      } else {
        row += (f(i, j) >= 0 ? 1.0 : -1.0) != data_.Y(i, j) ? 1.0 : 0.0;
      }
    }
    total += weighted ? data_.weights(i) * row : row;
  }
  // the weighted mean sum_i w_i L_i / (k sum_i w_i), or the plain one
  return total / (weighted ? data_.weights.sum() * static_cast<double>(k) : static_cast<double>(n * k));
}

std::pair<RowMatrix, Eigen::MatrixXd> CVCost::fit(double gamma, double sigma2) {
  check_hyperparameters(gamma, sigma2);
  const std::lock_guard<std::mutex> lock(mutex_);
  Stats& s = stats(sigma2);
  const auto [G, t] = s.acc->totals();
  return {s.P, ridge_solve(G, t, gamma, regularize_bias_)};
}

SearchResult tune_cv(CVCost& cv, const RowMatrix& x0, const Vector& lower, const Vector& upper, bool tune_gamma,
                     bool tune_sigma2, double gamma, double sigma2, Index n_csa, Index n_simplex, Index inner,
                     std::uint64_t seed, double step, double time_limit) {
  if (!tune_gamma && !tune_sigma2) throw std::invalid_argument("nothing to tune");
  if (x0.cols() != static_cast<Index>(tune_gamma) + static_cast<Index>(tune_sigma2)) {
    throw std::invalid_argument("x0 must have one column per tuned hyperparameter");
  }
  const CostFunction cost = [&](const Vector& x) {
    const double g = tune_gamma ? std::exp(x(0)) : gamma;
    const double s = tune_sigma2 ? std::exp(x(x.size() - 1)) : sigma2;
    try {
      return cv.cost(g, s);
    } catch (const std::invalid_argument&) {  // an undefined Nyström map, sigma2 under- or overflowing
      return kInf;
    } catch (const std::runtime_error&) {  // a fold system not positive definite
      return kInf;
    }
  };
  return csa_simplex(cost, x0, lower, upper, n_csa, n_simplex, inner, seed, step, time_limit);
}

}  // namespace svmopt
