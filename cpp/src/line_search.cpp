// Line searches of paper 000, equations (10)/(27); see line_search.hpp.
#include "svmopt/line_search.hpp"

#include <algorithm>
#include <cstddef>
#include <cmath>
#include <limits>
#include <stdexcept>
#include <utility>
#include <vector>

#ifdef _OPENMP
#include <omp.h>
#endif

#include "svmopt/strict_fp.hpp"

namespace svmopt {

namespace {

inline bool is_error(double s, double y, double b, LineSearchObjective objective) {
  if (y > 0) return objective == LineSearchObjective::Paper ? (s < b) : (s <= b);
  return s > b;
}

// Scores must not be NaN (a NaN breaks the sort's strict weak ordering: the exact search could loop forever),
// labels must be exactly +1 or -1 (anything else would be counted silently as class B) and weights finite and > 0.
void check_scores(const double* s, const double* y, Index m, const double* w) {
  for (Index i = 0; i < m; ++i) {
    if (std::isnan(s[i])) throw std::invalid_argument("s (the scores) must not contain NaN");
    if (y[i] != 1.0 && y[i] != -1.0) throw std::invalid_argument("y must hold labels +1 or -1 only");
    if (w && !(w[i] > 0.0 && std::isfinite(w[i]))) throw std::invalid_argument("w (the weights) must be finite and > 0");
  }
}

inline double weight(const double* w, Index i) { return w ? w[i] : 1.0; }

double total_weight(const double* w, Index m) {
  if (!w) return static_cast<double>(m);
  double t = 0.0;
  for (Index i = 0; i < m; ++i) t += w[i];
  return t;
}

double count_errors(const double* s, const double* y, Index m, double b, LineSearchObjective objective,
                    const double* w) {
  double cnt = 0.0;
  for (Index i = 0; i < m; ++i) cnt += is_error(s[i], y[i], b, objective) ? weight(w, i) : 0.0;
  return cnt;
}

// The grid searches' argument checks (both variants refuse the same inputs).
void check_grid(const double* s, const double* y, Index m, double lo, double hi, Index n_grid, const double* w) {
  if (n_grid < 2) throw std::invalid_argument("line_search_grid: n_grid must be >= 2");
  if (!std::isfinite(lo) || !std::isfinite(hi)) {
    throw std::invalid_argument("line_search_grid: the interval must be finite");
  }
  check_scores(s, y, m, w);
}

// MATLAB linspace: lo + k * step, with the last point exactly hi.
inline double grid_point(Index k, Index n_grid, double lo, double hi, double step) {
  return (k == n_grid - 1) ? hi : lo + static_cast<double>(k) * step;
}

// The paper's loop over the grid counts: best = m (the total weight, `total`, summed in the order the counts were:
// an all-wrong grid point must not look better by rounding) at b_init, first strict improvement wins.
LineSearchResult first_improvement(const std::vector<double>& counts, double lo, double hi, double step,
                                   double b_init, const double* s, const double* y, Index m,
                                   LineSearchObjective objective, const double* w, double total) {
  const Index n_grid = static_cast<Index>(counts.size());
  LineSearchResult res;
  res.b = b_init;
  double best = total;
  bool improved = false;
  for (Index k = 0; k < n_grid; ++k) {
    if (counts[static_cast<std::size_t>(k)] < best) {
      best = counts[static_cast<std::size_t>(k)];
      res.b = grid_point(k, n_grid, lo, hi, step);
      improved = true;
    }
  }
  res.count = improved ? best : count_errors(s, y, m, b_init, objective, w);
  return res;
}

}  // namespace

double line_search_count(const double* s, const double* y, Index m, double b, LineSearchObjective objective,
                         const double* w) {
  check_scores(s, y, m, w);
  return count_errors(s, y, m, b, objective, w);
}

LineSearchResult line_search_grid_naive(const double* s, const double* y, Index m, double lo, double hi,
                                        Index n_grid, double b_init, LineSearchObjective objective, int n_threads,
                                        const double* w) {
  check_grid(s, y, m, lo, hi, n_grid, w);
  std::vector<double> counts(static_cast<std::size_t>(n_grid));
  const double step = (hi - lo) / static_cast<double>(n_grid - 1);
  const int threads = resolve_threads(n_threads);
  (void)threads;
  Interruption intr;  // between grid points (m comparisons each)
#pragma omp parallel for schedule(static) num_threads(threads) if (n_grid * m >= (1 << 20))
  for (Index k = 0; k < n_grid; ++k) {
    if (intr.requested()) continue;
    counts[static_cast<std::size_t>(k)] = count_errors(s, y, m, grid_point(k, n_grid, lo, hi, step), objective, w);
  }
  intr.check();
  return first_improvement(counts, lo, hi, step, b_init, s, y, m, objective, w, total_weight(w, m));
}

LineSearchResult line_search_grid(const double* s, const double* y, Index m, double lo, double hi, Index n_grid,
                                  double b_init, LineSearchObjective objective, int n_threads, const double* w) {
  check_grid(s, y, m, lo, hi, n_grid, w);
  // O(m log m + n_grid): sort each class's scores once, then sweep the (monotone) grid with one pointer per class
  // (a pointer moves both ways, so any order of grid points stays correct). Same comparisons as count_errors,
  // so the counts and the chosen b equal the naive O(n_grid m) scan (tests/test_line_search.py). A class's count
  // below a pointer is the prefix sum of its sorted points' weights (exact integers when unweighted).
  // Unweighted, the scores alone are sorted and a count is the pointer itself; weighted, (score, weight) pairs are
  // sorted and a count is a prefix sum of weights.
  std::vector<double> sa, sb;
  std::vector<double> wa, wb;  // weighted: prefix sums of the sorted points' weights (n + 1 entries)
  sa.reserve(static_cast<std::size_t>(m));
  sb.reserve(static_cast<std::size_t>(m));
  if (!w) {
    for (Index i = 0; i < m; ++i) (y[i] > 0 ? sa : sb).push_back(s[i]);
    std::sort(sa.begin(), sa.end());
    std::sort(sb.begin(), sb.end());
  } else {
    std::vector<std::pair<double, double>> pa_, pb_;  // (score, weight)
    for (Index i = 0; i < m; ++i) (y[i] > 0 ? pa_ : pb_).emplace_back(s[i], w[i]);
    const auto by_score = [](const auto& a, const auto& b) { return a.first < b.first; };
    std::sort(pa_.begin(), pa_.end(), by_score);
    std::sort(pb_.begin(), pb_.end(), by_score);
    wa.assign(pa_.size() + 1, 0.0);
    wb.assign(pb_.size() + 1, 0.0);
    for (std::size_t i = 0; i < pa_.size(); ++i) {
      sa.push_back(pa_[i].first);
      wa[i + 1] = wa[i] + pa_[i].second;
    }
    for (std::size_t i = 0; i < pb_.size(); ++i) {
      sb.push_back(pb_[i].first);
      wb[i + 1] = wb[i] + pb_[i].second;
    }
  }
  const std::size_t na = sa.size(), nb = sb.size();
  const auto below_a = [&](std::size_t k) { return w ? wa[k] : static_cast<double>(k); };
  const auto above_b = [&](std::size_t k) { return w ? wb[nb] - wb[k] : static_cast<double>(nb - k); };
  const bool paper = objective == LineSearchObjective::Paper;
  std::vector<double> counts(static_cast<std::size_t>(n_grid));
  const double step = (hi - lo) / static_cast<double>(n_grid - 1);
  (void)n_threads;
  std::size_t pa = 0, pb = 0;  // pa = #A "below" b (s < b, or s <= b), pb = #B with s <= b
  for (Index k = 0; k < n_grid; ++k) {
    const double b = grid_point(k, n_grid, lo, hi, step);
    if (paper) {
      while (pa < na && sa[pa] < b) ++pa;
      while (pa > 0 && !(sa[pa - 1] < b)) --pa;
    } else {
      while (pa < na && sa[pa] <= b) ++pa;
      while (pa > 0 && !(sa[pa - 1] <= b)) --pa;
    }
    while (pb < nb && sb[pb] <= b) ++pb;
    while (pb > 0 && !(sb[pb - 1] <= b)) --pb;
    // A (y > 0) is an error iff s < b (paper) or s <= b; B iff s > b.
    counts[static_cast<std::size_t>(k)] = below_a(pa) + above_b(pb);
  }
  return first_improvement(counts, lo, hi, step, b_init, s, y, m, objective, w, below_a(na) + above_b(0));
}

LineSearchResult line_search_exact(const double* s, const double* y, Index m, double lo, double hi, double b_init,
                                   LineSearchObjective objective, const double* w) {
  if (std::isnan(lo) || std::isnan(hi)) throw std::invalid_argument("line_search_exact: NaN interval end");
  check_scores(s, y, m, w);
  const double L = std::min(lo, hi), R = std::max(lo, hi);

  // Sorted scores with labels (one sort), then distinct breakpoints with cumulative class counts (weight sums).
  std::vector<std::pair<double, double>> sv(static_cast<std::size_t>(m));  // (score, +w for A, -w for B)
  double nB = 0.0;
  for (Index i = 0; i < m; ++i) {
    sv[static_cast<std::size_t>(i)] = {s[i], y[i] > 0 ? weight(w, i) : -weight(w, i)};
    nB += (y[i] > 0) ? 0.0 : weight(w, i);
  }
  std::sort(sv.begin(), sv.end(), [](const auto& a, const auto& b) { return a.first < b.first; });
  std::vector<double> t;           // distinct scores
  std::vector<double> a_lt, b_le;  // #A with s < t_k, #B with s <= t_k
  std::vector<double> a_le;        // #A with s <= t_k
  {
    double ca = 0.0, cb = 0.0;
    std::size_t i = 0;
    while (i < sv.size()) {
      const double v = sv[i].first;
      const double ca_before = ca;
      while (i < sv.size() && sv[i].first == v) {
        if (sv[i].second > 0) ca += sv[i].second;
        else cb -= sv[i].second;
        ++i;
      }
      t.push_back(v);
      a_lt.push_back(ca_before);
      a_le.push_back(ca);
      b_le.push_back(cb);
    }
  }
  const std::size_t q = t.size();

  LineSearchResult best;
  best.count = std::numeric_limits<double>::infinity();
  best.b = b_init;
  double best_dist = std::numeric_limits<double>::infinity();
  auto consider = [&](double b, double cnt) {
    const double dist = std::abs(b - lo);
    if (cnt < best.count || (cnt == best.count && dist < best_dist)) {
      best.count = cnt;
      best.b = b;
      best_dist = dist;
    }
  };

  // A point of (a, e) / [a, e) intersected with [L, R] (a may be -inf, e may be +inf): the midpoint of the
  // intersection, a point strictly inside the piece when the piece is open at an end, or NaN if empty.
  auto place = [&](double a, double e, bool left_open) -> double {
    const double lo_end = std::max(a, L);
    const double hi_end = std::min(e, R);
    if (lo_end > hi_end) return std::numeric_limits<double>::quiet_NaN();
    double b;
    if (!std::isfinite(lo_end) && !std::isfinite(hi_end)) b = 0.0;
    else if (!std::isfinite(lo_end)) b = hi_end - std::max(1.0, std::abs(hi_end));
    else if (!std::isfinite(hi_end)) b = lo_end + std::max(1.0, std::abs(lo_end));
    else b = 0.5 * (lo_end + hi_end);
    // keep b inside the piece: (a, e) when left_open, [a, e) otherwise
    if (b >= e || (left_open ? b <= a : b < a)) {
      if (lo_end < e && (left_open ? lo_end > a : lo_end >= a)) b = lo_end;
      else if (hi_end < e && (left_open ? hi_end > a : hi_end >= a)) b = hi_end;
      else return std::numeric_limits<double>::quiet_NaN();
    }
    return b;
  };
  const double inf = std::numeric_limits<double>::infinity();

  if (objective == LineSearchObjective::Paper) {
    // E(c) = #{A: s < c} + #{B: s > c} is lower semicontinuous: its minimum over [L, R] is attained at a
    // breakpoint inside, or on an open piece (t_k, t_{k+1}) meeting [L, R]. Among minimisers an open piece
    // is preferred (b strictly between scores: no training point lies on the threshold, so the count is also
    // the decision rule's count), then the one nearest to lo; b is the midpoint of piece  intersect  [L, R].
    struct Cand { double b; double cnt; bool open; double dist; };
    std::vector<Cand> cands;
    cands.reserve(2 * q + 1);
    auto dist_to_lo = [&](double a, double e) {  // distance from lo to the closed hull of piece ∩ [L, R]
      const double lo_end = std::max(a, L), hi_end = std::min(e, R);
      if (lo <= lo_end) return lo_end - lo;
      if (lo >= hi_end) return lo - hi_end;
      return 0.0;
    };
    for (std::size_t k = 0; k <= q; ++k) {
      const double a = (k == 0) ? -inf : t[k - 1];
      const double e = (k < q) ? t[k] : inf;
      const double b = place(a, e, true);
      if (!std::isnan(b)) {
        const double cnt = (k == 0) ? nB : a_le[k - 1] + (nB - b_le[k - 1]);
        cands.push_back({b, cnt, true, dist_to_lo(a, e)});
      }
      if (k < q && t[k] >= L && t[k] <= R) cands.push_back({t[k], a_lt[k] + (nB - b_le[k]), false, std::abs(t[k] - lo)});
    }
    const Cand* bestc = nullptr;
    for (const auto& c : cands) {
      if (!bestc || c.cnt < bestc->cnt ||
          (c.cnt == bestc->cnt && ((c.open && !bestc->open) || (c.open == bestc->open && c.dist < bestc->dist)))) {
        bestc = &c;
      }
    }
    if (bestc) {
      best.b = bestc->b;
      best.count = bestc->cnt;
    }
  } else {
    // E_dec is constant on (-inf, t_0) and [t_k, t_{k+1}); evaluate every piece meeting [L, R].
    for (std::size_t k = 0; k <= q; ++k) {
      const double a = (k == 0) ? -inf : t[k - 1];
      const double e = (k < q) ? t[k] : inf;
      const double b = place(a, e, k == 0);
      if (std::isnan(b)) continue;
      consider(b, (k == 0) ? nB : a_le[k - 1] + (nB - b_le[k - 1]));
    }
  }

  const double total = (a_le.empty() ? 0.0 : a_le.back()) + nB;  // in the sorted order of the counts
  if (best.count >= total || std::isinf(best.count)) {
    best.b = b_init;
    best.count = count_errors(s, y, m, b_init, objective, w);
  }
  return best;
}

}  // namespace svmopt
