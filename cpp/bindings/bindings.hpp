// pybind11 glue shared by the binding files: numpy buffer -> MatrixView, no logic.
#pragma once

#include <pybind11/numpy.h>
#include <pybind11/pybind11.h>

#include <string>

#include "svmopt/common.hpp"

namespace svmopt::bind {

namespace py = pybind11;
using DoubleArray = py::array_t<double, 0>;  // no forcecast: a wrong dtype is a TypeError, never a silent copy

// View a 2-D float64 numpy array of any memory layout without copying.
inline MatrixView view2d(const DoubleArray& a, const char* name) {
  if (a.ndim() != 2) {
    throw py::value_error(std::string(name) + " must be a 2-D array, got ndim=" + std::to_string(a.ndim()));
  }
  const auto s0 = a.strides(0), s1 = a.strides(1);
  if (s0 % static_cast<py::ssize_t>(sizeof(double)) != 0 || s1 % static_cast<py::ssize_t>(sizeof(double)) != 0) {
    throw py::value_error(std::string(name) + " has strides that are not a multiple of 8 bytes");
  }
  MatrixView v;
  v.data = a.data();
  v.rows = a.shape(0);
  v.cols = a.shape(1);
  v.row_stride = s0 / static_cast<py::ssize_t>(sizeof(double));
  v.col_stride = s1 / static_cast<py::ssize_t>(sizeof(double));
  return v;
}

// A new C-ordered float64 array of the given shape (uninitialised, like numpy.empty).
inline DoubleArray empty2d(Index rows, Index cols) {
  return DoubleArray({static_cast<py::ssize_t>(rows), static_cast<py::ssize_t>(cols)});
}

void bind_kernels(py::module_& m);
void bind_robust(py::module_& m);
void bind_fixed_size(py::module_& m);
void bind_pso(py::module_& m);

}  // namespace svmopt::bind
