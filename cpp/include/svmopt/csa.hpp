// Coupled simulated annealing with variance control, CSA-MwVC (paper 002, Appendix and Section 6.3;
// the Appendix's algorithm with the acceptance function of Xavier de Souza et al., as the printed one does not
// depend on j; the constants the paper does not give are the defaults of CSAOptions below).
//
// q coupled processes; probes y_i = x_i + T_k * Cauchy per coordinate (out-of-box coordinates are
// redrawn up to 100 times, then clipped); a better probe is always accepted, a worse one with
//   A_i = exp((E(x_i) - max_j E(x_j)) / T_ac) / sum_j exp((E(x_j) - max_l E(x_l)) / T_ac),
// computed from the current energies before each sweep. After each stage of G sweeps, T_ac is
// multiplied by (1 - alpha) if the variance of the A_i is below sigma_D^2 = 0.99 (q-1)/q^2, else by
// (1 + alpha); the generation temperature is T_k = T_0 / (k + 1). Every cost evaluation counts
// toward the budget (the q initial ones included); the run stops when fewer than q remain. The
// best state ever evaluated is returned.
#pragma once

#include <chrono>
#include <cstdint>
#include <functional>
#include <vector>

#include "svmopt/common.hpp"

namespace svmopt {

// A wall-clock limit on a search (the estimators' max_time), checked between cost evaluations: no evaluation starts
// once the limit has passed or when one of the mean duration of those timed so far would end after it, so a search
// overruns the limit by at most the excess of one evaluation over that mean. No limit when constructed from a
// negative or infinite number of seconds.
struct Deadline {
  Deadline() = default;
  explicit Deadline(double seconds);
  bool expired() const { return set && std::chrono::steady_clock::now() >= at; }
  // Whether the next evaluation may start (always true without a limit).
  bool allows_next() const;
  // Record the duration of an evaluation (for allows_next).
  void record(std::chrono::steady_clock::duration d) const {
    total += d;
    ++count;
  }
  bool set = false;
  std::chrono::steady_clock::time_point at{};
  mutable std::chrono::steady_clock::duration total{};
  mutable Index count = 0;
};

struct CSAOptions {
  Index max_evals = 90;
  Index inner = 5;            // G sweeps per temperature stage
  double T0 = 1.0;            // generation temperature
  double Tac0 = 0.0;          // <= 0: std of the initial energies (1 if that is 0)
  double alpha = 0.05;        // variance-control step
  double target_ratio = 0.99; // sigma_D^2 = target_ratio * (q - 1) / q^2
  std::uint64_t seed = 0;
  Deadline deadline;          // no evaluation starts after it (the best state so far is returned)
};

struct CSAResult {
  Vector x_best;
  double f_best = 0.0;
  RowMatrix history;  // one row per evaluation: x (dim), E
  double Tac_final = 0.0;
  Index n_stages = 0;
  bool timed_out = false;  // stopped by opt.deadline before the evaluation budget was spent
};

// A_i of the current energies (they sum to 1) and their variance (1/q) sum A_i^2 - 1/q^2.
Vector csa_acceptance(const Vector& energies, double Tac, double* variance = nullptr);

// Variance control: T_ac (1 - alpha) if variance < sigma_D^2, else T_ac (1 + alpha).
double csa_update_tac(double Tac, double variance, Index q, double alpha = 0.05, double target_ratio = 0.99);

// The search box of CSA and of the tuning after it (tuning.hpp): x0 is q x dim with q, dim >= 1 and
// lower < upper in every one of the dim coordinates; std::invalid_argument otherwise.
void check_search_box(const RowMatrix& x0, const Vector& lower, const Vector& upper);

CSAResult csa_minimize(const std::function<double(const Vector&)>& cost, const RowMatrix& x0, const Vector& lower,
                       const Vector& upper, const CSAOptions& opt);

}  // namespace svmopt
