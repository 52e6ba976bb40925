#include "svmopt/fast_cv.hpp"

#include "svmopt/blas.hpp"

#include <algorithm>
#include <stdexcept>
#include <string>
#include <utility>

namespace svmopt {
namespace {

void check_system(const Eigen::MatrixXd& A, const Eigen::MatrixXd& c) {
  if (A.rows() != A.cols() || A.rows() < 1) {
    throw std::invalid_argument("G must be a non-empty square p x p matrix, got " + std::to_string(A.rows()) + " x " +
                                std::to_string(A.cols()));
  }
  if (c.rows() != A.rows()) {
    throw std::invalid_argument("t must have p = " + std::to_string(A.rows()) + " rows, got " +
                                std::to_string(c.rows()));
  }
}

// Whether a p x p factorization goes to LAPACK's dpotrf (the installed BLAS, see blas.hpp; from order kMinPotrf),
// else to Eigen's LLT. dpotrf is called outside OpenMP regions: the BLAS threads itself.
bool on_lapack(Index p) { return p >= blas::kMinPotrf && blas::potrf_available(); }

// In place: the lower triangle of W (p x p, column-major) holds A; adds R/gamma to the diagonal and overwrites the
// lower triangle with the Cholesky factor L of A + R/gamma (7). Throws when it is not positive definite.
void ridge_factor_inplace(Eigen::MatrixXd& W, double gamma, bool regularize_bias) {
  const Index p = W.rows();
  W.diagonal().head(regularize_bias ? p : p - 1).array() += 1.0 / gamma;
  Index info = 0;
  bool ok;
  if (on_lapack(p) && blas::potrf_lower(p, W.data(), W.outerStride(), &info)) {
    ok = info == 0;
  } else {
    Eigen::LLT<Eigen::Ref<Eigen::MatrixXd>, Eigen::Lower> llt(W);
    ok = llt.info() == Eigen::Success;
  }
  if (!ok) {
    throw std::runtime_error("the ridge system (7) is not positive definite (gamma=" + std::to_string(gamma) + ")");
  }
}

// x <- (L L^T)^{-1} x with L the lower triangle of W.
void llt_solve_inplace(const Eigen::MatrixXd& W, Eigen::MatrixXd& x) {
  W.triangularView<Eigen::Lower>().solveInPlace(x);
  W.triangularView<Eigen::Lower>().adjoint().solveInPlace(x);
}

Eigen::MatrixXd solve_spd(Eigen::MatrixXd A, const Eigen::MatrixXd& c, double gamma, bool regularize_bias) {
  ridge_factor_inplace(A, gamma, regularize_bias);
  Eigen::MatrixXd x = c;
  llt_solve_inplace(A, x);
  return x;
}

}  // namespace

std::vector<Eigen::MatrixXd> fold_ridge_solves(const std::vector<Eigen::MatrixXd>& G,
                                               const std::vector<Eigen::MatrixXd>& t, const Eigen::MatrixXd& S,
                                               const Eigen::MatrixXd& c, double gamma, bool regularize_bias,
                                               int n_threads) {
  const Index v = static_cast<Index>(G.size()), p = S.rows();
  std::vector<Eigen::MatrixXd> theta(v);
  std::string err;
  // On LAPACK the folds go one after the other and the BLAS threads each factorization; on Eigen, folds in
  // parallel. One workspace per thread (a fresh p x p matrix per fold had cost page
  // faults; docs/performance.md#fixed-size-design-figures).
  const bool parallel_folds = v > 1 && !on_lapack(p);
  Interruption intr;
#pragma omp parallel num_threads(resolve_threads(n_threads)) if (parallel_folds)
  {
    Eigen::MatrixXd W(p, p);
#pragma omp for schedule(dynamic, 1)
    for (Index u = 0; u < v; ++u) {
      if (intr.requested()) continue;
      try {
        W.triangularView<Eigen::Lower>() = S - G[u];
        ridge_factor_inplace(W, gamma, regularize_bias);
        theta[u] = c - t[u];
        llt_solve_inplace(W, theta[u]);
      } catch (const std::exception& e) {
#pragma omp critical
        err = e.what();
      }
    }
  }
  intr.check();
  if (!err.empty()) throw std::runtime_error(err);
  return theta;
}

std::vector<Eigen::MatrixXd> fast_cv_solve(const std::vector<Eigen::MatrixXd>& G, const std::vector<Eigen::MatrixXd>& t,
                                           double gamma, bool regularize_bias, int n_threads) {
  const Index v = static_cast<Index>(G.size());
  if (v < 1 || static_cast<Index>(t.size()) != v) throw std::invalid_argument("G and t must hold one entry per fold");
  if (!(gamma > 0.0)) throw std::invalid_argument("gamma must be > 0");
  for (Index u = 0; u < v; ++u) {
    check_system(G[u], t[u]);
    if (G[u].rows() != G[0].rows() || t[u].cols() != t[0].cols()) {
      throw std::invalid_argument("every fold's G and t must have the same shapes");
    }
  }
  Eigen::MatrixXd Gs = G[0], ts = t[0];
  for (Index u = 1; u < v; ++u) {
    Gs += G[u];
    ts += t[u];
  }
  return fold_ridge_solves(G, t, Gs, ts, gamma, regularize_bias, n_threads);
}

Eigen::MatrixXd ridge_solve(const Eigen::MatrixXd& G, const Eigen::MatrixXd& t, double gamma, bool regularize_bias) {
  if (!(gamma > 0.0)) throw std::invalid_argument("gamma must be > 0");
  check_system(G, t);
  return solve_spd(G, t, gamma, regularize_bias);
}

void fold_predict(const MatrixView& Phi, const std::int32_t* folds, const std::vector<Eigen::MatrixXd>& theta,
                  RowMatrixMap out, int n_threads) {
  const Index n = Phi.rows, p = Phi.cols, v = static_cast<Index>(theta.size());
  if (v < 1) throw std::invalid_argument("theta is empty");
  const Index k = theta[0].cols();
  for (const auto& th : theta)
    if (th.rows() != p || th.cols() != k) throw std::invalid_argument("theta must be p x k per fold");
  for (Index i = 0; i < n; ++i)
    if (folds[i] < 0 || folds[i] >= v) throw std::invalid_argument("fold ids must lie in [0, n_folds)");
  Interruption intr;  // asked every 1024 rows
  if (Phi.rows_contiguous()) {  // vectorized dot products over each row
#pragma omp parallel for schedule(static) num_threads(resolve_threads(n_threads)) if (n * p > (1 << 16))
    for (Index i = 0; i < n; ++i) {
      if (intr.stopped() || ((i & 1023) == 0 && intr.requested())) continue;
      const Eigen::Map<const Eigen::RowVectorXd> row(Phi.data + i * Phi.row_stride, p);
      out.row(i).noalias() = row * theta[folds[i]];
    }
    intr.check();
    return;
  }
#pragma omp parallel for schedule(static) num_threads(resolve_threads(n_threads)) if (n * p > (1 << 16))
  for (Index i = 0; i < n; ++i) {
    if (intr.stopped() || ((i & 1023) == 0 && intr.requested())) continue;
    const Eigen::MatrixXd& th = theta[folds[i]];
    for (Index j = 0; j < k; ++j) {
      double s = 0.0;
      for (Index l = 0; l < p; ++l) s += Phi(i, l) * th(l, j);
      out(i, j) = s;
    }
  }
  intr.check();
}

void fast_cv_holdout(const MatrixView& Phi, const MatrixView& Y, const std::int32_t* folds, Index n_folds,
                     const Eigen::MatrixXd& G, const Eigen::MatrixXd& t, double gamma, bool regularize_bias,
                     RowMatrixMap out, int n_threads) {
  const Index n = Phi.rows, p = Phi.cols, k = Y.cols, v = n_folds;
  if (!(gamma > 0.0)) throw std::invalid_argument("gamma must be > 0");
  if (v < 1) throw std::invalid_argument("n_folds must be >= 1");
  check_system(G, t);
  if (G.rows() != p) {
    throw std::invalid_argument("G must be p x p with p = " + std::to_string(p) + " (the columns of Phi), got " +
                                std::to_string(G.rows()));
  }
  if (Y.rows != n) throw std::invalid_argument("Y must have one row per row of Phi");
  if (t.cols() != k) throw std::invalid_argument("t must have one column per column of Y");
  if (out.rows() != n || out.cols() != k) throw std::invalid_argument("out must be n x k");
  // Rows by fold (stable counting sort): fold u is columns start[u] .. start[u + 1] of Z below.
  std::vector<Index> start(v + 1, 0), order(n);
  for (Index i = 0; i < n; ++i) {
    if (folds[i] < 0 || folds[i] >= v) throw std::invalid_argument("fold ids must lie in [0, n_folds)");
    ++start[folds[i] + 1];
  }
  for (Index u = 0; u < v; ++u) start[u + 1] += start[u];
  {
    std::vector<Index> fill(start.begin(), start.end() - 1);
    for (Index i = 0; i < n; ++i) order[fill[folds[i]]++] = i;
  }
  Eigen::MatrixXd L = G;
  ridge_factor_inplace(L, gamma, regularize_bias);
  Eigen::MatrixXd theta = t;
  llt_solve_inplace(L, theta);
  const auto Lv = L.triangularView<Eigen::Lower>();
  // Z = L^{-1} Phi^T with the columns in fold order, and the full-model residuals E = Y - Phi theta (same order):
  // one blocked triangular solve over column slabs instead of one small solve per fold (at n = 1030, p = 51,
  // v = 50 the per-fold solves of 20 columns ran at half the rate).
  Eigen::MatrixXd Z(p, n), E(n, k);
  const int nt = resolve_threads(n_threads);
  constexpr Index kSlab = 256;
  const Index n_slabs = (n + kSlab - 1) / kSlab;
  Interruption intr;
#pragma omp parallel for schedule(static) num_threads(nt) if (n_slabs > 1 && n * p * p > (1 << 20))
  for (Index s = 0; s < n_slabs; ++s) {
    if (intr.requested()) continue;
    const Index c0 = s * kSlab, w = std::min(kSlab, n - c0);
    for (Index c = c0; c < c0 + w; ++c) {
      const Index i = order[c];
      for (Index j = 0; j < p; ++j) Z(j, c) = Phi(i, j);
    }
    E.middleRows(c0, w).noalias() = -Z.middleCols(c0, w).transpose() * theta;
    for (Index c = c0; c < c0 + w; ++c)
      for (Index j = 0; j < k; ++j) E(c, j) += Y(order[c], j);
    auto Zs = Z.middleCols(c0, w);
    Lv.solveInPlace(Zs);
  }
  intr.check();
  std::string err;
#pragma omp parallel for schedule(dynamic, 1) num_threads(nt) if (v > 1 && n * p > (1 << 16))
  for (Index u = 0; u < v; ++u) {
    if (intr.requested()) continue;
    const Index a = start[u], nu = start[u + 1] - start[u];
    if (nu == 0) continue;
    Eigen::MatrixXd M = Eigen::MatrixXd::Identity(nu, nu);
    M.selfadjointView<Eigen::Lower>().rankUpdate(Z.middleCols(a, nu).transpose(), -1.0);
    const Eigen::LLT<Eigen::MatrixXd, Eigen::Lower> lm(M);
    if (lm.info() != Eigen::Success) {
#pragma omp critical
      err = "fold " + std::to_string(u) + ": the ridge system (20) without the fold is not positive definite (gamma=" +
            std::to_string(gamma) + ")";
      continue;
    }
    auto Eu = E.middleRows(a, nu);
    lm.solveInPlace(Eu);
    for (Index c = 0; c < nu; ++c)
      for (Index j = 0; j < k; ++j) out(order[a + c], j) = Y(order[a + c], j) - Eu(c, j);
  }
  intr.check();
  if (!err.empty()) throw std::runtime_error(err);
}

}  // namespace svmopt
