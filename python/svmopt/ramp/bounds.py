"""Algorithm 1 of paper 001 (Sec. 2): the big-M bounds from bounding LPs on one reused HiGHS model.

See :mod:`svmopt.ramp` for the column and row layout of the models."""

from __future__ import annotations

import time
import warnings
from dataclasses import dataclass, field
from typing import Any

import numpy as np
from sklearn.exceptions import ConvergenceWarning

from svmopt._shared.highs import merge_options
from svmopt._shared.sparse import is_sparse
from svmopt.exceptions import SolverError
from svmopt.ramp.model import (
    INF,
    LP_OPTIONS,
    ZERO_M,
    RLSolution,
    build_rlfs,
    class_diameters,
    initial_solution,
)
from svmopt.ramp.sparse_rows import canonical_csr, column_bounds, signed_row

#: The stage a limit that stops one of Algorithm 1's bounding LPs is noted under (:mod:`svmopt.ramp.limits`).
BOUNDS_STAGE = "Algorithm 1's bounding LPs (the big-Ms found before are valid, only looser)"


# ---------------------------------------------------------------------------------------------------------------
# Algorithm 1
# ---------------------------------------------------------------------------------------------------------------
@dataclass
class BigM:
    """Bounds from Algorithm 1 (Sec. 2), valid for every optimal solution of (RL-FS).

    Attributes
    ----------
    M : ndarray (n,)
        Big-M of (13) per training point.
    u : float
        ``u_k = l_k`` of (10)/(11) (UB, then UB_w).
    ub_w : float
        Bound (21) on ``wp_k + wm_k`` and on ``||w||_1`` (inf when (UB-w) was not solved).
    lb_b, ub_b : float
        Bounds (22) on the intercept (-inf/inf when not computed).
    ub : float
        Objective value of the initial solution (an upper bound on the optimum).
    variant : str
        "variant1", "variant2" or "initial" (Ms of step 2 only).
    n_iter : int
        Loop iterations (lines 7-11) run.
    history : list of dict
        Per iteration: ``ub_w`` and ``mean_M``.
    """

    M: np.ndarray
    u: float
    ub_w: float
    lb_b: float
    ub_b: float
    ub: float
    variant: str
    n_iter: int = 0
    history: list = field(default_factory=list)


class BoundingLP:
    """The LP relaxation of (RL-FS-M) + (15) + (18) shared by every bounding LP of Algorithm 1.

    Built once (vectorised); between solves only the costs, the bounds of ``v`` / (6) / (21) / ``b`` and single
    ``z_i`` coefficients of (13) change, and HiGHS re-solves from the previous basis.
    """

    def __init__(self, X, y, C, budget, M, U, ub, use_cut15, options, deadline, limits: Any = None):
        self.built = build_rlfs(X, y, C, M=M, U=U, budget=budget, cutoff=ub + 1e-9 * max(1.0, abs(ub)),
                                scaled_v=True, int_z=False, int_v=False, use_cut15=use_cut15)
        self.L = self.built.layout
        self.budget = budget
        self.cost = np.zeros(self.L.n_cols)
        self.model = self.built.model(merge_options({**LP_OPTIONS, **(options or {})}), cost=self.cost)
        self.deadline = deadline
        self.limits = limits  # a svmopt.ramp.limits.SolveLimits noting the LPs a limit stops, or None
        self.M = np.array(M, dtype=np.float64)
        self.n_solves = 0
        self.warm_start = False  # see algorithm1(warm_start=...)

    def optimum(self, idx: np.ndarray, coef: np.ndarray, *, maximize: bool) -> float | None:
        """Optimal value of ``max/min coef . x[idx]``; None when the time budget ran out first."""
        full = np.zeros(self.L.n_cols)
        full[idx] = -coef if maximize else coef
        changed = np.flatnonzero(full != self.cost)
        if changed.size:
            self.model.change_costs(changed, full[changed], warm_start=self.warm_start)
        self.cost = full
        remaining = self.deadline - time.perf_counter()
        if remaining <= 0:
            if self.limits is not None and self.limits.expired():
                self.limits.cut(BOUNDS_STAGE)
            return None
        self.model.set_option("time_limit", float(remaining))
        try:
            with warnings.catch_warnings():
                warnings.simplefilter("ignore", ConvergenceWarning)
                res = self.model.solve()
        except SolverError as exc:
            st = (exc.status or "").lower()
            if "limit" in st or "interrupt" in st:  # stopped without a point: the bounds so far stay valid
                self._note(str(exc.status), remaining)
                return None
            raise
        self.n_solves += 1
        if not res.optimal:
            self._note(res.status, remaining)
            return None
        return -res.objective if maximize else res.objective

    def _note(self, status: str, time_limit: float) -> None:
        if self.limits is not None:
            self.limits.note(BOUNDS_STAGE, status, time_limit)

    def set_u(self, U: float) -> None:
        L = self.L
        self.model.change_col_bounds(np.arange(L.v0, L.n_cols), 0.0, U)
        self.model.change_row_bounds(L.r6, -INF, self.budget * U)
        self.model.change_row_bounds(np.arange(L.r21, L.r21 + L.m), -INF, U)

    def set_b_bounds(self, lo: float, hi: float) -> None:
        self.model.change_col_bounds(self.L.b, lo, hi)

    def set_m(self, i: int, value: float) -> None:
        """Gauss-Seidel update of one M_i (each update valid, so used at once): the coefficient of z_i in its row
        (13)."""
        self.M[i] = value
        self.model.change_coeff(int(i), int(self.L.z0 + i), float(value))
        if value <= ZERO_M:
            self.model.change_col_bounds(int(self.L.z0 + i), 0.0, 0.0)

    def set_m_all(self, M: np.ndarray) -> None:
        for i in np.flatnonzero(M != self.M):  # only the coefficients that changed
            self.set_m(int(i), float(M[i]))


_DOMINATED_M = 2.0 - 1e-9


def tighten_bound(old: float, value: float, fix_dominated: bool = True) -> float:
    """``min(old, max(0, value))`` with a 1e-9 relative safety margin for the LP tolerance.

    With ``fix_dominated`` an ``M_i < 2`` becomes 0 (so ``z_i`` is fixed to 0). Decision (an extension of the
    tightening, not in the paper): if ``M_i < 2``, any solution with ``z_i = 1`` (hence ``xi_i = 0`` by (15)) satisfies
    ``1 - y_i f(x_i) <= M_i < 2``, and switching to ``z_i = 0``, ``xi_i = max(0, 1 - y_i f(x_i))`` keeps every other
    constraint and lowers the objective by at least ``C (2 - M_i) > 0``; so no optimal solution has ``z_i = 1``, and
    ``M_i := 0`` is valid."""
    m = value + 1e-9 * (1.0 + abs(value))
    if m <= ZERO_M or (fix_dominated and m < _DOMINATED_M):
        m = 0.0
    return min(old, m)


def _fix_dominated(M: np.ndarray, on: bool) -> np.ndarray:
    return np.where(M < _DOMINATED_M, 0.0, M) if on else M


def algorithm1(X: np.ndarray, y: np.ndarray, C: float, budget: int, *, variant: str = "variant1",
               max_iter: int = 30, tol: float = 1e-4, time_limit: float | None = None,
               rebound_b_in_loop: bool = False, use_cut15: bool = True, fix_dominated: bool = True,
               warm_start: bool = False, options: dict | None = None,
               verbose: bool = False, limits: Any = None,
               initial_time_limit: float | None = INF) -> tuple[BigM, RLSolution]:
    """Algorithm 1 (Sec. 2.1-2.2): initial solution and UB, initial Ms, (UB-w), (LB-b)/(UB-b), then the
    loop of (UB-w) and the M LPs -- one LP per point (``"variant1"``, (UB_Mi)) or per class (``"variant2"``,
    (UB_M+)/(UB_M-)) -- until no bound drops by more than ``tol * max(1, old)`` or ``max_iter`` loops (decision: the
    paper's "while an improvement is obtained" has no threshold).

    ``variant="initial"`` stops after step 2 (``M_i = Delta_i UB``, ``u = l = UB``; no (21)/(22)). Decisions: (15) in
    every LP (the paper's list skips it, yet it says (RL-FS-M) includes it), ``min(old, new)`` updates ("repeat steps 6
    and 7" would overwrite tightened Ms), M floored at 0 and updated sequentially; ``fix_dominated`` (default True) sets
    every tightened ``M_i < 2`` to 0, which fixes ``z_i = 0`` (see :func:`tighten_bound`; valid because C > 0) and skips
    that point's later (UB_Mi) LPs. ``time_limit`` covers every LP, the initial solution's included unless
    ``initial_time_limit`` (seconds, None: no limit) gives those their own (DAKS: the search's time, the tightening
    only a share of it); a time limit (or a limit of ``options``) stops the tightening early: the bounds found so
    far stay valid, and the initial solution is the best usable point its LPs reached
    (:func:`svmopt.ramp.model.initial_solution`). ``limits`` (a :class:`svmopt.ramp.limits.SolveLimits`) notes the
    stages a limit stopped.

    All bounding LPs share one HiGHS model (built once); between solves only costs, bounds and single z
    coefficients change. ``warm_start=False`` (default) clears the solver state before each re-solve (no second
    ``passModel``); ``True`` starts from the previous basis. Measured in ``benchmarks/asv/bench_ramp.py::BigMSweep``
    (one Variant-I sweep, d = 10): n = 60: cold 0.18 s, warm 0.30 s, rebuilding the LP per point 0.37 s;
    n = 150: cold 1.39 s, warm 2.36 s, rebuild 1.97 s. After an objective change the old basis is far from
    optimal for the new (UB_Mi) objective and the dual simplex needs more iterations from it than from scratch.
    """
    t0 = time.perf_counter()
    deadline = t0 + (INF if time_limit is None else time_limit)
    sol, ub = initial_solution(X, y, C, budget, options=options, limits=limits,
                               time_limit=time_limit if initial_time_limit == INF else initial_time_limit)
    delta = class_diameters(X, y)
    M = delta * ub
    bm = BigM(M=M, u=ub, ub_w=INF, lb_b=-INF, ub_b=INF, ub=ub, variant=variant)
    if verbose:
        print(f"[Algorithm 1] initial solution: UB = {ub:.6g}, support {sol.support.size}, "
              f"outliers {int(sol.z.sum())}")
    if variant == "initial" or ub <= 0:
        return bm, sol
    if time.perf_counter() >= deadline:  # the initial solution's LPs used the time
        if limits is not None and limits.expired():
            limits.cut(BOUNDS_STAGE)
        return bm, sol
    lp = BoundingLP(X, y, C, budget, M, ub, ub, use_cut15, options, deadline, limits)
    lp.warm_start = warm_start
    L = lp.L
    wcols = np.arange(2 * L.m)
    ones_w = np.ones(2 * L.m)
    val = lp.optimum(wcols, ones_w, maximize=True)  # line 4: (UB-w)
    if val is None:
        return bm, sol
    bm.ub_w = min(ub, max(0.0, val + 1e-9 * (1.0 + abs(val))))
    bm.u = bm.ub_w
    M = _fix_dominated(np.minimum(M, delta * bm.ub_w), fix_dominated)  # line 5, never above the tightened M
    lp.set_u(bm.u)
    lp.set_m_all(M)
    bm.M = lp.M.copy()
    lb = lp.optimum(np.array([L.b]), np.ones(1), maximize=False)  # line 6: (LB-b), (UB-b)
    hb = lp.optimum(np.array([L.b]), np.ones(1), maximize=True) if lb is not None else None
    if lb is None or hb is None:
        return bm, sol
    slack = 1e-9 * (1.0 + max(abs(lb), abs(hb)))
    bm.lb_b, bm.ub_b = lb - slack, hb + slack
    lp.set_b_bounds(bm.lb_b, bm.ub_b)
    if verbose:
        print(f"[Algorithm 1] UB_w = {bm.ub_w:.6g}, b in [{bm.lb_b:.6g}, {bm.ub_b:.6g}]")

    # (UB_Mi)'s objective rows y_i x_i: all at once for a dense X, one at a time from a sparse X's row i (never n x d)
    Xr = canonical_csr(X) if is_sparse(X) else None
    Yx = y[:, None] * X if Xr is None else None
    n = X.shape[0]
    if variant == "variant2":  # the class's column bounds (a sparse X over its nonzeros)
        pos, neg = y > 0, y < 0
        lo_p, hi_p = column_bounds(X[pos])
        lo_n, hi_n = column_bounds(X[neg])
    idx_i = np.concatenate([wcols, [L.b], [0]])
    for it in range(max_iter):  # lines 7-11
        old_ubw, old_M = bm.ub_w, lp.M.copy()
        val = lp.optimum(wcols, ones_w, maximize=True)  # line 8
        if val is None:
            break
        bm.ub_w = tighten_bound(bm.ub_w, val, False)
        bm.u = bm.ub_w
        lp.set_u(bm.u)
        lp.set_m_all(_fix_dominated(np.minimum(lp.M, delta * bm.ub_w), fix_dominated))
        if rebound_b_in_loop:
            lb = lp.optimum(np.array([L.b]), np.ones(1), maximize=False)
            hb = lp.optimum(np.array([L.b]), np.ones(1), maximize=True) if lb is not None else None
            if lb is None or hb is None:
                break
            slack = 1e-9 * (1.0 + max(abs(lb), abs(hb)))
            bm.lb_b, bm.ub_b = max(bm.lb_b, lb - slack), min(bm.ub_b, hb + slack)
            lp.set_b_bounds(bm.lb_b, bm.ub_b)
        timed_out = False
        if variant == "variant1":  # line 9: (UB_Mi), one LP per point, sequential updates
            for i in range(n):
                if lp.M[i] <= 0.0:
                    continue
                idx_i[-1] = L.xi0 + i
                yx = signed_row(Xr, y, i) if Xr is not None else Yx[i]  # type: ignore[index]
                coef = np.concatenate([-yx, yx, [-y[i]], [-1.0]])
                v = lp.optimum(idx_i, coef, maximize=True)
                if v is None:
                    timed_out = True
                    break
                lp.set_m(i, tighten_bound(lp.M[i], 1.0 + v, fix_dominated))
        else:  # line 10: (UB_M+), (UB_M-)
            idx2 = np.concatenate([wcols, [L.b]])
            for cls, coef in ((1.0, np.concatenate([-lo_p, hi_p, [-1.0]])),
                              (-1.0, np.concatenate([hi_n, -lo_n, [1.0]]))):
                v = lp.optimum(idx2, coef, maximize=True)
                if v is None:
                    timed_out = True
                    break
                members = y == cls
                newM = lp.M.copy()
                newM[members] = np.minimum(lp.M[members], tighten_bound(INF, 1.0 + v, fix_dominated))
                lp.set_m_all(newM)
        bm.M = lp.M.copy()
        bm.n_iter = it + 1
        bm.history.append({"ub_w": bm.ub_w, "mean_M": float(bm.M.mean())})
        if verbose:
            print(f"[Algorithm 1] iteration {it + 1}: UB_w = {bm.ub_w:.6g}, mean M = {bm.M.mean():.6g}")
        if timed_out:
            break
        improved = (old_ubw - bm.ub_w > tol * max(1.0, old_ubw)) or bool(
            np.any(old_M - bm.M > tol * np.maximum(1.0, old_M)))
        if not improved:
            break
    bm.M = lp.M.copy()
    return bm, sol
