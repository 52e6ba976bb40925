// Optional BLAS / LAPACK for the fixed-size LS-SVM's large dense kernels: the Nyström features F = K P, the Gram
// accumulation G += F^T F, the Cholesky factorizations of the ridge systems and the Nyström projection's
// eigendecomposition. The core does not link a BLAS; the
// Python layer hands it, on the first call of a binding that needs one (or when the user chooses), the Fortran
// dgemm / dsyrk / dpotrf / dsyevd of a BLAS already loaded in the process:
// NumPy's bundled OpenBLAS (64-bit integer interface, found through threadpoolctl) or SciPy's (32-bit, through the
// PyCapsules of scipy.linalg.cython_blas / cython_lapack). Their kernels run the products faster than Eigen's,
// and large factorizations (p >= kMinPotrf) too (figures: docs/performance.md#core-design-figures). Without one
// (or after set(nullptr,
// ...)), every caller falls back to Eigen. The BLAS threads itself (OPENBLAS_NUM_THREADS / threadpoolctl); callers do
// not call it from inside their own OpenMP regions.
#pragma once

#include "svmopt/common.hpp"

namespace svmopt::blas {

// Below this many columns (features) Eigen's kernels beat the BLAS call (measured on the magic set;
// docs/performance.md#core-design-figures); callers use Eigen there.
constexpr Index kMinDim = 128;

// From this order the Nyström projection's symmetric eigendecomposition runs on dsyevd (where installed): Eigen's
// tridiagonal QR was as fast up to 200 and 1.5-3x slower from 500 (measured;
// docs/performance_log.md#the-nystrom-eigendecomposition-eigen-against-dsyevd).
constexpr Index kMinSyevd = 256;

// Below this order Eigen's blocked LLT (AVX2 build) is as fast as OpenBLAS's dpotrf on one core (measured;
// docs/performance.md#core-design-figures), and it lets the folds run in parallel; above it dpotrf is faster.
constexpr Index kMinPotrf = 1024;

// Installs the routines (Fortran calling convention): dsyrk, dgemm, dpotrf and dsyevd with 32-bit integer arguments
// (ilp64 false) or 64-bit ones (true). potrf and syevd may be null (those stay on Eigen); syrk or gemm null removes
// all four.
void set(void* syrk, void* gemm, void* potrf, void* syevd, bool ilp64);
bool configured();         // set() was called (a choice was made, possibly "none")
bool available();          // dsyrk and dgemm installed
bool potrf_available();    // dpotrf installed
bool syevd_available();    // dsyevd installed
const char* interface();   // "lp64", "ilp64" or "" when none

// Lower triangle of C (p x p, column-major, leading dimension ldc) += A^T A, A column-major rows x p (lda).
// Returns false (nothing done) when no BLAS is set or a dimension exceeds the BLAS's integer type.
bool syrk_lower_tn(Index rows, Index p, const double* A, Index lda, double* C, Index ldc);

// Lower triangle of C (p x p, column-major, ldc) += A^T A, A row-major rows x p with row stride lda (>= p).
bool syrk_lower_rowmajor(Index rows, Index p, const double* A, Index lda, double* C, Index ldc);

// C (nr x q, column-major, ldc) = K P with K row-major nr x m and P row-major m x q. False as above.
bool gemm_rowmajor_into_colmajor(Index nr, Index m, Index q, const double* K, const double* P, double* C, Index ldc);

// C (nr x q, row-major) = K P with K row-major nr x m and P row-major m x q, every operand with its own row stride
// (leading dimension): ldk >= m, ldp >= q, ldc >= q (packed operands pass m, q, q). False as above.
bool gemm_rowmajor_ld(Index nr, Index m, Index q, const double* K, Index ldk, const double* P, Index ldp, double* C,
                      Index ldc);

// In-place Cholesky factorization of the lower triangle of A (n x n, column-major, lda): A = L L^T, L in the lower
// triangle. Returns false when no dpotrf is installed (A untouched); otherwise *info is LAPACK's (0: success, > 0:
// the leading minor of that order is not positive definite).
bool potrf_lower(Index n, double* A, Index lda, Index* info);

// Eigenvalues (ascending, into w) and eigenvectors (into A's columns) of the symmetric A (n x n, column-major, lda,
// lower triangle read), LAPACK dsyevd. Returns false when no dsyevd is installed (A untouched); otherwise *info is
// LAPACK's (0: success).
bool syevd_lower(Index n, double* A, Index lda, double* w, Index* info);

}  // namespace svmopt::blas
