#include "svmopt/blas.hpp"

#include <algorithm>
#include <atomic>
#include <cstdint>
#include <deque>
#include <limits>
#include <mutex>
#include <vector>

namespace svmopt::blas {
namespace {

template <class I>
struct Fns {
  using syrk_t = void (*)(char*, char*, I*, I*, double*, double*, I*, double*, double*, I*);
  using gemm_t = void (*)(char*, char*, I*, I*, I*, double*, double*, I*, double*, I*, double*, double*, I*);
  using potrf_t = void (*)(char*, I*, double*, I*, I*);
  using syevd_t = void (*)(char*, char*, I*, double*, I*, double*, double*, I*, I*, I*, I*);
};

// One installed set of routines. Sets are never freed (a handful per process at most), so a reader holding a
// pointer to one stays valid while use_blas swaps in another.
struct Api {
  void* syrk = nullptr;
  void* gemm = nullptr;
  void* potrf = nullptr;
  void* syevd = nullptr;
  bool ilp64 = false;
};

std::atomic<const Api*> g_api{nullptr};
std::atomic<bool> g_configured{false};
std::mutex g_mutex;
std::deque<Api> g_store;

template <class I>
bool fits(Index x) {
  return x >= 0 && static_cast<std::uint64_t>(x) <= static_cast<std::uint64_t>(std::numeric_limits<I>::max());
}

// Lower triangle of C (n x n, column-major) += op(A) op(A)^T, op(A) = A (trans 'N', A n x k) or A^T ('T', A k x n).
template <class I>
bool syrk_impl(const Api& api, char trans, Index n, Index k, const double* A, Index lda, double* C, Index ldc) {
  if (!fits<I>(n) || !fits<I>(k) || !fits<I>(lda) || !fits<I>(ldc) || lda < (trans == 'N' ? n : k)) return false;
  if (n == 0 || k == 0) return true;
  char uplo = 'L';
  I ni = n, ki = k, la = lda, lc = ldc;
  double alpha = 1.0, beta = 1.0;
  reinterpret_cast<typename Fns<I>::syrk_t>(api.syrk)(&uplo, &trans, &ni, &ki, &alpha, const_cast<double*>(A), &la,
                                                      &beta, C, &lc);
  return true;
}

// C (M x N, column-major, ldc) = op(A) op(B), op(A) M x K, op(B) K x N; an empty sum (K = 0) is zero.
template <class I>
bool gemm_impl(const Api& api, char ta, char tb, Index M, Index N, Index K, const double* A, Index lda,
               const double* B, Index ldb, double* C, Index ldc) {
  if (!fits<I>(M) || !fits<I>(N) || !fits<I>(K) || !fits<I>(lda) || !fits<I>(ldb) || !fits<I>(ldc) || ldc < M) {
    return false;
  }
  if (M == 0 || N == 0) return true;
  if (K == 0) {  // BLAS requires lda >= 1
    for (Index j = 0; j < N; ++j)
      for (Index i = 0; i < M; ++i) C[i + j * ldc] = 0.0;
    return true;
  }
  I Mi = M, Ni = N, Ki = K, la = lda, lb = ldb, lc = ldc;
  double alpha = 1.0, beta = 0.0;
  reinterpret_cast<typename Fns<I>::gemm_t>(api.gemm)(&ta, &tb, &Mi, &Ni, &Ki, &alpha, const_cast<double*>(A), &la,
                                                      const_cast<double*>(B), &lb, &beta, C, &lc);
  return true;
}

template <class I>
bool potrf_impl(const Api& api, Index n, double* A, Index lda, Index* info) {
  if (!fits<I>(n) || !fits<I>(lda) || lda < std::max<Index>(n, 1)) return false;
  char uplo = 'L';
  I ni = n, la = lda, inf = 0;
  if (n > 0) reinterpret_cast<typename Fns<I>::potrf_t>(api.potrf)(&uplo, &ni, A, &la, &inf);
  *info = static_cast<Index>(inf);
  return true;
}

template <class I>
bool syevd_impl(const Api& api, Index n, double* A, Index lda, double* w, Index* info) {
  if (!fits<I>(n) || !fits<I>(lda) || lda < std::max<Index>(n, 1)) return false;
  *info = 0;
  if (n == 0) return true;
  char jobz = 'V', uplo = 'L';
  I ni = n, la = lda, lwork = -1, liwork = -1, inf = 0, iwork_query = 0;
  double work_query = 0.0;
  const auto f = reinterpret_cast<typename Fns<I>::syevd_t>(api.syevd);
  f(&jobz, &uplo, &ni, A, &la, w, &work_query, &lwork, &iwork_query, &liwork, &inf);  // workspace query
  if (inf != 0) {
    *info = static_cast<Index>(inf);
    return true;
  }
  if (!(work_query <= static_cast<double>(std::numeric_limits<I>::max()))) return false;  // A untouched: Eigen
  lwork = static_cast<I>(work_query);
  liwork = iwork_query;
  std::vector<double> work(static_cast<std::size_t>(std::max<I>(lwork, 1)));
  std::vector<I> iwork(static_cast<std::size_t>(std::max<I>(liwork, 1)));
  f(&jobz, &uplo, &ni, A, &la, w, work.data(), &lwork, iwork.data(), &liwork, &inf);
  *info = static_cast<Index>(inf);
  return true;
}

bool syrk_cm(char trans, Index n, Index k, const double* A, Index lda, double* C, Index ldc) {
  const Api* api = g_api.load();
  if (!api) return false;
  return api->ilp64 ? syrk_impl<std::int64_t>(*api, trans, n, k, A, lda, C, ldc)
                    : syrk_impl<int>(*api, trans, n, k, A, lda, C, ldc);
}

bool gemm_cm(char ta, char tb, Index M, Index N, Index K, const double* A, Index lda, const double* B, Index ldb,
             double* C, Index ldc) {
  const Api* api = g_api.load();
  if (!api) return false;
  return api->ilp64 ? gemm_impl<std::int64_t>(*api, ta, tb, M, N, K, A, lda, B, ldb, C, ldc)
                    : gemm_impl<int>(*api, ta, tb, M, N, K, A, lda, B, ldb, C, ldc);
}

}  // namespace

void set(void* syrk, void* gemm, void* potrf, void* syevd, bool ilp64) {
  g_configured.store(true);
  if (!syrk || !gemm) {
    g_api.store(nullptr);
    return;
  }
  std::lock_guard<std::mutex> lock(g_mutex);
  g_store.push_back(Api{syrk, gemm, potrf, syevd, ilp64});
  g_api.store(&g_store.back());
}

bool configured() { return g_configured.load(); }

bool available() { return g_api.load() != nullptr; }

bool syevd_available() {
  const Api* api = g_api.load();
  return api && api->syevd;
}

bool potrf_available() {
  const Api* api = g_api.load();
  return api && api->potrf;
}

const char* interface() {
  const Api* api = g_api.load();
  return api ? (api->ilp64 ? "ilp64" : "lp64") : "";
}

bool syrk_lower_tn(Index rows, Index p, const double* A, Index lda, double* C, Index ldc) {
  return syrk_cm('T', p, rows, A, lda, C, ldc);
}

bool syrk_lower_rowmajor(Index rows, Index p, const double* A, Index lda, double* C, Index ldc) {
  // Column-major view: A (row-major rows x p) is B = A^T (p x rows, ld lda); A^T A = B B^T.
  return syrk_cm('N', p, rows, A, lda, C, ldc);
}

bool gemm_rowmajor_into_colmajor(Index nr, Index m, Index q, const double* K, const double* P, double* C, Index ldc) {
  // Column-major view: K (row-major nr x m) is K^T (m x nr, ld m), P (row-major m x q) is P^T (q x m, ld q);
  // C = op(K^T) op(P^T) with both transposed.
  return gemm_cm('T', 'T', nr, q, m, K, m, P, q, C, ldc);
}

bool gemm_rowmajor_ld(Index nr, Index m, Index q, const double* K, Index ldk, const double* P, Index ldp, double* C,
                      Index ldc) {
  // Column-major view: C^T (q x nr, ld ldc) = P^T (q x m, ld ldp) K^T (m x nr, ld ldk), no transposes.
  return gemm_cm('N', 'N', q, nr, m, P, ldp, K, ldk, C, ldc);
}

bool potrf_lower(Index n, double* A, Index lda, Index* info) {
  const Api* api = g_api.load();
  if (!api || !api->potrf) return false;
  return api->ilp64 ? potrf_impl<std::int64_t>(*api, n, A, lda, info) : potrf_impl<int>(*api, n, A, lda, info);
}

bool syevd_lower(Index n, double* A, Index lda, double* w, Index* info) {
  const Api* api = g_api.load();
  if (!api || !api->syevd) return false;
  return api->ilp64 ? syevd_impl<std::int64_t>(*api, n, A, lda, w, info) : syevd_impl<int>(*api, n, A, lda, w, info);
}

}  // namespace svmopt::blas
