"""The one parameter-validation layer of svmopt's estimators: scikit-learn's, declared per class.

Every estimator declares ``_parameter_constraints`` (parameter name -> list of accepted constraints: an
:class:`Interval`, a :class:`StrOptions`, a type, ``None``, or one of scikit-learn's named constraints such as
``"random_state"``, ``"boolean"`` or ``"array-like"``) exactly as scikit-learn's own estimators do
(``sklearn/svm/_classes.py``). :func:`fit_context` decorates every ``fit``: it validates the parameters against
the declaration before any work starts -- an :class:`~sklearn.utils._param_validation.InvalidParameterError`
(a ``ValueError`` and a ``TypeError``) naming the parameter, the allowed values or range, and the value given --
and makes the fit atomic (:func:`svmopt._config.atomic_fit`).

What one parameter's declaration cannot say stays in the estimator, right after validation: constraints between
parameters (``eta`` needs ``p``) and constraints against the data (``budget <= n_features``).
"""

from __future__ import annotations

import functools
import math
from collections.abc import Callable
from numbers import Integral, Real
from typing import Any, Literal, TypeGuard, TypeVar, cast, overload

import numpy as np
from sklearn.utils._param_validation import (
    Interval as _SklearnInterval,
)
from sklearn.utils._param_validation import (
    InvalidParameterError,
    Options,
    StrOptions,
    validate_parameter_constraints,
)

from svmopt._config import atomic_fit

#: The ``class_weight`` declaration every classifier shares: None, "balanced" or a dict {label: weight >= 0}.
CLASS_WEIGHT = [StrOptions({"balanced"}), dict, None]

__all__ = [
    "NONNEGATIVE",
    "NONNEGATIVE_INT",
    "POSITIVE",
    "POSITIVE_INT",
    "SECONDS",
    "Integral",
    "Interval",
    "InvalidParameterError",
    "Options",
    "Real",
    "StrOptions",
    "check_dask_fit_weights",
    "check_fit_weights",
    "column_stds",
    "cv_indices",
    "cv_is_index_pairs",
    "cv_splits",
    "fit_context",
    "is_finite_real",
    "stratified_subsample",
    "validate_parameter_constraints",
    "validate_params",
    "weighted_variance_denominator",
    "weighted_variance_denominator_of_sums",
]


class Interval(_SklearnInterval):
    """scikit-learn's ``Interval``, except that a bool is not a number here (``True`` for a count or a weight is
    a mistake, not a 1)."""

    def is_satisfied_by(self, val: Any) -> bool:
        return not isinstance(val, (bool, np.bool_)) and super().is_satisfied_by(val)


#: The ``cv`` declaration of the estimators that select hyperparameters on held-out folds: a fold count >= 2, a
#: scikit-learn CV splitter, or an iterable of (train, test) index pairs.
CV = [Interval(Integral, 2, None, closed="left"), "cv_object"]

POSITIVE = Interval(Real, 0, None, closed="neither")
"""A finite real > 0."""
NONNEGATIVE = Interval(Real, 0, None, closed="left")
"""A finite real >= 0."""
POSITIVE_INT = Interval(Integral, 1, None, closed="left")
"""An integer >= 1."""
NONNEGATIVE_INT = Interval(Integral, 0, None, closed="left")
"""An integer >= 0."""
SECONDS = POSITIVE
"""A time limit in seconds: finite and > 0."""

_F = TypeVar("_F", bound=Callable[..., Any])


def validate_params(estimator: Any) -> None:
    """Check ``estimator``'s parameters against its class's ``_parameter_constraints`` (all of them declared)."""
    constraints = type(estimator)._parameter_constraints
    params = estimator.get_params(deep=False)
    undeclared = sorted(set(params) - set(constraints))
    if undeclared:  # a programming error of svmopt, caught by the test suite
        raise AssertionError(f"{type(estimator).__name__} declares no constraint for {undeclared}")
    validate_parameter_constraints(constraints, params, caller_name=type(estimator).__name__)


def fit_context(fit: _F) -> _F:
    """Decorator for every estimator's ``fit``: parameters validated first, then the fit runs atomically."""
    atomic = atomic_fit(fit)

    @functools.wraps(fit)
    def wrapper(self: Any, *args: Any, **kwargs: Any) -> Any:
        validate_params(self)
        return atomic(self, *args, **kwargs)

    return cast(_F, wrapper)  # the same signature as fit


def is_finite_real(value: Any) -> TypeGuard[Real]:
    """A real number (not a bool) that is finite."""
    return isinstance(value, Real) and not isinstance(value, bool) and math.isfinite(value)


@overload
def check_fit_weights(X: np.ndarray, y: np.ndarray, sample_weight: Any = ..., class_weight: Any = ..., *,
                      return_kept: Literal[False] = ..., allow_all_zero: bool = ...
                      ) -> tuple[np.ndarray, np.ndarray, np.ndarray | None]: ...


@overload
def check_fit_weights(X: np.ndarray, y: np.ndarray, sample_weight: Any = ..., class_weight: Any = ..., *,
                      return_kept: Literal[True], allow_all_zero: bool = ...
                      ) -> tuple[np.ndarray, np.ndarray, np.ndarray | None, np.ndarray | None]: ...


def check_fit_weights(X: np.ndarray, y: np.ndarray, sample_weight: Any = None, class_weight: Any = None, *,
                      return_kept: bool = False, allow_all_zero: bool = False,
                      ) -> tuple[np.ndarray, np.ndarray, np.ndarray | None] | tuple[
                          np.ndarray, np.ndarray, np.ndarray | None, np.ndarray | None]:
    """The one validation of ``fit(..., sample_weight)`` and ``class_weight``: ``(X, y, w)`` ready to fit.

    * ``sample_weight``: None or a 1-d array-like of ``n_samples`` finite, non-negative numbers, not all zero;
      anything else is a ``ValueError`` naming ``sample_weight`` before any work starts.
    * ``class_weight`` (classifiers): a dict ``{label: weight}`` multiplies the weights of that class's rows;
      ``"balanced"`` gives class ``c`` the factor ``W / (k * W_c)``, with ``W_c`` the *weighted* count of class
      ``c`` (so integer sample weights still equal repeated rows) and ``k`` the number of classes.
    * Rows of weight 0 are removed (a zero weight means "not in the training set", exactly), so every model
      sees only positive weights. ``w`` is None when no weights were given (every model's unweighted path, bit
      for bit the same as before weights existed) or when they are all equal to 1 after class weighting.
    * ``return_kept=True`` adds a fourth item, ``kept``: the original (sorted) indices of the rows kept, or None
      when every row is -- what :func:`cv_splits` needs to map a user's (train, test) pairs onto the rows left --
      so that a fit that needs them validates its weights once.
    * ``allow_all_zero=True`` (a later chunk of a stream, which may add nothing): weights zero for every row leave
      no row instead of raising.
    """
    n = X.shape[0]
    w: np.ndarray | None = None
    if sample_weight is not None:
        try:
            w = np.asarray(sample_weight, dtype=np.float64)
        except (TypeError, ValueError) as exc:
            raise ValueError(f"sample_weight must be an array of numbers, got {type(sample_weight).__name__}") \
                from exc
        if w.ndim == 0:
            w = np.full(n, float(w))
        if w.shape != (n,):
            raise ValueError(f"sample_weight must have shape ({n},) (one weight per row of X), got {w.shape}")
        if not np.all(np.isfinite(w)):
            raise ValueError(f"sample_weight contains {np.count_nonzero(~np.isfinite(w))} NaN or infinite values")
        if np.any(w < 0):
            raise ValueError(f"sample_weight must be non-negative; {np.count_nonzero(w < 0)} weights are negative "
                             f"(smallest {w.min():.6g})")
    if class_weight is not None:
        labels, inverse = np.unique(y, return_inverse=True)
        base = np.ones(n) if w is None else w
        if isinstance(class_weight, str):  # "balanced", on the weighted class counts
            counts = np.bincount(inverse, weights=base, minlength=labels.size)
            with np.errstate(divide="ignore"):
                factor = np.where(counts > 0, counts.sum() / (labels.size * np.where(counts > 0, counts, 1.0)), 0.0)
        else:
            factor = np.ones(labels.size)
            known = {lab.item() if hasattr(lab, "item") else lab: i for i, lab in enumerate(labels)}
            for key, value in class_weight.items():
                k = key.item() if hasattr(key, "item") else key
                if k not in known:
                    raise ValueError(f"class_weight has the label {key!r}, which is not in y (labels: "
                                     f"{labels.tolist()})")
                if not is_finite_real(value) or value < 0:
                    raise ValueError(f"class_weight[{key!r}] must be a finite number >= 0, got {value!r}")
                factor[known[k]] = float(value)
        w = base * factor[inverse]
    kept: np.ndarray | None = None
    if w is not None:
        if not (w.sum() > 0 or allow_all_zero):
            raise ValueError("sample_weight (times class_weight) is zero for every row: there is nothing to fit")
        keep = w > 0
        if not keep.all():
            kept = np.flatnonzero(keep)
            X, y, w = X[keep], y[keep], w[keep]
        if np.all(w == 1.0):
            w = None
    return (X, y, w, kept) if return_kept else (X, y, w)


def cv_is_index_pairs(cv: Any) -> bool:
    """Whether ``cv`` is an iterable of (train, test) index pairs (into the rows given to fit), not a fold count
    (None: 3) or a splitter."""
    return not (cv is None or isinstance(cv, Integral) or hasattr(cv, "split"))


def cv_splits(cv: Any, y: np.ndarray, kept: np.ndarray | None = None,
              n_given: int | None = None) -> list[tuple[np.ndarray, np.ndarray]]:
    """The (train, test) index pairs of ``cv`` on the rows of ``y``.

    * an int k (None: 3): unshuffled stratified k-fold, as scikit-learn's ``cross_val_score(cv=k)`` draws them
      (deterministic), with k capped by the smallest class; plain k-fold when a class has one row;
    * a splitter (an object with ``split``): its folds of these rows;
    * an iterable of (train, test) pairs: indices into the rows *as given to fit*, or boolean masks over them;
      ``kept`` (from ``check_fit_weights(..., return_kept=True)``) maps them to the rows left after zero-weight
      rows were removed; every index must lie in ``[0, n_given)`` (the rows given to fit; default: the rows of
      ``y``).
    """
    from sklearn.model_selection import KFold, StratifiedKFold

    n = y.shape[0]
    if cv is None:
        cv = 3
    if isinstance(cv, Integral) and not isinstance(cv, bool):
        counts = np.unique(y, return_counts=True)[1]
        k = min(int(cv), int(counts.min()))
        if k >= 2:
            return list(StratifiedKFold(n_splits=k).split(np.zeros(n), y))
        return list(KFold(n_splits=min(int(cv), n)).split(np.zeros(n)))
    limit = n if n_given is None else int(n_given)
    if hasattr(cv, "split"):
        splits = [(cv_indices(tr, n, "cv"), cv_indices(te, n, "cv")) for tr, te in cv.split(np.zeros((n, 1)), y)]
        for tr, te in splits:
            if any(idx.size and (idx.min() < 0 or idx.max() >= n) for idx in (tr, te)):
                raise ValueError(f"cv's split has an index outside the {n} rows it was given to split (the training "
                                 "rows left after zero-weight rows, or a subsample of them): a splitter of fixed "
                                 "indices (e.g. PredefinedSplit) indexes the rows given to fit; pass its pairs, "
                                 "list(cv.split(X, y)), instead")
        return splits
    splits = [(cv_indices(tr, limit, "cv"), cv_indices(te, limit, "cv")) for tr, te in cv]
    if not splits:
        raise ValueError("cv is an empty iterable: give at least one (train, test) pair")
    for tr, te in splits:
        if any(idx.size and (idx.min() < 0 or idx.max() >= limit) for idx in (tr, te)):
            raise ValueError(f"cv has an index outside the {limit} rows given to fit")
    if kept is not None:
        where = np.full(int(kept.max()) + 1 if kept.size else 0, -1, dtype=np.int64)
        where[kept] = np.arange(kept.size)

        def remap(idx: np.ndarray) -> np.ndarray:
            idx = idx[idx < where.size]
            new = where[idx]
            return new[new >= 0]

        splits = [(remap(tr), remap(te)) for tr, te in splits]
    for tr, te in splits:
        if any(idx.size and (idx.min() < 0 or idx.max() >= n) for idx in (tr, te)):
            raise ValueError(f"cv has an index outside the {n} training rows")
    return splits


def cv_indices(part: Any, n: int, name: str) -> np.ndarray:
    """One side of a (train, test) pair as int64 indices: a boolean mask over the n rows becomes the indices of
    its True entries (one of another length is refused)."""
    a = np.asarray(part)
    if a.dtype == bool:
        if a.shape != (n,):
            raise ValueError(f"{name} has a boolean mask of shape {a.shape}: a mask must have one entry per row "
                             f"({n})")
        return np.flatnonzero(a).astype(np.int64)
    return a.astype(np.int64).ravel()


def stratified_subsample(y: np.ndarray, n_max: int, rng: np.random.RandomState) -> np.ndarray:
    """Sorted indices of ``n_max`` rows (all rows when there are no more), every class kept in proportion: each
    class's share n_max n_c / n rounded down, at least one row, the rows left to the largest remainders; a class
    drawn uniformly from its rows. With more classes than ``n_max``, one row of each."""
    n = y.shape[0]
    if n <= n_max:
        return np.arange(n)
    _, inv, counts = np.unique(y, return_inverse=True, return_counts=True)
    share = counts * (n_max / n)
    take = np.minimum(np.maximum(np.floor(share).astype(np.int64), 1), counts)
    left = n_max - int(take.sum())
    while left < 0 and take.max() > 1:  # the one-row floors took more than n_max: back from the largest classes
        take[int(np.argmax(take))] -= 1
        left += 1
    for c in np.argsort(-(share - np.floor(share)), kind="stable"):
        if left <= 0:
            break
        if take[c] < counts[c]:
            take[c] += 1
            left -= 1
    rows = [rng.permutation(np.flatnonzero(inv == c))[:take[c]] for c in range(counts.size)]
    return np.sort(np.concatenate(rows))


def check_dask_fit_weights(y: np.ndarray, sample_weight: Any = None, class_weight: Any = None) -> np.ndarray | None:
    """:func:`check_fit_weights` for a Dask ``X``, whose rows are not left out: the weights (None when all 1),
    a ValueError when any is 0 (also when the others are all 1, where ``check_fit_weights`` returns None)."""
    _, _, w, kept = check_fit_weights(np.zeros((y.shape[0], 0)), y, sample_weight, class_weight, return_kept=True)
    if kept is not None:
        raise ValueError("sample_weight (times class_weight) has zeros: with a Dask X every weight must be > 0 "
                         "(drop those rows from the array)")
    return w


def column_stds(s2: np.ndarray, n: int, weights: np.ndarray | None = None) -> np.ndarray:
    """Column standard deviations from the sums of squared deviations ``s2`` of ``n`` rows: ddof=1 (over n - 1, at
    least 1) without weights, over :func:`weighted_variance_denominator` with them."""
    return np.sqrt(s2 / (max(n - 1, 1) if weights is None else weighted_variance_denominator(weights)))


def weighted_variance_denominator(w: np.ndarray) -> float:
    """The denominator of a weighted variance ``sum_i w_i (x_i - mean)^2`` of positive weights ``w``:
    ``W - min(1, sum_i w_i^2 / W)`` with ``W = sum_i w_i``. It is ``W - 1`` whenever every weight is >= 1 (then
    ``sum w^2 / W >= 1``), so integer weights give the ddof=1 variance of the rows repeated; for smaller weights it
    is the unbiased form of reliability weights (``W - sum w^2 / W``: weights summing to 1 are not one row), and it
    stays positive (1 for a single row)."""
    return weighted_variance_denominator_of_sums(float(w.sum()), float(w @ w))


def weighted_variance_denominator_of_sums(W: float, sum_w2: float) -> float:
    """:func:`weighted_variance_denominator` from ``W = sum_i w_i`` and ``sum_w2 = sum_i w_i^2`` (for statistics
    accumulated over chunks of rows)."""
    denom = W - min(1.0, sum_w2 / W)
    return denom if denom > 0.0 else 1.0
