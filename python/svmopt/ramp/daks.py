"""The Dynamic Adaptive Kernel Search of paper 001 (Algorithm 2, Sec. 3).

See :mod:`svmopt.ramp` for the column and row layout of the models."""

from __future__ import annotations

import math
import time
from dataclasses import dataclass
from typing import Any

import numpy as np

from svmopt._shared.highs import merge_options
from svmopt._shared.runtime import detailed, progress
from svmopt.ramp.bounds import (
    BigM,
    algorithm1,
)
from svmopt.ramp.model import (
    INF,
    MIP_OPTIONS,
    W_TOL,
    RLSolution,
    build_rlfs,
)
from svmopt.ramp.solve import (
    decode_solution,
    note_outcome,
    polish,
    run_mip,
)

#: The stages a limit of ``solver_options`` that stops a DAKS solve is noted under (:mod:`svmopt.ramp.limits`).
SUB_STAGE = "DAKS's sub-problems (RL-FS-M)(K)_zh (phase 2's kernel K0, phase 3's buckets)"
LB_STAGE = "DAKS's relaxation (Rel_v-RL-FS-M)(D)_zh for LB_zh (phase 2)"
ORDER_STAGE = "DAKS's reduced-cost LP (phase 2)"


# ---------------------------------------------------------------------------------------------------------------
# Dynamic Adaptive Kernel Search (Algorithm 2, Sec. 3)
# ---------------------------------------------------------------------------------------------------------------
@dataclass
class DAKSParams:
    """DAKS parameters with the paper's defaults (Sec. 4.2) and our decisions where the paper leaves them open.

    delta : growth of the kernel+bucket size after an easy sub-problem, in [0, 1] (0.35).
    p : a kernel feature unused in the last ``p`` feasible iterations leaves the kernel (2).
    q : a possible outlier whose ``z`` was equal in the last ``q`` feasible iterations is fixed (2).
    t_easy, t_fea, t_inc, t_limit : sub-problem time controls in seconds (10, 120, 160, 400).
    time_limit : total DAKS time, checked before each sub-problem; each sub-problem's limit is capped by what is
        left (1800; the paper leaves termination to the user and its times overrun the limit).
    tau : threshold of the ``zh`` rules on ``xi`` (1; one strict ``xi > tau + 1e-7`` everywhere, since Sec. 3.1.1,
        Sec. 3.1.2, Algorithm 2 and Table 1 disagree on strict vs non-strict).
    max_phase2 : cap on phase-2 passes (20); a ``(zh, UB)`` pair repeated at phase-2 entry also stops the search.
    a1_max_iter, a1_time_fraction : Algorithm 1's tightening in phase 1 (5 loops, 10% of ``time_limit``; its
        initial solution may use all of ``time_limit``).
    subproblem_bounds : add (21)/(22) to the sub-problems, which the paper's (RL-FS-M)(K)_zh omits (True).
    reorder_every : optional criterion (iii): back to phase 2 after this many phase-3 iterations (None).
    fix_dominated : Algorithm 1 fixes ``z_i = 0`` where a tightened ``M_i < 2`` (True; see :func:`algorithm1`).
    """

    delta: float = 0.35
    p: int = 2
    q: int = 2
    t_easy: float = 10.0
    t_fea: float = 120.0
    t_inc: float = 160.0
    t_limit: float = 400.0
    time_limit: float = 1800.0
    tau: float = 1.0
    max_phase2: int = 20
    a1_max_iter: int = 5
    a1_time_fraction: float = 0.1
    subproblem_bounds: bool = True
    reorder_every: int | None = None
    fix_dominated: bool = True


_ZH_TOL = 1e-7


def zh_initial(sol: RLSolution, tau: float) -> np.ndarray:
    """Phase 1 (Sec. 3.1.1): 1 if z = 1; 2 if z = 0 and xi > tau; 0 otherwise."""
    zh = np.zeros(sol.z.shape[0], dtype=np.int8)
    zh[(sol.z < 0.5) & (sol.xi > tau + _ZH_TOL)] = 2
    zh[sol.z > 0.5] = 1
    return zh


def zh_phase2_update(zh: np.ndarray, cur: RLSolution, margins: np.ndarray, tau: float) -> np.ndarray:
    """P2.6: zh 0 -> 2 when xi > tau; zh 1 -> 2 when ``y_i f(x_i) >= 0`` (``margins`` = ``y f`` of ``cur``)."""
    new = zh.copy()
    new[(zh == 0) & (cur.xi > tau + _ZH_TOL)] = 2
    new[(zh == 1) & (margins >= 0.0)] = 2
    return new


def zh_table1_update(zh: np.ndarray, cur: RLSolution, margins: np.ndarray, hist: np.ndarray, q: int,
                     tau: float) -> tuple[np.ndarray, np.ndarray]:
    """Table 1 after a feasible phase-3 iteration ("the last q solutions": the feasible phase-3 ones while ``zh_i =
    2``). ``hist`` (n, q) holds the last q values of z for
    points with zh = 2 (-1 = empty); it is appended here and reset where zh changes. Returns (zh, hist)."""
    new = zh.copy()
    hist = hist.copy()
    two = zh == 2
    hist[two, :-1] = hist[two, 1:]
    hist[two, -1] = (cur.z[two] > 0.5).astype(hist.dtype)
    full = two & (hist[:, 0] >= 0)
    new[full & np.all(hist == 1, axis=1)] = 1
    new[full & np.all(hist == 0, axis=1)] = 0
    new[(zh == 0) & (cur.xi > tau + _ZH_TOL)] = 2
    new[(zh == 1) & (margins >= 0.0)] = 2
    hist[new != zh] = -1
    return new, hist


def reduced_cost_order(wp: np.ndarray, wm: np.ndarray, rp: np.ndarray, rm: np.ndarray) -> np.ndarray:
    """P2.3: ``r_k = -(wp_k + wm_k)`` if positive weight, else ``min(r+_k, r-_k)``; stable non-decreasing sort."""
    s = wp + wm
    r = np.where(s > W_TOL, -s, np.minimum(rp, rm))
    return np.argsort(r, kind="stable")


def next_bucket(order: np.ndarray, ptr: int, S: int, kernel_size: int) -> tuple[np.ndarray, int]:
    """The bucket: the next ``max(1, S - |K|)`` unused indices of the ordered list (each index once per pass)."""
    size = max(1, S - kernel_size)
    bucket = order[ptr:ptr + size]
    return bucket, ptr + bucket.size


def grow_size(S: int, runtime: float, t_easy: float, delta: float) -> int:
    """Sec. 3.1.3: ``S := ceil((1 + delta) S)`` after an easy sub-problem (time <= t_Easy), else unchanged."""
    return math.ceil((1.0 + delta) * S) if runtime <= t_easy else S


def cover_features(bucket: np.ndarray, in_kernel: np.ndarray, best_selected: np.ndarray, it: int,
                   prev_feasible_not_optimal: bool) -> np.ndarray:
    """(25) ``sum_{B_it} v >= 1``, or (26) ``sum_{B_it u {k in K: vbar_k = 0}} v >= 1`` when the previous
    iteration found a feasible but not proven-optimal solution (vbar normalised to ``1[|w_k| > tol]``)."""
    if it > 0 and prev_feasible_not_optimal:
        kk = np.flatnonzero(in_kernel)
        return np.concatenate([bucket, kk[~best_selected[kk]]])
    return bucket


def kernel_update(in_kernel: np.ndarray, since_sel: np.ndarray, bucket: np.ndarray, selected: np.ndarray,
                  p: int) -> tuple[np.ndarray, np.ndarray]:
    """K+ = selected bucket features; K- = kernel features unselected in each of the last ``p`` feasible
    iterations; ``K := (K u K+) \\ K-``. Returns the new membership mask and counters."""
    inK, since = in_kernel.copy(), since_sel.copy()
    kidx = np.flatnonzero(inK)
    since[kidx] = np.where(selected[kidx], 0, since[kidx] + 1)
    kplus = bucket[selected[bucket]]
    kminus = kidx[since[kidx] >= p]
    inK[kplus] = True
    inK[kminus] = False
    since[kplus] = 0
    return inK, since


@dataclass
class DAKSResult:
    solution: RLSolution
    initial: RLSolution
    bigm: BigM
    status: str  # "heuristic" or "time_limit"
    stop_reason: str  # "rule_i", "cycle", "max_phase2", "time_limit", "limit" (phase 2 stopped without a point)
    n_phase2: int
    n_subproblems: int
    ub_history: list


class _DAKS:
    def __init__(self, X, y, C, budget, params: DAKSParams, options, seed_options, verbose, variant: str,
                 limits: Any = None):
        self.X, self.y, self.C, self.B = X, y, C, budget
        self.limits = limits
        self.variant = variant
        self.n, self.d = X.shape
        self.P = params
        self.lp_options = options
        self.mip_options = merge_options({**MIP_OPTIONS, **seed_options, **(options or {})})
        self.verbose = verbose
        self.n_sub = 0

    def log(self, msg, *, result: bool = False):
        """A line of the log: from ``verbose >= 2``, or from ``verbose`` for the ``result``."""
        if detailed(self.verbose) or (result and self.verbose):
            print(f"[DAKS] {msg}")

    def remaining(self) -> float:
        return self.deadline - time.perf_counter()

    def build(self, feats, zh, *, cutoff=INF, cover=None, relax_v=False):
        bm, P = self.bm, self.P
        ub_w, b_bounds = (bm.ub_w, (bm.lb_b, bm.ub_b)) if P.subproblem_bounds else (INF, (-INF, INF))
        return build_rlfs(self.X[:, feats], self.y, self.C, M=bm.M, U=bm.u, budget=self.B, zh=zh,
                          cutoff=cutoff, cover=cover, int_v=not relax_v, ub_w=ub_w, b_bounds=b_bounds)

    def solve_restricted(self, feats, zh, *, cutoff=INF, cover=None):
        """(RL-FS-M)(K)_zh [+ (24) + (25)/(26)] under t_limit / t_fea / t_inc; polished solution or None."""
        feats = np.asarray(feats, dtype=np.intp)
        built = self.build(feats, zh, cutoff=cutoff, cover=cover)
        start = built.start_vector(self.best, feats)
        tl = min(self.P.t_limit, max(self.remaining(), 1e-3))
        out = run_mip(built, options=self.mip_options, time_limit=tl, start=start, t_fea=self.P.t_fea,
                      t_inc=self.P.t_inc)
        note_outcome(self.limits, SUB_STAGE, out, tl)
        self.n_sub += 1
        if out.x is None:
            return None, out
        w, b, z = decode_solution(out.x, built.layout, feats, self.d)
        sol = polish(self.X, self.y, self.C, w, b, z, options=self.lp_options, time_limit=max(self.remaining(), 0.0),
                     limits=self.limits)
        return sol, out

    def margins(self, sol):
        return self.y * (self.X @ sol.w + sol.b)

    def phase2(self, zh):
        """P2.1 - P2.3: LB_zh, the reduced-cost order and K0."""
        allf = np.arange(self.d)
        built = self.build(allf, zh, relax_v=True)
        tl = max(min(self.P.t_limit, self.remaining()), 1e-3)
        out = run_mip(built, options=self.mip_options, time_limit=tl, start=built.start_vector(self.best, allf))
        note_outcome(self.limits, LB_STAGE, out, tl)
        if out.x is None:
            return None
        lb = out.objective if out.status == "optimal" else out.dual_bound
        L = built.layout
        zsol = np.round(out.x[L.z0:L.v0])
        zfix = np.where(zsol > 0.5, 1, 0).astype(np.int8)
        zfix[zh == 1] = 1
        lpb = self.build(allf, zfix, relax_v=True)
        lpb.integrality[:] = 0
        tl = max(min(self.P.t_limit, self.remaining()), 1e-3)
        lp = run_mip(lpb, options=merge_options(self.lp_options), time_limit=tl)
        note_outcome(self.limits, ORDER_STAGE, lp, tl)
        if lp.x is None or lp.col_dual is None:
            return None
        m = L.m
        wp, wm = lp.x[:m], lp.x[m:2 * m]
        rp, rm = lp.col_dual[:m], lp.col_dual[m:2 * m]
        order = reduced_cost_order(wp, wm, rp, rm)
        k0 = np.flatnonzero(wp + wm > W_TOL)
        return lb, order, k0

    def run(self, t_start: float) -> DAKSResult:
        X, y, P = self.X, self.y, self.P
        self.deadline = t_start + P.time_limit
        # The bar: in each phase-2 pass, the features of its ordered list handed out in buckets (a known total).
        bar = progress(self.verbose, None, "RampLossSVC DAKS")
        bar.set_postfix_str("phase 1 (Algorithm 1)")
        # ---- phase 1 ----
        variant = self.variant
        self.bm, init = algorithm1(X, y, self.C, self.B, variant=variant, max_iter=P.a1_max_iter,
                                   time_limit=P.a1_time_fraction * P.time_limit, options=self.lp_options,
                                   verbose=detailed(self.verbose), fix_dominated=P.fix_dominated,
                                   limits=self.limits, initial_time_limit=max(self.remaining(), 0.0))
        self.best = init
        ub = init.objective
        cur = init
        ub_hist = [ub]
        zh = zh_initial(init, P.tau)
        first = True
        seen = set()
        n_p2 = 0
        stop = None
        while True:
            if self.remaining() <= 0:
                stop = "time_limit"
                break
            key = (zh.tobytes(), round(ub, 9))
            if key in seen:
                stop = "cycle"
                break
            if n_p2 >= P.max_phase2:
                stop = "max_phase2"
                break
            seen.add(key)
            n_p2 += 1
            # ---- phase 2 ----
            bar.set_postfix_str(f"pass {n_p2}: LB_zh and the order (phase 2), UB={ub:.6g}")
            p2 = self.phase2(zh)
            if p2 is None:  # no time left, or a limit of the options stopped its solves without a point
                stop = "time_limit" if self.remaining() <= 0 else "limit"
                break
            lb_zh, order, K = p2
            if first:
                K = np.union1d(K, init.support)
                first = False
            zh_lb = zh.copy()
            self.log(f"phase 2 pass {n_p2}: LB_zh = {lb_zh:.6g}, |K0| = {K.size}, UB = {ub:.6g}, "
                     f"zh counts {np.bincount(zh, minlength=3).tolist()}")
            bar.set_postfix_str(f"pass {n_p2}: the kernel K0, UB={ub:.6g} LB_zh={lb_zh:.6g}")
            sol, _ = self.solve_restricted(K, zh)
            if sol is not None:
                cur = sol
                if sol.objective < ub:
                    self.best, ub = sol, sol.objective
                    ub_hist.append(ub)
            zh = zh_phase2_update(zh, cur, self.margins(cur), P.tau)
            hist = np.full((self.n, P.q), -1, dtype=np.int8)
            since_sel = np.zeros(self.d, dtype=np.int64)
            inK = np.zeros(self.d, dtype=bool)
            inK[K] = True
            Lst = order[~inK[order]]
            ptr = 0
            bar.reset(total=Lst.size or math.inf)
            bar.set_postfix_str(f"pass {n_p2}: UB={ub:.6g} LB_zh={lb_zh:.6g}")
            S = 2 * max(1, int(inK.sum()))  # decision: the paper only gives the growth rule; S_0 = 2 max(1, |K0|)
            it = 0
            prev_feas_not_opt = False
            # ---- phase 3 ----
            while True:
                if self.remaining() <= 0:
                    stop = "time_limit"
                    break
                bucket, ptr = next_bucket(Lst, ptr, S, int(inK.sum()))
                if bucket.size == 0:
                    break  # criterion (iii): bucket list exhausted -> phase 2
                cover_feats = cover_features(bucket, inK, np.abs(self.best.w) > W_TOL, it, prev_feas_not_opt)
                feats = np.sort(np.concatenate([np.flatnonzero(inK), bucket]))
                cover = np.searchsorted(feats, cover_feats)
                zh_used = zh.copy()
                cutoff = ub + 1e-9 * max(1.0, abs(ub))  # (24)
                sol, out = self.solve_restricted(feats, zh, cutoff=cutoff, cover=cover)
                self.log(f"  phase 3 it {it}: |K| = {int(inK.sum())}, bucket {bucket.size}, status {out.status}, "
                         f"obj {sol.objective if sol is not None else float('nan'):.6g}, {out.runtime:.2f}s")
                if sol is not None:
                    cur = sol
                    if sol.objective < ub:
                        ub_hist.append(sol.objective)
                    if sol.objective <= ub:
                        self.best, ub = sol, sol.objective
                    prev_feas_not_opt = out.status != "optimal"
                    inK, since_sel = kernel_update(inK, since_sel, bucket, np.abs(sol.w) > W_TOL, P.p)
                    zh, hist = zh_table1_update(zh, sol, self.margins(sol), hist, P.q, P.tau)
                else:
                    prev_feas_not_opt = False
                bar.set_postfix_str(f"pass {n_p2} bucket {it + 1}: |K|={int(inK.sum())} UB={ub:.6g} "
                                    f"LB_zh={lb_zh:.6g}", refresh=False)
                bar.update(bucket.size)
                eq = abs(ub - lb_zh) <= 1e-6 * max(1.0, abs(ub))
                same = bool(np.array_equal(zh_used, zh_lb))
                changed = not np.array_equal(zh, zh_used)
                if eq and same and not changed:
                    stop = "rule_i"
                    break
                if eq and same and changed:
                    break  # rule (ii)
                if P.reorder_every is not None and it + 1 >= P.reorder_every:
                    break  # criterion (iii), user count
                S = grow_size(S, out.runtime, P.t_easy, P.delta)
                it += 1
            if stop is not None:
                break
        bar.close()
        status = "time_limit" if stop == "time_limit" else "heuristic"
        self.log(f"stop ({stop}) after {n_p2} phase-2 passes, {self.n_sub} sub-problems: UB = {ub:.6g}", result=True)
        return DAKSResult(self.best, init, self.bm, status, stop, n_p2, self.n_sub, ub_hist)


def daks(X: np.ndarray, y: np.ndarray, C: Any, budget: int, *, params: DAKSParams | None = None,
         variant: str = "variant1", options: dict | None = None, seed_options: dict | None = None,
         verbose: bool | int = False, limits: Any = None) -> DAKSResult:
    """Dynamic Adaptive Kernel Search (Algorithm 2, Sec. 3) with the decisions documented on :class:`DAKSParams` and the
    functions below.

    Phase 1 runs Algorithm 1 (at most ``a1_max_iter`` loops / ``a1_time_fraction`` of the time); phase 2 solves
    (Rel_v-RL-FS-M)(D)_zh for LB_zh, orders the features by reduced costs and solves (RL-FS-M)(K0)_zh; phase 3
    walks the buckets with (24) and (25)/(26), the K+/K- rules and the Table-1 zh update; stopping rules (i), (ii),
    (iii) (bucket list exhausted); the outer loop stops on the total time, ``max_phase2`` or a repeated
    ``(zh, UB)`` pair at phase-2 entry (cycle detection). The returned solution is never worse than the
    Algorithm-1 initial solution. ``verbose``: a progress bar of each phase-2 pass (the features of its ordered list
    handed out in buckets; the incumbent UB and LB_zh in the postfix) and the stop line; ``verbose >= 2`` also the
    log of Algorithm 1's loops, every phase-2 pass and phase-3 sub-problem. ``limits`` (a
    :class:`svmopt.ramp.limits.SolveLimits`) notes the solves a limit stopped short (a limit of ``options`` or the
    fit's deadline; DAKS's own t_limit, t_fea and t_inc are the method's): every sub-problem, relaxation and LP is
    given what is left of ``time_limit`` (or ``t_limit`` when smaller), its polishing LP included.
    """
    t0 = time.perf_counter()
    engine = _DAKS(X, y, C, budget, params or DAKSParams(), options, seed_options or {}, verbose, variant, limits)
    return engine.run(t0)
