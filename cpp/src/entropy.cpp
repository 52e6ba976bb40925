#include "svmopt/entropy.hpp"

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <limits>
#include <numeric>
#include <random>
#include <stdexcept>
#include <string>

namespace svmopt {
namespace {

constexpr double kNegInf = -std::numeric_limits<double>::infinity();

// Uniform integer in [0, n) from a 64-bit generator (deterministic across platforms, unlike
// std::uniform_int_distribution).
Index uniform_index(std::mt19937_64& rng, Index n) {
  const std::uint64_t un = static_cast<std::uint64_t>(n);
  const std::uint64_t limit = std::numeric_limits<std::uint64_t>::max() - std::numeric_limits<std::uint64_t>::max() % un;
  std::uint64_t r;
  do {
    r = rng();
  } while (r >= limit);
  return static_cast<Index>(r % un);
}

void load_row(const MatrixView& Z, Index i, double* dst) {
  for (Index j = 0; j < Z.cols; ++j) dst[j] = Z(i, j);
}

// log-sum-exp of -||z - P_l||^2 over the rows l != skip of the packed prototype matrix P.
double lse_neg_sqdist(const RowMatrix& P, const Eigen::Ref<const Eigen::RowVectorXd>& z, Index skip) {
  const Index m = P.rows();
  if (m - (skip >= 0 && skip < m ? 1 : 0) <= 0) return kNegInf;
  Eigen::VectorXd e = -(P.rowwise() - z).rowwise().squaredNorm();
  if (skip >= 0 && skip < m) e(skip) = kNegInf;
  const double mx = e.maxCoeff();
  if (!std::isfinite(mx)) return mx;
  return mx + std::log((e.array() - mx).exp().sum());
}

// Every row's log row sum: row(k) = log sum_{l != k} exp(-||P_k - P_l||^2).
Eigen::VectorXd log_rowsums_packed(const RowMatrix& P, int n_threads) {
  const Index m = P.rows();
  Eigen::VectorXd row(m);
  Interruption intr;  // asked every 16 rows
#pragma omp parallel for schedule(static) num_threads(resolve_threads(n_threads)) if (m * m * P.cols() > (1 << 18))
  for (Index k = 0; k < m; ++k) {
    if (intr.stopped() || ((k & 15) == 0 && intr.requested())) continue;
    row(k) = lse_neg_sqdist(P, P.row(k), k);
  }
  intr.check();
  return row;
}

// L = log sum_{k != l} exp(-||P_k - P_l||^2) from the log row sums.
double log_offdiag_from_rows(const Eigen::VectorXd& row) {
  if (row.size() < 2) return kNegInf;
  const double mx = row.maxCoeff();
  if (!std::isfinite(mx)) return mx;
  return mx + std::log((row.array() - mx).exp().sum());
}

double log_offdiag_packed(const RowMatrix& P, int n_threads) {
  return log_offdiag_from_rows(log_rowsums_packed(P, n_threads));
}

// After prototype i moved from q_old to P.row(i): every other row's log row sum lo(j) loses the term of q_old and
// gains that of the new row, lo(j) <- log(exp(lo(j)) - k_old + k_new), evaluated shifted by max(lo(j), log k_new).
// A row is recomputed exactly where the subtraction would cancel: k_old more than half the sum, or the sum fallen
// below 2^-10 of its value at the row's last exact computation (lo_ref(j)), since the rounding error of the
// updates is relative to the largest sum the row held. lo(i) is the caller's (the candidate's own log row sum).
// Returns the kernel evaluations made; n_exact counts the rows recomputed.
std::int64_t update_log_rowsums(const RowMatrix& P, Index i, const Eigen::RowVectorXd& q_old, Eigen::VectorXd& lo,
                                Eigen::VectorXd& lo_ref, Index& n_exact) {
  const Index m = P.rows();
  const Eigen::VectorXd e_old = -(P.rowwise() - q_old).rowwise().squaredNorm();
  const Eigen::VectorXd e_new = -(P.rowwise() - P.row(i)).rowwise().squaredNorm();
  std::int64_t evals = 2 * (m - 1);
  constexpr double kHalf = -0.69314718055994530942;  // log(1/2)
  constexpr double kDrift = 6.9314718055994530942;   // log(2^10)
  Interruption intr;  // asked every 16 rows
  for (Index j = 0; j < m; ++j) {
    if ((j & 15) == 0) intr.check();
    if (j == i) continue;
    const double l = lo(j);
    if (std::isfinite(l) && e_old(j) - l < kHalf) {
      const double mx = std::max(l, e_new(j));
      lo(j) = mx + std::log(std::exp(l - mx) - std::exp(e_old(j) - mx) + std::exp(e_new(j) - mx));
      if (lo(j) > lo_ref(j) - kDrift) continue;
    }
    lo(j) = lo_ref(j) = lse_neg_sqdist(P, P.row(j), j);
    evals += m - 1;
    ++n_exact;
  }
  return evals;
}

void check_row(const MatrixView& Z, Index i, const char* what) {
  if (i < 0 || i >= Z.rows) {
    throw std::invalid_argument(std::string(what) + " must be a row index in [0, " + std::to_string(Z.rows) +
                                "), got " + std::to_string(i));
  }
}

RowMatrix pack(const MatrixView& Z, const std::vector<Index>& idx) {
  for (Index i : idx) check_row(Z, i, "idx");
  RowMatrix P(static_cast<Index>(idx.size()), Z.cols);
  for (Index k = 0; k < P.rows(); ++k) load_row(Z, idx[k], P.row(k).data());
  return P;
}

// Proportional allocation of m to classes (largest remainder), >= 1 per class when m >= C, and
// never more than a class holds.
std::vector<Index> allocate(const std::vector<Index>& counts, Index m) {
  const Index C = static_cast<Index>(counts.size());
  Index n = 0;
  for (Index c : counts) n += c;
  std::vector<Index> alloc(C, 0);
  std::vector<std::pair<double, Index>> rem;
  Index given = 0;
  for (Index c = 0; c < C; ++c) {
    const double exact = static_cast<double>(m) * static_cast<double>(counts[c]) / static_cast<double>(n);
    alloc[c] = std::min<Index>(static_cast<Index>(std::floor(exact)), counts[c]);
    given += alloc[c];
    rem.emplace_back(-(exact - std::floor(exact)), c);  // largest remainder first, ties by class
  }
  std::sort(rem.begin(), rem.end());
  while (given < m) {
    bool progressed = false;
    for (const auto& r : rem) {
      if (given >= m) break;
      if (alloc[r.second] < counts[r.second]) {
        ++alloc[r.second];
        ++given;
        progressed = true;
      }
    }
    if (!progressed) break;
  }
  if (m >= C) {
    for (Index c = 0; c < C; ++c) {
      if (alloc[c] == 0 && counts[c] > 0) {
        const Index donor = static_cast<Index>(std::max_element(alloc.begin(), alloc.end()) - alloc.begin());
        if (alloc[donor] > 1) {
          --alloc[donor];
          ++alloc[c];
        }
      }
    }
  }
  return alloc;
}

}  // namespace

double entropy_log_offdiag(const MatrixView& Z, const std::vector<Index>& idx, int n_threads) {
  return log_offdiag_packed(pack(Z, idx), n_threads);
}

double entropy_log_rowsum(const MatrixView& Z, const std::vector<Index>& idx, Index point, Index skip) {
  const RowMatrix P = pack(Z, idx);
  check_row(Z, point, "point");
  Eigen::RowVectorXd z(Z.cols);
  load_row(Z, point, z.data());
  return lse_neg_sqdist(P, z, skip);
}

EntropySelectResult entropy_select(const MatrixView& Z, Index m, const std::vector<std::int64_t>& labels,
                                   const std::vector<Index>& init, const EntropySelectOptions& opt) {
  const Index n = Z.rows;
  if (m < 1 || m > n) throw std::invalid_argument("m must be in [1, n], got " + std::to_string(m));
  const bool stratified = !labels.empty();
  if (stratified && static_cast<Index>(labels.size()) != n) throw std::invalid_argument("labels must have n entries");

  // Class of every row (0 when not stratified) and the pools of non-prototype rows per class.
  std::int64_t n_classes = 1;
  if (stratified) {
    for (auto v : labels) {
      if (v < 0) throw std::invalid_argument("labels must be class codes >= 0");
      n_classes = std::max<std::int64_t>(n_classes, v + 1);
    }
  }
  auto cls = [&](Index i) -> Index { return stratified ? static_cast<Index>(labels[i]) : 0; };

  std::mt19937_64 rng(opt.seed);
  std::vector<Index> idx;
  if (!init.empty()) {
    if (static_cast<Index>(init.size()) != m) throw std::invalid_argument("init must hold m indices");
    idx = init;
  } else if (!stratified) {
    // partial Fisher-Yates: m distinct indices, uniform without replacement
    std::vector<Index> perm(n);
    std::iota(perm.begin(), perm.end(), Index{0});
    for (Index k = 0; k < m; ++k) std::swap(perm[k], perm[k + uniform_index(rng, n - k)]);
    idx.assign(perm.begin(), perm.begin() + m);
  } else {
    std::vector<std::vector<Index>> members(n_classes);
    for (Index i = 0; i < n; ++i) members[cls(i)].push_back(i);
    std::vector<Index> counts(n_classes);
    for (std::int64_t c = 0; c < n_classes; ++c) counts[c] = static_cast<Index>(members[c].size());
    const std::vector<Index> alloc = allocate(counts, m);
    for (std::int64_t c = 0; c < n_classes; ++c) {
      auto& mem = members[c];
      const Index nc = static_cast<Index>(mem.size());
      for (Index k = 0; k < alloc[c]; ++k) std::swap(mem[k], mem[k + uniform_index(rng, nc - k)]);
      idx.insert(idx.end(), mem.begin(), mem.begin() + alloc[c]);
    }
  }
  std::vector<char> in_w(n, 0);
  for (Index i : idx) {
    if (i < 0 || i >= n || in_w[i]) throw std::invalid_argument("initial prototype indices must be distinct rows");
    in_w[i] = 1;
  }
  std::vector<std::vector<Index>> pool(n_classes);
  std::vector<Index> pos(n, -1);
  for (Index i = 0; i < n; ++i) {
    if (!in_w[i]) {
      pos[i] = static_cast<Index>(pool[cls(i)].size());
      pool[cls(i)].push_back(i);
    }
  }

  RowMatrix P = pack(Z, idx);
  EntropySelectResult res;
  // The log row sums of the prototypes, kept up to date across accepted swaps (incremental mode): a proposal then
  // evaluates its candidate's row sum only, against the two a proposal cost without them (half the work at the
  // ~5 % acceptance rate of a search at m = 1000-2000; an accepted swap costs two kernel evaluations a row).
  Eigen::VectorXd lo = log_rowsums_packed(P, 0), lo_ref = lo;
  double L = log_offdiag_from_rows(lo);
  res.n_kernel_evals += m * (m - 1);
  const Index T = opt.max_proposals > 0 ? opt.max_proposals : std::min<Index>(std::max<Index>(n, 50 * m), 10000000);
  const Index W = opt.window > 0 ? opt.window : 5 * m;
  double L_check = L;
  Eigen::RowVectorXd zc(Z.cols);
  Index since_recompute = 0;
  Interruption intr;  // asked every 16 proposals

  for (Index t = 1; t <= T; ++t) {
    if ((t & 15) == 0) intr.check();
    ++res.n_proposals;
    const Index i = uniform_index(rng, m);
    const Index p_star = idx[i];
    auto& pl = pool[cls(p_star)];
    if (!pl.empty() && m >= 2) {
      const Index slot = uniform_index(rng, static_cast<Index>(pl.size()));
      const Index c = pl[slot];
      load_row(Z, c, zc.data());
      bool accept;
      double la_in = 0.0, la_out = 0.0, L_new = 0.0;
      if (opt.recompute) {
        const Eigen::RowVectorXd saved = P.row(i);
        P.row(i) = zc;
        L_new = log_offdiag_packed(P, 1);
        res.n_kernel_evals += m * (m - 1);
        accept = L_new < L;
        if (!accept) P.row(i) = saved;
      } else {
        la_in = lse_neg_sqdist(P, zc, i);
        la_out = lo(i);
        res.n_kernel_evals += m - 1;
        // A near-tie is decided on the outgoing row sum computed exactly, as the candidate's is: the kept value
        // may sit an ulp off, and a candidate equal to the outgoing prototype (duplicate rows) must not swap.
        if (std::abs(la_in - la_out) <= 1e-10 * (1.0 + std::abs(la_out))) {
          la_out = lo(i) = lo_ref(i) = lse_neg_sqdist(P, P.row(i), i);
          res.n_kernel_evals += m - 1;
          ++res.n_row_recomputes;
        }
        accept = la_in < la_out;
      }
      if (accept) {
        // bookkeeping: c joins W, p_star returns to the pool in c's slot
        idx[i] = c;
        in_w[c] = 1;
        in_w[p_star] = 0;
        pl[slot] = p_star;
        pos[p_star] = slot;
        pos[c] = -1;
        ++res.n_accepted;
        if (opt.recompute) {
          L = L_new;
        } else {
          const Eigen::RowVectorXd q_old = P.row(i);
          P.row(i) = zc;
          const double arg = -2.0 * std::exp(la_out - L) * (1.0 - std::exp(la_in - la_out));
          ++since_recompute;
          if (arg <= -0.5 || since_recompute >= m || !std::isfinite(arg)) {
            lo = lo_ref = log_rowsums_packed(P, 0);  // the row sums refreshed with L: no drift
            L = log_offdiag_from_rows(lo);
            res.n_kernel_evals += m * (m - 1);
            ++res.n_recomputes;
            since_recompute = 0;
          } else {
            L += std::log1p(arg);
            res.n_kernel_evals += update_log_rowsums(P, i, q_old, lo, lo_ref, res.n_row_recomputes);
            lo(i) = la_in;  // exact: computed against the other rows, which the swap left as they were
            lo_ref(i) = la_in;
          }
        }
      }
    }
    if (t % W == 0) {
      if (L_check - L < opt.tol) {
        res.stopped_early = true;
        break;
      }
      L_check = L;
    }
  }
  res.idx = idx;
  res.log_offdiag = L;
  return res;
}

double kde_psi(const double* x, Index n, double g, int r, double* dpsi, int n_threads) {
  if (r != 4 && r != 6) throw std::invalid_argument("kde_psi: r must be 4 or 6");
  if (dpsi && r != 4) throw std::invalid_argument("kde_psi: the derivative is available for r = 4 only");
  if (!(g > 0.0) || n < 1) throw std::invalid_argument("kde_psi: need g > 0 and n >= 1");
  constexpr double kInvSqrt2Pi = 0.39894228040143267794;
  constexpr double kCut = 12.0;
  auto term = [r](double u, double& d) {
    const double u2 = u * u, ph = kInvSqrt2Pi * std::exp(-0.5 * u2);
    if (r == 4) {
      const double k4 = (u2 * u2 - 6.0 * u2 + 3.0) * ph;
      const double k5 = -(u2 * u2 * u - 10.0 * u2 * u + 15.0 * u) * ph;
      d = 5.0 * k4 + u * k5;
      return k4;
    }
    d = 0.0;
    return (u2 * u2 * u2 - 15.0 * u2 * u2 + 45.0 * u2 - 15.0) * ph;
  };
  Eigen::VectorXd row(n), drow(n);
  Interruption intr;  // asked every 256 points
#pragma omp parallel for schedule(dynamic, 256) num_threads(resolve_threads(n_threads)) if (n > 2000)
  for (Index i = 0; i < n; ++i) {
    if (intr.stopped() || ((i & 255) == 0 && intr.requested())) continue;
    double s = 0.0, ds = 0.0, d = 0.0;
    for (Index j = i + 1; j < n; ++j) {
      const double u = (x[j] - x[i]) / g;
      if (u > kCut) break;
      s += term(u, d);
      ds += d;
    }
    row(i) = s;
    drow(i) = ds;
  }
  intr.check();
  double d0 = 0.0;
  const double t0 = term(0.0, d0);
  const double nn = static_cast<double>(n) * static_cast<double>(n);
  const double S = static_cast<double>(n) * t0 + 2.0 * row.sum();
  if (dpsi) {
    const double DS = static_cast<double>(n) * d0 + 2.0 * drow.sum();
    *dpsi = -DS / (nn * std::pow(g, 6));
  }
  return S / (nn * std::pow(g, r + 1));
}

}  // namespace svmopt
