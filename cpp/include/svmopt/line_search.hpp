// Threshold line searches of paper 000 (Maggioni & Spinelli), equations (10) and (27).
//
// Given (shifted) training scores s_i and labels y_i in {-1, +1}, the paper chooses the threshold b of the
// decision rule "class A (+1) iff f(x) - b > 0" by minimising the number of misclassified training points
// over an interval [lo, hi]:
//
//   paper objective (10)/(27):  E(b)     = #{i in A : s_i <  b} + #{i in B : s_i >  b}   (ties s_i = b count correct)
//   decision objective:         E_dec(b) = #{i in A : s_i <= b} + #{i in B : s_i >  b}   (the test-time rule)
//
// line_search_grid is the paper's method (Section 6; MATLAB semantics of its code): N points linspace(lo, hi, N) in
// that order (also when lo > hi), initial b = b_init (gamma) and best = m, first *strict* improvement wins.
// It is kept as the "paper-compatible" search. It sorts each class's scores once and sweeps the grid with one
// pointer per class, O(m log m + N); line_search_grid_naive is the O(N m) scan of the paper's code, kept as the
// reference the tests and benchmarks compare against (same counts, same b).
//
// line_search_exact minimises the same objective over the closed segment [min(lo,hi), max(lo,hi)] in
// O(m log m) (sort + one sweep over the score breakpoints). Because every grid point lies in the
// segment, its count is never larger than the grid's.
//
// Sample weights: every search takes an optional weight per point (w = nullptr: all 1). A misclassified point then
// counts w_i, so the count is the weighted error sum(w_i [i misclassified]); integer weights give the same b and
// count as the points repeated w_i times. Weights must be finite and > 0.
#pragma once

#include "svmopt/common.hpp"

namespace svmopt {

enum class LineSearchObjective : int { Paper = 0, Decision = 1 };

struct LineSearchResult {
  double b = 0.0;
  double count = 0.0;  // misclassified training points at b under the chosen objective (their weight sum)
};

// Misclassification count at threshold b under `objective` (O(m)).
double line_search_count(const double* s, const double* y, Index m, double b, LineSearchObjective objective,
                         const double* w = nullptr);

// Paper grid search: n_grid >= 2 points from lo to hi. If no grid point has fewer than m errors the result
// is b = b_init with its true count (first minimiser in grid order). n_threads is accepted for API stability
// and used by the naive reference only (parallel over grid points).
LineSearchResult line_search_grid(const double* s, const double* y, Index m, double lo, double hi, Index n_grid,
                                  double b_init, LineSearchObjective objective = LineSearchObjective::Paper,
                                  int n_threads = 0, const double* w = nullptr);
LineSearchResult line_search_grid_naive(const double* s, const double* y, Index m, double lo, double hi,
                                        Index n_grid, double b_init,
                                        LineSearchObjective objective = LineSearchObjective::Paper,
                                        int n_threads = 0, const double* w = nullptr);

// Exact search over [min(lo,hi), max(lo,hi)].
//  * Paper objective: E is lower semicontinuous, so its minimum is attained at a score in [L, R] or on an
//    open piece (t_k, t_{k+1}) between consecutive distinct scores that meets [L, R]. Among minimisers an
//    open piece is preferred (then no training point sits on the threshold and the count is also the test-time
//    rule's count), then the one nearest to `lo` (the one the grid would reach first); b is the
//    midpoint of (piece intersect [L, R]).
//  * Decision objective: E_dec is constant on the half-open pieces [t_k, t_{k+1}) between sorted distinct
//    scores; b is the midpoint of (best piece  intersect  [L, R]), or its single point. Ties between pieces:
//    the piece nearest to `lo`.
// If the minimum count is m (the total weight: nothing better than misclassifying all) the result is b = b_init, as the grid.
// lo or hi may be infinite (the "unbounded" interval); then b is placed inside the finite part.
LineSearchResult line_search_exact(const double* s, const double* y, Index m, double lo, double hi, double b_init,
                                   LineSearchObjective objective = LineSearchObjective::Paper,
                                   const double* w = nullptr);

}  // namespace svmopt
