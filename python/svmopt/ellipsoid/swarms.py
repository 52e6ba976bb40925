"""The coupled particle swarms of paper 003 (eq. (7)) in the C++ core: closest points of two ellipsoids by two
swarms, and the single-swarm optimizer of a linear objective over one ellipsoid (the paper's LP illustration).
"""

from __future__ import annotations

import numbers
from typing import Any, TypedDict, TypeVar

import numpy as np
from sklearn.utils import check_random_state

from svmopt import _core
from svmopt._shared.validation import (
    NONNEGATIVE,
    NONNEGATIVE_INT,
    POSITIVE_INT,
    Interval,
    Real,
    validate_parameter_constraints,
)
from svmopt.ellipsoid.geometry import ClosestPoints, as_ellipsoid, certificate


def seed_from(random_state: Any) -> int:
    if isinstance(random_state, numbers.Integral) and not isinstance(random_state, bool) and int(random_state) >= 0:
        return int(random_state)
    try:
        rs = check_random_state(random_state)
    except (TypeError, ValueError) as exc:
        raise ValueError(f"random_state must be None, an integer >= 0 or a numpy RandomState/Generator, got "
                         f"{random_state!r} ({exc})") from None
    return int(rs.randint(0, 2**31 - 1))


SWARM_CONSTRAINTS: dict[str, list[Any]] = {
    "n_particles": [POSITIVE_INT], "max_iter": [NONNEGATIVE_INT],
    "w": [NONNEGATIVE], "c1": [NONNEGATIVE], "c2": [NONNEGATIVE], "c3": [NONNEGATIVE], "c4": [NONNEGATIVE],
    "s_init": [Interval(Real, 0, 1, closed="right")],
}


class _SwarmArgs(TypedDict):
    """The keyword arguments of eq. (7) that ``_core.ellipsoid.two_swarm`` and ``single_swarm`` share."""

    n_particles: int
    max_iter: int
    w: float
    c1: float
    c2: float
    c3: float
    c4: float
    s_init: float
    seed: int


def _swarm_args(caller: str, random_state: Any, *, n_particles: Any, max_iter: Any, w: Any, c1: Any, c2: Any,
                c3: Any, c4: Any, s_init: Any) -> _SwarmArgs:
    """The swarm parameters of eq. (7), validated against ``SWARM_CONSTRAINTS`` and typed as the core takes them,
    with the core's ``seed`` drawn from ``random_state``."""
    params = {"n_particles": n_particles, "max_iter": max_iter, "w": w, "c1": c1, "c2": c2, "c3": c3, "c4": c4,
              "s_init": s_init}
    validate_parameter_constraints(SWARM_CONSTRAINTS, params, caller_name=caller)
    return _SwarmArgs(n_particles=int(n_particles), max_iter=int(max_iter), w=float(w), c1=float(c1), c2=float(c2),
                      c3=float(c3), c4=float(c4), s_init=float(s_init), seed=seed_from(random_state))


def _time_limit(caller: str, max_time: Any) -> float | None:
    """``max_time`` (seconds >= 0 or None) as the core's ``time_limit``; ValueError naming it otherwise."""
    if max_time is None:
        return None
    validate_parameter_constraints({"max_time": [NONNEGATIVE]}, {"max_time": max_time}, caller_name=caller)
    return float(max_time)


_E = TypeVar("_E", _core.ellipsoid.RandScope, _core.ellipsoid.Sync, _core.ellipsoid.Boundary, _core.ellipsoid.Fitness)


def _option(kind: type[_E], name: str, value: Any) -> _E:
    """The member of the core's option enum ``kind`` named ``value``; ValueError naming the parameter otherwise."""
    members = kind.__members__
    if not isinstance(value, str) or value not in members:
        raise ValueError(f"{name} must be {' or '.join(map(repr, members))}, got {value!r}")
    return members[value]


def _trace_dict(trace: _core.ellipsoid.SwarmTrace) -> dict[str, Any]:
    """A swarm's trace as a dict: ``gbest``, ``gbest_fitness``, ``fitness_history`` (n_iter + 1),
    ``gbest_history``, ``n_reverted``, ``n_iter`` (iterations run), ``timed_out``, and with ``record=True``
    ``positions``, ``velocities``, ``pbests`` of shape (n_iter + 1, n_particles, n)."""
    out: dict[str, Any] = {"gbest": trace.gbest, "gbest_fitness": trace.gbest_fitness,
                           "fitness_history": trace.fitness_history, "gbest_history": trace.gbest_history,
                           "n_reverted": trace.n_reverted, "n_iter": int(trace.n_iter),
                           "timed_out": bool(trace.timed_out)}
    for key, value in (("positions", trace.positions), ("velocities", trace.velocities), ("pbests", trace.pbests)):
        if value is not None:
            out[key] = value
    return out


def pso_closest_points(
    mu1,
    P1,
    mu2,
    P2,
    *,
    n_particles: int = 10,
    max_iter: int = 200,
    w: float = 0.05,
    c1: float = 0.05,
    c2: float = 0.05,
    c3: float = 0.05,
    c4: float = 0.2,
    s_init: float = 0.1,
    random_state=None,
    rand_scope: str = "particle",
    sync: str = "jacobi",
    final_eval: bool = True,
    record: bool = False,
    n_threads: int = 0,
    boundary_mode: str = "revert",
    max_time: float | None = None,
) -> ClosestPoints:
    """Closest points of E(mu1, P1) and E(mu2, P2) by the two coupled swarms of paper 003 (eq. (7),
    Section 3.2 and Table 1).

    The QCQP ``min ||x - y||^2 s.t. (x - mu_c)^T P_c (x - mu_c) <= 1`` (one ellipsoidal constraint per block) is
    solved in the C++ core; every particle stays feasible at every iteration. ``boundary_mode="project"`` (an
    extension, not in the paper) projects an infeasible tentative move onto the ellipsoid surface instead of
    reverting it. The result carries the
    support-function certificate ``lower_bound <= D* <= distance``. ``record=True`` adds the full trajectories in
    ``info`` (``swarm1``/``swarm2``: positions, velocities, pbests of shape (max_iter + 1, n_particles, n)).

    ``max_time`` (seconds >= 0, None: no limit) is checked by the core between iterations: a run it stops after
    ``j < max_iter`` iterations returns the best particles so far, exactly the result of ``max_iter=j``;
    ``info["n_iter"]`` is the iterations run and ``info["timed_out"]`` says whether the limit stopped the run.
    """
    mu1, P1 = as_ellipsoid(mu1, P1, "ellipsoid 1")
    mu2, P2 = as_ellipsoid(mu2, P2, "ellipsoid 2")
    if mu1.size != mu2.size:
        raise ValueError("mu1 and mu2 must have the same dimension")
    swarm = _swarm_args("pso_closest_points", random_state, n_particles=n_particles, max_iter=max_iter, w=w, c1=c1,
                        c2=c2, c3=c3, c4=c4, s_init=s_init)
    r = _core.ellipsoid.two_swarm(
        mu1,
        P1,
        mu2,
        P2,
        **swarm,
        rand_scope=_option(_core.ellipsoid.RandScope, "rand_scope", rand_scope),
        sync=_option(_core.ellipsoid.Sync, "sync", sync),
        final_eval=bool(final_eval),
        record=bool(record),
        n_threads=int(n_threads),
        boundary=_option(_core.ellipsoid.Boundary, "boundary_mode", boundary_mode),
        time_limit=_time_limit("pso_closest_points", max_time),
    )
    x, y = r.x, r.y
    D, lb = certificate(x, y, mu1, P1, mu2, P2)
    return ClosestPoints(
        x,
        y,
        D,
        lb,
        D - lb if np.isfinite(lb) else np.inf,
        intersect=lb <= 0,
        distance_history=r.distance_history,
        info={"swarm1": _trace_dict(r.swarm1), "swarm2": _trace_dict(r.swarm2), "n_iter": int(r.n_iter),
              "timed_out": bool(r.timed_out)},
    )


def pso_single_swarm(
    a,
    mu=None,
    P=None,
    *,
    fitness: str = "linear",
    n_particles: int = 10,
    max_iter: int = 50,
    w: float = 0.05,
    c1: float = 0.05,
    c2: float = 0.05,
    c3: float = 0.05,
    c4: float = 0.2,
    s_init: float = 1.0,
    random_state=None,
    rand_scope: str = "particle",
    record: bool = False,
    boundary_mode: str = "revert",
    max_time: float | None = None,
) -> dict[str, Any]:
    """One swarm of eq. (7) in E(mu, P) with a fixed target ``a`` (single-swarm variants of Section 3).

    ``fitness="linear"``: the LP with a quadratic constraint, ``max a^T x s.t. (x - mu)^T P (x - mu) <= 1``
    (paper eqs. (11)-(12); defaults: the unit disc). ``fitness="distance"``: problem (6), the point of the ellipsoid
    nearest to ``a``. Returns the swarm's trace as a dict (``gbest``, ``gbest_fitness``, ``fitness_history`` of length
    max_iter + 1, ``gbest_history``, ``n_reverted``; with ``record=True`` also ``positions``, ``velocities``,
    ``pbests``). ``max_time``: as in :func:`pso_closest_points` (``n_iter``, ``timed_out`` in the trace).
    """
    a = np.asarray(a, dtype=np.float64)
    mu = np.zeros_like(a) if mu is None else mu
    P = np.eye(a.size) if P is None else P
    mu, P = as_ellipsoid(mu, P, "ellipsoid")
    swarm = _swarm_args("pso_single_swarm", random_state, n_particles=n_particles, max_iter=max_iter, w=w, c1=c1,
                        c2=c2, c3=c3, c4=c4, s_init=s_init)
    trace = _core.ellipsoid.single_swarm(
        mu,
        P,
        a,
        fitness=_option(_core.ellipsoid.Fitness, "fitness", fitness),
        **swarm,
        rand_scope=_option(_core.ellipsoid.RandScope, "rand_scope", rand_scope),
        record=bool(record),
        boundary=_option(_core.ellipsoid.Boundary, "boundary_mode", boundary_mode),
        time_limit=_time_limit("pso_single_swarm", max_time),
    )
    return _trace_dict(trace)
