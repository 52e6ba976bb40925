// The modified particle swarm of paper 003 (Kumar & Ramakrishnan), Section 3.2, eq. (7) and Table 1.
//
// Velocity update (7), per particle i of a swarm living in the ellipsoid E(mu, P) = {z : (z-mu)^T P (z-mu) <= 1}:
//
//   v_i <- w v_i + c1 r1 (pb_i - x_i) + c2 r2 (gb - x_i) + c3 r3 (a - x_i) + c4 r4,
//   r1, r2, r3, rho ~ U[0,1),  r4 = rho * g/||g||,  g ~ N(0, I_n)             (craziness term of (7))
//   x' = x_i + v_i;  x_i <- x' iff (x'-mu)^T P (x'-mu) <= 1, else x_i is kept   (revert rule, Section 3.2; v_i is kept)
//   (PsoBoundary::Project, an extension not in the paper: an infeasible x' is projected onto the surface instead)
//
// Two coupled swarms (1.8, "Jacobi"): swarm 1 lives in E_1 and is drawn to a_1 = gb_2, swarm 2 lives in E_2 and
// is drawn to a_2 = gb_1; the fitness of a particle is its distance to its target, and the stored personal-best
// fitnesses are re-evaluated against the moving target every iteration before they are compared.
//
// Randomness is counter-based: every draw is a SplitMix64 hash of (seed, swarm, particle, iteration, slot), so a
// run is a pure function of its seed, whatever the thread count or the order in which particles are processed.
// pso_uniform() below is the whole generator; tests re-implement it in numpy.
#pragma once

#include <cstdint>
#include <limits>
#include <vector>

#include "svmopt/common.hpp"

namespace svmopt {

enum class PsoRandScope { Particle = 0, Iteration = 1 };  // r1..r3, rho per particle (default) or shared (Table 1)
enum class PsoSync { Jacobi = 0, GaussSeidel = 1 };
enum class PsoFitness { Distance = 0, Linear = 1 };  // ||a - x||  or  -a^T x (the LP (11)-(12))
// What happens to an infeasible tentative move: the paper's revert rule, or (an extension, not in the paper;
// Python's boundary_mode="project") the Euclidean projection of x' onto the ellipsoid surface.
enum class PsoBoundary { Revert = 0, Project = 1 };

struct PsoOptions {
  Index n_particles = 10;
  Index max_iter = 200;
  double w = 0.05, c1 = 0.05, c2 = 0.05, c3 = 0.05, c4 = 0.20;
  double s_init = 0.1;  // initial particles uniform in E(mu, P / s_init^2)
  std::uint64_t seed = 0;
  PsoRandScope rand_scope = PsoRandScope::Particle;
  PsoSync sync = PsoSync::Jacobi;
  PsoBoundary boundary = PsoBoundary::Revert;
  bool final_eval = true;  // evaluate the last moves once more after the loop (decision: the paper's loop
                           // ends with a move)
  bool record = false;     // keep every iterate (positions, velocities, personal and global bests)
  int n_threads = 0;       // threads for the per-particle move loop (used only for large swarms)
  // Wall-clock limit in seconds from the call (infinity: none). Checked between iterations: a run stopped after
  // j < max_iter iterations is exactly the run with max_iter = j (final evaluation included), its histories have
  // j + 1 rows, and n_iter = j, timed_out = true report it.
  double time_limit = std::numeric_limits<double>::infinity();
};

// Everything one swarm did; the trajectory arrays are filled only with PsoOptions::record.
struct SwarmTrace {
  Vector gbest;                 // final global best
  double gbest_fitness = 0.0;   // its fitness against the final target
  Vector fitness_history;       // n_iter + 1: gbest fitness after j iterations (j = 0: initial swarm)
  RowMatrix gbest_history;      // (n_iter + 1) x n: gbest after j iterations
  std::int64_t n_reverted = 0;  // infeasible tentative moves (reverted, or projected with PsoBoundary::Project)
  Index n_iter = 0;             // iterations run (max_iter unless PsoOptions::time_limit stopped the run)
  bool timed_out = false;       // whether time_limit stopped the run before max_iter
  // record only: (n_iter + 1) x (k * n), row j = state after iteration j, particle-major
  RowMatrix positions, velocities, pbests;
};

struct TwoSwarmResult {
  Vector x, y;            // closest-point estimates gb_1 in E_1 and gb_2 in E_2
  double distance = 0.0;  // ||x - y||
  Vector distance_history;  // n_iter + 1: ||gb_1 - gb_2|| after j iterations
  Index n_iter = 0;         // iterations run (max_iter unless time_limit stopped the run)
  bool timed_out = false;   // whether time_limit stopped the run before max_iter
  SwarmTrace swarm1, swarm2;
};

// The generator: a U[0,1) double (53 random bits) for (seed, swarm, particle, iteration, slot).
// Slots per iteration: 0..2 = r1..r3, 3 = rho, 4 + m = the uniforms of Box-Muller pair m/2 (normals for g).
// Iteration 0 is the initialisation: slot 3 = the radius uniform, normals as above.
// With rand_scope Iteration the scalar slots 0..3 are drawn with particle = kSharedParticle.
double pso_uniform(std::uint64_t seed, std::uint64_t swarm, std::uint64_t particle, std::uint64_t iteration,
                   std::uint64_t slot);
inline constexpr std::uint64_t kSharedParticle = 0xFFFFFFFFull;

// n standard normals for (seed, swarm, particle, iteration) by Box-Muller: g[2m] = R cos(2 pi U2), g[2m+1] = R sin,
// R = sqrt(-2 log(1 - U1)), U1 = slot 4 + 2m, U2 = slot 5 + 2m.
void pso_normals(std::uint64_t seed, std::uint64_t swarm, std::uint64_t particle, std::uint64_t iteration, Index n,
                 double* g);

// The random numbers particle i of swarm s uses in iteration j >= 1: out = [r1, r2, r3, r4 (n values)].
void pso_draws(std::uint64_t seed, std::uint64_t swarm, std::uint64_t particle, std::uint64_t iteration, Index n,
               PsoRandScope scope, double* out);

// Two coupled swarms on the closest points of E(mu1, P1) and E(mu2, P2) (P SPD, n = mu.size()).
// Swarm ids in the generator: 0 for swarm 1, 1 for swarm 2.
TwoSwarmResult pso_two_swarm(const Vector& mu1, const Eigen::MatrixXd& P1, const Vector& mu2,
                             const Eigen::MatrixXd& P2, const PsoOptions& opt);

// One swarm in E(mu, P) with a fixed target a (paper 003, Section 3): problem (6) with fitness Distance, or the LP
// max a^T x s.t. x in E with fitness Linear (the c3 attractor is a in both cases). Swarm id 0.
SwarmTrace pso_single_swarm(const Vector& mu, const Eigen::MatrixXd& P, const Vector& a, PsoFitness fitness,
                            const PsoOptions& opt);

// One velocity/position update of a single particle, exactly as inside the swarms (for tests):
// v <- w v + c1 r1 (pb - x) + c2 r2 (gb - x) + c3 r3 (a - x) + c4 r4, then the revert rule. Returns whether the
// move was accepted. x, v, pb, gb, a, r4, mu have length n; P is n x n row-major.
bool pso_particle_step(Index n, double* x, double* v, const double* pb, const double* gb, const double* a, double r1,
                       double r2, double r3, const double* r4, const double* mu, const double* P, double w,
                       double c1, double c2, double c3, double c4);

// Euclidean projection of a (outside) onto E(mu, P) given P = Q diag(p) Q^T (Q column-major n x n): Newton on
// psi(l) = sum p_i b_i^2 / (1 + l p_i)^2 - 1 from l = 0 (psi is convex and decreasing), b = Q^T (a - mu); the
// result is pulled inside by round-off scaling so that pso_quad_form(result) <= 1 exactly.
void project_onto_ellipsoid(Index n, const double* a, const double* mu, const double* P, const double* Q,
                            const double* p, double* out);

// (x - mu)^T P (x - mu), summed in the order the revert rule uses.
double pso_quad_form(Index n, const double* x, const double* mu, const double* P);

}  // namespace svmopt
