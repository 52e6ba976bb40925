#include "svmopt/blas.hpp"

#include <atomic>
#include <limits>

namespace svmopt::blas {
namespace {

std::atomic<dsyrk_t> g_syrk{nullptr};
std::atomic<dgemm_t> g_gemm{nullptr};

bool fits(Index x) { return x >= 0 && x <= std::numeric_limits<int>::max(); }

// Lower triangle of C (n x n, column-major) += op(A) op(A)^T, op(A) = A (trans 'N', A n x k) or A^T ('T', A k x n).
bool syrk_lower_cm(char trans, Index n, Index k, const double* A, Index lda, double* C, Index ldc) {
  const dsyrk_t f = g_syrk.load();
  if (!f || !fits(n) || !fits(k) || !fits(lda) || !fits(ldc) || lda < (trans == 'N' ? n : k)) return false;
  if (n == 0 || k == 0) return true;
  char uplo = 'L';
  int ni = static_cast<int>(n), ki = static_cast<int>(k), la = static_cast<int>(lda), lc = static_cast<int>(ldc);
  double alpha = 1.0, beta = 1.0;
  f(&uplo, &trans, &ni, &ki, &alpha, const_cast<double*>(A), &la, &beta, C, &lc);
  return true;
}

// C (M x N, column-major, ldc) = op(A) op(B), op(A) M x K, op(B) K x N; an empty sum (K = 0) is zero.
bool gemm_cm(char ta, char tb, Index M, Index N, Index K, const double* A, Index lda, const double* B, Index ldb,
             double* C, Index ldc) {
  const dgemm_t f = g_gemm.load();
  if (!f || !fits(M) || !fits(N) || !fits(K) || !fits(lda) || !fits(ldb) || !fits(ldc) || ldc < M) return false;
  if (M == 0 || N == 0) return true;
  if (K == 0) {  // BLAS requires lda >= 1
    for (Index j = 0; j < N; ++j)
      for (Index i = 0; i < M; ++i) C[i + j * ldc] = 0.0;
    return true;
  }
  int Mi = static_cast<int>(M), Ni = static_cast<int>(N), Ki = static_cast<int>(K), la = static_cast<int>(lda),
      lb = static_cast<int>(ldb), lc = static_cast<int>(ldc);
  double alpha = 1.0, beta = 0.0;
  f(&ta, &tb, &Mi, &Ni, &Ki, &alpha, const_cast<double*>(A), &la, const_cast<double*>(B), &lb, &beta, C, &lc);
  return true;
}

}  // namespace

void set(dsyrk_t syrk, dgemm_t gemm) {
  g_syrk.store(syrk);
  g_gemm.store(gemm);
}

bool available() { return g_syrk.load() != nullptr && g_gemm.load() != nullptr; }

bool syrk_lower_tn(Index rows, Index p, const double* A, Index lda, double* C, Index ldc) {
  return syrk_lower_cm('T', p, rows, A, lda, C, ldc);
}

bool syrk_lower_rowmajor(Index rows, Index p, const double* A, Index lda, double* C, Index ldc) {
  // Column-major view: A (row-major rows x p) is B = A^T (p x rows, ld lda); A^T A = B B^T.
  return syrk_lower_cm('N', p, rows, A, lda, C, ldc);
}

bool gemm_rowmajor_into_colmajor(Index nr, Index m, Index q, const double* K, const double* P, double* C, Index ldc) {
  // Column-major view: K (row-major nr x m) is K^T (m x nr, ld m), P (row-major m x q) is P^T (q x m, ld q);
  // C = op(K^T) op(P^T) with both transposed.
  return gemm_cm('T', 'T', nr, q, m, K, m, P, q, C, ldc);
}

bool gemm_rowmajor(Index nr, Index m, Index q, const double* K, const double* P, double* C, Index ldc) {
  // Column-major view: C^T (q x nr, ld ldc) = P^T (q x m, ld q) K^T (m x nr, ld m), no transposes.
  return gemm_cm('N', 'N', q, nr, m, P, q, K, m, C, ldc);
}

}  // namespace svmopt::blas
