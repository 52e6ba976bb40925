"""FixedSizeLSSVC / FixedSizeLSSVR (paper 002) with sample weights, class weights, fixed prototypes, partial_fit,
max_time and the verbose bar: the weighted CV engines and estimators against numpy, integer weights as repeated rows,
streaming equal to one fit, the time limit of the CSA + simplex search."""

import time
import warnings

import numpy as np
import pytest
from sklearn.datasets import make_blobs, make_moons
from sklearn.exceptions import ConvergenceWarning
from sklearn.utils import estimator_checks

from svmopt import FixedSizeLSSVC, FixedSizeLSSVR, _core
from svmopt._shared.splits import random_folds
from svmopt.fixed_size.cv_engine import CoreCVEngine, CVEngine
from svmopt.fixed_size.nystrom import nystrom_projection
from svmopt.fixed_size.tuning import GAMMA_PATH, csa_simplex, path_choice


def k_rbf(A, B, sigma2):
    return np.exp(-((A[:, None, :] - B[None, :, :]) ** 2).sum(-1) / sigma2)


def _rbf(sigma2):
    return _core.kernels.KernelParams(_core.kernels.KernelKind.rbf, alpha=np.sqrt(sigma2 / 2.0))


def _features(X, PV, sigma2):
    """Phi_e = [K(X, PV) P, 1] in numpy (eigenpairs with lambda <= m eps lambda_max dropped, Section 3.1)."""
    lam, U = np.linalg.eigh(k_rbf(PV, PV, sigma2))
    keep = lam > PV.shape[0] * np.finfo(float).eps * lam.max()
    P = U[:, keep] / np.sqrt(lam[keep])
    return np.hstack([k_rbf(X, PV, sigma2) @ P, np.ones((X.shape[0], 1))])


def _ridge(F, y, w, gamma):
    """argmin sum_i w_i (y_i - F_i theta)^2 + ||theta||^2 / gamma (bias penalized, as (7) is printed)."""
    Y = np.asarray(y, dtype=float).reshape(F.shape[0], -1)  # theta (p, k): one column per target
    return np.linalg.solve(F.T @ (w[:, None] * F) + np.eye(F.shape[1]) / gamma, F.T @ (w[:, None] * Y))


def _weighted_cv(F, Y, w, folds, gamma, task):
    """The weighted fast CV (19)-(21) in numpy: each fold predicted by the weighted ridge on the other folds, the cost
    sum_i w_i L_i / (k sum_i w_i) over the k targets."""
    Y = Y.reshape(F.shape[0], -1)
    f = np.empty_like(Y)
    for u in np.unique(folds):
        tr, va = folds != u, folds == u
        f[va] = F[va] @ _ridge(F[tr], Y[tr], w[tr], gamma)
    loss = (Y - f) ** 2 if task == "regression" else (np.where(f >= 0, 1.0, -1.0) != Y)
    return float(w @ loss.sum(axis=1)) / (w.sum() * Y.shape[1])


# ------------------------------------------------------------------ the weighted engine against numpy
@pytest.mark.parametrize("task", ["regression", "classification", "regression k=2"])
@pytest.mark.parametrize("budget", [1 << 30, 0])  # Phi_e kept, or recomputed in a second pass
@pytest.mark.parametrize("statistics", ["features", "kernel", "linear"])
def test_weighted_engine_equals_numpy_weighted_ridge_and_cv(task, budget, statistics):
    """CVEngine(weights=w): the final fit (7) and the CV costs, one gamma at a time and along a gamma path, are
    those of the weighted least-squares problem, with the features or the kernel block summed in the core, kept or
    streamed (the weighted SSE from the fold sums for a streamed regression), and on explicit linear features."""
    rng = np.random.default_rng(0)
    X = rng.normal(size=(90, 3))
    k = 2 if task.endswith("k=2") else 1
    task = task.split()[0]
    if task == "regression":
        y = np.column_stack([np.sin(X[:, 0]) + X[:, 1], X[:, 2] ** 2 - X[:, 0]])[:, :k] + 0.1 * rng.normal(size=(90, k))
    else:
        y = np.where(X[:, 0] + 0.3 * rng.normal(size=90) > 0, 1.0, -1.0)[:, None]
    w = rng.uniform(0.1, 3.0, size=90)
    linear = statistics == "linear"
    PV = None if linear else X[:12].copy()
    folds = (rng.permutation(90) % 4).astype(np.int32)
    gamma, sigma2 = 7.0, 2.0
    eng = CVEngine(lambda: ((X[s:s + 25], y[s:s + 25]) for s in range(0, 90, 25)), folds, 4, PV, _rbf, task,
                   weights=w, feature_budget=budget, n_targets=k, n_features=3,
                   statistics="features" if linear else statistics)
    assert not eng.holdout
    F = np.hstack([X, np.ones((90, 1))]) if linear else _features(X, PV, sigma2)
    P, theta = eng.fit(gamma, sigma2)  # the same model up to the eigenvectors' order and signs: compare outputs
    Fe = np.hstack([X if linear else k_rbf(X, PV, sigma2) @ P, np.ones((90, 1))])
    np.testing.assert_allclose(Fe @ theta, F @ _ridge(F, y, w, gamma), rtol=1e-9, atol=1e-10)
    for g in (gamma, 0.05, 300.0):
        assert eng.cost(g, sigma2) == pytest.approx(_weighted_cv(F, y, w, folds, g, task), rel=1e-9, abs=1e-12)
    gammas = [1e-3, 0.5, gamma, 1e3]
    np.testing.assert_allclose(eng.cost_path(gammas, sigma2), [_weighted_cv(F, y, w, folds, g, task) for g in gammas],
                               rtol=1e-9, atol=1e-12)
    # one statistics pass; a streamed misclassification rate: a prediction pass per cost, one for the whole path
    assert eng.n_passes == (1 if budget or task == "regression" else 1 + 3 + 1)
    if not linear:
        assert P.shape == nystrom_projection(PV, _rbf(sigma2))[0].shape
        assert eng.stats(sigma2)["acc"].kernel_statistics == (statistics == "kernel")
    with pytest.raises(ValueError, match="weights"):
        CVEngine(None, folds, 4, PV, _rbf, task, weights=np.r_[w[:-1], 0.0], n_features=3)
    with pytest.raises(ValueError, match="weights"):
        CVEngine(None, folds, 4, PV, _rbf, task, weights=w[:-1], n_features=3)


@pytest.mark.parametrize("task", ["regression", "classification"])
@pytest.mark.parametrize("linear", [False, True])
def test_weighted_core_engine_equals_the_python_engine(task, linear):
    """The core's CVCost with weights: the costs and the final fit of CVEngine(weights=w) on the same blocks, with
    many small folds too (weighted: the per-fold solves, never the holdout identity)."""
    rng = np.random.default_rng(3)
    n = 240
    X = rng.normal(size=(n, 3))
    y = np.sin(X[:, 0]) + X[:, 1] ** 2 + 0.2 * rng.normal(size=n)
    if task == "classification":
        y = np.where(y > np.median(y), 1.0, -1.0)
    w = rng.uniform(0.2, 4.0, n)
    PV = None if linear else np.ascontiguousarray(X[rng.choice(n, 70, replace=False)])
    for v in (4, 60):
        folds = random_folds(n, v, rng)
        blocks = lambda: ((X[s:s + 50], y[s:s + 50, None]) for s in range(0, n, 50))  # noqa: E731
        ref = CVEngine(blocks, folds, v, PV, _rbf, task, weights=w, n_features=3)
        core = CoreCVEngine(np.ascontiguousarray(X), None, None, None, 50, y.reshape(-1, 1), folds, v, PV, _rbf,
                            task, tune_rbf=True, n_features=3, weights=w)
        assert not core._cv.holdout
        for g, s2 in [(0.3, 1.0), (20.0, 1.0), (500.0, 4.0)]:
            assert core.cost(g, s2) == pytest.approx(ref.cost(g, s2), rel=1e-10, abs=1e-14)
            F = np.hstack([X, np.ones((n, 1))]) if linear else _features(X, PV, s2)
            assert core.cost(g, s2) == pytest.approx(_weighted_cv(F, y, w, folds, g, task), rel=1e-8, abs=1e-12)
        (P, theta), (P_ref, theta_ref) = core.fit(3.0, 2.0), ref.fit(3.0, 2.0)
        K = np.hstack([X, np.ones((n, 1))]) if linear else None
        f = K @ theta if linear else np.hstack([k_rbf(X, PV, 2.0) @ P, np.ones((n, 1))]) @ theta
        f_ref = K @ theta_ref if linear else np.hstack([k_rbf(X, PV, 2.0) @ P_ref, np.ones((n, 1))]) @ theta_ref
        np.testing.assert_allclose(f, f_ref, rtol=1e-9, atol=1e-10)


# ------------------------------------------------------------------ the weighted estimators against numpy
def _weighted_problem(case, n=160):
    """X, y, sample weights, fixed prototypes and a cv given as 4 splits (folds known) for one estimator case."""
    rng = np.random.default_rng({"binary": 1, "ovo": 2, "regression": 3}[case])
    X = rng.normal(size=(n, 2))
    if case == "regression":
        y = np.sin(2 * X[:, 0]) + 0.5 * X[:, 1] ** 2 + 0.2 * rng.normal(size=n)
    elif case == "binary":
        y = np.where(X[:, 0] * X[:, 1] + 0.3 * rng.normal(size=n) > 0, 7, 3)
    else:
        y = np.digitize(X[:, 0] + 0.5 * X[:, 1] + 0.3 * rng.normal(size=n), [-0.5, 0.5])
    w = rng.uniform(0.2, 3.0, n)
    folds = (rng.permutation(n) % 4).astype(np.int32)
    cv = [(np.flatnonzero(folds != u), np.flatnonzero(folds == u)) for u in range(4)]
    return X, y, w, np.ascontiguousarray(rng.normal(size=(12, 2))), folds, cv


def _problems_of(case, y):
    """(rows, targets) of each binary/regression problem, in the estimator's order (1vs1: pairs (a, b), a = +1)."""
    if case == "regression":
        return [(np.ones(y.size, bool), y.astype(float))]
    classes = np.unique(y)
    if classes.size == 2:
        return [(np.ones(y.size, bool), np.where(y == classes[1], 1.0, -1.0))]
    out = []
    for a in range(classes.size):
        for b in range(a + 1, classes.size):
            rows = (y == classes[a]) | (y == classes[b])
            out.append((rows, np.where(y[rows] == classes[a], 1.0, -1.0)))
    return out


@pytest.mark.parametrize("feature_memory", ["1G", 1], ids=["in-memory", "streamed"])
@pytest.mark.parametrize("statistics", ["features", "kernel"])
@pytest.mark.parametrize("case", ["binary", "ovo", "regression"])
def test_weighted_estimators_equal_the_numpy_weighted_model(case, statistics, feature_memory):
    """Fixed prototypes and hyperparameters, folds given as splits: every problem's model is the weighted ridge
    (7) in numpy and cv_score_ the weighted fast CV (19)-(21) on the given folds (the core's CV in memory, the
    streaming engine with the features over feature_memory; a streamed misclassification rate is skipped)."""
    X, y, w, PV, folds, cv = _weighted_problem(case)
    gamma, sigma2 = 5.0, 1.5
    Est = FixedSizeLSSVR if case == "regression" else FixedSizeLSSVC
    est = Est(prototypes=PV, gamma=gamma, sigma2=sigma2, standardize=False, cv=cv, statistics=statistics,
              feature_memory=feature_memory, random_state=0).fit(X, y, sample_weight=w)
    probs = _problems_of(case, y)
    assert len(est.problems_) == len(probs)
    F_all = _features(X, PV, sigma2)
    outputs = []
    for prob, (rows, t) in zip(est.problems_, probs, strict=True):
        F = F_all[rows]
        f_ref = F_all @ _ridge(F, t, w[rows], gamma)
        f = k_rbf(X, PV, sigma2) @ prob["coef"] + prob["intercept"]
        np.testing.assert_allclose(f, f_ref[:, 0], rtol=1e-8, atol=1e-9)
        outputs.append(f)
        assert prob["statistics"] == statistics
        task = "regression" if case == "regression" else "classification"
        if task == "classification" and feature_memory == 1:
            assert np.isnan(prob["cv_score"])  # informational: it would cost a second pass
        else:
            assert prob["cv_score"] == pytest.approx(_weighted_cv(F, t, w[rows], folds[rows], gamma, task),
                                                     rel=1e-9, abs=1e-12)
    if case == "binary":
        np.testing.assert_allclose(est.decision_function(X), outputs[0], rtol=1e-12, atol=1e-12)
    elif case == "regression":
        np.testing.assert_allclose(est.predict(X), outputs[0], rtol=1e-12, atol=1e-12)


@pytest.mark.parametrize("feature_memory", ["1G", 1], ids=["in-memory", "streamed"])
@pytest.mark.parametrize("case", ["binary", "ovo", "regression"])
def test_weighted_gamma_path_equals_numpy(case, feature_memory):
    """gamma_search="path" with sigma^2 fixed: every gamma of GAMMA_PATH scored by the weighted CV cost on the given
    folds, the best one taken (path_choice) and fitted with the weights."""
    X, y, w, PV, folds, cv = _weighted_problem(case)
    sigma2 = 1.5
    Est = FixedSizeLSSVR if case == "regression" else FixedSizeLSSVC
    est = Est(prototypes=PV, sigma2=sigma2, gamma_search="path", standardize=False, cv=cv,
              feature_memory=feature_memory, random_state=0).fit(X, y, sample_weight=w)
    assert est.gamma_search_ == "path"
    task = "regression" if case == "regression" else "classification"
    F_all = _features(X, PV, sigma2)
    for prob, (rows, t) in zip(est.problems_, _problems_of(case, y), strict=True):
        costs = np.array([_weighted_cv(F_all[rows], t, w[rows], folds[rows], g, task) for g in GAMMA_PATH])
        best = path_choice(costs)
        if task == "regression":
            assert prob["gamma"] == GAMMA_PATH[best]
        else:  # a tie of equal misclassification sums may round differently: the chosen gamma's cost is the least
            i = int(np.flatnonzero(GAMMA_PATH == prob["gamma"])[0])
            assert costs[i] == pytest.approx(costs.min(), rel=1e-12)
        assert prob["cv_score"] == pytest.approx(costs.min(), rel=1e-9, abs=1e-12)
        f_ref = F_all @ _ridge(F_all[rows], t, w[rows], prob["gamma"])
        np.testing.assert_allclose(k_rbf(X, PV, sigma2) @ prob["coef"] + prob["intercept"], f_ref[:, 0],
                                   rtol=1e-7, atol=1e-8)


@pytest.mark.parametrize("Est", [FixedSizeLSSVC, FixedSizeLSSVR])
def test_weighted_tuned_fit_in_memory_equals_the_streaming_engine(Est, tmp_path):
    """A tuned weighted fit (CSA + simplex) of an array runs in the core (CVCost.tune); of an np.memmap, on the
    Python engine and the Python-driven search: the same evaluations, the same hyperparameters and model."""
    X, y, w, _, _, _ = _weighted_problem("regression" if Est is FixedSizeLSSVR else "ovo")
    mm = np.memmap(tmp_path / "X.f64", dtype=np.float64, mode="w+", shape=X.shape)
    mm[:] = X
    mm.flush()
    kw = dict(n_prototypes=15, n_csa=10, n_simplex=8, random_state=0)
    a = Est(**kw).fit(X, y, sample_weight=w)
    b = Est(**kw).fit(np.memmap(tmp_path / "X.f64", dtype=np.float64, mode="r", shape=X.shape), y, sample_weight=w)
    np.testing.assert_allclose(a.gamma_, b.gamma_, rtol=1e-8)
    np.testing.assert_allclose(a.sigma2_, b.sigma2_, rtol=1e-8)
    np.testing.assert_allclose(a.cv_score_, b.cv_score_, rtol=1e-8, atol=1e-12)
    fa = a.decision_function(X) if Est is FixedSizeLSSVC else a.predict(X)
    fb = b.decision_function(X) if Est is FixedSizeLSSVC else b.predict(X)
    np.testing.assert_allclose(fa, fb, rtol=1e-6, atol=1e-8)


def test_weighted_fit_in_memory_runs_on_the_core_engine(monkeypatch):
    """A weighted fit of an in-memory array takes the all-core engine, as an unweighted one does (not the Python
    engine, which would give the same numbers)."""
    import svmopt.fixed_size.search as search

    made = []

    class Spy(search.CoreCVEngine):
        def __init__(self, *args, **kwargs):
            made.append(kwargs.get("weights") is not None)
            super().__init__(*args, **kwargs)

    monkeypatch.setattr(search, "CoreCVEngine", Spy)
    X, y, w, _, _, _ = _weighted_problem("regression")
    FixedSizeLSSVR(n_prototypes=15, gamma=5.0, sigma2=2.0, random_state=0).fit(X, y, sample_weight=w)
    assert made == [True]


# ------------------------------------------------------------------ weights as repeated rows, class weights
def _three_classes():
    X, y = make_blobs(60, centers=[[0, 0], [2.5, 2.5], [0, 3]], cluster_std=1.2, random_state=3)
    return X, y


@pytest.mark.parametrize("multiclass", ["ovo", "moc"])
def test_integer_weights_equal_repeated_rows_classifier(multiclass):
    """With fixed prototypes and hyperparameters, weight k equals k copies of the row (standardization included);
    weight 0 equals dropping the row."""
    X, y = _three_classes()
    sw = np.random.default_rng(1).integers(0, 4, size=60)
    PV = np.random.default_rng(2).normal(size=(15, 2))
    kw = dict(prototypes=PV, gamma=5.0, sigma2=1.5, multiclass=multiclass, random_state=0)
    a = FixedSizeLSSVC(**kw).fit(X, y, sample_weight=sw)
    b = FixedSizeLSSVC(**kw).fit(np.repeat(X, sw, axis=0), np.repeat(y, sw))
    np.testing.assert_allclose(a.decision_function(X), b.decision_function(X), rtol=1e-9, atol=1e-9)
    np.testing.assert_allclose(a.x_scale_, b.x_scale_, rtol=1e-12)


@pytest.mark.parametrize("feature_memory", ["1G", 1], ids=["in-memory", "streamed"])
@pytest.mark.parametrize("statistics", ["features", "kernel"])
def test_integer_weights_equal_repeated_rows_regressor(statistics, feature_memory):
    rng = np.random.default_rng(0)
    X = rng.normal(size=(50, 2))
    y = np.sin(X[:, 0]) + 0.1 * rng.normal(size=50)
    sw = rng.integers(0, 4, size=50)
    kw = dict(prototypes=rng.normal(size=(10, 2)), gamma=5.0, sigma2=1.5, random_state=0, statistics=statistics,
              feature_memory=feature_memory)
    a = FixedSizeLSSVR(**kw).fit(X, y, sample_weight=sw)
    b = FixedSizeLSSVR(**kw).fit(np.repeat(X, sw, axis=0), np.repeat(y, sw))
    np.testing.assert_allclose(a.predict(X), b.predict(X), rtol=1e-9, atol=1e-9)
    assert a.y_scale_ == pytest.approx(b.y_scale_, rel=1e-12)


def test_sklearn_sample_weight_equivalence_with_fixed_prototypes():
    """scikit-learn's own check (15 rows x 30 features, 3 classes, cv set to a list of splits) on an instance with
    fixed prototypes, gamma and sigma2. (The instances of test_sklearn_contract select their prototypes and need
    other feature counts: this one runs alone.)"""
    check = getattr(estimator_checks, "check_sample_weight_equivalence_on_dense_data", None)
    if check is None:  # scikit-learn 1.6's name
        check = estimator_checks.check_sample_weight_equivalence
    PV = np.random.default_rng(0).normal(size=(8, 30))
    for est in (FixedSizeLSSVC(prototypes=PV, gamma=3.0, sigma2=30.0, random_state=0),
                FixedSizeLSSVC(prototypes=PV, gamma=3.0, sigma2=30.0, multiclass="moc", random_state=0),
                FixedSizeLSSVR(prototypes=PV, gamma=3.0, sigma2=30.0, random_state=0)):
        check(type(est).__name__, est)


def test_unit_weights_are_the_unweighted_fit_bit_for_bit():
    X, y = make_moons(120, noise=0.3, random_state=0)
    kw = dict(n_prototypes=15, n_csa=10, n_simplex=5, random_state=0)
    a = FixedSizeLSSVC(**kw).fit(X, y)
    b = FixedSizeLSSVC(**kw).fit(X, y, sample_weight=np.ones(120))
    np.testing.assert_array_equal(a.decision_function(X), b.decision_function(X))
    assert a.gamma_ == b.gamma_ and a.sigma2_ == b.sigma2_


def test_class_weight_dict_and_balanced():
    X, y = _three_classes()
    PV = np.random.default_rng(2).normal(size=(15, 2))
    kw = dict(prototypes=PV, gamma=5.0, sigma2=1.5, random_state=0)
    a = FixedSizeLSSVC(class_weight={1: 3.0}, **kw).fit(X, y)
    b = FixedSizeLSSVC(**kw).fit(X, y, sample_weight=np.where(y == 1, 3.0, 1.0))
    np.testing.assert_allclose(a.decision_function(X), b.decision_function(X), atol=1e-12)
    keep = (y != 2) | (np.arange(60) % 3 == 0)  # unbalanced: class 2 thinned out
    c = FixedSizeLSSVC(class_weight="balanced", **kw).fit(X[keep], y[keep])
    counts = np.bincount(y[keep])
    d = FixedSizeLSSVC(**kw).fit(X[keep], y[keep], sample_weight=(keep.sum() / (3 * counts))[y[keep]])
    np.testing.assert_allclose(c.decision_function(X), d.decision_function(X), atol=1e-12)
    # a tuned, weighted fit runs (the weighted CV cost drives CSA + simplex) and predicts
    e = FixedSizeLSSVC(n_prototypes=12, n_csa=10, n_simplex=5, class_weight="balanced", random_state=0).fit(X, y)
    assert e.score(X, y) > 0.7 and np.all(np.isfinite(e.cv_score_))


@pytest.mark.parametrize(("sw", "match"), [
    (-np.ones(60), "non-negative"),
    (np.r_[np.nan, np.ones(59)], "NaN"),
    (np.ones(59), "shape"),
    (np.zeros(60), "zero for every row"),
    ("abc", "sample_weight"),
])
@pytest.mark.parametrize("Est", [FixedSizeLSSVC, FixedSizeLSSVR])
def test_bad_sample_weight_raises_before_any_work(monkeypatch, sw, match, Est):
    import svmopt.fixed_size.selection as selection

    def no_work(*a, **k):
        raise AssertionError("work started before sample_weight was checked")

    monkeypatch.setattr(selection, "select_prototypes", no_work)
    monkeypatch.setattr(selection, "entropy_bandwidths", no_work)
    X, y = _three_classes()
    with pytest.raises(ValueError, match=match) as info:
        Est(n_prototypes=10, random_state=0).fit(X, y, sample_weight=sw)
    assert "sample_weight" in str(info.value)


def test_weights_need_an_array_and_cv_splits_partition_the_rows():
    X, y = _three_classes()
    with pytest.raises(ValueError, match="sample_weight"):
        FixedSizeLSSVC(gamma=1.0, sigma2=1.0).fit(lambda: iter([(X, y)]), sample_weight=np.ones(60))
    with pytest.raises(ValueError, match="cv"):
        FixedSizeLSSVC(gamma=1.0, sigma2=1.0, cv=[(np.arange(30, 60), np.arange(30))]).fit(X, y)
    with pytest.raises(ValueError, match="overlap"):
        FixedSizeLSSVC(gamma=1.0, sigma2=1.0, cv=[(np.arange(30), np.arange(40)), (np.arange(30), np.arange(30, 60))]
                       ).fit(X, y)
    # splits whose test sets are the folds: the fast CV uses exactly them (the model itself does not depend on them)
    from sklearn.model_selection import KFold

    kw = dict(n_prototypes=12, gamma=2.0, sigma2=1.0, random_state=0)
    a = FixedSizeLSSVC(cv=KFold(3), **kw).fit(X, y)
    b = FixedSizeLSSVC(cv=list(KFold(3).split(X)), **kw).fit(X, y)
    np.testing.assert_array_equal(a.cv_score_, b.cv_score_)
    np.testing.assert_allclose(a.decision_function(X), FixedSizeLSSVC(**kw).fit(X, y).decision_function(X),
                               atol=1e-12)


def test_given_prototypes_reproduce_the_fit():
    X, y = make_moons(150, noise=0.3, random_state=0)
    a = FixedSizeLSSVC(n_prototypes=20, gamma=4.0, sigma2=1.0, random_state=0).fit(X, y)
    b = FixedSizeLSSVC(prototypes=a.prototypes_, gamma=4.0, sigma2=1.0, random_state=0).fit(X, y)
    np.testing.assert_array_equal(b.prototypes_, a.prototypes_)
    assert b.prototype_indices_ is None
    np.testing.assert_allclose(b.decision_function(X), a.decision_function(X), atol=1e-12)
    with pytest.raises(ValueError, match="prototypes"):
        FixedSizeLSSVC(prototypes=np.ones((3, 5)), gamma=1.0, sigma2=1.0).fit(X, y)
    with pytest.raises(ValueError, match="prototypes"):
        FixedSizeLSSVC(prototypes=np.ones((3, 2)), kernel="linear", gamma=1.0).fit(X, y)


# ------------------------------------------------------------------ partial_fit
def _chunks(n, k, rng):
    """k consecutive chunks of random sizes, the first (which selects the prototypes) of at least 20 rows."""
    cuts = np.sort(rng.choice(np.arange(20, n), k - 1, replace=False))
    return np.split(np.arange(n), cuts)


@pytest.mark.parametrize("weighted", [False, True])
@pytest.mark.parametrize("multiclass", ["ovo", "moc", "binary"])
def test_partial_fit_equals_fit_classifier(weighted, multiclass):
    X, y = _three_classes()
    if multiclass == "binary":
        y = (y == 1).astype(int)
    rng = np.random.default_rng(5)
    sw = rng.uniform(0.2, 2.0, size=60) if weighted else None
    kw = dict(n_prototypes=14, gamma=8.0, sigma2=1.5, standardize=False, random_state=0,
              multiclass="moc" if multiclass == "moc" else "ovo")
    pf = FixedSizeLSSVC(**kw)
    for i, idx in enumerate(_chunks(60, 7, rng)):
        pf.partial_fit(X[idx], y[idx], classes=np.unique(y) if i == 0 else None,
                       sample_weight=None if sw is None else sw[idx])
        assert pf.predict(X[:3]).shape == (3,)  # predictions after any call
    ref = FixedSizeLSSVC(prototypes=pf.prototypes_, **kw).fit(X, y, sample_weight=sw)
    assert len(pf.problems_) == len(ref.problems_)
    for p, r in zip(pf.problems_, ref.problems_, strict=True):
        np.testing.assert_allclose(p["coef"], r["coef"], atol=1e-10)
        assert abs(p["intercept"] - r["intercept"]) < 1e-10
        assert p["n_rows"] == r["n_rows"]
        assert p["statistics"] == r["statistics"]
    np.testing.assert_allclose(pf.decision_function(X), ref.decision_function(X), atol=1e-10)


@pytest.mark.parametrize("Est", [FixedSizeLSSVC, FixedSizeLSSVR])
def test_partial_fit_sums_by_either_statistics(Est):
    """partial_fit sums each chunk's per-class statistics in the core's pass, by the kernel block's C^T C or by the
    features: the same models (to the kernel statistics' rounding), each recorded in problems_."""
    X, y = _three_classes()
    if Est is FixedSizeLSSVR:
        y = X[:, 0] + np.sin(X[:, 1])
    sw = np.random.default_rng(3).uniform(0.2, 2.0, size=y.size)
    models = {}
    for statistics in ("features", "kernel"):
        est = Est(n_prototypes=14, gamma=8.0, sigma2=1.5, standardize=False, random_state=0, statistics=statistics)
        for i in range(0, y.size, 20):
            extra = {"classes": np.unique(y)} if Est is FixedSizeLSSVC and i == 0 else {}
            est.partial_fit(X[i:i + 20], y[i:i + 20], sample_weight=sw[i:i + 20], **extra)
        assert all(p["statistics"] == statistics for p in est.problems_)
        models[statistics] = est.decision_function(X) if Est is FixedSizeLSSVC else est.predict(X)
    np.testing.assert_allclose(models["kernel"], models["features"], rtol=1e-7, atol=1e-8)


@pytest.mark.parametrize("weighted", [False, True])
@pytest.mark.parametrize("standardize_y", [False, True])
def test_partial_fit_equals_fit_regressor(weighted, standardize_y):
    rng = np.random.default_rng(0)
    X = rng.normal(size=(80, 2))
    y = 3 + np.sin(X[:, 0]) + X[:, 1] ** 2 + 0.1 * rng.normal(size=80)
    sw = rng.integers(1, 4, size=80).astype(float) if weighted else None
    PV = X[:12].copy()
    # standardize=True with the inputs already on the scale of the first chunk: the target's statistics are then
    # the only scaling, and partial_fit computes them exactly from its sums
    kw = dict(prototypes=PV, gamma=8.0, sigma2=1.5, standardize=standardize_y, random_state=0)
    pf = FixedSizeLSSVR(**kw)
    chunks = _chunks(80, 6, rng)
    for idx in chunks:
        pf.partial_fit(X[idx], y[idx], sample_weight=None if sw is None else sw[idx])
    if standardize_y:  # the reference uses the same input scaling (the first chunk's)
        Xs = (X - pf.x_mean_) / pf.x_scale_
        ref = FixedSizeLSSVR(**{**kw, "standardize": False}).fit(Xs, (y - pf.y_mean_) / pf.y_scale_,
                                                                 sample_weight=sw)
        w = np.ones(80) if sw is None else sw
        mu = w @ y / w.sum()
        assert pf.y_mean_ == pytest.approx(mu, rel=1e-12)
        assert pf.y_scale_ == pytest.approx(np.sqrt(w @ (y - mu) ** 2 / (w.sum() - 1)), rel=1e-10)
        np.testing.assert_allclose(pf.predict(X), ref.predict(Xs) * pf.y_scale_ + pf.y_mean_, atol=1e-10)
    else:
        ref = FixedSizeLSSVR(**kw).fit(X, y, sample_weight=sw)
        np.testing.assert_allclose(pf.problems_[0]["coef"], ref.problems_[0]["coef"], atol=1e-10)
        assert abs(pf.problems_[0]["intercept"] - ref.problems_[0]["intercept"]) < 1e-10
        np.testing.assert_allclose(pf.predict(X), ref.predict(X), atol=1e-10)


def test_weighted_scales_use_the_shared_variance_denominator():
    """Small weights: the input and target scales divide by sum w - min(1, sum w^2 / sum w) (the rule of RobustSVC
    and the ellipsoids), in fit, in partial_fit's first chunk and in partial_fit's target statistics over chunks."""
    from svmopt._shared.moments import weighted_variance_denominator

    rng = np.random.default_rng(3)
    X = rng.normal(size=(40, 2)) * [1.0, 3.0]
    y = X[:, 0] + 0.5 * X[:, 1] + 0.1 * rng.normal(size=40)
    sw = rng.uniform(0.02, 0.1, size=40)  # sum w^2 / sum w < 1: the denominator is not sum w - 1
    denom = weighted_variance_denominator(sw)
    assert denom != pytest.approx(sw.sum() - 1.0) and denom != pytest.approx(max(sw.sum() - 1, sw.sum() / 2))
    mx, my = sw @ X / sw.sum(), sw @ y / sw.sum()
    x_scale = np.sqrt(sw @ (X - mx) ** 2 / denom)
    y_scale = np.sqrt(sw @ (y - my) ** 2 / denom)
    kw = dict(prototypes=X[:8].copy(), gamma=4.0, sigma2=2.0, random_state=0)
    fit = FixedSizeLSSVR(**kw).fit(X, y, sample_weight=sw)
    np.testing.assert_allclose(fit.x_scale_, x_scale, rtol=1e-12)
    assert fit.y_scale_ == pytest.approx(y_scale, rel=1e-12)
    pf = FixedSizeLSSVR(**kw)
    for idx in np.split(np.arange(40), [25, 31]):
        pf.partial_fit(X[idx], y[idx], sample_weight=sw[idx])
    w0 = sw[:25]
    np.testing.assert_allclose(pf.x_scale_, np.sqrt(w0 @ (X[:25] - w0 @ X[:25] / w0.sum()) ** 2
                                                    / weighted_variance_denominator(w0)), rtol=1e-12)
    assert pf.y_scale_ == pytest.approx(y_scale, rel=1e-9)  # the target's statistics of all rows, from sums


def test_partial_fit_errors():
    X, y = _three_classes()
    # tuned hyperparameters: no partial_fit (as scikit-learn's MLPClassifier without a stochastic solver)
    # (scikit-learn's available_if raises "has no attribute 'partial_fit'" from the error naming the parameters)
    with pytest.raises(AttributeError) as info:
        FixedSizeLSSVC().partial_fit(X, y, classes=[0, 1, 2])
    assert "gamma and sigma2 are None" in str(info.value) + str(info.value.__cause__)
    with pytest.raises(AttributeError) as info:
        FixedSizeLSSVR(gamma=1.0).partial_fit(X, y)
    assert "sigma2 is None" in str(info.value) + str(info.value.__cause__)
    assert not hasattr(FixedSizeLSSVR(sigma2=1.0), "partial_fit")
    assert hasattr(FixedSizeLSSVR(gamma=1.0, kernel="linear"), "partial_fit")
    with pytest.raises(ValueError, match="classes"):
        FixedSizeLSSVC(gamma=1.0, sigma2=1.0).partial_fit(X, y)
    with pytest.raises(ValueError, match="balanced"):
        FixedSizeLSSVC(gamma=1.0, sigma2=1.0, class_weight="balanced").partial_fit(X, y, classes=[0, 1, 2])
    est = FixedSizeLSSVC(gamma=1.0, sigma2=1.0, n_prototypes=10).partial_fit(X[:30], y[:30], classes=[0, 1, 2, 3])
    with pytest.raises(ValueError, match="features"):
        est.partial_fit(X[:, :1], y)
    with pytest.raises(ValueError, match="not in classes"):
        est.partial_fit(X[:5], np.full(5, 7))
    with pytest.raises(ValueError, match="sample_weight"):
        est.partial_fit(X[:5], y[:5], sample_weight=-np.ones(5))
    before = est.decision_function(X)
    est.partial_fit(X[30:], y[30:])  # the failed calls left the stream as it was
    ref = FixedSizeLSSVC(gamma=1.0, sigma2=1.0, prototypes=est.prototypes_).partial_fit(
        X[:30], y[:30], classes=[0, 1, 2, 3]).partial_fit(X[30:], y[30:])
    np.testing.assert_allclose(est.decision_function(X), ref.decision_function(X), atol=1e-12)
    assert not np.allclose(before, est.decision_function(X))


# ------------------------------------------------------------------ max_time and verbose
def test_search_time_limit_stops_between_evaluations_with_a_prefix_of_the_history():
    def cost(x):
        time.sleep(0.01)
        return float(np.sum((x - 0.3) ** 2))

    x0 = np.random.default_rng(0).uniform(-1, 1, size=(5, 2))
    full = csa_simplex(cost, x0, -2 * np.ones(2), 2 * np.ones(2), n_csa=40, n_simplex=30, seed=3)
    t = time.perf_counter()
    cut = csa_simplex(cost, x0, -2 * np.ones(2), 2 * np.ones(2), n_csa=40, n_simplex=30, seed=3, time_limit=0.15)
    elapsed = time.perf_counter() - t
    assert not full.timed_out and cut.timed_out
    assert 1 <= cut.history.shape[0] < full.history.shape[0]
    np.testing.assert_array_equal(cut.history, full.history[:cut.history.shape[0]])
    assert cut.fun == cut.history[:, -1].min()
    assert elapsed < 0.15 + 0.1  # at most one evaluation past the limit
    none = csa_simplex(cost, x0, -2 * np.ones(2), 2 * np.ones(2), n_csa=40, n_simplex=30, seed=3, time_limit=0.0)
    assert none.history.shape[0] == 0 and none.timed_out


def test_max_time_bounds_a_tuned_fit_and_warns():
    """A tuned fit cut at T = 0.2 s: done within 1.1 T plus a slack of 0.5 s for the final solve (one feature pass at
    the chosen sigma^2 and a Cholesky of order m, tens of milliseconds here on an idle machine; the slack covers a
    loaded one), a ConvergenceWarning, a usable model. The paper's whole search on every row (tune_rows=None, no early
    stop; 0.85 s on a fast idle machine), so that no machine finishes it inside T (the default's search on a 2,000-row
    sample ended within 0.2 s on one)."""
    X, y = make_moons(4000, noise=0.3, random_state=0)
    kw = dict(n_prototypes=120, random_state=0, cv=10, tune_rows=None, n_iter_no_change=None)
    T = 0.2
    t = time.perf_counter()
    with pytest.warns(ConvergenceWarning, match="max_time"):
        est = FixedSizeLSSVC(max_time=T, **kw).fit(X, y)
    elapsed = time.perf_counter() - t
    assert elapsed <= 1.1 * T + 0.5, elapsed
    assert est.max_time_reached_
    assert est.problems_[0]["n_evals"] < 160
    assert est.score(X, y) > 0.8
    with warnings.catch_warnings():
        warnings.simplefilter("error", ConvergenceWarning)
        quick = FixedSizeLSSVC(n_prototypes=10, n_csa=5, n_simplex=2, max_time=60, random_state=0).fit(X[:200], y[:200])
    assert not quick.max_time_reached_


def test_max_time_on_the_python_tuning_path_and_multiclass():
    X, y = _three_classes()
    X = np.repeat(X, 20, axis=0) + 0.01 * np.random.default_rng(0).normal(size=(1200, 2))
    y = np.repeat(y, 20)
    # a budget no fit of this size meets on any machine (the fit took 0.17 s on an idle one, so a 0.3 s budget was
    # not always reached), tuned on every row (tune_rows=None) so that the Python engine runs under the search
    t = time.perf_counter()
    with pytest.warns(ConvergenceWarning):  # weighted, streamed: the Python engine under the core's search
        est = FixedSizeLSSVC(n_prototypes=60, class_weight="balanced", max_time=0.02, feature_memory=1,
                             tune_rows=None, random_state=0).fit(X, y)
    assert time.perf_counter() - t < 0.02 * 1.1 + 2.0  # the budget's overshoot, generous for a loaded machine
    assert est.max_time_reached_ and est.predict(X).shape == (1200,)
    assert np.all(np.isfinite(est.gamma_))


def test_verbose_bar_counts_the_evaluations(capsys):
    X, y = make_moons(100, noise=0.25, random_state=0)
    FixedSizeLSSVR(n_prototypes=10, n_csa=5, n_simplex=3, verbose=True, random_state=0).fit(X, y)
    err = capsys.readouterr().err
    assert "tuning (regression)" in err and "/8" in err  # total = n_csa + n_simplex evaluations
    FixedSizeLSSVR(n_prototypes=10, n_csa=5, n_simplex=3, random_state=0).fit(X, y)
    out = capsys.readouterr()
    assert out.err == "" and out.out == ""


def test_partial_fit_state_survives_pickling():
    import pickle

    from svmopt import FixedSizeLSSVC as _FS

    rng = np.random.default_rng(0)
    X = rng.normal(size=(600, 3))
    y = (X[:, 0] + X[:, 1] > 0).astype(int)
    kw = dict(n_prototypes=20, gamma=1.0, sigma2=1.0, standardize=False, random_state=0)
    a = _FS(**kw).partial_fit(X[:300], y[:300], classes=[0, 1])
    b = pickle.loads(pickle.dumps(a))
    a.partial_fit(X[300:], y[300:])
    b.partial_fit(X[300:], y[300:])
    np.testing.assert_allclose(a.decision_function(X), b.decision_function(X), rtol=0, atol=1e-12)
