// No floating-point contraction in this file: the swarm's arithmetic is then bit-identical in the baseline and
// the AVX2+FMA variant of the core, and to the numpy reference of the tests (tests/test_pso.py: the velocity
// update (7) by hand, bit-identical repeats).
#if defined(__clang__)
#pragma clang fp contract(off)
#elif defined(__GNUC__)
#pragma GCC optimize("fp-contract=off")
#endif

#include "svmopt/pso.hpp"

#include <Eigen/Cholesky>
#include <Eigen/Eigenvalues>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <limits>
#include <stdexcept>
#include <string>

namespace svmopt {

namespace {

// Per-particle scratch of n doubles: on the stack for n <= 64 (the usual case), on the heap beyond.
class Scratch {
 public:
  explicit Scratch(Index n) : p_(stack_) {
    if (n > kStack) {
      heap_.resize(static_cast<std::size_t>(n));
      p_ = heap_.data();
    }
  }
  Scratch(const Scratch&) = delete;
  Scratch& operator=(const Scratch&) = delete;
  double* data() { return p_; }

 private:
  static constexpr Index kStack = 64;
  double stack_[kStack];
  std::vector<double> heap_;
  double* p_;
};

constexpr double kTwoPi = 6.283185307179586476925286766559;

inline std::uint64_t mix64(std::uint64_t z) {
  z += 0x9E3779B97F4A7C15ull;
  z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
  z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
  return z ^ (z >> 31);
}

inline std::uint64_t particle_key(std::uint64_t seed, std::uint64_t swarm, std::uint64_t particle) {
  return mix64(mix64(mix64(seed) + swarm) + particle);
}

inline double key_uniform(std::uint64_t key, std::uint64_t iteration, std::uint64_t slot) {
  const std::uint64_t ctr = (iteration << 32) | slot;
  return static_cast<double>(mix64(key ^ mix64(ctr)) >> 11) * 0x1.0p-53;
}

void key_normals(std::uint64_t key, std::uint64_t iteration, Index n, double* g) {
  for (Index m = 0; m < n; m += 2) {
    const double u1 = key_uniform(key, iteration, 4 + static_cast<std::uint64_t>(m));
    const double u2 = key_uniform(key, iteration, 5 + static_cast<std::uint64_t>(m));
    const double r = std::sqrt(-2.0 * std::log(1.0 - u1));
    const double t = kTwoPi * u2;
    g[m] = r * std::cos(t);
    if (m + 1 < n) g[m + 1] = r * std::sin(t);
  }
}

// g / ||g|| scaled by `radius` (g = e_0 in the measure-zero case ||g|| = 0).
void scale_direction(Index n, double* g, double radius) {
  double s = 0.0;
  for (Index d = 0; d < n; ++d) s += g[d] * g[d];
  const double nrm = std::sqrt(s);
  if (nrm == 0.0) {
    for (Index d = 0; d < n; ++d) g[d] = d == 0 ? radius : 0.0;
    return;
  }
  for (Index d = 0; d < n; ++d) g[d] = radius * (g[d] / nrm);
}

void check_ellipsoid(const Vector& mu, const Eigen::MatrixXd& P, const char* name) {
  const Index n = mu.size();
  if (n < 1) throw std::invalid_argument(std::string(name) + ": the centre must have at least one coordinate");
  if (P.rows() != n || P.cols() != n) {
    throw std::invalid_argument(std::string(name) + ": P must be " + std::to_string(n) + " x " + std::to_string(n));
  }
  if (!mu.allFinite() || !P.allFinite()) throw std::invalid_argument(std::string(name) + ": non-finite input");
}

void check_options(const PsoOptions& o) {
  if (!(o.time_limit >= 0.0)) throw std::invalid_argument("time_limit must be >= 0 seconds (infinity: no limit)");
  if (o.n_particles < 1) throw std::invalid_argument("n_particles must be >= 1");
  if (o.max_iter < 0) throw std::invalid_argument("max_iter must be >= 0");
  if (!(o.s_init > 0.0 && o.s_init <= 1.0)) throw std::invalid_argument("s_init must be in (0, 1]");
}

// The wall-clock limit of one run (PsoOptions::time_limit), asked between iterations; off when unlimited (+inf), and
// saturated at the clock's end when beyond it (deadline_after).
class Deadline {
 public:
  using Clock = std::chrono::steady_clock;
  explicit Deadline(double seconds) : on_(std::isfinite(seconds)) {
    if (on_) end_ = deadline_after(seconds);
  }
  bool passed() const { return on_ && Clock::now() >= end_; }

 private:
  bool on_;
  Clock::time_point end_{};
};

// The rows of a trace (histories and recorded states) are allocated as the iterations run, doubling up to
// max_iter + 1, so that a large max_iter cut short by time_limit costs neither the time nor the memory of
// iterations never run; every row up to the last iteration is written before the trace is returned.
void resize_trace(SwarmTrace& t, Index rows) {
  t.fitness_history.conservativeResize(rows);
  t.gbest_history.conservativeResize(rows, Eigen::NoChange);
  if (t.positions.size() > 0) {
    t.positions.conservativeResize(rows, Eigen::NoChange);
    t.velocities.conservativeResize(rows, Eigen::NoChange);
    t.pbests.conservativeResize(rows, Eigen::NoChange);
  }
}

// Room for row `row` (0-based) in a trace whose rows are at most `max_rows`.
Index grown_rows(Index have, Index row, Index max_rows) {
  if (row < have) return have;
  return std::min(max_rows, std::max(row + 1, 2 * have));
}

// One swarm: state, initialisation, evaluation and moves.
struct Swarm {
  Index k, n;
  std::uint64_t id;
  Vector mu;
  RowMatrix P;  // row-major copy for pso_quad_form
  RowMatrix X, V, PB;
  Vector FP;
  Vector GB;
  double FG = std::numeric_limits<double>::infinity();
  std::vector<std::uint64_t> keys;
  std::int64_t n_reverted = 0;
  Eigen::MatrixXd Qe;  // eigenvectors of P (column-major), for boundary mode Project
  Vector pe;           // eigenvalues of P

  Swarm(const Vector& mu_, const Eigen::MatrixXd& P_, std::uint64_t id_, const PsoOptions& o, Interruption& intr)
      : k(o.n_particles), n(mu_.size()), id(id_), mu(mu_), P(P_), X(k, n), V(k, n), PB(k, n), FP(k), GB(n) {
    keys.resize(static_cast<std::size_t>(k));
    for (Index i = 0; i < k; ++i) keys[static_cast<std::size_t>(i)] = particle_key(o.seed, id, static_cast<std::uint64_t>(i));
    // Uniform in the ellipsoid scaled by s_init around mu: mu + s_init * L u, L L^T = P^{-1}, u uniform in the ball.
    Eigen::LLT<Eigen::MatrixXd> lltP(P_);
    if (lltP.info() != Eigen::Success) throw std::invalid_argument("P must be symmetric positive definite");
    const Eigen::MatrixXd Pinv = lltP.solve(Eigen::MatrixXd::Identity(n, n));
    Eigen::LLT<Eigen::MatrixXd> llt(Pinv);
    if (llt.info() != Eigen::Success) throw std::invalid_argument("P must be symmetric positive definite");
    const Eigen::MatrixXd L = llt.matrixL();
    Vector u(n);
    for (Index i = 0; i < k; ++i) {
      if ((i & 63) == 0) intr.check();
      const std::uint64_t key = keys[static_cast<std::size_t>(i)];
      key_normals(key, 0, n, u.data());
      const double radius = std::pow(key_uniform(key, 0, 3), 1.0 / static_cast<double>(n));
      scale_direction(n, u.data(), radius);
      Vector xi = mu + o.s_init * (L * u);
      // Round-off can put a point of the scaled ball a hair outside E when s_init = 1: pull it in.
      while (pso_quad_form(n, xi.data(), mu.data(), P.data()) > 1.0) xi = mu + 0.999999 * (xi - mu);
      X.row(i) = xi.transpose();
    }
    V.setZero();
    PB = X;
    if (o.boundary == PsoBoundary::Project) {
      Eigen::SelfAdjointEigenSolver<Eigen::MatrixXd> es(P_);
      Qe = es.eigenvectors();
      pe = es.eigenvalues();
    }
  }

  double fitness(const double* x, const double* a, PsoFitness f) const {
    double s = 0.0;
    if (f == PsoFitness::Linear) {
      for (Index d = 0; d < n; ++d) s += a[d] * x[d];
      return -s;
    }
    for (Index d = 0; d < n; ++d) {
      const double t = a[d] - x[d];
      s += t * t;
    }
    return std::sqrt(s);
  }

  // Table 1's EVALUATE step: re-score the stored personal bests against the current target, update, pick the gbest.
  void evaluate(const Vector& a, PsoFitness f) {
    for (Index i = 0; i < k; ++i) {
      const double fx = fitness(X.row(i).data(), a.data(), f);
      const double fp = fitness(PB.row(i).data(), a.data(), f);
      if (fx < fp) {
        PB.row(i) = X.row(i);
        FP[i] = fx;
      } else {
        FP[i] = fp;
      }
    }
    Index best = 0;
    for (Index i = 1; i < k; ++i)
      if (FP[i] < FP[best]) best = i;  // ties -> lowest index
    GB = PB.row(best).transpose();
    FG = FP[best];
  }

  // The particles left once `intr` is requested keep their state (the caller checks it after the move).
  void move(const Vector& a, Index iteration, const PsoOptions& o, Interruption& intr) {
    const std::uint64_t it = static_cast<std::uint64_t>(iteration);
    double shared[4] = {0, 0, 0, 0};
    if (o.rand_scope == PsoRandScope::Iteration) {
      const std::uint64_t skey = particle_key(o.seed, id, kSharedParticle);
      for (int s = 0; s < 4; ++s) shared[s] = key_uniform(skey, it, static_cast<std::uint64_t>(s));
    }
    std::int64_t reverted = 0;
    const int threads = resolve_threads(o.n_threads);
    (void)threads;
#pragma omp parallel for schedule(static) num_threads(threads) reduction(+ : reverted) if (k >= 2048 && threads > 1)
    for (Index i = 0; i < k; ++i) {
      if (intr.stopped() || ((i & 63) == 63 && intr.requested())) continue;
      const std::uint64_t key = keys[static_cast<std::size_t>(i)];
      double r[4];
      if (o.rand_scope == PsoRandScope::Iteration) {
        for (int s = 0; s < 4; ++s) r[s] = shared[s];
      } else {
        for (int s = 0; s < 4; ++s) r[s] = key_uniform(key, it, static_cast<std::uint64_t>(s));
      }
      Scratch r4buf(n);
      double* r4 = r4buf.data();
      key_normals(key, it, n, r4);
      scale_direction(n, r4, r[3]);
      const bool ok = pso_particle_step(n, X.row(i).data(), V.row(i).data(), PB.row(i).data(), GB.data(), a.data(),
                                        r[0], r[1], r[2], r4, mu.data(), P.data(), o.w, o.c1, o.c2, o.c3, o.c4);
      if (!ok) {
        ++reverted;
        if (o.boundary == PsoBoundary::Project) {
          double* xr = X.row(i).data();
          const double* vr = V.row(i).data();
          double xs[64];
          std::vector<double> big;
          double* xp = xs;
          if (n > 64) {
            big.resize(static_cast<std::size_t>(2 * n));
            xp = big.data();
          }
          for (Index d = 0; d < n; ++d) xp[d] = xr[d] + vr[d];
          project_onto_ellipsoid(n, xp, mu.data(), P.data(), Qe.data(), pe.data(), xr);
        }
      }
    }
    n_reverted += reverted;
  }
};

void record_state(const Swarm& s, SwarmTrace& t, Index j) {
  t.positions.row(j) = Eigen::Map<const Eigen::RowVectorXd>(s.X.data(), s.k * s.n);
  t.velocities.row(j) = Eigen::Map<const Eigen::RowVectorXd>(s.V.data(), s.k * s.n);
  t.pbests.row(j) = Eigen::Map<const Eigen::RowVectorXd>(s.PB.data(), s.k * s.n);
}

constexpr Index kFirstRows = 1024;  // rows allocated up front (the whole trace for max_iter < 1024)

void init_trace(SwarmTrace& t, Index T, Index k, Index n, bool record) {
  const Index rows = std::min(T, kFirstRows - 1) + 1;
  t.fitness_history.setZero(rows);
  t.gbest_history.setZero(rows, n);
  if (record) {
    t.positions.setZero(rows, k * n);
    t.velocities.setZero(rows, k * n);
    t.pbests.setZero(rows, k * n);
  }
}

}  // namespace

double pso_uniform(std::uint64_t seed, std::uint64_t swarm, std::uint64_t particle, std::uint64_t iteration,
                   std::uint64_t slot) {
  return key_uniform(particle_key(seed, swarm, particle), iteration, slot);
}

void pso_normals(std::uint64_t seed, std::uint64_t swarm, std::uint64_t particle, std::uint64_t iteration, Index n,
                 double* g) {
  key_normals(particle_key(seed, swarm, particle), iteration, n, g);
}

void pso_draws(std::uint64_t seed, std::uint64_t swarm, std::uint64_t particle, std::uint64_t iteration, Index n,
               PsoRandScope scope, double* out) {
  const std::uint64_t key = particle_key(seed, swarm, particle);
  const std::uint64_t skey = scope == PsoRandScope::Iteration ? particle_key(seed, swarm, kSharedParticle) : key;
  double rho = 0.0;
  for (int s = 0; s < 4; ++s) {
    const double u = key_uniform(skey, iteration, static_cast<std::uint64_t>(s));
    if (s < 3) out[s] = u; else rho = u;
  }
  key_normals(key, iteration, n, out + 3);
  scale_direction(n, out + 3, rho);
}

void project_onto_ellipsoid(Index n, const double* a, const double* mu, const double* P, const double* Q,
                            const double* p, double* out) {
  std::vector<double> b(static_cast<std::size_t>(n));
  for (Index i = 0; i < n; ++i) {
    double s = 0.0;
    for (Index r = 0; r < n; ++r) s += Q[i * n + r] * (a[r] - mu[r]);  // column i of Q
    b[static_cast<std::size_t>(i)] = s;
  }
  double lam = 0.0;
  for (int it = 0; it < 100; ++it) {
    double psi = -1.0, dpsi = 0.0;
    for (Index i = 0; i < n; ++i) {
      const double bi = b[static_cast<std::size_t>(i)], t = 1.0 + lam * p[i];
      psi += p[i] * bi * bi / (t * t);
      dpsi -= 2.0 * p[i] * p[i] * bi * bi / (t * t * t);
    }
    if (psi <= 0.0 || dpsi == 0.0) break;
    const double step = psi / dpsi;
    lam -= step;
    if (-step <= 1e-16 * lam) break;
  }
  for (Index r = 0; r < n; ++r) {
    double s = 0.0;
    for (Index i = 0; i < n; ++i) s += Q[i * n + r] * b[static_cast<std::size_t>(i)] / (1.0 + lam * p[i]);
    out[r] = mu[r] + s;
  }
  // Round-off can leave the point a hair outside: pull it in until the revert rule's test accepts it.
  for (int it = 0; it < 60 && pso_quad_form(n, out, mu, P) > 1.0; ++it) {
    const double q = pso_quad_form(n, out, mu, P);
    const double f = (1.0 - 1e-15 * (it + 1)) / std::sqrt(q);
    for (Index r = 0; r < n; ++r) out[r] = mu[r] + f * (out[r] - mu[r]);
  }
}

double pso_quad_form(Index n, const double* x, const double* mu, const double* P) {
  double q = 0.0;
  for (Index r = 0; r < n; ++r) {
    double row = 0.0;
    for (Index c = 0; c < n; ++c) row += P[r * n + c] * (x[c] - mu[c]);
    q += (x[r] - mu[r]) * row;
  }
  return q;
}

bool pso_particle_step(Index n, double* x, double* v, const double* pb, const double* gb, const double* a, double r1,
                       double r2, double r3, const double* r4, const double* mu, const double* P, double w,
                       double c1, double c2, double c3, double c4) {
  Scratch xnbuf(n);
  double* xn = xnbuf.data();
  for (Index d = 0; d < n; ++d) {
    const double xd = x[d];
    const double vd = w * v[d] + c1 * r1 * (pb[d] - xd) + c2 * r2 * (gb[d] - xd) + c3 * r3 * (a[d] - xd) + c4 * r4[d];
    v[d] = vd;
    xn[d] = xd + vd;
  }
  if (pso_quad_form(n, xn, mu, P) > 1.0) return false;  // revert (Section 3.2, Table 1): strict ">", no tolerance
  for (Index d = 0; d < n; ++d) x[d] = xn[d];
  return true;
}

TwoSwarmResult pso_two_swarm(const Vector& mu1, const Eigen::MatrixXd& P1, const Vector& mu2,
                             const Eigen::MatrixXd& P2, const PsoOptions& opt) {
  check_ellipsoid(mu1, P1, "ellipsoid 1");
  check_ellipsoid(mu2, P2, "ellipsoid 2");
  if (mu1.size() != mu2.size()) throw std::invalid_argument("the two ellipsoids must have the same dimension");
  check_options(opt);
  const Deadline deadline(opt.time_limit);
  Interruption intr;  // every 16 iterations, and every 64 particles of a move
  const Index T = opt.max_iter, n = mu1.size(), k = opt.n_particles;
  Swarm s1(mu1, P1, 0, opt, intr), s2(mu2, P2, 1, opt, intr);
  TwoSwarmResult res;
  init_trace(res.swarm1, T, k, n, opt.record);
  init_trace(res.swarm2, T, k, n, opt.record);
  res.distance_history.setZero(res.swarm1.fitness_history.size());

  auto log_bests = [&](Index j) {
    res.swarm1.fitness_history[j] = s1.FG;
    res.swarm2.fitness_history[j] = s2.FG;
    res.swarm1.gbest_history.row(j) = s1.GB.transpose();
    res.swarm2.gbest_history.row(j) = s2.GB.transpose();
    res.distance_history[j] = (s1.GB - s2.GB).norm();
  };
  // Initial bests: targets are the other class's mean before any best exists.
  s1.evaluate(mu2, PsoFitness::Distance);
  s2.evaluate(mu1, PsoFitness::Distance);
  log_bests(0);
  if (opt.record) {
    record_state(s1, res.swarm1, 0);
    record_state(s2, res.swarm2, 0);
  }
  Index done = T;  // iterations run: T, or fewer when the deadline passes (checked between iterations)
  for (Index j = 1; j <= T; ++j) {
    if ((j & 15) == 0 || intr.stopped()) intr.check();
    if (deadline.passed()) {
      done = j - 1;
      break;
    }
    const Index have = res.distance_history.size(), rows = grown_rows(have, j, T + 1);
    if (rows != have) {
      resize_trace(res.swarm1, rows);
      resize_trace(res.swarm2, rows);
      res.distance_history.conservativeResize(rows);
    }
    {  // evaluate the moves of iteration j-1 against the current targets (j = 1: the initial swarms)
      const Vector a1 = s2.GB, a2 = s1.GB;
      s1.evaluate(a1, PsoFitness::Distance);
      s2.evaluate(opt.sync == PsoSync::Jacobi ? a2 : Vector(s1.GB), PsoFitness::Distance);
      log_bests(j - 1);
      if (opt.record) {
        res.swarm1.pbests.row(j - 1) = Eigen::Map<const Eigen::RowVectorXd>(s1.PB.data(), k * n);
        res.swarm2.pbests.row(j - 1) = Eigen::Map<const Eigen::RowVectorXd>(s2.PB.data(), k * n);
      }
    }
    const Vector a1 = s2.GB, a2 = s1.GB;  // fresh bests for the velocity step
    s1.move(a1, j, opt, intr);
    s2.move(a2, j, opt, intr);
    if (intr.stopped()) intr.check();
    if (opt.record) {
      res.swarm1.positions.row(j) = Eigen::Map<const Eigen::RowVectorXd>(s1.X.data(), k * n);
      res.swarm2.positions.row(j) = Eigen::Map<const Eigen::RowVectorXd>(s2.X.data(), k * n);
      res.swarm1.velocities.row(j) = Eigen::Map<const Eigen::RowVectorXd>(s1.V.data(), k * n);
      res.swarm2.velocities.row(j) = Eigen::Map<const Eigen::RowVectorXd>(s2.V.data(), k * n);
    }
  }
  if (done > 0) {  // as if max_iter were `done`
    if (opt.final_eval) {
      const Vector a1 = s2.GB, a2 = s1.GB;
      s1.evaluate(a1, PsoFitness::Distance);
      s2.evaluate(opt.sync == PsoSync::Jacobi ? a2 : Vector(s1.GB), PsoFitness::Distance);
    }
    log_bests(done);
    if (opt.record) {
      res.swarm1.pbests.row(done) = Eigen::Map<const Eigen::RowVectorXd>(s1.PB.data(), k * n);
      res.swarm2.pbests.row(done) = Eigen::Map<const Eigen::RowVectorXd>(s2.PB.data(), k * n);
    }
  }
  if (res.distance_history.size() != done + 1) {
    resize_trace(res.swarm1, done + 1);
    resize_trace(res.swarm2, done + 1);
    res.distance_history.conservativeResize(done + 1);
  }
  res.n_iter = res.swarm1.n_iter = res.swarm2.n_iter = done;
  res.timed_out = res.swarm1.timed_out = res.swarm2.timed_out = done < T;
  res.x = s1.GB;
  res.y = s2.GB;
  res.distance = (res.x - res.y).norm();
  res.swarm1.gbest = s1.GB;
  res.swarm2.gbest = s2.GB;
  res.swarm1.gbest_fitness = s1.FG;
  res.swarm2.gbest_fitness = s2.FG;
  res.swarm1.n_reverted = s1.n_reverted;
  res.swarm2.n_reverted = s2.n_reverted;
  return res;
}

SwarmTrace pso_single_swarm(const Vector& mu, const Eigen::MatrixXd& P, const Vector& a, PsoFitness fitness,
                            const PsoOptions& opt) {
  check_ellipsoid(mu, P, "ellipsoid");
  if (a.size() != mu.size()) throw std::invalid_argument("the target a must have the ellipsoid's dimension");
  if (!a.allFinite()) throw std::invalid_argument("the target a must be finite");
  check_options(opt);
  const Deadline deadline(opt.time_limit);
  Interruption intr;  // every 16 iterations, and every 64 particles of a move
  const Index T = opt.max_iter, n = mu.size(), k = opt.n_particles;
  Swarm s(mu, P, 0, opt, intr);
  SwarmTrace t;
  init_trace(t, T, k, n, opt.record);
  s.evaluate(a, fitness);
  t.fitness_history[0] = s.FG;
  t.gbest_history.row(0) = s.GB.transpose();
  if (opt.record) record_state(s, t, 0);
  Index done = T;
  for (Index j = 1; j <= T; ++j) {
    if ((j & 15) == 0 || intr.stopped()) intr.check();
    if (deadline.passed()) {
      done = j - 1;
      break;
    }
    const Index have = t.fitness_history.size(), rows = grown_rows(have, j, T + 1);
    if (rows != have) resize_trace(t, rows);
    if (j > 1) {  // with a fixed target the initial evaluation above is the iteration-1 evaluation
      s.evaluate(a, fitness);
      t.fitness_history[j - 1] = s.FG;
      t.gbest_history.row(j - 1) = s.GB.transpose();
      if (opt.record) t.pbests.row(j - 1) = Eigen::Map<const Eigen::RowVectorXd>(s.PB.data(), k * n);
    }
    s.move(a, j, opt, intr);
    if (intr.stopped()) intr.check();
    if (opt.record) {
      t.positions.row(j) = Eigen::Map<const Eigen::RowVectorXd>(s.X.data(), k * n);
      t.velocities.row(j) = Eigen::Map<const Eigen::RowVectorXd>(s.V.data(), k * n);
    }
  }
  if (done > 0) {  // as if max_iter were `done`
    if (opt.final_eval) s.evaluate(a, fitness);
    t.fitness_history[done] = s.FG;
    t.gbest_history.row(done) = s.GB.transpose();
    if (opt.record) t.pbests.row(done) = Eigen::Map<const Eigen::RowVectorXd>(s.PB.data(), k * n);
  }
  if (t.fitness_history.size() != done + 1) resize_trace(t, done + 1);
  t.n_iter = done;
  t.timed_out = done < T;
  t.gbest = s.GB;
  t.gbest_fitness = s.FG;
  t.n_reverted = s.n_reverted;
  return t;
}

}  // namespace svmopt
