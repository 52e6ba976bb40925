// svmopt._core.ellipsoid: cpp/include/svmopt/pso.hpp (paper 003): the coupled swarms, the single swarm and the
// generator.
#include <pybind11/stl.h>

#include <cstdint>
#include <limits>
#include <optional>
#include <string>
#include <tuple>

#include "bindings.hpp"
#include "svmopt/pso.hpp"

namespace svmopt::bind {

namespace {

// (T+1) x (k*n) -> (T+1, k, n); None when the trace was not recorded.
py::object record_array(const RowMatrix& m, Index n) {
  if (m.size() == 0 || n == 0) return py::none();
  const Index k = m.cols() / n;
  DoubleArray out({static_cast<py::ssize_t>(m.rows()), static_cast<py::ssize_t>(k), static_cast<py::ssize_t>(n)});
  std::copy(m.data(), m.data() + m.size(), out.mutable_data());
  return std::move(out);
}

PsoOptions make_options(Index n_particles, Index max_iter, double w, double c1, double c2, double c3, double c4,
                        double s_init, std::uint64_t seed, PsoRandScope rand_scope, PsoSync sync, bool final_eval,
                        bool record, int n_threads, PsoBoundary boundary, std::optional<double> time_limit) {
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
  o.rand_scope = rand_scope;
  o.sync = sync;
  o.final_eval = final_eval;
  o.record = record;
  o.n_threads = n_threads;
  o.boundary = boundary;
  o.time_limit = time_limit ? *time_limit : std::numeric_limits<double>::infinity();
  return o;
}

}  // namespace

void register_ellipsoid(py::module_& m) {
  py::enum_<PsoRandScope>(m, "RandScope", py::module_local(),
                          "r1..r3 and rho drawn per particle (particle) or shared by the swarm (iteration).")
      .value("particle", PsoRandScope::Particle)
      .value("iteration", PsoRandScope::Iteration);
  py::enum_<PsoSync>(m, "Sync", py::module_local(),
                     "jacobi: both swarms move against the other's previous best; gauss_seidel: swarm 2 sees "
                     "swarm 1's new best.")
      .value("jacobi", PsoSync::Jacobi)
      .value("gauss_seidel", PsoSync::GaussSeidel);
  py::enum_<PsoBoundary>(m, "Boundary", py::module_local(),
                         "An infeasible tentative move: the paper's revert rule, or the projection onto the surface.")
      .value("revert", PsoBoundary::Revert)
      .value("project", PsoBoundary::Project);
  py::enum_<PsoFitness>(m, "Fitness", py::module_local(), "distance = ||a - x|| (problem (6)); linear = -a^T x.")
      .value("distance", PsoFitness::Distance)
      .value("linear", PsoFitness::Linear);

  py::class_<SwarmTrace>(m, "SwarmTrace", py::module_local(), "One swarm's run: its global best and histories.")
      .def_property_readonly("gbest", [](const SwarmTrace& t) { return to_numpy(t.gbest); })
      .def_readonly("gbest_fitness", &SwarmTrace::gbest_fitness)
      .def_property_readonly("fitness_history", [](const SwarmTrace& t) { return to_numpy(t.fitness_history); })
      .def_property_readonly("gbest_history", [](const SwarmTrace& t) { return to_numpy(t.gbest_history); })
      .def_readonly("n_reverted", &SwarmTrace::n_reverted)
      .def_readonly("n_iter", &SwarmTrace::n_iter, "Iterations run (max_iter unless time_limit stopped the run).")
      .def_readonly("timed_out", &SwarmTrace::timed_out, "Whether time_limit stopped the run before max_iter.")
      .def_property_readonly("positions",
                             [](const SwarmTrace& t) { return record_array(t.positions, t.gbest.size()); },
                             "(max_iter + 1, n_particles, n) with record=True, else None.")
      .def_property_readonly("velocities",
                             [](const SwarmTrace& t) { return record_array(t.velocities, t.gbest.size()); })
      .def_property_readonly("pbests", [](const SwarmTrace& t) { return record_array(t.pbests, t.gbest.size()); });

  py::class_<TwoSwarmResult>(m, "TwoSwarmResult", py::module_local(),
                             "The closest-point estimates of the two coupled swarms, their distance and traces.")
      .def_property_readonly("x", [](const TwoSwarmResult& r) { return to_numpy(r.x); })
      .def_property_readonly("y", [](const TwoSwarmResult& r) { return to_numpy(r.y); })
      .def_readonly("distance", &TwoSwarmResult::distance)
      .def_property_readonly("distance_history", [](const TwoSwarmResult& r) { return to_numpy(r.distance_history); })
      .def_readonly("n_iter", &TwoSwarmResult::n_iter, "Iterations run (max_iter unless time_limit stopped the run).")
      .def_readonly("timed_out", &TwoSwarmResult::timed_out, "Whether time_limit stopped the run before max_iter.")
      .def_readonly("swarm1", &TwoSwarmResult::swarm1)
      .def_readonly("swarm2", &TwoSwarmResult::swarm2);

  m.def(
      "two_swarm",
      [](const DoubleArray& mu1, const DoubleArray& P1, const DoubleArray& mu2, const DoubleArray& P2,
         Index n_particles, Index max_iter, double w, double c1, double c2, double c3, double c4, double s_init,
         std::uint64_t seed, PsoRandScope rand_scope, PsoSync sync, bool final_eval, bool record, int n_threads,
         PsoBoundary boundary, std::optional<double> time_limit) {
        const Vector m1 = vector_copy(mu1, "mu1"), m2 = vector_copy(mu2, "mu2", m1.size());
        const Eigen::MatrixXd p1 = matrix_copy(P1, "P1", m1.size(), m1.size());
        const Eigen::MatrixXd p2 = matrix_copy(P2, "P2", m2.size(), m2.size());
        const PsoOptions o = make_options(n_particles, max_iter, w, c1, c2, c3, c4, s_init, seed, rand_scope, sync,
                                          final_eval, record, n_threads, boundary, time_limit);
        py::gil_scoped_release release;
        return pso_two_swarm(m1, p1, m2, p2, o);
      },
      py::arg("mu1").noconvert(), py::arg("P1").noconvert(), py::arg("mu2").noconvert(), py::arg("P2").noconvert(),
      py::arg("n_particles") = 10, py::arg("max_iter") = 200, py::arg("w") = 0.05, py::arg("c1") = 0.05,
      py::arg("c2") = 0.05, py::arg("c3") = 0.05, py::arg("c4") = 0.2, py::arg("s_init") = 0.1, py::arg("seed") = 0,
      py::arg("rand_scope") = PsoRandScope::Particle, py::arg("sync") = PsoSync::Jacobi,
      py::arg("final_eval") = true, py::arg("record") = false, py::arg("n_threads") = 0,
      py::arg("boundary") = PsoBoundary::Revert, py::arg("time_limit") = py::none(),
      "Two coupled swarms (paper 003, eq. (7), Section 3.2, Table 1) on the closest points of E(mu1, P1) and "
      "E(mu2, P2). time_limit: seconds (None: none), checked between iterations; a run it stops after j "
      "iterations equals the run with max_iter = j (n_iter, timed_out).");

  m.def(
      "single_swarm",
      [](const DoubleArray& mu, const DoubleArray& P, const DoubleArray& a, PsoFitness fitness, Index n_particles,
         Index max_iter, double w, double c1, double c2, double c3, double c4, double s_init, std::uint64_t seed,
         PsoRandScope rand_scope, bool final_eval, bool record, int n_threads, PsoBoundary boundary,
         std::optional<double> time_limit) {
        const Vector m0 = vector_copy(mu, "mu"), av = vector_copy(a, "a", m0.size());
        const Eigen::MatrixXd p = matrix_copy(P, "P", m0.size(), m0.size());
        const PsoOptions o = make_options(n_particles, max_iter, w, c1, c2, c3, c4, s_init, seed, rand_scope,
                                          PsoSync::Jacobi, final_eval, record, n_threads, boundary, time_limit);
        py::gil_scoped_release release;
        return pso_single_swarm(m0, p, av, fitness, o);
      },
      py::arg("mu").noconvert(), py::arg("P").noconvert(), py::arg("a").noconvert(),
      py::arg("fitness") = PsoFitness::Distance, py::arg("n_particles") = 10, py::arg("max_iter") = 50,
      py::arg("w") = 0.05, py::arg("c1") = 0.05, py::arg("c2") = 0.05, py::arg("c3") = 0.05, py::arg("c4") = 0.2,
      py::arg("s_init") = 1.0, py::arg("seed") = 0, py::arg("rand_scope") = PsoRandScope::Particle,
      py::arg("final_eval") = true, py::arg("record") = false, py::arg("n_threads") = 0,
      py::arg("boundary") = PsoBoundary::Revert, py::arg("time_limit") = py::none(),
      "One swarm in E(mu, P) with a fixed target a (paper 003, Section 3): fitness distance = ||a - x|| "
      "(problem (6)) or linear = -a^T x (the LP (11)-(12)). time_limit as in two_swarm.");

  m.def(
      "draws",
      [](std::uint64_t seed, std::uint64_t swarm, std::uint64_t iteration, Index n_particles, Index n,
         PsoRandScope rand_scope) {
        if (n_particles < 0 || n < 0) throw py::value_error("n_particles and n must be >= 0");
        RowMatrix out(n_particles, 3 + n);
        for (Index i = 0; i < n_particles; ++i)
          pso_draws(seed, swarm, static_cast<std::uint64_t>(i), iteration, n, rand_scope, out.row(i).data());
        return to_numpy(out);
      },
      py::arg("seed"), py::arg("swarm"), py::arg("iteration"), py::arg("n_particles"), py::arg("n"),
      py::arg("rand_scope") = PsoRandScope::Particle,
      "The random numbers of every particle of a swarm in an iteration: rows [r1, r2, r3, r4 (n)].");

  m.def("uniform", &pso_uniform, py::arg("seed"), py::arg("swarm"), py::arg("particle"), py::arg("iteration"),
        py::arg("slot"), "The counter-based U[0,1) generator of the swarms.");

  m.def(
      "particle_step",
      [](const DoubleArray& x, const DoubleArray& v, const DoubleArray& pb, const DoubleArray& gb,
         const DoubleArray& a, double r1, double r2, double r3, const DoubleArray& r4, const DoubleArray& mu,
         const DoubleArray& P, double w, double c1, double c2, double c3, double c4) {
        Vector xv = vector_copy(x, "x");
        const Index n = xv.size();
        Vector vv = vector_copy(v, "v", n);
        const Vector pbv = vector_copy(pb, "pb", n), gbv = vector_copy(gb, "gb", n), av = vector_copy(a, "a", n),
                     r4v = vector_copy(r4, "r4", n), muv = vector_copy(mu, "mu", n);
        const RowMatrix p = matrix_copy(P, "P", n, n);
        const bool ok = pso_particle_step(n, xv.data(), vv.data(), pbv.data(), gbv.data(), av.data(), r1, r2, r3,
                                          r4v.data(), muv.data(), p.data(), w, c1, c2, c3, c4);
        return std::make_tuple(to_numpy(xv), to_numpy(vv), ok);
      },
      py::arg("x").noconvert(), py::arg("v").noconvert(), py::arg("pb").noconvert(), py::arg("gb").noconvert(),
      py::arg("a").noconvert(), py::arg("r1"), py::arg("r2"), py::arg("r3"), py::arg("r4").noconvert(),
      py::arg("mu").noconvert(), py::arg("P").noconvert(), py::arg("w") = 0.05, py::arg("c1") = 0.05,
      py::arg("c2") = 0.05, py::arg("c3") = 0.05, py::arg("c4") = 0.2,
      "One update (7) of one particle with the revert rule: returns (x_new, v_new, accepted).");
}

}  // namespace svmopt::bind
