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
    """Decorator for every estimator's ``fit``: parameters validated first, ``X`` and ``y`` checked for what
    scikit-learn's conversion would not name (:func:`check_input`), then the fit runs atomically."""
    atomic = atomic_fit(fit)

    @functools.wraps(fit)
    def wrapper(self: Any, *args: Any, **kwargs: Any) -> Any:
        validate_params(self)
        for name, value in zip(("X", "y"), args, strict=False):
            check_input(value, name)
        for name in ("X", "y"):
            if name in kwargs:
                check_input(kwargs[name], name)
        return atomic(self, *args, **kwargs)

    return cast(_F, wrapper)  # the same signature as fit


def is_finite_real(value: Any) -> TypeGuard[Real]:
    """A real number (not a bool) that is finite."""
    return isinstance(value, Real) and not isinstance(value, bool) and math.isfinite(value)


#: The largest ratio of two positive sample weights: 2^52, the reciprocal of float64's relative resolution. A row
#: lighter than 2^-52 times the heaviest row adds less than the rounding error of that row's own term to every sum
#: over rows a fit forms (a hinge or squared-error sum, a weighted count, mean or covariance): it counts for
#: nothing, as if its weight were 0. Weights over a wider range are refused rather than silently flattened.
MAX_WEIGHT_RATIO = 2.0**52


def real_array(value: Any, name: str) -> np.ndarray:
    """``value`` as a float64 array, refusing by ``name`` what a float conversion would accept silently: complex
    values (numpy drops the imaginary part), text (numpy parses ``"2"``), dates and durations."""
    arr = value if isinstance(value, np.ndarray) else np.asarray(value)
    kind = arr.dtype.kind
    if kind == "O" and arr.size:
        flat = arr.ravel()
        if any(isinstance(v, (complex, np.complexfloating)) for v in flat):
            kind = "c"
        elif any(isinstance(v, (str, bytes)) for v in flat):
            kind = "U"
    if kind == "c":
        raise ValueError(f"{name} must be real numbers, got complex values (dtype {arr.dtype}), whose imaginary "
                         "part a conversion to float would drop")
    if kind in "USMmV":
        raise ValueError(f"{name} must be an array of numbers, got dtype {arr.dtype}")
    try:
        return np.asarray(arr, dtype=np.float64)
    except (TypeError, ValueError) as exc:
        raise ValueError(f"{name} must be an array of numbers, got {type(value).__name__}") from exc


def check_weight_range(w: np.ndarray, name: str = "sample_weight") -> None:
    """The rule every model applies to its weights (finite, >= 0, checked before): the positive ones span at most
    :data:`MAX_WEIGHT_RATIO` (largest over smallest), and their sum is finite. A ValueError naming ``name``
    otherwise. The weights are used as given: no model rescales them (for the C-parametrized models, RobustSVC's
    ``nu``, the ramp models' ``C`` and the fixed-size models' ``gamma``, a common factor of the weights is the same
    factor on that parameter; EllipsoidPSOClassifier's frequency weights enter counts as well as ratios)."""
    pos = w[w > 0]
    if not pos.size:
        return
    lo, hi = float(pos.min()), float(pos.max())
    with np.errstate(over="ignore"):
        ratio = hi / lo
        total = float(pos.sum())
    if not ratio <= MAX_WEIGHT_RATIO:
        raise ValueError(
            f"{name} spans a ratio of {ratio:.3g} between its largest ({hi:.6g}) and smallest positive ({lo:.6g}) "
            f"weight; at most 2^52 = {MAX_WEIGHT_RATIO:.3g} is taken, beyond which the lighter rows count for "
            "nothing in float64 (next to the heavier ones). Give the rows that should not count the weight 0 (they "
            "are left out), or compress the weights' range")
    if not np.isfinite(total):
        raise ValueError(f"{name} sums to more than float64 holds (1.8e308; largest weight {hi:.6g}): divide the "
                         "weights by a common factor")


def check_input(value: Any, name: str) -> None:
    """``X`` or ``y`` of a fit, before scikit-learn converts it: a ValueError naming it for complex values
    (scikit-learn's message prints the whole array without saying which), and for a DataFrame the first column whose
    dtype is not numeric (a date, a duration, text), named with its dtype (numpy's DTypePromotionError names
    neither)."""
    dtype = getattr(value, "dtype", None)
    if isinstance(dtype, np.dtype) and dtype.kind == "c":
        # scikit-learn's own words first (its estimator checks match them), then which argument it is
        raise ValueError(f"Complex data not supported: {name} is complex (dtype {dtype}); pass real numbers")
    columns, dtypes = getattr(value, "columns", None), getattr(value, "dtypes", None)
    if columns is None or dtypes is None or not hasattr(value, "__getitem__"):
        return
    try:
        pairs = list(zip(columns, dtypes, strict=True))
    except TypeError:
        return
    for col, dt in pairs:
        kind = getattr(dt, "kind", None)
        if kind is None or kind in "biuf":  # numbers, booleans; a dtype without a numpy kind is left to sklearn
            continue
        why = {"M": "dates and times are not numbers", "m": "durations are not numbers",
               "c": "complex data is not supported", "U": "text is not a number", "S": "text is not a number",
               "V": "raw bytes are not numbers"}.get(kind)
        if why is None:  # object or an extension dtype (categorical, string, period, interval): numbers or not
            try:
                np.asarray(value[col], dtype=np.float64)
                continue
            except (TypeError, ValueError):
                why = "its values are not numbers"
        raise ValueError(f"{name} column {col!r} has dtype {dt}: {why}. Convert it to numbers (e.g. a date to "
                         "its timestamp or to calendar features) or drop it before fitting")


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

    * ``sample_weight``: None or a 1-d array-like of ``n_samples`` finite, non-negative real numbers, not all
      zero, whose positive values (times ``class_weight``) span at most :data:`MAX_WEIGHT_RATIO` = 2^52 and sum
      to a finite number (:func:`check_weight_range`); anything else -- complex values, text, a wider range -- is
      a ``ValueError`` naming ``sample_weight`` before any work starts. The weights are used as given, never
      rescaled.
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
        w = real_array(sample_weight, "sample_weight")
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
            # W / (k W_c) is the same for the weights over any common factor: counted on base / 2^e, 2^e the
            # power of two at or above the largest weight (an exact division), whose sums cannot overflow
            _, e = np.frexp(base.max() if base.size else 1.0)
            unit = np.ldexp(1.0, int(e)) if base.size and base.max() > 1.0 else 1.0
            counts = np.bincount(inverse, weights=base / unit, minlength=labels.size)
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
        with np.errstate(over="ignore"):
            w = base * factor[inverse]
        if not np.all(np.isfinite(w)):
            raise ValueError("sample_weight times class_weight overflows float64 (|w| > 1.8e308) for "
                             f"{np.count_nonzero(~np.isfinite(w))} rows: divide the weights by a common factor")
    if w is not None:
        check_weight_range(w, "sample_weight" if class_weight is None else "sample_weight (times class_weight)")
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


