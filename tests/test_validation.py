"""The one parameter-validation layer (svmopt._validation): every estimator declares every parameter, validates it
before any work through scikit-learn's mechanism, and takes its parameters by keyword only."""

from __future__ import annotations

import inspect
from typing import ClassVar

import numpy as np
import pytest
from sklearn.utils._param_validation import InvalidParameterError
from sklearn.utils.estimator_checks import check_param_validation

import svmopt
from svmopt import _validation
from svmopt._validation import POSITIVE_INT, Interval, Real, fit_context, validate_parameter_constraints

ESTIMATORS = [svmopt.RobustSVC, svmopt.RampLossSVC, svmopt.L1SVC, svmopt.FeatureBudgetSVC, svmopt.FixedSizeLSSVC,
              svmopt.FixedSizeLSSVR, svmopt.EllipsoidPSOClassifier]


@pytest.mark.parametrize("cls", ESTIMATORS, ids=lambda c: c.__name__)
def test_every_parameter_is_declared(cls):
    params = set(cls().get_params(deep=False))
    assert set(cls._parameter_constraints) == params


@pytest.mark.parametrize("cls", ESTIMATORS, ids=lambda c: c.__name__)
def test_scikit_learn_param_validation_check(cls):
    """scikit-learn's own check: each wrong type or value raises InvalidParameterError naming the parameter."""
    check_param_validation(cls.__name__, cls())


@pytest.mark.parametrize("cls", ESTIMATORS, ids=lambda c: c.__name__)
def test_init_is_keyword_only(cls):
    sig = inspect.signature(cls.__init__)
    kinds = {p.kind for name, p in sig.parameters.items() if name != "self"}
    assert kinds == {inspect.Parameter.KEYWORD_ONLY}
    first = next(iter(cls().get_params(deep=False).values()))
    with pytest.raises(TypeError, match="positional"):
        cls(first)


@pytest.mark.parametrize("cls", ESTIMATORS, ids=lambda c: c.__name__)
def test_validation_happens_before_any_work(cls):
    """A bad parameter is reported before the data are even looked at (X = None would fail otherwise)."""
    name = next(iter(cls._parameter_constraints))
    est = cls().set_params(**{name: object()})
    with pytest.raises(InvalidParameterError, match=f"The '{name}' parameter of {cls.__name__} must be"):
        est.fit(None, None)
    assert not hasattr(est, "n_features_in_")


def test_bools_are_not_numbers():
    with pytest.raises(InvalidParameterError, match="Got True"):
        validate_parameter_constraints({"n": [POSITIVE_INT]}, {"n": True}, caller_name="f")
    with pytest.raises(InvalidParameterError, match="Got False"):
        validate_parameter_constraints({"x": [Interval(Real, 0, None, closed="left")]}, {"x": False}, caller_name="f")
    validate_parameter_constraints({"n": [POSITIVE_INT]}, {"n": np.int64(3)}, caller_name="f")


def test_message_names_parameter_range_and_value():
    est = svmopt.L1SVC(C=-1.0)
    with pytest.raises(ValueError, match=r"^The 'C' parameter of L1SVC must be a float in the range "
                                         r"\(0\.0, inf\)\. Got -1\.0 instead\.$"):
        est.fit(np.zeros((4, 2)), [0, 1, 0, 1])


def test_an_undeclared_parameter_is_a_programming_error():
    class Half(svmopt.L1SVC):
        _parameter_constraints: ClassVar[dict] = {"C": [_validation.POSITIVE], "solver": [str], "tol": [float],
                                                  "max_iter": [int], "class_weight": [None], "max_time": [None]}

        @fit_context
        def fit(self, X, y):
            return self

    with pytest.raises(AssertionError, match=r"declares no constraint for \['solver_options'\]"):
        Half().fit(None, None)


def test_functions_validate_through_the_same_layer():
    from svmopt.ellipsoid import pso_closest_points
    from svmopt.feature_selection import make_fisher_svm

    with pytest.raises(InvalidParameterError, match="'budget' parameter of make_fisher_svm"):
        make_fisher_svm(0)
    with pytest.raises(InvalidParameterError, match="'s_init' parameter of pso_closest_points"):
        pso_closest_points(np.zeros(2), np.eye(2), np.ones(2) * 5, np.eye(2), s_init=1.5)


def test_one_version_string():
    """svmopt.__version__ is pyproject.toml's version (read from the installed metadata, never typed twice)."""
    import re
    from pathlib import Path

    text = (Path(__file__).resolve().parents[1] / "pyproject.toml").read_text()
    assert svmopt.__version__ == re.search(r'^version = "([^"]+)"', text, re.M).group(1)


@pytest.mark.parametrize("n_jobs", [0, -2, True])
def test_n_jobs_is_a_thread_count_or_all(n_jobs):
    with pytest.raises(InvalidParameterError, match="'n_jobs' parameter"):
        svmopt.FixedSizeLSSVR(n_jobs=n_jobs).fit(np.zeros((10, 2)), np.zeros(10))
