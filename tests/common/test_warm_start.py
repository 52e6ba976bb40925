"""warm_start of the scalable solvers: RobustSVC's cutting planes keep their cuts across fits of the same problem
(a new nu or tol), RampLossSVC's CCCP starts from the previous solution; both reach what a cold fit reaches."""

from __future__ import annotations

import pickle

import numpy as np
import pytest
from sklearn.datasets import make_classification

from svmopt import RampLossSVC, RobustSVC


def _data(n=3000, d=8, seed=0):
    return make_classification(n, d, n_informative=5, random_state=seed)


KW = {"n_landmarks": 60, "solver": "cutting_plane", "alpha": "scale", "random_state": 0, "tol": 1e-7}


def test_robust_warm_start_keeps_cuts_and_reaches_the_cold_objective():
    X, y = _data()
    warm = RobustSVC(nu=0.5, warm_start=True, **KW).fit(X, y)
    engine = warm._warm_engines
    assert len(engine) == 1
    for nu in (1.0, 3.0):
        cold = RobustSVC(nu=nu, **KW).fit(X, y)
        warm.set_params(nu=nu).fit(X, y)
        assert warm.objective_[0] == pytest.approx(cold.objective_[0], rel=2e-7)
        assert warm.lower_bound_[0] <= cold.objective_[0] * (1 + 1e-12)
        assert warm.n_iter_[0] < cold.n_iter_[0]  # the kept cuts start it closer
    # the same engine served every fit (its passes add up)
    assert next(iter(warm._warm_engines.values())) is next(iter(engine.values()))


def test_robust_warm_start_goes_cold_on_other_data_and_pickles():
    X, y = _data()
    est = RobustSVC(nu=1.0, warm_start=True, **KW).fit(X, y)
    first = next(iter(est._warm_engines.values()))
    X2 = X.copy()
    X2[0, 0] += 1.0
    est.fit(X2, y)
    assert next(iter(est._warm_engines.values())) is not first
    cold = RobustSVC(nu=1.0, **KW).fit(X2, y)
    assert est.objective_[0] == pytest.approx(cold.objective_[0], rel=2e-7)
    clone = pickle.loads(pickle.dumps(est))
    assert not hasattr(clone, "_warm_engines")
    np.testing.assert_array_equal(clone.decision_function(X[:50]), est.decision_function(X[:50]))
    assert not RobustSVC(nu=1.0, **KW).fit(X, y)._warm_engines  # without warm_start nothing is kept


def test_ramp_cccp_warm_start_starts_from_the_previous_solution():
    X, y = _data(2000, 10, seed=1)
    kw = {"budget": 4, "method": "cccp", "n_init": 1, "random_state": 0}
    est = RampLossSVC(C=1.0, warm_start=True, **kw).fit(X, y)
    before = est.objective_
    est.fit(X, y)  # the same problem: starting from its own solution, CCCP cannot do worse
    assert est.objective_ <= before * (1 + 1e-9)
    assert est.cccp_["warm_start"]
    est.set_params(C=2.0).fit(X, y)
    cold = RampLossSVC(C=2.0, **kw).fit(X, y)
    assert est.objective_ <= max(cold.objective_, est.cccp_["objectives"][0][0]) * (1 + 1e-9)
    assert np.isfinite(est.decision_function(X)).all()
    other = RampLossSVC(C=1.0, warm_start=True, **kw).fit(X[:, :5], y)
    assert not other.cccp_["warm_start"]  # a fresh estimator has nothing to start from


def test_pickling_keeps_the_live_estimators_warm_state():
    X, y = _data(1500)
    est = RobustSVC(nu=1.0, warm_start=True, **KW).fit(X, y)
    pickle.dumps(est)
    import copy

    copy.deepcopy(est)
    assert len(est._warm_engines) == 1


def test_unweighted_ramp_objective_is_summed_as_before():
    from svmopt.ramp.model import ramp, rlfs_objective

    X, y = _data(300, 8, seed=3)
    est = RampLossSVC(C=0.7, budget=3, method="cccp", random_state=0).fit(X, y)
    ys = np.where(y == est.classes_[1], 1.0, -1.0)
    t = ys * (X @ est.coef_[0] + est.intercept_[0])
    expected = float(np.abs(est.coef_[0]).sum() + 0.7 * ramp(t).sum())
    assert rlfs_objective(X, ys, est.coef_[0], est.intercept_[0], 0.7) == expected
