#include "svmopt/blas.hpp"

#include <atomic>
#include <limits>

namespace svmopt::blas {
namespace {

std::atomic<dsyrk_t> g_syrk{nullptr};
std::atomic<dgemm_t> g_gemm{nullptr};

bool fits(Index x) { return x >= 0 && x <= std::numeric_limits<int>::max(); }

}  // namespace

void set(dsyrk_t syrk, dgemm_t gemm) {
  g_syrk.store(syrk);
  g_gemm.store(gemm);
}

bool available() { return g_syrk.load() != nullptr && g_gemm.load() != nullptr; }

bool syrk_lower_tn(Index rows, Index p, const double* A, Index lda, double* C, Index ldc) {
  const dsyrk_t f = g_syrk.load();
  if (!f || !fits(rows) || !fits(p) || !fits(lda) || !fits(ldc)) return false;
  if (rows == 0 || p == 0) return true;
  char uplo = 'L', trans = 'T';
  int n = static_cast<int>(p), k = static_cast<int>(rows), la = static_cast<int>(lda), lc = static_cast<int>(ldc);
  double alpha = 1.0, beta = 1.0;
  f(&uplo, &trans, &n, &k, &alpha, const_cast<double*>(A), &la, &beta, C, &lc);
  return true;
}

bool syrk_lower_rowmajor(Index rows, Index p, const double* A, Index lda, double* C, Index ldc) {
  const dsyrk_t f = g_syrk.load();
  if (!f || !fits(rows) || !fits(p) || !fits(lda) || !fits(ldc) || lda < p) return false;
  if (rows == 0 || p == 0) return true;
  // Column-major view: A (row-major rows x p) is B = A^T (p x rows, ld lda); A^T A = B B^T.
  char uplo = 'L', trans = 'N';
  int n = static_cast<int>(p), k = static_cast<int>(rows), la = static_cast<int>(lda), lc = static_cast<int>(ldc);
  double alpha = 1.0, beta = 1.0;
  f(&uplo, &trans, &n, &k, &alpha, const_cast<double*>(A), &la, &beta, C, &lc);
  return true;
}

bool gemm_rowmajor_into_colmajor(Index nr, Index m, Index q, const double* K, const double* P, double* C, Index ldc) {
  const dgemm_t f = g_gemm.load();
  if (!f || !fits(nr) || !fits(m) || !fits(q) || !fits(ldc)) return false;
  if (nr == 0 || q == 0) return true;
  // Column-major view: K (row-major nr x m) is K^T (m x nr, ld m), P (row-major m x q) is P^T (q x m, ld q);
  // C = op(K^T) op(P^T) with both transposed.
  char ta = 'T', tb = 'T';
  int M = static_cast<int>(nr), N = static_cast<int>(q), Kd = static_cast<int>(m), lda = static_cast<int>(m),
      ldb = static_cast<int>(q), lc = static_cast<int>(ldc);
  double alpha = 1.0, beta = 0.0;
  if (m == 0) {  // BLAS requires lda >= 1; an empty sum is zero
    for (Index j = 0; j < q; ++j)
      for (Index i = 0; i < nr; ++i) C[i + j * ldc] = 0.0;
    return true;
  }
  f(&ta, &tb, &M, &N, &Kd, &alpha, const_cast<double*>(K), &lda, const_cast<double*>(P), &ldb, &beta, C, &lc);
  return true;
}

bool gemm_rowmajor(Index nr, Index m, Index q, const double* K, const double* P, double* C, Index ldc) {
  const dgemm_t f = g_gemm.load();
  if (!f || !fits(nr) || !fits(m) || !fits(q) || !fits(ldc) || ldc < q) return false;
  if (nr == 0 || q == 0) return true;
  if (m == 0) {
    for (Index i = 0; i < nr; ++i)
      for (Index j = 0; j < q; ++j) C[i * ldc + j] = 0.0;
    return true;
  }
  // Column-major view: C^T (q x nr, ld ldc) = P^T (q x m, ld q) K^T (m x nr, ld m), no transposes.
  char ta = 'N', tb = 'N';
  int M = static_cast<int>(q), N = static_cast<int>(nr), Kd = static_cast<int>(m), lda = static_cast<int>(q),
      ldb = static_cast<int>(m), lc = static_cast<int>(ldc);
  double alpha = 1.0, beta = 0.0;
  f(&ta, &tb, &M, &N, &Kd, &alpha, const_cast<double*>(P), &lda, const_cast<double*>(K), &ldb, &beta, C, &lc);
  return true;
}

}  // namespace svmopt::blas
