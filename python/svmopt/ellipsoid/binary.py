"""The model of one binary problem of :class:`svmopt.EllipsoidPSOClassifier` (paper 003), steps 1-5 of the
estimator's docstring, in two parts:

* :func:`working_space`: the whitening and the 2-D projection of the pair's rows (Section 4.3.5) and the class
  ellipsoids there (Section 4.2, eq. (15)); they do not depend on the radius ratio, so a selection over ratios
  builds them once per fold and shrinkage;
* :func:`hyperplane`: for a radius ratio, the scaled ellipsoids, the shrink fallback, the closest points (the
  QCQP (4)-(5) of Section 3.1, by the solver given) and the bisecting hyperplane (eqs. (13), (14), (16)) mapped back
  to the input space.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

import numpy as np
import scipy.sparse as sp

from svmopt.ellipsoid.geometry import ClosestPoints, class_ellipsoids, shrink_factor
from svmopt.ellipsoid.projection import project_2d, whiten
from svmopt.ellipsoid.sparse_rows import sparse_working_space

#: The closest points of E(mu1, P1) and E(mu2, P2): the result, the swarm iterations run, whether a time limit
#: stopped the swarms.
ClosestSolver = Callable[[np.ndarray, np.ndarray, np.ndarray, np.ndarray], tuple[ClosestPoints, int, bool]]


@dataclass(frozen=True)
class Construction:
    """The estimator's parameters that the construction reads (see :class:`svmopt.EllipsoidPSOClassifier`)."""

    projection: str = "pair"
    p2_mode: str = "covdiff"
    metric: str = "inverse"
    reading: str = "B"
    fallback: str = "shrink"
    gamma: float = 0.9


@dataclass
class PairData:
    """The training rows of one binary problem: class 1 (the positive side) and class 2, their weights (None:
    unweighted), and the folds over ``[class 1; class 2]`` its selection counts errors on."""

    V1: np.ndarray
    V2: np.ndarray
    w1: np.ndarray | None = None
    w2: np.ndarray | None = None
    folds: list | None = None


@dataclass
class WorkingSpace:
    """The working space of one binary problem, ``q = T^T (v - m)`` with ``T = W Pi``, and the class ellipsoids
    there (:func:`svmopt.ellipsoid.geometry.class_ellipsoids`, before any radius ratio). ``W`` and ``Pi`` are None in
    the :meth:`scoring` copy, which a selection keeps per fold."""

    m: np.ndarray
    W: np.ndarray | None
    Pi: np.ndarray | None
    T: np.ndarray
    E: dict
    shrinkage: float | str

    def scoring(self) -> WorkingSpace:
        """The space without ``W`` and ``Pi`` (d x r, r up to d): what a hyperplane's held-out errors need."""
        return WorkingSpace(self.m, None, None, self.T, self.E, self.shrinkage)


def working_space(pair: PairData, glob: tuple[np.ndarray, np.ndarray] | None, shrinkage: float | str,
                  rng: np.random.RandomState, cons: Construction) -> WorkingSpace:
    """Steps 1-2 on ``pair``'s rows: the whitening (``glob``: the data set's, else the pair's, with ``shrinkage``)
    and the projection, and the class ellipsoids in the working space. ValueError where they are undefined."""
    V1, V2, w1, w2 = pair.V1, pair.V2, pair.w1, pair.w2
    if not (V1.shape[0] and V2.shape[0]):  # a fold of a user's cv may hold no training row of a class
        raise ValueError("a class of the binary problem has no training rows")
    if sp.issparse(V1):  # the same construction from the moments of the sparse rows
        m, W, Pi, T, E = sparse_working_space(V1, V2, w1, w2, glob, shrinkage, rng, cons)
        return WorkingSpace(m, W, Pi, T, E, shrinkage)
    d = V1.shape[1]
    if cons.projection == "none":
        m, W, Pi = np.zeros(d), np.eye(d), np.eye(d)
    else:
        m, W = glob if glob is not None else whiten(np.vstack([V1, V2]), shrinkage,
                                                    None if w1 is None else np.r_[w1, w2])
        Pi = project_2d((V1 - m) @ W, (V2 - m) @ W, cons.p2_mode, rng, w1, w2, basis=W)
    T = W @ Pi  # input -> working: q = T^T (v - m)
    E = class_ellipsoids((V1 - m) @ T, (V2 - m) @ T, metric=cons.metric, reading=cons.reading, w1=w1, w2=w2)
    return WorkingSpace(m, W, Pi, T, E, shrinkage)


def hyperplane(space: WorkingSpace, ratio: float, cons: Construction, closest: ClosestSolver) -> dict[str, Any]:
    """Steps 2-5 for the radius ``ratio``: the model of the binary problem as a dict (see ``models_`` of the
    estimator)."""
    E = space.E
    # Radii scaled by sqrt(ratio) (class 1) and 1/sqrt(ratio) (class 2): ratio = 1 is the paper's pair.
    mu1, P1, mu2, P2 = E["mu1"], E["P1"] / ratio, E["mu2"], E["P2"] * ratio
    s = 1.0
    if cons.fallback == "shrink":
        s_star = shrink_factor(mu1, P1, mu2, P2)
        if s_star <= 1.0:
            if s_star <= 0.0:
                raise ValueError("the class means coincide in the working space; the shrink fallback is undefined")
            s = cons.gamma * s_star
            P1, P2 = P1 / s**2, P2 / s**2
    cp, n_iter, timed_out = closest(mu1, P1, mu2, P2)
    x, yv = cp.x, cp.y
    wv = x - yv
    w0 = 0.5 * (yv @ yv - x @ x)
    if not np.any(wv):  # intersecting ellipsoids without fallback: fall back to the mean bisector direction
        wv = mu1 - mu2
        w0 = -wv @ (0.5 * (mu1 + mu2))
    w_in = space.T @ wv
    b_in = w0 - w_in @ space.m
    return {
        "m": space.m,
        "W": space.W,
        "Pi": space.Pi,
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
        "ratio": ratio,
        "shrinkage": space.shrinkage,
        "n_iter": n_iter,
        "timed_out": timed_out,
    }
