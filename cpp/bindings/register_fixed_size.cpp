// svmopt._core.fixed_size: the fixed-size LS-SVM core (paper 002): nystrom.hpp, fast_cv.hpp, csa.hpp, tuning.hpp.
#include <pybind11/functional.h>
#include <pybind11/stl.h>

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "bindings.hpp"
#include "svmopt/csa.hpp"
#include "svmopt/fast_cv.hpp"
#include "svmopt/nystrom.hpp"
#include "svmopt/tuning.hpp"

namespace svmopt::bind {
namespace {

Statistics parse_statistics(const std::string& s) {
  if (s == "auto") return Statistics::Auto;
  if (s == "features") return Statistics::Features;
  if (s == "kernel") return Statistics::Kernel;
  throw py::value_error("statistics must be 'auto', 'features' or 'kernel', got '" + s + "'");
}

// A Python cost(x) -> real number, called with the GIL held; anything else it returns is a TypeError naming cost
// (not pybind's cast error). Its exceptions propagate to the caller.
CostFunction python_cost(const py::function& cost_fn) {
  return [cost_fn](const Vector& x) {
    const py::object r = cost_fn(to_numpy(x));
    if (!PyFloat_Check(r.ptr()) && !PyLong_Check(r.ptr()) && !PyObject_HasAttrString(r.ptr(), "__float__")) {
      throw py::type_error("cost must return a real number, got " +
                           std::string(py::str(py::type::of(r).attr("__name__"))));
    }
    return r.cast<double>();
  };
}

// time_limit of the searches: None (no limit) or seconds >= 0, as the core's Deadline takes it (negative: none).
double time_limit_seconds(const std::optional<double>& t) {
  if (!t) return -1.0;
  if (!(*t >= 0.0)) throw py::value_error("time_limit must be None or a number of seconds >= 0");
  return *t;
}

}  // namespace

void register_fixed_size(py::module_& m) {
  // ---------------------------------------------------------------- Nystrom features and accumulation
  m.def(
      "nystrom_features",
      [](const DoubleArray& X, const DoubleArray& PV, const KernelParams& p, const DoubleArray& P, int n_threads,
         Index chunk) {
        ensure_blas();
        const MatrixView xv = view2d(X, "X"), pv = view2d(PV, "PV"), pm = view2d(P, "P");
        DoubleArray out = empty2d(xv.rows, pm.cols);
        RowMatrixMap o(out.mutable_data(), xv.rows, pm.cols);
        {
          py::gil_scoped_release release;
          nystrom_features(xv, pv, p, pm, o, n_threads, chunk);
        }
        return out;
      },
      py::arg("X").noconvert(), py::arg("PV").noconvert(), py::arg("params"), py::arg("P").noconvert(),
      py::arg("n_threads") = 0, py::arg("chunk") = 0, "Nystrom features K(X, PV) P (n x m'), eq. (5).");

  py::class_<FoldAccumulator>(m, "FoldAccumulator", py::module_local(),
                              "Per-fold statistics G_u = Phi_u^T Phi_u, t_u = Phi_u^T Y_u of the extended features "
                              "[phi(x), 1], one row block at a time.")
      .def(py::init([](const DoubleArray& PV, const KernelParams& p, const DoubleArray& P, Index n_folds,
                       Index n_targets, Index n_features_linear, int n_threads, Index chunk, bool keep_features,
                       const std::string& statistics) {
             ensure_blas();
             return new FoldAccumulator(matrix_copy(PV, "PV"), p, matrix_copy(P, "P"), n_folds, n_targets,
                                        n_features_linear, n_threads, chunk, keep_features,
                                        parse_statistics(statistics));
           }),
           py::arg("PV").noconvert(), py::arg("params"), py::arg("P").noconvert(), py::arg("n_folds") = 1,
           py::arg("n_targets") = 1, py::arg("n_features_linear") = 0, py::arg("n_threads") = 0, py::arg("chunk") = 0,
           py::arg("keep_features") = false, py::arg("statistics") = "auto",
           "keep_features: also keep the features of every row added (n_rows x dim doubles, in the fold order they\n"
           "are computed in; with kernel statistics the kernel block, (m + 2) doubles a row) for predict_kept.\n"
           "statistics: 'features' accumulates Phi_e^T Phi_e; 'kernel' accumulates C^T C of C = [K(X, PV), 1] and\n"
           "transforms it by P on first read (n m^2 flops instead of 2 n m m' + n m'^2; the same results to\n"
           "rounding where Omega_mm's kept spectrum is well conditioned); 'auto' picks kernel where it is cheaper\n"
           "and that spectrum's lambda_max / lambda_min <= 1e5.")
      .def_property_readonly("n_folds", &FoldAccumulator::n_folds)
      .def_property_readonly("n_targets", &FoldAccumulator::n_targets)
      .def_property_readonly("dim", &FoldAccumulator::dim)
      .def_property_readonly("n_rows", &FoldAccumulator::n_rows)
      .def_property_readonly("keeps_features", &FoldAccumulator::keeps_features)
      .def_property_readonly("kernel_statistics", &FoldAccumulator::kernel_statistics)
      .def(
          "kept_features",
          [](const FoldAccumulator& acc) {
            DoubleArray out = empty2d(acc.n_rows(), acc.dim());
            RowMatrixMap o(out.mutable_data(), acc.n_rows(), acc.dim());
            {
              py::gil_scoped_release release;
              acc.kept_features(o);
            }
            return out;
          },
          "The kept features [phi(X), 1] of all rows added, in stream order (n_rows, dim) (keep_features=True).")
      .def(
          "predict_kept",
          [](const FoldAccumulator& acc, const DoubleArray& theta) {
            auto th = stack_in(theta, "theta");
            const Index cols = th.empty() ? acc.n_targets() : th[0].cols();
            DoubleArray out = empty2d(acc.n_rows(), cols);
            RowMatrixMap o(out.mutable_data(), acc.n_rows(), cols);
            {
              py::gil_scoped_release release;
              acc.predict_kept(th, o);
            }
            return out;
          },
          py::arg("theta").noconvert(),
          "Row i of all rows added (stream order) predicted by its own fold's model, Phi_e[i] @ theta[fold(i)]\n"
          "(n_rows, c) for c columns per fold model (the k targets, or a gamma path of models): the CV predictions from\n"
          "the kept features (keep_features=True), no stream-ordered Phi_e.")
      .def(
          "add",
          [](FoldAccumulator& acc, const DoubleArray& X, const DoubleArray& Y, const std::optional<Int32Array>& folds,
             const std::optional<DoubleArray>& out, const std::optional<DoubleArray>& weights) {
            ensure_blas();
            const MatrixView xv = view2d(X, "X"), yv = view2d(Y, "Y");
            std::optional<Contiguous1d<std::int32_t>> fc;
            if (folds) fc.emplace(*folds, "folds", xv.rows);
            std::optional<Contiguous1d<double>> wc;
            if (weights) wc.emplace(*weights, "weights", xv.rows);
            double* feats = nullptr;
            if (out) {  // the caller's buffer: no allocation, no copy
              DoubleArray o = *out;
              if (o.ndim() != 2 || o.shape(0) != xv.rows || o.shape(1) != acc.dim()) {
                throw py::value_error("out must have shape (" + std::to_string(xv.rows) + ", " +
                                      std::to_string(acc.dim()) + "), got " + shape_text(o));
              }
              if (!(o.flags() & py::array::c_style) || !o.writeable()) {
                throw py::value_error("out must be a writeable C-contiguous array");
              }
              feats = o.mutable_data();
            }
            py::gil_scoped_release release;
            acc.add(xv, yv, fc ? fc->data() : nullptr, feats, wc ? wc->data() : nullptr);
          },
          py::arg("X").noconvert(), py::arg("Y").noconvert(), py::arg("folds").noconvert() = py::none(),
          py::arg("out").noconvert() = py::none(), py::arg("weights").noconvert() = py::none(),
          "Add a row block: features, then the fold statistics G_u += Phi_u^T Phi_u, t_u += Phi_u^T Y_u (folds:\n"
          "the block's fold ids; None: fold 0). out: a (rows, dim) writeable C-contiguous array that also receives\n"
          "the block's features [phi(X), 1]. weights: (rows,) finite weights > 0, the weighted sums\n"
          "G_u += Phi_u^T W_u Phi_u, t_u += Phi_u^T W_u Y_u, yy_u += sum w y^2 (each row sqrt(w)-scaled on its way\n"
          "into the rank-k update, with either statistics); out and the kept features stay unscaled, counts count\n"
          "rows.")
      .def(
          "features",
          [](FoldAccumulator& acc, const DoubleArray& X) {
            ensure_blas();
            const MatrixView xv = view2d(X, "X");
            DoubleArray out = empty2d(xv.rows, acc.dim());
            {
              py::gil_scoped_release release;
              acc.features(xv, out.mutable_data());
            }
            return out;
          },
          py::arg("X").noconvert(), "Extended features [phi(X), 1] of a block (nothing accumulated).")
      .def(
          "results",
          [](const FoldAccumulator& acc, bool raw) {
            if (raw && !acc.kernel_statistics()) {
              throw py::value_error("raw=True: this accumulator holds feature statistics (kernel_statistics is False)");
            }
            ensure_blas();
            const Index v = acc.n_folds(), k = acc.n_targets();
            std::vector<RowMatrix> Gs(v);
            std::vector<Eigen::MatrixXd> ts(v);
            {
              py::gil_scoped_release release;  // the first read of kernel statistics projects them (dgemm)
              for (Index u = 0; u < v; ++u) {
                Gs[u] = raw ? acc.kernel_gram(u) : acc.gram(u);
                ts[u] = raw ? acc.kernel_cross(u) : acc.cross(u);
              }
            }
            const Index p = Gs[0].rows();
            DoubleArray G({v, p, p}), t({v, p, k}), yy({v, k});
            Int64Array counts(v);
            for (Index u = 0; u < v; ++u) {
              Eigen::Map<RowMatrix>(G.mutable_data(u, 0, 0), p, p) = Gs[u];
              Eigen::Map<RowMatrix>(t.mutable_data(u, 0, 0), p, k) = ts[u];
              for (Index j = 0; j < k; ++j) yy.mutable_at(u, j) = acc.yy(u)(j);
              counts.mutable_at(u) = acc.count(u);
            }
            return std::make_tuple(G, t, yy, counts);
          },
          py::arg("raw") = false,
          "(G (v, p, p), t (v, p, k), yy (v, k), counts (v,)) per fold. raw=True (kernel statistics only): C_u^T C_u\n"
          "and C_u^T Y_u of C = [K(X, PV), 1] ((m + 1) rows), to be summed over data partitions and then mapped by\n"
          "project_statistics.")
      .def(
          "totals",
          [](const FoldAccumulator& acc) {
            ensure_blas();
            std::pair<Eigen::MatrixXd, Eigen::MatrixXd> r;
            {
              py::gil_scoped_release release;
              r = acc.totals();
            }
            return std::make_tuple(to_numpy(r.first), to_numpy(r.second));
          },
          "(G, t) summed over the folds, (p, p) and (p, k): the statistics of the final fit (7) (with kernel\n"
          "statistics the raw sums mapped once).")
      .def(
          "fold_solve",
          [](FoldAccumulator& acc, double gamma, bool regularize_bias) {
            ensure_blas();
            std::vector<Eigen::MatrixXd> theta;
            {
              py::gil_scoped_release release;
              theta = acc.fold_solve(gamma, regularize_bias);
            }
            return stack_out(theta);
          },
          py::arg("gamma"), py::arg("regularize_bias") = true,
          "The fast CV's fold models theta (v, p, k), eqs. (19)-(21), from the accumulated statistics in place\n"
          "(the same as fast_cv_solve(*results()[:2], ...) without copying G out).");

  // ---------------------------------------------------------------- fast CV (19)-(21) and ridge (7)
  m.def(
      "fast_cv_solve",
      [](const DoubleArray& G, const DoubleArray& t, double gamma, bool regularize_bias, int n_threads) {
        ensure_blas();
        auto Gs = stack_in(G, "G");
        auto ts = stack_in(t, "t");
        std::vector<Eigen::MatrixXd> theta;
        {
          py::gil_scoped_release release;
          theta = fast_cv_solve(Gs, ts, gamma, regularize_bias, n_threads);
        }
        return stack_out(theta);
      },
      py::arg("G").noconvert(), py::arg("t").noconvert(), py::arg("gamma"), py::arg("regularize_bias") = true,
      py::arg("n_threads") = 0, "theta_v = (G - G_v + R/gamma)^{-1} (c - t_v) for every fold v, eqs. (19)-(21).");
  m.def(
      "kernel_statistics_preferred",
      [](const DoubleArray& P, Index n_targets) { return kernel_statistics_preferred(matrix_copy(P, "P"), n_targets); },
      py::arg("P").noconvert(), py::arg("n_targets") = 1,
      "Whether FoldAccumulator(statistics='auto') accumulates kernel statistics for the projection P (m x m'):\n"
      "cheaper per row than the features, and lambda_max / lambda_min of P's spectrum (from its column norms) <= 1e5.");
  m.def(
      "project_statistics",
      [](const DoubleArray& G, const DoubleArray& t, const DoubleArray& P) {
        ensure_blas();
        auto Gs = stack_in(G, "G");
        auto ts = stack_in(t, "t");
        const RowMatrix Pm = matrix_copy(P, "P");
        std::pair<std::vector<Eigen::MatrixXd>, std::vector<Eigen::MatrixXd>> r;
        {
          py::gil_scoped_release release;
          r = project_statistics(Gs, ts, Pm);
        }
        const Index v = static_cast<Index>(r.first.size()), p = Pm.cols() + 1, k = ts.empty() ? 0 : ts[0].cols();
        DoubleArray Go({v, p, p}), to({v, p, k});
        for (Index u = 0; u < v; ++u) {
          Eigen::Map<RowMatrix>(Go.mutable_data(u, 0, 0), p, p) = symmetric_from_lower(r.first[u]);
          Eigen::Map<RowMatrix>(to.mutable_data(u, 0, 0), p, k) = r.second[u];
        }
        return std::make_tuple(Go, to);
      },
      py::arg("G").noconvert(), py::arg("t").noconvert(), py::arg("P").noconvert(),
      "Feature statistics from kernel statistics (FoldAccumulator.results(raw=True), summed over partitions):\n"
      "G_u = P~^T Gk_u P~, t_u = P~^T tk_u with P~ = [[P, 0], [0, 1]] (G (v, m+1, m+1), t (v, m+1, k), P (m, m')).");
  m.def(
      "ridge_solve",
      [](const DoubleArray& G, const DoubleArray& t, double gamma, bool regularize_bias) {
        ensure_blas();
        const Eigen::MatrixXd Gm = matrix_copy(G, "G"), tm = matrix_copy(t, "t");
        Eigen::MatrixXd theta;
        {
          py::gil_scoped_release release;
          theta = ridge_solve(Gm, tm, gamma, regularize_bias);
        }
        return to_numpy(theta);
      },
      py::arg("G").noconvert(), py::arg("t").noconvert(), py::arg("gamma"), py::arg("regularize_bias") = true,
      "theta = (G + R/gamma)^{-1} t, eq. (7).");
  m.def(
      "fold_predict",
      [](const DoubleArray& Phi, const Int32Array& folds, const DoubleArray& theta, int n_threads) {
        const MatrixView pv = view2d(Phi, "Phi");
        const Contiguous1d<std::int32_t> f(folds, "folds", pv.rows);
        auto th = stack_in(theta, "theta");
        const Index k = th.empty() ? 0 : th[0].cols();
        DoubleArray out = empty2d(pv.rows, k);
        RowMatrixMap o(out.mutable_data(), pv.rows, k);
        {
          py::gil_scoped_release release;
          fold_predict(pv, f.data(), th, o, n_threads);
        }
        return out;
      },
      py::arg("Phi").noconvert(), py::arg("folds").noconvert(), py::arg("theta").noconvert(),
      py::arg("n_threads") = 0, "Row i: Phi[i] @ theta[folds[i]] (CV predictions).");

  m.def(
      "fast_cv_holdout",
      [](const DoubleArray& Phi, const DoubleArray& Y, const Int32Array& folds, Index n_folds, const DoubleArray& G,
         const DoubleArray& t, double gamma, bool regularize_bias, int n_threads) {
        ensure_blas();
        const MatrixView pv = view2d(Phi, "Phi");
        const MatrixView yv = view2d(Y, "Y");
        const Contiguous1d<std::int32_t> f(folds, "folds", pv.rows);
        const Eigen::MatrixXd Gm = matrix_copy(G, "G"), tm = matrix_copy(t, "t");
        DoubleArray out = empty2d(pv.rows, yv.cols);
        RowMatrixMap o(out.mutable_data(), pv.rows, yv.cols);
        {
          py::gil_scoped_release release;
          fast_cv_holdout(pv, yv, f.data(), n_folds, Gm, tm, gamma, regularize_bias, o, n_threads);
        }
        return out;
      },
      py::arg("Phi").noconvert(), py::arg("Y").noconvert(), py::arg("folds").noconvert(), py::arg("n_folds"),
      py::arg("G").noconvert(), py::arg("t").noconvert(), py::arg("gamma"), py::arg("regularize_bias") = true,
      py::arg("n_threads") = 0,
      "CV predictions (n x k) by the holdout identity Y_u - f_u = (I - H_uu)^{-1} (Y_u - Phi_u theta) from the\n"
      "whole-data G, t: the same numbers as fast_cv_solve + fold_predict, cheaper for small folds.");

  // ---------------------------------------------------------------- CSA (paper 002, Appendix)
  m.def(
      "csa_acceptance",
      [](const DoubleArray& E, double Tac) {
        double var = 0.0;
        const Vector A = csa_acceptance(vector_copy(E, "energies"), Tac, &var);
        return std::make_tuple(to_numpy(A), var);
      },
      py::arg("energies").noconvert(), py::arg("Tac"), "CSA-MwVC acceptance probabilities A_i and their variance.");
  m.def("csa_update_tac", &csa_update_tac, py::arg("Tac"), py::arg("variance"), py::arg("q"), py::arg("alpha") = 0.05,
        py::arg("target_ratio") = 0.99, "Variance control of the acceptance temperature.");

  py::class_<CSAResult>(m, "CSAResult", py::module_local(), "The best point of a CSA run and its history.")
      .def_property_readonly("x", [](const CSAResult& r) { return to_numpy(r.x_best); })
      .def_readonly("fun", &CSAResult::f_best)
      .def_property_readonly("history", [](const CSAResult& r) { return to_numpy(r.history); },
                             "One row per evaluation: x..., cost.")
      .def_readonly("Tac", &CSAResult::Tac_final)
      .def_readonly("n_stages", &CSAResult::n_stages)
      .def_readonly("timed_out", &CSAResult::timed_out);
  m.def(
      "csa_minimize",
      [](const py::function& cost_fn, const DoubleArray& x0, const DoubleArray& lower, const DoubleArray& upper,
         Index max_evals, Index inner, double T0, double Tac0, double alpha, double target_ratio,
         std::uint64_t seed, const std::optional<double>& time_limit) {
        const CostFunction cost = python_cost(cost_fn);
        const RowMatrix x0m = matrix_copy(x0, "x0");
        const Vector lo = vector_copy(lower, "lower", x0m.cols()), hi = vector_copy(upper, "upper", x0m.cols());
        CSAOptions opt;
        opt.max_evals = max_evals;
        opt.inner = inner;
        opt.T0 = T0;
        opt.Tac0 = Tac0;
        opt.alpha = alpha;
        opt.target_ratio = target_ratio;
        opt.seed = seed;
        opt.deadline = Deadline(time_limit_seconds(time_limit));
        return csa_minimize(cost, x0m, lo, hi, opt);
      },
      py::arg("cost"), py::arg("x0").noconvert(), py::arg("lower").noconvert(), py::arg("upper").noconvert(),
      py::arg("max_evals") = 90, py::arg("inner") = 5, py::arg("T0") = 1.0, py::arg("Tac0") = 0.0,
      py::arg("alpha") = 0.05, py::arg("target_ratio") = 0.99, py::arg("seed") = 0,
      py::arg("time_limit") = py::none(),
      "Coupled simulated annealing with variance control (CSA-MwVC) from the q initial states x0 (q x dim); "
      "cost(x) -> float is called with the GIL held. time_limit: seconds (None: none), checked between "
      "evaluations; a run it stops returns its best state so far with timed_out set.");

  // ---------------------------------------------------------------- tuning in the core (tuning.hpp)
  m.def(
      "nystrom_projection",
      [](const DoubleArray& PV, const KernelParams& p, int n_threads) {
        ensure_blas();
        const MatrixView pv = view2d(PV, "PV");
        NystromProjection r;
        {
          py::gil_scoped_release release;
          r = nystrom_projection(pv, p, n_threads);
        }
        return std::make_tuple(to_numpy(r.P), to_numpy(r.lambda));
      },
      py::arg("PV").noconvert(), py::arg("params"), py::arg("n_threads") = 0,
      "(P, lambda): P = U' Lambda'^{-1/2} (m x m') from eig(K(PV, PV)), eigenpairs decreasing, those with lambda <= "
      "m eps lambda_max dropped (Section 3.1).");

  m.def("holdout_cheaper", &holdout_cheaper, py::arg("n"), py::arg("p"), py::arg("v"),
        "Whether the holdout identity beats v Cholesky solves at n rows, p features, v folds.");

  py::class_<SearchResult>(m, "SearchResult", py::module_local(),
                           "A tuning search: the best point ever evaluated, every evaluation (x..., cost), and what "
                           "each stage spent.")
      .def_property_readonly("x", [](const SearchResult& r) { return to_numpy(r.x); })
      .def_readonly("fun", &SearchResult::fun)
      .def_property_readonly("history", [](const SearchResult& r) { return to_numpy(r.history); })
      .def_readonly("n_csa", &SearchResult::n_csa)
      .def_readonly("n_simplex", &SearchResult::n_simplex)
      .def_readonly("Tac", &SearchResult::Tac)
      .def_readonly("n_stages", &SearchResult::n_stages)
      .def_readonly("timed_out", &SearchResult::timed_out);
  m.def(
      "nelder_mead",
      [](const py::function& cost_fn, const DoubleArray& x0, const std::optional<DoubleArray>& lower,
         const std::optional<DoubleArray>& upper, Index max_evals, double step, double tol,
         const std::optional<double>& time_limit) {
        const Vector x = vector_copy(x0, "x0");
        if (lower.has_value() != upper.has_value()) throw py::value_error("give both lower and upper, or neither");
        Vector lo, hi;
        if (lower) {
          lo = vector_copy(*lower, "lower", x.size());
          hi = vector_copy(*upper, "upper", x.size());
        }
        return nelder_mead(python_cost(cost_fn), x, lower ? &lo : nullptr, lower ? &hi : nullptr, max_evals, step,
                           tol, Deadline(time_limit_seconds(time_limit)));
      },
      py::arg("cost"), py::arg("x0").noconvert(), py::arg("lower").noconvert() = py::none(),
      py::arg("upper").noconvert() = py::none(), py::arg("max_evals") = 70, py::arg("step") = 0.5,
      py::arg("tol") = 1e-4, py::arg("time_limit") = py::none(),
      "Nelder-Mead (1, 2, 0.5, 0.5) from the simplex x0, x0 + step e_i (Section 6.3); evaluated points clipped into "
      "the bounds; cost(x) -> float is called with the GIL held.");
  m.def(
      "csa_simplex",
      [](const py::function& cost_fn, const DoubleArray& x0, const DoubleArray& lower, const DoubleArray& upper,
         Index n_csa, Index n_simplex, Index inner, std::uint64_t seed, double step,
         const std::optional<double>& time_limit) {
        const RowMatrix x0m = matrix_copy(x0, "x0");
        const double limit = time_limit_seconds(time_limit);
        return csa_simplex(python_cost(cost_fn), x0m, vector_copy(lower, "lower", x0m.cols()),
                           vector_copy(upper, "upper", x0m.cols()), n_csa, n_simplex, inner, seed, step, limit);
      },
      py::arg("cost"), py::arg("x0").noconvert(), py::arg("lower").noconvert(), py::arg("upper").noconvert(),
      py::arg("n_csa") = 90, py::arg("n_simplex") = 70, py::arg("inner") = 5, py::arg("seed") = 0,
      py::arg("step") = 0.5, py::arg("time_limit") = py::none(),
      "The paper's tuning (Section 6.3): CSA for n_csa costs (0: none), then Nelder-Mead for n_simplex from the CSA "
      "best; the best point over all evaluations. cost(x) -> float is called with the GIL held. time_limit: seconds "
      "for both stages (None: none), checked between evaluations (timed_out: it stopped the search).");

  py::enum_<CVTask>(m, "CVTask", py::module_local(),
                    "The CV error: classification = misclassification rate of sign(f); regression = MSE.")
      .value("classification", CVTask::Classification)
      .value("regression", CVTask::Regression);
  py::class_<CVCost>(m, "CVCost", py::module_local(),
                     "The fast v-fold CV cost (19)-(21) of rows held in memory, computed in the core (the in-memory "
                     "path of svmopt.fixed_size.cv_engine.CVEngine); keeps X alive.")
      .def(py::init([](const DoubleArray& X, const DoubleArray& Y, const Int32Array& folds, Index n_folds,
                       const DoubleArray& PV, const KernelParams& params, bool tune_rbf, Index n_features_linear,
                       CVTask task, const OptionalInt64& rows, const std::optional<DoubleArray>& mean,
                       const std::optional<DoubleArray>& scale, Index block, bool regularize_bias,
                       std::int64_t feature_budget, int n_threads, Index cache_size, const std::string& statistics,
                       const std::optional<DoubleArray>& weights) {
             ensure_blas();
             const Statistics st = parse_statistics(statistics);
             CVRows data;
             data.X = view2d(X, "X");
             data.rows = index_vector(rows, "rows");
             if (mean.has_value() != scale.has_value()) throw py::value_error("give both mean and scale, or neither");
             if (mean) {
               data.mean = vector_copy(*mean, "mean", data.X.cols);
               data.scale = vector_copy(*scale, "scale", data.X.cols);
             }
             data.block = block;
             data.Y = matrix_copy(Y, "Y");
             data.folds = Contiguous1d<std::int32_t>(folds, "folds", data.Y.rows()).to_vector();
             data.n_folds = n_folds;
             if (weights) data.weights = vector_copy(*weights, "weights", data.Y.rows());
             return std::make_unique<CVCost>(std::move(data), matrix_copy(PV, "PV"), params, tune_rbf,
                                             n_features_linear, task, regularize_bias, feature_budget, n_threads,
                                             cache_size, st);
           }),
           py::keep_alive<1, 2>(), py::arg("X").noconvert(), py::arg("Y").noconvert(), py::arg("folds").noconvert(),
           py::arg("n_folds"), py::arg("PV").noconvert(), py::arg("params"), py::arg("tune_rbf"),
           py::arg("n_features_linear"), py::arg("task"), py::arg("rows").noconvert() = py::none(),
           py::arg("mean").noconvert() = py::none(), py::arg("scale").noconvert() = py::none(),
           py::arg("block") = 65536, py::arg("regularize_bias") = true, py::arg("feature_budget") = 1 << 30,
           py::arg("n_threads") = 0, py::arg("cache_size") = 4, py::arg("statistics") = "auto",
           py::arg("weights").noconvert() = py::none(),
           "weights: (n,) finite weights > 0 per problem row (None: unweighted): the weighted fold sums\n"
           "(FoldAccumulator.add) and the weighted CV cost sum_i w_i L_i / (k sum_i w_i); no holdout identity.")
      .def(
          "cost",
          [](CVCost& cv, double gamma, double sigma2) {
            py::gil_scoped_release release;
            return cv.cost(gamma, sigma2);
          },
          py::arg("gamma"), py::arg("sigma2"), "The CV cost at (gamma, sigma2).")
      .def(
          "fit",
          [](CVCost& cv, double gamma, double sigma2) {
            std::pair<RowMatrix, Eigen::MatrixXd> r;
            {
              py::gil_scoped_release release;
              r = cv.fit(gamma, sigma2);
            }
            py::object P = r.first.size() ? py::object(to_numpy(r.first)) : py::object(py::none());
            return py::make_tuple(P, to_numpy(r.second));
          },
          py::arg("gamma"), py::arg("sigma2"), "(P or None, theta = [w; b]) of the final fit (7) on all rows.")
      .def_property_readonly("n_rows", &CVCost::n_rows)
      .def_property_readonly("n_passes", &CVCost::n_passes)
      .def_property_readonly("n_evals", &CVCost::n_evals)
      .def_property_readonly("holdout", &CVCost::holdout);
  m.def(
      "tune_cv",
      [](CVCost& cv, const DoubleArray& x0, const DoubleArray& lower, const DoubleArray& upper, bool tune_gamma,
         bool tune_sigma2, double gamma, double sigma2, Index n_csa, Index n_simplex, Index inner,
         std::uint64_t seed, double step, const std::optional<double>& time_limit) {
        const RowMatrix x0m = matrix_copy(x0, "x0");
        const Vector lo = vector_copy(lower, "lower", x0m.cols()), hi = vector_copy(upper, "upper", x0m.cols());
        const double limit = time_limit_seconds(time_limit);
        py::gil_scoped_release release;
        return tune_cv(cv, x0m, lo, hi, tune_gamma, tune_sigma2, gamma, sigma2, n_csa, n_simplex, inner, seed, step,
                       limit);
      },
      py::arg("cv"), py::arg("x0").noconvert(), py::arg("lower").noconvert(), py::arg("upper").noconvert(),
      py::arg("tune_gamma"), py::arg("tune_sigma2"), py::arg("gamma"), py::arg("sigma2"), py::arg("n_csa") = 90,
      py::arg("n_simplex") = 70, py::arg("inner") = 5, py::arg("seed") = 0, py::arg("step") = 0.5,
      py::arg("time_limit") = py::none(),
      "The estimator's tuning of (log gamma, log sigma2) by CSA + simplex on cv.cost, all in the core (GIL "
      "released); a cost that fails counts as +inf. time_limit: seconds (None: none), checked between evaluations.");
}

}  // namespace svmopt::bind
