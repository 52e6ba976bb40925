"""Pseudocode 1 of paper 000 for one binary problem: the LP at every nu of the grid -- LP (23) through HiGHS or the
core's dense simplex (:func:`fit_binary`), or the reduced model over landmarks through HiGHS or cutting planes
(:func:`fit_binary_reduced`) -- then the robust scores, omega (9), the interval and the threshold line search
(10)/(27) (:func:`select_threshold`). :class:`svmopt.RobustSVC` runs one per binary problem; its module docstring
states the model and the decisions taken."""

from __future__ import annotations

import functools
import logging
import time
import warnings
from collections.abc import Callable, Iterator, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

import numpy as np
from sklearn.exceptions import ConvergenceWarning

from svmopt import _core
from svmopt._shared.config import check_dense_allocation, warn
from svmopt._shared.highs import HighsModel
from svmopt.exceptions import SolverError
from svmopt.robust.ipm import ReducedIPM
from svmopt.robust.model import threshold_interval
from svmopt.robust.reduced import ReducedLP, solve_direct
from svmopt.robust.sparse import SparseRowsCuttingPlanes

logger = logging.getLogger(__name__)

NU_GRID = np.logspace(-3.0, 0.0, 5)
LINE_SEARCHES = ("exact", "grid", "exact_decision")
LP_SOLVERS = ("auto", "highs", "dense")
#: ``lp_solver="auto"`` uses the dense simplex up to this many training points (per binary problem), HiGHS above:
#: the crossover measured by ``benchmarks/asv/bench_robust.py::DenseLP``
#: (docs/performance.md#small-problems-the-dense-simplex).
DENSE_LP_MAX_M = 100
#: ``on_solution(nu, coef, b)``: called with every solution of a path (see :func:`fit_binary`).
OnSolution = Callable[[float, np.ndarray, float], None]
#: ``on_iteration(nu, iterations, upper, lower)``: a path's progress -- the iterations of the solve at ``nu`` so far
#: and its certified bounds (see :func:`fit_binary_reduced`).
OnPathIteration = Callable[[float, int, float, float], None]


# ------------------------------------------------------------------------------------------ one binary LP path
@dataclass
class BinaryFit:
    """Result of :func:`fit_binary` for one binary problem (labels +1 = A, -1 = B)."""

    u: np.ndarray
    gamma: float
    b: float
    xi: np.ndarray
    omega: tuple[float, float]
    nu: float
    training_count: float  # misclassified training points (their weight sum with sample weights)
    objective: float
    scores: np.ndarray  # robust shifted scores s_i
    interval: tuple[float, float]
    path: list[dict] = field(default_factory=list)  # one record per nu tried
    lower_bound: float = float("nan")  # certified lower bound on the LP optimum (the optimum itself for HiGHS)
    n_iter: int = 0  # simplex iterations (LP) or passes over the data (cutting planes)
    stopped: str = ""  # what max_time cut short ("": nothing)
    engine: Any = None  # the cutting planes' solver, cuts kept (fit_binary_reduced with solver="cutting_plane")


#: Kernel values of at least this magnitude make the LP too badly scaled for any of its solvers: HiGHS refuses
#: matrix entries from 1e15 on, and the interior point stalls at its start (a degree-3 polynomial of features of a
#: few hundred, values near 1e19, returned u = 0). RobustSVC refuses them (rescale X), and its cross-validation
#: never selects a kernel width that reaches them.
MAX_KERNEL_MAGNITUDE = 1e15


def line_search_objective(line_search: str, interval: str) -> str:
    """Tie convention of the count: the paper's (10)/(27) (a point on the threshold is correct) with the paper
    interval, the decision rule's otherwise (``"exact_decision"``, or a ``"corrected"`` / ``"unbounded"``
    interval). With the latter intervals the paper's ties would make the degenerate solution u = 0 (all scores
    0, reached at small nu or large delta) look perfect: b = 0 ties every point, a count of 0."""
    return "paper" if (interval == "paper" and line_search != "exact_decision") else "decision"


def _line_search(s: np.ndarray, y: np.ndarray, lo: float, hi: float, gamma: float, line_search: str,
                 n_grid: int, interval: str, weight: np.ndarray | None = None,
                 decision_ties: bool = False) -> tuple[float, float]:
    name = "decision" if decision_ties else line_search_objective(line_search, interval)
    objective = _core.robust.Objective.__members__[name]
    s = np.asarray(s, dtype=np.float64)
    y = np.asarray(y, dtype=np.float64)
    if line_search == "grid":
        return _core.robust.line_search_grid(s, y, lo, hi, n_grid, gamma, objective, w=weight)
    return _core.robust.line_search_exact(s, y, lo, hi, gamma, objective, w=weight)


@dataclass
class Threshold:
    """The line search's part of Pseudocode 1 at one LP solution: robust scores, hinge, omega (9), interval, b."""

    scores: np.ndarray
    xi: np.ndarray
    omega: tuple[float, float]
    interval: tuple[float, float]
    b: float
    count: float  # misclassified training points (their weight sum with sample weights)


def select_threshold(f: np.ndarray, y: np.ndarray, delta: np.ndarray | None, S: float, gamma: float, *,
                     line_search: str, n_grid: int, interval: str, weight: np.ndarray | None = None) -> Threshold:
    """From the scores ``f_i`` of an LP solution, ``S = sum_j r_j |u_j|`` and ``gamma``: the robust scores
    ``s_i = f_i - y_i delta_i S``, the hinge ``xi`` (recomputed, not the solver's: see the module docstring),
    ``omega`` (9), the interval and the threshold ``b`` of (10)/(27) with its training count."""
    s = f if delta is None else f - y * delta * S
    xi = np.maximum(0.0, 1.0 - y * (s - gamma))
    xi[xi < 1e-12] = 0.0  # rounding of a point on its margin (the LP's margins are 1): omega = 0 stays 0
    pos = y > 0
    omega = (float(xi[pos].max()), float(xi[~pos].max()))
    lo, hi = threshold_interval(gamma, omega[0], omega[1], interval)
    # Every score equal (u = 0: a constant decision): under the paper's ties a threshold at that score would count
    # every point correct, a training count of 0 for a model that predicts one class (an interior point or the
    # cutting planes return gamma = 0 there, inside the optimal face, where HiGHS's vertex has gamma = +-1). Such a
    # model is counted by the decision rule, as predict applies it.
    constant = s.size > 0 and float(np.ptp(s)) == 0.0
    b, count = _line_search(s, y, lo, hi, gamma, line_search, n_grid, interval, weight, decision_ties=constant)
    return Threshold(scores=s, xi=xi, omega=omega, interval=(lo, hi), b=float(b),
                     count=int(count) if weight is None else float(count))


class NuPath:
    """The values of a ``nu`` path as floats, in order, until the deadline (the first value always runs); ``cut``
    then says where the path stopped ("" when every value ran, or when the loop left it itself)."""

    def __init__(self, nus: Sequence[float] | np.ndarray, deadline: float | None):
        self.nus = nus
        self.deadline = deadline
        self.cut = ""

    def __iter__(self) -> Iterator[float]:
        for k, nu in enumerate(self.nus):
            if k > 0 and self.deadline is not None and time.perf_counter() >= self.deadline:
                self.cut = f"the nu path after {k} of {len(self.nus)} values"
                return
            yield float(nu)


def fit_binary(K: np.ndarray, y: np.ndarray, *, delta: np.ndarray | None = None,
               nus: Sequence[float] | np.ndarray = (1.0,),
               line_search: str = "exact", n_grid: int = 10_000, interval: str = "paper",
               solver_options: Mapping[str, Any] | None = None, warm_start: bool = False,
               lp_solver: str = "auto", on_solution: OnSolution | None = None,
               weight: np.ndarray | None = None, deadline: float | None = None,
               on_iteration: OnPathIteration | None = None) -> BinaryFit:
    """Pseudocode 1 of the paper on a precomputed Gram ``K`` for every ``nu`` in ``nus``; keep the best.

    ``y`` must be float64 in {-1, +1} with both classes present. ``delta=None`` (or all zeros) is the
    deterministic model (6)+(10); otherwise (23)+(27).

    ``lp_solver`` (see :data:`LP_SOLVERS`): ``"highs"`` builds the LP once, passes it to HiGHS, and for every
    further ``nu`` only changes the ``xi`` costs (``changeColsCost``); ``warm_start=True`` re-solves from the
    previous basis, the default re-solves cold on the same model, which measured faster with the dual simplex on
    these LPs (``benchmarks/asv/bench_robust.py::NuGrid``; figures in docs/performance.md#robustsvc-design-figures).
    ``"dense"`` uses the core's dense primal simplex (``_core.robust.DenseLP``), warm-started across ``nu``; every
    answer carries an optimality certificate checked on the original data (primal and dual feasibility and the
    duality gap to 1e-7), and if it fails or the iteration limit is reached that ``nu`` and the following ones
    are solved by HiGHS instead (recorded as ``solver`` in the path). ``"auto"`` is ``"dense"`` for
    ``m <= DENSE_LP_MAX_M`` when no ``solver_options`` are given, else ``"highs"``. The two solvers reach the
    same optimal objective; on degenerate LPs they may return different optimal vertices ``u``.

    ``on_solution(nu, coef, b)``, when given, is called at every ``nu`` with the decision's coefficients
    ``coef_j = y_j u_j`` (so ``f(x) = sum_j k(x, x_j) coef_j``) and the threshold ``b`` (cross-validation reads the
    whole path this way).

    ``weight`` (m,) > 0, the sample weights: the slack costs become ``nu w_i`` and the line search counts weights
    (``"auto"`` then takes HiGHS: the dense simplex has no weights). ``deadline`` (a ``time.perf_counter()``
    value): the path stops after the ``nu`` at which the deadline passed, and HiGHS gets the time left as its
    ``time_limit`` from the second ``nu`` on (the first always runs to its end, so a usable model exists);
    ``BinaryFit.stopped`` says what was cut short. ``on_iteration(nu, iterations, upper, lower)`` is called once
    per ``nu`` solved (its simplex iterations and bounds).
    """
    K = np.asarray(K, dtype=np.float64)
    m = K.shape[0]
    if lp_solver not in LP_SOLVERS:
        raise ValueError(f"lp_solver must be one of {LP_SOLVERS}, got {lp_solver!r}")
    y = np.ascontiguousarray(y, dtype=np.float64)
    d = None if delta is None else np.ascontiguousarray(delta, dtype=np.float64)
    w = None if weight is None else np.ascontiguousarray(weight, dtype=np.float64)
    if w is not None and lp_solver == "dense":
        raise ValueError("lp_solver='dense' has no sample weights; use 'highs' or 'auto'")
    use_dense = lp_solver == "dense" or (lp_solver == "auto" and m <= DENSE_LP_MAX_M and not solver_options
                                         and w is None)
    dense = None
    if use_dense:
        check_dense_allocation(m, 4 * m + 1, "RobustSVC's dense simplex tableau (m x (4m + 1))")
        dense = _core.robust.DenseLP(K, y, d)
    model: HighsModel | None = None
    xi_cols = np.arange(2 * m + 1, 3 * m + 1, dtype=np.int32)

    def highs_solve(nu: float, limited: bool):
        nonlocal model
        if model is None:
            check_dense_allocation(m, 3 * m, "RobustSVC's LP (23) (2 m^2 values + indices)")
            start, index, value = _core.robust.lp_matrix(K, y, d)
            cost = np.concatenate([np.ones(2 * m), [0.0], xi_cost(nu)])
            lower = np.zeros(3 * m + 1)
            lower[2 * m] = -np.inf
            model = HighsModel(a_start=start, a_index=index, a_value=value, col_cost=cost, n_rows=m,
                               col_lower=lower, col_upper=np.inf, row_lower=1.0, row_upper=np.inf,
                               options=solver_options)
            del start, index, value
        else:
            model.change_costs(xi_cols, xi_cost(nu), warm_start=warm_start)
        if limited and deadline is not None:
            model.set_option("time_limit", max(1e-3, deadline - time.perf_counter()))
        return model.solve()

    def xi_cost(nu: float) -> np.ndarray:
        return np.full(m, nu) if w is None else nu * w

    r = np.sqrt(np.clip(np.diag(K), 0.0, None))
    best: BinaryFit | None = None
    path: list[dict] = []
    stopped = ""
    nu_path = NuPath(nus, deadline)
    for nu in nu_path:
        rec: dict[str, Any] = {"nu": nu}
        x = None
        if dense is not None:
            t0 = time.perf_counter()
            out = dense.solve(nu)
            if out.status == _core.robust.DenseLPStatus.optimal:
                x = out.x
                rec.update(objective=float(out.objective), iterations=int(out.iterations),
                           solve_time=time.perf_counter() - t0, status="Optimal", solver="dense")
            else:
                logger.debug("dense simplex: %s at nu=%g (primal/dual infeasibility %.2g/%.2g); HiGHS takes over",
                             out.status.name, nu, out.primal_infeasibility, out.dual_infeasibility)
                rec["solver"] = f"highs (dense simplex: {out.status.name})"
                dense = None
        if x is None:
            try:
                res = highs_solve(nu, limited=best is not None)
            except SolverError as exc:
                if best is None or deadline is None or exc.status != "Time limit reached":
                    raise
                stopped = f"the nu path at nu={nu:g} (HiGHS: {exc.status})"
                break
            x = res.x
            rec.update(objective=res.objective, iterations=res.iterations, solve_time=res.runtime,
                       status=res.status, lower_bound=res.objective if res.optimal else -np.inf)
            rec.setdefault("solver", "highs")
        u = x[:m] - x[m : 2 * m]
        gamma = float(x[2 * m])
        f = K @ (y * u)
        S = float(r @ np.abs(u))
        t = select_threshold(f, y, d, S, gamma, line_search=line_search, n_grid=n_grid, interval=interval, weight=w)
        if not res_optimal(rec) and deadline is not None and time.perf_counter() >= deadline:
            stopped = f"a HiGHS solve (status {rec['status']!r}) at nu={nu:g}"
        dev = np.abs(t.xi - x[2 * m + 1 :])
        if np.any(dev > 1e-6 * np.maximum(1.0, t.xi)):
            logger.debug("solver xi differs from the hinge by up to %.3g (nu=%g)", dev.max(), nu)
        rec.update(training_count=t.count, b=t.b)
        path.append(rec)
        if on_iteration is not None:
            on_iteration(nu, int(rec["iterations"]), rec["objective"], rec.get("lower_bound", rec["objective"]))
        if on_solution is not None:
            on_solution(nu, y * u, t.b)
        if best is None or t.count < best.training_count:
            best = BinaryFit(u=u, gamma=gamma, b=t.b, xi=t.xi, omega=t.omega, nu=nu, training_count=t.count,
                             objective=rec["objective"], scores=t.scores, interval=t.interval,
                             lower_bound=rec.get("lower_bound", rec["objective"]), n_iter=int(rec["iterations"]))
    assert best is not None
    best.path = path
    best.stopped = nu_path.cut or stopped
    return best


def res_optimal(rec: dict) -> bool:
    """Whether a path record's LP was solved to optimality (not stopped by a HiGHS limit)."""
    return rec.get("status") == "Optimal"


def _direct_after_stall(Phi: np.ndarray, y: np.ndarray, r: np.ndarray, nu: float, d: np.ndarray | None,
                        solver_options: Mapping[str, Any] | None, w: np.ndarray | None,
                        deadline: float | None) -> Any:
    """HiGHS on the reduced LP as it is after an interior-point stall: its solution when optimal, else None (no time
    left, a HiGHS limit or failure: the interior point's certified point stands, with its warning)."""
    left = None if deadline is None else deadline - time.perf_counter()
    if left is not None and left <= 0:
        return None
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", ConvergenceWarning)  # an incumbent at a limit is not used
            sol = solve_direct(Phi, y, r, nu, delta=d, solver_options=solver_options, weight=w, time_limit=left)
    except (SolverError, ValueError):  # ValueError: HiGHS refuses the LP (entries of magnitude >= 1e15)
        return None
    return sol if sol.gap <= 0 else None


def fit_binary_reduced(y: np.ndarray, r: np.ndarray, *, Phi: np.ndarray | None = None, X: np.ndarray | None = None,
                       Z: np.ndarray | None = None, params: _core.kernels.KernelParams | None = None,
                       delta: np.ndarray | None = None, nus: Sequence[float] | np.ndarray = (1.0,),
                       solver: str = "cutting_plane", tol: float = 1e-6, max_iter: int = 1000,
                       line_search: str = "exact", n_grid: int = 10_000, interval: str = "paper",
                       solver_options: Mapping[str, Any] | None = None,
                       on_solution: OnSolution | None = None, weight: np.ndarray | None = None,
                       deadline: float | None = None, lp: ReducedLP | None = None, cache_rows: int = 0,
                       stall_lp_cells: int = 0, usable: bool = False,
                       on_iteration: OnPathIteration | None = None, row_blocks: Any = None) -> BinaryFit:
    """Pseudocode 1 on the reduced model (:mod:`svmopt.robust.reduced`) for every ``nu`` in ``nus``; keep the best.

    The kernel rows against the landmarks come from ``Phi`` (n x L) or are computed from ``X``, ``Z`` and
    ``params`` at every pass, or from ``row_blocks`` a block of rows at a time (a sparse X's,
    :class:`svmopt.robust.sparse.SparseKernelRows`). ``solver="ipm"`` solves each ``nu`` by the interior-point method
    (:mod:`svmopt.robust.ipm`) from a cold start, ``"cutting_plane"`` keeps its cuts across ``nus``; both stop at a
    certified relative gap ``tol`` (``max_iter``: their iterations per ``nu``). ``"lp"`` passes the reduced LP to
    HiGHS (needs ``Phi``). ``u`` of the result holds the landmark coefficients ``v``; ``on_solution(nu, v, b)``,
    ``weight`` and ``deadline`` as for :func:`fit_binary` (the iterative solvers stop at the deadline with their
    certified gap as it stands). ``usable`` (a final fit's): the first ``nu``'s solver runs past the deadline
    until its best point has a nonzero coefficient, so that a usable model exists (``stopped`` then says so).
    ``lp``: a cutting-plane solver of this very problem from an earlier call, whose cuts and last solution are kept
    (the caller vouches that the rows, labels, weights and bounds are the same); returned as ``BinaryFit.engine``.
    ``cache_rows``: the interior-point method keeps the kernel rows of that many leading rows of ``X``.
    ``stall_lp_cells``: a ``nu`` at which the interior-point method stalls short of ``tol`` is solved again by HiGHS
    on the LP as it is when ``Phi`` is given with at most this many entries (0: never; the stall then warns).
    ``on_iteration(nu, iterations, upper, lower)``: called at every iterate of the interior point or the cutting
    planes (their iterations or passes at this ``nu`` so far), once per ``nu`` for HiGHS."""
    y = np.ascontiguousarray(y, dtype=np.float64)
    w = None if weight is None else np.ascontiguousarray(weight, dtype=np.float64)
    d = None if delta is None else np.ascontiguousarray(delta, dtype=np.float64)
    engine: ReducedLP | ReducedIPM | None = lp
    if solver == "cutting_plane" and lp is None and row_blocks is not None:
        engine = SparseRowsCuttingPlanes(y, r, rows=row_blocks, delta=d, solver_options=solver_options, weight=w)
    elif solver == "cutting_plane" and lp is None:
        engine = ReducedLP(y, r, Phi=Phi, X=X, Z=Z, params=params, delta=d, solver_options=solver_options, weight=w)
    elif solver == "ipm" and row_blocks is not None:
        engine = ReducedIPM(y, r, delta=d, weight=w, cache_rows=cache_rows, row_blocks=row_blocks)
    elif solver == "ipm":
        engine = ReducedIPM(y, r, Phi=Phi, X=X, Z=Z, params=params, delta=d, weight=w, cache_rows=cache_rows)
    elif solver != "cutting_plane":
        engine = None
    if solver == "lp" and Phi is None:
        raise ValueError("solver='lp' passes the reduced LP to HiGHS as it is: it needs the kernel rows in memory")
    best: BinaryFit | None = None
    path: list[dict] = []
    stopped = ""
    nu_path = NuPath(nus, deadline)
    for nu in nu_path:
        t0 = time.perf_counter()
        rescued = False  # an interior-point stall solved again by HiGHS
        ipm_passes = 0
        if engine is not None:
            passes = engine.n_passes
            # A final fit's first nu: past the deadline until the best point has support (a deadline spent before
            # the solve began would otherwise leave the start, u = 0, as "the model so far"); fit_binary's first LP
            # likewise runs to its end.
            support_first = usable and best is None
            sol = engine.solve(nu, tol=tol, max_iter=max_iter, deadline=deadline, until_support=support_first,
                               on_iteration=None if on_iteration is None else functools.partial(on_iteration, nu))
            overran = support_first and deadline is not None and time.perf_counter() >= deadline
            n_iter, status = engine.n_passes - passes, "Optimal" if sol.gap <= tol else "Iteration limit reached"
            name = "the interior-point method" if solver == "ipm" else "the cutting planes"
            if sol.gap > tol and sol.stalled and Phi is not None and Phi.shape[0] * Phi.shape[1] <= stall_lp_cells:
                # At the limits of double precision (nearly dependent kernel rows): HiGHS on the LP as it is, exact,
                # within what is left of the deadline; its answer replaces the interior point's only when optimal.
                direct = _direct_after_stall(Phi, y, r, nu, d, solver_options, w, deadline)
                if direct is not None:
                    sol, ipm_passes, n_iter, status, rescued = direct, n_iter, 1, "Optimal", True
            if rescued:
                logger.info("RobustSVC: the interior-point method stalled at nu=%g; solved by HiGHS on the LP as it "
                            "is", nu)
            elif sol.timed_out and sol.gap > tol:
                status = "Time limit reached"
                stopped = f"{name} at nu={nu:g} (certified relative gap {sol.gap:.2g} > tol={tol:g})"
            elif sol.gap > tol and sol.stalled:
                status = "Stalled"
                warn(f"RobustSVC: {name} stalled ({sol.stall_reason}) with a certified relative gap of "
                     f"{sol.gap:.2g} > tol={tol:g} (nu={nu:g}): the model is usable, its objective within that gap of "
                     "the optimum; solver='lp' passes this LP to HiGHS as it is", ConvergenceWarning)
            elif sol.gap > tol:
                warn(f"RobustSVC: {name} stopped at max_iter={max_iter} with a certified relative gap "
                     f"of {sol.gap:.2g} > tol={tol:g} (nu={nu:g}); the model is usable, its objective within that "
                     "gap of the optimum", ConvergenceWarning)
            if overran and not stopped:  # finished past the deadline: max_time was passed all the same
                stopped = f"{name} at nu={nu:g}, run past the deadline until its model had support"
        else:
            assert Phi is not None
            left = None  # the first LP runs to its end: a usable model
            if deadline is not None and best is not None:
                left = max(1e-3, deadline - time.perf_counter())
            try:
                sol = solve_direct(Phi, y, r, nu, d, solver_options, weight=w, time_limit=left)
            except SolverError as exc:
                if best is None or deadline is None or exc.status != "Time limit reached":
                    raise
                stopped = f"the nu path at nu={nu:g} (HiGHS: {exc.status})"
                break
            n_iter, status = 1, "Optimal" if sol.gap <= 0 else "not certified (a HiGHS limit)"
            if on_iteration is not None:
                on_iteration(nu, 1, sol.objective, sol.lower_bound)
            if sol.gap > 0 and deadline is not None and time.perf_counter() >= deadline:
                stopped = f"a HiGHS solve at nu={nu:g}"
        rec: dict[str, Any] = {"nu": nu, "objective": sol.objective, "lower_bound": sol.lower_bound,
                               "iterations": n_iter, "solve_time": time.perf_counter() - t0, "status": status,
                               "solver": "lp" if rescued else solver}
        if rescued:
            rec.update(ipm_stalled=True, ipm_passes=ipm_passes)
        S = float(r @ np.abs(sol.v))
        t = select_threshold(sol.scores, y, d, S, sol.gamma, line_search=line_search, n_grid=n_grid,
                             interval=interval, weight=w)
        rec.update(training_count=t.count, b=t.b)
        path.append(rec)
        if on_solution is not None:
            on_solution(nu, sol.v, t.b)
        if best is None or t.count < best.training_count:
            best = BinaryFit(u=sol.v, gamma=sol.gamma, b=t.b, xi=t.xi, omega=t.omega, nu=nu, training_count=t.count,
                             objective=sol.objective, scores=t.scores, interval=t.interval,
                             lower_bound=sol.lower_bound, n_iter=n_iter)
    assert best is not None
    best.path = path
    best.stopped = nu_path.cut or stopped
    best.engine = engine if solver == "cutting_plane" else None
    return best
