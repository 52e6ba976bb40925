// The LP of paper 000 (Maggioni & Spinelli): model (6) with q = 1 (G-SVM) and its robust counterpart (23),
// with |u_j| linearised as u = u+ - u-, u+, u- >= 0 (exact: every optimum has min(u+_j, u-_j) = 0):
//
//   variables  z = [u+ (m), u- (m), gamma (1), xi (m)]                                  (3m + 1 columns)
//   min        e^T u+ + e^T u- + nu e^T xi
//   s.t.       A z >= e,   A = [ DKD - delta r^T,  -DKD - delta r^T,  -y,  I_m ],   u+, u-, xi >= 0, gamma free
//
// with D = diag(y), r_j = sqrt(K_jj) (tiny negative round-off clipped to 0) and delta_i >= 0 the
// feature-space perturbation bound of point i (delta = 0 gives the deterministic model (6)).
// Row i reads  y_i sum_j K_ij y_j u_j - delta_i sum_j sqrt(K_jj) |u_j| - y_i gamma + xi_i >= 1, i.e. (23).
#pragma once

#include <cstdint>

#include "svmopt/common.hpp"

namespace svmopt {

// Number of stored entries of A: the u-blocks are stored densely (m entries per column, exact zeros
// included; HiGHS drops entries below its small_matrix_value), then m for gamma and m for xi.
inline Index robust_lp_nnz(Index m) { return 2 * m * m + 2 * m; }

// Fill the CSC arrays of A (column-wise) in one OpenMP pass over K.
//   K      m x m symmetric Gram matrix (column j is read as row j, so a row-major K is streamed contiguously)
//   y      m labels in {-1, +1};  delta  m bounds >= 0 (may be nullptr: deterministic model)
//   start  3m + 2 column starts;  index, value  robust_lp_nnz(m) entries
// Throws std::invalid_argument if the arrays would overflow 32-bit HiGHS indices.
void robust_lp_matrix(const MatrixView& K, const double* y, const double* delta, std::int32_t* start,
                      std::int32_t* index, double* value, int n_threads = 0);

// r_j = sqrt(max(K_jj, 0)), the norms ||phi(x_j)||_H that multiply delta in (23).
void feature_norms(const MatrixView& K, double* r);

}  // namespace svmopt
