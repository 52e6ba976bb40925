"""Model quantities of the robust counterpart of paper 000 (Maggioni & Spinelli): Lemma 1's constant C(n, p) (16),
the feature-space bounds delta_i of (12) from the input-space bounds eta_i (Section 5.1, Lemmas 1-3, eqs. (13)-(21)),
the rho rule for eta (Section 6) and the interval of the threshold's line search (Section 4, (P1)-(P3)).

The LP (23) and the line search (27) that use them are in :mod:`svmopt.robust.fit`, the estimator in
:mod:`svmopt.robust.estimator`.
"""

from __future__ import annotations

from math import comb

import numpy as np

from svmopt._shared.dask import is_dask_array
from svmopt._shared.moments import weighted_variance_denominator
from svmopt.kernels import Kernel
from svmopt.robust.sparse import class_max_std, is_sparse, row_norms

INTERVALS = ("paper", "corrected", "unbounded")


# ------------------------------------------------------------------------------------------ bounds
def lemma1_constant(n: int, p: float) -> float:
    """Lemma 1, equation (16): ``||x||_2 <= C(n, p) ||x||_p`` for x in R^n.

    ``C = 1`` for ``1 <= p <= 2`` and ``n^((p - 2) / (2 p))`` for ``p > 2`` (``sqrt(n)`` for ``p = inf``).
    """
    p = float(p)
    if not p >= 1.0:
        raise ValueError(f"p must be in [1, inf], got {p!r}")
    if p <= 2.0:
        return 1.0
    if np.isinf(p):
        return float(np.sqrt(n))
    return float(n ** ((p - 2.0) / (2.0 * p)))


def _binom_sum(r: np.ndarray, e: np.ndarray, q: int) -> np.ndarray:
    """``sum_{k=1..q} binom(q, k) r^(q-k) e^k = (r + e)^q - r^q`` without cancellation."""
    out = np.zeros_like(r)
    for k in range(1, q + 1):
        out += comb(q, k) * r ** (q - k) * e**k
    return out


def robust_delta(kernel: Kernel, X: np.ndarray, eta: np.ndarray, p: float) -> np.ndarray:
    """Feature-space bounds ``delta_i`` of (12) from input-space bounds ``eta_i`` (Lemmas 1-3, eqs. (13)-(21)).

    ``e_i = C(n, p) eta_i`` (Lemma 1, (16)) and ``r_i = ||x_i||_2`` (nominal point):

    * (18) linear kernels (``linear``, ``poly``/``inhom_poly`` with degree 1): ``delta = e``;
    * (20) ``poly`` (homogeneous, d > 1): ``delta = (r + e)^d - r^d`` (as the literal binomial sum);
    * (19) ``inhom_poly`` (d > 1): ``sqrt(delta_hom^2 + sum_{k=1}^{d-1} binom(d,k) c^k ((r+e)^(d-k) - r^(d-k))^2)``;
    * (21) ``rbf``: ``sqrt(2 - 2 exp(-e^2 / (2 alpha^2)))`` (computed as ``sqrt(-2 expm1(.))``).

    The sigmoid kernel has no bound: ``ValueError``.
    """
    if kernel.name == "sigmoid":
        raise ValueError(
            "kernel='sigmoid' has no robust bound delta (paper 000, Lemmas 2-3 cover the linear, polynomial and "
            "RBF kernels only); use p=None (deterministic model) or another kernel"
        )
    eta = np.asarray(eta, dtype=np.float64)
    e = lemma1_constant(X.shape[1], p) * eta
    if kernel.name == "rbf":
        alpha = kernel.core_params.alpha
        return np.sqrt(-2.0 * np.expm1(-(e**2) / (2.0 * alpha**2)))
    d = 1 if kernel.name == "linear" else kernel.degree
    if d == 1:
        return e.copy()
    if is_dask_array(X):  # a Dask array: the row norms computed where the chunks are, gathered (n floats)
        r = np.sqrt(np.asarray((X**2).sum(axis=1).compute(), dtype=np.float64))
    elif is_sparse(X):  # over the nonzeros
        r = row_norms(X)
    else:
        X = np.asarray(X, dtype=np.float64)
        r = np.sqrt(np.einsum("ij,ij->i", X, X))
    hom = _binom_sum(r, e, d)
    if kernel.name == "poly":
        return hom
    c = kernel.core_params.c
    acc = hom**2
    for k in range(1, d):
        acc = acc + comb(d, k) * c**k * _binom_sum(r, e, d - k) ** 2
    return np.sqrt(acc)


def eta_from_rho(X: np.ndarray, y: np.ndarray, rho: float, weight: np.ndarray | None = None) -> np.ndarray:
    """The paper's rule (Section 6): ``eta_i = rho * max_j std_{j, class(i)}`` (ddof=1, per class of ``y``).

    A class with a single point has std 0 (so eta 0) rather than NaN. With sample weights the stds are the weighted
    ones, ``sum_i w_i (x_ij - mean_j)^2`` over :func:`~svmopt._shared.validation.weighted_variance_denominator` (integer
    weights equal the rows repeated).
    """
    eta = np.zeros(X.shape[0])
    for label in np.unique(y):
        mask = y == label
        if is_sparse(X):  # the class's column moments over the nonzeros
            if mask.sum() >= 2:
                eta[mask] = rho * class_max_std(X[mask], None if weight is None else weight[mask])
            continue
        if weight is None:
            if mask.sum() >= 2:
                eta[mask] = rho * float(np.max(np.std(X[mask], axis=0, ddof=1)))
            continue
        w = weight[mask]
        if mask.sum() >= 2:
            mean = w @ X[mask] / float(w.sum())
            var = w @ (X[mask] - mean) ** 2 / weighted_variance_denominator(w)
            eta[mask] = rho * float(np.sqrt(np.max(var)))
    return eta


def threshold_interval(gamma: float, omega_a: float, omega_b: float, interval: str) -> tuple[float, float]:
    """``(lo, hi)`` of the line search (``interval`` as in the docstring of :mod:`svmopt.robust.estimator`): ``lo`` is
    where the grid starts (may exceed ``hi``)."""
    if interval == "paper":
        return gamma + 1.0 - omega_b, gamma - 1.0 + omega_a
    if interval == "corrected":
        lo, hi = gamma + 1.0 - omega_a, gamma - 1.0 + omega_b
        tol = 1e-9 * max(1.0, abs(gamma))
        if lo <= hi:
            return lo - tol, hi + tol
        return lo + tol, hi - tol
    if interval == "unbounded":
        return -np.inf, np.inf
    raise ValueError(f"interval must be one of {INTERVALS}, got {interval!r}")
