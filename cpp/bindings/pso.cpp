// Bindings of cpp/include/svmopt/pso.hpp (paper 003): the coupled swarms, the single swarm and the generator.
#include <pybind11/stl.h>

#include <cstdint>
#include <string>

#include "bindings.hpp"
#include "svmopt/pso.hpp"

namespace svmopt::bind {

namespace {

using Vec1d = py::array_t<double, py::array::c_style | py::array::forcecast>;

Vector vec_arg(const Vec1d& a, const char* name) {
  if (a.ndim() != 1) throw py::value_error(std::string(name) + " must be a 1-D array");
  return Eigen::Map<const Vector>(a.data(), a.shape(0));
}

Eigen::MatrixXd mat_arg(const Vec1d& a, Index n, const char* name) {
  if (a.ndim() != 2 || a.shape(0) != n || a.shape(1) != n) {
    throw py::value_error(std::string(name) + " must be a " + std::to_string(n) + " x " + std::to_string(n) +
                          " array");
  }
  return Eigen::Map<const RowMatrix>(a.data(), n, n);
}

Vec1d to_array(const Vector& v) {
  Vec1d out(static_cast<py::ssize_t>(v.size()));
  std::copy(v.data(), v.data() + v.size(), out.mutable_data());
  return out;
}

Vec1d to_array(const RowMatrix& m) {
  Vec1d out({static_cast<py::ssize_t>(m.rows()), static_cast<py::ssize_t>(m.cols())});
  std::copy(m.data(), m.data() + m.size(), out.mutable_data());
  return out;
}

// (T+1) x (k*n) -> (T+1, k, n)
Vec1d to_array3(const RowMatrix& m, Index k, Index n) {
  Vec1d out({static_cast<py::ssize_t>(m.rows()), static_cast<py::ssize_t>(k), static_cast<py::ssize_t>(n)});
  std::copy(m.data(), m.data() + m.size(), out.mutable_data());
  return out;
}

PsoRandScope scope_arg(const std::string& s) {
  if (s == "particle") return PsoRandScope::Particle;
  if (s == "iteration") return PsoRandScope::Iteration;
  throw py::value_error("rand_scope must be 'particle' or 'iteration', got '" + s + "'");
}

PsoSync sync_arg(const std::string& s) {
  if (s == "jacobi") return PsoSync::Jacobi;
  if (s == "gauss_seidel") return PsoSync::GaussSeidel;
  throw py::value_error("sync must be 'jacobi' or 'gauss_seidel', got '" + s + "'");
}

PsoBoundary boundary_arg(const std::string& s) {
  if (s == "revert") return PsoBoundary::Revert;
  if (s == "project") return PsoBoundary::Project;
  throw py::value_error("boundary_mode must be 'revert' or 'project', got '" + s + "'");
}

PsoFitness fitness_arg(const std::string& s) {
  if (s == "distance") return PsoFitness::Distance;
  if (s == "linear") return PsoFitness::Linear;
  throw py::value_error("fitness must be 'distance' or 'linear', got '" + s + "'");
}

PsoOptions make_options(Index n_particles, Index max_iter, double w, double c1, double c2, double c3, double c4,
                        double s_init, std::uint64_t seed, const std::string& rand_scope, const std::string& sync,
                        bool final_eval, bool record, int n_threads, const std::string& boundary) {
  PsoOptions o;
  o.n_particles = n_particles;
  o.max_iter = max_iter;
  o.w = w;
  o.c1 = c1;
  o.c2 = c2;
  o.c3 = c3;
  o.c4 = c4;
  o.s_init = s_init;
  o.seed = seed;
  o.rand_scope = scope_arg(rand_scope);
  o.sync = sync_arg(sync);
  o.final_eval = final_eval;
  o.record = record;
  o.n_threads = n_threads;
  o.boundary = boundary_arg(boundary);
  return o;
}

py::dict trace_dict(const SwarmTrace& t, Index k, Index n, bool record) {
  py::dict d;
  d["gbest"] = to_array(t.gbest);
  d["gbest_fitness"] = t.gbest_fitness;
  d["fitness_history"] = to_array(t.fitness_history);
  d["gbest_history"] = to_array(t.gbest_history);
  d["n_reverted"] = t.n_reverted;
  if (record) {
    d["positions"] = to_array3(t.positions, k, n);
    d["velocities"] = to_array3(t.velocities, k, n);
    d["pbests"] = to_array3(t.pbests, k, n);
  }
  return d;
}

}  // namespace

void bind_pso(py::module_& m) {
  m.def(
      "pso_two_swarm",
      [](const Vec1d& mu1, const Vec1d& P1, const Vec1d& mu2, const Vec1d& P2, Index n_particles, Index max_iter,
         double w, double c1, double c2, double c3, double c4, double s_init, std::uint64_t seed,
         const std::string& rand_scope, const std::string& sync, bool final_eval, bool record, int n_threads,
         const std::string& boundary_mode) {
        const Vector m1 = vec_arg(mu1, "mu1"), m2 = vec_arg(mu2, "mu2");
        const Eigen::MatrixXd p1 = mat_arg(P1, m1.size(), "P1"), p2 = mat_arg(P2, m2.size(), "P2");
        const PsoOptions o = make_options(n_particles, max_iter, w, c1, c2, c3, c4, s_init, seed, rand_scope, sync,
                                          final_eval, record, n_threads, boundary_mode);
        TwoSwarmResult r;
        {
          py::gil_scoped_release release;
          r = pso_two_swarm(m1, p1, m2, p2, o);
        }
        py::dict d;
        d["x"] = to_array(r.x);
        d["y"] = to_array(r.y);
        d["distance"] = r.distance;
        d["distance_history"] = to_array(r.distance_history);
        d["swarm1"] = trace_dict(r.swarm1, n_particles, m1.size(), record);
        d["swarm2"] = trace_dict(r.swarm2, n_particles, m1.size(), record);
        return d;
      },
      py::arg("mu1"), py::arg("P1"), py::arg("mu2"), py::arg("P2"), py::arg("n_particles") = 10,
      py::arg("max_iter") = 200, py::arg("w") = 0.05, py::arg("c1") = 0.05, py::arg("c2") = 0.05,
      py::arg("c3") = 0.05, py::arg("c4") = 0.2, py::arg("s_init") = 0.1, py::arg("seed") = 0,
      py::arg("rand_scope") = "particle", py::arg("sync") = "jacobi", py::arg("final_eval") = true,
      py::arg("record") = false, py::arg("n_threads") = 0, py::arg("boundary_mode") = "revert",
      "Two coupled swarms (paper 003, eq. (7), Section 3.2, Table 1) on the closest points of E(mu1, P1) and "
      "E(mu2, P2). "
      "Returns a dict: x, y, distance, distance_history (max_iter+1), swarm1/swarm2 traces (gbest, "
      "fitness_history, gbest_history, n_reverted; with record=True also positions, velocities, pbests of shape "
      "(max_iter+1, n_particles, n)).");

  m.def(
      "pso_single_swarm",
      [](const Vec1d& mu, const Vec1d& P, const Vec1d& a, const std::string& fitness, Index n_particles,
         Index max_iter, double w, double c1, double c2, double c3, double c4, double s_init, std::uint64_t seed,
         const std::string& rand_scope, bool final_eval, bool record, int n_threads,
         const std::string& boundary_mode) {
        const Vector m0 = vec_arg(mu, "mu"), av = vec_arg(a, "a");
        const Eigen::MatrixXd p = mat_arg(P, m0.size(), "P");
        const PsoOptions o = make_options(n_particles, max_iter, w, c1, c2, c3, c4, s_init, seed, rand_scope,
                                          "jacobi", final_eval, record, n_threads, boundary_mode);
        const PsoFitness f = fitness_arg(fitness);
        SwarmTrace t;
        {
          py::gil_scoped_release release;
          t = pso_single_swarm(m0, p, av, f, o);
        }
        return trace_dict(t, n_particles, m0.size(), record);
      },
      py::arg("mu"), py::arg("P"), py::arg("a"), py::arg("fitness") = "distance", py::arg("n_particles") = 10,
      py::arg("max_iter") = 50, py::arg("w") = 0.05, py::arg("c1") = 0.05, py::arg("c2") = 0.05,
      py::arg("c3") = 0.05, py::arg("c4") = 0.2, py::arg("s_init") = 1.0, py::arg("seed") = 0,
      py::arg("rand_scope") = "particle", py::arg("final_eval") = true, py::arg("record") = false,
      py::arg("n_threads") = 0, py::arg("boundary_mode") = "revert",
      "One swarm in E(mu, P) with a fixed target a (paper 003, Section 3): fitness 'distance' = ||a - x|| "
      "(problem (6)) or "
      "'linear' = -a^T x (the LP (11)-(12)).");

  m.def(
      "pso_draws",
      [](std::uint64_t seed, std::uint64_t swarm, std::uint64_t iteration, Index n_particles, Index n,
         const std::string& rand_scope) {
        const PsoRandScope sc = scope_arg(rand_scope);
        if (n_particles < 0 || n < 0) throw py::value_error("n_particles and n must be >= 0");
        RowMatrix out(n_particles, 3 + n);
        for (Index i = 0; i < n_particles; ++i)
          pso_draws(seed, swarm, static_cast<std::uint64_t>(i), iteration, n, sc, out.row(i).data());
        return to_array(out);
      },
      py::arg("seed"), py::arg("swarm"), py::arg("iteration"), py::arg("n_particles"), py::arg("n"),
      py::arg("rand_scope") = "particle",
      "The random numbers of every particle of a swarm in an iteration: rows [r1, r2, r3, r4 (n)].");

  m.def("pso_uniform", &pso_uniform, py::arg("seed"), py::arg("swarm"), py::arg("particle"), py::arg("iteration"),
        py::arg("slot"), "The counter-based U[0,1) generator of the swarms.");

  m.def(
      "pso_particle_step",
      [](const Vec1d& x, const Vec1d& v, const Vec1d& pb, const Vec1d& gb, const Vec1d& a, double r1, double r2,
         double r3, const Vec1d& r4, const Vec1d& mu, const Vec1d& P, double w, double c1, double c2, double c3,
         double c4) {
        Vector xv = vec_arg(x, "x"), vv = vec_arg(v, "v");
        const Index n = xv.size();
        const Vector pbv = vec_arg(pb, "pb"), gbv = vec_arg(gb, "gb"), av = vec_arg(a, "a"), r4v = vec_arg(r4, "r4"),
                     muv = vec_arg(mu, "mu");
        if (vv.size() != n || pbv.size() != n || gbv.size() != n || av.size() != n || r4v.size() != n ||
            muv.size() != n)
          throw py::value_error("x, v, pb, gb, a, r4 and mu must have the same length");
        const RowMatrix p = mat_arg(P, n, "P");
        const bool ok = pso_particle_step(n, xv.data(), vv.data(), pbv.data(), gbv.data(), av.data(), r1, r2, r3,
                                          r4v.data(), muv.data(), p.data(), w, c1, c2, c3, c4);
        return py::make_tuple(to_array(xv), to_array(vv), ok);
      },
      py::arg("x"), py::arg("v"), py::arg("pb"), py::arg("gb"), py::arg("a"), py::arg("r1"), py::arg("r2"),
      py::arg("r3"), py::arg("r4"), py::arg("mu"), py::arg("P"), py::arg("w") = 0.05, py::arg("c1") = 0.05,
      py::arg("c2") = 0.05, py::arg("c3") = 0.05, py::arg("c4") = 0.2,
      "One update (7) of one particle with the revert rule: returns (x_new, v_new, accepted).");
}

}  // namespace svmopt::bind
