"""Sample weights, class weights and max_time of paper 001's models (L1SVC, FeatureBudgetSVC, RampLossSVC): integer
weights equal the rows repeated (the optimum of every LP/MILP, the cutting planes' and CCCP's objective), class
weights equal per-class sample weights, bad weights fail before work starts, and max_time bounds a long fit."""

from __future__ import annotations

import re
import time
import warnings

import numpy as np
import pytest
from sklearn.datasets import make_classification
from sklearn.exceptions import ConvergenceWarning
from sklearn.model_selection import StratifiedKFold

from svmopt import L1SVC, FeatureBudgetSVC, RampLossSVC
from svmopt.ramp import estimators, ramp_loss
from svmopt.ramp.model import hinge_objective, rlfs_objective


def _data(n=60, d=6, seed=0, flip=0.1):
    X, y = make_classification(n, d, n_informative=3, n_redundant=0, flip_y=flip, random_state=seed)
    return (X - X.mean(0)) / X.std(0), y


def _weights(n, seed=1):
    return np.random.default_rng(seed).integers(0, 4, size=n)


@pytest.mark.parametrize("make", [
    lambda: L1SVC(C=1.0),
    lambda: L1SVC(C=1.0, solver="cutting_plane", tol=1e-9),
    lambda: FeatureBudgetSVC(C=1.0, budget=2, random_state=0),
    lambda: FeatureBudgetSVC(C=1.0, budget=2, solver="cutting_plane", tol=1e-9),
    lambda: RampLossSVC(C=1.0, budget=2, method="exact", random_state=0),
    lambda: RampLossSVC(C=1.0, budget=3, method="cccp", n_init=1, tol=1e-9, random_state=0),
], ids=["l1-lp", "l1-cp", "fs-milp", "fs-cp", "ramp-exact", "ramp-cccp"])
def test_integer_weights_reach_the_optimum_of_the_repeated_rows(make):
    X, y = _data(30, d=4)  # the exact MILP of 30 weighted rows takes 0.8 s, of the ~45 rows repeated 7 s
    sw = _weights(y.size)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", UserWarning)
        a = make().fit(X, y, sample_weight=sw)
        b = make().fit(np.repeat(X, sw, axis=0), np.repeat(y, sw))
    assert a.objective_ == pytest.approx(b.objective_, rel=1e-6, abs=1e-8)
    # the weighted objective of the weighted fit's (w, b), computed independently on the repeated rows
    ys = np.where(np.repeat(y, sw) == a.classes_[1], 1.0, -1.0)
    loss = rlfs_objective if isinstance(a, RampLossSVC) else hinge_objective
    assert loss(np.repeat(X, sw, axis=0), ys, a.coef_[0], a.intercept_[0], a.C if not isinstance(a, RampLossSVC)
                else a.C_) == pytest.approx(a.objective_, rel=1e-9)


def test_weighted_lp_solution_equals_repeated_rows():
    X, y = _data(80, seed=3)
    sw = _weights(y.size, seed=4)
    a = L1SVC(C=0.5).fit(X, y, sample_weight=sw)
    b = L1SVC(C=0.5).fit(np.repeat(X, sw, axis=0), np.repeat(y, sw))
    np.testing.assert_allclose(a.decision_function(X), b.decision_function(X), rtol=1e-6, atol=1e-7)


def test_class_weight_equals_per_class_sample_weight():
    X, y = _data(30, d=4, seed=5)
    cw = {0: 3.0, 1: 0.5}
    for make in (lambda **k: L1SVC(C=1.0, **k), lambda **k: RampLossSVC(C=1.0, budget=3, method="exact", **k)):
        a = make(class_weight=cw).fit(X, y)
        b = make().fit(X, y, sample_weight=np.array([cw[c] for c in y]))
        assert a.objective_ == pytest.approx(b.objective_, rel=1e-9)
    bal = L1SVC(class_weight="balanced").fit(X[:20], y[:20])
    counts = np.bincount(y[:20])
    c = L1SVC().fit(X[:20], y[:20], sample_weight=(20 / (2 * counts))[y[:20]])
    assert bal.objective_ == pytest.approx(c.objective_, rel=1e-9)


def test_a_heavy_class_gains_recall():
    X, y = _data(200, seed=6, flip=0.2)
    plain = L1SVC(C=0.1).fit(X, y)
    heavy = L1SVC(C=0.1, class_weight={0: 10.0}).fit(X, y)
    assert np.mean(heavy.predict(X)[y == 0] == 0) > np.mean(plain.predict(X)[y == 0] == 0)


@pytest.mark.parametrize("est", [L1SVC(), FeatureBudgetSVC(budget=2), RampLossSVC(budget=2)])
@pytest.mark.parametrize("bad, match", [
    (np.ones(3), "sample_weight must have shape"),
    (-np.ones(40), "sample_weight must be non-negative"),
    (np.full(40, np.inf), "sample_weight contains 40 NaN or infinite"),
    (np.zeros(40), "is zero for every row"),
])
def test_bad_weights_are_refused_before_work(est, bad, match, monkeypatch):
    def boom(*a, **k):
        raise AssertionError("work started")

    for name in ("solve_svm_l1_within", "solve_fs_svm"):
        monkeypatch.setattr(estimators, name, boom)
    for name in ("algorithm1", "daks", "cccp"):
        monkeypatch.setattr(ramp_loss, name, boom)
    X, y = _data(40)
    with pytest.raises(ValueError, match=match):
        est.fit(X, y, sample_weight=bad)
    assert not hasattr(est, "coef_")


def test_zero_weights_remove_rows():
    X, y = _data(30, d=4, seed=7)
    sw = np.ones(30)
    sw[::4] = 0
    a = RampLossSVC(C=1.0, budget=3, method="exact", random_state=0).fit(X, y, sample_weight=sw)
    b = RampLossSVC(C=1.0, budget=3, method="exact", random_state=0).fit(X[sw > 0], y[sw > 0])
    assert a.objective_ == pytest.approx(b.objective_, rel=1e-9)
    np.testing.assert_array_equal(a.predict(X), b.predict(X))


def test_C_auto_takes_splitters_and_weights():
    X, y = _data(90, seed=8)
    folds = list(StratifiedKFold(3).split(X, y))
    a = RampLossSVC(C="auto", budget=3, method="cccp", random_state=0).fit(X, y)
    b = RampLossSVC(C="auto", budget=3, method="cccp", cv=folds, random_state=0).fit(X, y)
    np.testing.assert_array_equal(a.selection_["errors"], b.selection_["errors"])
    assert a.C_ == b.C_
    sw = _weights(y.size, seed=9) + 1
    c = RampLossSVC(C="auto", budget=3, method="cccp", random_state=0).fit(X, y, sample_weight=sw)
    assert c.selection_["errors"].max() <= 1.0 and c.C_ in c.selection_["C"]


def test_max_time_bounds_the_exact_milp():
    X, y = _data(150, d=25, seed=10, flip=0.3)
    t0 = time.perf_counter()
    with pytest.warns(ConvergenceWarning, match=r"max_time=2 s reached .*cut short: the MILP"):
        est = RampLossSVC(C=1.0, budget=5, method="exact", max_time=2.0, random_state=0).fit(X, y)
    took = time.perf_counter() - t0
    assert est.max_time_reached_ and est.status_ == "time_limit"
    assert took <= 2.2 + 0.5, took  # HiGHS returns within its time_limit; + the solution's polish LP
    assert est.score(X, y) > 0.5


def test_unlimited_fit_reports_max_time_not_reached():
    X, y = _data(40)
    assert L1SVC().fit(X, y).max_time_reached_ is False
    assert RampLossSVC(budget=2, method="cccp", random_state=0).fit(X, y).max_time_reached_ is False


def test_l1svc_lp_at_its_time_limit_is_a_certified_usable_model():
    """The LP stopped at a limit: HiGHS's iterate with xi the hinge is feasible (or the constant model when that is
    better), and HiGHS's row duals scaled to dual feasibility bound the optimum from below: objective_ and
    lower_bound_ bracket the LP's optimum, and one warning names the certified gap and the model kept."""
    rng = np.random.default_rng(0)
    X = rng.normal(size=(5000, 30))
    y = np.where(X[:, 0] + 0.5 * rng.normal(size=5000) > 0, 1, -1)
    opt = L1SVC(C=1.0, solver="lp").fit(X, y).objective_

    def stopped(match, **kw):
        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always")
            est = L1SVC(C=1.0, solver="lp", **kw).fit(X, y)
        msgs = [str(w.message) for w in caught if issubclass(w.category, ConvergenceWarning)]
        assert len(msgs) == 1 and re.search(match, msgs[0]), msgs
        assert est.lower_bound_ <= opt * (1 + 1e-9) and opt <= est.objective_ * (1 + 1e-9)
        w, b = est.coef_[0], est.intercept_[0]
        np.testing.assert_allclose(est.objective_, np.abs(w).sum() + np.maximum(0.0, 1.0 - y * (X @ w + b)).sum(),
                                   rtol=1e-9)
        return est

    # (The LP of 5,000 rows runs HiGHS's interior point unless solver_options name the simplex, as here.)
    # Dual simplex near its end (3,186 iterations to the optimum): the iterate is kept, its bound close.
    near = stopped(r"L1SVC: the LP \(HiGHS: Iteration limit.*the model is HiGHS's iterate",
                   solver_options={"solver": "simplex", "simplex_iteration_limit": 3000})
    assert near.status_ == "limit" and near.max_time_reached_ is False and near.coef_.any()
    assert near.objective_ > opt * (1 + 1e-6) and near.lower_bound_ > 0.99 * opt
    # Primal simplex: its row duals are not dual feasible, the scaling makes them so (unscaled they sum above opt).
    primal = stopped(r"HiGHS's iterate", solver_options={"solver": "simplex", "simplex_strategy": 4,
                                                           "simplex_iteration_limit": 2000})
    assert primal.coef_.any() and 0 < primal.lower_bound_ < opt
    # Early in the dual simplex the iterate is worse than w = 0: the constant model is kept.
    early = stopped(r"the model is the constant model", solver_options={"solver": "simplex",
                                                                          "simplex_iteration_limit": 1000})
    assert early.objective_ == 2.0 * min(np.sum(y > 0), np.sum(y < 0)) and not early.coef_.any()
    timed = stopped(r"max_time=0.01 s reached .*cut short: the LP \(HiGHS: Time limit", max_time=0.01)
    assert timed.status_ == "time_limit" and timed.max_time_reached_
    assert timed.predict(X[:5]).shape == (5,)
