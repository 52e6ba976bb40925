// Bindings of cpp/include/svmopt/robust.hpp and cpp/include/svmopt/line_search.hpp (paper 000).
#include <pybind11/stl.h>

#include <memory>

#include <cstdint>
#include <string>
#include <tuple>

#include "bindings.hpp"
#include "svmopt/dense_lp.hpp"
#include "svmopt/line_search.hpp"
#include "svmopt/robust.hpp"

namespace svmopt::bind {

namespace {

using IntArray = py::array_t<std::int32_t, py::array::c_style>;
using Vec1d = py::array_t<double, py::array::c_style>;

const double* vec_arg(const Vec1d& a, Index n, const char* name) {
  if (a.ndim() != 1 || a.shape(0) != n) {
    throw py::value_error(std::string(name) + " must be a 1-D array of length " + std::to_string(n));
  }
  return a.data();
}

// delta = None (deterministic model: nullptr) or a 1-D array of length n, converted into `keep` (which must outlive
// the returned pointer).
const double* optional_delta(const py::object& delta, Index n, Vec1d& keep) {
  if (delta.is_none()) return nullptr;
  keep = delta.cast<Vec1d>();
  return vec_arg(keep, n, "delta");
}

LineSearchObjective objective_arg(const std::string& name) {
  if (name == "paper") return LineSearchObjective::Paper;
  if (name == "decision") return LineSearchObjective::Decision;
  throw py::value_error("objective must be 'paper' or 'decision', got '" + name + "'");
}

}  // namespace

// Validate (s, y), release the GIL around `search(sp, yp, n, objective)` and return (b, count).
template <typename Search>
std::tuple<double, Index> run_line_search(const Vec1d& s, const Vec1d& y, const std::string& objective,
                                          Search&& search) {
  const Index n = s.ndim() == 1 ? s.shape(0) : -1;
  const double* sp = vec_arg(s, n, "s");
  const double* yp = vec_arg(y, n, "y");
  const auto obj = objective_arg(objective);
  LineSearchResult r;
  {
    py::gil_scoped_release release;
    r = search(sp, yp, n, obj);
  }
  return std::make_tuple(r.b, r.count);
}

void bind_robust(py::module_& m) {
  m.def(
      "robust_lp_matrix",
      [](const DoubleArray& K, const Vec1d& y, const py::object& delta, int n_threads) {
        const MatrixView kv = view2d(K, "K");
        if (kv.rows != kv.cols) throw py::value_error("K must be square");
        const Index n = kv.rows;
        const double* yp = vec_arg(y, n, "y");
        Vec1d darr;
        const double* dp = optional_delta(delta, n, darr);
        const Index nnz = robust_lp_nnz(n);
        IntArray start(static_cast<py::ssize_t>(3 * n + 2));
        IntArray index(static_cast<py::ssize_t>(nnz));
        Vec1d value(static_cast<py::ssize_t>(nnz));
        {
          py::gil_scoped_release release;
          robust_lp_matrix(kv, yp, dp, start.mutable_data(), index.mutable_data(), value.mutable_data(),
                           n_threads);
        }
        return std::make_tuple(start, index, value);
      },
      py::arg("K").noconvert(), py::arg("y"), py::arg("delta") = py::none(), py::arg("n_threads") = 0,
      "CSC arrays (start int32 [3m+2], index int32, value float64) of the constraint matrix "
      "A = [DKD - delta r^T, -DKD - delta r^T, -y, I] of LP (23) (delta=None: model (6), q=1), "
      "columns [u+, u-, gamma, xi]. K must be symmetric.");

  m.def(
      "line_search_count",
      [](const Vec1d& s, const Vec1d& y, double b, const std::string& objective) {
        const Index n = s.ndim() == 1 ? s.shape(0) : -1;
        const double* sp = vec_arg(s, n, "s");
        const double* yp = vec_arg(y, n, "y");
        return line_search_count(sp, yp, n, b, objective_arg(objective));
      },
      py::arg("s"), py::arg("y"), py::arg("b"), py::arg("objective") = "paper",
      "Misclassified training points at threshold b: 'paper' = (10)/(27), 'decision' = the test-time rule.");

  m.def(
      "line_search_grid",
      [](const Vec1d& s, const Vec1d& y, double lo, double hi, Index n_grid, double b_init,
         const std::string& objective, int n_threads) {
        return run_line_search(s, y, objective, [&](const double* sp, const double* yp, Index n, auto obj) {
          return line_search_grid(sp, yp, n, lo, hi, n_grid, b_init, obj, n_threads);
        });
      },
      py::arg("s"), py::arg("y"), py::arg("lo"), py::arg("hi"), py::arg("n_grid") = 10000, py::arg("b_init") = 0.0,
      py::arg("objective") = "paper", py::arg("n_threads") = 0,
      "Paper grid line search (paper 000, Section 6): linspace(lo, hi, n_grid), first strict improvement, "
      "initial b = b_init. "
      "Returns (b, count).");

  m.def(
      "line_search_grid_naive",
      [](const Vec1d& s, const Vec1d& y, double lo, double hi, Index n_grid, double b_init,
         const std::string& objective, int n_threads) {
        return run_line_search(s, y, objective, [&](const double* sp, const double* yp, Index n, auto obj) {
          return line_search_grid_naive(sp, yp, n, lo, hi, n_grid, b_init, obj, n_threads);
        });
      },
      py::arg("s"), py::arg("y"), py::arg("lo"), py::arg("hi"), py::arg("n_grid") = 10000, py::arg("b_init") = 0.0,
      py::arg("objective") = "paper", py::arg("n_threads") = 0,
      "The paper code's O(n_grid m) grid scan (reference for line_search_grid, which gives the same (b, count) "
      "in O(m log m + n_grid)). Returns (b, count).");

  m.def(
      "line_search_exact",
      [](const Vec1d& s, const Vec1d& y, double lo, double hi, double b_init, const std::string& objective) {
        return run_line_search(s, y, objective, [&](const double* sp, const double* yp, Index n, auto obj) {
          return line_search_exact(sp, yp, n, lo, hi, b_init, obj);
        });
      },
      py::arg("s"), py::arg("y"), py::arg("lo"), py::arg("hi"), py::arg("b_init") = 0.0,
      py::arg("objective") = "paper",
      "Exact O(m log m) line search over [min(lo,hi), max(lo,hi)] (never worse than the grid). Returns (b, count).");

  py::class_<GsvmDenseLP>(m, "GsvmDenseLP", py::module_local(),
                          "Dense primal simplex for LP (23) (delta=None: model (6), q=1), warm-started across nu; "
                          "see cpp/include/svmopt/dense_lp.hpp. solve(nu) returns a dict with status "
                          "('optimal', 'iteration_limit', 'unbounded', 'certificate_failed'), x = [u+, u-, gamma, "
                          "xi], dual, objective, dual_objective, iterations, primal_infeasibility, "
                          "dual_infeasibility.")
      .def(py::init([](const DoubleArray& K, const Vec1d& y, const py::object& delta) {
             const MatrixView kv = view2d(K, "K");
             if (kv.rows != kv.cols) throw py::value_error("K must be square");
             const double* yp = vec_arg(y, kv.rows, "y");
             Vec1d darr;
             const double* dp = optional_delta(delta, kv.rows, darr);
             py::gil_scoped_release release;
             return std::make_unique<GsvmDenseLP>(kv, yp, dp);
           }),
           py::arg("K").noconvert(), py::arg("y"), py::arg("delta") = py::none())
      .def_property_readonly("m", &GsvmDenseLP::m)
      .def(
          "solve",
          [](GsvmDenseLP& self, double nu, Index max_iter, double tol) {
            DenseLPResult r;
            {
              py::gil_scoped_release release;
              r = self.solve(nu, max_iter, tol);
            }
            static const char* names[] = {"optimal", "iteration_limit", "unbounded", "certificate_failed"};
            py::dict out;
            out["status"] = names[static_cast<int>(r.status)];
            out["x"] = Vec1d(static_cast<py::ssize_t>(r.x.size()), r.x.data());
            out["dual"] = Vec1d(static_cast<py::ssize_t>(r.dual.size()), r.dual.data());
            out["objective"] = r.objective;
            out["dual_objective"] = r.dual_objective;
            out["iterations"] = r.iterations;
            out["primal_infeasibility"] = r.primal_infeasibility;
            out["dual_infeasibility"] = r.dual_infeasibility;
            return out;
          },
          py::arg("nu"), py::arg("max_iter") = 0, py::arg("tol") = 1e-7);
}

}  // namespace svmopt::bind
