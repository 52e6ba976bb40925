"""RobustSVC's final fit (:func:`solve_problems`): one nu path per binary problem over the chosen kernel and rho on
every training row -- LP (23) on the Gram matrix, or the reduced model over the landmarks (or the training points)
with its kernel rows kept or recomputed at every pass -- and the coefficients of the expansion."""

from __future__ import annotations

import hashlib
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

import numpy as np

from svmopt._shared.config import get_memory_budget
from svmopt._shared.dask import is_dask_array
from svmopt._shared.runtime import TimeBudget, progress
from svmopt.kernels import Kernel
from svmopt.robust.data import TrainingData
from svmopt.robust.fit import MAX_KERNEL_MAGNITUDE, BinaryFit, fit_binary, fit_binary_reduced
from svmopt.robust.plan import Plan, robust_bounds
from svmopt.robust.sparse import SparseKernelRows, is_sparse


@dataclass
class FinalFit:
    """The outcome of :func:`solve_problems`."""

    kernel: Kernel
    rho: float | None
    fits: list[BinaryFit]  # one per binary problem
    deltas: list[np.ndarray]  # their robust bounds (zeros for the deterministic model)
    coef: np.ndarray  # (n_problems, expansion points): y_j u_j (the paper's model) or v_j (the reduced one)
    engines: dict[bytes, Any]  # warm_start: the cutting planes' solvers by problem_key


def expansion_points(plan: Plan, data: TrainingData) -> Any:
    """The points the surface is expanded over: the landmarks, or the training rows (the paper's model)."""
    return data.X if plan.landmarks is None else plan.landmarks


def finite(M: np.ndarray, what: str, absmax: float | None = None) -> np.ndarray:
    """M, when every entry is finite and of magnitude below MAX_KERNEL_MAGNITUDE; else a ValueError naming the
    magnitude of X (``absmax``, its largest |x|) and the remedy (the same for every solver)."""
    # the largest |entry| as max(M.max(), -M.min()): no temporary of M's size (NaN propagates through both)
    top = max(float(M.max()), -float(M.min())) if M.size else 0.0
    of_x = "" if absmax is None else f" (X has entries of magnitude up to {absmax:.3g})"
    if not np.isfinite(top):
        raise ValueError(f"non-finite entries in {what}{of_x}; rescale X (e.g. StandardScaler) or lower the degree")
    if top >= MAX_KERNEL_MAGNITUDE:
        raise ValueError(f"the entries of {what} reach a magnitude of {top:.3g} (>= {MAX_KERNEL_MAGNITUDE:g}){of_x}: "
                         "the LP is too badly scaled to solve; rescale X (e.g. StandardScaler) or lower the degree")
    return M


def problem_key(X: Any, yb: np.ndarray, w: np.ndarray | None, Z: np.ndarray, kern: Kernel,
                delta: np.ndarray | None, solver_options: Mapping[str, Any] | None) -> bytes:
    """A digest of one binary problem of the reduced model (rows, labels, weights, landmarks, kernel, robust
    bounds): ``warm_start`` reuses cuts only for the same digest. A Dask array counts by its graph's name."""
    h = hashlib.blake2b(digest_size=20)
    if is_dask_array(X):
        h.update(str(X.name).encode())
    elif is_sparse(X):  # its CSR arrays
        for a in (X.indptr, X.indices, X.data):
            h.update(np.ascontiguousarray(a).view(np.uint8).reshape(-1).data)
    else:
        h.update(np.ascontiguousarray(X).view(np.uint8).reshape(-1).data)
    for a in (yb, w, Z, delta):
        h.update(b"-" if a is None else np.ascontiguousarray(a, dtype=np.float64).view(np.uint8).reshape(-1).data)
    h.update(repr(kern).encode())
    h.update(repr(sorted((solver_options or {}).items())).encode())
    return h.digest()


def kernel_rows(plan: Plan, kern: Kernel, X: Any, Z: np.ndarray, absmax: float | None = None) -> dict[str, Any]:
    """The reduced model's kernel rows as its solvers take them: ``Phi`` = K(X, Z) cached when within half the
    memory budget (or for HiGHS on the LP as it is), else X, Z and the kernel to recompute them block by block at
    every pass (a Dask array's by the workers that hold the chunks; a sparse X's block by block,
    :class:`svmopt.robust.sparse.SparseKernelRows`)."""
    if not is_dask_array(X) and (plan.solver == "lp" or X.shape[0] * Z.shape[0] * 8 <= get_memory_budget() // 2):
        return {"Phi": finite(kern.cross(X, Z), "the kernel rows", absmax)}
    rows: dict[str, Any] = ({"row_blocks": SparseKernelRows(kern, X, Z, max_magnitude=MAX_KERNEL_MAGNITUDE)}
                            if is_sparse(X) else {"X": X, "Z": Z, "params": kern.core_params})
    if plan.solver == "ipm" and not is_dask_array(X):  # the leading rows that fit half the budget: kept
        rows["cache_rows"] = (get_memory_budget() // 2) // (8 * max(Z.shape[0], 1))
    return rows


class FitProgress:
    """The final fit's progress bar (``verbose``): for the interior point and the cutting planes, the iterations (or
    passes) of the solve at hand out of ``max_iter``, started again at every ``nu`` and binary problem; for HiGHS's
    LPs, the ``nu`` values of the path solved. Its postfix: the binary problem (when there are several), ``nu`` and
    the certified relative gap (upper - lower) / max(1, |upper|) as it falls."""

    def __init__(self, verbose: Any, plan: Plan, n_nus: int):
        self.iterative = plan.solver in ("ipm", "cutting_plane")
        self.max_iter = plan.max_iter
        self.n_problems = len(plan.problems)
        self.bar = progress(verbose, self.max_iter if self.iterative else n_nus, "RobustSVC fit")
        self.problem, self.done = "", 0
        self.nu: float | None = None

    def start(self, k: int, n_nus: int) -> None:
        """Binary problem ``k`` (0-based) begins, over ``n_nus`` values of nu."""
        self.problem = f"problem {k + 1}/{self.n_problems} " if self.n_problems > 1 else ""
        self.nu, self.done = None, 0
        if k > 0 and not self.iterative:
            self.bar.reset(total=n_nus)

    def __call__(self, nu: float, iterations: int, upper: float, lower: float) -> None:
        gap = (max(0.0, (upper - lower) / max(1.0, abs(upper))) if np.isfinite(upper) and np.isfinite(lower)
               else np.inf)
        first = nu != self.nu
        if first and self.iterative:
            self.bar.reset(total=self.max_iter)
            self.done = 0
        self.nu = nu
        self.bar.set_postfix_str(f"{self.problem}nu={nu:.3g} gap={gap:.1e}", refresh=first)
        step = iterations - self.done if self.iterative else 1
        self.done += step
        self.bar.update(step)

    def close(self) -> None:
        self.bar.close()


def solve_problems(plan: Plan, data: TrainingData, nus_per_problem: list[np.ndarray], budget: TimeBudget,
                   warm: dict[bytes, Any] | None, verbose: bool) -> FinalFit:
    """Pseudocode 1 for each binary problem of the plan (its kernel and rho: the first candidates) over the nu
    values ``nus_per_problem`` of each; ``warm`` (``warm_start``: None when off) holds the cutting planes of the
    previous fit by :func:`problem_key`."""
    kern, rho = plan.kernels[0], plan.rhos[0]
    X, w = data.X, data.weight
    Z = expansion_points(plan, data)
    K: np.ndarray | None = None
    if plan.paper_lp:
        K = finite(kern.gram(X), "the Gram matrix", data.absmax)
    else:
        r = np.sqrt(np.clip(kern.diag(Z), 0.0, None))
        rows = kernel_rows(plan, kern, X, Z, data.absmax)
    fits: list[BinaryFit] = []
    deltas = []
    engines: dict[bytes, Any] = {}
    bar = FitProgress(verbose, plan, len(nus_per_problem[0]))
    on_iteration = bar if verbose else None
    for k, (label, nus) in enumerate(zip(plan.problems, nus_per_problem, strict=True)):
        bar.start(k, len(nus))
        yb = np.where(data.y == label, 1.0, -1.0)
        delta = robust_bounds(plan, data, kern, X, yb, rho)
        if K is not None:
            fit = fit_binary(K, yb, delta=delta, nus=nus, lp_solver=plan.lp_solver, weight=w,
                             deadline=budget.deadline, on_iteration=on_iteration, **plan.path_options)
        else:
            key = problem_key(X, yb, w, Z, kern, delta, plan.path_options["solver_options"]) \
                if warm is not None and plan.solver == "cutting_plane" else b""
            fit = fit_binary_reduced(yb, r, delta=delta, nus=nus, solver=plan.solver, tol=plan.tol,
                                     max_iter=plan.max_iter, weight=w, deadline=budget.deadline,
                                     lp=warm.get(key) if warm is not None and key else None,
                                     stall_lp_cells=plan.stall_lp_cells, usable=True, on_iteration=on_iteration,
                                     **plan.path_options, **rows)
            if key:
                engines[key] = fit.engine
        if fit.stopped:
            budget.cut(fit.stopped + ("" if len(plan.problems) == 1 else f" (problem {label!r} vs rest)"))
        fits.append(fit)
        deltas.append(np.zeros(X.shape[0]) if delta is None else delta)
    bar.close()
    U = np.stack([f.u for f in fits])  # (n_problems, number of expansion points)
    if K is not None:  # LP (23)'s u: the coefficients are y_j u_j
        del K
        U = np.stack([np.where(data.y == label, 1.0, -1.0) for label in plan.problems]) * U
    return FinalFit(kern, rho, fits, deltas, U, engines)
