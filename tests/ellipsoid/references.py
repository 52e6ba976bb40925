"""Numpy references shared by the ellipsoid tests."""

from __future__ import annotations

import numpy as np

from svmopt.ellipsoid.geometry import project_onto_ellipsoid


def alternating_projections(mu1, P1, mu2, P2, tol: float = 1e-15, max_iter: int = 200000):
    """A closest pair of two disjoint ellipsoids by alternating exact projections (which converge to one for disjoint
    convex sets), stopped when neither point moves by ``tol``."""
    y = mu2.copy()
    x = project_onto_ellipsoid(y, mu1, P1)
    for _ in range(max_iter):
        y_new = project_onto_ellipsoid(x, mu2, P2)
        x_new = project_onto_ellipsoid(y_new, mu1, P1)
        if max(np.abs(x_new - x).max(), np.abs(y_new - y).max()) < tol:
            return x_new, y_new
        x, y = x_new, y_new
    return x_new, y_new


def bent_classes(n: int = 120, d: int = 4, seed: int = 0, minority: float = 0.5, flip: float = 0.1):
    """Two classes split by a bent boundary ``x0 + 0.7 x1^2 = q`` (``minority`` the share above it), a share
    ``flip`` of the labels flipped."""
    rng = np.random.default_rng(seed)
    X = rng.normal(size=(n, d))
    score = X[:, 0] + 0.7 * X[:, 1] ** 2 - 0.7
    y = (score > np.quantile(score, 1 - minority)).astype(int)
    noisy = rng.random(n) < flip
    y[noisy] = 1 - y[noisy]
    return X, y
