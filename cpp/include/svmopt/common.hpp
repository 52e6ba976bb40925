// Shared types of the svmopt core: strided read-only views over numpy buffers, row-major
// matrices, and the OpenMP thread-count convention.
#pragma once

#include <Eigen/Dense>

#include <chrono>
#include <cmath>
#include <cstddef>
#include <stdexcept>

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

}  // namespace svmopt
