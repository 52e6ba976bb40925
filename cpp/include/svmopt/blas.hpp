// Optional BLAS for the two large products of the fixed-size LS-SVM: the Nyström features F = K P and the Gram
// accumulation G += F^T F. The core does not link a BLAS; the Python layer hands it, at import, the Fortran
// dgemm / dsyrk of the BLAS SciPy was built with (scipy.linalg.cython_blas, OpenBLAS in the wheels), whose
// kernels run these products at 1.5-2x the speed of Eigen's. Without it (or after set_blas(nullptr, nullptr)),
// every caller falls back to Eigen. The BLAS threads itself (OPENBLAS_NUM_THREADS / threadpoolctl); callers do
// not call it from inside their own OpenMP regions.
#pragma once

#include "svmopt/common.hpp"

namespace svmopt::blas {

using dsyrk_t = void (*)(char*, char*, int*, int*, double*, double*, int*, double*, double*, int*);
using dgemm_t = void (*)(char*, char*, int*, int*, int*, double*, double*, int*, double*, int*, double*, double*,
                         int*);

// Below this many columns (features) Eigen's kernels beat the BLAS call (measured on the magic set: p = 51 took
// 1.7x longer through OpenBLAS, p = 301 15% less, p = 701 26% less); callers use Eigen there.
constexpr Index kMinDim = 128;

void set(dsyrk_t syrk, dgemm_t gemm);
bool available();

// Lower triangle of C (p x p, column-major, leading dimension ldc) += A^T A, A column-major rows x p (lda).
// Returns false (nothing done) when no BLAS is set or a dimension exceeds the 32-bit BLAS interface.
bool syrk_lower_tn(Index rows, Index p, const double* A, Index lda, double* C, Index ldc);

// Lower triangle of C (p x p, column-major, ldc) += A^T A, A row-major rows x p with row stride lda (>= p).
bool syrk_lower_rowmajor(Index rows, Index p, const double* A, Index lda, double* C, Index ldc);

// C (nr x q, column-major, ldc) = K P with K row-major nr x m and P row-major m x q. False as above.
bool gemm_rowmajor_into_colmajor(Index nr, Index m, Index q, const double* K, const double* P, double* C, Index ldc);

// C (nr x q, row-major, row stride ldc) = K P with K row-major nr x m and P row-major m x q. False as above.
bool gemm_rowmajor(Index nr, Index m, Index q, const double* K, const double* P, double* C, Index ldc);

}  // namespace svmopt::blas
