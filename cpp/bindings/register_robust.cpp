// svmopt._core.robust: cpp/include/svmopt/robust.hpp, line_search.hpp, dense_lp.hpp and the interior-point pass of
// reduced.hpp (paper 000).
#include <pybind11/eigen.h>
#include <pybind11/stl.h>

#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <tuple>

#include "bindings.hpp"
#include "row_source.hpp"
#include "svmopt/dense_lp.hpp"
#include "svmopt/line_search.hpp"
#include "svmopt/reduced.hpp"
#include "svmopt/robust.hpp"

namespace svmopt::bind {
namespace {

using OptionalArray = std::optional<DoubleArray>;

// The count a search returns to Python: an int without weights (a number of points), else the weight sum.
py::object count_object(double count, bool weighted) {
  if (weighted) return py::float_(count);
  return py::int_(static_cast<Index>(count));
}

// Validate (s, y, w), release the GIL around `search(s, y, w, n)` and return (b, count).
template <typename Search>
std::tuple<double, py::object> run_line_search(const DoubleArray& s, const DoubleArray& y, const OptionalArray& w,
                                               Search&& search) {
  const Contiguous1d<double> sc(s, "s");
  const Contiguous1d<double> yc(y, "y", sc.size());
  std::optional<Contiguous1d<double>> wc;
  if (w) wc.emplace(*w, "w", sc.size());
  LineSearchResult r;
  {
    py::gil_scoped_release release;
    r = search(sc.data(), yc.data(), wc ? wc->data() : nullptr, sc.size());
  }
  return std::make_tuple(r.b, count_object(r.count, w.has_value()));
}

}  // namespace

void register_robust(py::module_& m) {
  py::enum_<LineSearchObjective>(m, "Objective", py::module_local(),
                                 "What a line search counts: paper = (10)/(27), decision = the test-time rule.")
      .value("paper", LineSearchObjective::Paper)
      .value("decision", LineSearchObjective::Decision);

  m.def(
      "lp_matrix",
      [](const DoubleArray& K, const DoubleArray& y, const OptionalArray& delta, int n_threads) {
        const MatrixView kv = view2d(K, "K");
        if (kv.rows != kv.cols) throw py::value_error("K must be square");
        const Index n = kv.rows;
        const Contiguous1d<double> yc(y, "y", n);
        std::optional<Contiguous1d<double>> dc;
        if (delta) dc.emplace(*delta, "delta", n);
        const Index nnz = robust_lp_nnz(n);
        Int32Array start(static_cast<py::ssize_t>(3 * n + 2));
        Int32Array index(static_cast<py::ssize_t>(nnz));
        DoubleArray value(static_cast<py::ssize_t>(nnz));
        {
          py::gil_scoped_release release;
          robust_lp_matrix(kv, yc.data(), dc ? dc->data() : nullptr, start.mutable_data(), index.mutable_data(),
                           value.mutable_data(), n_threads);
        }
        return std::make_tuple(start, index, value);
      },
      py::arg("K").noconvert(), py::arg("y").noconvert(), py::arg("delta").noconvert() = py::none(),
      py::arg("n_threads") = 0,
      "CSC arrays (start int32 [3m+2], index int32, value float64) of the constraint matrix "
      "A = [DKD - delta r^T, -DKD - delta r^T, -y, I] of LP (23) (delta=None: model (6), q=1), "
      "columns [u+, u-, gamma, xi]. K must be symmetric.");

  m.def(
      "line_search_count",
      [](const DoubleArray& s, const DoubleArray& y, double b, LineSearchObjective objective, const OptionalArray& w) {
        const Contiguous1d<double> sc(s, "s");
        const Contiguous1d<double> yc(y, "y", sc.size());
        std::optional<Contiguous1d<double>> wc;
        if (w) wc.emplace(*w, "w", sc.size());
        return count_object(line_search_count(sc.data(), yc.data(), sc.size(), b, objective,
                                              wc ? wc->data() : nullptr),
                            w.has_value());
      },
      py::arg("s").noconvert(), py::arg("y").noconvert(), py::arg("b"),
      py::arg("objective") = LineSearchObjective::Paper, py::arg("w").noconvert() = py::none(),
      "Misclassified training points at threshold b: 'paper' = (10)/(27), 'decision' = the test-time rule "
      "(with weights w: their weight sum, a float).");

  // The grid search and the paper code's scan it is checked against: the same signature and result.
  using GridSearch = LineSearchResult (*)(const double*, const double*, Index, double, double, Index, double,
                                          LineSearchObjective, int, const double*);
  const auto def_grid = [&m](const char* name, GridSearch search, const char* doc) {
    m.def(
        name,
        [search](const DoubleArray& s, const DoubleArray& y, double lo, double hi, Index n_grid, double b_init,
                 LineSearchObjective objective, int n_threads, const OptionalArray& w) {
          return run_line_search(s, y, w, [&](const double* sp, const double* yp, const double* wp, Index n) {
            return search(sp, yp, n, lo, hi, n_grid, b_init, objective, n_threads, wp);
          });
        },
        py::arg("s").noconvert(), py::arg("y").noconvert(), py::arg("lo"), py::arg("hi"), py::arg("n_grid") = 10000,
        py::arg("b_init") = 0.0, py::arg("objective") = LineSearchObjective::Paper, py::arg("n_threads") = 0,
        py::arg("w").noconvert() = py::none(), doc);
  };
  def_grid("line_search_grid", &line_search_grid,
           "The paper's grid line search (paper 000, Section 6): linspace(lo, hi, n_grid), first strict improvement, "
           "initial b = b_init. Returns (b, count).");
  def_grid("line_search_grid_naive", &line_search_grid_naive,
           "The paper code's O(n_grid m) grid scan (reference for line_search_grid, which gives the same (b, count) "
           "in O(m log m + n_grid)). Returns (b, count).");

  m.def(
      "line_search_exact",
      [](const DoubleArray& s, const DoubleArray& y, double lo, double hi, double b_init,
         LineSearchObjective objective, const OptionalArray& w) {
        return run_line_search(s, y, w, [&](const double* sp, const double* yp, const double* wp, Index n) {
          return line_search_exact(sp, yp, n, lo, hi, b_init, objective, wp);
        });
      },
      py::arg("s").noconvert(), py::arg("y").noconvert(), py::arg("lo"), py::arg("hi"), py::arg("b_init") = 0.0,
      py::arg("objective") = LineSearchObjective::Paper, py::arg("w").noconvert() = py::none(),
      "Exact O(m log m) line search over [min(lo,hi), max(lo,hi)] (never worse than the grid). Returns (b, count); "
      "with weights w (> 0 each) the count is the misclassified points' weight sum.");

  py::enum_<DenseLPStatus>(m, "DenseLPStatus", py::module_local())
      .value("optimal", DenseLPStatus::Optimal)
      .value("iteration_limit", DenseLPStatus::IterationLimit)
      .value("unbounded", DenseLPStatus::Unbounded)
      .value("certificate_failed", DenseLPStatus::CertificateFailed);

  py::class_<DenseLPResult>(m, "DenseLPResult", py::module_local(),
                            "One DenseLP.solve: status, x = [u+, u-, gamma, xi], the row duals, both objectives, "
                            "pivots, and the certificate's primal and dual infeasibilities.")
      .def_readonly("status", &DenseLPResult::status)
      .def_property_readonly("x", [](const DenseLPResult& r) { return to_numpy(r.x); })
      .def_property_readonly("dual", [](const DenseLPResult& r) { return to_numpy(r.dual); })
      .def_readonly("objective", &DenseLPResult::objective)
      .def_readonly("dual_objective", &DenseLPResult::dual_objective)
      .def_readonly("iterations", &DenseLPResult::iterations)
      .def_readonly("primal_infeasibility", &DenseLPResult::primal_infeasibility)
      .def_readonly("dual_infeasibility", &DenseLPResult::dual_infeasibility);

  py::class_<GsvmDenseLP>(m, "DenseLP", py::module_local(),
                          "Dense primal simplex for LP (23) (delta=None: model (6), q=1), warm-started across nu; "
                          "see cpp/include/svmopt/dense_lp.hpp.")
      .def(py::init([](const DoubleArray& K, const DoubleArray& y, const OptionalArray& delta) {
             const MatrixView kv = view2d(K, "K");
             if (kv.rows != kv.cols) throw py::value_error("K must be square");
             const Contiguous1d<double> yc(y, "y", kv.rows);
             std::optional<Contiguous1d<double>> dc;
             if (delta) dc.emplace(*delta, "delta", kv.rows);
             py::gil_scoped_release release;
             return std::make_unique<GsvmDenseLP>(kv, yc.data(), dc ? dc->data() : nullptr);
           }),
           py::arg("K").noconvert(), py::arg("y").noconvert(), py::arg("delta").noconvert() = py::none())
      .def_property_readonly("m", &GsvmDenseLP::m)
      .def(
          "solve",
          [](GsvmDenseLP& self, double nu, Index max_iter, double tol) {
            py::gil_scoped_release release;
            return self.solve(nu, max_iter, tol);
          },
          py::arg("nu"), py::arg("max_iter") = 0, py::arg("tol") = 1e-7,
          "Solve for this nu (> 0), warm-started from the previous solve's basis.");

  // ---------------------------------------------------------------- the reduced model's normal pass (reduced.hpp)
  m.def(
      "reduced_normal_pass",
      [](const OptionalArray& Phi, const OptionalArray& X, const OptionalArray& Z,
         const std::optional<KernelParams>& params, const OptionalArray& extra, const OptionalArray& theta,
         const OptionalArray& B, const OptionalArray& V, const OptionalArray& F_out, const OptionalArray& Q,
         int n_threads, Index block) {
        MatrixView bv, vv, qv;
        const RowSource src = row_source(Phi, X, Z, params);
        const Index n = src.n;
        std::optional<Contiguous1d<double>> ec, tc;
        if (extra) ec.emplace(*extra, "extra", n);
        if (theta) tc.emplace(*theta, "theta", n);
        if (B) bv = view2d(*B, "B");
        if (Q) qv = view2d(*Q, "Q");
        double* out = nullptr;
        if (V) {
          vv = view2d(*V, "V");
          if (!F_out) throw py::value_error("F_out is needed with V");
          DoubleArray o = *F_out;
          if (o.ndim() != 2 || o.shape(0) != n || o.shape(1) != vv.cols || !(o.flags() & py::array::c_style) ||
              !o.writeable()) {
            throw py::value_error("F_out must be a writeable C-contiguous array of shape (" + std::to_string(n) +
                                  ", " + std::to_string(vv.cols) + ")");
          }
          out = o.mutable_data();
        } else if (F_out) {
          throw py::value_error("F_out is only written with V");
        }
        ensure_blas();
        NormalSums sums;
        {
          py::gil_scoped_release release;
          sums = reduced_normal_pass(src.Phi, src.X, src.Z, src.params, ec ? ec->data() : nullptr, tc ? tc->data() : nullptr, bv, vv,
                                     out, qv, n_threads, block);
        }
        py::object G = theta ? py::cast(sums.G) : py::none();
        py::object H = B ? py::cast(sums.H) : py::none();
        if (Q) return py::tuple(py::make_tuple(G, H, py::cast(sums.Hq)));
        return py::tuple(py::make_tuple(G, H));
      },
      py::kw_only(), py::arg("Phi").noconvert() = py::none(), py::arg("X").noconvert() = py::none(),
      py::arg("Z").noconvert() = py::none(), py::arg("params") = py::none(), py::arg("extra").noconvert() = py::none(),
      py::arg("theta").noconvert() = py::none(), py::arg("B").noconvert() = py::none(),
      py::arg("V").noconvert() = py::none(), py::arg("F_out").noconvert() = py::none(),
      py::arg("Q").noconvert() = py::none(), py::arg("n_threads") = 0, py::arg("block") = 4096,
      "One pass of the reduced LP's interior-point solver over u_i = [Phi_i, 1, extra_i] (extra optional; Phi given or "
      "K(X, Z) computed block by block): returns (G, H) with G = sum_i theta_i u_i u_i' (None without theta) and "
      "H = U'B (None without B, n x k), and writes F = U V (V: p x k2) into F_out (n x k2); with Q = [g, h, k] (n x 3) "
      "also Hq = U'b, b_i = g_i e_i (1 + k_i e_i), e_i = h_i - F_i0, returned third.");
}

}  // namespace svmopt::bind
