"""EllipsoidPSOClassifier's sample and class weights, its ``cv`` splitters, ``max_time`` and ``verbose``, and the
swarm core's time limit (paper 003: the weighted statistics of the ellipsoids, eq. (15), and of the whitening,
Section 4.3.5; the coupled swarms of eq. (7) stopped between iterations)."""

from __future__ import annotations

import time
import warnings

import numpy as np
import pytest
from sklearn.covariance import ledoit_wolf_shrinkage
from sklearn.exceptions import ConvergenceWarning
from sklearn.model_selection import KFold, LeaveOneGroupOut, StratifiedKFold

from svmopt import EllipsoidPSOClassifier, _core
from svmopt.datasets import load_dataset
from svmopt.ellipsoid.geometry import class_ellipsoids
from svmopt.ellipsoid.geometry import weighted_mean_cov as _wmc
from svmopt.ellipsoid.projection import project_2d, weighted_ledoit_wolf_shrinkage, whiten
from svmopt.ellipsoid.selection import RATIO_GRID
from svmopt.ellipsoid.swarms import pso_closest_points
from tests.ellipsoid.test_swarms import core_draws, random_pair, ref_two_swarm

FAST = {"max_iter": 40}


def _blobs(seed=0, n=(20, 25, 18), d=4):
    rng = np.random.default_rng(seed)
    X = np.vstack([rng.standard_normal((m, d)) + 3.0 * k * np.eye(d)[k % d] for k, m in enumerate(n)])
    y = np.repeat(np.arange(len(n)), n)
    return X, y


def _repeat(X, y, sw):
    return X.repeat(sw, axis=0), y.repeat(sw)


def _groups_cv(n_first, n_rest):
    """The scheme of scikit-learn's weight-equivalence check: weights only in group 0, held out group by group."""
    groups = np.r_[np.zeros(n_first, dtype=int), np.repeat([1, 2], n_rest)]
    return groups


# ------------------------------------------------------------------------------------------ weighted statistics
def test_weighted_statistics_equal_repeated_rows():
    """Integer weights: mean, covariance, Ledoit-Wolf amount, whitening and class ellipsoids of the repeated rows."""
    rng = np.random.default_rng(0)
    X = rng.standard_normal((12, 3)) @ rng.standard_normal((3, 3))
    sw = rng.integers(1, 5, 12)
    R = X.repeat(sw, axis=0)
    w = sw.astype(float)
    m, C = _wmc(X, w)
    np.testing.assert_allclose(m, R.mean(axis=0), atol=1e-13)
    np.testing.assert_allclose(C, np.cov(R, rowvar=False), atol=1e-13)
    assert weighted_ledoit_wolf_shrinkage(X - m, w) == pytest.approx(ledoit_wolf_shrinkage(R), abs=1e-13)
    assert weighted_ledoit_wolf_shrinkage(X, np.ones(12)) == pytest.approx(ledoit_wolf_shrinkage(X), abs=1e-14)
    for sh in (0.0, 0.3, "ledoit_wolf"):
        mw, Ww = whiten(X, sh, w)
        mr, Wr = whiten(R, sh)
        np.testing.assert_allclose(mw, mr, atol=1e-12)
        np.testing.assert_allclose(Ww @ Ww.T, Wr @ Wr.T, atol=1e-10)  # the same whitening up to column signs
    Q2 = rng.standard_normal((9, 2)) + 6.0
    s2 = rng.integers(1, 4, 9)
    Ew = class_ellipsoids(X[:, :2], Q2, w1=w, w2=s2.astype(float))
    Er = class_ellipsoids(R[:, :2], Q2.repeat(s2, axis=0))
    for key in ("mu1", "P1", "mu2", "P2", "b1", "b2"):
        np.testing.assert_allclose(Ew[key], Er[key], atol=1e-11)
    Pw = project_2d(X, X[::-1] + 2.0, "covdiff", None, w, w[::-1])
    Pr = project_2d(R, X[::-1].repeat(sw[::-1], axis=0) + 2.0, "covdiff", None)
    np.testing.assert_allclose(np.abs(Pw), np.abs(Pr), atol=1e-10)


def test_weighted_covariance_normalization():
    """Unweighted: np.cov itself; equal weights c <= 1: the unweighted covariance; one row: zero, no NaN."""
    X = np.random.default_rng(1).standard_normal((7, 2))
    _m, C = _wmc(X)
    np.testing.assert_array_equal(C, np.cov(X, rowvar=False))
    np.testing.assert_allclose(_wmc(X, np.full(7, 0.25))[1], C, atol=1e-14)
    np.testing.assert_allclose(_wmc(X, np.full(7, 3.0))[1], np.cov(np.repeat(X, 3, axis=0), rowvar=False),
                               atol=1e-14)
    np.testing.assert_array_equal(_wmc(X[:1], np.array([0.5]))[1], np.zeros((2, 2)))


def test_class_with_enough_weight_but_few_rows():
    """A class needs n + 1 rows or a total weight of n + 1 (integer weights count as repeated rows)."""
    Q1 = np.array([[0.0, 0.0], [1.0, 0.2]])
    Q2 = np.array([[5.0, 0.0], [6.0, 1.0], [5.0, 2.0]])
    with pytest.raises(ValueError, match="samples"):
        class_ellipsoids(Q1, Q2)
    with pytest.raises(ValueError, match="total weight"):
        class_ellipsoids(Q1, Q2, w1=np.array([0.5, 0.5]), w2=np.ones(3))
    E = class_ellipsoids(Q1, Q2, w1=np.array([2.0, 1.0]), w2=np.ones(3))
    F = class_ellipsoids(Q1[[0, 0, 1]], Q2)
    np.testing.assert_allclose(E["P1"], F["P1"], atol=1e-10)


# ------------------------------------------------------------------------------------------ the estimator
def test_unit_weights_and_no_class_weight_are_the_unweighted_fit_bit_for_bit():
    X, y = load_dataset("iris")
    ref = EllipsoidPSOClassifier(random_state=0, **FAST).fit(X, y)
    for kw in ({"sample_weight": np.ones(150)}, {"sample_weight": [1] * 150}):
        got = EllipsoidPSOClassifier(random_state=0, **FAST).fit(X, y, **kw)
        np.testing.assert_array_equal(got.coef_, ref.coef_)
        np.testing.assert_array_equal(got.intercept_, ref.intercept_)
    got = EllipsoidPSOClassifier(random_state=0, class_weight=dict.fromkeys(np.unique(y), 1.0), **FAST).fit(X, y)
    np.testing.assert_array_equal(got.coef_, ref.coef_)


def test_zero_weights_are_removed_rows_bit_for_bit():
    """A weight of 0 leaves the row out: the fit (int cv included) is the fit without those rows."""
    X, y = _blobs(1)
    sw = np.ones(len(y))
    sw[::5] = 0.0
    ref = EllipsoidPSOClassifier(random_state=0, **FAST).fit(X[sw > 0], y[sw > 0])
    got = EllipsoidPSOClassifier(random_state=0, **FAST).fit(X, y, sample_weight=sw)
    np.testing.assert_array_equal(got.coef_, ref.coef_)
    np.testing.assert_array_equal(got.selection_["errors"], ref.selection_["errors"])


@pytest.mark.parametrize("params", [{}, {"projection": "dataset"}, {"multiclass": "ovr"}, {"solver": "exact"},
                                    {"shrinkage": "ledoit_wolf", "ratio": 2.0}])
def test_integer_weights_equal_repeated_rows(params):
    """Integer weights (0 included) = repeated rows, with the selection's folds given as splits in which the
    weighted/repeated rows form one group (the scheme of scikit-learn's check). Not p2_mode="literal": the pooled
    covariance of whitened rows is the identity, so its top eigenvector is any direction and rounding picks one.
    The exact solver stops its angle search at a tolerance (1e-13 rad), hence its looser rtol."""
    X, y = _blobs(2, n=(14, 12, 13))
    rng = np.random.default_rng(3)
    sw = rng.integers(0, 4, len(y))
    Xr, yr = _repeat(X, y, sw)
    Xw, yw, ww = np.vstack([X, X, X]), np.r_[y, y, y], np.r_[sw, np.ones(2 * len(y))]
    cv_w = list(LeaveOneGroupOut().split(Xw, groups=_groups_cv(len(y), len(y))))
    Xr, yr = np.vstack([Xr, X, X]), np.r_[yr, y, y]
    cv_r = list(LeaveOneGroupOut().split(Xr, groups=_groups_cv(int(sw.sum()), len(y))))
    rep = EllipsoidPSOClassifier(random_state=0, cv=cv_r, **FAST, **params).fit(Xr, yr)
    wei = EllipsoidPSOClassifier(random_state=0, cv=cv_w, **FAST, **params).fit(Xw, yw, sample_weight=ww)
    rtol = 1e-5 if params.get("solver") == "exact" else 1e-7
    np.testing.assert_allclose(wei.decision_function(X), rep.decision_function(X), rtol=rtol, atol=1e-9)
    np.testing.assert_array_equal(wei.ratios_, rep.ratios_)
    if rep.selection_ is not None:
        np.testing.assert_array_equal(wei.selection_["errors"], rep.selection_["errors"])


def test_class_weight_equals_multiplied_sample_weights():
    X, y = _blobs(4)
    sw = np.random.default_rng(5).uniform(0.5, 2.0, len(y))
    cw = {0: 2.0, 1: 0.5, 2: 1.0}
    a = EllipsoidPSOClassifier(random_state=0, class_weight=cw, **FAST).fit(X, y, sample_weight=sw)
    b = EllipsoidPSOClassifier(random_state=0, **FAST).fit(X, y, sample_weight=sw * np.array([2.0, 0.5, 1.0])[y])
    np.testing.assert_array_equal(a.coef_, b.coef_)
    bal = EllipsoidPSOClassifier(random_state=0, class_weight="balanced", **FAST).fit(X, y)
    counts = np.bincount(y)
    c = EllipsoidPSOClassifier(random_state=0, **FAST).fit(X, y, sample_weight=(len(y) / (3 * counts))[y])
    np.testing.assert_array_equal(bal.coef_, c.coef_)
    assert bal.score(X, y) > 0.9


def test_weights_move_the_hyperplane_and_weight_the_held_out_errors():
    """Up-weighting one class's rows changes its ellipsoid (weighted mean and covariance) and the selection's
    held-out error rates are weighted: rates of the weighted rows, between 0 and 1."""
    X, y = _blobs(6, n=(30, 30), d=3)
    sw = np.where(np.arange(len(y)) % 3 == 0, 5.0, 1.0)
    a = EllipsoidPSOClassifier(random_state=0, **FAST).fit(X, y)
    b = EllipsoidPSOClassifier(random_state=0, **FAST).fit(X, y, sample_weight=sw)
    assert not np.allclose(a.models_[0]["mu1"], b.models_[0]["mu1"])
    errs = b.selection_["errors"]
    errs = errs[~np.isnan(errs)]  # NaN: ratios beyond those scored
    assert errs.size and np.all((errs >= 0) & (errs <= 1))


@pytest.mark.parametrize(("sample_weight", "match"), [
    (lambda n: -np.ones(n), "non-negative"),
    (lambda n: np.r_[np.nan, np.ones(n - 1)], "NaN"),
    (lambda n: np.ones(n - 1), "shape"),
    (lambda n: np.zeros(n), "zero for every row"),
    (lambda n: np.array(["a"] * n), "sample_weight"),
])
def test_bad_sample_weights_raise_before_work_starts(monkeypatch, sample_weight, match):
    X, y = load_dataset("iris")

    def no_work(*args, **kwargs):
        raise AssertionError("the fit started before the weights were validated")

    monkeypatch.setattr(EllipsoidPSOClassifier, "_fit_binary", no_work)
    with pytest.raises(ValueError, match="sample_weight") as info:
        EllipsoidPSOClassifier().fit(X, y, sample_weight=sample_weight(len(y)))
    assert match in str(info.value) or match == "sample_weight"


def test_bad_class_weight():
    X, y = load_dataset("iris")
    with pytest.raises(ValueError, match="class_weight"):
        EllipsoidPSOClassifier(class_weight={7: 1.0}).fit(X, y)
    with pytest.raises(ValueError, match="class_weight"):
        EllipsoidPSOClassifier(class_weight="auto").fit(X, y)


# ------------------------------------------------------------------------------------------ cv
def test_cv_accepts_splitters_and_iterables():
    X, y = load_dataset("iris")
    ref = EllipsoidPSOClassifier(random_state=0, **FAST).fit(X, y)
    same = EllipsoidPSOClassifier(random_state=0, cv=None, **FAST).fit(X, y)  # None: the default 5
    np.testing.assert_array_equal(same.coef_, ref.coef_)
    skf = StratifiedKFold(4, shuffle=True, random_state=1)
    a = EllipsoidPSOClassifier(random_state=0, cv=skf, **FAST).fit(X, y)
    b = EllipsoidPSOClassifier(random_state=0, cv=list(skf.split(X, y)), **FAST).fit(X, y)
    c = EllipsoidPSOClassifier(random_state=0, cv=iter(list(skf.split(X, y))), **FAST).fit(X, y)
    np.testing.assert_array_equal(a.coef_, b.coef_)
    np.testing.assert_array_equal(a.coef_, c.coef_)
    np.testing.assert_array_equal(a.selection_["errors"], b.selection_["errors"])
    assert a.score(X, y) > 0.9
    k = EllipsoidPSOClassifier(random_state=0, cv=KFold(5, shuffle=True, random_state=0), **FAST).fit(X, y)
    assert k.selection_["errors"].shape == (3, 2, RATIO_GRID.size)
    with pytest.raises(ValueError, match="cv"):
        EllipsoidPSOClassifier(cv=1).fit(X, y)
    with pytest.raises(ValueError, match="cv"):
        EllipsoidPSOClassifier(cv="three").fit(X, y)


def test_user_splits_on_a_binary_problem_restricted_to_its_rows():
    """A split's held-out rows of other classes do not count; a split without held-out rows of the problem is
    skipped; the error rates are over the held-out rows the problem has."""
    X, y = _blobs(7)
    splits = [(np.flatnonzero(y != 2), np.flatnonzero(y == 2)),  # no held-out row of pair (0, 1)
              (np.arange(0, len(y), 2), np.arange(1, len(y), 2))]
    clf = EllipsoidPSOClassifier(random_state=0, cv=splits, **FAST).fit(X, y)
    assert clf.pairs_[0] == (0, 1)
    errs = clf.selection_["errors"][..., np.abs(np.log2(RATIO_GRID)) <= 3]  # the ratios always scored
    assert np.all(np.isfinite(errs)) and np.all((errs >= 0) & (errs <= 1))


# ------------------------------------------------------------------------------------------ max_time
def test_swarm_time_limit_stops_between_iterations():
    """The core's time_limit: a run stopped after j iterations is the run with max_iter = j (which the numpy
    reference of Table 1 reproduces), with histories of j + 1 rows."""
    mu1, P1, mu2, P2 = random_pair(np.random.default_rng(0))
    big = _core.ellipsoid.two_swarm(mu1, P1, mu2, P2, n_particles=50, max_iter=10**7, seed=3, time_limit=0.05)
    j = big.n_iter
    assert big.timed_out and 0 < j < 10**7
    assert big.distance_history.shape == (j + 1,) and big.swarm1.fitness_history.shape == (j + 1,)
    ref = _core.ellipsoid.two_swarm(mu1, P1, mu2, P2, n_particles=50, max_iter=j, seed=3)
    assert not ref.timed_out and ref.n_iter == j
    np.testing.assert_array_equal(big.x, ref.x)
    np.testing.assert_array_equal(big.y, ref.y)
    np.testing.assert_array_equal(big.distance_history, ref.distance_history)
    zero = _core.ellipsoid.two_swarm(mu1, P1, mu2, P2, max_iter=50, seed=3, time_limit=0.0, record=True, s_init=0.5)
    assert zero.n_iter == 0 and zero.timed_out and zero.swarm1.positions.shape[0] == 1
    full = _core.ellipsoid.two_swarm(mu1, P1, mu2, P2, max_iter=12, seed=3, time_limit=60.0, record=True, s_init=0.5)
    assert full.n_iter == 12 and not full.timed_out
    X0 = [full.swarm1.positions[0], full.swarm2.positions[0]]
    np.testing.assert_array_equal(zero.swarm1.positions[0], X0[0])
    ref_pos, _ = ref_two_swarm([mu1, mu2], [P1, P2], X0, 3, 12, draws=core_draws)
    np.testing.assert_array_equal(np.stack([full.swarm1.positions, full.swarm2.positions], axis=1), ref_pos)
    one = _core.ellipsoid.single_swarm(mu1, P1, mu2, n_particles=50, max_iter=10**7, seed=3, time_limit=0.02)
    assert one.timed_out and one.fitness_history.shape == (one.n_iter + 1,)
    again = _core.ellipsoid.single_swarm(mu1, P1, mu2, n_particles=50, max_iter=one.n_iter, seed=3)
    np.testing.assert_array_equal(one.gbest, again.gbest)
    cp = pso_closest_points(mu1, P1, mu2, P2, max_iter=10**7, max_time=0.02, random_state=3)
    assert cp.info["timed_out"] and cp.info["n_iter"] < 10**7 and cp.gap >= 0
    with pytest.raises(ValueError, match="max_time"):
        pso_closest_points(mu1, P1, mu2, P2, max_time=-1.0)


def test_max_time_bounds_a_long_fit():
    """A fit of several seconds (15 class pairs x 42 candidate swarms + 1 of 300 particles x 3000 iterations)
    under max_time=T ends within 1.1 T, warns, names the stages it cut and predicts."""
    rng = np.random.default_rng(0)
    X = np.vstack([rng.standard_normal((40, 5)) + 4.0 * k * np.eye(5)[k % 5] for k in range(6)])
    y = np.repeat(np.arange(6), 40)
    params = {"n_particles": 300, "max_iter": 3000, "random_state": 0}
    t0 = time.perf_counter()
    EllipsoidPSOClassifier(**{**params, "max_iter": 300}, ratio=1.0, shrinkage=0.0).fit(X[:80], y[:80])
    one_swarm = (time.perf_counter() - t0) * 10  # one final swarm of 3000 iterations
    assert one_swarm * 15 * 43 > 6.0  # the unlimited fit would take far longer than max_time
    T = 2.0
    clf = EllipsoidPSOClassifier(max_time=T, **params)
    t0 = time.perf_counter()
    with pytest.warns(ConvergenceWarning, match="max_time"):
        clf.fit(X, y)
    elapsed = time.perf_counter() - t0
    assert elapsed < 1.1 * T, elapsed
    assert clf.max_time_reached_
    assert clf.n_iter_ < 3000
    assert clf.predict(X).shape == (240,) and clf.score(X, y) > 0.5


def test_max_time_not_reached_changes_nothing():
    X, y = load_dataset("iris")
    ref = EllipsoidPSOClassifier(random_state=0, **FAST).fit(X, y)
    with warnings.catch_warnings():
        warnings.simplefilter("error", ConvergenceWarning)
        got = EllipsoidPSOClassifier(random_state=0, max_time=600.0, **FAST).fit(X, y)
    np.testing.assert_array_equal(got.coef_, ref.coef_)
    assert got.max_time_reached_ is False and ref.max_time_reached_ is False
    assert got.n_iter_ == 40
    with pytest.raises(ValueError, match="max_time"):
        EllipsoidPSOClassifier(max_time=0).fit(X, y)


# ------------------------------------------------------------------------------------------ verbose
def test_verbose_shows_a_progress_bar_and_quiet_prints_nothing(capsys):
    X, y = load_dataset("iris")
    EllipsoidPSOClassifier(random_state=0, **FAST).fit(X, y)
    out = capsys.readouterr()
    assert out.out == "" and out.err == ""
    EllipsoidPSOClassifier(random_state=0, verbose=True, **FAST).fit(X, y)
    out = capsys.readouterr()
    assert "EllipsoidPSOClassifier" in out.err  # the tqdm bar
    assert "held-out error" in out.out
