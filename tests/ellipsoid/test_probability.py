"""EllipsoidPSOClassifier(probability=True): predict_proba from a calibration of held-out decision values, whose
argmax is predict on every row (binary, one-vs-one and one-vs-rest); absent otherwise; seeded; better than the class
frequencies on held-out rows; fitted by clones at the ratios and shrinkages the fit selected (no second selection)."""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from sklearn.datasets import make_classification
from sklearn.model_selection import train_test_split

from svmopt import EllipsoidPSOClassifier
from svmopt.ellipsoid.decision import predicted_classes
from tests.common.probability_checks import (
    check_log_loss_beats_class_frequencies,
    check_probability_is_opt_in,
    check_probability_matrix,
)

FAST = {"max_iter": 40}


def _data(n=90, n_classes=2, seed=0, flip=0.05):
    X, y = make_classification(n, 4, n_informative=3, n_redundant=0, n_classes=n_classes, n_clusters_per_class=1,
                               flip_y=flip, random_state=seed)
    return X, y


def test_predict_proba_exists_only_with_probability():
    X, y = _data()
    check_probability_is_opt_in(EllipsoidPSOClassifier(random_state=0, **FAST), X, y)


@settings(max_examples=8, deadline=None, database=None, suppress_health_check=[HealthCheck.too_slow])
@given(seed=st.integers(0, 10_000), coding=st.sampled_from([(2, "ovo"), (3, "ovo"), (4, "ovo"), (3, "ovr")]))
def test_probabilities_are_rows_of_a_distribution_whose_argmax_is_predict(seed, coding):
    n_classes, multiclass = coding
    X, y = _data(30 * n_classes, n_classes, seed, flip=0.1)
    clf = EllipsoidPSOClassifier(probability=True, multiclass=multiclass, random_state=seed, **FAST).fit(X, y)
    rng = np.random.default_rng(seed)
    Xq = np.vstack([X, rng.normal(scale=3.0, size=(60, X.shape[1])), np.zeros((1, X.shape[1]))])
    check_probability_matrix(clf, Xq, n_classes)


def test_argmax_is_predict_on_the_decision_threshold():
    """Two classes: EllipsoidPSOClassifier predicts classes_[1] iff -z > 0, so at the decision value 0 (a row on the
    hyperplane) the prediction is classes_[0], and so is the most probable class."""
    X, y = _data()
    clf = EllipsoidPSOClassifier(probability=True, random_state=0, **FAST).fit(X, y)
    assert clf.calibration_.zero_is_positive is False
    assert predicted_classes(np.zeros(1), clf.classes_)[0] == clf.classes_[0]
    p0 = clf.calibration_.proba(np.zeros(1))
    assert p0[0, 0] > p0[0, 1]


def test_the_same_seed_gives_the_same_probabilities():
    X, y = _data(80, 3, seed=3)
    a = EllipsoidPSOClassifier(probability=True, random_state=7, **FAST).fit(X, y).predict_proba(X)
    b = EllipsoidPSOClassifier(probability=True, random_state=7, **FAST).fit(X, y).predict_proba(X)
    np.testing.assert_array_equal(a, b)


@pytest.mark.parametrize(("n_classes", "multiclass"), [(2, "ovo"), (3, "ovo"), (3, "ovr")])
def test_log_loss_beats_the_class_frequencies_on_held_out_rows(n_classes, multiclass):
    X, y = _data(300, n_classes, seed=5, flip=0.1)
    Xtr, Xte, ytr, yte = train_test_split(X, y, test_size=0.5, stratify=y, random_state=0)
    clf = EllipsoidPSOClassifier(probability=True, multiclass=multiclass, random_state=0, **FAST).fit(Xtr, ytr)
    check_log_loss_beats_class_frequencies(clf, Xte, yte, ytr, factor=0.75)


def test_the_folds_fit_the_selected_ratios_and_shrinkages(monkeypatch):
    """The calibration's clones take every binary model's ratio and shrinkage (fold parameters) and select
    nothing; a model refitted with them is the fitted one."""
    X, y = _data(120, 3, seed=2, flip=0.1)
    clf = EllipsoidPSOClassifier(random_state=0, **FAST).fit(X, y)
    params = clf._fold_params()
    assert params["ratio"] == clf.ratios_.tolist() and params["shrinkage"] == clf.shrinkages_.tolist()
    refit = EllipsoidPSOClassifier(random_state=0, **FAST, ratio=params["ratio"], shrinkage=params["shrinkage"])
    refit.fit(X, y)
    assert refit.selection_ is None
    np.testing.assert_array_equal(refit.coef_, clf.coef_)
    np.testing.assert_array_equal(refit.intercept_, clf.intercept_)

    import svmopt.ellipsoid.estimator as est

    calls = []
    select_pair = est.select_pair

    def counting(*args, **kwargs):
        calls.append(1)
        return select_pair(*args, **kwargs)

    monkeypatch.setattr(est, "select_pair", counting)
    EllipsoidPSOClassifier(probability=True, random_state=0, **FAST).fit(X, y)
    assert len(calls) == 3  # the three pairs of the fit itself; none in the calibration's five folds


def test_a_class_too_small_for_the_calibration_folds_is_named_before_work():
    X, y = _data(60, 2, seed=4)
    y = y.copy()
    y[np.flatnonzero(y == 1)[3:]] = 0  # 3 rows of class 1: enough for its 2-D ellipsoid, not in 3 folds
    EllipsoidPSOClassifier(random_state=0, **FAST).fit(X, y)
    with pytest.raises(ValueError, match="probability=True: class 1 has 3 rows"):
        EllipsoidPSOClassifier(probability=True, random_state=0, **FAST).fit(X, y)


def test_max_time_covers_the_calibration_folds(monkeypatch):
    """Under max_time the clones of the calibration share the time the fit left."""
    X, y = _data()
    seen = []
    fit = EllipsoidPSOClassifier.fit

    def recording(self, *args, **kwargs):
        seen.append(self.max_time)
        return fit(self, *args, **kwargs)

    monkeypatch.setattr(EllipsoidPSOClassifier, "fit", recording)
    EllipsoidPSOClassifier(probability=True, random_state=0, max_time=100.0, **FAST).fit(X, y)
    assert seen[0] == 100.0 and len(seen) == 6 and all(0 < t <= 100.0 / 5 for t in seen[1:])
