"""Solver and resource failures through the public estimators.

``tests/common/test_highs.py`` already provokes infeasibility, unboundedness, an iteration limit without incumbent and a
MILP limit with incumbent on hand-made models. This file adds what it lacks: HiGHS time limits, numerical trouble
and the statuses HiGHS reports without a solution, each seen through the estimators that users call
(``svmopt.SolverError`` carrying the status, or a ``ConvergenceWarning`` with a usable incumbent -- L1SVC's LP has
one at any limit), data too large
for HiGHS, and the memory guard of the dense Gram matrix.
"""

from __future__ import annotations

import warnings

import highspy
import numpy as np
import pytest
import scipy.sparse as sp
from sklearn.exceptions import ConvergenceWarning, NotFittedError
from sklearn.utils.validation import check_is_fitted

import svmopt
from svmopt._shared.highs import HighsModel

_MS = highspy.HighsModelStatus


def _blobs(n=60, d=4, seed=0):
    rng = np.random.default_rng(seed)
    X = rng.standard_normal((n, d))
    y = np.arange(n) % 2
    X[y == 1] += 1.0  # overlapping classes: the LPs/MILPs have real work to do
    return X, y


# ----------------------------------------------------------------------------------------------- time limits
@pytest.mark.parametrize("make", [
    lambda: svmopt.RobustSVC(kernel="rbf", solver_options={"time_limit": 0.0}),
    lambda: svmopt.RobustSVC(kernel="linear", p=2, rho=0.1, solver_options={"time_limit": 0.0}),
], ids=["RobustSVC", "RobustSVC-robust"])
def test_lp_time_limit_without_incumbent_raises_solver_error(make):
    """An LP stopped by the time limit before any feasible point: SolverError with HiGHS's status, and the
    estimator stays unfitted (fit is atomic)."""
    X, y = _blobs()
    est = make()
    with pytest.raises(svmopt.SolverError) as info:
        est.fit(X, y)
    assert info.value.status == "Time limit reached"
    assert "Time limit reached" in str(info.value)
    with pytest.raises(NotFittedError):
        check_is_fitted(est)


def test_l1svc_lp_time_limit_without_progress_returns_a_usable_model():
    """L1SVC's LP has a usable point at any limit (every (w, b) is feasible with xi the hinge): stopped before its
    first iteration, HiGHS's starting point w = 0, certified by the scaled row duals, with a ConvergenceWarning
    (tests/ramp/test_weights.py checks the bounds against the optimum)."""
    X, y = _blobs()
    with pytest.warns(ConvergenceWarning, match="L1SVC: the LP .HiGHS: Time limit reached; certified relative gap"):
        est = svmopt.L1SVC(solver_options={"time_limit": 0.0}).fit(X, y)
    assert est.status_ == "limit" and est.max_time_reached_ is False
    assert not est.coef_.any() and 0.0 <= est.lower_bound_ <= est.objective_


def test_lp_iteration_limit_through_estimator():
    X, y = _blobs()
    est = svmopt.RobustSVC(kernel="rbf", solver_options={"simplex_iteration_limit": 1})
    with pytest.raises(svmopt.SolverError) as info:
        est.fit(X, y)
    assert info.value.status == "Iteration limit reached"


def test_time_limit_failure_keeps_a_previous_fit():
    X, y = _blobs()
    est = svmopt.RobustSVC(kernel="rbf").fit(X, y)
    before = est.decision_function(X)
    est.set_params(solver_options={"time_limit": 0.0})
    with pytest.raises(svmopt.SolverError):
        est.fit(X[:40], y[:40])
    np.testing.assert_array_equal(est.decision_function(X), before)


def test_milp_time_limit_with_incumbent_warns_and_is_usable():
    """The exact ramp-loss MILP stopped by its time limit: a ConvergenceWarning, status_ says so, and the incumbent
    (from Algorithm 1's start) predicts finitely."""
    X, y = _blobs(n=80, d=6)
    est = svmopt.RampLossSVC(method="exact", budget=3, max_time=0.05, random_state=0)
    with pytest.warns(ConvergenceWarning, match="max_time=0.05 s reached .*cut short: the MILP"):
        est.fit(X, y)
    assert est.status_ == "time_limit"
    dec = est.decision_function(X)
    assert np.all(np.isfinite(dec))
    assert np.mean(est.predict(X) == y) > 0.5
    assert est.n_selected_features_ <= 3


def test_highs_time_limit_on_milp_with_start_warns_with_incumbent():
    """HighsModel level, time limit (tests/common/test_highs.py covers the solution limit): the MIP start is the
    incumbent."""
    rng = np.random.default_rng(1)
    n = 60
    w = rng.integers(5, 40, n).astype(float)
    v = w + rng.integers(0, 25, n)
    m = HighsModel(a_start=np.arange(n + 1), a_index=np.zeros(n, dtype=int), a_value=w, col_cost=-v, n_rows=1,
                   row_upper=[w.sum() / 3], col_upper=1.0, integrality=np.ones(n), time_limit=0.0)
    m.set_start(np.zeros(n))
    with pytest.warns(ConvergenceWarning, match="Time limit reached"):
        r = m.solve()
    assert not r.optimal and r.status == "Time limit reached"
    assert np.all(np.isfinite(r.x)) and w @ r.x <= w.sum() / 3 + 1e-9


def test_highs_time_limit_on_milp_without_start_raises():
    rng = np.random.default_rng(2)
    n = 60
    w = rng.integers(5, 40, n).astype(float)
    m = HighsModel(a_start=np.arange(n + 1), a_index=np.zeros(n, dtype=int), a_value=w, col_cost=-(w + 3), n_rows=1,
                   row_lower=[w.sum() / 3 + 0.5], row_upper=[w.sum() / 3 + 0.5], col_upper=1.0,
                   integrality=np.ones(n), time_limit=0.0)
    with pytest.raises(svmopt.SolverError) as info:
        m.solve()
    assert info.value.status == "Time limit reached"


# ----------------------------------------------------------------------------------------------- numerical trouble
class _StatusProxy:
    """A ``highspy.Highs`` that reports a chosen model status after solving (HiGHS's numerical-trouble statuses
    cannot be provoked deterministically on small models)."""

    def __init__(self, real, status, feasible: bool):
        self._real, self._status, self._feasible = real, status, feasible

    def getModelStatus(self):
        return self._status

    def getInfo(self):
        info = self._real.getInfo()
        if not self._feasible:
            info.primal_solution_status = 0
        return info

    def __getattr__(self, name):
        return getattr(self._real, name)


@pytest.mark.parametrize(("status", "feasible", "text"), [
    (_MS.kSolveError, True, "Solve error"),
    (_MS.kUnknown, True, "Unknown"),
    (_MS.kModelError, False, "Model error"),
    (_MS.kUnboundedOrInfeasible, False, "unbounded"),
    (_MS.kTimeLimit, False, "Time limit reached"),
    (_MS.kInterrupt, False, "Interrupted"),
])
def test_failure_statuses_raise_through_robust_svc(monkeypatch, status, feasible, text):
    """Numerical trouble (solve error, unknown) and limits without an incumbent: SolverError whose ``status`` is
    HiGHS's string, even if HiGHS left numbers in its solution arrays."""
    real_init = HighsModel.__init__

    def init(self, *a, **k):
        real_init(self, *a, **k)
        self._h = _StatusProxy(self._h, status, feasible)

    monkeypatch.setattr(HighsModel, "__init__", init)
    X, y = _blobs()
    est = svmopt.RobustSVC(kernel="linear", lp_solver="highs")
    with pytest.raises(svmopt.SolverError) as info:
        est.fit(X, y)
    assert text.lower() in info.value.status.lower()
    with pytest.raises(NotFittedError):
        check_is_fitted(est)


def test_limit_with_feasible_incumbent_warns_through_robust_svc(monkeypatch):
    real_init = HighsModel.__init__

    def init(self, *a, **k):
        real_init(self, *a, **k)
        self._h = _StatusProxy(self._h, _MS.kIterationLimit, True)

    monkeypatch.setattr(HighsModel, "__init__", init)
    X, y = _blobs()
    with pytest.warns(ConvergenceWarning, match="Iteration limit"):
        est = svmopt.RobustSVC(kernel="linear", lp_solver="highs").fit(X, y)
    assert np.all(np.isfinite(est.decision_function(X)))
    assert [p["status"] for p in est.fit_path_[0]] == ["Iteration limit reached"]


def test_non_finite_solution_is_a_solver_error(monkeypatch):
    """A solver that claims optimality but returns NaN columns must not reach the model."""

    class NaNSolution:
        def __init__(self, sol):
            self._sol = sol
            self.col_value = np.full(len(sol.col_value), np.nan)

        def __getattr__(self, name):
            return getattr(self._sol, name)

    class Proxy(_StatusProxy):
        def getSolution(self):
            return NaNSolution(self._real.getSolution())

    real_init = HighsModel.__init__

    def init(self, *a, **k):
        real_init(self, *a, **k)
        self._h = Proxy(self._h, _MS.kOptimal, True)

    monkeypatch.setattr(HighsModel, "__init__", init)
    X, y = _blobs()
    with pytest.raises(svmopt.SolverError, match="no usable solution"):
        svmopt.RobustSVC(kernel="linear", lp_solver="highs").fit(X, y)


def test_badly_scaled_lp_is_solved_or_reported():
    """Coefficients spanning 1e-7 .. 1e7: HiGHS either solves (the result satisfies the constraints) or the
    failure is a SolverError -- never a silent wrong answer."""
    rng = np.random.default_rng(3)
    A = sp.random(30, 40, density=0.3, random_state=4, format="csc")
    A.data = 10.0 ** rng.uniform(-7, 7, A.data.size)
    try:
        r = HighsModel(a_start=A.indptr, a_index=A.indices, a_value=A.data, col_cost=np.ones(40), n_rows=30,
                       row_lower=1.0).solve()
    except svmopt.SolverError as exc:
        assert exc.status
        return
    assert np.all(A @ r.x >= 1.0 - 1e-6 * np.maximum(1.0, np.abs(A) @ np.abs(r.x)))


def test_data_too_large_for_highs_is_a_value_error():
    """|a_ij| >= 1e15 is refused by HiGHS's passModel; it is caught before, as a ValueError with the fix."""
    X, y = _blobs()
    with pytest.raises(ValueError, match="large_matrix_value"):
        svmopt.L1SVC().fit(X * 1e200, y)
    with pytest.raises(ValueError, match="rescale"):
        HighsModel(a_start=[0, 1], a_index=[0], a_value=[1e16], col_cost=[1.0], n_rows=1, row_lower=1.0)
    # the option raises the threshold: then the model loads
    HighsModel(a_start=[0, 1], a_index=[0], a_value=[1e16], col_cost=[1.0], n_rows=1, row_lower=1.0,
               options={"large_matrix_value": 1e17})


# ----------------------------------------------------------------------------------------------- memory guard
def _no_solve(monkeypatch):
    def solve(self):
        raise AssertionError("HiGHS was called although the memory guard should have refused the fit first")

    monkeypatch.setattr(HighsModel, "solve", solve)


def test_memory_budget_smaller_than_gram_refuses_fit_before_work(monkeypatch):
    X, y = _blobs(n=100)
    est = svmopt.RobustSVC(kernel="rbf")
    _no_solve(monkeypatch)
    try:
        svmopt.set_memory_budget(100 * 100 * 8 - 1)  # one byte short of the 100 x 100 Gram
        with pytest.raises(svmopt.MemoryBudgetError, match="memory budget") as info:
            est.fit(X, y)
        assert isinstance(info.value, MemoryError) and isinstance(info.value, ValueError)
        assert "FixedSizeLSSVC" in str(info.value)
    finally:
        svmopt.set_memory_budget(None)
    with pytest.raises(NotFittedError):
        check_is_fitted(est)


def test_memory_budget_from_environment_applies_to_estimators(monkeypatch):
    X, y = _blobs(n=100)
    _no_solve(monkeypatch)
    monkeypatch.setenv("SVMOPT_MEMORY_BUDGET", "50K")  # < 80000 bytes of the Gram
    with pytest.raises(svmopt.MemoryBudgetError, match="SVMOPT_MEMORY_BUDGET"):
        svmopt.RobustSVC().fit(X, y)


def test_lp_arrays_count_against_the_budget(monkeypatch):
    """The Gram fits, but the LP's 2 m^2 values do not: refused before HiGHS is called."""
    X, y = _blobs(n=100)
    _no_solve(monkeypatch)
    try:
        svmopt.set_memory_budget(100 * 100 * 8 + 1)
        with pytest.raises(svmopt.MemoryBudgetError, match="LP"):
            svmopt.RobustSVC(kernel="rbf", lp_solver="highs").fit(X, y)
        with pytest.raises(svmopt.MemoryBudgetError, match="dense simplex tableau"):
            svmopt.RobustSVC(kernel="rbf", lp_solver="dense").fit(X, y)
    finally:
        svmopt.set_memory_budget(None)


def test_prediction_under_a_small_budget_still_works():
    """Prediction uses the core's kernel-times-vector (no cross-Gram): a budget below K(X_test, SV) is fine."""
    X, y = _blobs(n=100)
    est = svmopt.RobustSVC(kernel="rbf").fit(X, y)
    ref = est.decision_function(X)
    try:
        svmopt.set_memory_budget(1024)
        np.testing.assert_array_equal(est.decision_function(X), ref)
    finally:
        svmopt.set_memory_budget(None)


def test_a_budget_that_fits_lets_the_same_fit_through():
    X, y = _blobs(n=100)
    try:
        svmopt.set_memory_budget("64M")
        with warnings.catch_warnings():
            warnings.simplefilter("error", ConvergenceWarning)
            est = svmopt.RobustSVC(kernel="rbf").fit(X, y)
    finally:
        svmopt.set_memory_budget(None)
    assert np.isfinite(est.decision_function(X)).all()
