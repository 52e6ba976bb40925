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
from typing import Any, TypeGuard, TypeVar, cast

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
    "fit_context",
    "is_finite_real",
    "validate_parameter_constraints",
    "validate_params",
]


class Interval(_SklearnInterval):
    """scikit-learn's ``Interval``, except that a bool is not a number here (``True`` for a count or a weight is
    a mistake, not a 1)."""

    def is_satisfied_by(self, val: Any) -> bool:
        return not isinstance(val, (bool, np.bool_)) and super().is_satisfied_by(val)


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
