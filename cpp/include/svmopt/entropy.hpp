// Prototype-vector selection by maximizing the quadratic Renyi entropy (paper 002, Section 4.1,
// Algorithm 1, stratified by class for classification).
//
// Inputs are in scaled coordinates Z = X / (2 h) (column j divided by 2 h_j), so that the entropy
// kernel is G(x, z) = exp(-||Z_x - Z_z||^2). Maximizing the entropy (12) equals minimizing the
// off-diagonal sum O = sum_{k != l} G_kl; everything is done in the log domain, L = log O, because
// with many dimensions and small bandwidths every G_kl underflows.
//
// A swap proposal (X* out, X+ in) costs O(m d): the log-sum-exp of the candidate over the other m - 1
// prototypes, the outgoing one's being kept up to date for every prototype across accepted swaps (an accepted
// swap changes one term of each: O(m d)). It is accepted iff LSE_{l != i}(-||Z+ - Z_l||^2) <
// LSE_{l != i}(-||Z* - Z_l||^2) (strict, as the paper's ">"), and L is updated by log1p with an exact recompute
// (of L and of every row's log-sum-exp) when the update would cancel and every m accepted swaps.
#pragma once

#include <cstdint>
#include <vector>

#include "svmopt/common.hpp"

namespace svmopt {

// L = log sum_{k != l} exp(-||Z_{idx_k} - Z_{idx_l}||^2) over the rows idx of Z (O(m^2 d)).
// Returns -inf when m < 2.
double entropy_log_offdiag(const MatrixView& Z, const std::vector<Index>& idx, int n_threads = 0);

// LSE_{l != skip}(-||z - Z_{idx_l}||^2) for one point z (a row of Z given by its index).
double entropy_log_rowsum(const MatrixView& Z, const std::vector<Index>& idx, Index point, Index skip);

struct EntropySelectOptions {
  Index max_proposals = 0;   // T_max; <= 0: min(max(n, 50 m), 1e7)
  Index window = 0;          // W; <= 0: 5 m
  double tol = 1e-5;         // stop when L decreased by less than tol over a window
  std::uint64_t seed = 0;
  bool recompute = false;    // benchmark/reference mode: decide each proposal by recomputing L in O(m^2 d)
};

struct EntropySelectResult {
  std::vector<Index> idx;    // the m prototype indices (rows of Z)
  double log_offdiag = 0.0;  // final L (maintained incrementally)
  Index n_proposals = 0;
  Index n_accepted = 0;
  Index n_recomputes = 0;    // exact recomputations of L (cancellation guard and drift control)
  Index n_row_recomputes = 0;  // exact recomputations of one row's log-sum-exp (cancellation guard, near-ties)
  std::int64_t n_kernel_evals = 0;
  bool stopped_early = false;  // the "change in entropy is small" rule fired
};

// Algorithm 1 with our stopping rule (the paper stops when the change is "small"; ours is in
// EntropySelectOptions). `labels` (size n, values 0..C-1) or empty: stratified
// initialisation by proportional allocation (largest remainder, >= 1 per class when m >= C) and
// class-preserving swaps. `init` (size m) or empty: the initial working set (random otherwise).
EntropySelectResult entropy_select(const MatrixView& Z, Index m, const std::vector<std::int64_t>& labels,
                                   const std::vector<Index>& init, const EntropySelectOptions& opt);

// Kernel estimate (14) of the density functional psi_r = int f^(r) f (Gaussian kernel, r in {4, 6},
// "diagonals in") on sorted data x, exact up to pairs with |x_i - x_j| > 12 g (their terms are below
// 1e-25 of the diagonal). If dpsi is given (r = 4 only), it receives d psi_4 / d g (Newton step of (15)).
// Deterministic for any thread count (per-row partial sums added in order).
double kde_psi(const double* x_sorted, Index n, double g, int r, double* dpsi = nullptr, int n_threads = 0);

}  // namespace svmopt
