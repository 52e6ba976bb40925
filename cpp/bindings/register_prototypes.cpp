// svmopt._core.prototypes: cpp/include/svmopt/entropy.hpp: the Renyi-entropy prototype selection (paper 002,
// Section 4.1, Algorithm 1) and the kernel estimates (14) of its plug-in bandwidths, shared by the fixed-size LS-SVM's
// prototypes and the robust SVM's landmarks (svmopt._shared.prototypes, svmopt._shared.bandwidth).
#include <pybind11/stl.h>

#include <cstdint>
#include <tuple>
#include <vector>

#include "bindings.hpp"
#include "svmopt/entropy.hpp"

namespace svmopt::bind {
namespace {

// The rows idx of Z, all of them for None.
std::vector<Index> rows_or_all(const OptionalInt64& idx, const MatrixView& Z) {
  if (idx) return index_vector(idx, "idx");
  std::vector<Index> all(static_cast<std::size_t>(Z.rows));
  for (Index i = 0; i < Z.rows; ++i) all[static_cast<std::size_t>(i)] = i;
  return all;
}

}  // namespace

void register_prototypes(py::module_& m) {
  // ---------------------------------------------------------------- the entropy (12) and Algorithm 1
  m.def(
      "entropy_log_offdiag",
      [](const DoubleArray& Z, const OptionalInt64& idx, int n_threads) {
        const MatrixView zv = view2d(Z, "Z");
        const auto id = rows_or_all(idx, zv);
        py::gil_scoped_release release;
        return entropy_log_offdiag(zv, id, n_threads);
      },
      py::arg("Z").noconvert(), py::arg("idx").noconvert(), py::arg("n_threads") = 0,
      "L = log sum_{k != l} exp(-||Z_k - Z_l||^2) over the rows idx (None: all) of the scaled inputs Z = X / (2h).");
  m.def(
      "entropy_log_rowsum",
      [](const DoubleArray& Z, const OptionalInt64& idx, Index point, Index skip) {
        const MatrixView zv = view2d(Z, "Z");
        return entropy_log_rowsum(zv, rows_or_all(idx, zv), point, skip);
      },
      py::arg("Z").noconvert(), py::arg("idx").noconvert(), py::arg("point"), py::arg("skip"),
      "LSE_{l != skip}(-||Z_point - Z_{idx_l}||^2).");

  py::class_<EntropySelectResult>(m, "EntropySelectResult", py::module_local(),
                                  "The prototypes of entropy_select and the search's counts.")
      .def_property_readonly("idx", [](const EntropySelectResult& r) { return to_numpy(r.idx); })
      .def_readonly("log_offdiag", &EntropySelectResult::log_offdiag)
      .def_readonly("n_proposals", &EntropySelectResult::n_proposals)
      .def_readonly("n_accepted", &EntropySelectResult::n_accepted)
      .def_readonly("n_recomputes", &EntropySelectResult::n_recomputes)
      .def_readonly("n_row_recomputes", &EntropySelectResult::n_row_recomputes)
      .def_readonly("n_kernel_evals", &EntropySelectResult::n_kernel_evals)
      .def_readonly("stopped_early", &EntropySelectResult::stopped_early);
  m.def(
      "entropy_select",
      [](const DoubleArray& Z, Index m_pv, const OptionalInt64& labels, const OptionalInt64& init,
         Index max_proposals, Index window, double tol, std::uint64_t seed, bool recompute) {
        const MatrixView zv = view2d(Z, "Z");
        std::vector<std::int64_t> lab;
        if (labels) lab = Contiguous1d<std::int64_t>(*labels, "labels").to_vector();
        const auto in = index_vector(init, "init");
        EntropySelectOptions opt;
        opt.max_proposals = max_proposals;
        opt.window = window;
        opt.tol = tol;
        opt.seed = seed;
        opt.recompute = recompute;
        py::gil_scoped_release release;
        return entropy_select(zv, m_pv, lab, in, opt);
      },
      py::arg("Z").noconvert(), py::arg("m"), py::arg("labels").noconvert() = py::none(),
      py::arg("init").noconvert() = py::none(), py::arg("max_proposals") = 0, py::arg("window") = 0,
      py::arg("tol") = 1e-5, py::arg("seed") = 0, py::arg("recompute") = false,
      "Renyi-entropy prototype selection (Algorithm 1) with O(m d) log-domain swap updates.");
  // ---------------------------------------------------------------- the plug-in bandwidth's psi_r, (14)
  m.def(
      "kde_psi",
      [](const DoubleArray& x, double g, int r, int n_threads) {
        const Contiguous1d<double> xc(x, "x_sorted");
        py::gil_scoped_release release;
        return kde_psi(xc.data(), xc.size(), g, r, nullptr, n_threads);
      },
      py::arg("x_sorted").noconvert(), py::arg("g"), py::arg("r"), py::arg("n_threads") = 0,
      "Kernel estimate (14) of psi_r (r = 4 or 6) on sorted data.");
  m.def(
      "kde_psi_with_derivative",
      [](const DoubleArray& x, double g, int n_threads) {
        const Contiguous1d<double> xc(x, "x_sorted");
        double d = 0.0, psi;
        {
          py::gil_scoped_release release;
          psi = kde_psi(xc.data(), xc.size(), g, 4, &d, n_threads);
        }
        return std::make_tuple(psi, d);
      },
      py::arg("x_sorted").noconvert(), py::arg("g"), py::arg("n_threads") = 0,
      "(psi_4, d psi_4 / dg) of the kernel estimate (14) on sorted data.");
}

}  // namespace svmopt::bind
