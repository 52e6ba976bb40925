"""The MILP solves of paper 001: the exact (RL-FS-M) MILP, the DAKS sub-problems' runs and (FS-SVM).

See :mod:`svmopt.ramp` for the column and row layout of the models."""

from __future__ import annotations

import time
import warnings
from dataclasses import dataclass
from typing import Any

import numpy as np
from sklearn.exceptions import ConvergenceWarning

from svmopt._shared.highs import merge_options
from svmopt.exceptions import SolverError
from svmopt.ramp.bounds import (
    BigM,
)
from svmopt.ramp.model import (
    INF,
    MIP_OPTIONS,
    W_TOL,
    BuiltRLFS,
    RLFSLayout,
    RLSolution,
    build_rlfs,
    solve_svm_l1,
)


# ---------------------------------------------------------------------------------------------------------------
# MILP solves (exact, DAKS sub-problems, FS-SVM)
# ---------------------------------------------------------------------------------------------------------------
@dataclass
class MipOutcome:
    """Result of one MILP (or LP) solve. ``x`` is None when no feasible solution was found."""

    x: np.ndarray | None
    status: str  # "optimal", "time_limit", "interrupted", "infeasible", "no_incumbent"
    objective: float
    dual_bound: float
    gap: float
    runtime: float
    col_dual: np.ndarray | None = None


def run_mip(built: BuiltRLFS, *, options: dict, time_limit: float | None, start: np.ndarray | None = None,
            t_fea: float | None = None, t_inc: float | None = None, on_incumbent: Any = None) -> MipOutcome:
    """Solve a built model; ``start`` (used only when it satisfies every row with the current M) is the MIP start;
    ``t_fea`` / ``t_inc`` are
    enforced through HiGHS' MIP interrupt callback (Sec. 4.5); ``on_incumbent(running_time, objective)`` is called at
    every new incumbent (a progress bar's)."""
    model = built.model(options, time_limit=None if time_limit is None else max(time_limit, 1e-3))
    if start is not None and model.is_mip and built.is_feasible(start):
        model.set_start(start)
    if model.is_mip and (t_fea is not None or t_inc is not None):
        state = {"last": None}

        def on_improve(running_time, primal_bound):
            state["last"] = running_time

        def on_interrupt(running_time, primal_bound):
            return should_interrupt(running_time, state["last"], primal_bound, t_fea, t_inc)

        model.on_mip_events(improving=on_improve, interrupt=on_interrupt)
    if model.is_mip and on_incumbent is not None:
        model.on_mip_events(improving=on_incumbent)
    t0 = time.perf_counter()
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", ConvergenceWarning)
            res = model.solve()
    except SolverError as exc:
        rt = time.perf_counter() - t0
        st = (exc.status or "").lower()
        if "infeasible" in st and "unbounded" not in st:
            return MipOutcome(None, "infeasible", INF, INF, INF, rt)
        if "time" in st or "interrupt" in st or "limit" in st:
            return MipOutcome(None, "no_incumbent", INF, -INF, INF, rt)
        raise
    rt = time.perf_counter() - t0
    if model.is_mip:
        dual = res.info["mip_dual_bound"]
        gap = 0.0 if res.optimal else res.info["mip_gap"]
    else:
        dual, gap = res.objective, 0.0 if res.optimal else INF
    if res.optimal:
        status = "optimal"
    elif "interrupt" in res.status.lower():
        status = "interrupted"
    elif "time" in res.status.lower():
        status = "time_limit"
    else:
        status = "limit"  # node / solution / iteration limit set through solver options
    return MipOutcome(res.x, status, res.objective, dual, gap, rt, res.col_dual if res.col_dual.size else None)


def polish(X: np.ndarray, y: np.ndarray, C: Any, w: np.ndarray, b: float, z: np.ndarray, *,
           ramp_loss: bool = True, options: dict | None = None) -> RLSolution:
    """Polishing (HiGHS cannot run with integrality tolerance 0 as the paper's CPLEX did): with z rounded and ``v =
    1[|w| > tol]``, re-solve the LP (SVM-l1-bar) on that support and the
    points with ``z_i = 0``; return the better of the polished and the raw ``(w, b)`` by the ramp identity."""
    raw = RLSolution.from_wb(X, y, w, b, C, ramp_loss=ramp_loss)
    supp = np.flatnonzero(np.abs(w) > W_TOL)
    pts = np.flatnonzero(np.round(z) < 0.5) if ramp_loss else np.arange(X.shape[0])
    try:
        w2, b2, _, _ = solve_svm_l1(X, y, C, features=supp, points=pts, xi_cap=2.0 if ramp_loss else INF,
                                    options=options)
    except SolverError:
        return raw
    pol = RLSolution.from_wb(X, y, w2, b2, C, ramp_loss=ramp_loss)
    return pol if pol.objective <= raw.objective else raw


def decode_solution(x: np.ndarray, L: RLFSLayout, feats: np.ndarray, d: int) -> tuple[np.ndarray, float, np.ndarray]:
    w = np.zeros(d)
    w[feats] = x[:L.m] - x[L.m:2 * L.m]
    return w, float(x[L.b]), x[L.z0:L.v0]


@dataclass
class MilpResult:
    solution: RLSolution
    status: str  # "optimal", "time_limit" or "limit" (another HiGHS limit, e.g. mip_max_nodes)
    gap: float
    dual_bound: float
    runtime: float


def solve_rlfs_mip(X: np.ndarray, y: np.ndarray, C: Any, budget: int, bm: BigM, *,
                   start: RLSolution | None = None, time_limit: float | None = None, mip_gap: float = 0.0,
                   use_cut15: bool = True, options: dict | None = None,
                   on_incumbent: Any = None) -> MilpResult | None:
    """The exact approach (Sec. 4.2): (RL-FS-M) + (15) + (21) + (22) with Algorithm 1's bounds, the
    initial solution as MIP start, then polishing (:func:`polish`). None when HiGHS found no solution in the time
    limit."""
    d = X.shape[1]
    feats = np.arange(d)
    built = build_rlfs(X, y, C, M=bm.M, U=bm.u, budget=budget, ub_w=bm.ub_w, b_bounds=(bm.lb_b, bm.ub_b),
                       use_cut15=use_cut15)
    x0 = None if start is None else built.start_vector(start, feats)
    opts = merge_options({**MIP_OPTIONS, "mip_rel_gap": float(mip_gap), **(options or {})})
    out = run_mip(built, options=opts, time_limit=time_limit, start=x0, on_incumbent=on_incumbent)
    if out.x is None:
        if out.status == "infeasible":
            raise SolverError("the (RL-FS-M) MILP is infeasible: the big-M bounds cut off every solution",
                              "Infeasible")
        return None
    w, b, z = decode_solution(out.x, built.layout, feats, d)
    sol = polish(X, y, C, w, b, z, options=options)
    if start is not None and start.objective < sol.objective:
        sol = start
    gap = out.gap
    if out.status != "optimal" and np.isfinite(out.dual_bound):
        gap = max(0.0, (sol.objective - out.dual_bound) / max(abs(sol.objective), 1e-12))
    return MilpResult(sol, out.status, gap, out.dual_bound, out.runtime)


def solve_fs_svm(X: np.ndarray, y: np.ndarray, C: Any, budget: int, *, time_limit: float | None = None,
                 mip_gap: float = 0.0, options: dict | None = None) -> tuple[MilpResult | None, RLSolution]:
    """(FS-SVM) (Labbé, Martínez-Merino and Rodríguez-Chía 2019, the paper's comparison model): the budget-constrained
    l1-SVM MILP with ``u = l = UB`` from the top-B (SVM-l1)
    solution, which is also the MIP start. Returns the MILP result (None without incumbent) and the start.
    ``time_limit`` covers the whole call: the start LPs and the MILP (which gets what the LPs left)."""
    n, d = X.shape
    t0 = time.perf_counter()

    def left() -> float | None:
        return None if time_limit is None else max(time_limit - (time.perf_counter() - t0), 1e-3)

    w, b, _, _ = solve_svm_l1(X, y, C, options=options, time_limit=left())
    if np.count_nonzero(np.abs(w) > W_TOL) > budget:
        keep = np.sort(np.argsort(-np.abs(w), kind="stable")[:budget])
        w, b, _, _ = solve_svm_l1(X, y, C, features=keep, options=options, time_limit=left())
    start = RLSolution.from_wb(X, y, w, b, C, ramp_loss=False)
    U = max(start.objective, 1e-12) * (1 + 1e-9)
    feats = np.arange(d)
    built = build_rlfs(X, y, C, M=np.zeros(n), U=U, budget=budget, ramp_loss=False)
    x0 = built.start_vector(start, feats)
    opts = merge_options({**MIP_OPTIONS, "mip_rel_gap": float(mip_gap), **(options or {})})
    out = run_mip(built, options=opts, time_limit=left(), start=x0)
    if out.x is None:
        return None, start
    w2, b2, z = decode_solution(out.x, built.layout, feats, d)
    sol = polish(X, y, C, w2, b2, z, ramp_loss=False, options=options)
    if start.objective < sol.objective:
        sol = start
    gap = out.gap
    if out.status != "optimal" and np.isfinite(out.dual_bound):
        gap = max(0.0, (sol.objective - out.dual_bound) / max(abs(sol.objective), 1e-12))
    return MilpResult(sol, out.status, gap, out.dual_bound, out.runtime), start


def should_interrupt(t: float, last_improve: float | None, primal_bound: float, t_fea: float | None,
                     t_inc: float | None) -> bool:
    """Sec. 4.5 time controls of a sub-problem at HiGHS run time ``t``: ``t_fea`` while no feasible solution
    exists, ``t_inc`` measured from the last improvement once one exists."""
    if last_improve is None:
        return t_fea is not None and t > t_fea and primal_bound >= INF
    return t_inc is not None and t - last_improve > t_inc
