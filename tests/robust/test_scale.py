"""RobustSVC's reduced model and cutting-plane solver through the estimator (n_landmarks, landmarks, solver, tol,
max_iter): the same optimum as the LPs HiGHS solves directly, the paper's model recovered with every training point
as a landmark, no m x m allocation on the reduced path, and clear errors."""

from __future__ import annotations

import logging
import warnings

import numpy as np
import pytest
from sklearn.base import clone
from sklearn.exceptions import ConvergenceWarning

import svmopt
import svmopt.robust.plan as rs
from svmopt import MemoryBudgetError, RobustSVC
from svmopt.robust.reduced import solve_direct

#: The cutting planes at one nu with the paper's width (no hyperparameter selection): the solver these tests check.
CUTS = {"solver": "cutting_plane", "nu": 1.0, "alpha": "paper"}


def _data(n=300, d=4, seed=0, classes=2):
    rng = np.random.default_rng(seed)
    X = rng.normal(size=(n, d))
    score = X[:, 0] + 0.5 * X[:, 1] ** 2 + 0.3 * rng.normal(size=n)
    if classes == 2:
        return X, (score > 0.5).astype(int)
    return X, np.digitize(score, np.quantile(score, np.linspace(0, 1, classes + 1)[1:-1]))


@pytest.mark.parametrize("robust", [False, True])
@pytest.mark.parametrize("nu", [0.05, 1.0])
def test_every_training_point_as_landmark_is_the_papers_lp(robust, nu):
    X, y = _data(200)
    kw = dict(kernel="rbf", alpha=1.5, nu=nu, **(dict(p=2, rho=0.01) if robust else {}))
    paper = RobustSVC(**kw).fit(X, y)
    assert paper.model_ == "paper" and paper.landmarks_ is None
    for extra in (dict(solver="cutting_plane"), dict(n_landmarks=200, landmarks=X),
                  dict(n_landmarks=200, landmarks=X, solver="lp")):
        other = RobustSVC(**kw, **extra).fit(X, y)
        np.testing.assert_allclose(other.objective_, paper.objective_, rtol=1e-6)
        assert np.all(other.lower_bound_ <= other.objective_ * (1 + 1e-9) + 1e-9)
        assert np.all(other.lower_bound_ <= paper.objective_ * (1 + 1e-6))


@pytest.mark.parametrize("robust", [False, True])
@pytest.mark.parametrize("landmarks", ["random", "entropy", "kmeans"])
def test_cutting_planes_reach_highs_on_the_reduced_lp(robust, landmarks):
    X, y = _data(400, seed=1)
    kw = dict(kernel="rbf", alpha=2.0, nu="grid", n_landmarks=30, landmarks=landmarks, random_state=3,
              **(dict(p=2, rho=0.005) if robust else {}))
    cp = RobustSVC(solver="cutting_plane", **kw).fit(X, y)
    lp = RobustSVC(solver="lp", **kw).fit(X, y)
    assert cp.model_ == lp.model_ == "reduced"
    np.testing.assert_array_equal(cp.landmarks_, lp.landmarks_)  # same landmarks from the same seed
    assert cp.landmarks_.shape == (30, X.shape[1])
    for a, b in zip(cp.fit_path_[0], lp.fit_path_[0], strict=True):  # every nu of the grid, cuts reused
        assert a["objective"] == pytest.approx(b["objective"], rel=1e-6)
        assert a["lower_bound"] <= b["objective"] * (1 + 1e-9) + 1e-9
    assert np.all(cp.n_iter_ >= 1)
    # the expansion is over the landmarks: support_ indexes landmarks_
    np.testing.assert_array_equal(cp.support_vectors_, cp.landmarks_[cp.support_])
    f = cp.kernel_.cross(X, cp.support_vectors_) @ cp.dual_coef_[0] - cp.intercept_[0]
    np.testing.assert_allclose(cp.decision_function(X), f, atol=1e-10)


def test_auto_switches_to_the_reduced_model_above_the_row_limit(monkeypatch, caplog):
    X, y = _data(120)
    monkeypatch.setattr(rs, "AUTO_MAX_ROWS", 100)
    monkeypatch.setattr(rs, "AUTO_LANDMARKS", 20)
    with caplog.at_level(logging.INFO, logger="svmopt.robust"):
        clf = RobustSVC(n_landmarks="auto", random_state=0).fit(X, y)
    assert clf.model_ == "reduced" and clf.landmarks_.shape == (20, X.shape[1])
    assert "reduced model over 20 landmarks" in caplog.text
    small = RobustSVC(n_landmarks="auto").fit(X[:100], y[:100])
    assert small.model_ == "paper"


def test_the_reduced_path_allocates_no_m_by_m_matrix():
    X, y = _data(600)
    old = svmopt.get_memory_budget()
    try:
        svmopt.set_memory_budget(600 * 600 * 8 // 2)  # an m x m Gram would not fit
        with pytest.raises(MemoryBudgetError):
            RobustSVC(n_landmarks=None).fit(X, y)
        cached = RobustSVC(n_landmarks=40, landmarks="random", random_state=0, **CUTS).fit(X, y)
        svmopt.set_memory_budget(600 * 40 * 8)  # the kernel rows are not cached: computed at every pass
        streamed = RobustSVC(n_landmarks=40, landmarks="random", random_state=0, **CUTS).fit(X, y)
    finally:
        svmopt.set_memory_budget(old)
    np.testing.assert_allclose(streamed.objective_, cached.objective_, rtol=1e-12)
    np.testing.assert_array_equal(streamed.n_iter_, cached.n_iter_)
    np.testing.assert_allclose(streamed.decision_function(X), cached.decision_function(X), atol=1e-10)


def test_max_iter_is_a_convergence_warning_with_a_usable_model():
    X, y = _data(300)
    with pytest.warns(ConvergenceWarning, match="certified relative gap"):
        clf = RobustSVC(n_landmarks=40, landmarks="random", random_state=0, max_iter=3, **CUTS).fit(X, y)
    assert np.all(clf.lower_bound_ <= clf.objective_)
    assert clf.predict(X).shape == (300,)
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        RobustSVC(n_landmarks=40, landmarks="random", random_state=0, **CUTS).fit(X, y)


def test_multiclass_one_vs_rest_on_the_reduced_model():
    X, y = _data(300, classes=3)
    clf = RobustSVC(n_landmarks=25, landmarks="random", random_state=0).fit(X, y)
    assert clf.dual_coef_.shape == (3, clf.support_.size)
    assert clf.decision_function(X).shape == (300, 3)
    assert clf.score(X, y) > 0.6


@pytest.mark.parametrize(("kw", "match"), [
    (dict(n_landmarks=3, landmarks=np.zeros((4, 4))), "landmarks must be a finite array of shape"),
    (dict(n_landmarks=3, landmarks=np.zeros((3, 2))), "landmarks must be a finite array of shape"),
    (dict(n_landmarks=None, landmarks=np.zeros((3, 4))), "landmarks given as points need the reduced model"),
    (dict(n_landmarks=1000), "exceeds the 50 training rows"),
    (dict(n_landmarks=0), "n_landmarks"),
    (dict(solver="simplex"), "solver"),
    (dict(tol=0.0), "tol"),
    (dict(max_iter=0), "max_iter"),
])
def test_bad_reduced_model_parameters_name_themselves(kw, match):
    X, y = _data(50)
    with pytest.raises(ValueError, match=match):
        RobustSVC(**kw).fit(X, y)


def test_a_master_stopped_at_a_highs_limit_certifies_nothing():
    """A HiGHS limit returns a feasible point (an upper bound): it must not raise the lower bound past the optimum
    nor be reported optimal."""
    X, y = _data(400, seed=3)
    Z = X[:30]
    opt = solve_direct(svmopt.Kernel("rbf", alpha=1.0).cross(X, Z), np.where(y == 1, 1.0, -1.0), np.ones(30),
                       1.0).objective
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", ConvergenceWarning)  # HiGHS's own notice of each limited solve
        clf = RobustSVC(n_landmarks="auto", landmarks=Z, alpha=1.0, nu=1.0, solver="cutting_plane", max_iter=60,
                        solver_options={"simplex_iteration_limit": 80, "simplex_strategy": 4}).fit(X, y)
    assert clf.model_ == "reduced" and clf.landmarks_.shape == (30, X.shape[1])  # "auto" with given points
    assert clf.lower_bound_[0] <= opt * (1 + 1e-9)
    assert clf.objective_[0] >= opt * (1 - 1e-9)
    if clf.lower_bound_[0] < clf.objective_[0] * (1 - 1e-6):
        assert clf.fit_path_[0][0]["status"] != "Optimal"


def test_max_iter_bounds_the_passes():
    X, y = _data(300)
    clf = RobustSVC(n_landmarks=40, landmarks="random", random_state=0, max_iter=5, **CUTS)
    with pytest.warns(ConvergenceWarning):
        clf.fit(X, y)
    assert clf.n_iter_[0] <= 5


def test_a_memmap_fits_the_reduced_model_as_an_array(tmp_path):
    X, y = _data(400)
    mm = np.memmap(tmp_path / "X.f64", dtype=np.float64, mode="w+", shape=X.shape)
    mm[:] = X
    mm.flush()
    mm = np.memmap(tmp_path / "X.f64", dtype=np.float64, mode="r", shape=X.shape)
    kw = dict(n_landmarks=30, landmarks="random", random_state=0)
    a = RobustSVC(**kw).fit(X, y)
    b = RobustSVC(**kw).fit(mm, y)
    np.testing.assert_array_equal(a.objective_, b.objective_)
    np.testing.assert_array_equal(a.decision_function(X), b.decision_function(mm))


def test_entropy_landmarks_come_from_at_most_max_candidates_rows(monkeypatch):
    """Above MAX_CANDIDATES rows the Rényi-entropy search sees a uniform sample of that many rows (as the fixed-size
    LS-SVM's does), not the whole data set; the landmarks are still training rows."""
    seen = []
    select = rs.select_prototypes

    def recording(X, m, **kw):
        seen.append(X.shape)
        return select(X, m, **kw)

    monkeypatch.setattr(rs, "MAX_CANDIDATES", 80)
    monkeypatch.setattr(rs, "select_prototypes", recording)
    X, y = _data(n=300)
    clf = RobustSVC(n_landmarks=10, landmarks="entropy", random_state=0).fit(X, y)
    assert seen == [(80, X.shape[1])]
    assert clf.landmarks_.shape == (10, X.shape[1])
    assert all(np.any(np.all(X == z, axis=1)) for z in clf.landmarks_)
    seen.clear()
    monkeypatch.setattr(rs, "MAX_CANDIDATES", 300)  # n <= MAX_CANDIDATES: every row is a candidate
    RobustSVC(n_landmarks=10, landmarks="entropy", random_state=0).fit(X, y)
    assert seen == [X.shape]


# --------------------------------------------------------------------------------------------- Dask arrays
@pytest.mark.parametrize("landmarks", ["entropy", "kmeans"])
@pytest.mark.parametrize("robust", [False, True])
def test_a_dask_array_fits_the_model_an_array_fits(landmarks, robust):
    """The same landmarks, the same certified optimum (to the gap) and the same predictions, with the passes run
    chunk by chunk; prediction takes a Dask array too."""
    da = pytest.importorskip("dask.array")
    X, y = _data(n=1200)
    kw = {"p": 2, "eta": 0.02} if robust else {}
    ref = RobustSVC(n_landmarks=25, landmarks=landmarks, random_state=0, **kw).fit(X, y)
    lazy = RobustSVC(n_landmarks=25, landmarks=landmarks, random_state=0, **kw).fit(da.from_array(X, chunks=(500, 4)),
                                                                                   da.from_array(y, chunks=500))
    np.testing.assert_array_equal(lazy.landmarks_, ref.landmarks_)
    assert lazy.n_features_in_ == 4 and lazy.model_ == "reduced"
    assert np.all(lazy.lower_bound_ <= ref.objective_ * (1 + 1e-12))
    assert np.all(ref.lower_bound_ <= lazy.objective_ * (1 + 1e-12))
    np.testing.assert_allclose(lazy.objective_, ref.objective_, rtol=1e-6)
    assert np.abs(lazy.dual_coef_).sum() > 0
    Xd = da.from_array(X, chunks=(300, 4))
    np.testing.assert_allclose(lazy.decision_function(Xd), lazy.decision_function(X), rtol=1e-12, atol=1e-12)
    assert np.mean(lazy.predict(X) == ref.predict(X)) >= 0.99


@pytest.mark.parametrize("kw", [{"alpha": "scale"}, {"alpha": "paper"}, {"kernel": "inhom_poly", "degree": 2}])
def test_a_weighted_dask_fit_reads_the_weighted_data_statistics(kw):
    """The kernel width ("scale", "paper") and c="auto" come from the frequency-weighted data statistics on a Dask
    array too (its weighted column sums by the workers), so sample and class weights give the array's model."""
    da = pytest.importorskip("dask.array")
    X, y = _data(n=1200)
    sw = np.where(y == y.max(), 5.0, 1.0) * np.linspace(0.5, 1.5, y.size)
    est = dict(n_landmarks=30, random_state=0, nu=1.0, selection="training_error", **kw)
    ref = RobustSVC(**est).fit(X, y, sample_weight=sw)
    lazy = RobustSVC(**est).fit(da.from_array(X, chunks=(300, 4)), y, sample_weight=sw)
    unweighted = RobustSVC(**est).fit(X, y)
    for a, b in ((lazy, ref), (unweighted, ref)):
        same = (a.kernel_.alpha == pytest.approx(b.kernel_.alpha, rel=1e-12)) if "alpha" in kw else \
            (a.kernel_.c == pytest.approx(b.kernel_.c, rel=1e-12))
        assert same is (a is lazy)  # equal to the in-memory weighted fit; the weights do change it
    np.testing.assert_allclose(lazy.objective_, ref.objective_, rtol=1e-6)
    cw = RobustSVC(class_weight="balanced", **est)
    np.testing.assert_allclose(cw.fit(da.from_array(X, chunks=(300, 4)), y).objective_,
                               clone(cw).fit(X, y).objective_, rtol=1e-6)


def test_a_small_dask_array_fits_the_papers_model_in_memory():
    da = pytest.importorskip("dask.array")
    X, y = _data(n=200)
    ref = RobustSVC().fit(X, y)
    lazy = RobustSVC().fit(da.from_array(X, chunks=(64, 4)), y)
    assert lazy.model_ == "paper"
    np.testing.assert_allclose(lazy.objective_, ref.objective_, rtol=1e-9)


@pytest.mark.parametrize(("kw", "change", "match"), [
    ({"n_landmarks": None}, None, "paper's model .* needs the 2000 x 2000 Gram"),
    ({"n_landmarks": 20, "solver": "lp"}, None, "solver='lp'"),
    ({"n_landmarks": 20}, "nan", "NaN or infinity"),
    ({"n_landmarks": 20}, "short_y", "2000 rows but y has 1999"),
])
def test_bad_dask_input_is_refused_before_the_fit(kw, change, match):
    da = pytest.importorskip("dask.array")
    X, y = _data(n=2000)
    if change == "nan":
        X[5, 1] = np.nan
    if change == "short_y":
        y = y[:-1]
    clf = RobustSVC(**kw)
    with pytest.raises(ValueError, match=match):
        clf.fit(da.from_array(X, chunks=(500, 4)), y)
    assert not hasattr(clf, "classes_")  # nothing fitted


@pytest.mark.parametrize("solver", ["ipm", "cutting_plane"])
def test_a_spent_max_time_still_gives_the_first_nu_of_the_final_fit_a_model(solver):
    """With max_time spent before the final fit, the first nu's solver runs past the deadline until its best point
    has support, then stops (HiGHS's first LP runs to its end): a model better than the solvers' start u = 0 (a
    one-class predictor), its certified gap in the warning, max_time_reached_ set. Without max_time the solve runs
    to tol as usual."""
    X, y = _data(n=1500)
    with pytest.warns(ConvergenceWarning, match=r"cut short: the .* at nu=1 \(certified relative gap"):
        clf = RobustSVC(n_landmarks=40, solver=solver, random_state=0, max_time=1e-3, nu=1.0,
                        selection="training_error").fit(X, y)
    assert clf.max_time_reached_ and np.abs(clf.dual_coef_).sum() > 0
    majority = max(np.mean(y == c) for c in np.unique(y))
    assert clf.score(X, y) > majority + 0.05
    full = RobustSVC(n_landmarks=40, solver=solver, random_state=0, nu=1.0, selection="training_error").fit(X, y)
    assert not full.max_time_reached_
    assert clf.objective_[0] >= full.objective_[0] * (1 - 1e-9) and clf.lower_bound_[0] <= full.objective_[0]
