"""Tests of the l1-SVM family at scale: the C++ pass with margin offsets (``_core.cutting_plane.cut_pass``), the
cutting planes of :mod:`svmopt._shared.cutting_plane` on linear rows (exact against HiGHS's direct LP/MILP), the ramp
loss's CCCP (:mod:`svmopt.ramp.cccp`: monotone, a fixed point, never better than the exact MILP's optimum) and the
estimators' new solvers and inputs (``solver=``, ``method="cccp"|"auto"``, Dask arrays, float64 memmaps)."""

from __future__ import annotations

import itertools
import warnings

import numpy as np
import pytest
from scipy.optimize import linprog
from sklearn.exceptions import ConvergenceWarning
from sklearn.utils._param_validation import InvalidParameterError

from svmopt import L1SVC, FeatureBudgetSVC, RampLossSVC, _core
from svmopt._shared.cutting_plane import HingeCuttingPlanes
from svmopt.ramp import cccp as cc
from svmopt.ramp import ramp_loss
from svmopt.ramp.model import hinge_objective, rlfs_objective, solve_svm_l1
from svmopt.ramp.solve import solve_fs_svm


def _data(seed, n=150, d=8, flip=0.15, gap=0.5):
    """Rows with a linear rule on the first two features (intercept 0.2), no point within ``gap`` of the boundary,
    and ``flip * n`` labels flipped among the points far (|f| > 1.5) from it: outliers for the ramp loss."""
    rng = np.random.default_rng(seed)
    X = rng.normal(size=(4 * n, d))
    w = np.zeros(d)
    w[:2] = [1.5, -1.0]
    f = X @ w + 0.2
    keep = np.flatnonzero(np.abs(f) > gap)[:n]
    X, f = X[keep], f[keep]
    y = np.where(f >= 0, 1.0, -1.0)
    far = np.flatnonzero(np.abs(f) > 1.5)
    idx = rng.choice(far, min(int(flip * n), far.size), replace=False)
    y[idx] = -y[idx]
    return np.ascontiguousarray(X), y


def _rel(a, b):
    return abs(a - b) / max(1.0, abs(b))


def _direct_hinge_lp(X, y, offset, C):
    """min ||w||_1 + C sum_i max(0, a_i - y_i (x_i w + b)) by HiGHS (scipy), split w = w+ - w-, a slack per row.
    Returns (objective, w, b)."""
    n, d = X.shape
    # columns: w+ (d), w- (d), b, s (n); rows: -y_i x_i w+ + y_i x_i w- - y_i b - s_i <= -a_i
    yx = y[:, None] * X
    A = np.hstack([-yx, yx, -y[:, None], -np.eye(n)])
    cost = np.concatenate([np.ones(2 * d), [0.0], np.full(n, C)])
    bounds = [(0, None)] * (2 * d) + [(None, None)] + [(0, None)] * n
    res = linprog(cost, A_ub=A, b_ub=-offset, bounds=bounds, method="highs")
    assert res.status == 0
    w = res.x[:d] - res.x[d:2 * d]
    return float(res.fun), w, float(res.x[2 * d])


def _hinge_sum(X, y, offset, w, b, C):
    return float(np.abs(w).sum() + C * np.maximum(0.0, offset - y * (X @ w + b)).sum())


# ---------------------------------------------------------------------------------------------------------------
# 1. the C++ pass with margin offsets against numpy; thread counts and blocks; finiteness
# ---------------------------------------------------------------------------------------------------------------
def _pass_reference(Phi, y, v, gamma, S, delta, offset, G):
    n = Phi.shape[0]
    f = Phi @ v
    margin = offset + y * gamma - y * f + delta * S
    c = margin > 0
    A = np.zeros((G, Phi.shape[1]))
    b, e, n_c, h = np.zeros(G), np.zeros(G), np.zeros(G), np.zeros(G)
    for g in range(G):
        rows = np.arange(g * n // G, (g + 1) * n // G)
        cg = c[rows]
        A[g] = (cg * y[rows]) @ Phi[rows]
        b[g] = (cg * y[rows]).sum()
        e[g] = (cg * delta[rows]).sum()
        n_c[g] = (cg * offset[rows]).sum()
        h[g] = np.maximum(0.0, margin[rows]).sum()
    return f, A, b, e, n_c, h


def _pass_instance(seed=0, n=301, L=6):
    rng = np.random.default_rng(seed)
    Phi = rng.normal(size=(n, L))
    y = np.where(rng.random(n) < 0.5, 1.0, -1.0)
    out = rng.random(n) < 0.2  # CCCP-like rows: label flipped, offset -1
    y = np.where(out, -y, y)
    offset = np.where(out, -1.0, 1.0)
    delta = rng.random(n) * 0.3
    v = rng.normal(size=L)
    return Phi, y, offset, delta, v, 0.3, 0.7


def test_cut_pass_offset_matches_numpy():
    Phi, y, offset, delta, v, gamma, S = _pass_instance()
    G = 7
    assert 0 < np.count_nonzero(offset < 0) < Phi.shape[0]
    f_ref, A, b, e, n_c, h = _pass_reference(Phi, y, v, gamma, S, delta, offset, G)
    # both signs of the offset matter: some violated rows have a_i = -1 (n_c is not the count of violated rows)
    margin = offset + y * gamma - y * f_ref + delta * S
    assert np.any((margin > 0) & (offset < 0)) and np.any((margin <= 0) & (offset < 0))
    for layout in ("C", "F"):  # read in place, and copied block by block from a strided Phi
        P = np.asarray(Phi, order=layout)
        scores = np.empty(Phi.shape[0])
        cut = _core.cutting_plane.cut_pass(y, v, gamma, S, Phi=P, delta=delta, offset=offset, n_groups=G,
                                           scores_out=scores, block=16)
        np.testing.assert_allclose(scores, f_ref, rtol=1e-13, atol=1e-13)
        np.testing.assert_allclose(cut.a_groups, A, rtol=1e-12, atol=1e-12)
        np.testing.assert_allclose(cut.b_groups, b, atol=1e-12)
        np.testing.assert_allclose(cut.e_groups, e, atol=1e-12)
        np.testing.assert_allclose(cut.n_c_groups, n_c, atol=1e-12)
        np.testing.assert_allclose(cut.hinge_groups, h, rtol=1e-12, atol=1e-12)
        assert cut.n_c == pytest.approx(n_c.sum(), abs=1e-12)
        assert cut.hinge == pytest.approx(h.sum(), rel=1e-12)
        np.testing.assert_allclose(cut.a, A.sum(axis=0), rtol=1e-12, atol=1e-12)
    # no offset is offset 1
    ones = _core.cutting_plane.cut_pass(y, v, gamma, S, Phi=Phi, delta=delta, n_groups=G)
    _, _, _, _, n_c1, h1 = _pass_reference(Phi, y, v, gamma, S, delta, np.ones(Phi.shape[0]), G)
    np.testing.assert_allclose(ones.n_c_groups, n_c1, atol=1e-12)
    np.testing.assert_allclose(ones.hinge_groups, h1, rtol=1e-12, atol=1e-12)


def _sums(cut):
    return [np.asarray(x) for x in (cut.a_groups, cut.b_groups, cut.e_groups, cut.n_c_groups, cut.hinge_groups)]


def test_cut_pass_threads_bitwise_and_blocks():
    Phi, y, offset, delta, v, gamma, S = _pass_instance(1, n=2000, L=9)
    results = {}
    for block in (7, 1024):
        for threads in (1, 2):
            scores = np.empty(Phi.shape[0])
            cut = _core.cutting_plane.cut_pass(y, v, gamma, S, Phi=Phi, delta=delta, offset=offset, n_groups=5,
                                               scores_out=scores, n_threads=threads, block=block)
            results[block, threads] = (_sums(cut), scores)
    for block in (7, 1024):  # blocks are added in block order: the thread count changes no bit
        (s1, f1), (s2, f2) = results[block, 1], results[block, 2]
        for a, b in zip(s1, s2, strict=True):
            np.testing.assert_array_equal(a, b)
        np.testing.assert_array_equal(f1, f2)
    # another block size adds the same numbers in another order: equal to rounding
    for a, b in zip(results[7, 1][0], results[1024, 2][0], strict=True):
        np.testing.assert_allclose(a, b, rtol=1e-12, atol=1e-11)
    np.testing.assert_allclose(results[7, 1][1], results[1024, 2][1], rtol=1e-14, atol=1e-14)


@pytest.mark.parametrize(("threads", "block"), [(1, 1024), (2, 7)])
def test_cut_pass_rejects_non_finite(threads, block):
    Phi, y, offset, _, v, gamma, S = _pass_instance(2)
    bad = Phi.copy()
    bad[150, 2] = np.nan
    with pytest.raises(ValueError, match="finite"):
        _core.cutting_plane.cut_pass(y, v, gamma, S, Phi=bad, offset=offset, n_threads=threads, block=block)
    bad[150, 2] = np.inf
    with pytest.raises(ValueError, match="finite"):
        _core.cutting_plane.cut_pass(y, v, gamma, S, Phi=bad, offset=offset, n_threads=threads, block=block)
    for value in (np.nan, np.inf, -np.inf):
        off = offset.copy()
        off[3] = value
        with pytest.raises(ValueError, match="offset"):
            _core.cutting_plane.cut_pass(y, v, gamma, S, Phi=Phi, offset=off, n_threads=threads, block=block)
    with pytest.raises(ValueError, match="offset"):
        HingeCuttingPlanes(y, np.zeros(Phi.shape[1]), Phi=Phi, offset=off)


# ---------------------------------------------------------------------------------------------------------------
# 2. the cutting planes' convex steps equal the direct LP / MILP
# ---------------------------------------------------------------------------------------------------------------
@pytest.mark.parametrize("seed", [0, 1])
def test_svm_l1_cutting_planes_equal_lp(seed):
    X, y = _data(seed)
    C = 1.0
    eng = cc.LinearCuttingPlanes(X, y)
    sol = cc.solve_fs(eng, C, None, tol=1e-8, max_iter=1000)
    _, _, _, direct = solve_svm_l1(X, y, C)
    assert sol.objective == pytest.approx(direct, rel=1e-6)
    assert sol.lower_bound <= direct + 1e-9 * max(1.0, direct)
    assert direct <= sol.objective + 1e-9 * max(1.0, direct)
    assert sol.gap <= 1e-8
    w, b = eng.wb(sol)
    assert hinge_objective(X, y, w, b, C) == pytest.approx(sol.objective, rel=1e-9)
    np.testing.assert_allclose(sol.scores, X @ w, rtol=1e-12, atol=1e-12)


@pytest.mark.parametrize(("seed", "B"), [(0, 3), (2, 2)])
def test_fs_svm_cutting_planes_equal_milp(seed, B):
    X, y = _data(seed)
    C = 1.0
    assert B < X.shape[1]
    eng = cc.LinearCuttingPlanes(X, y, budget=B)
    sol = cc.solve_fs(eng, C, B, tol=1e-8, max_iter=1000, certify_time=None)
    res, _ = solve_fs_svm(X, y, C, B)
    assert res is not None and res.status == "optimal"
    direct = res.solution.objective
    assert np.count_nonzero(sol.v) <= B
    assert sol.objective == pytest.approx(direct, rel=1e-6)
    slack = 1e-9 * max(1.0, direct)
    assert np.isfinite(sol.lower_bound)
    assert sol.lower_bound <= direct + slack
    assert direct <= sol.objective + slack
    w, b = eng.wb(sol)
    assert hinge_objective(X, y, w, b, C) == pytest.approx(sol.objective, rel=1e-9)


def test_cccp_step_equals_direct_lp():
    """A CCCP step: the rows of an outlier set O get label -y_i and offset a_i = -1."""
    X, y = _data(3, n=120, d=6)
    C = 0.7
    w0, b0, _, _ = solve_svm_l1(X, y, C)
    t = y * (X @ w0 + b0)
    out = t < np.quantile(t, 0.12)  # the 12% worst rows: an outlier set with several rows
    assert out.sum() >= 5
    y2, a = np.where(out, -y, y), np.where(out, -1.0, 1.0)
    direct, _, _ = _direct_hinge_lp(X, y2, a, C)
    eng = cc.LinearCuttingPlanes(X, y)
    eng.set_rows(y2, a)
    sol = eng.solve(C, tol=1e-8, max_iter=1000)
    assert sol.objective == pytest.approx(direct, rel=1e-6)
    assert sol.lower_bound <= direct + 1e-9 * max(1.0, direct) <= sol.objective + 2e-9 * max(1.0, direct)
    w, b = eng.wb(sol)
    assert _hinge_sum(X, y2, a, w, b, C) == pytest.approx(sol.objective, rel=1e-9)


def test_cuts_kept_across_c_grid_and_groups():
    """A cut does not depend on C or B: one engine solved along a C grid (cuts kept) stays exact, with valid lower
    bounds; the group count changes the passes, not the optimum."""
    X, y = _data(16, n=150, d=6)
    eng = cc.LinearCuttingPlanes(X, y, budget=2)
    for C in (1.0, 0.1, 10.0):
        direct = solve_svm_l1(X, y, C)[3]
        sol = cc.solve_fs(eng, C, None, tol=1e-8, max_iter=1000)
        assert sol.objective == pytest.approx(direct, rel=1e-6)
        assert sol.lower_bound <= direct + 1e-9 * direct
        res, _ = solve_fs_svm(X, y, C, 2)
        fs = cc.solve_fs(eng, C, 2, tol=1e-8, max_iter=1000, certify_time=None)
        assert fs.objective == pytest.approx(res.solution.objective, rel=1e-6)
        assert fs.lower_bound <= res.solution.objective + 1e-9 * res.solution.objective
    direct = solve_svm_l1(X, y, 1.0)[3]
    for G in (1, 16, 150):
        sol = cc.LinearCuttingPlanes(X, y, n_groups=G).solve(1.0, tol=1e-8)
        assert sol.objective == pytest.approx(direct, rel=1e-6)
    with pytest.raises(ValueError, match="n_groups"):
        cc.LinearCuttingPlanes(X, y, n_groups=151)


# ---------------------------------------------------------------------------------------------------------------
# 6. HingeCuttingPlanes: a start over the budget; set_rows invalidates the cuts
# ---------------------------------------------------------------------------------------------------------------
def test_start_over_budget_raises():
    X, y = _data(4, n=80, d=6)
    eng = cc.LinearCuttingPlanes(X, y, budget=2)
    with pytest.raises(ValueError, match="budget"):
        eng.solve(1.0, start=(np.array([1.0, -1.0, 0.5, 0.0, 0.0, 0.0]), 0.0))
    sol = eng.solve(1.0, start=(np.array([1.0, -1.0, 0.0, 0.0, 0.0, 0.0]), 0.0), certify_time=0.0)
    assert np.count_nonzero(sol.v) <= 2
    eng.set_budget(None)
    eng.solve(1.0, start=(np.ones(6), 0.0))  # without a budget any finite start is fine
    with pytest.raises(ValueError, match="finite"):
        eng.solve(1.0, start=(np.full(6, np.nan), 0.0))


@pytest.mark.parametrize("budget", [None, 3])
def test_set_rows_invalidates_cuts(budget):
    """The first problem's cuts overestimate the second's hinge sum (offsets -1 lower it), so a master that kept them
    would report a lower bound above the second problem's optimum."""
    X, y = _data(5, n=120, d=6)
    C = 1.0
    eng = cc.LinearCuttingPlanes(X, y, budget=budget)
    first = cc.solve_fs(eng, C, budget, tol=1e-8, max_iter=1000, certify_time=None)
    t = y * (first.scores - first.gamma)
    out = t < np.quantile(t, 0.3)
    y2, a = np.where(out, -y, y), np.where(out, -1.0, 1.0)
    eng.set_rows(y2, a)
    sol = eng.solve(C, tol=1e-8, max_iter=1000, certify_time=None)
    w, b = eng.wb(sol)
    if budget is None:
        direct, _, _ = _direct_hinge_lp(X, y2, a, C)
        assert direct < first.objective - 1.0  # the second problem is easier: stale cuts would show
        assert sol.lower_bound <= direct + 1e-9 * max(1.0, direct)
        assert sol.objective == pytest.approx(direct, rel=1e-6)
    else:
        assert np.count_nonzero(w) <= budget
        assert np.isfinite(sol.lower_bound)
        # the budgeted optimum is at least the unbudgeted one and at most the point found
        direct, _, _ = _direct_hinge_lp(X, y2, a, C)
        assert direct < first.objective - 1.0
        assert sol.lower_bound <= sol.objective + 1e-9 * max(1.0, sol.objective)
        assert sol.objective >= direct - 1e-9 * max(1.0, direct)
        # the exact budgeted optimum: best support by enumeration of the direct LP
        best = min(_direct_hinge_lp(X[:, list(S)], y2, a, C)[0] for S in itertools.combinations(range(6), budget))
        assert sol.lower_bound <= best + 1e-9 * max(1.0, best)
        assert sol.objective == pytest.approx(best, rel=1e-6)
    assert _hinge_sum(X, y2, a, w, b, C) == pytest.approx(sol.objective, rel=1e-9)


# ---------------------------------------------------------------------------------------------------------------
# 3. CCCP: monotone, a fixed point, the ramp objective of its point, the budget
# ---------------------------------------------------------------------------------------------------------------
@pytest.mark.parametrize(("seed", "budget"), [(0, None), (1, 3), (2, 2)])
def test_cccp_monotone_and_consistent(seed, budget):
    X, y = _data(seed, n=200, d=8)
    C = 1.0
    r = cc.cccp(X, y, C, budget, n_init=3, random_state=0)
    assert len(r.runs) == 3
    for run in r.runs:
        objs = np.asarray(run.objectives)
        assert len(objs) == run.n_steps + 1 or (not run.converged and len(objs) <= run.n_steps + 1)
        assert np.all(np.diff(objs) <= 1e-9 * np.maximum(1.0, np.abs(objs[:-1])))
        assert run.objective == objs[-1]
        assert run.objective == pytest.approx(rlfs_objective(X, y, run.w, run.b, C), rel=1e-9)
        np.testing.assert_allclose(run.scores, X @ run.w, rtol=1e-10, atol=1e-10)
        if budget is not None:
            assert np.count_nonzero(run.w) <= budget
    best = r.best
    assert best.objective == min(run.objective for run in r.runs)
    assert best.objective == pytest.approx(rlfs_objective(X, y, best.w, best.b, C), rel=1e-9)
    assert r.initial_objective == r.runs[0].objectives[0]
    assert best.objective <= r.initial_objective
    assert best.objective <= r.fs_objective + 1e-9  # ramp <= hinge at the (FS-SVM) point, and CCCP descends
    if budget is not None:
        assert np.count_nonzero(best.w) <= budget


@pytest.mark.parametrize("seed", [0, 3])
def test_cccp_converged_point_is_a_fixed_point(seed):
    """At convergence the point minimises the convex step at its own outlier set O = {t_i < -1}: the step's optimum
    (a direct LP) plus 2C|O| equals the ramp objective there (the step majorises the ramp and touches it)."""
    X, y = _data(seed, n=150, d=6)
    C = 1.0
    r = cc.cccp(X, y, C, None, n_init=2, random_state=1, tol=1e-9)
    for run in r.runs:
        if not run.converged:
            continue
        t = y * (X @ run.w + run.b)
        out = t < -1.0
        direct, _, _ = _direct_hinge_lp(X, np.where(out, -y, y), np.where(out, -1.0, 1.0), C)
        step_optimum = direct + 2.0 * C * out.sum()
        assert step_optimum <= run.objective + 1e-9 * run.objective
        assert run.objective == pytest.approx(step_optimum, rel=1e-6)
    assert any(run.converged for run in r.runs)


def test_cccp_budget_at_least_d_is_no_budget():
    X, y = _data(6, n=150, d=6)
    a = cc.cccp(X, y, 1.0, None, n_init=2, random_state=3)
    b = cc.cccp(X, y, 1.0, 6, n_init=2, random_state=3)
    c = cc.cccp(X, y, 1.0, 10, n_init=2, random_state=3)
    assert a.best.objective == b.best.objective == c.best.objective
    np.testing.assert_array_equal(a.best.w, c.best.w)
    small = cc.cccp(X, y, 1.0, 2, n_init=2, random_state=3)
    assert np.count_nonzero(small.best.w) <= 2
    est = RampLossSVC(C=1.0, method="cccp", n_init=2, random_state=3).fit(X, y)
    assert est.objective_ == pytest.approx(a.best.objective, rel=1e-9)


def test_top_b_and_ramp_values():
    v = np.array([0.5, -2.0, 0.0, 2.0, -0.1])
    np.testing.assert_array_equal(cc.top_b(v, 2), [0.0, -2.0, 0.0, 2.0, 0.0])
    np.testing.assert_array_equal(cc.top_b(v, None), v)
    np.testing.assert_array_equal(cc.top_b(v, 4), v)
    np.testing.assert_array_equal(cc.ramp_values(np.array([-5.0, -1.0, 0.0, 0.5, 1.0, 3.0])),
                                  [2.0, 2.0, 1.0, 0.5, 0.0, 0.0])


# ---------------------------------------------------------------------------------------------------------------
# 4. CCCP against the exact ramp MILP: never better than the optimum, usually close; reported as local
# ---------------------------------------------------------------------------------------------------------------
def test_cccp_never_beats_exact_milp():
    C, B = 1.0, 2
    close = 0
    for seed in range(6):
        X, y = _data(seed, n=40, d=5)
        ex = RampLossSVC(C=C, method="exact", budget=B, random_state=0).fit(X, y)
        assert ex.status_ == "optimal"
        loc = RampLossSVC(C=C, method="cccp", budget=B, random_state=0).fit(X, y)
        assert loc.method_ == "cccp"
        assert loc.status_ == "local"
        assert np.isnan(loc.mip_gap_) and np.isnan(loc.lower_bound_)
        assert loc.n_selected_features_ <= B
        assert loc.objective_ == pytest.approx(ramp_loss.ramp_loss_objective(X, y, loc.coef_[0], loc.intercept_[0],
                                                                            C), rel=1e-9)
        assert loc.objective_ >= ex.objective_ - 1e-7
        close += loc.objective_ <= 1.1 * ex.objective_
    assert close >= 3


# ---------------------------------------------------------------------------------------------------------------
# 5. the estimators
# ---------------------------------------------------------------------------------------------------------------
def test_l1svc_cutting_plane_equals_lp():
    X, y = _data(7, n=200, d=8)
    labels = np.where(y > 0, "b", "a")
    cp = L1SVC(C=0.5, solver="cutting_plane", tol=1e-7).fit(X, labels)
    lp = L1SVC(C=0.5, solver="lp").fit(X, labels)
    assert cp.solver_ == "cutting_plane" and lp.solver_ == "lp"
    assert cp.status_ == "optimal"
    assert cp.objective_ == pytest.approx(lp.objective_, rel=1e-6)
    assert cp.lower_bound_ <= lp.objective_ + 1e-9 * lp.objective_
    assert cp.n_iter_ >= 1
    ys = np.where(labels == cp.classes_[1], 1.0, -1.0)
    assert hinge_objective(X, ys, cp.coef_[0], cp.intercept_[0], 0.5) == pytest.approx(lp.objective_, rel=1e-6)
    assert L1SVC().fit(X, labels).solver_ == "lp"  # auto below AUTO_CUTTING_PLANE_ROWS


def test_feature_budget_cutting_plane_equals_milp():
    X, y = _data(8, n=150, d=8)
    cp = FeatureBudgetSVC(C=1.0, budget=3, solver="cutting_plane", tol=1e-8).fit(X, y)
    lp = FeatureBudgetSVC(C=1.0, budget=3, solver="lp", random_state=0).fit(X, y)
    assert lp.status_ == "optimal" and cp.status_ == "optimal"
    assert cp.solver_ == "cutting_plane"
    assert cp.n_selected_features_ <= 3
    assert cp.objective_ == pytest.approx(lp.objective_, rel=1e-6)
    assert cp.lower_bound_ <= lp.objective_ + 1e-9 * lp.objective_
    assert -1e-12 <= cp.mip_gap_ <= 1e-8  # (the master's bound may exceed the objective by rounding)
    none = FeatureBudgetSVC(C=1.0, solver="cutting_plane").fit(X, y)  # no budget: (SVM-l1)
    assert none.objective_ == pytest.approx(L1SVC(C=1.0, solver="lp").fit(X, y).objective_, rel=1e-6)


def test_cutting_plane_max_iter_warns():
    X, y = _data(15, n=200, d=7)
    with pytest.warns(ConvergenceWarning, match="max_iter"):
        est = L1SVC(solver="cutting_plane", max_iter=1).fit(X, y)
    assert est.status_ == "max_iter" and est.n_iter_ == 1
    assert est.lower_bound_ < est.objective_


def test_ramp_auto_picks_by_rows(monkeypatch):
    monkeypatch.setattr(ramp_loss, "AUTO_CCCP_ROWS", 30)
    Xs, ys = _data(9, n=24, d=4)
    small = RampLossSVC(C=1.0, budget=2, random_state=0).fit(Xs, ys)
    assert small.method_ == "heuristic" and small.status_ == "heuristic" and small.cccp_ is None
    Xb, yb = _data(9, n=80, d=4)
    big = RampLossSVC(C=1.0, budget=2, random_state=0).fit(Xb, yb)
    assert big.method_ == "cccp" and big.status_ == "local"
    assert isinstance(big.cccp_, dict) and len(big.cccp_["objectives"]) == 3
    assert big.n_iter_ >= 0 and big.big_m_ is None


def test_dask_inputs_match_numpy():
    da = pytest.importorskip("dask.array")
    X, y = _data(10, n=160, d=6)
    Xd = da.from_array(X, chunks=(45, 3))  # two column chunks: rechunked to one
    ref = RampLossSVC(C=1.0, budget=3, method="cccp", random_state=0).fit(X, y)
    got = RampLossSVC(C=1.0, budget=3, method="cccp", random_state=0).fit(Xd, y)
    np.testing.assert_allclose(got.coef_, ref.coef_, rtol=1e-7, atol=1e-8)
    assert got.intercept_[0] == pytest.approx(ref.intercept_[0], rel=1e-7, abs=1e-8)
    assert got.objective_ == pytest.approx(ref.objective_, rel=1e-9)
    np.testing.assert_array_equal(got.outliers_, ref.outliers_)
    np.testing.assert_array_equal(got.predict(Xd), got.predict(X))
    np.testing.assert_array_equal(ref.predict(Xd), ref.predict(X))
    np.testing.assert_allclose(got.decision_function(Xd), got.decision_function(X), rtol=1e-12, atol=1e-12)
    auto = RampLossSVC(C=1.0, budget=3, random_state=0).fit(Xd, y)
    assert auto.method_ == "cccp"
    l1_ref = L1SVC(C=1.0, solver="cutting_plane", tol=1e-8).fit(X, y)
    l1 = L1SVC(C=1.0, solver="cutting_plane", tol=1e-8).fit(Xd, da.from_array(y, chunks=70))
    np.testing.assert_allclose(l1.coef_, l1_ref.coef_, rtol=1e-6, atol=1e-7)
    assert l1.objective_ == pytest.approx(l1_ref.objective_, rel=1e-7)
    np.testing.assert_array_equal(l1.predict(Xd), l1_ref.predict(X))
    assert L1SVC(C=1.0).fit(Xd, y).solver_ == "cutting_plane"
    with pytest.raises(ValueError, match="method"):
        RampLossSVC(C=1.0, budget=3, method="exact").fit(Xd, y)
    with pytest.raises(ValueError, match="solver"):
        L1SVC(solver="lp").fit(Xd, y)


def test_memmap_matches_numpy(tmp_path):
    X, y = _data(11, n=150, d=6)
    mm = np.memmap(tmp_path / "X.f64", dtype=np.float64, mode="w+", shape=X.shape)
    mm[:] = X
    mm.flush()
    mm = np.memmap(tmp_path / "X.f64", dtype=np.float64, mode="r", shape=X.shape)
    eng = cc.LinearCuttingPlanes(mm, y)
    assert np.shares_memory(eng.Phi, mm)  # read in place, not copied
    ref = RampLossSVC(C=1.0, budget=2, method="cccp", random_state=0).fit(X, y)
    got = RampLossSVC(C=1.0, budget=2, method="cccp", random_state=0).fit(mm, y)
    np.testing.assert_allclose(got.coef_, ref.coef_, rtol=1e-10, atol=1e-12)
    assert got.objective_ == pytest.approx(ref.objective_, rel=1e-12)
    l1 = L1SVC(solver="cutting_plane").fit(mm, y)
    l1_ref = L1SVC(solver="cutting_plane").fit(X, y)
    np.testing.assert_allclose(l1.coef_, l1_ref.coef_, rtol=1e-10, atol=1e-12)
    m32 = np.memmap(tmp_path / "X.f32", dtype=np.float32, mode="w+", shape=X.shape)
    with pytest.raises(ValueError, match="float64"):
        cc.LinearCuttingPlanes(m32, y)


def test_cccp_time_limit_warns():
    X, y = _data(12, n=3000, d=12)
    with pytest.warns(ConvergenceWarning, match="max_time=1e-06 s reached .*cut short: CCCP"):
        est = RampLossSVC(C=1.0, budget=4, method="cccp", max_time=1e-6, random_state=0).fit(X, y)
    assert est.status_ == "time_limit"
    assert np.isnan(est.mip_gap_) and np.isnan(est.lower_bound_)
    assert np.isfinite(est.objective_)
    assert est.objective_ == pytest.approx(ramp_loss.ramp_loss_objective(X, y, est.coef_[0], est.intercept_[0], 1.0),
                                           rel=1e-9)


@pytest.mark.parametrize(("est", "name"), [
    (RampLossSVC(n_init=0), "n_init"), (RampLossSVC(tol=-1.0), "tol"), (RampLossSVC(max_iter=0), "max_iter"),
    (RampLossSVC(method="x"), "method"), (L1SVC(solver="x"), "solver"), (L1SVC(tol=-1.0), "tol"),
    (FeatureBudgetSVC(solver="x"), "solver"), (FeatureBudgetSVC(max_iter=0), "max_iter"),
])
def test_bad_params(est, name):
    X, y = _data(13, n=30, d=3)
    with pytest.raises(InvalidParameterError, match=name):
        est.fit(X, y)


def test_quiet_unless_verbose(capsys):
    X, y = _data(14, n=100, d=5)
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        RampLossSVC(C=1.0, budget=2, method="cccp", random_state=0).fit(X, y)
        L1SVC(solver="cutting_plane").fit(X, y)
        FeatureBudgetSVC(budget=2, solver="cutting_plane").fit(X, y)
    captured = capsys.readouterr()
    assert captured.out == "" and captured.err == ""
    RampLossSVC(C=1.0, budget=2, method="cccp", random_state=0, verbose=True).fit(X, y)
    out, err = capsys.readouterr()
    assert out == "" and "RampLossSVC CCCP" in err  # verbose=True: the bar only
    RampLossSVC(C=1.0, budget=2, method="cccp", random_state=0, verbose=2).fit(X, y)
    assert "[CCCP]" in capsys.readouterr().out  # 2: the log of every step as well


def test_l1svc_auto_solver_by_shape():
    """L1SVC's solver="auto": the direct LP on few rows, the cutting planes where the rows outnumber the features
    AUTO_ROWS_PER_FEATURE times, the LP (by HiGHS's interior point) on wide data; the same optimum either way."""
    from svmopt.ramp.solver_choice import AUTO_LP_ROWS, AUTO_ROWS_PER_FEATURE, lp_options, pick_solver

    rng = np.random.default_rng(0)
    tall = rng.normal(size=(AUTO_LP_ROWS + 1, 4))
    wide = rng.normal(size=(AUTO_LP_ROWS + 1, (AUTO_LP_ROWS + 1) // AUTO_ROWS_PER_FEATURE + 1))
    assert pick_solver("auto", tall[:AUTO_LP_ROWS], by_shape=True) == "lp"
    assert pick_solver("auto", tall, by_shape=True) == "cutting_plane"
    assert pick_solver("auto", wide, by_shape=True) == "lp"
    assert lp_options(None, wide) == {"solver": "ipm"} and lp_options(None, tall[:AUTO_LP_ROWS]) is None
    assert lp_options({"solver": "simplex"}, wide) == {"solver": "simplex"}
    y = np.where(wide[:, 0] + 0.5 * rng.normal(size=wide.shape[0]) > 0, 1, 0)
    auto = L1SVC(C=0.1).fit(wide, y)
    simplex = L1SVC(C=0.1, solver="lp", solver_options={"solver": "simplex"}).fit(wide, y)
    assert auto.solver_ == "lp" and auto.status_ == "optimal"
    assert auto.objective_ == pytest.approx(simplex.objective_, rel=1e-8)
    y = np.where(tall[:, 0] + 0.5 * rng.normal(size=tall.shape[0]) > 0, 1, 0)
    cp = L1SVC(C=1.0).fit(tall, y)
    assert cp.solver_ == "cutting_plane" and cp.status_ == "optimal"
    assert cp.objective_ == pytest.approx(L1SVC(C=1.0, solver="lp").fit(tall, y).objective_, rel=1e-6)
