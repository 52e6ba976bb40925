"""Ellipsoid geometry of paper 003: support functions, projections, intersection, shrinking, and the exact
closest points of two ellipsoids (the support-function dual, with a certified duality gap).

The swarms that solve the same problem approximately are in :mod:`svmopt.ellipsoid.swarms`; the estimator that builds
the class ellipsoids and uses both is :class:`svmopt.EllipsoidPSOClassifier`.
"""

from __future__ import annotations

import functools
import math
from dataclasses import dataclass, field

import numpy as np
from scipy import optimize

from svmopt._shared.moments import power_of_two_unit

_GRID = 7200  # angles of the 2-D grid of the support-function dual (ellipsoid_closest_points)
_COARSE = 360  # angles of the first, coarse 2-D grid (see _maximize_on_sphere)


def as_ellipsoid(mu, P, name: str) -> tuple[np.ndarray, np.ndarray]:
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
    if not _positive_definite(P):
        raise ValueError(f"{name}: P must be symmetric positive definite")
    return np.ascontiguousarray(mu), np.ascontiguousarray(P)


def _positive_definite(P: np.ndarray) -> bool:
    """Whether the symmetric P is positive definite (closed form for n <= 2: a fit checks many 2 x 2 matrices)."""
    if P.shape[0] == 1:
        return bool(P[0, 0] > 0)
    if P.shape[0] == 2:
        return bool(P[0, 0] > 0 and P[0, 0] * P[1, 1] - P[0, 1] * P[1, 0] > 0)
    return bool(np.linalg.eigvalsh(P)[0] > 0)


def _inverse(P: np.ndarray) -> np.ndarray:
    """P^{-1} (the adjugate over the determinant for 2 x 2)."""
    if P.shape == (2, 2):
        (a, b), (c, d) = P.tolist()
        return np.array([[d, -b], [-c, a]]) / (a * d - b * c)
    return np.linalg.inv(P)


def _quadratic(U: np.ndarray, S: np.ndarray) -> np.ndarray:
    """``u^T S u`` for each row u of U."""
    return np.sum((U @ S) * U, axis=1)


def support_dual(u, mu1, P1, mu2, P2) -> np.ndarray:
    """phi(u) = u^T (mu_1 - mu_2) - sqrt(u^T P_1^{-1} u) - sqrt(u^T P_2^{-1} u), rows of ``u``: the
    support-function dual of the closest-points problem, ``D* = max_{||u||=1} phi(u)``.

    For every unit ``u``, ``phi(u) <= D*``; ``max phi = D*`` when the ellipsoids are disjoint, ``<= 0`` otherwise.
    """
    return _dual(np.asarray(mu1) - np.asarray(mu2), _inverse(np.asarray(P1)), _inverse(np.asarray(P2)))(u)


def _dual(dmu: np.ndarray, S1: np.ndarray, S2: np.ndarray):
    """:func:`support_dual` with the inverses ``S_c = P_c^{-1}`` formed once (a search evaluates it many times)."""

    def phi(u) -> np.ndarray:
        u = np.atleast_2d(np.asarray(u, dtype=np.float64))
        q1, q2 = _quadratic(u, S1), _quadratic(u, S2)
        return u @ dmu - np.sqrt(np.maximum(q1, 0.0)) - np.sqrt(np.maximum(q2, 0.0))

    return phi


def _slopes_2d(dmu: np.ndarray, S1: np.ndarray, S2: np.ndarray):
    """The angle derivatives at ``u = (cos t, sin t)``, ``v = (-sin t, cos t)`` (2-D, in floats: a root search
    evaluates them often): of the dual, ``phi'(t) = v^T dmu - m_1 / g_1 - m_2 / g_2`` (``v^T (x(u) - y(u))`` for the
    support points of :func:`_support_points`, zero where ``x - y`` is parallel to ``u``), and the sign of the
    shrink ratio's, ``(u^T dmu)' (g_1 + g_2) - u^T dmu (g_1 + g_2)'``; ``g_c = sqrt(u^T S_c u)``,
    ``m_c = v^T S_c u = g_c g_c'``."""
    dx, dy = float(dmu[0]), float(dmu[1])
    (a1, b1), (_, c1) = S1.tolist()
    (a2, b2), (_, c2) = S2.tolist()

    def parts(t: float) -> tuple[float, float, float, float, float, float]:
        c, s_ = math.cos(t), math.sin(t)
        cc, ss, cs = c * c, s_ * s_, c * s_
        g1 = math.sqrt(max(a1 * cc + 2.0 * b1 * cs + c1 * ss, 0.0))
        g2 = math.sqrt(max(a2 * cc + 2.0 * b2 * cs + c2 * ss, 0.0))
        m1 = (c1 - a1) * cs + b1 * (cc - ss)
        m2 = (c2 - a2) * cs + b2 * (cc - ss)
        return c * dx + s_ * dy, c * dy - s_ * dx, g1, g2, m1, m2

    def dual(t: float) -> float:
        _, da, g1, g2, m1, m2 = parts(t)
        return da - m1 / g1 - m2 / g2

    def ratio(t: float) -> float:
        a, da, g1, g2, m1, m2 = parts(t)
        return da * (g1 + g2) - a * (m1 / g1 + m2 / g2)

    return dual, ratio


def _support_points(u, mu1, S1, mu2, S2):
    """Boundary points of E_1, E_2 with outward normals -u and +u (the primal recovery of the
    support-function dual)."""
    x = mu1 - S1 @ u / np.sqrt(u @ S1 @ u)
    y = mu2 + S2 @ u / np.sqrt(u @ S2 @ u)
    return x, y


def project_onto_ellipsoid(a, mu, P) -> np.ndarray:
    """Euclidean projection of ``a`` onto E(mu, P) (problem (6) solved exactly by 1-D root finding):
    ``mu + Q (b / (1 + lambda p))``, psi(lambda) = 0.

    A point inside the ellipsoid is returned unchanged.
    """
    mu, P = as_ellipsoid(mu, P, "ellipsoid")
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
    distance D*: ``lower_bound <= D* <= distance``; ``gap = distance - lower_bound`` (weak duality:
    ``phi((x - y) / ||x - y||) <= D*`` for any feasible pair).
    """

    x: np.ndarray
    y: np.ndarray
    distance: float
    lower_bound: float
    gap: float
    intersect: bool = False
    distance_history: np.ndarray | None = None
    info: dict = field(default_factory=dict)


def certificate(x, y, mu1, P1, mu2, P2, extra_lb: float = -np.inf) -> tuple[float, float]:
    D = float(np.linalg.norm(x - y))
    lb = extra_lb
    if D > 0:
        lb = max(lb, float(support_dual((x - y) / D, mu1, P1, mu2, P2)[0]))
    return D, lb


def _maximize_on_sphere(fun, n: int, u0: np.ndarray, slope=None) -> np.ndarray:
    """argmax of a degree-0 homogeneous ``fun`` over the unit sphere: a grid and a 1-D search for n = 2, BFGS
    otherwise.

    n = 2: ``fun`` is the support-function dual ``phi`` or the shrink ratio of :func:`shrink_factor`; for both and
    every t >= 0 the directions with ``fun >= t`` form a convex cone (``phi(u) - t ||u||`` and
    ``u^T dmu - t (g_1(u) + g_2(u))`` are concave and positively homogeneous), so on the circle ``fun`` is unimodal
    over the arc where it is positive. A positive best angle of a coarse grid (:data:`_COARSE` angles) therefore
    brackets the maximum between its two neighbours; without one (the arc, if any, narrower than the coarse step)
    the fine grid of :data:`_GRID` angles is searched. In the bracket the maximum is the root of ``slope`` (its
    derivative in the angle, or a function of that sign), found by Brent's root search to the rounding of the
    angle; where the slope does not change sign there (a bracket reaching beyond the arc), Brent's minimization
    of ``-fun``, whose flat top limits it to about the square root of the rounding."""
    if n == 1:
        cand = np.array([[1.0], [-1.0]])
        return cand[int(np.argmax([fun(c) for c in cand]))]
    if n == 2:
        for size in (_COARSE, _GRID):
            U = _circle(size)
            vals = fun(U)
            k = int(np.argmax(vals))
            if vals[k] > 0:
                break
        step = 2.0 * np.pi / size
        t0 = -np.pi + step * k
        lo, hi = (slope(t0 - step), slope(t0 + step)) if slope is not None else (0.0, 0.0)
        if lo > 0.0 > hi:
            t = float(optimize.brentq(slope, t0 - step, t0 + step, xtol=1e-16, rtol=4 * np.finfo(float).eps))
        else:  # on the offset from the best angle: Brent's tolerance has a term relative to the argument
            res = optimize.minimize_scalar(
                lambda s: -float(fun(np.array([[np.cos(t0 + s), np.sin(t0 + s)]]))[0]),
                bounds=(-step, step),
                method="bounded",
                options={"xatol": 1e-13},
            )
            t = t0 + res.x if -res.fun >= vals[k] else t0
        return np.array([np.cos(t), np.sin(t)])
    v0 = u0 / np.linalg.norm(u0)
    # fun in the power of two of its magnitude at +-v0: BFGS's gradient tolerance is absolute, and fun (a distance)
    # scales with the data, so without it the stopping point (and the model) moved with the scale of X
    magnitude = float(np.max(np.abs(fun(np.vstack([v0, -v0])))))
    unit = float(power_of_two_unit(np.asarray(magnitude)))
    res = optimize.minimize(
        lambda v: -float(fun((v / np.linalg.norm(v))[None, :])[0]) / unit, v0, method="BFGS", options={"gtol": 1e-12}
    )
    v = res.x
    return v / np.linalg.norm(v)


@functools.lru_cache(maxsize=2)
def _circle(size: int) -> np.ndarray:
    """``size`` unit vectors at the angles ``-pi + 2 pi k / size`` (read-only)."""
    th = np.linspace(-np.pi, np.pi, size, endpoint=False)
    U = np.column_stack([np.cos(th), np.sin(th)])
    U.flags.writeable = False
    return U


def ellipsoids_intersect(mu1, P1, mu2, P2) -> bool:
    """Whether E(mu1, P1) and E(mu2, P2) intersect or touch (max phi <= 0 of the support-function dual)."""
    mu1, P1 = as_ellipsoid(mu1, P1, "ellipsoid 1")
    mu2, P2 = as_ellipsoid(mu2, P2, "ellipsoid 2")
    dmu = mu1 - mu2
    if not np.any(dmu):
        return True
    dual = _dual(dmu, _inverse(P1), _inverse(P2))
    u = _maximize_on_sphere(dual, mu1.size, dmu)
    return bool(dual(u)[0] <= 0.0)


def ellipsoid_closest_points(mu1, P1, mu2, P2) -> ClosestPoints:
    """Exact closest points of two ellipsoids (the support-function dual), with a certified gap.

    For n = 2 the dual is maximized on a 7200-angle grid refined by bounded Brent; for n > 2 by BFGS on the
    sphere (every local maximum with phi > 0 is global: phi is concave and positively homogeneous). Intersecting
    ellipsoids give ``distance = 0`` and a common point (SLSQP on the primal).
    """
    mu1, P1 = as_ellipsoid(mu1, P1, "ellipsoid 1")
    mu2, P2 = as_ellipsoid(mu2, P2, "ellipsoid 2")
    if mu1.size != mu2.size:
        raise ValueError("the two ellipsoids must have the same dimension")
    S1, S2 = _inverse(P1), _inverse(P2)
    dmu = mu1 - mu2
    n = mu1.size
    if np.any(dmu):
        dual = _dual(dmu, S1, S2)
        u = _maximize_on_sphere(dual, n, dmu, _slopes_2d(dmu, S1, S2)[0] if n == 2 else None)
        phi = float(dual(u)[0])
        if phi > 0:
            x, y = _support_points(u, mu1, S1, mu2, S2)
            D, lb = certificate(x, y, mu1, P1, mu2, P2, extra_lb=phi)
            return ClosestPoints(x, y, D, lb, D - lb, intersect=False, info={"u": u})
    # Intersecting (or touching): any common point is optimal; find one with SLSQP on the primal.
    z = slsqp_primal(mu1, P1, mu2, P2)
    x, y = z[:n], z[n:]
    mid = 0.5 * (x + y)
    if (mid - mu1) @ P1 @ (mid - mu1) <= 1 and (mid - mu2) @ P2 @ (mid - mu2) <= 1:
        x = y = mid
    D = float(np.linalg.norm(x - y))
    return ClosestPoints(x, y, D, 0.0, D, intersect=True)


def slsqp_primal(mu1, P1, mu2, P2) -> np.ndarray:
    """SLSQP on the primal, z = [x; y] from (mu_1, mu_2)."""
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
    """s* = max_{||u||=1} u^T (mu_1 - mu_2) / (g_1(u) + g_2(u)), g_c(u) = sqrt(u^T P_c^{-1} u): the largest
    common shrink factor at which the two ellipsoids still do not overlap (the fallback for intersecting
    ellipsoids, not in the paper).

    E(mu_c, P_c / s^2) are disjoint iff s < s*; s* > 1 means the ellipsoids are already disjoint.
    """
    mu1, P1 = as_ellipsoid(mu1, P1, "ellipsoid 1")
    mu2, P2 = as_ellipsoid(mu2, P2, "ellipsoid 2")
    S1, S2 = _inverse(P1), _inverse(P2)
    dmu = mu1 - mu2
    if not np.any(dmu):
        return 0.0

    def ratio(U):
        U = np.atleast_2d(U)
        g = np.sqrt(_quadratic(U, S1)) + np.sqrt(_quadratic(U, S2))
        return (U @ dmu) / g

    u = _maximize_on_sphere(ratio, mu1.size, dmu, _slopes_2d(dmu, S1, S2)[1] if mu1.size == 2 else None)
    return float(max(ratio(u)[0], ratio(dmu / np.linalg.norm(dmu))[0]))


#: Ridge added (relative to the largest eigenvalue) to a class covariance that is singular at that level.
SINGULAR_RIDGE = 1e-6


def weighted_mean_cov(Q: np.ndarray, w: np.ndarray | None = None) -> tuple[np.ndarray, np.ndarray]:
    """Mean and covariance of the rows of ``Q``; ``w`` (positive): frequency weights.

    Unweighted: ``Q.mean(axis=0)`` and ``np.cov(Q, rowvar=False, ddof=1)``, exactly. Weighted:
    ``m = sum_i w_i q_i / W`` and ``C = sum_i w_i (q_i - m)(q_i - m)^T / (W - min(1, sum_i w_i^2 / W))``,
    ``W = sum_i w_i``, computed on the weights over a power of two (:func:`unit_weights`), so at any finite
    magnitude of the weights. The denominator is ``W - 1`` whenever every weight is >= 1 (then ``sum w^2 / W >= 1``), so
    integer weights give the covariance of the repeated rows; it stays positive for weights below 1 (where
    ``W - 1`` may not be), and equal weights ``c <= 1`` give the unweighted covariance.
    """
    if w is None:
        return Q.mean(axis=0), np.atleast_2d(np.cov(Q, rowvar=False, ddof=1))
    u, unit = unit_weights(w)
    U = float(u.sum())
    m = (u @ Q) / U
    D = Q - m
    # the denominator W - min(1, sum w^2 / W) (svmopt._shared.moments.weighted_variance_denominator) over unit
    denom = U - min(1.0 / unit, float(u @ u) / U)
    return m, np.atleast_2d((D * u[:, None]).T @ D / (denom if denom > 0.0 else 1.0 / unit))


def unit_weights(w: np.ndarray) -> tuple[np.ndarray, float]:
    """``(w / unit, unit)``, ``unit`` the power of two at or above the largest weight: the division is exact, so
    every weighted mean and covariance computed from ``w / unit`` has the bits of the one from ``w``, without the
    overflow of ``w @ Q`` or ``w @ w`` for weights near 1e300 (or the underflow for weights near 1e-300)."""
    unit = float(power_of_two_unit(np.max(w)))
    return w / unit, unit


def class_ellipsoids(Q1, Q2, *, metric: str = "inverse", reading: str = "B", w1=None, w2=None) -> dict:
    """The class ellipsoids of paper 003, Section 4.2 and eq. (15): ``E_c = E(mu_c, M_c / rho_c)``.

    ``metric="inverse"``: M_c = Sigma_c^{-1} (default; decision: the Mahalanobis
    construction of the text needs the inverse); ``"covariance"``: M_c = Sigma_c (literal eq. (15)).
    ``reading="B"`` (default; decision: the paper does not say which point fixes which boundary):
    rho_1 = delta_1(b_1), b_1 = argmin_{x in X_1} delta_2(x) (class 1's own facing point);
    ``"A"``: rho_1 = delta_1(b_2), the ellipsoid grown to the other class's nearest point. Ties: lowest index.

    ``w1``, ``w2`` (positive frequency weights of the rows, or None): mu_c and Sigma_c are the weighted mean and
    covariance (:func:`weighted_mean_cov`); the facing points b_c are minima over the rows, which a row's weight
    does not move. A class needs ``n + 1`` rows, or with weights a total weight of ``n + 1`` (so that integer
    weights count as repeated rows).
    """
    Q1 = np.asarray(Q1, dtype=np.float64)
    Q2 = np.asarray(Q2, dtype=np.float64)
    check_class_sizes(Q1, Q2, w1, w2)
    return ellipsoids_from_moments(Q1, Q2, [weighted_mean_cov(Q1, w1), weighted_mean_cov(Q2, w2)], metric=metric,
                                   reading=reading, delta=_delta, row=lambda Q, i: Q[i])


def check_class_sizes(Q1, Q2, w1=None, w2=None) -> None:
    """Each class has the ``n + 1`` rows (or, weighted, the total weight) its ellipsoid in n dimensions needs; a
    ValueError naming the class otherwise (dense or sparse rows alike: only their shapes and weights are read)."""
    n = Q1.shape[1]
    for name, Q, w in (("class 1", Q1, w1), ("class 2", Q2, w2)):
        count = Q.shape[0] if w is None else max(Q.shape[0], float(np.sum(w)))
        if count < n + 1:
            raise ValueError(f"{name} has {Q.shape[0]} samples{'' if w is None else f' (total weight {count:g})'}; "
                             f"the ellipsoid in {n} dimensions needs at least {n + 1}")


def _delta(Z: np.ndarray, mu: np.ndarray, M: np.ndarray) -> np.ndarray:
    """``(z - mu)^T M (z - mu)`` for each row z of Z."""
    D = Z - mu
    return np.einsum("ij,jk,ik->i", D, M, D)


def ellipsoids_from_moments(Q1, Q2, moments: list, *, metric: str, reading: str, delta, row) -> dict:
    """:func:`class_ellipsoids` from the classes' ``(mu_c, Sigma_c)`` (``moments``): ``delta(Q, mu, M)`` gives the
    quadratic forms of the rows of ``Q``, ``row(Q, i)`` its row i as a 1-D array (the facing point)."""
    mus, Ms = [], []
    for mu, Sigma in moments:
        n = mu.size
        ev = np.linalg.eigvalsh(Sigma)
        if ev[-1] <= 0.0 or not np.isfinite(ev[-1]):
            raise ValueError("a class has zero variance in the working space; the class ellipsoid is undefined")
        if ev[0] <= 1e-12 * ev[-1]:
            # Decision (the paper assumes invertible covariances): a class whose points are flat in a working
            # direction (one-hot features, fewer rows than features) gets the ridge SINGULAR_RIDGE * lambda_max,
            # a thin but full-dimensional ellipsoid, instead of an undefined one (better conditioned covariances
            # are used as they are).
            Sigma = Sigma + SINGULAR_RIDGE * ev[-1] * np.eye(n)
        M = np.linalg.inv(Sigma) if metric == "inverse" else Sigma
        mus.append(mu)
        Ms.append(0.5 * (M + M.T))
    (mu1, mu2), (M1, M2) = mus, Ms
    i2 = int(np.argmin(delta(Q2, mu1, M1)))  # b_2: class-2 point nearest to mu_1 in class 1's metric
    i1 = int(np.argmin(delta(Q1, mu2, M2)))  # b_1: class-1 point nearest to mu_2 in class 2's metric
    b1, b2 = row(Q1, i1), row(Q2, i2)
    if reading == "B":
        rho1 = float(_delta(b1[None], mu1, M1)[0])
        rho2 = float(_delta(b2[None], mu2, M2)[0])
    else:
        rho1 = float(_delta(b2[None], mu1, M1)[0])
        rho2 = float(_delta(b1[None], mu2, M2)[0])
    if rho1 < 1e-12 or rho2 < 1e-12:
        raise ValueError("a facing point coincides with its class mean; the ellipsoid radius is zero")
    return {"mu1": mu1, "P1": M1 / rho1, "mu2": mu2, "P2": M2 / rho2, "b1": b1, "b2": b2, "rho1": rho1, "rho2": rho2}
