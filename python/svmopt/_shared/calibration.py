"""Probabilities for every classifier: a calibration of held-out decision values whose argmax is the prediction.

``probability=True`` on a classifier (as on scikit-learn's ``SVC``) fits, after the model, a map from its decision
values to class probabilities, on decision values the model did not see: those of a stratified, shuffled k-fold
(k = 5, or fewer when the smallest class has fewer rows; seeded by the estimator's ``random_state``) of clones fitted
with ``probability=False`` and the fold's ``sample_weight`` (:func:`held_out_decisions`). The map is fitted by
weighted maximum likelihood with the sample weights (the frequencies of the rows; ``class_weight``, a cost of the
model's errors, is not a frequency and does not enter it).

The maps are chosen so that ``argmax(predict_proba(X)) == predict(X)`` on every row **by construction**, the defect
most reported of LIBSVM's Platt scaling (whose sigmoid ``1 / (1 + exp(A f + B))`` crosses 1/2 away from the decision
threshold ``f = 0`` when ``B != 0``):

* two classes: a sigmoid anchored at the threshold with one slope on each side,
  ``P(classes_[1] | f) = 1 / (1 + exp(-a_+ f))`` for ``f >= 0`` and ``1 / (1 + exp(-a_- f))`` for ``f < 0``,
  ``a_+, a_- > 0`` (:class:`BinaryCalibration`). It equals 1/2 only at ``f = 0``, where it leans by one unit in the
  last place to the class the estimator predicts there, and two slopes still model classes of unequal spread. The
  targets are Platt's smoothed labels ``(N_+ + 1) / (N_+ + 2)`` and ``1 / (N_- + 2)`` (weighted counts), which keep
  a separable held-out set from driving the slopes to infinity.
* more classes: ``softmax(T D)`` over the estimator's per-class scores ``D`` (its ``decision_function``, whose
  argmax is its prediction), with one temperature ``T > 0`` (:class:`MulticlassCalibration`): a common increasing
  map keeps the order of each row's scores. A per-class affine map (a calibration of each one-vs-rest sigmoid, then
  normalized) would fit better and could reorder them; the temperature is the documented coupling.

Where rounding would tie or reorder the largest probability (scores that differ below the resolution of the
exponential), the predicted class's probability is raised to the next float above the others: the guarantee holds
for every input, not only for well-separated scores (tested with hypothesis).
"""

from __future__ import annotations

import inspect
from dataclasses import dataclass
from typing import Any

import numpy as np
from scipy import optimize, special
from sklearn.base import clone
from sklearn.model_selection import StratifiedKFold, cross_val_predict
from sklearn.utils import check_random_state
from sklearn.utils.metaestimators import available_if
from sklearn.utils.validation import check_is_fitted

from svmopt._shared.moments import power_of_two_unit
from svmopt._shared.splits import cv_is_index_pairs

#: Folds of the held-out decision values (fewer when the smallest class has fewer rows; at least 2).
N_FOLDS = 5
#: The slopes and the temperature are searched within these factors of 1 / (the scale of the decision values).
_SLOPE_RANGE = (1e-6, 1e6)
_HALF_UP = float(np.nextafter(0.5, 1.0))


def _scale(f: np.ndarray) -> float:
    """A power of two near the magnitude of the finite decision values (1 if none is nonzero): the maps are fitted
    on ``f / scale`` (an exact division), so they work at any magnitude of f."""
    finite = np.abs(f[np.isfinite(f)])
    finite = finite[finite > 0]
    return float(power_of_two_unit(np.median(finite))) if finite.size else 1.0


def _slope(z: np.ndarray, t: np.ndarray, w: np.ndarray, fallback: float) -> float:
    """The slope a > 0 minimizing the weighted cross-entropy of ``sigmoid(a z)`` against the targets ``t`` (convex in
    a), searched on log a; ``fallback`` where there are no rows."""
    if z.size == 0 or not np.any(w > 0):
        return fallback

    def nll(log_a: float) -> float:
        x = np.exp(log_a) * z
        # -[t log s(x) + (1 - t) log s(-x)] = log(1 + e^-x) + (1 - t) x
        return float(w @ (np.logaddexp(0.0, -x) + (1.0 - t) * x))

    lo, hi = np.log(_SLOPE_RANGE[0]), np.log(_SLOPE_RANGE[1])
    res = optimize.minimize_scalar(nll, bounds=(lo, hi), method="bounded", options={"xatol": 1e-6})
    return float(np.exp(res.x))


@dataclass(frozen=True)
class BinaryCalibration:
    """``P(classes_[1] | f)``: a sigmoid through 1/2 at ``f = 0`` with the slope ``a_pos / scale`` for ``f >= 0`` and
    ``a_neg / scale`` below; ``zero_is_positive``: the estimator predicts ``classes_[1]`` at ``f = 0``."""

    a_pos: float
    a_neg: float
    scale: float
    zero_is_positive: bool

    @classmethod
    def fit(cls, f: np.ndarray, y: np.ndarray, w: np.ndarray, zero_is_positive: bool) -> BinaryCalibration:
        """From held-out decision values ``f``, labels ``y`` in {0, 1} (index into ``classes_``) and weights."""
        scale = _scale(f)
        z = f / scale
        n_pos, n_neg = float(w[y == 1].sum()), float(w[y == 0].sum())
        t = np.where(y == 1, (n_pos + 1.0) / (n_pos + 2.0), 1.0 / (n_neg + 2.0))
        pos = z >= 0
        a_pos = _slope(z[pos], t[pos], w[pos], np.nan)
        a_neg = _slope(z[~pos], t[~pos], w[~pos], np.nan)
        if np.isnan(a_pos) and np.isnan(a_neg):
            a_pos = a_neg = 1.0
        a_pos = a_neg if np.isnan(a_pos) else a_pos
        a_neg = a_pos if np.isnan(a_neg) else a_neg
        return cls(a_pos, a_neg, scale, bool(zero_is_positive))

    def log_proba(self, f: np.ndarray) -> np.ndarray:
        """(n, 2) log-probabilities of ``classes_[0]`` and ``classes_[1]`` (stable: log-sigmoids, no 1 - p)."""
        f = np.asarray(f, dtype=np.float64)
        with np.errstate(over="ignore"):  # beyond float64: +-inf, whose log-sigmoids are 0 and -inf
            x = np.where(f >= 0, self.a_pos, self.a_neg) * (f / self.scale)
        logp = np.column_stack([special.log_expit(-x), special.log_expit(x)])
        # the predicted class strictly ahead, also where x rounds to 0 (|f| tiny next to the scale) or f == 0
        predicted = (f >= 0) if self.zero_is_positive else (f > 0)
        k = predicted.astype(np.intp)
        rows = np.arange(f.shape[0])
        behind = logp[rows, k] <= logp[rows, 1 - k]
        if np.any(behind):  # 1/2 each in float64: one unit in the last place to the predicted class
            logp[rows[behind], k[behind]] = np.log(_HALF_UP)
            logp[rows[behind], 1 - k[behind]] = np.log1p(-_HALF_UP)
        return logp

    def proba(self, f: np.ndarray) -> np.ndarray:
        return _consistent_exp(self.log_proba(f))


@dataclass(frozen=True)
class MulticlassCalibration:
    """``softmax(temperature * D / scale)`` over the per-class scores ``D``, whose argmax (the first of equal
    largest scores) is the estimator's prediction."""

    temperature: float
    scale: float

    @classmethod
    def fit(cls, D: np.ndarray, y: np.ndarray, w: np.ndarray) -> MulticlassCalibration:
        """From held-out scores ``D`` (n, K), labels ``y`` (index into ``classes_``) and weights."""
        scale = _scale(D)
        Z = D / scale
        rows = np.arange(Z.shape[0])

        def nll(log_t: float) -> float:
            S = np.exp(log_t) * Z
            return float(w @ (special.logsumexp(S, axis=1) - S[rows, y]))

        lo, hi = np.log(_SLOPE_RANGE[0]), np.log(_SLOPE_RANGE[1])
        res = optimize.minimize_scalar(nll, bounds=(lo, hi), method="bounded", options={"xatol": 1e-6})
        return cls(float(np.exp(res.x)), scale)

    def log_proba(self, D: np.ndarray) -> np.ndarray:
        D = np.asarray(D, dtype=np.float64)
        # centred on the row's largest score first (halves: the difference of two float64 cannot overflow), so
        # the largest entry of S is 0 and the normalizer is finite at any magnitude of D and any scale
        half = 0.5 * D - 0.5 * D.max(axis=1, keepdims=True)
        with np.errstate(over="ignore"):
            S = (2.0 * self.temperature) * (half / self.scale)
        logp = S - special.logsumexp(S, axis=1, keepdims=True)
        return _strict_top(logp, np.argmax(D, axis=1))

    def proba(self, D: np.ndarray) -> np.ndarray:
        return _consistent_exp(self.log_proba(D))


def _consistent_exp(logp: np.ndarray) -> np.ndarray:
    """``exp(logp)``, keeping the row's strictly largest entry strictly largest (exp may round two neighbours of
    the log scale to one float)."""
    return _strict_top(np.exp(logp), np.argmax(logp, axis=1))


def _strict_top(A: np.ndarray, k: np.ndarray) -> np.ndarray:
    """``A`` with each row's entry ``k`` made strictly its largest (raised to the next float above the others where
    rounding had tied or passed it), in place."""
    rows = np.arange(A.shape[0])
    top = A[rows, k]
    A[rows, k] = -np.inf
    rest = A.max(axis=1)
    A[rows, k] = np.where(top > rest, top, np.nextafter(rest, np.inf))
    return A


Calibration = BinaryCalibration | MulticlassCalibration


def fold_params(estimator: Any) -> dict[str, Any]:
    """The parameters that the folds' clones take from the fitted ``estimator``: its ``_fold_params()`` (the
    hyperparameters its fit selected, e.g. ``nu`` and the kernel width, so that the k folds fit the chosen model
    instead of repeating the selection), or none."""
    method = getattr(estimator, "_fold_params", None)
    return dict(method()) if callable(method) else {}


def held_out_decisions(estimator: Any, X: Any, y: np.ndarray, sample_weight: np.ndarray | None,
                       random_state: Any) -> np.ndarray:
    """The decision values of ``X``'s rows by clones of ``estimator`` (with ``probability=False`` and
    :func:`fold_params`) fitted on the
    other folds of a stratified, shuffled k-fold (:data:`N_FOLDS`, fewer for a small class; seeded by
    ``random_state``), each with its rows' ``sample_weight``."""
    _, counts = np.unique(y, return_counts=True)
    k = int(min(N_FOLDS, counts.min()))
    if k < 2:
        raise ValueError(f"probability=True needs at least 2 rows of every class (for its held-out decision values); "
                         f"the smallest class has {int(counts.min())}")
    seed = int(check_random_state(random_state).randint(2**31 - 1))
    folds = StratifiedKFold(n_splits=k, shuffle=True, random_state=seed)
    model = clone(estimator).set_params(probability=False, **fold_params(estimator))
    if cv_is_index_pairs(model.get_params().get("cv")):  # splits index the fit's rows, not a fold's: the default cv
        model.set_params(cv=inspect.signature(type(model).__init__).parameters["cv"].default)
    params = None if sample_weight is None else {"sample_weight": sample_weight}
    return np.asarray(cross_val_predict(model, X, y, cv=folds, method="decision_function", params=params),
                      dtype=np.float64)


def fit_calibration(estimator: Any, X: Any, y: Any, sample_weight: Any, *, zero_is_positive: bool) -> Calibration:
    """The calibration of the fitted classifier ``estimator`` (its ``classes_`` set) on ``X``, ``y`` as given to its
    ``fit`` (an array or a sparse matrix: the folds index rows). ``sample_weight``: as given to fit (None: ones); rows
    of weight 0 enter neither the folds' models nor the likelihood."""
    if hasattr(X, "dask") or not hasattr(X, "shape") or len(getattr(X, "shape", ())) != 2:
        raise ValueError("probability=True needs X as an array or a sparse matrix (its held-out decision values "
                         f"come from folds of rows); got {type(X).__name__}")
    y = np.asarray(y)
    classes = estimator.classes_
    yi = np.searchsorted(classes, y)
    w = np.ones(y.shape[0]) if sample_weight is None else np.asarray(sample_weight, dtype=np.float64)
    keep = w > 0
    if not np.all(keep):
        X, y, yi, w = X[keep], y[keep], yi[keep], w[keep]
    sw = None if sample_weight is None else w
    D = held_out_decisions(estimator, X, y, sw, getattr(estimator, "random_state", None))
    if classes.size == 2:
        return BinaryCalibration.fit(D.ravel(), yi, w, zero_is_positive)
    return MulticlassCalibration.fit(D, yi, w)


def _probability_enabled(estimator: Any) -> bool:
    return bool(getattr(estimator, "probability", False))


class ProbabilityMixin:
    """``predict_proba`` and ``predict_log_proba`` for a classifier with a ``probability`` parameter (False by
    default): absent unless ``probability=True`` (``hasattr(est, "predict_proba")`` is False, as for scikit-learn's
    ``SVC``). The classifier's ``fit`` ends with :meth:`_fit_probability`, which sets ``calibration_``; a classifier
    whose fit selects hyperparameters overrides :meth:`_fold_params` so that the folds fit the selected model."""

    def _fold_params(self) -> dict[str, Any]:
        """The fitted choices the folds' clones take as parameters (none here)."""
        return {}

    def _fit_probability(self, X: Any, y: Any, sample_weight: Any, *, zero_is_positive: bool) -> None:
        """After the model's fit, on the fit's ``X``, ``y`` and ``sample_weight``: ``calibration_`` (the map of
        :mod:`svmopt._shared.calibration`) with ``probability=True``; removed otherwise. ``zero_is_positive``: the
        classifier predicts ``classes_[1]`` at the decision value 0."""
        if _probability_enabled(self):
            self.calibration_ = fit_calibration(self, X, y, sample_weight, zero_is_positive=zero_is_positive)
        elif hasattr(self, "calibration_"):
            del self.calibration_

    @available_if(_probability_enabled)
    def predict_proba(self, X: Any) -> np.ndarray:
        """(n_samples, n_classes) class probabilities, columns in the order of ``classes_``; their argmax is
        ``predict(X)`` on every row (see :mod:`svmopt._shared.calibration` for the map)."""
        check_is_fitted(self, "calibration_")
        return self.calibration_.proba(self.decision_function(X))  # type: ignore[attr-defined]

    @available_if(_probability_enabled)
    def predict_log_proba(self, X: Any) -> np.ndarray:
        """The logarithm of :meth:`predict_proba`, computed without forming 1 - p (log-sigmoids, log-softmax)."""
        check_is_fitted(self, "calibration_")
        return self.calibration_.log_proba(self.decision_function(X))  # type: ignore[attr-defined]
