// Shared types of the svmopt core: strided read-only views over numpy buffers, row-major
// matrices, the OpenMP thread-count convention, and the interruption (Ctrl-C) of long loops.
#pragma once

#include <Eigen/Dense>

#include <atomic>
#include <chrono>
#include <cmath>
#include <cstddef>
#include <exception>
#include <stdexcept>
#include <thread>

namespace svmopt {

using Index = Eigen::Index;
using RowMatrix = Eigen::Matrix<double, Eigen::Dynamic, Eigen::Dynamic, Eigen::RowMajor>;
using RowMatrixMap = Eigen::Map<RowMatrix>;
using Vector = Eigen::VectorXd;

// A read-only 2-D view with arbitrary (possibly negative) element strides, so that C-ordered,
// F-ordered and sliced numpy arrays reach the core without a Python-side copy.
struct MatrixView {
  const double* data = nullptr;
  Index rows = 0;
  Index cols = 0;
  Index row_stride = 0;  // in elements
  Index col_stride = 0;  // in elements

  double operator()(Index i, Index j) const { return data[i * row_stride + j * col_stride]; }
  bool rows_contiguous() const { return col_stride == 1; }

  // Copy rows [r0, r0 + nr) into `dst` (nr x cols, row-major, contiguous).
  void pack_rows(Index r0, Index nr, double* dst) const;
};

// A view of a row-major matrix.
inline MatrixView view_of(const RowMatrix& M) {
  MatrixView v;
  v.data = M.data();
  v.rows = M.rows();
  v.cols = M.cols();
  v.row_stride = M.cols();
  v.col_stride = 1;
  return v;
}

// Throws std::invalid_argument naming `name` unless every row of X has a finite squared norm <= 1e300: no NaN
// or infinity, and no value so large that ||x||^2 + ||z||^2 - 2<x, z> would overflow (an RBF kernel would then
// turn the NaN into exp(-0) = 1 silently). O(rows x cols), negligible next to any kernel evaluation.
void check_finite_rows(const MatrixView& X, const char* name);

// Threads to use for an OpenMP loop: n_threads <= 0 means "all" (omp_get_max_threads()); larger requests are
// clamped to max(4 x processors, omp_get_max_threads()).
int resolve_threads(int n_threads);

// Whether the core was built with OpenMP, and the maximum thread count it would use.
bool openmp_enabled();
int max_threads();

// The steady-clock instant `seconds` from now, saturated: a limit beyond the clock's range (int64 nanoseconds, about
// 292 years) is the range's end, never a wrapped instant in the past. +inf and NaN are not limits (callers check).
inline std::chrono::steady_clock::time_point deadline_after(double seconds) {
  using Clock = std::chrono::steady_clock;
  const Clock::time_point now = Clock::now();
  const double room = std::chrono::duration<double>(Clock::time_point::max() - now).count();
  if (!(seconds < room)) return Clock::time_point::max();
  if (seconds <= 0.0) return now;
  return now + std::chrono::duration_cast<Clock::duration>(std::chrono::duration<double>(seconds));
}

// ---------------------------------------------------------------- interruption (Ctrl-C)
//
// The core knows no Python. The binding layer installs a hook at import (set_interrupt_hook): whether the calling
// thread is the one that receives signals (Python's main thread), and a function that, on that thread, runs the
// pending signal handlers and throws what one of them raises (KeyboardInterrupt, as a C++ exception the binding
// turns back into the Python one).
struct InterruptHook {
  bool (*receives_signals)() = nullptr;
  void (*handle_signals)() = nullptr;
};
void set_interrupt_hook(const InterruptHook& hook);

// How often a loop asks the hook (a GIL acquisition each time): a Ctrl-C stops a routine within about this long
// plus the loop's own step.
constexpr double kInterruptPeriodSeconds = 0.1;

// A long routine's stop request, made on the thread that called the routine. Serial loops call check() once a step
// (it throws the handler's exception). OpenMP regions call requested() -- from any thread, it never throws: the
// creating thread asks the hook at most every kInterruptPeriodSeconds, the others read the flag it sets -- skip
// their remaining iterations once it is true, and call check() after the region, so that no exception crosses a
// region's boundary. Made inside a parallel region (a routine nested in another's region) it never asks the hook:
// the enclosing routine's Interruption does. Steps of a microsecond or more: requested() reads the clock.
class Interruption {
 public:
  Interruption();
  Interruption(const Interruption&) = delete;
  Interruption& operator=(const Interruption&) = delete;

  // Whether a stop was requested (asks the hook when due, on the creating thread only).
  bool requested() noexcept {
    if (stop_.load(std::memory_order_relaxed)) return true;
    if (!polls_ || std::this_thread::get_id() != owner_) return false;
    const auto now = std::chrono::steady_clock::now();
    if (now < next_) return false;
    next_ = now + period_;
    return poll();
  }
  // Whether a stop was requested, without asking the hook (the cheapest test, for the innermost loops).
  bool stopped() const noexcept { return stop_.load(std::memory_order_relaxed); }
  // On the creating thread, outside parallel regions: throws the handler's exception once a stop was requested.
  void check() {
    if (requested()) std::rethrow_exception(error_);
  }

 private:
  bool poll() noexcept;

  std::atomic<bool> stop_{false};
  bool polls_ = false;
  std::thread::id owner_;
  std::chrono::steady_clock::duration period_{};
  std::chrono::steady_clock::time_point next_{};
  std::exception_ptr error_;
};

}  // namespace svmopt
