"""Paper 001's l1-SVMs at scale: (SVM-l1), (FS-SVM) and (RL-FS) by cutting planes, one pass over the data per
iteration, and the ramp loss by the concave-convex procedure (CCCP).

(SVM-l1) and (FS-SVM) are the model of :mod:`svmopt._shared.cutting_plane` with ``Phi = X``, ``a = 1`` and no robust
term (``gamma = -b``); (FS-SVM)'s master is a small MILP whose only binaries are the d feature indicators. Both are
solved exactly, to a certified relative gap.

(RL-FS) is ``min ||w||_1 + C sum_i ramp(t_i)`` over ``||w||_0 <= B`` with ``t_i = y_i f(x_i)`` and Brooks' ramp
``ramp(t) = min(2, max(0, 1 - t))`` (eqs. (1)-(3)). Collobert, Sinz, Weston & Bottou ("Trading convexity for
scalability", ICML 2006) write the ramp as a convex minus a convex function,
``ramp(t) = max(0, 1 - t) - max(0, -1 - t)``, and CCCP replaces the concave part by its tangent at the current
iterate: for the current outliers O = {i : t_i < -1} the tangent is ``-(-1 - t)``, elsewhere 0. Each step is then the
convex problem

    min ||w||_1 + C [ sum_{i not in O} max(0, 1 - t_i) + sum_{i in O} (2 + max(0, t_i - 1)) ]   s.t. ||w||_0 <= B,

an (FS-SVM) whose rows in O have label -y_i and margin offset a_i = -1, solved by the same cutting planes, started
at the current iterate. The step's objective majorises the ramp objective and equals it at the iterate, and the step
returns a point no worse than its start, so the ramp objective never increases. The procedure stops when the outlier
set repeats. It finds a local optimum (a fixed point of the procedure), not a certified global one: starts from the
(FS-SVM) solution and from ``n_init - 1`` perturbations of it, the best kept.
"""

from __future__ import annotations

import hashlib
import time
from dataclasses import dataclass, field
from typing import Any

import numpy as np
from sklearn.utils import check_random_state

from svmopt._shared.cutting_plane import CutSolution, HingeCuttingPlanes
from svmopt._shared.dask import has_sparse_chunks, is_dask_array
from svmopt._shared.runtime import detailed, progress
from svmopt._shared.sparse import as_csr, column_moments, is_sparse
from svmopt.ramp.model import top_b

#: Rows per block of a pass over linear rows: 1,024 x 50 float64 rows (400 KiB) stay in cache between the two
#: products of a block; measured at 10^6 x 50 on 2 threads, 0.050 s a pass (4,096: 0.15 s).
LINEAR_BLOCK = 1024


class LinearCuttingPlanes(HingeCuttingPlanes):
    """:class:`HingeCuttingPlanes` on the linear rows ``Phi = X`` (a numpy array, a float64 memmap, a Dask array of
    dense or of scipy sparse chunks, or a scipy sparse matrix; sparse rows make each pass O(nnz) by scipy's CSR
    products, on each chunk where it is for a Dask array) with labels ``y`` in {-1, +1}; ``budget`` None or >= d: no
    budget."""

    def __init__(self, X: Any, y: np.ndarray, *, budget: int | None = None, n_threads: int = 0,
                 n_groups: int | None = None, solver_options: Any = None, weight: np.ndarray | None = None):
        d = X.shape[1]
        super().__init__(y, np.zeros(d), Phi=X, budget=budget if budget is not None and budget < d else None,
                         n_threads=n_threads, block=LINEAR_BLOCK, n_groups=n_groups, solver_options=solver_options,
                         weight=weight)

    def ramp_objective(self, w: np.ndarray, t: np.ndarray, C: float) -> float:
        """``||w||_1 + C sum_i w_i ramp(t_i)`` (the engine's sample weights ``w_i``, 1 without them)."""
        r = ramp_values(t)
        return float(np.abs(w).sum() + C * (r.sum() if self.weight is None else self.weight @ r))

    def wb(self, sol: CutSolution) -> tuple[np.ndarray, float]:
        """``(w, b)`` of a solution (``b = -gamma``)."""
        return sol.v.copy(), -float(sol.gamma)


def solve_fs(engine: LinearCuttingPlanes, C: float, budget: int | None, *, tol: float, max_iter: int,
             deadline: float | None = None, certify_time: float | None = 0.0) -> CutSolution:
    """(SVM-l1) (``budget`` None) or (FS-SVM) on the engine's rows (labels as set, offsets 1).

    With a budget, (SVM-l1) is solved first to ``max(tol, 1e-3)`` by the LP master; its ``budget`` largest
    coefficients are the start of the support search (:meth:`HingeCuttingPlanes.solve`), which keeps the cuts (they
    do not depend on the budget) and certifies with the MILP master within ``certify_time`` seconds (None: no
    limit, the exact (FS-SVM); 0: no certificate, a local method)."""
    if budget is None or budget >= engine.L:
        engine.set_budget(None)
        return engine.solve(C, tol=tol, max_iter=max_iter, deadline=deadline)
    engine.set_budget(None)
    relaxed = engine.solve(C, tol=max(tol, 1e-3), max_iter=max_iter, deadline=deadline)
    engine.set_budget(budget)
    sol = engine.solve(C, tol=tol, max_iter=max(1, max_iter - relaxed.n_iter), deadline=deadline,
                       start=(top_b(relaxed.v, budget), relaxed.gamma), certify_time=certify_time)
    sol.n_iter += relaxed.n_iter
    sol.limits = list(dict.fromkeys(relaxed.limits + sol.limits))
    return sol


def ramp_values(t: np.ndarray) -> np.ndarray:
    return np.minimum(2.0, np.maximum(0.0, 1.0 - t))


def _outlier_key(out: np.ndarray) -> bytes:
    return hashlib.blake2b(np.packbits(out).tobytes(), digest_size=16).digest()


@dataclass
class CCCPRun:
    """One CCCP run from one start."""

    w: np.ndarray
    b: float
    objective: float  # ||w||_1 + C sum ramp
    scores: np.ndarray  # X w
    n_steps: int
    n_passes: int
    objectives: list[float]  # the ramp objective at the start and after each step
    step_gaps: list[float]  # each convex step's certified relative gap (with a budget: on the support found)
    converged: bool  # the outlier set repeated
    timed_out: bool
    limits: list[str] = field(default_factory=list)  # as CCCPResult.limits, for this run's steps


@dataclass
class CCCPResult:
    """The best of the runs, and what each run did."""

    best: CCCPRun
    initial_objective: float  # the ramp objective of the (FS-SVM) solution (start 0)
    fs_objective: float  # its hinge objective, (FS-SVM)'s optimum within fs_gap
    fs_gap: float
    runs: list[CCCPRun] = field(default_factory=list)
    fs_passes: int = 0  # passes of the (FS-SVM) start
    limits: list[str] = field(default_factory=list)  # HiGHS statuses at which a limit of the solver options
    #                                                   stopped master solves (the start's or a step's) short

    @property
    def n_passes(self) -> int:
        return int(sum(r.n_passes for r in self.runs)) + self.fs_passes


def _run(engine: LinearCuttingPlanes, y: np.ndarray, C: float, w: np.ndarray, b: float, scores: np.ndarray, *,
         tol: float, max_iter: int, max_steps: int, deadline: float | None, log, bar: Any = None,
         name: str = "") -> CCCPRun:
    """CCCP from ``(w, b)`` whose scores ``X w`` are ``scores``; ``bar`` (a progress bar of ``max_steps``) is reset
    and counts the steps, ``name`` (the start's) and the objective in its postfix."""
    t = y * (scores + b)
    objective = engine.ramp_objective(w, t, C)
    objectives, gaps = [objective], []
    if bar is not None:
        bar.reset(total=max_steps)
        bar.set_postfix_str(f"{name}objective={objective:.6g}")
    seen: set[bytes] = set()
    limits: list[str] = []
    passes0 = engine.n_passes
    converged = timed_out = False
    steps = 0
    while steps < max_steps:
        out = t < -1.0
        key = _outlier_key(out)
        if key in seen:
            converged = True
            break
        seen.add(key)
        if deadline is not None and time.perf_counter() > deadline:
            timed_out = True
            break
        engine.set_rows(np.where(out, -y, y), np.where(out, -1.0, 1.0))
        sol = engine.solve(C, tol=tol, max_iter=max_iter, start=(w, -b), deadline=deadline, certify_time=0.0)
        limits += [s for s in sol.limits if s not in limits]
        steps += 1
        gaps.append(sol.gap if engine.budget is None else sol.restricted_gap)
        w_new, b_new = engine.wb(sol)
        t_new = y * (sol.scores + b_new)
        new = engine.ramp_objective(w_new, t_new, C)
        # The step returns a point no worse than its start for the majoriser, which equals the ramp objective there;
        # a rise beyond rounding would be a defect: the run then ends at the point before it.
        if new > objective + 1e-9 * max(1.0, abs(objective)):
            break
        if bar is not None:
            bar.set_postfix_str(f"{name}objective={new:.6g} improvement={objective - new:.2g}", refresh=False)
            bar.update()
        w, b, scores, t, objective = w_new, b_new, sol.scores, t_new, new
        objectives.append(objective)
        log(f"[CCCP] step {steps}: objective {objective:.8g}, outliers {int(out.sum())} -> {int((t < -1).sum())}, "
            f"{sol.n_iter} passes, gap {gaps[-1]:.2g}{' on its support' if engine.budget is not None else ''}")
        if sol.timed_out:
            timed_out = True
            break
    return CCCPRun(w=w, b=b, objective=objective, scores=scores, n_steps=steps, n_passes=engine.n_passes - passes0,
                   objectives=objectives, step_gaps=gaps, converged=converged, timed_out=timed_out, limits=limits)


def cccp(X: Any, y: np.ndarray, C: float, budget: int | None, *, n_init: int = 3, random_state: Any = None,
         tol: float = 1e-6, max_iter: int = 1000, max_steps: int = 50, time_limit: float | None = None,
         n_threads: int = 0, solver_options: Any = None, verbose: bool | int = False,
         weight: np.ndarray | None = None, warm: tuple[np.ndarray, float] | None = None) -> CCCPResult:
    """(RL-FS) by CCCP (module docstring) on ``X`` (numpy, float64 memmap, Dask of dense or scipy sparse chunks, or
    scipy sparse) and ``y`` in {-1, +1}.

    ``tol`` and ``max_iter`` bound each convex step's cutting planes (certified relative gap, passes over the data),
    ``max_steps`` the steps of a run, ``time_limit`` the whole call (seconds); ``weight`` the sample weights of
    the rows (each row's loss counts ``C w_i``); ``warm`` a ``(w, b)`` (an earlier fit's) from which one more run
    starts before the others (its ``w`` cut to the budget). ``verbose``: a progress bar of each run's steps (of
    ``max_steps``, the ramp objective and its last decrease in the postfix); ``verbose >= 2`` also prints every
    step and start."""
    t0 = time.perf_counter()
    deadline = None if time_limit is None else t0 + float(time_limit)
    d = X.shape[1]
    B = None if budget is None or budget >= d else int(budget)

    def log(msg: str) -> None:
        if detailed(verbose):
            print(msg)

    n_runs = int(n_init) + (warm is not None)
    bar = progress(verbose, max_steps, "RampLossSVC CCCP")
    bar.set_postfix_str("the (FS-SVM) start")
    engine = LinearCuttingPlanes(X, y, budget=B, n_threads=n_threads, solver_options=solver_options, weight=weight)
    fs = solve_fs(engine, C, B, tol=tol, max_iter=max_iter, deadline=deadline)
    fs_passes = engine.n_passes
    w0, b0 = engine.wb(fs)
    log(f"[CCCP] (FS-SVM) start: hinge objective {fs.objective:.8g}, gap {fs.gap:.2g}, {fs.n_iter} passes")
    rng = check_random_state(random_state)
    if fs.scores.size == 0:
        spread = 0.0
    elif weight is None:
        spread = float(np.std(fs.scores))
    else:  # the frequency-weighted std (integer weights: that of the rows repeated)
        spread = float(np.sqrt(np.cov(fs.scores, aweights=weight, bias=True)))
    runs: list[CCCPRun] = []
    initial = float("nan")
    if warm is not None:
        ww, bw = top_b(np.asarray(warm[0], dtype=np.float64), B), float(warm[1])
        scores = np.empty(engine.n)
        engine._pass(ww, -bw, scores)
        run = _run(engine, y, C, ww, bw, scores, tol=tol, max_iter=max_iter, max_steps=max_steps, deadline=deadline,
                   log=log, bar=bar, name=f"start 1/{n_runs} (warm) ")
        log(f"[CCCP] warm start: objective {run.objectives[0]:.8g} -> {run.objective:.8g} in {run.n_steps} steps")
        runs.append(run)
        engine.set_rows(y, None)
    for k in range(int(n_init)):
        if k == 0:
            w, b, scores = w0, b0, fs.scores
        else:
            if deadline is not None and time.perf_counter() > deadline:
                break
            # a perturbation of the (FS-SVM) solution on its own support (so within the budget); when that solution
            # is w = 0, a random direction on min(B, d) random features (scaled by the features' spread in the
            # first 10,000 rows) instead
            if np.any(w0):
                w = w0 * (1.0 + 0.5 * rng.standard_normal(d))
                b = b0 + 0.5 * spread * float(rng.standard_normal())
            else:
                k = min(d, B if B is not None else d)
                head = X[:10_000]
                if has_sparse_chunks(head):  # those rows gathered as one CSR matrix (dask's std does not take them)
                    head = as_csr(head.compute())
                if is_sparse(head):  # over the nonzeros: sqrt(E[x^2] - E[x]^2) by two sparse products
                    std = np.sqrt(column_moments(head)[1])
                else:
                    std = np.asarray(head.std(axis=0).compute() if is_dask_array(head) else head.std(axis=0))
                w = np.zeros(d)
                pick = rng.choice(d, k, replace=False)
                w[pick] = rng.standard_normal(k) / (np.sqrt(k) * np.where(std[pick] > 0, std[pick], 1.0))
                # Scores of order 1 need |w| of order 1/std, which for X of tiny magnitude is a huge l1 norm: no
                # start beyond the (FS-SVM) objective, which every point with a larger ||w||_1 exceeds.
                norm = float(np.abs(w).sum())
                if norm > fs.objective > 0:
                    w *= fs.objective / norm
                b = b0
            engine.set_rows(y, None)
            scores = np.empty(engine.n)
            engine._pass(w, -b, scores)
        run = _run(engine, y, C, w, b, scores, tol=tol, max_iter=max_iter, max_steps=max_steps, deadline=deadline,
                   log=log, bar=bar, name=f"start {len(runs) + 1}/{n_runs} ")
        if k == 0:
            initial = run.objectives[0]
        log(f"[CCCP] start {k}: objective {run.objectives[0]:.8g} -> {run.objective:.8g} in {run.n_steps} steps")
        runs.append(run)
    bar.close()
    best = min(runs, key=lambda r: r.objective)
    limits = list(dict.fromkeys(fs.limits + [s for run in runs for s in run.limits]))
    return CCCPResult(best=best, initial_objective=initial, fs_objective=fs.objective, fs_gap=fs.gap, runs=runs,
                      fs_passes=fs_passes, limits=limits)
