#include "svmopt/csa.hpp"

#include <algorithm>
#include <cmath>
#include <limits>
#include <random>
#include <stdexcept>

namespace svmopt {
namespace {

double uniform01(std::mt19937_64& rng) { return static_cast<double>(rng() >> 11) * 0x1.0p-53; }

double clean(double e) { return std::isnan(e) ? std::numeric_limits<double>::infinity() : e; }

// Thrown by an evaluation the deadline forbids.
struct TimeUp {};

}  // namespace

Deadline::Deadline(double seconds) {
  if (std::isnan(seconds)) throw std::invalid_argument("the time limit must not be NaN");
  if (seconds >= 0.0 && std::isfinite(seconds)) {
    set = true;
    at = deadline_after(seconds);  // saturated: max_time = 1e10 s is a limit beyond reach, not one already past
  }
}

bool Deadline::allows_next() const {
  if (!set) return true;
  const auto now = std::chrono::steady_clock::now();
  if (count == 0) return now < at;
  const auto mean = total / count;
  return now < at && mean < at - now;  // now + mean < at, without overflowing past the clock's end
}

Vector csa_acceptance(const Vector& energies, double Tac, double* variance) {
  const Index q = energies.size();
  if (q < 1) throw std::invalid_argument("need at least one energy");
  if (!(Tac > 0.0)) throw std::invalid_argument("Tac must be > 0");
  if (energies.array().isNaN().any()) throw std::invalid_argument("energies must not be NaN");
  Vector A(q);
  const double mx = energies.maxCoeff();
  if (!std::isfinite(mx)) {
    // +inf energies: those states share all the acceptance mass
    for (Index i = 0; i < q; ++i) A(i) = energies(i) == mx ? 1.0 : 0.0;
  } else {
    for (Index i = 0; i < q; ++i) A(i) = std::exp((energies(i) - mx) / Tac);
  }
  A /= A.sum();
  if (variance) *variance = A.squaredNorm() / static_cast<double>(q) - 1.0 / static_cast<double>(q * q);
  return A;
}

double csa_update_tac(double Tac, double variance, Index q, double alpha, double target_ratio) {
  if (q < 1) throw std::invalid_argument("q must be >= 1");
  if (!(Tac > 0.0) || !std::isfinite(Tac)) throw std::invalid_argument("Tac must be finite and > 0");
  if (std::isnan(variance)) throw std::invalid_argument("variance must not be NaN");
  const double sigma_d2 = target_ratio * static_cast<double>(q - 1) / static_cast<double>(q * q);
  return variance < sigma_d2 ? Tac * (1.0 - alpha) : Tac * (1.0 + alpha);
}

void check_search_box(const RowMatrix& x0, const Vector& lower, const Vector& upper) {
  const Index dim = x0.cols();
  if (x0.rows() < 1 || dim < 1) throw std::invalid_argument("x0 must be q x dim with q, dim >= 1");
  if (lower.size() != dim || upper.size() != dim) throw std::invalid_argument("bounds must have dim entries");
  for (Index j = 0; j < dim; ++j)
    if (!(lower(j) < upper(j))) throw std::invalid_argument("lower < upper required in every coordinate");
}

CSAResult csa_minimize(const std::function<double(const Vector&)>& cost, const RowMatrix& x0, const Vector& lower,
                       const Vector& upper, const CSAOptions& opt) {
  check_search_box(x0, lower, upper);
  const Index q = x0.rows(), dim = x0.cols();
  if (opt.max_evals < q) throw std::invalid_argument("max_evals must be >= q");
  if (opt.inner < 1) throw std::invalid_argument("inner must be >= 1");

  std::mt19937_64 rng(opt.seed);
  CSAResult res;
  std::vector<Vector> hist_x;
  std::vector<double> hist_e;
  res.f_best = std::numeric_limits<double>::infinity();
  Interruption intr;  // between evaluations (a cost in the core runs no Python code of its own)
  auto eval = [&](const Vector& x) {
    intr.check();
    if (!opt.deadline.allows_next()) throw TimeUp{};
    const auto t0 = std::chrono::steady_clock::now();
    const double e = clean(cost(x));
    opt.deadline.record(std::chrono::steady_clock::now() - t0);
    hist_x.push_back(x);
    hist_e.push_back(e);
    if (e < res.f_best || res.x_best.size() == 0) {
      res.f_best = e;
      res.x_best = x;
    }
    return e;
  };

  std::vector<Vector> X(q);
  Vector E(q);
  Index k = 0;
  double Tac = opt.Tac0;
  try {
    for (Index i = 0; i < q; ++i) {
      X[i] = x0.row(i).transpose().cwiseMax(lower).cwiseMin(upper);
      E(i) = eval(X[i]);
    }
    if (!(Tac > 0.0)) {
      const bool finite = E.allFinite();
      double sd = 0.0;
      if (finite && q > 1) {
        const double mean = E.mean();
        sd = std::sqrt((E.array() - mean).square().sum() / static_cast<double>(q - 1));
      }
      Tac = sd > 0.0 ? sd : 1.0;
    }
    Index evals = q;
    bool done = false;
    while (!done) {
      const double T = opt.T0 / static_cast<double>(k + 1);
      for (Index g = 0; g < opt.inner; ++g) {
        if (opt.max_evals - evals < q) {
          done = true;
          break;
        }
        const Vector A = csa_acceptance(E, Tac);
        std::vector<Vector> Y(q);
        for (Index i = 0; i < q; ++i) {
          Y[i] = X[i];
          for (Index j = 0; j < dim; ++j) {
            double y = 0.0;
            int tries = 0;
            do {
              y = X[i](j) + T * std::tan(M_PI * (uniform01(rng) - 0.5));
            } while ((y < lower(j) || y > upper(j) || !std::isfinite(y)) && ++tries < 100);
            Y[i](j) = std::isfinite(y) ? std::clamp(y, lower(j), upper(j)) : X[i](j);
          }
        }
        for (Index i = 0; i < q; ++i) {
          const double ey = eval(Y[i]);
          ++evals;
          const double r = uniform01(rng);
          if (ey <= E(i) || A(i) > r) {
            X[i] = Y[i];
            E(i) = ey;
          }
        }
      }
      if (done && k == 0 && evals == q) break;
      double var = 0.0;
      csa_acceptance(E, Tac, &var);
      Tac = csa_update_tac(Tac, var, q, opt.alpha, opt.target_ratio);
      ++k;
    }
  } catch (const TimeUp&) {
    res.timed_out = true;
    if (res.x_best.size() == 0) {  // nothing evaluated: the first initial state, cost unknown
      res.x_best = x0.row(0).transpose().cwiseMax(lower).cwiseMin(upper);
      res.f_best = std::numeric_limits<double>::infinity();
    }
    if (!(Tac > 0.0)) Tac = 1.0;
  }
  res.n_stages = k;
  res.Tac_final = Tac;
  res.history.resize(static_cast<Index>(hist_x.size()), dim + 1);
  for (Index r = 0; r < res.history.rows(); ++r) {
    res.history.row(r).head(dim) = hist_x[r].transpose();
    res.history(r, dim) = hist_e[r];
  }
  return res;
}

}  // namespace svmopt
