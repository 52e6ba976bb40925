"""RobustSVC(probability=True): predict_proba from a calibration of held-out decision values, whose argmax is predict
on every row; absent otherwise; seeded; weighted as frequencies; better than the class frequencies on held-out rows;
fitted by clones at the hyperparameters the fit selected (no second selection)."""

from __future__ import annotations

import warnings

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from sklearn.base import clone
from sklearn.datasets import make_classification
from sklearn.model_selection import train_test_split

from svmopt import RobustSVC
from svmopt._shared.calibration import BinaryCalibration
from tests.common.probability_checks import (
    check_log_loss_beats_class_frequencies,
    check_probability_is_opt_in,
    check_probability_matrix,
)


def _data(n=60, n_classes=2, seed=0, flip=0.1):
    X, y = make_classification(n, 4, n_informative=3, n_redundant=0, n_classes=n_classes, n_clusters_per_class=1,
                               flip_y=flip, random_state=seed)
    return X, y


def test_predict_proba_exists_only_with_probability():
    X, y = _data()
    check_probability_is_opt_in(RobustSVC(random_state=0), X, y)


@settings(max_examples=6, deadline=None, database=None, suppress_health_check=[HealthCheck.too_slow])
@given(seed=st.integers(0, 10_000), n_classes=st.sampled_from([2, 3]))
def test_probabilities_are_rows_of_a_distribution_whose_argmax_is_predict(seed, n_classes):
    X, y = _data(36 * n_classes, n_classes, seed)
    clf = RobustSVC(probability=True, random_state=seed).fit(X, y)
    rng = np.random.default_rng(seed)
    Xq = np.vstack([X, rng.normal(scale=3.0, size=(50, X.shape[1]))])  # training rows and far-off ones
    check_probability_matrix(clf, Xq, n_classes)


def test_zero_decision_value_predicts_the_first_class_and_the_probabilities_agree():
    """RobustSVC predicts classes_[1] iff f(x) > 0: at f = 0 the first class, and so does the calibration."""
    X, y = _data()
    clf = RobustSVC(probability=True, random_state=0).fit(X, y)
    assert clf.calibration_.zero_is_positive is False
    p0 = clf.calibration_.proba(np.zeros(1))
    assert p0[0, 0] > p0[0, 1]


def test_the_same_seed_gives_the_same_probabilities():
    X, y = _data(80, seed=3)
    a = RobustSVC(probability=True, random_state=7).fit(X, y).predict_proba(X)
    b = RobustSVC(probability=True, random_state=7).fit(X, y).predict_proba(X)
    np.testing.assert_array_equal(a, b)


def test_integer_weights_are_repeated_rows():
    """The model of integer weights is the model of the rows repeated (to rounding); the calibration's folds are
    not: a repeated row's copies fall on both sides of a fold, so its held-out decision values are partly training
    values and the slopes come out steeper (measured: 0.07-0.14 apart at most over three seeds). Weighted, every
    row is held out whole. The probabilities therefore agree within 0.2, and the calibration's likelihood, given
    the same decision values, weighs a row as its copies (exactly)."""
    X, y = _data(80, seed=1)
    w = np.random.default_rng(1).integers(1, 4, X.shape[0])
    kw = dict(alpha=2.0, nu=1.0, probability=True, random_state=0, lp_solver="highs")
    a = RobustSVC(**kw).fit(X, y, sample_weight=w)
    b = RobustSVC(**kw).fit(np.repeat(X, w, axis=0), np.repeat(y, w))
    np.testing.assert_allclose(a.decision_function(X), b.decision_function(X), atol=1e-8)
    assert np.abs(a.predict_proba(X) - b.predict_proba(X)).max() < 0.2
    f = a.decision_function(X)
    yi = np.searchsorted(a.classes_, y)
    one = BinaryCalibration.fit(f, yi, w.astype(float), False)
    rep = BinaryCalibration.fit(np.repeat(f, w), np.repeat(yi, w), np.ones(int(w.sum())), False)
    np.testing.assert_allclose([one.a_pos, one.a_neg], [rep.a_pos, rep.a_neg], rtol=1e-5)


def test_rows_of_weight_zero_leave_the_calibration():
    X, y = _data(80, seed=2)
    w = np.ones(X.shape[0])
    w[:10] = 0.0
    a = RobustSVC(alpha=2.0, nu=1.0, probability=True, random_state=0).fit(X, y, sample_weight=w)
    b = RobustSVC(alpha=2.0, nu=1.0, probability=True, random_state=0).fit(X[10:], y[10:])
    np.testing.assert_allclose(a.predict_proba(X), b.predict_proba(X), atol=1e-8)


@pytest.mark.parametrize("n_classes", [2, 3])
def test_held_out_log_loss_beats_the_class_frequencies(n_classes):
    X, y = _data(240 * n_classes // 2, n_classes, seed=5, flip=0.05)
    X_tr, X_te, y_tr, y_te = train_test_split(X, y, test_size=0.5, stratify=y, random_state=0)
    clf = RobustSVC(probability=True, random_state=0).fit(X_tr, y_tr)
    check_log_loss_beats_class_frequencies(clf, X_te, y_te, y_tr, factor=0.7)


@pytest.mark.parametrize("n_classes", [2, 3])
def test_fold_params_fit_the_selected_model_without_a_second_selection(n_classes):
    X, y = _data(60 * n_classes, n_classes, seed=4)
    clf = RobustSVC(random_state=0).fit(X, y)
    assert clf.selection_ is not None
    params = clf._fold_params()
    assert params["kernel"] == clf.kernel_ and params["alpha"] == clf.kernel_.alpha
    twin = clone(clf).set_params(**params).fit(X, y)
    if np.unique(clf.nu_).size == 1:  # one nu: nothing left to select
        assert twin.selection_ is None
    np.testing.assert_array_equal(twin.nu_, clf.nu_)
    np.testing.assert_allclose(twin.decision_function(X), clf.decision_function(X), atol=1e-8)


def test_fold_params_keep_the_reduced_model_and_rho(monkeypatch):
    import svmopt.robust.plan as rs

    monkeypatch.setattr(rs, "AUTO_MAX_ROWS", 100)
    X, y = _data(160, seed=6)
    clf = RobustSVC(p=2, rho=[0.0, 0.01], random_state=0).fit(X, y)
    params = clf._fold_params()
    assert clf.model_ == "reduced" and params["n_landmarks"] == clf.landmarks_.shape[0]
    assert params["rho"] == clf.rho_
    assert RobustSVC(n_landmarks=None, random_state=0).fit(X[:80], y[:80])._fold_params()["n_landmarks"] is None


def test_max_time_shares_the_time_left_among_the_folds():
    X, y = _data()
    clf = RobustSVC(alpha=2.0, nu=1.0, max_time=60.0, random_state=0)
    seen = []
    original = RobustSVC._fold_params

    def spy(self):
        out = original(self)
        seen.append(out.get("max_time"))
        return out

    RobustSVC._fold_params = spy
    try:
        clf.set_params(probability=True).fit(X, y)
    finally:
        RobustSVC._fold_params = original
    assert seen and 0 < seen[0] <= 60.0 / 5 and not hasattr(clf, "_fold_time")


def test_what_the_calibration_cannot_take_is_refused_before_any_work():
    X, y = _data()
    with pytest.raises(ValueError, match="eta per sample"):
        RobustSVC(p=2, eta=np.full(X.shape[0], 0.01), probability=True).fit(X, y)
    RobustSVC(p=2, eta=0.01, alpha=2.0, nu=1.0, probability=True, random_state=0).fit(X, y)  # one number: fine
    da = pytest.importorskip("dask.array")
    with pytest.raises(ValueError, match="probability=True needs X as an array"):
        RobustSVC(probability=True, n_landmarks=10).fit(da.from_array(X, chunks=20), y)
    y1 = y.copy()
    y1[0] = 5  # a class of one row: no held-out decision values for it, refused before the model's fit
    with warnings.catch_warnings():
        warnings.simplefilter("error")  # no warning of a model fitted on the way
        with pytest.raises(ValueError, match="at least 2 rows of every class"):
            RobustSVC(alpha=2.0, nu=1.0, probability=True, random_state=0).fit(X, y1)


def test_input_unit_is_a_public_fitted_attribute():
    X, y = _data()
    clf = RobustSVC(alpha="scale", nu=1.0).fit(X, y)
    assert clf.input_unit_ == 1.0 == clf._input_unit
    big = RobustSVC(alpha="scale", nu=1.0).fit(X * 2.0**200, y)
    assert big.input_unit_ == big._input_unit > 2.0**128
    np.testing.assert_array_equal(big.predict(X * 2.0**200), clf.predict(X))
