"""The shared HiGHS layer (svmopt._shared.highs): one passModel, warm re-solves, status mapping, MILP starts."""

from __future__ import annotations

import warnings

import numpy as np
import pytest
import scipy.sparse as sp
from sklearn.exceptions import ConvergenceWarning

from svmopt._shared.highs import DEFAULT_OPTIONS, HighsModel, solve_lp
from svmopt.exceptions import SolverError

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


def test_a_time_limit_of_the_options_bounds_every_solve():
    """solver_options' time_limit (here 0: no iteration) holds against the time_limit argument (a fit's max_time)
    and against set_option with a fit's remaining budget: they can only tighten it."""
    rng = np.random.default_rng(0)
    M = sp.csc_matrix(rng.random((60, 80)))
    kw = dict(a_start=M.indptr, a_index=M.indices, a_value=M.data, col_cost=np.ones(80), n_rows=60, row_lower=1.0)
    m = HighsModel(**kw, options={"time_limit": 0.0}, time_limit=100.0)
    with pytest.raises(SolverError, match="Time limit reached"):
        m.solve()
    m.set_option("time_limit", 100.0)
    assert m.options["time_limit"] == 0.0
    with pytest.raises(SolverError, match="Time limit reached"):
        m.solve()
    free = HighsModel(**kw, options={"time_limit": 100.0}, time_limit=50.0)
    assert free.options["time_limit"] == 50.0 and free.solve().optimal


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
    from svmopt._shared.highs import HighsModel

    return HighsModel(a_start=[0, 2, 4], a_index=[0, 1, 0, 1], a_value=[1.0, 1.0, 1.0, -1.0],
                      col_cost=[-1.0, -1.0], n_rows=2, col_upper=3.0, row_upper=[4.0, 1.0])


def test_bound_and_coefficient_edits_match_a_rebuilt_model():
    from svmopt._shared.highs import HighsModel

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
    from svmopt._shared.highs import HighsModel

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


def _linprog_rows(cost, rows, lower, upper, col_upper):
    """scipy's optimum of min cost'x, lower <= A x <= upper (dense rows), 0 <= x <= col_upper."""
    from scipy.optimize import linprog

    A = np.array(rows, dtype=float).reshape(-1, len(cost))
    lo, up = np.asarray(lower, float), np.asarray(upper, float)
    A_ub = np.vstack([A[np.isfinite(up)], -A[np.isfinite(lo)]])
    b_ub = np.concatenate([up[np.isfinite(up)], -lo[np.isfinite(lo)]])
    res = linprog(cost, A_ub=A_ub if A_ub.size else None, b_ub=b_ub if A_ub.size else None,
                  bounds=[(0, col_upper)] * len(cost), method="highs")
    assert res.status == 0
    return res.fun


def test_add_rows_match_a_rebuilt_model():
    """Rows appended in CSR form (a <= row, a ranged row, an empty row) give the model built with them."""
    from svmopt._shared.highs import HighsModel

    m = _box_lp()
    assert m.solve().objective == pytest.approx(-4.0)
    # row 2: -0.5 x0 + x1 <= 1;  row 3: 1 <= x0 + 3 x1 <= 5;  row 4: empty, -1 <= 0 <= 1
    m.add_rows([-np.inf, 1.0, -1.0], [1.0, 5.0, 1.0], [0, 2, 4], [0, 1, 1, 0], [-0.5, 1.0, 3.0, 1.0])
    assert m.n_rows == 5
    res = m.solve()
    dense = [[1.0, 1.0], [1.0, -1.0], [-0.5, 1.0], [1.0, 3.0], [0.0, 0.0]]
    lower, upper = [-np.inf, -np.inf, -np.inf, 1.0, -1.0], [4.0, 1.0, 1.0, 5.0, 1.0]
    A = sp.csc_matrix(np.array(dense))
    fresh = HighsModel(a_start=A.indptr, a_index=A.indices, a_value=A.data, col_cost=[-1.0, -1.0], n_rows=5,
                       col_upper=3.0, row_lower=lower, row_upper=upper).solve()
    assert res.objective == pytest.approx(fresh.objective, abs=1e-9)
    assert res.objective == pytest.approx(_linprog_rows([-1.0, -1.0], dense, lower, upper, 3.0), abs=1e-9)
    np.testing.assert_allclose(res.x, fresh.x, atol=1e-9)
    assert res.row_value.shape == res.row_dual.shape == (5,)
    np.testing.assert_allclose(res.row_value, np.array(dense) @ res.x, atol=1e-9)
    # strong duality with the new rows' duals: c'x = sum of the active bounds times their duals (no active column
    # bound here: x0 and x1 are inside (0, 3))
    assert np.all((res.x > 1e-9) & (res.x < 3 - 1e-9))
    active = np.where(res.row_dual > 1e-12, lower, np.where(res.row_dual < -1e-12, upper, 0.0))
    assert float(res.row_dual @ active) == pytest.approx(res.objective, abs=1e-9)


def test_delete_rows_gives_the_model_without_them():
    """Rows added then deleted: the optimum of the model without them; bad indices are refused before any change."""
    m = _box_lp()
    base = m.solve().objective
    m.add_rows([-np.inf, 1.0], [1.0, 5.0], [0, 2], [0, 1, 0, 1], [-0.5, 1.0, 1.0, 3.0])
    constrained = m.solve().objective
    m.delete_rows([2])
    assert m.n_rows == 3
    assert m.solve().objective == pytest.approx(_linprog_rows([-1.0, -1.0], [[1.0, 1.0], [1.0, -1.0], [1.0, 3.0]],
                                                               [-np.inf, -np.inf, 1.0], [4.0, 1.0, 5.0], 3.0),
                                                abs=1e-9)
    with pytest.raises(ValueError, match="row index"):
        m.delete_rows([3])
    assert m.n_rows == 3
    m.delete_rows([2])
    assert m.solve().objective == pytest.approx(base, abs=1e-9)
    assert constrained >= base - 1e-9


def test_add_rows_one_at_a_time_from_no_rows():
    """The cutting-plane master's use: a model with no rows grown row by row; after each addition the warm solve
    equals scipy's optimum of the rows so far."""
    from svmopt._shared.highs import HighsModel

    rng = np.random.default_rng(0)
    n = 4
    cost = -rng.uniform(0.5, 1.5, n)
    m = HighsModel(a_start=np.zeros(n + 1, dtype=np.int32), a_index=np.zeros(0, np.int32), a_value=np.zeros(0),
                   col_cost=cost, n_rows=0, col_upper=5.0)
    assert m.solve().objective == pytest.approx(5.0 * cost.sum())
    rows: list[np.ndarray] = []
    for k in range(8):
        cols = np.sort(rng.choice(n, size=1 + k % n, replace=False)).astype(np.int32)
        vals = rng.uniform(0.2, 2.0, cols.size)
        upper = rng.uniform(1.0, 6.0)
        m.add_rows(-np.inf, [upper], [0], cols, vals)
        row = np.zeros(n)
        row[cols] = vals
        rows.append(np.append(row, upper))
        assert m.n_rows == k + 1
        res = m.solve()
        R = np.array(rows)
        assert res.objective == pytest.approx(_linprog_rows(cost, R[:, :n], [-np.inf] * (k + 1), R[:, n], 5.0),
                                              abs=1e-9)
        assert np.all(R[:, :n] @ res.x <= R[:, n] + 1e-9)


@pytest.mark.parametrize(("args", "exc", "match"), [
    (([0.0], [1.0], [0], [2], [1.0]), ValueError, "column index"),
    (([0.0], [1.0], [0], [-1], [1.0]), ValueError, "indices"),
    (([0.0], [1.0], [0], [0], [np.nan]), ValueError, "non-finite"),
    (([0.0], [1.0], [0], [0], [np.inf]), ValueError, "non-finite"),
    (([np.nan], [1.0], [0], [0], [1.0]), ValueError, "lower"),
    (([0.0], [np.nan], [0], [0], [1.0]), ValueError, "upper"),
    (([0.0, 0.0], [1.0, 1.0], [0], [0], [1.0]), ValueError, "starts"),
    (([0.0], [1.0], [0], [0, 1], [1.0]), ValueError, "indices and values"),
    (([0.0], [1.0, 2.0], [0], [0], [1.0]), ValueError, "upper"),
    (([0.0], [1.0], [0], [0.0], [1.0]), TypeError, "indices"),
    (([0.0], [1.0], [0.0], [0], [1.0]), TypeError, "starts"),
    (([0.0, 0.0], [1.0, 1.0], [1, 0], [0, 1], [1.0, 1.0]), SolverError, "addRows"),  # starts not ascending: HiGHS
    (([0.0], [1.0], [0], [0, 0], [1.0, 1.0]), SolverError, "addRows"),  # a column twice in a row: HiGHS
])
def test_add_rows_rejects_bad_input_and_leaves_the_model(args, exc, match):
    m = _box_lp()
    with pytest.raises(exc, match=match):
        m.add_rows(*args)
    assert m.n_rows == 2
    res = m.solve()
    assert res.objective == pytest.approx(-4.0) and res.row_value.shape == (2,)
