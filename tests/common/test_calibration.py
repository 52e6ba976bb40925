"""The calibration behind ``probability=True`` (svmopt._shared.calibration): the argmax of the probabilities is the
prediction on every input (hypothesis, down to ties and values below the exponential's resolution), the fitted maps
recover the sigmoid that generated the labels, weights are frequencies, and the held-out decision values come from
seeded stratified folds."""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from hypothesis.extra.numpy import arrays
from sklearn.base import BaseEstimator, ClassifierMixin
from sklearn.svm import LinearSVC

from svmopt._shared.calibration import (
    BinaryCalibration,
    MulticlassCalibration,
    ProbabilityMixin,
    fit_calibration,
    held_out_decisions,
)

finite = st.floats(allow_nan=False, allow_infinity=False, width=64)
decision = st.one_of(finite, st.sampled_from([0.0, -0.0, 5e-324, -5e-324, 1e-300, -1e-300, 1e300, -1e300]))
slopes = st.floats(1e-6, 1e6)
scales = st.sampled_from([2.0**k for k in (-1000, -60, -1, 0, 1, 60, 1000)])


@settings(max_examples=300, deadline=None, database=None)
@given(f=arrays(np.float64, st.integers(1, 40), elements=decision), a_pos=slopes, a_neg=slopes, scale=scales,
       zero_is_positive=st.booleans())
def test_binary_argmax_is_the_prediction_on_every_input(f, a_pos, a_neg, scale, zero_is_positive):
    cal = BinaryCalibration(a_pos, a_neg, scale, zero_is_positive)
    P, logP = cal.proba(f), cal.log_proba(f)
    predicted = (f >= 0) if zero_is_positive else (f > 0)
    assert np.array_equal(np.argmax(P, axis=1), predicted.astype(int))
    assert np.array_equal(np.argmax(logP, axis=1), predicted.astype(int))
    assert np.all((P >= 0) & (P <= 1)) and np.allclose(P.sum(axis=1), 1.0, rtol=0, atol=1e-12)
    assert np.all(np.isfinite(logP) | (logP == -np.inf))


@settings(max_examples=300, deadline=None, database=None)
@given(D=st.integers(3, 6).flatmap(lambda k: arrays(
           np.float64, st.tuples(st.integers(1, 30), st.just(k)),
           elements=st.one_of(decision, st.sampled_from([1.0, 1.0 + 2**-52])))),
       temperature=slopes, scale=scales)
def test_multiclass_argmax_is_the_prediction_on_every_input(D, temperature, scale):
    cal = MulticlassCalibration(temperature, scale)
    P = cal.proba(D)
    assert np.array_equal(np.argmax(P, axis=1), np.argmax(D, axis=1))
    assert np.array_equal(np.argmax(cal.log_proba(D), axis=1), np.argmax(D, axis=1))
    assert np.all((P >= 0) & (P <= 1)) and np.allclose(P.sum(axis=1), 1.0, rtol=0, atol=1e-12)


def test_zero_leans_to_the_predicted_class():
    f = np.array([0.0, -0.0])
    assert np.all(BinaryCalibration(1.0, 1.0, 1.0, True).proba(f)[:, 1] > 0.5)
    assert np.all(BinaryCalibration(1.0, 1.0, 1.0, False).proba(f)[:, 0] > 0.5)


@pytest.mark.parametrize("scale", [1e-200, 1.0, 1e200])
def test_binary_fit_recovers_the_generating_slopes_at_any_scale(scale):
    rng = np.random.default_rng(0)
    f = rng.normal(size=20_000) * 2.0
    a = np.where(f >= 0, 1.5, 0.5)
    y = (rng.random(f.size) < 1.0 / (1.0 + np.exp(-a * f))).astype(int)
    cal = BinaryCalibration.fit(f * scale, y, np.ones(f.size), True)
    assert cal.a_pos / cal.scale * scale == pytest.approx(1.5, rel=0.1)
    assert cal.a_neg / cal.scale * scale == pytest.approx(0.5, rel=0.1)


def test_multiclass_fit_recovers_the_generating_temperature():
    rng = np.random.default_rng(1)
    D = rng.normal(size=(20_000, 4))
    P = np.exp(2.0 * D)
    P /= P.sum(axis=1, keepdims=True)
    y = np.array([rng.choice(4, p=p) for p in P])
    cal = MulticlassCalibration.fit(D, y, np.ones(y.size))
    assert cal.temperature / cal.scale == pytest.approx(2.0, rel=0.1)


def test_integer_weights_are_repeated_rows():
    rng = np.random.default_rng(2)
    f = rng.normal(size=200)
    y = (f + rng.normal(size=200) > 0).astype(int)
    w = rng.integers(1, 4, size=200)
    a = BinaryCalibration.fit(f, y, w.astype(float), True)
    b = BinaryCalibration.fit(np.repeat(f, w), np.repeat(y, w), np.ones(w.sum()), True)
    assert a.a_pos == pytest.approx(b.a_pos, rel=1e-4) and a.a_neg == pytest.approx(b.a_neg, rel=1e-4)


def test_separable_held_out_values_keep_finite_slopes():
    """Platt's smoothed targets: perfectly separated held-out values do not send the slopes to the bound."""
    f = np.linspace(-3, 3, 101)
    f = f[f != 0]
    cal = BinaryCalibration.fit(f, (f > 0).astype(int), np.ones(f.size), True)
    assert cal.a_pos < 1e3 and cal.a_neg < 1e3
    assert cal.proba(np.array([3.0]))[0, 1] < 1.0


class _ProbaLinearSVC(ProbabilityMixin, ClassifierMixin, BaseEstimator):
    """A classifier with a ``probability`` parameter over LinearSVC, to test the mixin alone."""

    def __init__(self, C=1.0, probability=False, random_state=None):
        self.C, self.probability, self.random_state = C, probability, random_state

    def fit(self, X, y, sample_weight=None):
        self.model_ = LinearSVC(C=self.C).fit(X, y, sample_weight=sample_weight)
        self.classes_ = self.model_.classes_
        self.fits_ = getattr(self, "fits_", 0) + 1
        self._fit_probability(X, y, sample_weight, zero_is_positive=False)
        return self

    def decision_function(self, X):
        return self.model_.decision_function(X)

    def predict(self, X):
        return self.model_.predict(X)


def _data(n_classes=2, n=300, seed=0):
    from sklearn.datasets import make_classification

    return make_classification(n_samples=n, n_features=6, n_informative=4, n_classes=n_classes,
                               n_clusters_per_class=1, random_state=seed)


def test_probabilities_exist_only_when_asked():
    X, y = _data()
    plain = _ProbaLinearSVC().fit(X, y)
    assert not hasattr(plain, "predict_proba") and not hasattr(plain, "predict_log_proba")
    est = _ProbaLinearSVC(probability=True, random_state=0).fit(X, y)
    P = est.predict_proba(X)
    assert P.shape == (300, 2) and np.array_equal(est.classes_[P.argmax(axis=1)], est.predict(X))
    assert np.allclose(np.log(P), est.predict_log_proba(X))
    est.set_params(probability=False).fit(X, y)
    assert not hasattr(est, "calibration_")


@pytest.mark.parametrize("n_classes", [2, 3])
def test_held_out_decisions_are_seeded_and_weighted(n_classes):
    X, y = _data(n_classes)
    est = _ProbaLinearSVC(probability=True, random_state=0)
    a = held_out_decisions(est, X, y, None, 0)
    b = held_out_decisions(est, X, y, None, 0)
    c = held_out_decisions(est, X, y, None, 1)
    assert np.array_equal(a, b) and not np.array_equal(a, c)
    assert a.shape == ((300,) if n_classes == 2 else (300, n_classes))
    # weight 0 rows are out of the folds and of the likelihood: the same calibration as without those rows
    w = np.ones(300)
    w[:50] = 0.0
    est.fit(X, y)
    with_zeros = fit_calibration(est, X, y, w, zero_is_positive=False)
    without = fit_calibration(est, X[50:], y[50:], np.ones(250), zero_is_positive=False)
    assert with_zeros == without


def test_a_class_of_one_row_is_refused_by_name():
    X, y = _data()
    y = y.copy()
    y[:] = 0
    y[0] = 1
    with pytest.raises(ValueError, match="probability=True needs at least 2 rows of every class"):
        _ProbaLinearSVC(probability=True).fit(X, y)


def test_calibration_beats_the_constant_on_held_out_data():
    """The log-loss on new rows is below the one of the class frequencies (a calibration that learned nothing)."""
    from sklearn.metrics import log_loss

    X, y = _data(n=1200, seed=3)
    est = _ProbaLinearSVC(probability=True, random_state=0).fit(X[:800], y[:800])
    p = est.predict_proba(X[800:])
    base = np.tile(np.bincount(y[:800]) / 800, (400, 1))
    assert log_loss(y[800:], p) < 0.7 * log_loss(y[800:], base)


def test_the_folds_fit_the_selected_model():
    """_fold_params: the folds' clones take the fitted choice (here C), instead of the constructor's value."""

    class Selecting(_ProbaLinearSVC):
        def fit(self, X, y, sample_weight=None):
            self.C_ = 0.01 if self.C == "select" else self.C
            self.model_ = LinearSVC(C=self.C_).fit(X, y, sample_weight=sample_weight)
            self.classes_ = self.model_.classes_
            self._fit_probability(X, y, sample_weight, zero_is_positive=False)
            return self

        def _fold_params(self):
            return {"C": self.C_}

    X, y = _data()
    est = Selecting(C="select", probability=True, random_state=0)
    est.C_ = 0.01
    direct = held_out_decisions(_ProbaLinearSVC(C=0.01), X, y, None, 0)
    assert np.array_equal(held_out_decisions(est, X, y, None, 0), direct)
    assert Selecting(C="select", probability=True, random_state=0).fit(X, y).predict_proba(X).shape == (300, 2)
