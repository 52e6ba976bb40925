#include "svmopt/fast_cv.hpp"

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

// Cholesky factor of the ridge matrix (7), A + R/gamma; throws when it is not positive definite.
Eigen::LLT<Eigen::MatrixXd, Eigen::Lower> ridge_llt(Eigen::MatrixXd A, double gamma, bool regularize_bias) {
  const Index p = A.rows();
  A.diagonal().head(regularize_bias ? p : p - 1).array() += 1.0 / gamma;
  Eigen::LLT<Eigen::MatrixXd, Eigen::Lower> llt(A);
  if (llt.info() != Eigen::Success) {
    throw std::runtime_error("the ridge system (7) is not positive definite (gamma=" + std::to_string(gamma) + ")");
  }
  return llt;
}

Eigen::MatrixXd solve_spd(Eigen::MatrixXd A, const Eigen::MatrixXd& c, double gamma, bool regularize_bias) {
  return ridge_llt(std::move(A), gamma, regularize_bias).solve(c);
}

}  // namespace

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
  std::vector<Eigen::MatrixXd> theta(v);
  std::string err;
#pragma omp parallel for schedule(dynamic, 1) num_threads(resolve_threads(n_threads)) if (v > 1)
  for (Index u = 0; u < v; ++u) {
    try {
      theta[u] = solve_spd(Gs - G[u], ts - t[u], gamma, regularize_bias);
    } catch (const std::exception& e) {
#pragma omp critical
      err = e.what();
    }
  }
  if (!err.empty()) throw std::runtime_error(err);
  return theta;
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
#pragma omp parallel for schedule(static) num_threads(resolve_threads(n_threads)) if (n * p > (1 << 16))
  for (Index i = 0; i < n; ++i) {
    const Eigen::MatrixXd& th = theta[folds[i]];
    for (Index j = 0; j < k; ++j) {
      double s = 0.0;
      for (Index l = 0; l < p; ++l) s += Phi(i, l) * th(l, j);
      out(i, j) = s;
    }
  }
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
  std::vector<std::vector<Index>> rows(v);
  for (Index i = 0; i < n; ++i) {
    if (folds[i] < 0 || folds[i] >= v) throw std::invalid_argument("fold ids must lie in [0, n_folds)");
    rows[folds[i]].push_back(i);
  }
  const Eigen::LLT<Eigen::MatrixXd, Eigen::Lower> llt = ridge_llt(G, gamma, regularize_bias);
  const Eigen::MatrixXd theta = llt.solve(t);
  std::string err;
#pragma omp parallel for schedule(dynamic, 1) num_threads(resolve_threads(n_threads)) if (v > 1 && n * p > (1 << 16))
  for (Index u = 0; u < v; ++u) {
    const std::vector<Index>& r = rows[u];
    const Index nu = static_cast<Index>(r.size());
    if (nu == 0) continue;
    Eigen::MatrixXd Z(p, nu);  // Phi_u^T, then L^{-1} Phi_u^T
    for (Index c = 0; c < nu; ++c)
      for (Index j = 0; j < p; ++j) Z(j, c) = Phi(r[c], j);
    Eigen::MatrixXd E(nu, k);  // full-model residuals Y_u - Phi_u theta, then the held-out ones
    E.noalias() = -Z.transpose() * theta;
    for (Index c = 0; c < nu; ++c)
      for (Index j = 0; j < k; ++j) E(c, j) += Y(r[c], j);
    llt.matrixL().solveInPlace(Z);
    Eigen::MatrixXd M = Eigen::MatrixXd::Identity(nu, nu);
    M.selfadjointView<Eigen::Lower>().rankUpdate(Z.transpose(), -1.0);
    const Eigen::LLT<Eigen::MatrixXd, Eigen::Lower> lm(M);
    if (lm.info() != Eigen::Success) {
#pragma omp critical
      err = "fold " + std::to_string(u) + ": the ridge system (20) without the fold is not positive definite (gamma=" +
            std::to_string(gamma) + ")";
      continue;
    }
    lm.solveInPlace(E);
    for (Index c = 0; c < nu; ++c)
      for (Index j = 0; j < k; ++j) out(r[c], j) = Y(r[c], j) - E(c, j);
  }
  if (!err.empty()) throw std::runtime_error(err);
}

}  // namespace svmopt
