// pybind11 glue shared by the register_*.cpp files: the one array policy, result conversion, no logic.
//
// Array policy. Every array argument is bound `.noconvert()` with the exact dtype the core computes in: float64
// (`DoubleArray`), int32 fold ids (`Int32Array`), int64 indices (`Int64Array`). A wrong dtype, a list or a scalar
// where an array belongs is a TypeError -- never a silent copy: the Python layer converts once, visibly. Any memory
// layout is accepted: 2-D inputs are read through their strides (`view2d`), and the few routines that need
// contiguous memory get a copy made here (`contiguous1d`, `matrix_copy`, `stack_in`). Outputs are new C-ordered
// arrays.
#pragma once

#include <pybind11/numpy.h>
#include <pybind11/pybind11.h>

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "svmopt/common.hpp"

namespace svmopt::bind {

namespace py = pybind11;
template <class T>
using Array = py::array_t<T, 0>;  // no forcecast: with .noconvert() a wrong dtype is a TypeError
using DoubleArray = Array<double>;
using Int32Array = Array<std::int32_t>;
using Int64Array = Array<std::int64_t>;

inline std::string shape_text(const py::array& a) {
  std::string s = "(";
  for (py::ssize_t i = 0; i < a.ndim(); ++i) s += (i ? ", " : "") + std::to_string(a.shape(i));
  return s + (a.ndim() == 1 ? ",)" : ")");
}

inline void require_ndim(const py::array& a, py::ssize_t ndim, const char* name) {
  if (a.ndim() != ndim) {
    throw py::value_error(std::string(name) + " must be a " + std::to_string(ndim) + "-D array, got shape " +
                          shape_text(a));
  }
}

// Element strides of `a` (byte strides must be whole elements).
template <class T>
Index element_stride(const Array<T>& a, py::ssize_t axis, const char* name) {
  const auto s = a.strides(axis);
  if (s % static_cast<py::ssize_t>(sizeof(T)) != 0) {
    throw py::value_error(std::string(name) + " has strides that are not a multiple of its item size");
  }
  return s / static_cast<py::ssize_t>(sizeof(T));
}

// View a 2-D float64 array of any memory layout without copying.
inline MatrixView view2d(const DoubleArray& a, const char* name) {
  require_ndim(a, 2, name);
  MatrixView v;
  v.data = a.data();
  v.rows = a.shape(0);
  v.cols = a.shape(1);
  v.row_stride = element_stride(a, 0, name);
  v.col_stride = element_stride(a, 1, name);
  return v;
}

// A 1-D array of length n (n < 0: any) as contiguous memory: the array's own buffer when it is contiguous, else a
// copy kept in `storage`.
template <class T>
class Contiguous1d {
 public:
  Contiguous1d(const Array<T>& a, const char* name, Index n = -1) {
    require_ndim(a, 1, name);
    size_ = a.shape(0);
    if (n >= 0 && size_ != n) {
      throw py::value_error(std::string(name) + " must have length " + std::to_string(n) + ", got " +
                            std::to_string(size_));
    }
    const Index stride = element_stride(a, 0, name);
    if (stride == 1 || size_ <= 1) {
      data_ = a.data();
    } else {
      storage_.resize(static_cast<std::size_t>(size_));
      for (Index i = 0; i < size_; ++i) storage_[static_cast<std::size_t>(i)] = a.data()[i * stride];
      data_ = storage_.data();
    }
  }
  Contiguous1d(const Contiguous1d&) = delete;  // data_ may point into storage_
  Contiguous1d& operator=(const Contiguous1d&) = delete;
  const T* data() const { return data_; }
  Index size() const { return size_; }
  std::vector<T> to_vector() const { return std::vector<T>(data_, data_ + size_); }

 private:
  const T* data_ = nullptr;
  Index size_ = 0;
  std::vector<T> storage_;
};

// A 1-D float64 array (length n; n < 0: any) copied into an Eigen vector.
inline Vector vector_copy(const DoubleArray& a, const char* name, Index n = -1) {
  const Contiguous1d<double> c(a, name, n);
  return Eigen::Map<const Vector>(c.data(), c.size());
}

// An optional 1-D int64 index array (None: empty) copied into the core's index vector.
using OptionalInt64 = std::optional<Int64Array>;
inline std::vector<Index> index_vector(const OptionalInt64& a, const char* name) {
  if (!a) return {};
  const Contiguous1d<std::int64_t> c(*a, name);
  return std::vector<Index>(c.data(), c.data() + c.size());
}

// A 2-D float64 array copied into a row-major Eigen matrix (rows, cols >= 0: required shape).
inline RowMatrix matrix_copy(const DoubleArray& a, const char* name, Index rows = -1, Index cols = -1) {
  const MatrixView v = view2d(a, name);
  if ((rows >= 0 && v.rows != rows) || (cols >= 0 && v.cols != cols)) {
    throw py::value_error(std::string(name) + " must have shape (" + std::to_string(rows) + ", " +
                          std::to_string(cols) + "), got " + shape_text(a));
  }
  RowMatrix M(v.rows, v.cols);
  for (Index i = 0; i < v.rows; ++i)
    for (Index j = 0; j < v.cols; ++j) M(i, j) = v(i, j);
  return M;
}

// A 3-D float64 array (stack first) copied into one matrix per leading index.
inline std::vector<Eigen::MatrixXd> stack_in(const DoubleArray& a, const char* name) {
  require_ndim(a, 3, name);
  const Index s0 = element_stride(a, 0, name), s1 = element_stride(a, 1, name), s2 = element_stride(a, 2, name);
  std::vector<Eigen::MatrixXd> out(static_cast<std::size_t>(a.shape(0)));
  for (py::ssize_t u = 0; u < a.shape(0); ++u) {
    Eigen::MatrixXd& M = out[static_cast<std::size_t>(u)];
    M.resize(a.shape(1), a.shape(2));
    for (Index i = 0; i < M.rows(); ++i)
      for (Index j = 0; j < M.cols(); ++j) M(i, j) = a.data()[u * s0 + i * s1 + j * s2];
  }
  return out;
}

// A new C-ordered float64 array of the given shape (uninitialised, like numpy.empty).
inline DoubleArray empty2d(Index rows, Index cols) {
  return DoubleArray({static_cast<py::ssize_t>(rows), static_cast<py::ssize_t>(cols)});
}

// Copies of core containers as new C-ordered numpy arrays.
template <class Derived>
DoubleArray to_numpy(const Eigen::MatrixBase<Derived>& m) {
  if constexpr (Derived::ColsAtCompileTime == 1) {
    DoubleArray out(static_cast<py::ssize_t>(m.rows()));
    Eigen::Map<Vector>(out.mutable_data(), m.rows()) = m;
    return out;
  } else {
    DoubleArray out = empty2d(m.rows(), m.cols());
    Eigen::Map<RowMatrix>(out.mutable_data(), m.rows(), m.cols()) = m;
    return out;
  }
}

template <class T>
Array<T> to_numpy(const std::vector<T>& v) {
  return Array<T>(static_cast<py::ssize_t>(v.size()), v.data());
}

// (v, r, c) C-ordered from one matrix per fold.
inline DoubleArray stack_out(const std::vector<Eigen::MatrixXd>& ms) {
  const py::ssize_t v = static_cast<py::ssize_t>(ms.size());
  const py::ssize_t r = v ? ms[0].rows() : 0, c = v ? ms[0].cols() : 0;
  DoubleArray out({v, r, c});
  for (py::ssize_t u = 0; u < v; ++u) Eigen::Map<RowMatrix>(out.mutable_data(u, 0, 0), r, c) = ms[u];
  return out;
}

// The BLAS is found on first use: before the first routine that can run on it, when no choice was made yet
// (svmopt._core.use_blas), ask the Python layer to install one (svmopt._core._first_use, which reads SVMOPT_BLAS).
// Called with the GIL held, so at most one thread runs the lookup.
void ensure_blas();

void register_build(py::module_& m);
void register_blas(py::module_& m);
void register_kernels(py::module_& m);
void register_cutting_plane(py::module_& m);
void register_robust(py::module_& m);
void register_prototypes(py::module_& m);
void register_fixed_size(py::module_& m);
void register_ellipsoid(py::module_& m);

}  // namespace svmopt::bind
