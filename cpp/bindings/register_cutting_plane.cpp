// svmopt._core.cutting_plane: the cutting-plane pass of cpp/include/svmopt/reduced.hpp, shared by the reduced robust
// LP (paper 000) and the l1-SVMs of paper 001 (Phi = X, margin offsets).
#include <pybind11/stl.h>

#include <optional>
#include <string>

#include "bindings.hpp"
#include "row_source.hpp"
#include "svmopt/reduced.hpp"

namespace svmopt::bind {

void register_cutting_plane(py::module_& m) {
  using OptionalArray = std::optional<DoubleArray>;
  py::class_<CutSums>(m, "CutSums", py::module_local(),
                      "One pass at (v, gamma): the most violated aggregated cut's sums and the hinge sum.")
      .def_property_readonly("a", [](const CutSums& c) { return to_numpy(c.a); }, "sum_i c_i y_i Phi_i (L,).")
      .def_readonly("b", &CutSums::b)
      .def_readonly("e", &CutSums::e)
      .def_readonly("n_c", &CutSums::n_c)
      .def_readonly("hinge", &CutSums::hinge)
      .def_property_readonly("a_groups", [](const CutSums& c) { return to_numpy(c.a_groups); },
                             "a per group of consecutive rows (n_groups, L).")
      .def_property_readonly("b_groups", [](const CutSums& c) { return to_numpy(c.b_groups); })
      .def_property_readonly("e_groups", [](const CutSums& c) { return to_numpy(c.e_groups); })
      .def_property_readonly("n_c_groups", [](const CutSums& c) { return to_numpy(c.n_c_groups); })
      .def_property_readonly("hinge_groups", [](const CutSums& c) { return to_numpy(c.hinge_groups); });
  m.def(
      "cut_pass",
      [](const DoubleArray& y, const DoubleArray& v, double gamma, double S, const OptionalArray& Phi,
         const OptionalArray& X, const OptionalArray& Z, const std::optional<KernelParams>& params,
         const OptionalArray& delta, const OptionalArray& offset, const OptionalArray& scores_out, int n_threads,
         Index block, Index n_groups, Index row_offset, Index n_total, const OptionalArray& weight) {
        const RowSource src = row_source(Phi, X, Z, params);
        const Index n = src.n;
        const Contiguous1d<double> yc(y, "y", n);
        const Vector vv = vector_copy(v, "v");
        std::optional<Contiguous1d<double>> dc;
        if (delta) dc.emplace(*delta, "delta", n);
        std::optional<Contiguous1d<double>> oc;
        if (offset) oc.emplace(*offset, "offset", n);
        std::optional<Contiguous1d<double>> wc;
        if (weight) wc.emplace(*weight, "weight", n);
        double* out = nullptr;
        if (scores_out) {
          DoubleArray o = *scores_out;
          if (o.ndim() != 1 || o.shape(0) != n || !(o.flags() & py::array::c_style) || !o.writeable()) {
            throw py::value_error("scores_out must be a writeable C-contiguous array of length " + std::to_string(n));
          }
          out = o.mutable_data();
        }
        py::gil_scoped_release release;
        return reduced_cut_pass(src.Phi, src.X, src.Z, src.params, yc.data(), dc ? dc->data() : nullptr,
                                oc ? oc->data() : nullptr, vv, gamma, S, out, n_threads, block, n_groups, row_offset,
                                n_total, wc ? wc->data() : nullptr);
      },
      py::arg("y").noconvert(), py::arg("v").noconvert(), py::arg("gamma"), py::arg("S"), py::kw_only(),
      py::arg("Phi").noconvert() = py::none(), py::arg("X").noconvert() = py::none(),
      py::arg("Z").noconvert() = py::none(), py::arg("params") = py::none(), py::arg("delta").noconvert() = py::none(),
      py::arg("offset").noconvert() = py::none(), py::arg("scores_out").noconvert() = py::none(),
      py::arg("n_threads") = 0, py::arg("block") = 4096, py::arg("n_groups") = 1, py::arg("row_offset") = 0,
      py::arg("n_total") = -1, py::arg("weight").noconvert() = py::none(),
      "One pass of the reduced robust LP's cutting planes at (v, gamma) with S = S(v): the kernel rows from Phi "
      "(n x L; Phi = X for the linear l1-SVMs) or K(X, Z) computed block by block; margin offsets a_i (offset, "
      "default 1); scores f = Phi v into scores_out; the sums also per group of "
      "consecutive rows (n_groups, for a multi-cut master); the rows may be rows row_offset.. of n_total (a chunk); "
      "weight (> 0 per row, default 1) multiplies each row's hinge and cut terms.");
}

}  // namespace svmopt::bind
