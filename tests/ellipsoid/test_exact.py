"""The exact 2-D closest points and shrink factor (the maximum of the support-function dual located on a coarse grid,
then the root of its slope), and the whitening of fewer rows than features (thin SVD, Gram-form Ledoit-Wolf amount,
no d x d matrix)."""

from __future__ import annotations

import numpy as np
import pytest
from sklearn.covariance import ledoit_wolf_shrinkage

from svmopt import EllipsoidPSOClassifier
from svmopt.ellipsoid.geometry import (
    ellipsoid_closest_points,
    ellipsoids_intersect,
    shrink_factor,
    weighted_mean_cov,
)
from svmopt.ellipsoid.projection import weighted_ledoit_wolf_shrinkage, whiten
from tests.ellipsoid.references import alternating_projections


def _pairs(n, seed=1):
    rng = np.random.default_rng(seed)
    for _ in range(n):
        A, B = rng.normal(size=(2, 2)), rng.normal(size=(2, 2))
        P1 = (A @ A.T + 0.01 * np.eye(2)) * 10 ** rng.uniform(-2, 2)
        P2 = (B @ B.T + 0.01 * np.eye(2)) * 10 ** rng.uniform(-2, 2)
        mu1 = rng.normal(size=2) * rng.uniform(0.1, 5)
        yield mu1, P1, -mu1, P2


def test_exact_closest_points_to_the_rounding():
    """Against alternating exact projections (a different algorithm): the closest points agree to 1e-11 relative
    (a Brent search on the dual itself stopped 1e-9 .. 1e-7 off on its flat top)."""
    worst, n_disjoint = 0.0, 0
    for mu1, P1, mu2, P2 in _pairs(60):
        ex = ellipsoid_closest_points(mu1, P1, mu2, P2)
        assert ex.intersect == ellipsoids_intersect(mu1, P1, mu2, P2)
        if ex.intersect:
            continue
        n_disjoint += 1
        x, y = alternating_projections(mu1, P1, mu2, P2)
        scale = max(np.abs(x).max(), np.abs(y).max())
        worst = max(worst, np.abs(ex.x - x).max() / scale, np.abs(ex.y - y).max() / scale)
        assert ex.gap <= 1e-12 * max(1.0, ex.distance)
    assert n_disjoint > 20 and worst < 1e-11


def test_shrink_factor_against_a_dense_grid():
    """s* = max_u u^T dmu / (g_1 + g_2): at least the maximum over a 2,000,000-angle grid and within its resolution,
    and the shrunk ellipsoids touch at s* (disjoint just below, intersecting just above)."""
    th = np.linspace(-np.pi, np.pi, 2_000_000, endpoint=False)
    U = np.column_stack([np.cos(th), np.sin(th)])
    for mu1, P1, mu2, P2 in list(_pairs(12, seed=3)):
        s = shrink_factor(mu1, P1, mu2, P2)
        S1, S2 = np.linalg.inv(P1), np.linalg.inv(P2)
        g = np.sqrt(np.einsum("ij,jk,ik->i", U, S1, U)) + np.sqrt(np.einsum("ij,jk,ik->i", U, S2, U))
        grid = float(np.max(U @ (mu1 - mu2) / g))
        assert grid <= s * (1 + 1e-13) and s <= grid * (1 + 1e-8)
        inside = ellipsoid_closest_points(mu1, P1 / (0.999 * s) ** 2, mu2, P2 / (0.999 * s) ** 2)
        assert not inside.intersect and inside.distance > 0
        assert ellipsoids_intersect(mu1, P1 / (1.001 * s) ** 2, mu2, P2 / (1.001 * s) ** 2)


@pytest.mark.parametrize("shrinkage", [0.0, "ledoit_wolf", 0.3])
def test_whitening_of_fewer_rows_than_features(shrinkage):
    """n <= d: the whitened rows (their Gram matrix, which fixes the projection and the ellipsoids) are those of
    the eigen-decomposition of the (shrunk) d x d covariance; weights as the repeated rows."""
    rng = np.random.default_rng(0)
    X = rng.normal(size=(20, 50)) * rng.uniform(0.1, 3.0, 50)
    m, W = whiten(X, shrinkage)
    mr, C = weighted_mean_cov(X)
    a = ledoit_wolf_shrinkage(X - mr) if shrinkage == "ledoit_wolf" else shrinkage
    C = (1 - a) * C + a * np.trace(C) / C.shape[0] * np.eye(C.shape[0])
    lam, V = np.linalg.eigh(C)
    keep = lam > 1e-10 * lam[-1]
    Z, Zr = (X - m) @ W, (X - mr) @ (V[:, keep] / np.sqrt(lam[keep]))
    np.testing.assert_allclose(Z @ Z.T, Zr @ Zr.T, atol=1e-11)
    w = rng.integers(1, 3, 20).astype(float)  # 30 repeated rows: still fewer than the 50 features
    R = np.repeat(X, w.astype(int), axis=0)
    (mw, Ww), (mR, WR) = whiten(X, shrinkage, w), whiten(R, shrinkage)
    Zw, ZR = (X - mw) @ Ww, (X - mR) @ WR
    np.testing.assert_allclose(Zw @ Zw.T, ZR @ ZR.T, atol=1e-11)


def test_ledoit_wolf_amount_of_fewer_rows_than_features():
    rng = np.random.default_rng(1)
    X = rng.normal(size=(15, 40)) @ rng.normal(size=(40, 40))
    Xc = X - X.mean(axis=0)
    assert weighted_ledoit_wolf_shrinkage(Xc) == pytest.approx(ledoit_wolf_shrinkage(Xc), rel=1e-12)
    w = rng.integers(1, 3, 15).astype(float)
    R = np.repeat(X, w.astype(int), axis=0)
    mw = (w @ X) / w.sum()
    assert weighted_ledoit_wolf_shrinkage(X - mw, w) == pytest.approx(ledoit_wolf_shrinkage(R - R.mean(0)), rel=1e-12)


def test_a_fit_of_few_rows_and_many_features_forms_no_feature_by_feature_matrix(monkeypatch):
    """30 rows x 3000 features: no d x d eigenproblem or covariance (the rows' SVD and Gram matrix instead)."""
    rng = np.random.default_rng(2)
    X = rng.normal(size=(30, 3000))
    y = (X[:, 0] + 0.5 * rng.normal(size=30) > 0).astype(int)
    sizes = []
    for name in ("eigh", "eigvalsh", "svd"):
        real = getattr(np.linalg, name)

        def spy(A, *args, _real=real, **kwargs):
            sizes.append(min(np.shape(A)))
            return _real(A, *args, **kwargs)

        monkeypatch.setattr(np.linalg, name, spy)
    real_cov = np.cov

    def cov(m, *args, **kwargs):
        sizes.append(min(np.shape(m)) if kwargs.get("rowvar", True) is False else np.shape(m)[0])
        return real_cov(m, *args, **kwargs)

    monkeypatch.setattr(np, "cov", cov)
    clf = EllipsoidPSOClassifier(random_state=0, max_iter=40).fit(X, y)
    assert clf.score(X, y) > 0.8 and max(sizes) <= 30
