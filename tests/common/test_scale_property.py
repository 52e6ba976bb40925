"""Every estimator over scaled copies of one data set: X * 10^k for k in [-300, 300] (where X * 10^k is finite and
not all zero) predicts as X does, or warns or raises naming the magnitude of X and the remedy.

Which invariance holds by construction (each claim is stated in the estimator's docstring and checked below):

* ``RobustSVC`` with the RBF kernel and a data-driven width (``alpha="auto"``, ``"scale"``, ``"paper"``; robust
  bounds by ``rho``): the width scales with X, so the kernel values, the LP and the threshold are those of X; beyond
  ``svmopt.robust.data.SAFE_MAGNITUDE`` the kernel is evaluated on X over a power of two (exact). The paper's model,
  the reduced one over landmarks (entropy), the robust one (p=2, rho) and one-vs-rest are checked for equal
  predictions at every scale. The linear and polynomial kernels are not invariant (their values scale with X): at
  |k| >= 20 a fit there must warn (the model is one class) or raise, naming X's magnitude (it once blamed nu).
* ``FixedSizeLSSVC`` / ``FixedSizeLSSVR`` with ``standardize=True`` (the default): the inputs are standardized by
  their column deviations, measured in a power-of-two unit (exact at every finite scale), so the prototypes, the
  tuning and the model are those of X; ``fit`` (tuned) and ``partial_fit`` are checked, and the regressor's
  predictions to 1e-8 (they are in y's units, which do not change).
* ``EllipsoidPSOClassifier`` with a projection (the default ``"pair"``, and ``"dataset"``): the whitening of Section
  4.3.5 removes the scale, so the working space, the swarms and the model are those of X (fitted over a power of two
  beyond ``SAFE_MAGNITUDE``), and the one-vs-one margins are relative (they vanished next to the votes at 1e-20);
  ``projection="none"`` with ``solver="exact"`` too (the ellipsoids scale with X; the swarms' craziness radius does
  not, so ``"none"`` with ``"pso"`` is not claimed).
* ``L1SVC``, ``FeatureBudgetSVC``, ``RampLossSVC``: linear models with a fixed C and margin 1, not invariant by
  construction (on ``X * s`` the problem is X's with C replaced by ``C / s``, so the predictions legitimately change
  near scale 1): at every scale the fit is a model with ``w != 0``, or ``w = 0`` with the UserWarning naming X's
  magnitude, or a ValueError naming it before any work -- never a silent ``w = 0`` nor a SolverError.

Each example is one small fit (80 rows, 4 features, make_classification with a fixed seed); hypothesis is bounded
(``derandomize=True``, no database), so the examples are the same on every run.
"""

from __future__ import annotations

import functools
import re
import warnings
from collections.abc import Callable
from typing import Any

import numpy as np
import pytest
from hypothesis import example, given, settings
from hypothesis import strategies as st
from sklearn.datasets import make_classification

import svmopt

BOUNDED = settings(max_examples=20, deadline=None, derandomize=True, database=None)
#: Scales tried besides hypothesis's: the ends, where squares underflow (1e-162) or overflow (1e154), and near 1.
EXAMPLES = (-300, -162, -155, -20, -1, 1, 20, 155, 300)


def at_examples(test):
    for k in EXAMPLES:
        test = example(k=k)(test)
    return test


@functools.cache
def _data(kind: str) -> tuple[np.ndarray, np.ndarray]:
    if kind == "three":
        X, y = make_classification(n_samples=90, n_features=4, n_informative=3, n_redundant=0, n_classes=3,
                                   n_clusters_per_class=1, random_state=0)
        return X, y
    X, y = make_classification(n_samples=80, n_features=4, n_informative=3, n_redundant=0, random_state=0)
    if kind == "regression":
        return X, X[:, 0] + np.sin(X[:, 1]) + 0.5 * X[:, 2] * X[:, 3]
    return X, y


def _scaled(X: np.ndarray, k: int) -> np.ndarray | None:
    """X * 10^k, or None where it is not finite or is all zero."""
    with np.errstate(over="ignore", under="ignore"):
        Xk = X * 10.0**k
    return Xk if np.all(np.isfinite(Xk)) and np.any(Xk != 0) else None


def names_scale(message: str) -> bool:
    """A message that names the magnitude of X and the remedy."""
    return bool(re.search(r"\bX\b", message) and "magnitude" in message
                and re.search(r"rescale|StandardScaler", message))


def _partial(est: Any, X: np.ndarray, y: np.ndarray) -> Any:
    extra = {"classes": np.unique(y)} if isinstance(est, svmopt.FixedSizeLSSVC) else {}
    for i, rows in enumerate(np.array_split(np.arange(y.size), 4)):
        est.partial_fit(X[rows], y[rows], **(extra if i == 0 else {}))
    return est


#: name -> (estimator factory, data, fit or None, scale-invariant by construction)
CASES: dict[str, tuple[Callable[[], Any], str, Callable | None, bool]] = {
    "robust_default": (lambda: svmopt.RobustSVC(random_state=0), "binary", None, True),
    "robust_paper_width": (lambda: svmopt.RobustSVC(alpha="paper", nu="grid", selection="training_error",
                                                    n_landmarks=None), "binary", None, True),
    "robust_reduced": (lambda: svmopt.RobustSVC(n_landmarks=15, landmarks="entropy", nu=1.0, alpha="scale",
                                                random_state=0), "binary", None, True),
    "robust_rho": (lambda: svmopt.RobustSVC(p=2, rho=0.05, nu=[0.1, 1.0], random_state=0), "binary", None, True),
    "robust_ovr": (lambda: svmopt.RobustSVC(alpha="scale", nu=1.0, selection="training_error"), "three", None,
                   True),
    "fixed_size_classifier": (lambda: svmopt.FixedSizeLSSVC(n_prototypes=20, random_state=0), "three", None, True),
    "fixed_size_stream": (lambda: svmopt.FixedSizeLSSVC(n_prototypes=20, gamma=10.0, sigma2=2.0, random_state=0),
                          "binary", _partial, True),
    "fixed_size_linear": (lambda: svmopt.FixedSizeLSSVC(kernel="linear", gamma=1.0), "binary", None, True),
    # tuned: the search ends within its tolerance of the same point (see TUNED)
    "fixed_size_regressor": (lambda: svmopt.FixedSizeLSSVR(n_prototypes=20, random_state=0), "regression", None,
                             True),
    "fixed_size_regressor_stream": (lambda: svmopt.FixedSizeLSSVR(n_prototypes=20, gamma=10.0, sigma2=2.0,
                                                                  random_state=0), "regression", _partial, True),
    "ellipsoid_default": (lambda: svmopt.EllipsoidPSOClassifier(random_state=0), "three", None, True),
    "ellipsoid_dataset": (lambda: svmopt.EllipsoidPSOClassifier(projection="dataset", n_particles=6, max_iter=50,
                                                                random_state=0), "three", None, True),
    "ellipsoid_exact_no_projection": (lambda: svmopt.EllipsoidPSOClassifier(solver="exact", projection="none",
                                                                            ratio=1.0, shrinkage=0.0),
                                      "binary", None, True),
    "l1svc": (lambda: svmopt.L1SVC(), "binary", None, False),
    "feature_budget": (lambda: svmopt.FeatureBudgetSVC(budget=2, random_state=0), "binary", None, False),
    "ramp_loss": (lambda: svmopt.RampLossSVC(budget=2, method="cccp", random_state=0), "binary", None, False),
}



def _check_not_invariant(name: str, k: int) -> None:
    """A model that is not scale invariant (C fixed) at X * 10^k: ``w != 0``, or ``w = 0`` warned naming X's
    magnitude, or a ValueError naming it; a SolverError fails the test (it is not caught)."""
    factory, kind, _, _ = CASES[name]
    X, y = _data(kind)
    Xk = X if k == 0 else _scaled(X, k)
    if Xk is None:
        return
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        try:
            est = factory().fit(Xk, y)
        except ValueError as exc:
            assert names_scale(str(exc)), f"{name} at X * 1e{k}: {exc}"
            return
    if est.n_selected_features_ == 0:
        messages = [str(w.message) for w in caught]
        assert any(names_scale(m) for m in messages), f"{name} at X * 1e{k}: a silent w = 0 ({messages})"


def _fit_predict(name: str, k: int) -> tuple[np.ndarray | None, list[str]]:
    """The predictions on X * 10^k of the case fitted there (None: it raised) and the warnings' (or the error's)
    messages."""
    factory, kind, fit, _ = CASES[name]
    X, y = _data(kind)
    Xk = X if k == 0 else _scaled(X, k)
    assert Xk is not None
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        try:
            est = (fit or (lambda e, A, b: e.fit(A, b)))(factory(), Xk, y)
            pred = np.asarray(est.predict(Xk))
        except (ValueError, ArithmeticError, svmopt.SolverError) as exc:
            return None, [f"{type(exc).__name__}: {exc}"]
    return pred, [str(w.message) for w in caught]


@functools.cache
def _reference(name: str) -> np.ndarray:
    pred, messages = _fit_predict(name, 0)
    assert pred is not None, messages
    return pred


#: Regressors whose hyperparameters are tuned: X * 10^k standardizes to X's standardized values to the last bit
#: only (exactly for powers of two), and the search (coupled simulated annealing, then the simplex) stops within its
#: tolerance of the same point from there: gamma moved by 1e-4 relative, the predictions by 1e-5 of their range.
TUNED = {"fixed_size_regressor": 1e-4}


def _same(name: str, pred: np.ndarray) -> bool:
    ref = _reference(name)
    if CASES[name][1] == "regression":  # predictions in y's units, which are not scaled
        tol = TUNED.get(name, 1e-8)
        return bool(np.allclose(pred, ref, rtol=tol, atol=tol * np.abs(ref).max()))
    return bool(np.array_equal(pred, ref))


def _check(name: str, k: int, invariant: bool) -> None:
    X, _ = _data(CASES[name][1])
    if _scaled(X, k) is None:
        return
    pred, messages = _fit_predict(name, k)
    if invariant:
        assert pred is not None, f"{name} at X * 1e{k}: {messages}"
        assert _same(name, pred), (f"{name} at X * 1e{k}: {int(np.sum(pred != _reference(name)))} of {pred.size} "
                                   f"predictions differ from X's ({messages})")
        return
    if pred is not None and _same(name, pred):
        return
    assert any(names_scale(m) for m in messages), f"{name} at X * 1e{k}: other predictions, and {messages}"


@pytest.mark.parametrize("name", [n for n, case in CASES.items() if case[3]])
@BOUNDED
@at_examples
@given(k=st.integers(-300, 300))
def test_a_scale_invariant_model_predicts_the_same_at_every_scale(name, k):
    _check(name, k, invariant=True)


@pytest.mark.parametrize("name", [n for n, case in CASES.items() if not case[3]])
@BOUNDED
@at_examples
@example(k=-1)
@example(k=2)
@example(k=8)
@given(k=st.integers(-300, 300))
def test_a_scale_dependent_model_fits_a_model_or_names_the_scale(name, k):
    _check_not_invariant(name, k)


@pytest.mark.parametrize("kernel", ["linear", "inhom_poly"])
@settings(max_examples=12, deadline=None, derandomize=True, database=None)
@given(k=st.one_of(st.integers(-300, -20), st.integers(20, 300)))
def test_robust_kernels_that_scale_with_x_name_its_magnitude_at_extreme_scales(kernel, k):
    """The linear and polynomial kernels' values scale with X: far from scale 1 the fit is one class (u = 0) or the
    LP is too badly scaled; the warning or the error names X's magnitude and the remedy (at 1e-300 it blamed nu)."""
    X, y = _data("binary")
    Xk = _scaled(X, k)
    if Xk is None:
        return
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        try:
            svmopt.RobustSVC(kernel=kernel, degree=2, nu=1.0, selection="training_error").fit(Xk, y)
            messages = [str(w.message) for w in caught]
        except ValueError as exc:
            messages = [str(exc)]
    assert any(names_scale(m) for m in messages), messages
    assert not any("raise nu (or widen" in m for m in messages)


def test_the_estimators_docstrings_state_their_scale_invariance():
    """The claims the suite checks are in the docstrings."""
    assert "does not depend on the scale of X" in svmopt.RobustSVC.__doc__
    assert "does not depend on the scale of X" in svmopt.EllipsoidPSOClassifier.__doc__
    for Est in (svmopt.FixedSizeLSSVC, svmopt.FixedSizeLSSVR):
        assert "scale of X" in Est.__doc__
