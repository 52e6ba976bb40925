"""The MILP solves of paper 001: the exact (RL-FS-M) MILP, the DAKS sub-problems' runs and (FS-SVM).

See :mod:`svmopt.ramp` for the column and row layout of the models."""

from __future__ import annotations

import math
import time
import warnings
from dataclasses import dataclass
from typing import Any

import numpy as np
from sklearn.exceptions import ConvergenceWarning

from svmopt._shared.highs import merge_options
from svmopt._shared.runtime import progress
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
    solve_svm_l1_within,
    svm_l1_point,
    top_b,
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
    highs_status: str = ""  # HiGHS's model status string ("" when solved)


def run_mip(built: BuiltRLFS, *, options: dict, time_limit: float | None, start: np.ndarray | None = None,
            t_fea: float | None = None, t_inc: float | None = None, on_bounds: Any = None) -> MipOutcome:
    """Solve a built model; ``start`` (used only when it satisfies every row with the current M) is the MIP start;
    ``t_fea`` / ``t_inc`` are
    enforced through HiGHS' MIP interrupt callback (Sec. 4.5); ``on_bounds(running_time, incumbent, bound)`` is
    polled by branch and bound (a progress bar's, :class:`MilpProgress`)."""
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
    if model.is_mip and on_bounds is not None:
        model.on_mip_events(bounds=on_bounds)
    t0 = time.perf_counter()
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", ConvergenceWarning)
            res = model.solve()
    except SolverError as exc:
        rt = time.perf_counter() - t0
        st = (exc.status or "").lower()
        if "infeasible" in st and "unbounded" not in st:
            return MipOutcome(None, "infeasible", INF, INF, INF, rt, highs_status=str(exc.status))
        if "time" in st or "interrupt" in st or "limit" in st:
            return MipOutcome(None, "no_incumbent", INF, -INF, INF, rt, highs_status=str(exc.status))
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
    return MipOutcome(res.x, status, res.objective, dual, gap, rt, res.col_dual if res.col_dual.size else None,
                      highs_status="" if res.optimal else res.status)


def note_outcome(limits: Any, stage: str, out: MipOutcome, time_limit: float | None) -> None:
    """A solve's limit (``out`` stopped short of optimal) noted on ``limits`` (a
    :class:`svmopt.ramp.limits.SolveLimits`, or None) under ``stage``."""
    if limits is not None and out.highs_status and out.status != "infeasible":
        limits.note(stage, out.highs_status, time_limit)


class MilpProgress:
    """The exact MILP's progress bar (``verbose``): the share of its gap closed in percent (0 at the first gap with
    both bounds known, 100 when the bound meets the incumbent), or with a time limit the seconds of it spent; the
    incumbent, the dual bound and the relative gap (incumbent - bound) / |incumbent| in its postfix. Called with
    HiGHS's bounds as branch and bound polls (:meth:`svmopt._shared.highs.HighsModel.on_mip_events`)."""

    def __init__(self, verbose: Any, time_limit: float | None):
        self.total = 100 if time_limit is None else max(1, math.ceil(time_limit))
        self.seconds = time_limit is not None
        self.bar = progress(verbose, self.total, "RampLossSVC MILP" + (" (s of max_time)" if self.seconds else
                                                                        " (% of the gap closed)"))
        self.first_gap = math.nan
        self.n = 0
        self.shown: tuple[float, float] | None = None

    def __call__(self, running_time: float, incumbent: float, bound: float) -> None:
        known = math.isfinite(incumbent) and math.isfinite(bound)
        if known and math.isnan(self.first_gap):
            self.first_gap = max(incumbent - bound, 0.0)
        if self.seconds:
            n = min(self.total, int(running_time))
        elif known:
            closed = 1.0 if self.first_gap <= 0 else 1.0 - max(incumbent - bound, 0.0) / self.first_gap
            n = min(self.total, max(self.n, int(100 * closed)))
        else:
            n = self.n
        if (incumbent, bound) == self.shown and n == self.n:
            return
        new_incumbent = self.shown is None or incumbent != self.shown[0]
        self.shown = (incumbent, bound)
        gap = max(incumbent - bound, 0.0) / max(abs(incumbent), 1e-12) if known else math.inf
        self.bar.set_postfix_str(f"incumbent={incumbent:.6g} bound={bound:.6g} gap={gap:.1e}",
                                 refresh=new_incumbent)
        self.bar.update(n - self.n)
        self.n = n

    def close(self) -> None:
        self.bar.close()


#: The stage a limit that stops a polishing LP is noted under (:mod:`svmopt.ramp.limits`).
POLISH_STAGE = "the polishing LPs (the MILP's rounded solution is used as it is)"


def polish(X: np.ndarray, y: np.ndarray, C: Any, w: np.ndarray, b: float, z: np.ndarray, *,
           ramp_loss: bool = True, options: dict | None = None, time_limit: float | None = None,
           limits: Any = None) -> RLSolution:
    """Polishing (HiGHS cannot run with integrality tolerance 0 as the paper's CPLEX did): with z rounded and ``v =
    1[|w| > tol]``, re-solve the LP (SVM-l1-bar) on that support and the
    points with ``z_i = 0``; return the better of the polished and the raw ``(w, b)`` by the ramp identity. Within
    ``time_limit`` seconds (none left: the raw point); a limit is noted on ``limits`` (:data:`POLISH_STAGE`)."""
    raw = RLSolution.from_wb(X, y, w, b, C, ramp_loss=ramp_loss)
    if time_limit is not None and time_limit <= 0:
        if limits is not None and limits.expired():
            limits.cut(POLISH_STAGE)
        return raw
    supp = np.flatnonzero(np.abs(w) > W_TOL)
    pts = np.flatnonzero(np.round(z) < 0.5) if ramp_loss else np.arange(X.shape[0])
    try:
        w2, b2, _, _ = solve_svm_l1(X, y, C, features=supp, points=pts, xi_cap=2.0 if ramp_loss else INF,
                                    options=options, time_limit=time_limit)
    except SolverError as exc:
        if limits is not None and exc.status and ("limit" in exc.status.lower() or "interrupt" in exc.status.lower()):
            limits.note(POLISH_STAGE, exc.status, time_limit)
        return raw
    pol = RLSolution.from_wb(X, y, w2, b2, C, ramp_loss=ramp_loss)
    return pol if pol.objective <= raw.objective else raw


def decode_solution(x: np.ndarray, L: RLFSLayout, feats: np.ndarray, d: int) -> tuple[np.ndarray, float, np.ndarray]:
    """``(w, b, z)`` of a MILP solution over the features ``feats``, with ``w_k = 0`` wherever ``v_k = 0``: HiGHS's
    integrality tolerance lets a ``v_k`` within 1e-9 of 0 carry ``|w_k| <= u v_k``, which for a large ``u``
    (10)/(11) is a weight above W_TOL outside the budget."""
    w = np.zeros(d)
    wf = x[:L.m] - x[L.m:2 * L.m]
    w[feats] = np.where(x[L.v0:L.v0 + L.m] > 0.5, wf, 0.0)
    return w, float(x[L.b]), x[L.z0:L.v0]


@dataclass
class MilpResult:
    solution: RLSolution
    status: str  # "optimal", "time_limit" or "limit" (another HiGHS limit, e.g. mip_max_nodes)
    gap: float
    dual_bound: float
    runtime: float
    highs_status: str = ""  # HiGHS's status when it stopped short ("" when solved)
    ran: bool = True  # whether the MILP ran (False: no time was left after its start LPs)


def solve_rlfs_mip(X: np.ndarray, y: np.ndarray, C: Any, budget: int, bm: BigM, *,
                   start: RLSolution | None = None, time_limit: float | None = None, mip_gap: float = 0.0,
                   use_cut15: bool = True, options: dict | None = None,
                   on_bounds: Any = None, limits: Any = None) -> MilpResult | None:
    """The exact approach (Sec. 4.2): (RL-FS-M) + (15) + (21) + (22) with Algorithm 1's bounds, the
    initial solution as MIP start, then polishing (:func:`polish`), all within ``time_limit`` seconds. None when
    HiGHS found no solution in the time limit. ``on_bounds``: as for :func:`run_mip`; ``limits``: notes a limit
    that stops the polishing LP (the MILP's own status is the result's)."""
    d = X.shape[1]
    deadline = None if time_limit is None else time.perf_counter() + float(time_limit)
    feats = np.arange(d)
    built = build_rlfs(X, y, C, M=bm.M, U=bm.u, budget=budget, ub_w=bm.ub_w, b_bounds=(bm.lb_b, bm.ub_b),
                       use_cut15=use_cut15)
    x0 = None if start is None else built.start_vector(start, feats)
    opts = merge_options({**MIP_OPTIONS, "mip_rel_gap": float(mip_gap), **(options or {})})
    out = run_mip(built, options=opts, time_limit=_left(deadline), start=x0, on_bounds=on_bounds)
    if out.x is None:
        if out.status == "infeasible":
            raise SolverError("the (RL-FS-M) MILP is infeasible: the big-M bounds cut off every solution",
                              "Infeasible")
        return None
    w, b, z = decode_solution(out.x, built.layout, feats, d)
    sol = polish(X, y, C, w, b, z, options=options, time_limit=_left(deadline), limits=limits)
    if start is not None and start.objective < sol.objective:
        sol = start
    gap = out.gap
    if out.status != "optimal" and np.isfinite(out.dual_bound):
        gap = max(0.0, (sol.objective - out.dual_bound) / max(abs(sol.objective), 1e-12))
    return MilpResult(sol, out.status, gap, out.dual_bound, out.runtime, highs_status=out.highs_status)


def _left(deadline: float | None) -> float | None:
    """Seconds to ``deadline`` (never negative), None without one."""
    return None if deadline is None else max(0.0, deadline - time.perf_counter())


#: The stage a limit that stops (FS-SVM)'s start LPs is noted under (:mod:`svmopt.ramp.limits`).
FS_START_STAGE = "the start LPs ((SVM-l1), then on its B largest coefficients; their usable point is the start)"


def solve_fs_svm(X: np.ndarray, y: np.ndarray, C: Any, budget: int, *, time_limit: float | None = None,
                 mip_gap: float = 0.0, options: dict | None = None,
                 limits: Any = None) -> tuple[MilpResult, RLSolution]:
    """(FS-SVM) (Labbé, Martínez-Merino and Rodríguez-Chía 2019, the paper's comparison model): the budget-constrained
    l1-SVM MILP with ``u = l = UB`` from the top-B (SVM-l1)
    solution, which is also the MIP start. Returns the MILP result and the start.
    ``time_limit`` covers the whole call: the start LPs and the MILP (which gets what the LPs left).

    Every stage has a usable point at a limit (noted on ``limits``, under :data:`FS_START_STAGE` for the start
    LPs): a start LP stopped short gives HiGHS's iterate (or the constant model, whichever has the lower objective,
    :func:`svmopt.ramp.model.solve_svm_l1_within`), cut to the B largest ``|w_k|``, as the start; with no time left
    the MILP does not run (``ran`` False, status "time_limit") and the start is the solution; a MILP stopped before
    it has a solution keeps the start too. The lower bound (``dual_bound``) is the best certified one: the MILP's
    dual bound, or the (SVM-l1) LP's optimum or certified bound ((FS-SVM) is (SVM-l1) with the budget added)."""
    n, d = X.shape
    deadline = None if time_limit is None else time.perf_counter() + float(time_limit)
    tl = _left(deadline)
    w, b, lower, limit, _ = solve_svm_l1_within(X, y, C, options=options, time_limit=tl)
    if limit is not None and limits is not None:
        limits.note(FS_START_STAGE, limit, tl)
    if np.count_nonzero(np.abs(w) > W_TOL) > budget:
        if limit is None:
            keep = np.sort(np.argsort(-np.abs(w), kind="stable")[:budget])
            tl = _left(deadline)
            w, b, _, _, limit = svm_l1_point(X, y, C, features=keep, options=options, time_limit=tl)
            if limit is not None and limits is not None:
                limits.note(FS_START_STAGE, limit, tl)
        else:  # the first LP's usable point, cut to the budget
            w = top_b(w, budget)
    start = RLSolution.from_wb(X, y, w, b, C, ramp_loss=False)

    def result(sol: RLSolution, status: str, bound: float, runtime: float, highs: str, ran: bool) -> MilpResult:
        bound = max(bound, lower) if np.isfinite(bound) else lower
        gap = 0.0 if status == "optimal" else max(0.0, (sol.objective - bound) / max(abs(sol.objective), 1e-12))
        return MilpResult(sol, status, gap, bound, runtime, highs_status=highs, ran=ran)

    if deadline is not None and time.perf_counter() >= deadline:
        return result(start, "time_limit", -INF, 0.0, "Time limit reached", False), start
    U = max(start.objective, 1e-12) * (1 + 1e-9)
    feats = np.arange(d)
    built = build_rlfs(X, y, C, M=np.zeros(n), U=U, budget=budget, ramp_loss=False)
    x0 = built.start_vector(start, feats)
    opts = merge_options({**MIP_OPTIONS, "mip_rel_gap": float(mip_gap), **(options or {})})
    out = run_mip(built, options=opts, time_limit=_left(deadline), start=x0)
    if out.x is None:
        status = "time_limit" if "time" in out.highs_status.lower() else "limit"
        return result(start, status, out.dual_bound, out.runtime, out.highs_status, True), start
    w2, b2, z = decode_solution(out.x, built.layout, feats, d)
    sol = polish(X, y, C, w2, b2, z, ramp_loss=False, options=options, time_limit=_left(deadline), limits=limits)
    if start.objective < sol.objective:
        sol = start
    if out.status == "optimal":
        return MilpResult(sol, "optimal", 0.0, out.dual_bound, out.runtime), start
    return result(sol, out.status, out.dual_bound, out.runtime, out.highs_status, True), start


def should_interrupt(t: float, last_improve: float | None, primal_bound: float, t_fea: float | None,
                     t_inc: float | None) -> bool:
    """Sec. 4.5 time controls of a sub-problem at HiGHS run time ``t``: ``t_fea`` while no feasible solution
    exists, ``t_inc`` measured from the last improvement once one exists."""
    if last_improve is None:
        return t_fea is not None and t > t_fea and primal_bound >= INF
    return t_inc is not None and t - last_improve > t_inc
