"""The shared HiGHS layer (svmopt.highs): one passModel, warm re-solves, status mapping, MILP starts."""

from __future__ import annotations

import warnings

import numpy as np
import pytest
import scipy.sparse as sp
from sklearn.exceptions import ConvergenceWarning

from svmopt.exceptions import SolverError
from svmopt.highs import DEFAULT_OPTIONS, HighsModel, solve_lp

A = sp.csc_matrix(np.array([[1.0, 2.0], [3.0, 1.0]]))


def _model(**kw):
    args = dict(a_start=A.indptr, a_index=A.indices, a_value=A.data, col_cost=[1.0, 1.0], n_rows=2,
                row_lower=[2.0, 3.0])
    args.update(kw)
    return HighsModel(**args)


def test_lp_optimal_and_duals():
    r = _model().solve()
    assert r.optimal and r.status == "Optimal"
    np.testing.assert_allclose(r.x, [0.8, 0.6], atol=1e-9)
    assert r.objective == pytest.approx(1.4)
    # strong duality: b^T y = c^T x
    assert float(np.dot([2.0, 3.0], r.row_dual)) == pytest.approx(1.4)
    np.testing.assert_allclose(r.row_value, A @ r.x)


def test_start_with_n_cols_plus_one_or_n_cols():
    r1 = _model().solve()
    r2 = _model(a_start=A.indptr[:-1]).solve()
    np.testing.assert_array_equal(r1.x, r2.x)


def test_warm_start_after_cost_change_matches_cold_solve():
    m = _model()
    m.solve()
    m.change_costs([0], [5.0])
    warm = m.solve()
    cold = _model(col_cost=[5.0, 1.0]).solve()
    assert warm.objective == pytest.approx(cold.objective)
    assert warm.iterations <= cold.iterations


@pytest.mark.parametrize(("kw", "status"), [
    ({"col_upper": 0.0}, "Infeasible"),
    ({"col_cost": [-1.0, 1.0]}, "Unbounded"),
])
def test_failures_raise_solver_error_with_status(kw, status):
    with pytest.raises(SolverError) as info:
        _model(**kw).solve()
    assert info.value.status == status
    assert status in str(info.value)


def test_limit_without_incumbent_raises():
    rng = np.random.default_rng(0)
    M = sp.csc_matrix(rng.random((60, 80)))
    m = HighsModel(a_start=M.indptr, a_index=M.indices, a_value=M.data, col_cost=np.ones(80), n_rows=60,
                   row_lower=1.0, options={"simplex_iteration_limit": 1})
    with pytest.raises(SolverError) as info:
        m.solve()
    assert info.value.status == "Iteration limit reached"


def test_milp_with_start_and_limit_warns_and_returns_incumbent():
    rng = np.random.default_rng(0)
    n = 30
    w = rng.integers(5, 30, n).astype(float)
    v = w + rng.integers(0, 10, n)
    m = HighsModel(a_start=np.arange(n + 1), a_index=np.zeros(n, dtype=int), a_value=w, col_cost=-v, n_rows=1,
                   row_upper=[w.sum() / 3], col_upper=1.0, integrality=np.ones(n),
                   options={"mip_max_improving_sols": 1})
    assert m.is_mip
    m.set_start(np.zeros(n))
    with pytest.warns(ConvergenceWarning):
        r = m.solve()
    assert not r.optimal
    assert np.all(np.isin(np.round(r.x), [0, 1])) and w @ r.x <= w.sum() / 3 + 1e-9
    exact = HighsModel(a_start=np.arange(n + 1), a_index=np.zeros(n, dtype=int), a_value=w, col_cost=-v,
                       n_rows=1, row_upper=[w.sum() / 3], col_upper=1.0, integrality=np.ones(n)).solve()
    assert exact.optimal and exact.objective <= r.objective + 1e-9
    assert np.allclose(exact.x, np.round(exact.x))


@pytest.mark.parametrize("first, second", [(None, 1), (1, 2), (2, None), (1, 1)])
def test_models_with_different_threads_options_in_one_thread(first, second):
    """highspy >= 1.16 sizes one scheduler per thread by the first run and refused (kError, status "Not Set") a
    later model with another ``threads``: an LP at the default then RampLossSVC's MILP at threads=1 failed. Every
    order must solve, LP and MILP alike."""
    lp = _model(threads=first).solve()
    assert lp.optimal and lp.objective == pytest.approx(1.4)
    mip = _model(threads=second, integrality=[1, 1]).solve()
    assert mip.optimal and np.allclose(mip.x, np.round(mip.x)) and mip.objective == pytest.approx(2.0)
    again = _model(threads=first, integrality=[1, 1]).solve()
    assert again.optimal and again.objective == pytest.approx(mip.objective)


def test_options_validation():
    with pytest.raises(ValueError, match="nope"):
        _model(options={"nope": 1})
    with pytest.raises(TypeError):
        _model(options=[("presolve", "on")])
    with pytest.raises(ValueError, match="integrality"):
        _model(integrality=[2, 0])
    with pytest.raises(ValueError, match="a_start"):
        _model(a_start=[0])
    assert DEFAULT_OPTIONS["presolve"] == "off"
    m = _model(options={"presolve": "on"}, time_limit=5.0)
    assert m.options["presolve"] == "on" and m.options["time_limit"] == 5.0
    assert m.solve().optimal


def test_solve_lp_shortcut():
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        r = solve_lp(a_start=A.indptr, a_index=A.indices, a_value=A.data, col_cost=[1.0, 1.0], n_rows=2,
                     row_lower=[2.0, 3.0])
    assert r.objective == pytest.approx(1.4)


# ------------------------------------------------------------------------------------- edits between solves
def _box_lp():
    """min -x0 - x1  s.t.  x0 + x1 <= 4 (row 0),  x0 - x1 <= 1 (row 1),  0 <= x <= 3."""
    from svmopt.highs import HighsModel

    return HighsModel(a_start=[0, 2, 4], a_index=[0, 1, 0, 1], a_value=[1.0, 1.0, 1.0, -1.0],
                      col_cost=[-1.0, -1.0], n_rows=2, col_upper=3.0, row_upper=[4.0, 1.0])


def test_bound_and_coefficient_edits_match_a_rebuilt_model():
    from svmopt.highs import HighsModel

    m = _box_lp()
    assert m.solve().objective == pytest.approx(-4.0)
    m.change_row_bounds(0, -np.inf, 2.0)
    assert m.solve().objective == pytest.approx(-2.0)
    m.change_col_bounds([0, 1], 0.0, [0.5, 3.0])
    m.change_coeff(0, 1, 2.0)  # row 0 becomes x0 + 2 x1 <= 2
    res = m.solve()
    fresh = HighsModel(a_start=[0, 2, 4], a_index=[0, 1, 0, 1], a_value=[1.0, 1.0, 2.0, -1.0],
                       col_cost=[-1.0, -1.0], n_rows=2, col_upper=[0.5, 3.0], row_upper=[2.0, 1.0]).solve()
    assert res.objective == pytest.approx(fresh.objective) == pytest.approx(-1.25)
    np.testing.assert_allclose(res.x, fresh.x, atol=1e-9)
    m.set_option("time_limit", 5.0)
    assert m.options["time_limit"] == 5.0


def test_edits_reject_bad_indices_and_values():
    m = _box_lp()
    with pytest.raises(ValueError, match="column index"):
        m.change_col_bounds([2], 0.0, 1.0)
    with pytest.raises(ValueError, match="row index"):
        m.change_row_bounds(2, 0.0, 1.0)
    with pytest.raises(ValueError, match="outside the 2 x 2 matrix"):
        m.change_coeff(2, 0, 1.0)
    with pytest.raises(ValueError, match="finite"):
        m.change_coeff(0, 0, np.nan)
    with pytest.raises(ValueError, match="solver_options"):
        m.set_option("no_such_option", 1)


def test_mip_events_see_incumbents_and_can_interrupt():
    from svmopt.highs import HighsModel

    rng = np.random.default_rng(0)
    n = 30  # a knapsack with enough nodes for the callbacks to fire
    w = rng.integers(5, 40, n).astype(float)
    m = HighsModel(a_start=np.arange(n + 1), a_index=np.zeros(n, dtype=int), a_value=w,
                   col_cost=-(w + rng.integers(0, 10, n)), n_rows=1, col_upper=1.0, row_upper=w.sum() / 3,
                   integrality=np.ones(n, dtype=int), options={"presolve": "off", "mip_heuristic_effort": 0.0})
    seen = []
    m.on_mip_events(improving=lambda t, bound: seen.append(bound), interrupt=lambda t, bound: len(seen) >= 1)
    with pytest.warns(ConvergenceWarning, match="stopped early"):
        res = m.solve()
    assert seen and np.isfinite(seen[0])
    assert "interrupt" in res.status.lower() and not res.optimal
