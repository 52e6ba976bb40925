"""The one parameter-validation layer (svmopt._shared.validation): every estimator declares every parameter,
validates it before any work through scikit-learn's mechanism, and takes its parameters by keyword only."""

from __future__ import annotations

import inspect
from typing import ClassVar

import numpy as np
import pytest
from sklearn.utils._param_validation import InvalidParameterError
from sklearn.utils.estimator_checks import check_param_validation

import svmopt
from svmopt._shared import validation as _validation
from svmopt._shared.validation import POSITIVE_INT, Interval, Real, fit_context, validate_parameter_constraints

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
                                                  "max_iter": [int], "class_weight": [None], "max_time": [None],
                                                  "probability": ["boolean"], "random_state": [None],
                                                  "verbose": [None]}

        @fit_context
        def fit(self, X, y):
            return self

    with pytest.raises(AssertionError, match=r"declares no constraint for \['solver_options'\]"):
        Half().fit(None, None)


def test_functions_validate_through_the_same_layer():
    from svmopt.ellipsoid.swarms import pso_closest_points
    from svmopt.ramp.feature_selection import make_fisher_svm

    with pytest.raises(InvalidParameterError, match="'budget' parameter of make_fisher_svm"):
        make_fisher_svm(0)
    with pytest.raises(InvalidParameterError, match="'s_init' parameter of pso_closest_points"):
        pso_closest_points(np.zeros(2), np.eye(2), np.ones(2) * 5, np.eye(2), s_init=1.5)


def test_one_version_string():
    """svmopt.__version__ is pyproject.toml's version (read from the installed metadata, never typed twice)."""
    import re
    from pathlib import Path

    text = (Path(__file__).resolve().parents[2] / "pyproject.toml").read_text()
    assert svmopt.__version__ == re.search(r'^version = "([^"]+)"', text, re.M).group(1)


@pytest.mark.parametrize("n_jobs", [0, -2, True])
def test_n_jobs_is_a_thread_count_or_all(n_jobs):
    with pytest.raises(InvalidParameterError, match="'n_jobs' parameter"):
        svmopt.FixedSizeLSSVR(n_jobs=n_jobs).fit(np.zeros((10, 2)), np.zeros(10))


# ------------------------------------------------------------------------------------------ fit weights
def test_check_fit_weights_returns_the_kept_rows():
    """``return_kept=True``: the original indices of the rows left (None when every row is), the same rows as the
    X, y and w it returns."""
    X = np.arange(8.0)[:, None]
    y = np.array([0, 1, 2, 0, 1, 2, 0, 1])
    check = _validation.check_fit_weights
    Xk, yk, wk, kept = check(X, y, np.array([1.0, 2, 0, 0, 3, 1, 0, 1]), return_kept=True)
    np.testing.assert_array_equal(kept, [0, 1, 4, 5, 7])  # zero weights in the middle
    np.testing.assert_array_equal(Xk[:, 0], kept)
    np.testing.assert_array_equal(yk, y[kept])
    np.testing.assert_array_equal(wk, [1.0, 2, 3, 1, 1])
    Xk, yk, wk, kept = check(X, y, None, {2: 0.0}, return_kept=True)  # class 2 weighted 0
    np.testing.assert_array_equal(kept, np.flatnonzero(y != 2))
    np.testing.assert_array_equal(Xk[:, 0], kept)
    assert wk is None  # the weights left are all 1
    Xk, yk, wk, kept = check(X, y, np.array([1.0, 0, 1, 1, 1, 1, 1, 1]), {0: 2.0, 2: 0.0}, return_kept=True)
    np.testing.assert_array_equal(kept, [0, 3, 4, 6, 7])  # both: a zero sample weight and a zero class weight
    np.testing.assert_array_equal(wk, [2.0, 2, 1, 2, 1])
    for sw, cw in [(None, None), (np.full(8, 2.0), None), (None, "balanced"), (None, {0: 1.0})]:
        out = check(X, y, sw, cw, return_kept=True)
        assert len(out) == 4 and out[3] is None  # no weights, or no weight of 0: every row kept
        assert out[0] is X or np.array_equal(out[0], X)
    assert len(check(X, y, np.ones(8))) == 3  # the default: (X, y, w) as before


_HALVES = [(np.arange(20), np.arange(20, 40)), (np.arange(20, 40), np.arange(20))]


@pytest.mark.parametrize("make", [lambda: svmopt.RobustSVC(nu=[0.5, 1.0], alpha=1.0, cv=_HALVES),
                                  lambda: svmopt.L1SVC(),
                                  lambda: svmopt.RampLossSVC(C="auto", cv=_HALVES, random_state=0)],
                         ids=["RobustSVC", "L1SVC", "RampLossSVC"])
def test_a_weighted_fit_validates_its_weights_once(make, monkeypatch):
    """A weighted fit (zero weights included, and a cv of index pairs that needs the kept rows) runs the weight
    validation once on the rows given (RampLossSVC's C selection fits clones on the folds, each validating its own
    fold's rows)."""
    from sklearn.datasets import make_classification

    import svmopt.ramp.estimators
    import svmopt.robust.data

    X, y = make_classification(40, 4, n_informative=3, n_redundant=0, random_state=0)
    sw = np.ones(40)
    sw[[3, 17, 25]] = 0.0
    sw[5] = 2.0
    calls = []
    real = _validation.check_fit_weights

    def counted(X_, y_, *args, **kwargs):
        calls.append(y_.shape[0])
        return real(X_, y_, *args, **kwargs)

    for module in (_validation, svmopt.robust.data, svmopt.ramp.estimators):
        monkeypatch.setattr(module, "check_fit_weights", counted)
    make().fit(X, y, sample_weight=sw)
    assert calls.count(40) == 1
