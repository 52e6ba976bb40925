#include "svmopt/common.hpp"

#include <algorithm>
#include <cstring>
#include <stdexcept>
#include <string>

#ifdef _OPENMP
#include <omp.h>
#endif

namespace svmopt {

void MatrixView::pack_rows(Index r0, Index nr, double* dst) const {
  if (col_stride == 1) {
    for (Index i = 0; i < nr; ++i) {
      std::memcpy(dst + i * cols, data + (r0 + i) * row_stride, static_cast<std::size_t>(cols) * sizeof(double));
    }
    return;
  }
  for (Index i = 0; i < nr; ++i) {
    const double* src = data + (r0 + i) * row_stride;
    double* d = dst + i * cols;
    for (Index j = 0; j < cols; ++j) d[j] = src[j * col_stride];
  }
}

void check_finite_rows(const MatrixView& X, const char* name) {
  for (Index i = 0; i < X.rows; ++i) {
    double s = 0.0;
    for (Index j = 0; j < X.cols; ++j) s += X(i, j) * X(i, j);
    if (!(s <= 1e300)) {  // also catches NaN
      throw std::invalid_argument(std::string(name) + " must be finite with squared row norms <= 1e300 (row " +
                                  std::to_string(i) + " has NaN, infinity or values too large); rescale the data");
    }
  }
}

int resolve_threads(int n_threads) {
#ifdef _OPENMP
  if (n_threads <= 0) return omp_get_max_threads();
  // More threads than 4 per processor only oversubscribe (results never depend on the count), and an absurd
  // request (n_threads=100000) would make libgomp abort when thread creation fails: clamp it.
  const int cap = std::max(4 * omp_get_num_procs(), omp_get_max_threads());
  return std::min(n_threads, cap);
#else
  (void)n_threads;
  return 1;
#endif
}

bool openmp_enabled() {
#ifdef _OPENMP
  return true;
#else
  return false;
#endif
}

int max_threads() { return resolve_threads(0); }

namespace {
InterruptHook g_interrupt_hook;  // set once, at the binding module's import (before any routine runs)
}  // namespace

void set_interrupt_hook(const InterruptHook& hook) { g_interrupt_hook = hook; }

Interruption::Interruption() : owner_(std::this_thread::get_id()) {
#ifdef _OPENMP
  const bool nested = omp_in_parallel() != 0;
#else
  const bool nested = false;
#endif
  polls_ = !nested && g_interrupt_hook.handle_signals != nullptr && g_interrupt_hook.receives_signals != nullptr &&
           g_interrupt_hook.receives_signals();
  period_ = std::chrono::duration_cast<std::chrono::steady_clock::duration>(
      std::chrono::duration<double>(kInterruptPeriodSeconds));
  next_ = std::chrono::steady_clock::now() + period_;
}

bool Interruption::poll() noexcept {
  try {
    g_interrupt_hook.handle_signals();
  } catch (...) {
    error_ = std::current_exception();
    stop_.store(true, std::memory_order_relaxed);
  }
  return stop_.load(std::memory_order_relaxed);
}

}  // namespace svmopt
