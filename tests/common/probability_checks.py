"""Checks of ``probability=True`` shared by the estimator families: ``predict_proba`` present only when asked, the
probability matrix a row distribution whose argmax is ``predict``, and held-out log-loss below that of the class
frequencies."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import numpy as np
import pytest
from sklearn.metrics import log_loss

from svmopt._shared.calibration import BinaryCalibration, MulticlassCalibration


def check_probability_is_opt_in(clf: Any, X: np.ndarray, y: np.ndarray,
                                on_calibrated: Callable[[Any], None] | None = None) -> None:
    """Check on the unfitted binary estimator ``clf`` (``probability`` off) that ``predict_proba`` and
    ``predict_log_proba`` are absent before and after a fit, present with a :class:`BinaryCalibration` after a fit
    with ``probability=True`` (where ``on_calibrated(clf)`` then runs, if given), gone again after a refit without
    it, and that ``probability="yes"`` is refused by name."""
    assert not hasattr(clf, "predict_proba") and not hasattr(clf, "predict_log_proba")
    clf.fit(X, y)
    assert not hasattr(clf, "predict_proba") and not hasattr(clf, "calibration_")
    clf.set_params(probability=True).fit(X, y)
    assert hasattr(clf, "predict_proba") and isinstance(clf.calibration_, BinaryCalibration)
    if on_calibrated is not None:
        on_calibrated(clf)
    clf.set_params(probability=False).fit(X, y)  # a refit without it removes the calibration
    assert not hasattr(clf, "predict_proba") and not hasattr(clf, "calibration_")
    with pytest.raises(ValueError, match="probability"):
        type(clf)(probability="yes").fit(X, y)


def check_probability_matrix(clf: Any, Xq: np.ndarray, n_classes: int) -> np.ndarray:
    """Check ``clf.predict_proba(Xq)`` of the estimator fitted with ``probability=True``: one row per row of ``Xq``
    and a column per class, entries in [0, 1], rows summing to 1, argmax (of it and of ``predict_log_proba``) equal
    to ``predict``, ``exp(predict_log_proba)`` equal to it, and the calibration binary for two classes and multiclass
    otherwise. Returns the matrix."""
    P = clf.predict_proba(Xq)
    assert P.shape == (Xq.shape[0], n_classes) and np.all(P >= 0) and np.all(P <= 1)
    np.testing.assert_allclose(P.sum(axis=1), 1.0, atol=1e-12)
    np.testing.assert_array_equal(clf.classes_[np.argmax(P, axis=1)], clf.predict(Xq))
    np.testing.assert_array_equal(clf.classes_[np.argmax(clf.predict_log_proba(Xq), axis=1)], clf.predict(Xq))
    np.testing.assert_allclose(np.exp(clf.predict_log_proba(Xq)), P, rtol=1e-12, atol=1e-300)
    assert isinstance(clf.calibration_, BinaryCalibration if n_classes == 2 else MulticlassCalibration)
    return P


def check_log_loss_beats_class_frequencies(clf: Any, X_test: np.ndarray, y_test: np.ndarray, y_train: np.ndarray,
                                           factor: float = 1.0) -> None:
    """Check that the held-out log-loss of the estimator fitted with ``probability=True`` on labels ``y_train`` is
    below ``factor`` times the log-loss, on ``(X_test, y_test)``, of the class frequencies of ``y_train``."""
    prior = np.bincount(np.searchsorted(clf.classes_, y_train), minlength=clf.classes_.size) / y_train.size
    baseline = log_loss(y_test, np.tile(prior, (y_test.size, 1)), labels=clf.classes_)
    assert log_loss(y_test, clf.predict_proba(X_test), labels=clf.classes_) < factor * baseline
