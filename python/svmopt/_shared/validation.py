"""The one parameter-validation layer of svmopt's estimators: scikit-learn's, declared per class.

Every estimator declares ``_parameter_constraints`` (parameter name -> list of accepted constraints: an
:class:`Interval`, a :class:`StrOptions`, a type, ``None``, or one of scikit-learn's named constraints such as
``"random_state"``, ``"boolean"`` or ``"array-like"``) exactly as scikit-learn's own estimators do
(``sklearn/svm/_classes.py``). :func:`fit_context` decorates every ``fit``: it validates the parameters against
the declaration before any work starts -- an :class:`~sklearn.utils._param_validation.InvalidParameterError`
(a ``ValueError`` and a ``TypeError``) naming the parameter, the allowed values or range, and the value given --
and makes the fit atomic (:func:`svmopt._shared.config.atomic_fit`).

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
from sklearn.utils._param_validation import Options as Options  # re-exported: the declarations' vocabulary
from sklearn.utils._param_validation import StrOptions, validate_parameter_constraints

from svmopt._shared.config import atomic_fit

#: The ``class_weight`` declaration every classifier shares: None, "balanced" or a dict {label: weight >= 0}.
CLASS_WEIGHT = [StrOptions({"balanced"}), dict, None]


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


def shown(value: Any) -> str:
    """``repr(value)`` as a user wrote it: numpy scalars and arrays as the Python numbers and lists they hold
    (``0.1``, ``'M'``, ``[1, 2]``, not ``np.float64(0.1)``), inside tuples, lists and sets too. For messages."""
    def plain(v: Any) -> Any:
        if isinstance(v, np.generic):
            return v.item()
        if isinstance(v, np.ndarray):
            return v.tolist()
        if isinstance(v, (list, tuple, set, frozenset)):
            return type(v)(plain(x) for x in v)
        return v

    return repr(plain(value))


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


def check_dask_fit_weights(y: np.ndarray, sample_weight: Any = None, class_weight: Any = None) -> np.ndarray | None:
    """:func:`check_fit_weights` for a Dask ``X``, whose rows are not left out: the weights (None when all 1),
    a ValueError when any is 0 (also when the others are all 1, where ``check_fit_weights`` returns None)."""
    _, _, w, kept = check_fit_weights(np.zeros((y.shape[0], 0)), y, sample_weight, class_weight, return_kept=True)
    if kept is not None:
        raise ValueError("sample_weight (times class_weight) has zeros: with a Dask X every weight must be > 0 "
                         "(drop those rows from the array)")
    return w


