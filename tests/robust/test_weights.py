"""Sample weights, class weights, cv splitters and max_time of RobustSVC, down to the core's weighted line search
and cutting-plane pass (each against a numpy reference: the points repeated by their integer weights)."""

from __future__ import annotations

import time
import warnings

import numpy as np
import pytest
from sklearn.datasets import make_classification
from sklearn.exceptions import ConvergenceWarning
from sklearn.model_selection import StratifiedKFold

from svmopt import RobustSVC, _core
from svmopt._shared.splits import cv_splits
from svmopt._shared.validation import check_fit_weights
from svmopt.robust.reduced import ReducedLP, solve_direct


def _data(n=120, d=4, seed=0, classes=2):
    X, y = make_classification(n, d, n_informative=3, n_redundant=0, n_classes=classes, random_state=seed)
    return X, y


# ------------------------------------------------------------------------------------------ the core
@pytest.mark.parametrize("objective", ["paper", "decision"])
def test_weighted_line_searches_equal_repeated_points(objective):
    rng = np.random.default_rng(0)
    for _ in range(30):
        m = int(rng.integers(2, 40))
        s = np.round(rng.normal(size=m), 1)  # ties on purpose
        y = rng.choice([-1.0, 1.0], size=m)
        w = rng.integers(1, 4, size=m).astype(np.float64)
        sr, yr = np.repeat(s, w.astype(int)), np.repeat(y, w.astype(int))
        lo, hi = sorted(rng.normal(size=2) * 2)
        obj = _core.robust.Objective.__members__[objective]
        b, c = _core.robust.line_search_exact(s, y, lo, hi, 0.1, obj, w=w)
        br, cr = _core.robust.line_search_exact(sr, yr, lo, hi, 0.1, obj)
        assert (b, c) == (br, float(cr))
        assert isinstance(c, float) and isinstance(cr, int)
        b, c = _core.robust.line_search_grid(s, y, lo, hi, 57, 0.1, obj, w=w)
        assert (b, c) == _core.robust.line_search_grid_naive(s, y, lo, hi, 57, 0.1, obj, w=w)
        br, cr = _core.robust.line_search_grid(sr, yr, lo, hi, 57, 0.1, obj)
        assert (b, c) == (br, float(cr))
        assert _core.robust.line_search_count(s, y, b, obj, w=w) == float(
            _core.robust.line_search_count(sr, yr, b, obj))


def test_weighted_line_search_refuses_bad_weights():
    s, y = np.array([0.0, 1.0]), np.array([-1.0, 1.0])
    for bad in (np.array([1.0, 0.0]), np.array([1.0, np.nan]), np.array([-1.0, 1.0])):
        with pytest.raises(ValueError, match="w"):
            _core.robust.line_search_exact(s, y, -1, 1, w=bad)
    with pytest.raises(ValueError, match="w"):
        _core.robust.line_search_exact(s, y, -1, 1, w=np.ones(3))


def test_weighted_cut_pass_equals_repeated_rows_and_numpy():
    rng = np.random.default_rng(1)
    n, L = 200, 7
    Phi = rng.normal(size=(n, L))
    y = rng.choice([-1.0, 1.0], size=n)
    delta = rng.uniform(0, 0.2, size=n)
    w = rng.integers(1, 5, size=n).astype(np.float64)
    v, gamma, S = rng.normal(size=L), 0.2, 0.7
    cut = _core.cutting_plane.cut_pass(y, v, gamma, S, Phi=Phi, delta=delta, weight=w, n_groups=4)
    k = w.astype(int)
    rep = _core.cutting_plane.cut_pass(np.repeat(y, k), v, gamma, S, Phi=np.repeat(Phi, k, axis=0),
                                       delta=np.repeat(delta, k))
    margin = 1.0 + y * gamma - y * (Phi @ v) + delta * S
    c = margin > 0
    np.testing.assert_allclose(cut.a, (w * c * y) @ Phi, rtol=1e-12, atol=1e-12)
    np.testing.assert_allclose(cut.a, rep.a, rtol=1e-12, atol=1e-12)
    assert cut.b == pytest.approx(float(np.sum(w * c * y)), abs=1e-12) == pytest.approx(rep.b, abs=1e-12)
    assert cut.e == pytest.approx(float(np.sum(w * c * delta)), rel=1e-12)
    assert cut.n_c == pytest.approx(float(np.sum(w * c)), rel=1e-12)
    assert cut.hinge == pytest.approx(float(np.sum(w * np.maximum(margin, 0))), rel=1e-12)
    assert cut.hinge == pytest.approx(rep.hinge, rel=1e-12)
    with pytest.raises(ValueError, match="weight"):
        _core.cutting_plane.cut_pass(y, v, gamma, S, Phi=Phi, weight=np.zeros(n))


def test_weighted_cutting_planes_reach_the_weighted_direct_lp():
    rng = np.random.default_rng(2)
    n, L = 150, 10
    Phi = np.tanh(rng.normal(size=(n, L)))
    y = np.where(Phi[:, 0] + 0.3 * rng.normal(size=n) > 0, 1.0, -1.0)
    r = np.ones(L)
    w = rng.uniform(0.2, 3.0, size=n)
    for nu in (0.1, 1.0):
        direct = solve_direct(Phi, y, r, nu, weight=w)
        cp = ReducedLP(y, r, Phi=Phi, weight=w).solve(nu, tol=1e-9)
        assert cp.objective == pytest.approx(direct.objective, rel=1e-6)
        assert cp.lower_bound <= direct.objective * (1 + 1e-9)
        # integer weights: the LP of the repeated rows
    k = rng.integers(1, 4, size=n)
    a = solve_direct(Phi, y, r, 0.5, weight=k.astype(np.float64))
    b = solve_direct(np.repeat(Phi, k, axis=0), np.repeat(y, k), r, 0.5)
    assert a.objective == pytest.approx(b.objective, rel=1e-9)


# ------------------------------------------------------------------------------------------ the estimator
@pytest.mark.parametrize("params", [
    {"kernel": "rbf", "alpha": "scale", "nu": 1.0},
    {"kernel": "linear", "p": 2, "rho": 0.05, "nu": [0.1, 1.0], "selection": "training_error"},
    {"kernel": "rbf", "n_landmarks": 8, "landmarks": "given", "nu": 0.5, "solver": "cutting_plane", "tol": 1e-9},
    {"kernel": "rbf", "n_landmarks": 8, "landmarks": "given", "nu": 0.5, "solver": "lp"},
])
def test_integer_weights_equal_repeated_rows(params):
    X, y = _data(80)
    params = dict(params)
    if params.get("landmarks") == "given":
        params["landmarks"] = X[:8].copy()
    sw = np.random.default_rng(3).integers(0, 4, size=y.size)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", UserWarning)
        a = RobustSVC(**params).fit(X, y, sample_weight=sw)
        b = RobustSVC(**params).fit(np.repeat(X, sw, axis=0), np.repeat(y, sw))
    np.testing.assert_allclose(a.decision_function(X), b.decision_function(X), rtol=1e-6, atol=1e-7)
    np.testing.assert_allclose(a.training_error_, b.training_error_, rtol=1e-12)
    assert a.nu_.tolist() == b.nu_.tolist()


def test_class_weight_is_sample_weight_per_class():
    X, y = _data(90, classes=3)
    cw = {0: 2.0, 1: 1.0, 2: 0.5}
    a = RobustSVC(alpha="scale", nu=1.0, class_weight=cw).fit(X, y)
    b = RobustSVC(alpha="scale", nu=1.0).fit(X, y, sample_weight=np.array([cw[c] for c in y]))
    np.testing.assert_allclose(a.decision_function(X), b.decision_function(X), rtol=1e-9, atol=1e-10)
    bal = RobustSVC(alpha="scale", nu=1.0, class_weight="balanced").fit(X[:70], y[:70])
    counts = np.bincount(y[:70])
    c = RobustSVC(alpha="scale", nu=1.0).fit(X[:70], y[:70], sample_weight=(70 / (3 * counts))[y[:70]])
    np.testing.assert_allclose(bal.decision_function(X), c.decision_function(X), rtol=1e-9, atol=1e-10)


def test_heavier_class_is_favoured():
    X, y = _data(200, seed=4)
    plain = RobustSVC(kernel="linear", nu=1.0).fit(X, y)
    heavy = RobustSVC(kernel="linear", nu=1.0, class_weight={1: 20.0}).fit(X, y)
    rec_plain = np.mean(plain.predict(X)[y == 1] == 1)
    rec_heavy = np.mean(heavy.predict(X)[y == 1] == 1)
    assert rec_heavy >= rec_plain
    assert rec_heavy == 1.0 or rec_heavy > rec_plain


@pytest.mark.parametrize("bad, match", [
    (np.ones(5), r"sample_weight must have shape \(60,\)"),
    (-np.ones(60), "sample_weight must be non-negative"),
    (np.full(60, np.nan), "sample_weight contains 60 NaN"),
    (np.zeros(60), "sample_weight .* is zero for every row"),
    ("heavy", "sample_weight must be an array of numbers"),
])
def test_bad_weights_are_refused_before_work(bad, match, monkeypatch):
    import svmopt.robust.solve as mod

    def boom(*a, **k):
        raise AssertionError("work started")

    monkeypatch.setattr(mod, "fit_binary", boom)
    X, y = _data(60)
    est = RobustSVC(nu=1.0, alpha=1.0)
    with pytest.raises(ValueError, match=match):
        est.fit(X, y, sample_weight=bad)
    assert not hasattr(est, "classes_")


def test_bad_class_weight_is_refused():
    X, y = _data(60)
    with pytest.raises(ValueError, match="class_weight has the label 7"):
        RobustSVC(nu=1.0, alpha=1.0, class_weight={7: 1.0}).fit(X, y)
    with pytest.raises(ValueError, match=r"class_weight\[0\]"):
        RobustSVC(nu=1.0, alpha=1.0, class_weight={0: -1.0}).fit(X, y)
    with pytest.raises(ValueError, match="class_weight"):
        RobustSVC(class_weight="heavy").fit(X, y)


def test_zero_weights_are_removed_rows():
    X, y = _data(80)
    sw = np.ones(y.size)
    sw[::3] = 0
    a = RobustSVC(random_state=0).fit(X, y, sample_weight=sw)
    b = RobustSVC(random_state=0).fit(X[sw > 0], y[sw > 0])
    np.testing.assert_array_equal(a.decision_function(X), b.decision_function(X))


# ------------------------------------------------------------------------------------------ cv
def test_cv_accepts_splitters_and_index_pairs():
    X, y = _data(90)
    folds = list(StratifiedKFold(3).split(X, y))
    a = RobustSVC(cv=3).fit(X, y)
    b = RobustSVC(cv=folds).fit(X, y)
    c = RobustSVC(cv=StratifiedKFold(3)).fit(X, y)
    for other in (b, c):
        np.testing.assert_array_equal(a.selection_["errors"], other.selection_["errors"])
        np.testing.assert_array_equal(a.decision_function(X), other.decision_function(X))


def test_cv_pairs_follow_the_rows_left_after_zero_weights():
    y = np.array([0, 1, 0, 1, 0, 1, 0, 1])
    sw = np.array([1, 1, 0, 1, 1, 0, 1, 1])
    X = np.arange(8.0)[:, None]
    Xk, yk, wk, kept = check_fit_weights(X, y, sw, return_kept=True)
    np.testing.assert_array_equal(kept, [0, 1, 3, 4, 6, 7])
    (tr, te), = cv_splits([(np.array([0, 1, 2, 3]), np.array([4, 5, 6, 7]))], yk, kept, n_given=8)
    np.testing.assert_array_equal(tr, [0, 1, 2])  # rows 0, 1, 3
    np.testing.assert_array_equal(te, [3, 4, 5])  # rows 4, 6, 7
    np.testing.assert_array_equal(Xk[:, 0], kept)
    assert wk is None  # the weights left are all 1: the unweighted path


# ------------------------------------------------------------------------------------------ max_time
def test_max_time_bounds_a_long_selection_and_leaves_a_usable_model():
    X, y = _data(400, d=6, seed=5)
    t0 = time.perf_counter()
    full = RobustSVC(nu=np.logspace(-2, 2, 9), alpha=[0.5, 1, 2, 4, 8], cv=5).fit(X, y)
    t_full = time.perf_counter() - t0
    assert not full.max_time_reached_
    limit = max(0.5, t_full / 4)
    t0 = time.perf_counter()
    with pytest.warns(ConvergenceWarning, match=r"max_time=.* reached .*cut short: the cross-validation"):
        est = RobustSVC(nu=np.logspace(-2, 2, 9), alpha=[0.5, 1, 2, 4, 8], cv=5, max_time=limit).fit(X, y)
    took = time.perf_counter() - t0
    assert est.max_time_reached_
    assert took <= 1.1 * limit + 0.5, (took, limit, t_full)  # + the final LP, which always runs to its end
    assert est.score(X, y) > 0.6


def test_max_time_stops_the_cutting_planes():
    """The unbounded solve takes several times max_time (about 1 s at 3,000 x 300 on a fast idle machine, which is
    why the data are larger and the limit shorter than that)."""
    X, y = _data(6000, d=10, seed=6)
    with pytest.warns(ConvergenceWarning, match="cutting planes"):
        est = RobustSVC(n_landmarks=500, solver="cutting_plane", nu=1.0, alpha="scale", tol=1e-12,
                        max_iter=100000, random_state=0, max_time=0.5).fit(X, y)
    assert est.max_time_reached_
    assert est.lower_bound_[0] <= est.objective_[0]  # the certified gap as it stood at the deadline
    assert np.all(np.isfinite(est.decision_function(X)))


def test_weighted_grid_keeps_b_init_when_nothing_improves():
    """All points misclassified: the weights' sums in sorted and in row order may differ by rounding; the grid must
    not take that for an improvement (it keeps b_init, as the naive scan and the exact search do)."""
    s = np.array([2.0, -2.0, 3.0, -3.0, -4.0])
    y = np.array([1.0, -1.0, -1.0, 1.0, 1.0])
    w = np.array([0.00096, 0.954, 796.5, 671.6, 0.00085])
    s = np.where(y > 0, -5.0, 5.0)  # every point on the wrong side of [-1, 1]
    for obj in (_core.robust.Objective.paper, _core.robust.Objective.decision):
        grid = _core.robust.line_search_grid(s, y, -1.0, 1.0, 101, 0.0, obj, w=w)
        assert grid == _core.robust.line_search_grid_naive(s, y, -1.0, 1.0, 101, 0.0, obj, w=w)
        assert grid[0] == 0.0
        assert _core.robust.line_search_exact(s, y, -1.0, 1.0, 0.0, obj, w=w)[0] == 0.0


def test_cv_pairs_out_of_range_are_refused_with_zero_weights():
    X, y = _data(60)
    sw = np.ones(60)
    sw[5] = 0
    for bad in ([(np.arange(30), np.array([-1]))], [(np.arange(30), np.array([60]))]):
        with pytest.raises(ValueError, match="outside the 60 rows"):
            RobustSVC(cv=bad).fit(X, y, sample_weight=sw)


def test_weighted_spread_of_weights_summing_to_one_is_the_unweighted_one():
    from svmopt._shared.moments import weighted_variance_denominator

    x = np.random.default_rng(0).normal(size=40)
    w = np.full(40, 1 / 40)
    mean = w @ x
    assert w @ (x - mean) ** 2 / weighted_variance_denominator(w) == pytest.approx(x.var(ddof=1), rel=1e-12)
    k = np.arange(1, 41) % 3 + 1.0  # integer weights: the repeated rows
    m = k @ x / k.sum()
    assert k @ (x - m) ** 2 / weighted_variance_denominator(k) == pytest.approx(
        np.repeat(x, k.astype(int)).var(ddof=1), rel=1e-12)
    X, y = _data(80)
    a = RobustSVC(alpha="scale", nu=1.0, p=2, rho=0.1, kernel="linear").fit(X, y, sample_weight=np.full(80, 1 / 80))
    b = RobustSVC(alpha="scale", nu=1.0 / 80, p=2, rho=0.1, kernel="linear").fit(X, y)
    np.testing.assert_allclose(a.delta_, b.delta_, rtol=1e-12)  # the rho rule's stds: the unweighted ones


def test_selection_errors_are_rates_under_weights():
    """selection_["errors"] holds held-out error rates: with every weight c the misclassified held-out weight over
    the rows' total weight, the same rates as the unweighted selection at nu times c (C_i = nu w_i)."""
    rng = np.random.default_rng(5)
    X = rng.normal(size=(160, 3))
    y = np.where(X[:, 0] + 0.6 * rng.normal(size=160) > 0, 1, 0)
    # given widths: the paper's width (the default's first candidate) is a frequency-weighted std, ddof over the
    # total weight, which weights of 10 change
    kw = dict(random_state=0, n_landmarks=20, solver="lp", alpha=[1.0, 2.0])
    a = RobustSVC(nu=[0.1, 1.0, 10.0], **kw).fit(X, y, sample_weight=np.full(160, 10.0))
    b = RobustSVC(nu=[1.0, 10.0, 100.0], **kw).fit(X, y)
    assert np.all((a.selection_["errors"] >= 0) & (a.selection_["errors"] <= 1))
    np.testing.assert_allclose(a.selection_["errors"], b.selection_["errors"], rtol=1e-12)
