"""Deadlines saturate, never wrap: a time limit beyond the clock's range (int64 nanoseconds, ~292 years) is no limit.

``max_time=1e10`` once skipped FixedSizeLSSVC's whole tuning (the core's CSA deadline wrapped into the past): every
estimator's fit with a huge finite limit must equal its fit without one, and the core's searches must run in full.
"""

from __future__ import annotations

import sys
import warnings

import numpy as np
import pytest

from svmopt import (
    L1SVC,
    EllipsoidPSOClassifier,
    FeatureBudgetSVC,
    FixedSizeLSSVC,
    FixedSizeLSSVR,
    RampLossSVC,
    RobustSVC,
)

HUGE = [1e9, 9.3e9, 1e10, 1e12, 1e18, 1e19, 1e300, sys.float_info.max]


def _data(regression=False):
    rng = np.random.default_rng(0)
    X = rng.normal(size=(120, 4))
    y = np.sin(X[:, 0]) + 0.1 * rng.normal(size=120) if regression else (X[:, 0] + 0.3 * X[:, 1] > 0).astype(int)
    return X, y


ESTIMATORS = [
    lambda t: FixedSizeLSSVR(n_prototypes=20, n_csa=10, n_simplex=5, random_state=0, max_time=t),
    lambda t: FixedSizeLSSVC(n_prototypes=20, n_csa=10, n_simplex=5, random_state=0, max_time=t),
    lambda t: RobustSVC(max_time=t),
    lambda t: RampLossSVC(method="heuristic", budget=2, max_time=t, random_state=0),
    lambda t: L1SVC(max_time=t),
    lambda t: FeatureBudgetSVC(budget=2, max_time=t),
    lambda t: EllipsoidPSOClassifier(max_time=t, random_state=0),
]


def _fit(make, t):
    est = make(t)
    X, y = _data(regression=isinstance(est, FixedSizeLSSVR))
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        est.fit(X, y)
    budget = [w for w in caught if "budget" in str(w.message) or "max_time" in str(w.message)]
    return est, est.predict(X), budget, X


@pytest.mark.parametrize("make", ESTIMATORS, ids=lambda m: type(m(None)).__name__)
@pytest.mark.parametrize("t", [1e10, 1e300])
def test_huge_time_limit_is_no_limit(make, t):
    _, ref, _, _ = _fit(make, None)
    est, pred, budget, X = _fit(make, t)
    assert not budget, [str(w.message) for w in budget]
    np.testing.assert_array_equal(pred, ref)
    if hasattr(est, "decision_function"):
        np.testing.assert_allclose(est.decision_function(X), make(None).fit(X, _data()[1]).decision_function(X),
                                   rtol=1e-12, atol=1e-12)


@pytest.mark.parametrize("t", HUGE)
@pytest.mark.parametrize("search", ["csa", "nelder_mead", "csa_simplex"])
def test_core_search_runs_in_full_under_a_huge_limit(t, search):
    from svmopt.fixed_size import tuning

    calls = []

    def cost(x):
        calls.append(np.array(x))
        return float(np.sum((np.asarray(x) - 0.3) ** 2))

    lo, hi = -np.ones(2), np.ones(2)
    run = {
        "csa": lambda limit: tuning.csa(cost, np.zeros((4, 2)), lo, hi, max_evals=20, seed=0, time_limit=limit),
        "nelder_mead": lambda limit: tuning.nelder_mead(cost, np.zeros(2), lo, hi, max_evals=20, time_limit=limit),
        "csa_simplex": lambda limit: tuning.csa_simplex(cost, np.zeros((4, 2)), lo, hi, n_csa=12, n_simplex=8, seed=0,
                                                        time_limit=limit),
    }[search]
    ref = run(None)
    n_ref = len(calls)
    calls.clear()
    res = run(t)
    assert len(calls) == n_ref > 1 and not res.timed_out
    np.testing.assert_array_equal(res.x, ref.x)


def test_pso_runs_in_full_under_a_huge_limit():
    from svmopt.ellipsoid import EllipsoidPSOClassifier as E

    X, y = _data()
    ref = E(random_state=0).fit(X, y)
    for t in HUGE:
        est = E(random_state=0, max_time=t).fit(X, y)
        np.testing.assert_array_equal(est.coef_, ref.coef_)
