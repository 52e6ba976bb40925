"""EllipsoidPSOClassifier at any scale of X: the one-vs-one (and one-vs-rest) margins are relative to the steepest
hyperplane (as input-space distances they vanished next to the votes at X * 1e-20, and 1-1-1 ties fell to the first
class), the exact solver's sphere search is scale-free (BFGS's absolute gradient tolerance moved its end point with
the scale of X), and projection="none" with solver="exact" fits any finite scale (it was refused)."""

from __future__ import annotations

import numpy as np
import pytest
from sklearn.datasets import make_classification

from svmopt import EllipsoidPSOClassifier
from svmopt.ellipsoid.geometry import ellipsoid_closest_points


def _three(n=90):
    return make_classification(n_samples=n, n_features=4, n_informative=3, n_redundant=0, n_classes=3,
                               n_clusters_per_class=1, random_state=0)


@pytest.mark.parametrize("multiclass", ["ovo", "ovr"])
@pytest.mark.parametrize("k", [-70, -40, 40, 70])
def test_multiclass_margins_do_not_depend_on_the_scale_of_x(multiclass, k):
    """X * 2^k inside the range fitted as it is: every quantity is X's times a power of two, and the decision
    values are X's bit for bit."""
    X, y = _three()
    kw = dict(solver="exact", ratio=1.0, shrinkage=0.0, multiclass=multiclass)
    ref = EllipsoidPSOClassifier(**kw).fit(X, y)
    est = EllipsoidPSOClassifier(**kw).fit(X * 2.0**k, y)
    np.testing.assert_array_equal(est.decision_function(X * 2.0**k), ref.decision_function(X))
    np.testing.assert_array_equal(est.predict(X * 2.0**k), ref.predict(X))


@pytest.mark.parametrize("factor", [1e-300, 1e-20, 1e20, 1e300])
def test_one_vs_one_ties_are_broken_by_the_margins_at_every_scale(factor):
    X, y = _three()
    ref = EllipsoidPSOClassifier(solver="exact").fit(X, y)
    est = EllipsoidPSOClassifier(solver="exact").fit(X * factor, y)
    D = est.decision_function(X * factor)
    assert np.abs(D - np.round(D)).max() > 1e-3  # the margins are there, next to the votes
    np.testing.assert_array_equal(est.predict(X * factor), ref.predict(X))
    np.testing.assert_allclose(D, ref.decision_function(X), rtol=1e-6, atol=1e-6)


@pytest.mark.parametrize("factor", [1e-300, 1e-10, 1e-5, 1e5, 1e20, 1e300])
def test_the_exact_solver_without_projection_is_scale_invariant(factor):
    X, y = make_classification(n_samples=90, n_features=4, n_informative=3, n_redundant=0, random_state=0)
    kw = dict(solver="exact", projection="none", ratio=1.0, shrinkage=0.0)
    ref = EllipsoidPSOClassifier(**kw).fit(X, y)
    est = EllipsoidPSOClassifier(**kw).fit(X * factor, y)
    np.testing.assert_array_equal(est.predict(X * factor), ref.predict(X))
    def direction(W):  # z itself scales with X here (as |x|^2); the hyperplane's normal does not
        W = W / np.abs(W).max()
        return W / np.linalg.norm(W)

    np.testing.assert_allclose(direction(est.coef_), direction(ref.coef_), atol=1e-6)


def test_the_closest_points_of_scaled_ellipsoids_scale():
    """d > 2: the sphere search in the power of two of the dual's magnitude, so 10^k times the ellipsoids give 10^k
    times the closest points (BFGS's absolute gtol once stopped short at small scales)."""
    rng = np.random.default_rng(0)
    A1, A2 = rng.normal(size=(4, 4)), rng.normal(size=(4, 4))
    P1, P2 = A1 @ A1.T + np.eye(4), A2 @ A2.T + np.eye(4)
    mu1, mu2 = np.zeros(4), np.array([3.0, 1.0, -2.0, 0.5])
    ref = ellipsoid_closest_points(mu1, P1, mu2, P2)
    for c in (1e-12, 1e-6, 1e6, 1e12):
        cp = ellipsoid_closest_points(mu1 * c, P1 / c**2, mu2 * c, P2 / c**2)
        np.testing.assert_allclose(cp.x / c, ref.x, rtol=1e-6, atol=1e-6)
        np.testing.assert_allclose(cp.distance / c, ref.distance, rtol=1e-9)


def test_the_swarms_without_projection_refuse_extreme_scales_naming_the_remedy():
    X, y = make_classification(n_samples=60, n_features=3, n_informative=3, n_redundant=0, random_state=0)
    with pytest.raises(ValueError, match=r"X has entries of magnitude up to .*e\+300.*rescale X .*solver='exact'"):
        EllipsoidPSOClassifier(projection="none", random_state=0).fit(X * 1e300, y)
