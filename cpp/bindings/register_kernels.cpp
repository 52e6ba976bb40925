// svmopt._core.kernels: cpp/include/svmopt/kernels.hpp.
#include "svmopt/kernels.hpp"

#include <string>

#include "bindings.hpp"

namespace svmopt::bind {

void register_kernels(py::module_& m) {
  // module_local: each ISA variant of the core registers its own copy of these types.
  py::enum_<KernelKind>(m, "KernelKind", py::module_local())
      .value("linear", KernelKind::Linear)
      .value("poly", KernelKind::Poly)
      .value("inhom_poly", KernelKind::InhomPoly)
      .value("rbf", KernelKind::RBF)
      .value("sigmoid", KernelKind::Sigmoid);

  py::class_<KernelParams>(m, "KernelParams", py::module_local())
      .def(py::init([](KernelKind kind, int degree, double c, double alpha, double a, double b) {
             KernelParams p{kind, degree, c, alpha, a, b};
             validate(p);
             return p;
           }),
           py::arg("kind"), py::arg("degree") = 1, py::arg("c") = 0.0, py::arg("alpha") = 1.0, py::arg("a") = 1.0,
           py::arg("b") = 0.0)
      .def_readonly("kind", &KernelParams::kind)
      .def_readonly("degree", &KernelParams::degree)
      .def_readonly("c", &KernelParams::c)
      .def_readonly("alpha", &KernelParams::alpha)
      .def_readonly("a", &KernelParams::a)
      .def_readonly("b", &KernelParams::b)
      .def("__repr__", [](const KernelParams& p) {
        return "KernelParams(kind=" + std::string(py::str(py::cast(p.kind))) +
               ", degree=" + std::to_string(p.degree) + ", c=" + std::to_string(p.c) +
               ", alpha=" + std::to_string(p.alpha) + ", a=" + std::to_string(p.a) + ", b=" + std::to_string(p.b) + ")";
      });

  m.def(
      "gram",
      [](const DoubleArray& X, const KernelParams& p, int n_threads, Index block) {
        const MatrixView xv = view2d(X, "X");
        DoubleArray out = empty2d(xv.rows, xv.rows);
        RowMatrixMap o(out.mutable_data(), xv.rows, xv.rows);
        {
          py::gil_scoped_release release;
          gram(xv, p, o, n_threads, block);
        }
        return out;
      },
      py::arg("X").noconvert(), py::arg("params"), py::arg("n_threads") = 0, py::arg("block") = kDefaultBlock,
      "Symmetric Gram matrix K(X, X) (n x n, C order). One triangle of tiles is computed and mirrored.");

  m.def(
      "cross",
      [](const DoubleArray& X, const DoubleArray& Z, const KernelParams& p, int n_threads, Index block) {
        const MatrixView xv = view2d(X, "X"), zv = view2d(Z, "Z");
        if (xv.cols != zv.cols) throw py::value_error("X and Z must have the same number of columns");
        DoubleArray out = empty2d(xv.rows, zv.rows);
        RowMatrixMap o(out.mutable_data(), xv.rows, zv.rows);
        {
          py::gil_scoped_release release;
          cross(xv, zv, p, o, n_threads, block);
        }
        return out;
      },
      py::arg("X").noconvert(), py::arg("Z").noconvert(), py::arg("params"), py::arg("n_threads") = 0,
      py::arg("block") = kDefaultBlock, "Cross Gram matrix K(X, Z) (n_x x n_z, C order).");

  m.def(
      "diag",
      [](const DoubleArray& X, const KernelParams& p) {
        const MatrixView xv = view2d(X, "X");
        Vector out(xv.rows);
        {
          py::gil_scoped_release release;
          diag(xv, p, out);
        }
        return to_numpy(out);
      },
      py::arg("X").noconvert(), py::arg("params"), "Diagonal k(x_i, x_i) of K(X, X).");

  m.def(
      "matvec",
      [](const DoubleArray& X, const DoubleArray& Z, const DoubleArray& V, const KernelParams& p, int n_threads,
         Index block) {
        const MatrixView xv = view2d(X, "X"), zv = view2d(Z, "Z"), vv = view2d(V, "V");
        if (xv.cols != zv.cols) throw py::value_error("X and Z must have the same number of columns");
        if (vv.rows != zv.rows) throw py::value_error("V must have one row per row of Z");
        DoubleArray out = empty2d(xv.rows, vv.cols);
        RowMatrixMap o(out.mutable_data(), xv.rows, vv.cols);
        {
          py::gil_scoped_release release;
          matvec(xv, zv, vv, p, o, n_threads, block);
        }
        return out;
      },
      py::arg("X").noconvert(), py::arg("Z").noconvert(), py::arg("V").noconvert(), py::arg("params"),
      py::arg("n_threads") = 0, py::arg("block") = kDefaultBlock,
      "K(X, Z) @ V (n_x x k) without storing K(X, Z).");
}

}  // namespace svmopt::bind
