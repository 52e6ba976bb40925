"""EllipsoidPSOClassifier: classification as a QCQP solved by coupled particle swarms (Kumar & Ramakrishnan, paper 003).

Per binary problem (spec 003, section 2.4):

1. Projection (1.10, ``projection="pair"``): whiten the pair's training samples (eigen-decomposition of their
   covariance, eigenvalue floor ``1e-10 * max``), then project onto ``p_1 ∝ mu_1 - mu_2`` and ``p_2`` = the
   largest-|eigenvalue| eigenvector of the deflated covariance difference (``p2_mode="covdiff"``), so the QCQP
   is solved in ``n = 2`` dimensions.
2. Class ellipsoids (1.4, reading B): ``E_c = E(mu_c, M_c / rho_c)`` with ``M_c = Sigma_c^{-1}``
   (``metric="inverse"``; ``"covariance"`` is the literal eq. (15)) and ``rho_c`` the squared Mahalanobis
   distance of class c's own training point nearest (in the other class's metric) to the other class's mean.
3. Shrink fallback (1.5): if the ellipsoids intersect, both are shrunk by ``s = gamma * s*`` with
   ``s* = max_u u^T (mu_1 - mu_2) / (g_1(u) + g_2(u))``; counted in ``n_shrunk_``.
4. Closest points (QCQP* of 1.3): the two coupled swarms of eq. (7) in the C++ core (``solver="pso"``,
   :func:`pso_closest_points`), or the exact support-function dual (spec 5.3 V1, ``solver="exact"``,
   :func:`ellipsoid_closest_points`), each with a certified duality gap.
5. Hyperplane (1.9): the perpendicular bisector ``z(q) = w^T q + w_0``, ``w = x* - y*``,
   ``w_0 = (||y*||^2 - ||x*||^2) / 2``, mapped back to input space: ``w_in = W Pi w``, ``b_in = w_0 - w_in^T m``.

Multiclass (spec 2.5, A21): one-vs-one with majority vote, ties broken by the sum of normalized margins, then by
the smaller class index (``multiclass="ovr"`` is kept for ablation). Class 1 of a pair (the positive side,
``z >= 0``) is the smaller label. For two classes scikit-learn's convention is kept: ``decision_function`` is
``-z`` so that positive values mean ``classes_[1]``.
"""

from __future__ import annotations

import numbers
from dataclasses import dataclass, field
from typing import ClassVar

import numpy as np
from scipy import optimize
from sklearn.base import BaseEstimator, ClassifierMixin
from sklearn.utils import check_random_state
from sklearn.utils.multiclass import check_classification_targets
from sklearn.utils.validation import check_is_fitted, validate_data

from svmopt import _core
from svmopt._validation import (
    NONNEGATIVE,
    NONNEGATIVE_INT,
    POSITIVE_INT,
    Interval,
    Real,
    StrOptions,
    fit_context,
    validate_parameter_constraints,
)

__all__ = [
    "ClosestPoints",
    "EllipsoidPSOClassifier",
    "class_ellipsoids",
    "ellipsoid_closest_points",
    "ellipsoids_intersect",
    "project_onto_ellipsoid",
    "pso_closest_points",
    "pso_single_swarm",
    "shrink_factor",
    "support_dual",
]

_GRID = 7200  # angles of the 2-D dual grid (spec 5.3 V1)


# ----------------------------------------------------------------------------------------------- geometry
def _as_ellipsoid(mu, P, name: str) -> tuple[np.ndarray, np.ndarray]:
    mu = np.asarray(mu, dtype=np.float64)
    P = np.asarray(P, dtype=np.float64)
    if mu.ndim != 1 or mu.size < 1:
        raise ValueError(f"{name}: the centre must be a non-empty 1-D array, got shape {mu.shape}")
    n = mu.size
    if P.shape != (n, n):
        raise ValueError(f"{name}: P must have shape ({n}, {n}), got {P.shape}")
    if not (np.all(np.isfinite(mu)) and np.all(np.isfinite(P))):
        raise ValueError(f"{name}: centre and P must be finite")
    P = 0.5 * (P + P.T)
    if np.linalg.eigvalsh(P)[0] <= 0:
        raise ValueError(f"{name}: P must be symmetric positive definite")
    return np.ascontiguousarray(mu), np.ascontiguousarray(P)


def support_dual(u, mu1, P1, mu2, P2) -> np.ndarray:
    """phi(u) = u^T (mu_1 - mu_2) - sqrt(u^T P_1^{-1} u) - sqrt(u^T P_2^{-1} u) (spec 5.3 V1), rows of ``u``.

    For every unit ``u``, ``phi(u) <= D*``; ``max phi = D*`` when the ellipsoids are disjoint, ``<= 0`` otherwise.
    """
    u = np.atleast_2d(np.asarray(u, dtype=np.float64))
    S1, S2 = np.linalg.inv(P1), np.linalg.inv(P2)
    dmu = np.asarray(mu1) - np.asarray(mu2)
    q1 = np.einsum("ij,jk,ik->i", u, S1, u)
    q2 = np.einsum("ij,jk,ik->i", u, S2, u)
    return u @ dmu - np.sqrt(np.maximum(q1, 0.0)) - np.sqrt(np.maximum(q2, 0.0))


def _support_points(u, mu1, S1, mu2, S2):
    """Boundary points of E_1, E_2 with outward normals -u and +u (the V1 primal recovery)."""
    x = mu1 - S1 @ u / np.sqrt(u @ S1 @ u)
    y = mu2 + S2 @ u / np.sqrt(u @ S2 @ u)
    return x, y


def project_onto_ellipsoid(a, mu, P) -> np.ndarray:
    """Euclidean projection of ``a`` onto E(mu, P) (spec 5.3 V2): ``mu + Q (b / (1 + lambda p))``, psi(lambda) = 0.

    A point inside the ellipsoid is returned unchanged.
    """
    mu, P = _as_ellipsoid(mu, P, "ellipsoid")
    a = np.asarray(a, dtype=np.float64)
    d = a - mu
    if d @ P @ d <= 1.0:
        return a.copy()
    p, Q = np.linalg.eigh(P)
    b = Q.T @ d

    def psi(lam):
        return float(np.sum(p * b**2 / (1.0 + lam * p) ** 2) - 1.0)

    hi = float(np.sqrt(np.sum(b**2 / p)))
    while psi(hi) > 0:  # guard: the bound is exact in theory
        hi *= 2.0
    lam = optimize.brentq(psi, 0.0, hi, xtol=1e-300, rtol=4 * np.finfo(float).eps, maxiter=500)
    return mu + Q @ (b / (1.0 + lam * p))


@dataclass
class ClosestPoints:
    """Closest points x* in E_1, y* in E_2 and their certificate.

    ``lower_bound = phi((x - y)/||x - y||)`` (or the dual optimum) and ``distance = ||x - y||`` sandwich the true
    distance D*: ``lower_bound <= D* <= distance``; ``gap = distance - lower_bound`` (spec 5.3 V5).
    """

    x: np.ndarray
    y: np.ndarray
    distance: float
    lower_bound: float
    gap: float
    intersect: bool = False
    distance_history: np.ndarray | None = None
    info: dict = field(default_factory=dict)


def _certificate(x, y, mu1, P1, mu2, P2, extra_lb: float = -np.inf) -> tuple[float, float]:
    D = float(np.linalg.norm(x - y))
    lb = extra_lb
    if D > 0:
        lb = max(lb, float(support_dual((x - y) / D, mu1, P1, mu2, P2)[0]))
    return D, lb


def _maximize_on_sphere(fun, n: int, u0: np.ndarray) -> np.ndarray:
    """argmax of a degree-0 homogeneous ``fun`` over the unit sphere: grid + Brent for n = 2, BFGS otherwise."""
    if n == 1:
        cand = np.array([[1.0], [-1.0]])
        return cand[int(np.argmax([fun(c) for c in cand]))]
    if n == 2:
        th = np.linspace(-np.pi, np.pi, _GRID, endpoint=False)
        U = np.column_stack([np.cos(th), np.sin(th)])
        vals = fun(U)
        k = int(np.argmax(vals))
        step = th[1] - th[0]
        res = optimize.minimize_scalar(
            lambda t: -float(fun(np.array([[np.cos(t), np.sin(t)]]))[0]),
            bounds=(th[k] - step, th[k] + step),
            method="bounded",
            options={"xatol": 1e-13},
        )
        t = res.x if -res.fun >= vals[k] else th[k]
        return np.array([np.cos(t), np.sin(t)])
    v0 = u0 / np.linalg.norm(u0)
    res = optimize.minimize(
        lambda v: -float(fun((v / np.linalg.norm(v))[None, :])[0]), v0, method="BFGS", options={"gtol": 1e-12}
    )
    v = res.x
    return v / np.linalg.norm(v)


def ellipsoids_intersect(mu1, P1, mu2, P2) -> bool:
    """Whether E(mu1, P1) and E(mu2, P2) intersect or touch (max phi <= 0, spec 5.3 V1)."""
    mu1, P1 = _as_ellipsoid(mu1, P1, "ellipsoid 1")
    mu2, P2 = _as_ellipsoid(mu2, P2, "ellipsoid 2")
    dmu = mu1 - mu2
    if not np.any(dmu):
        return True
    u = _maximize_on_sphere(lambda U: support_dual(U, mu1, P1, mu2, P2), mu1.size, dmu)
    return bool(support_dual(u, mu1, P1, mu2, P2)[0] <= 0.0)


def ellipsoid_closest_points(mu1, P1, mu2, P2) -> ClosestPoints:
    """Exact closest points of two ellipsoids (spec 5.3 V1, the support-function dual), with a certified gap.

    For n = 2 the dual is maximized on a 7200-angle grid refined by bounded Brent; for n > 2 by BFGS on the
    sphere (every local maximum with phi > 0 is global: phi is concave and positively homogeneous). Intersecting
    ellipsoids give ``distance = 0`` and a common point (SLSQP on the primal, spec V4).
    """
    mu1, P1 = _as_ellipsoid(mu1, P1, "ellipsoid 1")
    mu2, P2 = _as_ellipsoid(mu2, P2, "ellipsoid 2")
    if mu1.size != mu2.size:
        raise ValueError("the two ellipsoids must have the same dimension")
    S1, S2 = np.linalg.inv(P1), np.linalg.inv(P2)
    dmu = mu1 - mu2
    n = mu1.size
    if np.any(dmu):
        u = _maximize_on_sphere(lambda U: support_dual(U, mu1, P1, mu2, P2), n, dmu)
        phi = float(support_dual(u, mu1, P1, mu2, P2)[0])
        if phi > 0:
            x, y = _support_points(u, mu1, S1, mu2, S2)
            D, lb = _certificate(x, y, mu1, P1, mu2, P2, extra_lb=phi)
            return ClosestPoints(x, y, D, lb, D - lb, intersect=False, info={"u": u})
    # Intersecting (or touching): any common point is optimal; find one with SLSQP on the primal.
    z = _slsqp_primal(mu1, P1, mu2, P2)
    x, y = z[:n], z[n:]
    mid = 0.5 * (x + y)
    if (mid - mu1) @ P1 @ (mid - mu1) <= 1 and (mid - mu2) @ P2 @ (mid - mu2) <= 1:
        x = y = mid
    D = float(np.linalg.norm(x - y))
    return ClosestPoints(x, y, D, 0.0, D, intersect=True)


def _slsqp_primal(mu1, P1, mu2, P2) -> np.ndarray:
    """Spec 5.3 V4: SLSQP on z = [x; y] from (mu_1, mu_2)."""
    n = mu1.size

    def f(z):
        d = z[:n] - z[n:]
        return float(d @ d)

    def g(z):
        d = z[:n] - z[n:]
        return np.concatenate([2 * d, -2 * d])

    cons = [
        {
            "type": "ineq",
            "fun": lambda z: 1 - (z[:n] - mu1) @ P1 @ (z[:n] - mu1),
            "jac": lambda z: np.concatenate([-2 * P1 @ (z[:n] - mu1), np.zeros(n)]),
        },
        {
            "type": "ineq",
            "fun": lambda z: 1 - (z[n:] - mu2) @ P2 @ (z[n:] - mu2),
            "jac": lambda z: np.concatenate([np.zeros(n), -2 * P2 @ (z[n:] - mu2)]),
        },
    ]
    res = optimize.minimize(
        f, np.concatenate([mu1, mu2]), jac=g, constraints=cons, method="SLSQP", options={"ftol": 1e-15, "maxiter": 1000}
    )
    return res.x


def shrink_factor(mu1, P1, mu2, P2) -> float:
    """s* = max_{||u||=1} u^T (mu_1 - mu_2) / (g_1(u) + g_2(u)), g_c(u) = sqrt(u^T P_c^{-1} u) (spec 1.5).

    E(mu_c, P_c / s^2) are disjoint iff s < s*; s* > 1 means the ellipsoids are already disjoint.
    """
    mu1, P1 = _as_ellipsoid(mu1, P1, "ellipsoid 1")
    mu2, P2 = _as_ellipsoid(mu2, P2, "ellipsoid 2")
    S1, S2 = np.linalg.inv(P1), np.linalg.inv(P2)
    dmu = mu1 - mu2
    if not np.any(dmu):
        return 0.0

    def ratio(U):
        U = np.atleast_2d(U)
        g = np.sqrt(np.einsum("ij,jk,ik->i", U, S1, U)) + np.sqrt(np.einsum("ij,jk,ik->i", U, S2, U))
        return (U @ dmu) / g

    u = _maximize_on_sphere(ratio, mu1.size, dmu)
    return float(max(ratio(u)[0], ratio(dmu / np.linalg.norm(dmu))[0]))


def class_ellipsoids(Q1, Q2, *, metric: str = "inverse", reading: str = "B") -> dict:
    """The class ellipsoids of spec 1.4: ``E_c = E(mu_c, M_c / rho_c)``.

    ``metric="inverse"``: M_c = Sigma_c^{-1} (REC); ``"covariance"``: M_c = Sigma_c (literal eq. (15)).
    ``reading="B"`` (REC): rho_1 = delta_1(b_1), b_1 = argmin_{x in X_1} delta_2(x) (class 1's own facing point);
    ``"A"``: rho_1 = delta_1(b_2), the ellipsoid grown to the other class's nearest point. Ties: lowest index.
    """
    Q1 = np.asarray(Q1, dtype=np.float64)
    Q2 = np.asarray(Q2, dtype=np.float64)
    n = Q1.shape[1]
    for name, Q in (("class 1", Q1), ("class 2", Q2)):
        if Q.shape[0] < n + 1:
            raise ValueError(f"{name} has {Q.shape[0]} samples; the ellipsoid in {n} dimensions needs at least {n + 1}")
    mus, Ms = [], []
    for Q in (Q1, Q2):
        mu = Q.mean(axis=0)
        Sigma = np.atleast_2d(np.cov(Q, rowvar=False, ddof=1))
        ev = np.linalg.eigvalsh(Sigma)
        if ev[0] <= 1e-12 * max(ev[-1], 1e-300):
            raise ValueError(
                "a class covariance is singular in the working space; the class ellipsoid is undefined "
                "(use more samples per class or projection='pair')"
            )
        M = np.linalg.inv(Sigma) if metric == "inverse" else Sigma
        mus.append(mu)
        Ms.append(0.5 * (M + M.T))
    (mu1, mu2), (M1, M2) = mus, Ms

    def delta(Z, mu, M):
        D = Z - mu
        return np.einsum("ij,jk,ik->i", D, M, D)

    i2 = int(np.argmin(delta(Q2, mu1, M1)))  # b_2: class-2 point nearest to mu_1 in class 1's metric
    i1 = int(np.argmin(delta(Q1, mu2, M2)))  # b_1: class-1 point nearest to mu_2 in class 2's metric
    b1, b2 = Q1[i1], Q2[i2]
    if reading == "B":
        rho1 = float(delta(b1[None], mu1, M1)[0])
        rho2 = float(delta(b2[None], mu2, M2)[0])
    else:
        rho1 = float(delta(b2[None], mu1, M1)[0])
        rho2 = float(delta(b1[None], mu2, M2)[0])
    if rho1 < 1e-12 or rho2 < 1e-12:
        raise ValueError("a facing point coincides with its class mean; the ellipsoid radius is zero")
    return {"mu1": mu1, "P1": M1 / rho1, "mu2": mu2, "P2": M2 / rho2, "b1": b1, "b2": b2, "rho1": rho1, "rho2": rho2}


# ----------------------------------------------------------------------------------------------- swarms
def _seed_from(random_state) -> int:
    if isinstance(random_state, numbers.Integral) and not isinstance(random_state, bool) and random_state >= 0:
        return int(random_state)
    try:
        rs = check_random_state(random_state)
    except (TypeError, ValueError) as exc:
        raise ValueError(f"random_state must be None, an integer >= 0 or a numpy RandomState/Generator, got "
                         f"{random_state!r} ({exc})") from None
    return int(rs.randint(0, 2**31 - 1))


_SWARM_CONSTRAINTS: dict = {
    "n_particles": [POSITIVE_INT], "max_iter": [NONNEGATIVE_INT],
    "w": [NONNEGATIVE], "c1": [NONNEGATIVE], "c2": [NONNEGATIVE], "c3": [NONNEGATIVE], "c4": [NONNEGATIVE],
    "s_init": [Interval(Real, 0, 1, closed="right")],
}


def _check_swarm_params(caller: str, **params) -> None:
    validate_parameter_constraints({k: _SWARM_CONSTRAINTS[k] for k in params}, params, caller_name=caller)


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
) -> ClosestPoints:
    """Closest points of E(mu1, P1) and E(mu2, P2) by the two coupled swarms of paper 003 (eq. (7), spec 2.2).

    The QCQP ``min ||x - y||^2 s.t. (x - mu_c)^T P_c (x - mu_c) <= 1`` (one ellipsoidal constraint per block) is
    solved in the C++ core; every particle stays feasible at every iteration. ``boundary_mode="project"`` (an
    extension, not in the paper) projects an infeasible tentative move onto the ellipsoid surface instead of
    reverting it (spec 2.2). The result carries the
    support-function certificate ``lower_bound <= D* <= distance``. ``record=True`` adds the full trajectories in
    ``info`` (``swarm1``/``swarm2``: positions, velocities, pbests of shape (max_iter + 1, n_particles, n)).
    """
    mu1, P1 = _as_ellipsoid(mu1, P1, "ellipsoid 1")
    mu2, P2 = _as_ellipsoid(mu2, P2, "ellipsoid 2")
    if mu1.size != mu2.size:
        raise ValueError("mu1 and mu2 must have the same dimension")
    _check_swarm_params("pso_closest_points", n_particles=n_particles, max_iter=max_iter, w=w, c1=c1, c2=c2, c3=c3,
                        c4=c4, s_init=s_init)
    r = _core.pso_two_swarm(
        mu1,
        P1,
        mu2,
        P2,
        n_particles=int(n_particles),
        max_iter=int(max_iter),
        w=float(w),
        c1=float(c1),
        c2=float(c2),
        c3=float(c3),
        c4=float(c4),
        s_init=float(s_init),
        seed=_seed_from(random_state),
        rand_scope=rand_scope,
        sync=sync,
        final_eval=bool(final_eval),
        record=bool(record),
        n_threads=int(n_threads),
        boundary_mode=boundary_mode,
    )
    x, y = r["x"], r["y"]
    D, lb = _certificate(x, y, mu1, P1, mu2, P2)
    return ClosestPoints(
        x,
        y,
        D,
        lb,
        D - lb if np.isfinite(lb) else np.inf,
        intersect=lb <= 0,
        distance_history=r["distance_history"],
        info={"swarm1": r["swarm1"], "swarm2": r["swarm2"]},
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
) -> dict:
    """One swarm of eq. (7) in E(mu, P) with a fixed target ``a`` (spec 2.3).

    ``fitness="linear"``: the LP with a quadratic constraint, ``max a^T x s.t. (x - mu)^T P (x - mu) <= 1``
    (paper eqs. (11)-(12); defaults: the unit disc). ``fitness="distance"``: problem (6), the point of the ellipsoid
    nearest to ``a``. Returns the core's trace dict (``gbest``, ``fitness_history`` of length max_iter + 1, ...).
    """
    a = np.asarray(a, dtype=np.float64)
    mu = np.zeros_like(a) if mu is None else mu
    P = np.eye(a.size) if P is None else P
    mu, P = _as_ellipsoid(mu, P, "ellipsoid")
    _check_swarm_params("pso_single_swarm", n_particles=n_particles, max_iter=max_iter, w=w, c1=c1, c2=c2, c3=c3,
                        c4=c4, s_init=s_init)
    return _core.pso_single_swarm(
        mu,
        P,
        a,
        fitness=fitness,
        n_particles=int(n_particles),
        max_iter=int(max_iter),
        w=float(w),
        c1=float(c1),
        c2=float(c2),
        c3=float(c3),
        c4=float(c4),
        s_init=float(s_init),
        seed=_seed_from(random_state),
        rand_scope=rand_scope,
        record=bool(record),
        boundary_mode=boundary_mode,
    )


# ----------------------------------------------------------------------------------------------- projection
def _whiten(X: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    m = X.mean(axis=0)
    C = np.atleast_2d(np.cov(X, rowvar=False, ddof=1))
    lam, V = np.linalg.eigh(C)
    if lam[-1] <= 0 or not np.isfinite(lam[-1]):
        raise ValueError("the training samples of a class pair have zero variance; nothing separates them")
    keep = lam > 1e-10 * lam[-1]
    return m, V[:, keep] / np.sqrt(lam[keep])


def _proj2(Z1: np.ndarray, Z2: np.ndarray, p2_mode: str, rng) -> np.ndarray:
    dp = Z1.shape[1]
    dmu = Z1.mean(axis=0) - Z2.mean(axis=0)
    nrm = np.linalg.norm(dmu)
    if nrm == 0:
        raise ValueError("the two class means coincide after whitening; the projection direction p_1 is undefined")
    p1 = dmu / nrm
    if dp == 1:
        return p1[:, None]
    Q = np.eye(dp) - np.outer(p1, p1)
    if p2_mode == "covdiff":
        S = Q @ (np.atleast_2d(np.cov(Z1, rowvar=False)) - np.atleast_2d(np.cov(Z2, rowvar=False))) @ Q
        lam, V = np.linalg.eigh(0.5 * (S + S.T))
        k = int(np.argmax(np.abs(lam)))
        p2 = V[:, k] if abs(lam[k]) >= 1e-12 else None
    elif p2_mode == "literal":
        S = Q @ np.atleast_2d(np.cov(np.vstack([Z1, Z2]), rowvar=False)) @ Q
        lam, V = np.linalg.eigh(0.5 * (S + S.T))
        p2 = V[:, -1]
    else:  # "random"
        p2 = Q @ rng.standard_normal(dp)
    if p2 is None or np.linalg.norm(Q @ p2) < 1e-12:
        k = int(np.argmin(np.abs(p1)))
        p2 = np.eye(dp)[k]
    p2 = Q @ p2
    p2 = p2 / np.linalg.norm(p2)
    sign = 1.0 if p2[int(np.argmax(np.abs(p2)))] > 0 else -1.0  # a deterministic orientation
    return np.column_stack([p1, sign * p2])


# ----------------------------------------------------------------------------------------------- estimator
_CHOICES = {
    "solver": ("pso", "exact"),
    "metric": ("inverse", "covariance"),
    "fallback": ("shrink", "none"),
    "projection": ("pair", "dataset", "none"),
    "multiclass": ("ovo", "ovr"),
    "p2_mode": ("covdiff", "literal", "random"),
    "reading": ("B", "A"),
    "rand_scope": ("particle", "iteration"),
    "sync": ("jacobi", "gauss_seidel"),
    "boundary_mode": ("revert", "project"),
}


class EllipsoidPSOClassifier(ClassifierMixin, BaseEstimator):
    """Linear classifier from the closest points of two class ellipsoids, found by coupled particle swarms.

    Kumar & Ramakrishnan, "Quadratically constrained quadratic programming for classification using particle
    swarms and applications" (paper 003); the choices follow spec 003 (see the module docstring).

    Parameters
    ----------
    n_particles : int, default 10
        Particles per swarm (k).
    max_iter : int, default 200
        Swarm iterations (T); the only stopping rule, as in the paper's Table 1.
    w, c1, c2, c3, c4 : float
        Coefficients of the velocity update (7): previous velocity, personal best, global best, direction towards
        the other swarm's best, craziness (random point of a sphere of random radius in [0, 1)).
    solver : {"pso", "exact"}, default "pso"
        The coupled swarms (C++ core) or the exact support-function dual (spec 5.3 V1; deterministic).
    metric : {"inverse", "covariance"}, default "inverse"
        ``Sigma^{-1}`` (Mahalanobis, spec REC) or the literal ``Sigma`` of eq. (15).
    fallback : {"shrink", "none"}, default "shrink"
        Shrink both ellipsoids by ``gamma * s*`` when they intersect (spec 1.5) or solve as they are (literal).
    projection : {"pair", "dataset", "none"}, default "pair"
        Whitening + 2-D projection fitted on the pair's training samples (spec 1.10), whitening on all training
        samples then the pair's 2-D projection, or none (the QCQP is solved in input space; spec A8).
    random_state : int, RandomState instance or None
        Seeds the swarms (one seed per fit; the k-th binary problem uses seed + k).
    multiclass : {"ovo", "ovr"}, default "ovo"
    gamma : float, default 0.9
        Shrink margin of the fallback (0 < gamma < 1).
    s_init : float, default 0.1
        Initial swarm: uniform in the ellipsoid scaled by s_init around the class mean.
    p2_mode : {"covdiff", "literal", "random"}, default "covdiff"
    reading : {"B", "A"}, default "B"
    rand_scope : {"particle", "iteration"}; sync : {"jacobi", "gauss_seidel"}
        PSO ablation switches (spec 1.6, 2.2).
    boundary_mode : {"revert", "project"}, default "revert"
        The paper's revert rule for infeasible moves, or their projection onto the ellipsoid (extension).

    Attributes
    ----------
    classes_, n_features_in_
    pairs_ : list of (int, int)
        Class indices (positive side first) of each binary model; for OvR ``(k, -1)``.
    coef_ : ndarray (n_models, n_features); intercept_ : ndarray (n_models,)
        Input-space hyperplanes ``z(v) = coef_ @ v + intercept_``; ``z >= 0`` is the positive class of the pair.
    models_ : list of dict
        Per model: whitening ``m``, ``W``, projection ``Pi``, ellipsoids ``mu1, P1, mu2, P2`` (after the shrink),
        shrink factor ``s``, closest points ``x, y``, working-space ``w, w0``.
    shrink_factors_ : ndarray (n_models,)
        ``s`` per model (1 = no shrink).
    n_shrunk_ : int
        How many binary problems needed the shrink fallback (ellipsoids intersected).
    n_iter_ : int
        Swarm iterations run per binary problem (``max_iter``; 1 for the exact solver).
    distances_, certificate_gaps_ : ndarray (n_models,)
        ``||x* - y*||`` and its certified gap ``||x* - y*|| - phi(u)`` (an upper bound on ``||x* - y*|| - D*``).
    """

    _parameter_constraints: ClassVar[dict] = {
        **_SWARM_CONSTRAINTS,
        **{name: [StrOptions(set(allowed))] for name, allowed in _CHOICES.items()},
        "random_state": ["random_state"],
        "gamma": [Interval(Real, 0, 1, closed="neither")],
    }

    def __init__(
        self,
        *,
        n_particles=10,
        max_iter=200,
        w=0.05,
        c1=0.05,
        c2=0.05,
        c3=0.05,
        c4=0.2,
        solver="pso",
        metric="inverse",
        fallback="shrink",
        projection="pair",
        random_state=None,
        multiclass="ovo",
        gamma=0.9,
        s_init=0.1,
        p2_mode="covdiff",
        reading="B",
        rand_scope="particle",
        sync="jacobi",
        boundary_mode="revert",
    ):
        self.n_particles = n_particles
        self.max_iter = max_iter
        self.w = w
        self.c1 = c1
        self.c2 = c2
        self.c3 = c3
        self.c4 = c4
        self.solver = solver
        self.metric = metric
        self.fallback = fallback
        self.projection = projection
        self.random_state = random_state
        self.multiclass = multiclass
        self.gamma = gamma
        self.s_init = s_init
        self.p2_mode = p2_mode
        self.reading = reading
        self.rand_scope = rand_scope
        self.sync = sync
        self.boundary_mode = boundary_mode

    def __sklearn_tags__(self):
        tags = super().__sklearn_tags__()
        tags.classifier_tags.multi_class = True
        tags.input_tags.allow_nan = False
        tags.non_deterministic = False
        return tags

    # ---------------------------------------------------------------- fitting
    @fit_context
    def fit(self, X, y):
        """Fit one binary model per class pair (OvO) or per class (OvR) on ``X`` (n_samples, n_features).

        Atomic: on an error or an interrupt the estimator is left as it was before the call."""
        X, y = validate_data(self, X, y, dtype=np.float64, ensure_min_samples=2)
        check_classification_targets(y)
        self.classes_, yi = np.unique(y, return_inverse=True)
        K = self.classes_.size
        if K < 2:
            raise ValueError(f"EllipsoidPSOClassifier needs at least 2 classes; got 1 class: {self.classes_}")
        seed = _seed_from(self.random_state)
        rng = np.random.RandomState(seed)
        if self.projection == "dataset":
            glob = _whiten(X)
        else:
            glob = None
        if self.multiclass == "ovo" or K == 2:
            pairs = [(a, b) for a in range(K) for b in range(a + 1, K)]
        else:
            pairs = [(a, -1) for a in range(K)]
        models = []
        for k, (a, b) in enumerate(pairs):
            V1 = X[yi == a]
            V2 = X[yi == b] if b >= 0 else X[yi != a]
            models.append(self._fit_binary(V1, V2, glob, seed + k, rng))
        self.pairs_ = pairs
        self.models_ = models
        self.coef_ = np.array([mdl["w_in"] for mdl in models])
        self.intercept_ = np.array([mdl["b_in"] for mdl in models])
        self.shrink_factors_ = np.array([mdl["s"] for mdl in models])
        self.n_shrunk_ = int(np.sum(self.shrink_factors_ < 1.0))
        self.distances_ = np.array([mdl["distance"] for mdl in models])
        self.certificate_gaps_ = np.array([mdl["gap"] for mdl in models])
        self.n_iter_ = int(self.max_iter) if self.solver == "pso" else 1
        return self

    def _fit_binary(self, V1, V2, glob, seed, rng) -> dict:
        d = V1.shape[1]
        if self.projection == "none":
            m, W, Pi = np.zeros(d), np.eye(d), np.eye(d)
        else:
            m, W = glob if glob is not None else _whiten(np.vstack([V1, V2]))
            Pi = _proj2((V1 - m) @ W, (V2 - m) @ W, self.p2_mode, rng)
        T = W @ Pi  # input -> working: q = T^T (v - m)
        Q1, Q2 = (V1 - m) @ T, (V2 - m) @ T
        E = class_ellipsoids(Q1, Q2, metric=self.metric, reading=self.reading)
        mu1, P1, mu2, P2 = E["mu1"], E["P1"], E["mu2"], E["P2"]
        s = 1.0
        if self.fallback == "shrink":
            s_star = shrink_factor(mu1, P1, mu2, P2)
            if s_star <= 1.0:
                if s_star <= 0.0:
                    raise ValueError("the class means coincide in the working space; the shrink fallback is undefined")
                s = self.gamma * s_star
                P1, P2 = P1 / s**2, P2 / s**2
        if self.solver == "exact":
            cp = ellipsoid_closest_points(mu1, P1, mu2, P2)
        else:
            cp = pso_closest_points(
                mu1,
                P1,
                mu2,
                P2,
                n_particles=self.n_particles,
                max_iter=self.max_iter,
                w=self.w,
                c1=self.c1,
                c2=self.c2,
                c3=self.c3,
                c4=self.c4,
                s_init=self.s_init,
                random_state=seed,
                rand_scope=self.rand_scope,
                sync=self.sync,
                boundary_mode=self.boundary_mode,
            )
        x, yv = cp.x, cp.y
        wv = x - yv
        w0 = 0.5 * (yv @ yv - x @ x)
        if not np.any(wv):  # intersecting ellipsoids without fallback: fall back to the mean bisector direction
            wv = mu1 - mu2
            w0 = -wv @ (0.5 * (mu1 + mu2))
        w_in = T @ wv
        b_in = w0 - w_in @ m
        return {
            "m": m,
            "W": W,
            "Pi": Pi,
            "mu1": mu1,
            "P1": P1,
            "mu2": mu2,
            "P2": P2,
            "s": s,
            "x": x,
            "y": yv,
            "w": wv,
            "w0": float(w0),
            "w_in": w_in,
            "b_in": float(b_in),
            "distance": cp.distance,
            "gap": cp.gap,
            "ellipsoids": E,
        }

    # ---------------------------------------------------------------- prediction
    def _pair_scores(self, X) -> np.ndarray:
        check_is_fitted(self)
        X = validate_data(self, X, dtype=np.float64, reset=False)
        return X @ self.coef_.T + self.intercept_

    def decision_function(self, X):
        """Binary: ``-z`` (positive means ``classes_[1]``). Multiclass: (n_samples, n_classes) votes plus
        normalized margins scaled into (-1/3, 1/3), so that the argmax is the prediction (ties as in spec 2.5)."""
        Z = self._pair_scores(X)
        K = self.classes_.size
        if K == 2:
            return -Z[:, 0]
        norms = np.linalg.norm(self.coef_, axis=1)
        norms[norms == 0] = 1.0
        Zn = Z / norms
        n = Z.shape[0]
        if self.multiclass == "ovr":
            return Zn
        votes = np.zeros((n, K))
        margin = np.zeros((n, K))
        for k, (a, b) in enumerate(self.pairs_):
            pos = Z[:, k] >= 0
            votes[:, a] += pos
            votes[:, b] += ~pos
            margin[:, a] += Zn[:, k]
            margin[:, b] -= Zn[:, k]
        return votes + margin / (3.0 * (np.abs(margin) + 1.0))

    def predict(self, X):
        """Class labels: ``z >= 0`` gives the pair's first class; multiclass by OvO vote (spec 2.5)."""
        D = self.decision_function(X)
        if self.classes_.size == 2:
            return self.classes_[(D > 0).astype(int)]
        return self.classes_[np.argmax(D, axis=1)]
