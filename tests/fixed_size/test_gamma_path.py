"""gamma_search="path": the fast v-fold CV (19)-(21) scored at every gamma of a path on one sigma^2's fold
statistics (``cost_path``), against the same cost evaluated one gamma at a time, on every engine and data path."""

import math

import numpy as np
import pytest

from svmopt import FixedSizeLSSVC, FixedSizeLSSVR, _core
from svmopt._shared.splits import random_folds
from svmopt.fixed_size.cv_engine import CoreCVEngine, CVEngine
from svmopt.fixed_size.nystrom import kernel_fold_models, kernel_fold_predict
from svmopt.fixed_size.tuning import GAMMA_PATH, path_choice

GAMMAS = [1e-3, 0.1, 1.0, 10.0, 1e3, 1e5]


def rbf(sigma2):
    return _core.kernels.KernelParams(_core.kernels.KernelKind.rbf, alpha=np.sqrt(sigma2 / 2))


@pytest.fixture(scope="module")
def data():
    rng = np.random.default_rng(4)
    n, d = 611, 4
    X = rng.normal(size=(n, d))
    yc = np.where(np.sin(2 * X[:, 0]) + X[:, 1] * X[:, 2] + 0.3 * rng.normal(size=n) >= 0, 1.0, -1.0)
    yr = np.sin(X[:, 0]) + 0.5 * X[:, 2] + 0.1 * rng.normal(size=n)
    PV = np.ascontiguousarray(X[rng.choice(n, 40, replace=False)])
    return X, yc, yr, PV


def _blocks(X, Y, block=200):
    Y = np.asarray(Y, float).reshape(X.shape[0], -1)

    def blocks():
        for s in range(0, X.shape[0], block):
            yield np.ascontiguousarray(X[s:s + block]), np.ascontiguousarray(Y[s:s + block])

    return blocks


@pytest.mark.parametrize("task", ["classification", "regression"])
@pytest.mark.parametrize("statistics", ["features", "kernel"])
@pytest.mark.parametrize("budget", [1 << 30, 1000], ids=["kept", "streamed"])
@pytest.mark.parametrize("v", [3, 10])
def test_cost_path_equals_costs_one_gamma_at_a_time(data, task, statistics, budget, v):
    X, yc, yr, PV = data
    y = yc if task == "classification" else yr
    folds = random_folds(X.shape[0], v, np.random.default_rng(v))

    def engine():
        return CVEngine(_blocks(X, y), folds, v, PV, rbf, task, feature_budget=budget, n_features=X.shape[1],
                        statistics=statistics)

    e = engine()
    e.holdout = False
    path = e.cost_path(GAMMAS, 3.0)
    ref = engine()
    ref.holdout = False
    single = [ref.cost(g, 3.0) for g in GAMMAS]
    np.testing.assert_allclose(path, single, rtol=1e-10, atol=1e-13)
    # one statistics pass, and at most one prediction pass for the whole path
    assert e.n_passes <= 2
    assert e.n_evals == len(GAMMAS)


def test_cost_path_holdout_and_core_engine(data):
    X, yc, _, PV = data
    n = X.shape[0]
    folds = random_folds(n, 50, np.random.default_rng(0))
    e = CVEngine(_blocks(X, yc), folds, 50, PV, rbf, "classification", n_features=X.shape[1])
    assert e.holdout  # many small folds: the holdout identity
    np.testing.assert_allclose(e.cost_path(GAMMAS, 2.0), [e.cost(g, 2.0) for g in GAMMAS], rtol=1e-12)
    core = CoreCVEngine(np.ascontiguousarray(X), None, None, None, 200, yc.reshape(-1, 1), folds, 50, PV, rbf,
                        "classification", tune_rbf=True, n_features=X.shape[1])
    np.testing.assert_allclose(core.cost_path(GAMMAS, 2.0), e.cost_path(GAMMAS, 2.0), rtol=1e-10)
    assert core.n_passes == 1


@pytest.mark.parametrize("task", ["classification", "regression"])
@pytest.mark.parametrize("statistics", ["features", "kernel"])
@pytest.mark.parametrize("budget", [1 << 30, 1000], ids=["kept", "streamed"])
def test_weighted_cost_path(data, task, statistics, budget):
    X, yc, yr, PV = data
    y = yc if task == "classification" else yr
    w = np.random.default_rng(1).uniform(0.2, 3.0, X.shape[0])
    folds = random_folds(X.shape[0], 5, np.random.default_rng(2))

    def engine():
        return CVEngine(_blocks(X, y), folds, 5, PV, rbf, task, weights=w, feature_budget=budget,
                        n_features=X.shape[1], statistics=statistics)

    e = engine()
    path = e.cost_path(GAMMAS, 2.5)
    np.testing.assert_allclose(path, [engine().cost(g, 2.5) for g in GAMMAS], rtol=1e-10, atol=1e-13)
    assert e.n_passes <= 2  # one statistics pass, at most one prediction pass for the whole path
    unweighted = CVEngine(_blocks(X, y), folds, 5, PV, rbf, task, feature_budget=budget, n_features=X.shape[1],
                          statistics=statistics)
    unweighted.holdout = False
    assert not np.allclose(path, unweighted.cost_path(GAMMAS, 2.5), rtol=1e-6, atol=0)  # the weights count


def test_kernel_fold_predict_many_columns_equals_matvec(data):
    """Above PATH_COLUMNS columns the held-out predictions come from one kernel block per piece of rows and each
    row's own fold's columns; the same numbers as the streamed matvec over all columns."""
    X, _, _, PV = data
    rng = np.random.default_rng(3)
    v, k, m = 7, 9, PV.shape[0]
    theta = rng.normal(size=(v, m + 1, k))
    P = rng.normal(size=(m, m))
    folds = rng.integers(0, v, X.shape[0]).astype(np.int32)
    V, bias = kernel_fold_models(P, theta)
    many = kernel_fold_predict(np.ascontiguousarray(X), PV, rbf(2.0), V, bias, folds)
    K = np.exp(-((X[:, None, :] - PV[None]) ** 2).sum(-1) / 2.0)
    ref = np.stack([K[i] @ V[:, folds[i] * k:(folds[i] + 1) * k] + bias[folds[i]] for i in range(X.shape[0])])
    np.testing.assert_allclose(many, ref, rtol=1e-12, atol=1e-12)


def test_path_choice_takes_the_middle_of_ties():
    assert path_choice(np.array([0.3, 0.2, 0.2, 0.2, 0.4])) == 2
    assert path_choice(np.array([0.3, 0.2, 0.2, 0.5])) == 1
    assert path_choice(np.array([0.1, 0.2])) == 0
    assert path_choice(np.array([math.inf, 0.5, math.inf])) == 1


def test_fixed_sigma2_path_is_the_grid_minimum(data):
    """With sigma^2 fixed, gamma_search="path" is a grid search: the chosen gamma's CV score is the lowest of the
    path, each scored by a fit at that fixed gamma (the informational CV score of a fixed-hyperparameter fit)."""
    X, yc, _, _ = data
    kw = {"n_prototypes": 30, "sigma2": 4.0, "cv": 5, "random_state": 0}
    est = FixedSizeLSSVC(gamma_search="path", **kw).fit(X, yc)
    assert est.gamma_ in GAMMA_PATH
    assert est.problems_[0]["n_evals"] == 1
    scores = np.array([FixedSizeLSSVC(gamma=g, **kw).fit(X, yc).cv_score_ for g in GAMMA_PATH])
    assert est.cv_score_ == pytest.approx(scores.min(), abs=1e-12)
    assert est.gamma_ == GAMMA_PATH[path_choice(scores)]
    fixed = FixedSizeLSSVC(gamma=est.gamma_, **kw).fit(X, yc)
    np.testing.assert_allclose(est.decision_function(X), fixed.decision_function(X), rtol=1e-10, atol=1e-12)


@pytest.mark.parametrize("Est", [FixedSizeLSSVC, FixedSizeLSSVR])
def test_tuned_path_same_model_in_memory_and_streamed(data, Est):
    """The tuned search (CSA + simplex over log sigma^2, gamma on the path) makes the same choices whether the
    features are kept or streamed (a second pass per sigma^2 for the classifier's held-out predictions), and its
    gamma lies on the path."""
    X, yc, yr, _ = data
    y = yc if Est is FixedSizeLSSVC else yr
    kw = {"n_prototypes": 30, "cv": 4, "random_state": 1, "n_csa": 10, "n_simplex": 5, "gamma_search": "path"}
    a = Est(**kw).fit(X, y)
    b = Est(feature_memory=1000, **kw).fit(X, y)
    assert a.gamma_ in GAMMA_PATH
    assert a.gamma_ == b.gamma_ and a.sigma2_ == pytest.approx(b.sigma2_, rel=1e-12)
    assert a.cv_score_ == pytest.approx(b.cv_score_, rel=1e-8, abs=1e-12)
    assert a.problems_[0]["n_evals"] == 15
    np.testing.assert_allclose(a.decision_function(X) if Est is FixedSizeLSSVC else a.predict(X),
                               b.decision_function(X) if Est is FixedSizeLSSVC else b.predict(X), rtol=1e-8,
                               atol=1e-10)


def test_path_search_weighted_and_multiclass(data):
    X, yc, _, _ = data
    w = np.random.default_rng(5).uniform(0.3, 3.0, X.shape[0])
    kw = {"n_prototypes": 30, "sigma2": 3.0, "cv": 4, "random_state": 2}
    est = FixedSizeLSSVC(gamma_search="path", **kw).fit(X, yc, sample_weight=w)
    scores = np.array([FixedSizeLSSVC(gamma=g, **kw).fit(X, yc, sample_weight=w).cv_score_ for g in GAMMA_PATH])
    assert est.cv_score_ == pytest.approx(scores.min(), abs=1e-12)
    assert est.gamma_ == GAMMA_PATH[path_choice(scores)]
    y3 = np.digitize(X[:, 0], [-0.5, 0.5])
    multi = FixedSizeLSSVC(gamma_search="path", n_csa=6, n_simplex=3, **{**kw, "sigma2": None}).fit(X, y3)
    assert len(multi.problems_) == 3 and all(p["gamma"] in GAMMA_PATH for p in multi.problems_)
    assert multi.score(X, y3) > 0.8


def test_gamma_search_is_validated(data):
    X, yc, _, _ = data
    with pytest.raises(ValueError, match="gamma_search"):
        FixedSizeLSSVC(gamma_search="grid").fit(X, yc)


def test_path_choice_treats_nan_as_inf():
    assert path_choice(np.array([0.3, np.nan, 0.2])) == 2
    assert path_choice(np.array([np.nan, np.nan])) == 0


def test_failed_gammas_cost_inf_on_every_engine(data):
    """A gamma whose fold systems cannot be solved costs +inf; when none can, every engine returns +inf (none
    raises)."""
    X, yc, _, PV = data
    folds = random_folds(X.shape[0], 4, np.random.default_rng(0))
    engines = [CVEngine(_blocks(X, yc), folds, 4, PV, rbf, "classification", n_features=X.shape[1]),
               CVEngine(_blocks(X, yc), folds, 4, PV, rbf, "classification", feature_budget=1000,
                        n_features=X.shape[1]),
               CVEngine(_blocks(X, yc), folds, 4, PV, rbf, "classification", weights=np.linspace(0.5, 2.0, X.shape[0]),
                        n_features=X.shape[1])]
    for e in engines:
        assert np.all(np.isinf(e.cost_path([-1.0, -2.0], 2.0)))
        mixed = e.cost_path([-1.0, 1.0], 2.0)
        assert np.isinf(mixed[0]) and np.isfinite(mixed[1])


@pytest.mark.parametrize("weighted", [False, True])
def test_streamed_regression_path_makes_at_most_one_prediction_pass(weighted):
    """Nearly noise-free targets make the fold-sum SSE cancel for most gammas: those are then scored together in one
    prediction pass, not one pass each."""
    rng = np.random.default_rng(0)
    X = rng.normal(size=(600, 3))
    y = X @ np.array([1.0, -2.0, 0.5]) + 1e-7 * rng.normal(size=600)
    folds = random_folds(600, 5, np.random.default_rng(1))
    common = {"feature_budget": 1000, "n_features": 3,
              "weights": np.random.default_rng(2).uniform(0.5, 2.0, 600) if weighted else None}
    e = CVEngine(_blocks(X, y), folds, 5, None, rbf, "regression", **common)
    path = e.cost_path(GAMMA_PATH, 1.0)
    assert e.n_passes <= 2
    single = CVEngine(_blocks(X, y), folds, 5, None, rbf, "regression", **common)
    np.testing.assert_allclose(path, [single.cost(g, 1.0) for g in GAMMA_PATH], rtol=1e-8, atol=1e-13)


def test_kept_path_scores_in_groups_within_the_memory_bound(data, monkeypatch):
    """Kept features: the path's predictions are made a few gammas at a time (PATH_MEMORY), with the same costs."""
    import svmopt.fixed_size.tuning as tuning

    X, yc, _, PV = data
    folds = random_folds(X.shape[0], 4, np.random.default_rng(0))
    whole = CVEngine(_blocks(X, yc), folds, 4, PV, rbf, "classification", n_features=X.shape[1])
    whole.holdout = False
    ref = whole.cost_path(GAMMAS, 2.0)
    monkeypatch.setattr(tuning, "PATH_MEMORY", 24 * X.shape[0] * 2)  # two gammas a group
    assert len(tuning.column_groups(len(GAMMAS), 1, X.shape[0])) == 3
    grouped = CVEngine(_blocks(X, yc), folds, 4, PV, rbf, "classification", n_features=X.shape[1])
    grouped.holdout = False
    np.testing.assert_array_equal(grouped.cost_path(GAMMAS, 2.0), ref)


def test_kernel_fold_predict_pieces(data, monkeypatch):
    """The piece loop's row offsets: small pieces give the same predictions as one piece."""
    import svmopt.fixed_size.nystrom as nystrom

    X, _, _, PV = data
    rng = np.random.default_rng(3)
    v, k, m = 5, 8, PV.shape[0]
    V, bias = kernel_fold_models(rng.normal(size=(m, m)), rng.normal(size=(v, m + 1, k)))
    folds = rng.integers(0, v, X.shape[0]).astype(np.int32)
    one = kernel_fold_predict(np.ascontiguousarray(X), PV, rbf(2.0), V, bias, folds)
    monkeypatch.setattr(nystrom, "PATH_PIECE", 97)
    np.testing.assert_allclose(kernel_fold_predict(np.ascontiguousarray(X), PV, rbf(2.0), V, bias, folds), one,
                               rtol=1e-13, atol=1e-13)


def test_path_respects_max_time(data):
    """With sigma^2 fixed and no time left, the path is not scored: the fit says so and keeps gamma on the path."""
    X, _, _, _ = data
    y3 = np.digitize(X[:, 0], [-0.5, 0.5])
    from sklearn.exceptions import ConvergenceWarning

    with pytest.warns(ConvergenceWarning, match="gamma path"):
        est = FixedSizeLSSVC(n_prototypes=20, sigma2=2.0, cv=3, gamma_search="path", max_time=1e-9,
                             random_state=0).fit(X, y3)
    assert est.max_time_reached_
    assert all(p["n_evals"] == 0 and p["gamma"] in GAMMA_PATH for p in est.problems_)


@pytest.mark.parametrize("Est", [FixedSizeLSSVC, FixedSizeLSSVR])
def test_auto_search_is_the_paper_search_below_the_crossover(data, Est):
    """gamma_search="auto" below PATH_MIN_ROWS rows is the paper's joint search with its 90 + 70 evaluations: the
    same model as gamma_search="csa", n_csa=90, n_simplex=70 spelled out (the whole budget with
    n_iter_no_change=None)."""
    X, yc, yr, _ = data
    y = yc if Est is FixedSizeLSSVC else yr
    kw = {"n_prototypes": 15, "cv": 3, "random_state": 6, "n_iter_no_change": None}
    auto = Est(**kw).fit(X[:150], y[:150])
    csa = Est(gamma_search="csa", n_csa=90, n_simplex=70, **kw).fit(X[:150], y[:150])
    assert auto.gamma_search_ == "csa" and csa.gamma_search_ == "csa"
    assert auto.problems_[0]["n_evals"] == csa.problems_[0]["n_evals"] > 70
    assert (auto.gamma_, auto.sigma2_) == (csa.gamma_, csa.sigma2_)
    np.testing.assert_array_equal(auto.predict(X), csa.predict(X))


@pytest.mark.parametrize("Est", [FixedSizeLSSVC, FixedSizeLSSVR])
def test_auto_search_takes_the_path_from_the_crossover(data, Est, monkeypatch, caplog):
    """From PATH_MIN_ROWS rows on (lowered here to the data's size), "auto" is the path with its own budget of
    20 + 10 sigma^2 values (the same model as spelling it out), says so in the log and in ``gamma_search_``; one
    row fewer keeps the paper's search; an explicit budget is kept."""
    import logging

    import svmopt.fixed_size.search as search

    X, yc, yr, _ = data
    y = yc if Est is FixedSizeLSSVC else yr
    monkeypatch.setattr(search, "PATH_MIN_ROWS", X.shape[0])
    kw = {"n_prototypes": 20, "cv": 3, "random_state": 2, "n_iter_no_change": None}
    with caplog.at_level(logging.INFO, logger="svmopt.fixed_size"):
        auto = Est(**kw).fit(X, y)
    assert "gamma_search='auto' chose 'path'" in caplog.text and f"{X.shape[0]} tuning rows" in caplog.text
    path = Est(gamma_search="path", n_csa=20, n_simplex=10, **kw).fit(X, y)
    assert auto.gamma_search_ == "path" and auto.gamma_ in GAMMA_PATH
    assert auto.problems_[0]["n_evals"] == path.problems_[0]["n_evals"] == 30
    assert (auto.gamma_, auto.sigma2_) == (path.gamma_, path.sigma2_)
    np.testing.assert_array_equal(auto.predict(X), path.predict(X))
    assert Est(**kw).fit(X[1:], y[1:]).gamma_search_ == "csa"
    given = Est(n_csa=4, n_simplex=2, **kw).fit(X, y)
    assert given.gamma_search_ == "path" and given.problems_[0]["n_evals"] == 6
    # the rows that decide are those tuned on: a sample of tune_rows below the crossover keeps the paper's search
    assert Est(tune_rows=X.shape[0] - 1, **kw).fit(X, y).gamma_search_ == "csa"


def test_auto_search_with_one_hyperparameter_fixed(data, monkeypatch):
    """From PATH_MIN_ROWS rows on "auto" is the path with either hyperparameter fixed too: with sigma^2 fixed (or the
    linear kernel) a grid over gamma on one sigma^2's statistics; with gamma fixed, sigma^2 is searched alone, on
    the 20 + 10 budget of a search whose every evaluation is a pass, at any size."""
    import svmopt.fixed_size.search as search

    X, yc, _, _ = data
    kw = {"n_prototypes": 15, "cv": 3, "random_state": 0, "n_iter_no_change": None}
    small = FixedSizeLSSVC(sigma2=2.0, **kw).fit(X, yc)
    assert small.gamma_search_ == "csa" and small.problems_[0]["n_evals"] > 70  # CSA + simplex over gamma
    assert FixedSizeLSSVC(gamma=1.0, **kw).fit(X, yc).problems_[0]["n_evals"] <= 30
    monkeypatch.setattr(search, "PATH_MIN_ROWS", 10)
    grid = FixedSizeLSSVC(sigma2=2.0, **kw).fit(X, yc)
    assert grid.gamma_search_ == "path" and grid.problems_[0]["n_evals"] == 1 and grid.gamma_ in GAMMA_PATH
    lin = FixedSizeLSSVC(kernel="linear", **kw).fit(X, yc)
    assert lin.gamma_search_ == "path" and lin.problems_[0]["n_evals"] == 1
    sigma_only = FixedSizeLSSVC(gamma=1.0, **kw).fit(X, yc)
    assert sigma_only.gamma_search_ == "csa"  # CSA + simplex over sigma^2: no gamma to put on a path
    assert sigma_only.gamma_ == 1.0 and 10 < sigma_only.problems_[0]["n_evals"] <= 30
    assert FixedSizeLSSVC(gamma=1.0, sigma2=2.0, **kw).partial_fit(X, yc, classes=[-1.0, 1.0]).gamma_search_ == "csa"


def test_model_pickled_without_gamma_search_attribute_gets_it(data):
    """A fitted model whose state predates ``gamma_search_`` (a pickle from an earlier version) reads it back as
    the search its ``gamma_search`` ran."""
    import pickle

    X, yc, _, _ = data
    est = FixedSizeLSSVC(n_prototypes=10, gamma=1.0, sigma2=2.0, gamma_search="path", random_state=0).fit(X, yc)
    del est.gamma_search_
    back = pickle.loads(pickle.dumps(est))
    assert back.gamma_search_ == "path"
    np.testing.assert_array_equal(back.predict(X), est.predict(X))
    assert not hasattr(pickle.loads(pickle.dumps(FixedSizeLSSVC())), "gamma_search_")
