// Bindings of the fixed-size LS-SVM core (paper 002): entropy.hpp, nystrom.hpp, fast_cv.hpp, csa.hpp.
#include <pybind11/eigen.h>
#include <pybind11/functional.h>
#include <pybind11/stl.h>

#include <cstdint>
#include <vector>

#include "bindings.hpp"
#include "svmopt/csa.hpp"
#include "svmopt/entropy.hpp"
#include "svmopt/fast_cv.hpp"
#include "svmopt/nystrom.hpp"

namespace svmopt::bind {
namespace {

using CArray = py::array_t<double, py::array::c_style | py::array::forcecast>;
using I64Array = py::array_t<std::int64_t, py::array::c_style | py::array::forcecast>;
using I32Array = py::array_t<std::int32_t, py::array::c_style | py::array::forcecast>;

std::vector<Index> to_index(const py::object& o) {
  std::vector<Index> out;
  if (o.is_none()) return out;
  const I64Array a = py::cast<I64Array>(o);
  if (a.ndim() != 1) throw py::value_error("index arrays must be 1-D");
  out.assign(a.data(), a.data() + a.shape(0));
  return out;
}

RowMatrix to_rowmatrix(const DoubleArray& a, const char* name) {
  const MatrixView v = view2d(a, name);
  RowMatrix M(v.rows, v.cols);
  for (Index i = 0; i < v.rows; ++i)
    for (Index j = 0; j < v.cols; ++j) M(i, j) = v(i, j);
  return M;
}

std::vector<Eigen::MatrixXd> stack_in(const CArray& a, const char* name) {
  if (a.ndim() != 3) throw py::value_error(std::string(name) + " must be a 3-D array (folds first)");
  std::vector<Eigen::MatrixXd> out(a.shape(0));
  for (py::ssize_t u = 0; u < a.shape(0); ++u) {
    out[u] = Eigen::Map<const RowMatrix>(a.data(u, 0, 0), a.shape(1), a.shape(2));
  }
  return out;
}

CArray stack_out(const std::vector<Eigen::MatrixXd>& ms) {
  const py::ssize_t v = static_cast<py::ssize_t>(ms.size());
  const py::ssize_t r = v ? ms[0].rows() : 0, c = v ? ms[0].cols() : 0;
  CArray out({v, r, c});
  for (py::ssize_t u = 0; u < v; ++u) Eigen::Map<RowMatrix>(out.mutable_data(u, 0, 0), r, c) = ms[u];
  return out;
}

}  // namespace

void bind_fixed_size(py::module_& m) {
  // ---------------------------------------------------------------- entropy (Algorithm 1, (12), (14))
  m.def(
      "entropy_log_offdiag",
      [](const DoubleArray& Z, const py::object& idx, int n_threads) {
        const MatrixView zv = view2d(Z, "Z");
        const auto id = to_index(idx);
        py::gil_scoped_release release;
        return entropy_log_offdiag(zv, id, n_threads);
      },
      py::arg("Z").noconvert(), py::arg("idx"), py::arg("n_threads") = 0,
      "L = log sum_{k != l} exp(-||Z_k - Z_l||^2) over the rows idx of the scaled inputs Z = X / (2h).");
  m.def(
      "entropy_log_rowsum",
      [](const DoubleArray& Z, const py::object& idx, Index point, Index skip) {
        return entropy_log_rowsum(view2d(Z, "Z"), to_index(idx), point, skip);
      },
      py::arg("Z").noconvert(), py::arg("idx"), py::arg("point"), py::arg("skip"),
      "LSE_{l != skip}(-||Z_point - Z_{idx_l}||^2).");
  m.def(
      "entropy_select",
      [](const DoubleArray& Z, Index m_pv, const py::object& labels, const py::object& init, Index max_proposals,
         Index window, double tol, std::uint64_t seed, bool recompute) {
        const MatrixView zv = view2d(Z, "Z");
        std::vector<std::int64_t> lab;
        if (!labels.is_none()) {
          const I64Array a = py::cast<I64Array>(labels);
          lab.assign(a.data(), a.data() + a.size());
        }
        const auto in = to_index(init);
        EntropySelectOptions opt;
        opt.max_proposals = max_proposals;
        opt.window = window;
        opt.tol = tol;
        opt.seed = seed;
        opt.recompute = recompute;
        EntropySelectResult r;
        {
          py::gil_scoped_release release;
          r = entropy_select(zv, m_pv, lab, in, opt);
        }
        py::dict d;
        d["idx"] = py::array_t<std::int64_t>(static_cast<py::ssize_t>(r.idx.size()), r.idx.data());
        d["log_offdiag"] = r.log_offdiag;
        d["n_proposals"] = r.n_proposals;
        d["n_accepted"] = r.n_accepted;
        d["n_recomputes"] = r.n_recomputes;
        d["n_kernel_evals"] = r.n_kernel_evals;
        d["stopped_early"] = r.stopped_early;
        return d;
      },
      py::arg("Z").noconvert(), py::arg("m"), py::arg("labels") = py::none(), py::arg("init") = py::none(),
      py::arg("max_proposals") = 0, py::arg("window") = 0, py::arg("tol") = 1e-5, py::arg("seed") = 0,
      py::arg("recompute") = false,
      "Renyi-entropy prototype selection (Algorithm 1) with O(m d) log-domain swap updates; returns a dict.");
  m.def(
      "kde_psi",
      [](const py::array_t<double, py::array::c_style | py::array::forcecast>& x, double g, int r, bool derivative,
         int n_threads) -> py::object {
        if (x.ndim() != 1) throw py::value_error("x must be 1-D and sorted");
        double d = 0.0, psi;
        {
          py::gil_scoped_release release;
          psi = kde_psi(x.data(), x.shape(0), g, r, derivative ? &d : nullptr, n_threads);
        }
        if (derivative) return py::make_tuple(psi, d);
        return py::float_(psi);
      },
      py::arg("x_sorted"), py::arg("g"), py::arg("r"), py::arg("derivative") = false, py::arg("n_threads") = 0,
      "Kernel estimate (14) of psi_r (r = 4 or 6) on sorted data; with derivative=True also d psi_4/dg.");

  // ---------------------------------------------------------------- Nystrom features and accumulation
  m.def(
      "nystrom_features",
      [](const DoubleArray& X, const DoubleArray& PV, const KernelParams& p, const DoubleArray& P, int n_threads,
         Index chunk) {
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

  py::class_<FoldAccumulator>(m, "FoldAccumulator", py::module_local())
      .def(py::init([](const DoubleArray& PV, const KernelParams& p, const DoubleArray& P, Index n_folds,
                       Index n_targets, Index n_features_linear, int n_threads, Index chunk, bool keep_features) {
             return new FoldAccumulator(to_rowmatrix(PV, "PV"), p, to_rowmatrix(P, "P"), n_folds, n_targets,
                                        n_features_linear, n_threads, chunk, keep_features);
           }),
           py::arg("PV").noconvert(), py::arg("params"), py::arg("P").noconvert(), py::arg("n_folds") = 1,
           py::arg("n_targets") = 1, py::arg("n_features_linear") = 0, py::arg("n_threads") = 0, py::arg("chunk") = 0,
           py::arg("keep_features") = false,
           "keep_features: also keep the features of every row added (n_rows x dim doubles, in the fold order they\n"
           "are computed in) for predict_kept.")
      .def_property_readonly("n_folds", &FoldAccumulator::n_folds)
      .def_property_readonly("n_targets", &FoldAccumulator::n_targets)
      .def_property_readonly("dim", &FoldAccumulator::dim)
      .def_property_readonly("n_rows", &FoldAccumulator::n_rows)
      .def_property_readonly("keeps_features", &FoldAccumulator::keeps_features)
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
          [](const FoldAccumulator& acc, const CArray& theta) {
            auto th = stack_in(theta, "theta");
            DoubleArray out = empty2d(acc.n_rows(), acc.n_targets());
            RowMatrixMap o(out.mutable_data(), acc.n_rows(), acc.n_targets());
            {
              py::gil_scoped_release release;
              acc.predict_kept(th, o);
            }
            return out;
          },
          py::arg("theta"),
          "Row i of all rows added (stream order) predicted by its own fold's model, Phi_e[i] @ theta[fold(i)]\n"
          "(n_rows, k): the CV predictions from the kept features (keep_features=True), no stream-ordered Phi_e.")
      .def(
          "add",
          [](FoldAccumulator& acc, const DoubleArray& X, const DoubleArray& Y, const py::object& folds,
             bool return_features, const py::object& out_obj) -> py::object {
            const MatrixView xv = view2d(X, "X"), yv = view2d(Y, "Y");
            I32Array f;
            const std::int32_t* fp = nullptr;
            if (!folds.is_none()) {
              f = py::cast<I32Array>(folds);
              if (f.ndim() != 1 || f.shape(0) != xv.rows) throw py::value_error("folds must hold one id per row");
              fp = f.data();
            }
            py::array_t<double> feats;
            double* out = nullptr;
            if (!out_obj.is_none()) {  // the caller's buffer: no allocation, no copy
              if (!py::isinstance<py::array_t<double>>(out_obj)) throw py::type_error("out must be a float64 array");
              feats = py::reinterpret_borrow<py::array_t<double>>(out_obj);
              if (feats.ndim() != 2 || feats.shape(0) != xv.rows || feats.shape(1) != acc.dim()) {
                throw py::value_error("out must have shape (" + std::to_string(xv.rows) + ", " +
                                      std::to_string(acc.dim()) + ")");
              }
              if (!(feats.flags() & py::array::c_style) || !feats.writeable()) {
                throw py::value_error("out must be a writeable C-contiguous array");
              }
              out = feats.mutable_data();
            } else if (return_features) {
              feats = empty2d(xv.rows, acc.dim());
              out = feats.mutable_data();
            }
            {
              py::gil_scoped_release release;
              acc.add(xv, yv, fp, out);
            }
            if (out) return std::move(feats);
            return py::none();
          },
          py::arg("X").noconvert(), py::arg("Y").noconvert(), py::arg("folds") = py::none(),
          py::arg("return_features") = false, py::arg("out") = py::none(),
          "Add a row block: features, then the fold statistics G_u += Phi_u^T Phi_u, t_u += Phi_u^T Y_u.\n"
          "return_features: also return the block's features [phi(X), 1]; out: write them into this\n"
          "(rows, dim) C-contiguous float64 array instead (returned).")
      .def(
          "features",
          [](FoldAccumulator& acc, const DoubleArray& X) {
            const MatrixView xv = view2d(X, "X");
            DoubleArray out = empty2d(xv.rows, acc.dim());
            {
              py::gil_scoped_release release;
              acc.features(xv, out.mutable_data());
            }
            return out;
          },
          py::arg("X").noconvert(), "Extended features [phi(X), 1] of a block (nothing accumulated).")
      .def("results", [](const FoldAccumulator& acc) {
        const Index v = acc.n_folds(), p = acc.dim(), k = acc.n_targets();
        CArray G({v, p, p}), t({v, p, k}), yy({v, k});
        py::array_t<std::int64_t> counts(v);
        for (Index u = 0; u < v; ++u) {
          Eigen::Map<RowMatrix>(G.mutable_data(u, 0, 0), p, p) = acc.gram(u);
          Eigen::Map<RowMatrix>(t.mutable_data(u, 0, 0), p, k) = acc.cross(u);
          for (Index j = 0; j < k; ++j) yy.mutable_at(u, j) = acc.yy(u)(j);
          counts.mutable_at(u) = acc.count(u);
        }
        return py::make_tuple(G, t, yy, counts);
      }, "(G (v, p, p), t (v, p, k), yy (v, k), counts (v,)) per fold.")
      .def(
          "fold_solve",
          [](FoldAccumulator& acc, double gamma, bool regularize_bias) {
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
      [](const CArray& G, const CArray& t, double gamma, bool regularize_bias, int n_threads) {
        auto Gs = stack_in(G, "G");
        auto ts = stack_in(t, "t");
        std::vector<Eigen::MatrixXd> theta;
        {
          py::gil_scoped_release release;
          theta = fast_cv_solve(Gs, ts, gamma, regularize_bias, n_threads);
        }
        return stack_out(theta);
      },
      py::arg("G"), py::arg("t"), py::arg("gamma"), py::arg("regularize_bias") = true, py::arg("n_threads") = 0,
      "theta_v = (G - G_v + R/gamma)^{-1} (c - t_v) for every fold v, eqs. (19)-(21).");
  m.def(
      "ridge_solve",
      [](const Eigen::MatrixXd& G, const Eigen::MatrixXd& t, double gamma, bool regularize_bias) {
        return ridge_solve(G, t, gamma, regularize_bias);
      },
      py::arg("G"), py::arg("t"), py::arg("gamma"), py::arg("regularize_bias") = true,
      "theta = (G + R/gamma)^{-1} t, eq. (7).");
  m.def(
      "fold_predict",
      [](const DoubleArray& Phi, const py::object& folds, const CArray& theta, int n_threads) {
        const MatrixView pv = view2d(Phi, "Phi");
        const I32Array f = py::cast<I32Array>(folds);
        if (f.ndim() != 1 || f.shape(0) != pv.rows) throw py::value_error("folds must hold one id per row");
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
      py::arg("Phi").noconvert(), py::arg("folds"), py::arg("theta"), py::arg("n_threads") = 0,
      "Row i: Phi[i] @ theta[folds[i]] (CV predictions).");

  m.def(
      "fast_cv_holdout",
      [](const DoubleArray& Phi, const DoubleArray& Y, const py::object& folds, Index n_folds, const Eigen::MatrixXd& G,
         const Eigen::MatrixXd& t, double gamma, bool regularize_bias, int n_threads) {
        const MatrixView pv = view2d(Phi, "Phi");
        const MatrixView yv = view2d(Y, "Y");
        const I32Array f = py::cast<I32Array>(folds);
        if (f.ndim() != 1 || f.shape(0) != pv.rows) throw py::value_error("folds must hold one id per row of Phi");
        DoubleArray out = empty2d(pv.rows, yv.cols);
        RowMatrixMap o(out.mutable_data(), pv.rows, yv.cols);
        {
          py::gil_scoped_release release;
          fast_cv_holdout(pv, yv, f.data(), n_folds, G, t, gamma, regularize_bias, o, n_threads);
        }
        return out;
      },
      py::arg("Phi").noconvert(), py::arg("Y").noconvert(), py::arg("folds"), py::arg("n_folds"), py::arg("G"),
      py::arg("t"), py::arg("gamma"), py::arg("regularize_bias") = true, py::arg("n_threads") = 0,
      "CV predictions (n x k) by the holdout identity Y_u - f_u = (I - H_uu)^{-1} (Y_u - Phi_u theta) from the\n"
      "whole-data G, t: the same numbers as fast_cv_solve + fold_predict, cheaper for small folds.");

  // ---------------------------------------------------------------- CSA (paper 002, Appendix)
  m.def(
      "csa_acceptance",
      [](const Vector& E, double Tac) {
        double var = 0.0;
        Vector A = csa_acceptance(E, Tac, &var);
        return py::make_tuple(A, var);
      },
      py::arg("energies"), py::arg("Tac"), "CSA-MwVC acceptance probabilities A_i and their variance.");
  m.def("csa_update_tac", &csa_update_tac, py::arg("Tac"), py::arg("variance"), py::arg("q"), py::arg("alpha") = 0.05,
        py::arg("target_ratio") = 0.99, "Variance control of the acceptance temperature.");
  m.def(
      "csa_minimize",
      [](const py::function& cost_fn, const Eigen::Ref<const RowMatrix>& x0, const Vector& lower,
         const Vector& upper, Index max_evals, Index inner, double T0, double Tac0, double alpha, double target_ratio,
         std::uint64_t seed) {
        // cost(x) must return a real number: anything else is a TypeError naming cost (not pybind's cast error).
        const std::function<double(const Vector&)> cost = [&cost_fn](const Vector& x) {
          const py::object r = cost_fn(x);
          if (!PyFloat_Check(r.ptr()) && !PyLong_Check(r.ptr()) && !PyObject_HasAttrString(r.ptr(), "__float__")) {
            throw py::type_error("cost must return a real number, got " +
                                 std::string(py::str(py::type::of(r).attr("__name__"))));
          }
          return r.cast<double>();
        };
        CSAOptions opt;
        opt.max_evals = max_evals;
        opt.inner = inner;
        opt.T0 = T0;
        opt.Tac0 = Tac0;
        opt.alpha = alpha;
        opt.target_ratio = target_ratio;
        opt.seed = seed;
        CSAResult r = csa_minimize(cost, RowMatrix(x0), lower, upper, opt);
        py::dict d;
        d["x"] = r.x_best;
        d["fun"] = r.f_best;
        d["history"] = r.history;
        d["Tac"] = r.Tac_final;
        d["n_stages"] = r.n_stages;
        return d;
      },
      py::arg("cost"), py::arg("x0"), py::arg("lower"), py::arg("upper"), py::arg("max_evals") = 90,
      py::arg("inner") = 5, py::arg("T0") = 1.0, py::arg("Tac0") = 0.0, py::arg("alpha") = 0.05,
      py::arg("target_ratio") = 0.99, py::arg("seed") = 0,
      "Coupled simulated annealing with variance control (CSA-MwVC); cost(x) -> float is called with the GIL held.");
}

}  // namespace svmopt::bind
