// Dense primal simplex for LP (23); see dense_lp.hpp.
#include "svmopt/dense_lp.hpp"

#include <algorithm>
#include <cmath>
#include <limits>
#include <stdexcept>
#include <string>

#include "svmopt/robust.hpp"

namespace svmopt {

namespace {
constexpr double kPivotTol = 1e-9;      // smallest |alpha| accepted in the ratio test
constexpr double kDualTol = 1e-10;      // entering candidates: d_j < -kDualTol
constexpr Index kDegenerateRun = 30;    // switch to Bland's rule after this many degenerate pivots in a row
}  // namespace

GsvmDenseLP::GsvmDenseLP(const MatrixView& K, const double* y, const double* delta) {
  const Index m = K.rows;
  if (K.cols != m) throw std::invalid_argument("GsvmDenseLP: K must be square");
  if (m < 1) throw std::invalid_argument("GsvmDenseLP: K must have at least one row");
  Interruption intr;  // between rows and columns of K
  for (Index i = 0; i < m; ++i) {
    intr.check();
    if (y[i] != 1.0 && y[i] != -1.0) throw std::invalid_argument("GsvmDenseLP: y must hold labels +1 or -1");
    if (delta && !(delta[i] >= 0.0 && std::isfinite(delta[i]))) {
      throw std::invalid_argument("GsvmDenseLP: delta must be finite and >= 0");
    }
    for (Index j = 0; j < m; ++j) {
      if (!std::isfinite(K(i, j))) throw std::invalid_argument("GsvmDenseLP: K must be finite");
    }
  }
  m_ = m;
  n_ = 4 * m + 1;
  y_.assign(y, y + m);
  std::vector<double> r(static_cast<std::size_t>(m));
  feature_norms(K, r.data());
  // Original u-blocks, column-major: column j of u+ then column j of u- (the same entries as robust_lp_matrix).
  A_.resize(static_cast<std::size_t>(2 * m * m));
  for (Index j = 0; j < m; ++j) {
    intr.check();
    for (Index i = 0; i < m; ++i) {
      const double dk = y[i] * y[j] * K(j, i);
      const double rob = delta ? delta[i] * r[static_cast<std::size_t>(j)] : 0.0;
      A_[static_cast<std::size_t>(j * m + i)] = dk - rob;
      A_[static_cast<std::size_t>((m + j) * m + i)] = -dk - rob;
    }
  }
  // Tableau at the xi basis (B = I): T = [A_u+, A_u-, -y, I, -I], b = e.
  T_.assign(static_cast<std::size_t>(m * n_), 0.0);
  for (Index i = 0; i < m; ++i) {
    intr.check();
    double* row = T_.data() + i * n_;
    for (Index j = 0; j < 2 * m; ++j) row[j] = A_[static_cast<std::size_t>(j * m + i)];
    row[2 * m] = -y[i];
    row[2 * m + 1 + i] = 1.0;
    row[3 * m + 1 + i] = -1.0;
  }
  b_.assign(static_cast<std::size_t>(m), 1.0);
  head_.resize(static_cast<std::size_t>(m));
  is_basic_.assign(static_cast<std::size_t>(n_), 0);
  for (Index i = 0; i < m; ++i) {
    head_[static_cast<std::size_t>(i)] = 2 * m + 1 + i;
    is_basic_[static_cast<std::size_t>(2 * m + 1 + i)] = 1;
  }
  c_.assign(static_cast<std::size_t>(n_), 0.0);
  for (Index j = 0; j < 2 * m; ++j) c_[static_cast<std::size_t>(j)] = 1.0;
  d_.assign(static_cast<std::size_t>(n_), 0.0);
}

void GsvmDenseLP::price(double nu) {
  const Index m = m_;
  for (Index i = 0; i < m; ++i) c_[static_cast<std::size_t>(2 * m + 1 + i)] = nu;
  // d = c - c_B^T T
  std::copy(c_.begin(), c_.end(), d_.begin());
  for (Index i = 0; i < m; ++i) {
    const double cb = c_[static_cast<std::size_t>(head_[static_cast<std::size_t>(i)])];
    if (cb == 0.0) continue;
    const double* row = T_.data() + i * n_;
    for (Index j = 0; j < n_; ++j) d_[static_cast<std::size_t>(j)] -= cb * row[j];
  }
  for (Index i = 0; i < m; ++i) d_[static_cast<std::size_t>(head_[static_cast<std::size_t>(i)])] = 0.0;
}

void GsvmDenseLP::pivot(Index r, Index q) {
  const Index n = n_;
  double* prow = T_.data() + r * n;
  const double inv = 1.0 / prow[q];
  for (Index j = 0; j < n; ++j) prow[j] *= inv;
  prow[q] = 1.0;
  b_[static_cast<std::size_t>(r)] *= inv;
  const double br = b_[static_cast<std::size_t>(r)];
  for (Index i = 0; i < m_; ++i) {
    if (i == r) continue;
    double* row = T_.data() + i * n;
    const double f = row[q];
    if (f == 0.0) continue;
    for (Index j = 0; j < n; ++j) row[j] -= f * prow[j];
    row[q] = 0.0;
    double& bi = b_[static_cast<std::size_t>(i)];
    bi -= f * br;
    if (bi < 0.0 && bi > -1e-11) bi = 0.0;  // round-off below a basic variable's bound
  }
  const double dq = d_[static_cast<std::size_t>(q)];
  if (dq != 0.0) {
    for (Index j = 0; j < n; ++j) d_[static_cast<std::size_t>(j)] -= dq * prow[j];
  }
  d_[static_cast<std::size_t>(q)] = 0.0;
  const Index leaving = head_[static_cast<std::size_t>(r)];
  is_basic_[static_cast<std::size_t>(leaving)] = 0;
  is_basic_[static_cast<std::size_t>(q)] = 1;
  head_[static_cast<std::size_t>(r)] = q;
}

DenseLPResult GsvmDenseLP::solve(double nu, Index max_iter, double tol) {
  if (!(nu > 0.0) || !std::isfinite(nu)) throw std::invalid_argument("GsvmDenseLP: nu must be finite and > 0");
  if (max_iter <= 0) max_iter = 10 * n_;
  const Index m = m_, n = n_, g = 2 * m;
  price(nu);
  Index it = 0, degenerate = 0;
  bool bland = false;
  // Between pivots: an interrupted solve leaves a primal feasible basis, from which the next solve continues.
  Interruption intr;
  while (true) {
    intr.check();
    // Pricing: Dantzig (most negative reduced cost); Bland (smallest index) during a degenerate run.
    Index q = -1;
    double best = -kDualTol;
    bool flip_gamma = false;
    for (Index j = 0; j < n; ++j) {
      if (is_basic_[static_cast<std::size_t>(j)]) continue;
      double dj = d_[static_cast<std::size_t>(j)];
      bool flip = false;
      if (j == g && dj > kDualTol) {  // free gamma: entering downwards improves
        dj = -dj;
        flip = true;
      }
      if (dj < best) {
        q = j;
        best = dj;
        flip_gamma = flip;
        if (bland) break;
      }
    }
    if (q < 0) break;  // optimal
    if (it >= max_iter) {
      DenseLPResult res = certify(nu, it, tol);
      res.status = DenseLPStatus::IterationLimit;
      return res;
    }
    if (flip_gamma) {  // gamma := -gamma (column and reduced cost change sign)
      for (Index i = 0; i < m; ++i) T_[static_cast<std::size_t>(i * n + g)] *= -1.0;
      d_[static_cast<std::size_t>(g)] *= -1.0;
      gamma_sign_ = -gamma_sign_;
    }
    // Ratio test over rows with alpha > 0 (a basic free gamma has no bound and never leaves).
    Index r = -1;
    double rmin = std::numeric_limits<double>::infinity(), rbest_alpha = 0.0;
    for (Index i = 0; i < m; ++i) {
      if (head_[static_cast<std::size_t>(i)] == g) continue;
      const double a = T_[static_cast<std::size_t>(i * n + q)];
      if (a <= kPivotTol) continue;
      const double ratio = std::max(b_[static_cast<std::size_t>(i)], 0.0) / a;
      const double slack = 1e-12 * std::max(1.0, rmin);
      if (r < 0 || ratio < rmin - slack) {
        r = i;
        rmin = ratio;
        rbest_alpha = a;
      } else if (ratio <= rmin + slack) {
        const bool better = bland ? head_[static_cast<std::size_t>(i)] < head_[static_cast<std::size_t>(r)]
                                  : a > rbest_alpha;
        if (better) {
          r = i;
          rmin = std::min(rmin, ratio);
          rbest_alpha = a;
        }
      }
    }
    if (r < 0) {
      DenseLPResult res = certify(nu, it, tol);
      res.status = DenseLPStatus::Unbounded;
      return res;
    }
    if (rmin <= 1e-12) {
      if (++degenerate >= kDegenerateRun) bland = true;
    } else {
      degenerate = 0;
      bland = false;
    }
    pivot(r, q);
    ++it;
  }
  // A free gamma left nonbasic at 0 (zero reduced cost) is brought into the basis at no cost, upwards if a row
  // bounds that move, else downwards: a basic free variable is what a standard simplex code (HiGHS) returns.
  // It matters for the degenerate optimum u = 0, where every gamma in [-1, 1] is optimal: at gamma = 0 every
  // score is 0, the paper's interval collapses to b = 0 and its tie rule counts every point as correct, so
  // that degenerate model would win the nu selection while predicting one class.
  if (!is_basic_[static_cast<std::size_t>(g)]) {
    for (int attempt = 0; attempt < 2; ++attempt) {
      Index r = -1;
      double rmin = std::numeric_limits<double>::infinity();
      for (Index i = 0; i < m; ++i) {
        const double a = T_[static_cast<std::size_t>(i * n + g)];
        if (a <= kPivotTol) continue;
        const double ratio = std::max(b_[static_cast<std::size_t>(i)], 0.0) / a;
        if (ratio < rmin) {
          r = i;
          rmin = ratio;
        }
      }
      if (r >= 0) {
        pivot(r, g);
        ++it;
        break;
      }
      for (Index i = 0; i < m; ++i) T_[static_cast<std::size_t>(i * n + g)] *= -1.0;
      d_[static_cast<std::size_t>(g)] *= -1.0;
      gamma_sign_ = -gamma_sign_;
    }
  }
  return certify(nu, it, tol);
}

DenseLPResult GsvmDenseLP::certify(double nu, Index iterations, double tol) const {
  const Index m = m_, g = 2 * m;
  DenseLPResult res;
  res.iterations = iterations;
  res.x.assign(static_cast<std::size_t>(3 * m + 1), 0.0);
  for (Index i = 0; i < m; ++i) {
    const Index h = head_[static_cast<std::size_t>(i)];
    if (h <= 3 * m) res.x[static_cast<std::size_t>(h)] = b_[static_cast<std::size_t>(i)];
  }
  res.x[static_cast<std::size_t>(g)] *= gamma_sign_;
  const double gamma = res.x[static_cast<std::size_t>(g)];
  // Primal: z >= 0 (but gamma), A z >= e, relative to the size of the terms of each row.
  double pinf = 0.0, obj = 0.0;
  for (Index j = 0; j <= 3 * m; ++j) {
    const double v = res.x[static_cast<std::size_t>(j)];
    if (j != g) pinf = std::max(pinf, -v);
    obj += (j < g ? 1.0 : (j > g ? nu : 0.0)) * v;
  }
  std::vector<double> act(static_cast<std::size_t>(m), 0.0), mag(static_cast<std::size_t>(m), 0.0);
  for (Index j = 0; j < 2 * m; ++j) {
    const double v = res.x[static_cast<std::size_t>(j)];
    if (v == 0.0) continue;
    const double* col = A_.data() + j * m;
    for (Index i = 0; i < m; ++i) {
      act[static_cast<std::size_t>(i)] += col[i] * v;
      mag[static_cast<std::size_t>(i)] += std::abs(col[i] * v);
    }
  }
  for (Index i = 0; i < m; ++i) {
    const double xi = res.x[static_cast<std::size_t>(2 * m + 1 + i)];
    const double a = act[static_cast<std::size_t>(i)] - y_[static_cast<std::size_t>(i)] * gamma + xi;
    const double s = 1.0 + mag[static_cast<std::size_t>(i)] + std::abs(gamma) + std::abs(xi);
    pinf = std::max(pinf, (1.0 - a) / s);
  }
  // Dual: pi_i = reduced cost of surplus i; 0 <= pi <= nu, y^T pi = 0, A_j^T pi <= 1 (u columns).
  res.dual.assign(static_cast<std::size_t>(m), 0.0);
  double dinf = 0.0, dobj = 0.0, ypi = 0.0, ypi_mag = 0.0;
  for (Index i = 0; i < m; ++i) {
    const double p = d_[static_cast<std::size_t>(3 * m + 1 + i)];
    res.dual[static_cast<std::size_t>(i)] = p;
    dinf = std::max({dinf, -p / std::max(1.0, nu), (p - nu) / std::max(1.0, nu)});
    dobj += p;
    ypi += y_[static_cast<std::size_t>(i)] * p;
    ypi_mag += std::abs(p);
  }
  dinf = std::max(dinf, std::abs(ypi) / (1.0 + ypi_mag));
  for (Index j = 0; j < 2 * m; ++j) {
    const double* col = A_.data() + j * m;
    double s = 0.0, sm = 0.0;
    for (Index i = 0; i < m; ++i) {
      const double t = col[i] * res.dual[static_cast<std::size_t>(i)];
      s += t;
      sm += std::abs(t);
    }
    dinf = std::max(dinf, (s - 1.0) / (1.0 + sm));
  }
  res.objective = obj;
  res.dual_objective = dobj;
  res.primal_infeasibility = pinf;
  res.dual_infeasibility = dinf;
  const bool gap_ok = std::abs(obj - dobj) <= tol * (1.0 + std::abs(obj));
  res.status = (pinf <= tol && dinf <= tol && gap_ok) ? DenseLPStatus::Optimal : DenseLPStatus::CertificateFailed;
  return res;
}

}  // namespace svmopt
