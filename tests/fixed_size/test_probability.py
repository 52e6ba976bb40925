"""FixedSizeLSSVC(probability=True): predict_proba from a calibration of held-out decision values whose argmax is
predict on every row (binary, one-vs-one and minimum output coding); absent otherwise; seeded; better than the
class frequencies on held-out rows; fitted by clones at the fit's tuned values (no second tuning); refused where
folds of rows do not exist (dask arrays, block streams, partial_fit) before any work."""

from __future__ import annotations

import warnings

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from sklearn.base import clone
from sklearn.datasets import make_classification
from sklearn.model_selection import train_test_split
from sklearn.utils.estimator_checks import parametrize_with_checks

from svmopt import FixedSizeLSSVC
from tests.common.probability_checks import (
    check_log_loss_beats_class_frequencies,
    check_probability_is_opt_in,
    check_probability_matrix,
)

FAST = {"n_prototypes": 20, "n_csa": 10, "n_simplex": 5}


def _data(n=90, n_classes=2, seed=0, flip=0.1):
    return make_classification(n, 4, n_informative=3, n_redundant=0, n_classes=n_classes, n_clusters_per_class=1,
                               flip_y=flip, random_state=seed)


def test_predict_proba_exists_only_with_probability():
    X, y = _data()

    def zero_decision_value_is_the_second_class(clf):
        assert clf.calibration_.zero_is_positive  # predict is classes_[1] where f >= 0
        p0 = clf.calibration_.proba(np.zeros(1))
        assert p0[0, 1] > p0[0, 0]

    check_probability_is_opt_in(FixedSizeLSSVC(random_state=0, **FAST), X, y, zero_decision_value_is_the_second_class)


@settings(max_examples=6, deadline=None, database=None, suppress_health_check=[HealthCheck.too_slow])
@given(seed=st.integers(0, 10_000), coding=st.sampled_from(["binary", "ovo", "moc"]))
def test_probabilities_are_rows_of_a_distribution_whose_argmax_is_predict(seed, coding):
    n_classes = 2 if coding == "binary" else 4
    X, y = _data(30 * n_classes, n_classes, seed)
    clf = FixedSizeLSSVC(probability=True, multiclass="moc" if coding == "moc" else "ovo", random_state=seed,
                         **FAST).fit(X, y)
    assert clf.coding_ == coding
    rng = np.random.default_rng(seed)
    Xq = np.vstack([X, rng.normal(scale=3.0, size=(50, X.shape[1]))])  # training rows and far-off ones
    check_probability_matrix(clf, Xq, n_classes)


def test_the_same_seed_gives_the_same_probabilities():
    X, y = _data(80, seed=3)
    a = FixedSizeLSSVC(probability=True, random_state=7, **FAST).fit(X, y).predict_proba(X)
    b = FixedSizeLSSVC(probability=True, random_state=7, **FAST).fit(X, y).predict_proba(X)
    np.testing.assert_array_equal(a, b)


@pytest.mark.parametrize(("n_classes", "coding"), [(2, "ovo"), (3, "ovo"), (3, "moc")])
def test_held_out_log_loss_beats_the_class_frequencies(n_classes, coding):
    X, y = _data(200 * n_classes, n_classes, seed=5, flip=0.05)
    X_tr, X_te, y_tr, y_te = train_test_split(X, y, test_size=0.5, stratify=y, random_state=0)
    clf = FixedSizeLSSVC(probability=True, multiclass=coding, random_state=0, **FAST).fit(X_tr, y_tr)
    check_log_loss_beats_class_frequencies(clf, X_te, y_te, y_tr, factor=0.7)


@pytest.mark.parametrize(("n_classes", "coding"), [(2, "ovo"), (4, "ovo"), (4, "moc")])
def test_fold_params_fit_the_tuned_model_without_tuning_again(n_classes, coding):
    """The clones take each binary problem's tuned gamma and sigma^2 (arrays for several problems): refitted with
    them on the same rows, the model is the tuned one, and nothing is searched."""
    X, y = _data(50 * n_classes, n_classes, seed=4)
    clf = FixedSizeLSSVC(multiclass=coding, random_state=0, **FAST).fit(X, y)
    params = clf._fold_params()
    assert set(params) == {"gamma", "sigma2", "n_prototypes", "verbose"} and params["n_prototypes"] == 20
    np.testing.assert_array_equal(np.atleast_1d(params["gamma"]), np.atleast_1d(clf.gamma_))
    np.testing.assert_array_equal(np.atleast_1d(params["sigma2"]), np.atleast_1d(clf.sigma2_))
    twin = clone(clf).set_params(**params).fit(X, y)
    assert all(p["n_evals"] <= 1 for p in twin.problems_)  # at most the informational CV score
    np.testing.assert_array_equal(twin.prototype_indices_, clf.prototype_indices_)
    np.testing.assert_allclose(twin.decision_function(X), clf.decision_function(X), atol=1e-8)
    assert "n_prototypes" not in FixedSizeLSSVC(random_state=0, n_csa=5, n_simplex=2).fit(X, y)._fold_params()
    linear = FixedSizeLSSVC(kernel="linear", random_state=0, n_csa=5, n_simplex=2).fit(X, y)._fold_params()
    assert set(linear) == {"gamma", "verbose"}


def test_max_time_shares_the_time_left_among_the_folds(monkeypatch):
    X, y = _data()
    seen = []
    original = FixedSizeLSSVC._fold_params

    def spy(self):
        out = original(self)
        seen.append(out.get("max_time"))
        return out

    monkeypatch.setattr(FixedSizeLSSVC, "_fold_params", spy)
    clf = FixedSizeLSSVC(probability=True, max_time=60.0, random_state=0, **FAST).fit(X, y)
    assert seen and 0 < seen[0] <= 60.0 / 5 and not hasattr(clf, "_fold_time")


def test_what_the_calibration_cannot_take_is_refused_before_any_work(monkeypatch):
    import svmopt.fixed_size.base as base

    X, y = _data()
    passes = []
    monkeypatch.setattr(base, "load_source", lambda *a, **k: passes.append(1) or (_ for _ in ()).throw(AssertionError))
    blocks = [(X[s:s + 30], y[s:s + 30]) for s in range(0, 90, 30)]
    for stream in (lambda: iter(blocks), iter(blocks)):
        with pytest.raises(ValueError, match="probability=True needs X as an array or np.memmap.*block stream"):
            FixedSizeLSSVC(probability=True).fit(stream)
    da = pytest.importorskip("dask.array")
    with pytest.raises(ValueError, match="probability=True needs X as an array or np.memmap.*dask array"):
        FixedSizeLSSVC(probability=True).fit(da.from_array(X, chunks=30), y)
    assert not passes  # refused before the data were read
    monkeypatch.undo()
    y1 = y.copy()
    y1[0] = 5  # a class of one row: no held-out decision values for it, refused before the model's fit
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        with pytest.raises(ValueError, match="at least 2 rows of every class"):
            FixedSizeLSSVC(probability=True, random_state=0, **FAST).fit(X, y1)
    w = np.ones(y.size)
    w[y == 1] = 0.0
    w[np.flatnonzero(y == 1)[:1]] = 1.0  # one row of positive weight left in class 1
    with pytest.raises(ValueError, match="at least 2 rows of every class"):
        FixedSizeLSSVC(probability=True, random_state=0, **FAST).fit(X, y, sample_weight=w)


def test_partial_fit_refuses_probability_by_name():
    """With probability=True partial_fit is absent (as with tuned hyperparameters) and calling it names why."""
    X, y = _data()
    clf = FixedSizeLSSVC(gamma=1.0, sigma2=2.0, n_prototypes=10, probability=True)
    assert not hasattr(clf, "partial_fit")
    with pytest.raises(ValueError, match="probability=True is not available with partial_fit"):
        clf.partial_fit(X, y, classes=[0, 1])
    fitted = FixedSizeLSSVC(gamma=1.0, sigma2=2.0, n_prototypes=10, probability=True, random_state=0).fit(X, y)
    fitted.set_params(probability=False).partial_fit(X, y)  # a new stream: the fit's calibration is not its own
    assert not hasattr(fitted, "calibration_")
    fitted.set_params(probability=True)
    with pytest.raises(ValueError, match="partial_fit"):
        fitted.partial_fit(X, y)


def test_memmap_input_is_calibrated_as_the_array(tmp_path):
    X, y = _data(90, seed=2)
    mm = np.memmap(tmp_path / "X.f64", dtype=np.float64, mode="w+", shape=X.shape)
    mm[:] = X
    mm.flush()
    kw = dict(probability=True, gamma=3.0, sigma2=2.0, n_prototypes=15, random_state=0)
    a = FixedSizeLSSVC(**kw).fit(np.memmap(tmp_path / "X.f64", dtype=np.float64, mode="r", shape=X.shape), y)
    b = FixedSizeLSSVC(**kw).fit(X, y)
    np.testing.assert_allclose(a.predict_proba(X), b.predict_proba(X), atol=1e-10)


@parametrize_with_checks([FixedSizeLSSVC(probability=True, n_prototypes=20, gamma=5.0, sigma2=2.0, random_state=0)])
def test_sklearn_contract_with_probabilities(estimator, check):
    """scikit-learn's checks, the weight-equivalence ones included: they give ``cv`` as index pairs over the rows of
    the fit, which the calibration's clones (fitted on folds of those rows) replace by the default cv."""
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", UserWarning)
        check(estimator)
