"""The reduced-kernel robust LP of paper 000 and its cutting-plane solver (for RobustSVC at scale).

Paper 000's LP (23) expands the surface over every training point, f(x) = sum_j k(x, x_j) y_j u_j: m^2 kernel
values and an LP with ~2 m^2 nonzeros. The reduced model (Lee & Mangasarian's reduced SVM) expands it over L
landmarks z_j only, f(x) = sum_j k(x, z_j) v_j, and keeps every training row as a constraint:

    min  ||v||_1 + nu sum_i xi_i
    s.t. y_i (Phi_i v - gamma) - delta_i sum_j r_j |v_j| >= 1 - xi_i,   xi >= 0,
         Phi_ij = k(x_i, z_j),  r_j = sqrt(k(z_j, z_j)),  delta_i of Lemmas 1-3 (0: the deterministic model (6)).

With the training points as landmarks (z = X) it is LP (23) itself (v_j = y_j u_j keeps ||.||_1 and the robust term),
so its optimum is the paper's. |v_j| is linearised as v = v+ - v- as in (23).

:func:`solve_direct` passes this LP to HiGHS as it is (n rows, 2L + n + 1 columns): the reference at sizes where it
fits. :class:`ReducedLP` solves it by cutting planes on the hinge sum (the 1-slack form of Joachims 2006):
sum_i xi_i = max over c in {0, 1}^n of sum_i c_i (1 + y_i gamma - y_i Phi_i v + delta_i S(v)), so the master LP

    min  e'(v+ + v-) + nu xi   s.t.  xi >= n_c - a'(v+ - v-) + b gamma + e r'(v+ + v-)  for every cut kept,  xi >= 0

has 2L + 2 columns and one row per pass over the data, whatever n. Modelling the hinge sum of each of G groups of
consecutive rows by its own cuts (xi = xi_1 + ... + xi_G; the multi-cut form) costs G rows a pass and took 6-7x
fewer passes at G = 16. A pass (C++, ``_core.robust.reduced_cut_pass``)
computes the kernel rows block by block, or reads them from a cached Phi, and returns the most violated cut at the
iterate together with its hinge sum. The master's value is a lower bound on the optimum and the true objective at any
iterate an upper bound: the solver stops on a certified relative gap. A cut does not depend on nu, so the cuts of one
nu stay valid for the next (a nu grid reuses them).
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from svmopt import _core
from svmopt.exceptions import SolverError
from svmopt.highs import HighsModel

__all__ = ["DEFAULT_GROUPS", "GroupSums", "ReducedLP", "ReducedSolution", "solve_direct"]

#: Groups of consecutive rows with a hinge-sum model each in the master (G = 1: the 1-slack form). Measured (RBF,
#: nu = 1, 1e-6 gap; docs/performance.md): n = 5,000, L = 100: 443 / 135 / 62 / 40 passes at G = 1 / 4 / 16 / 64,
#: 0.74 / 0.26 / 0.23 / 0.49 s with the kernel rows cached (the master grows G rows a pass); n = 50,000, L = 200:
#: G = 1 stopped at 1,000 passes (gap 1e-4), G = 16 reached 1e-6 in 131 passes (3.2 s cached, 3.6 s streamed).
DEFAULT_GROUPS = 16


@dataclass
class GroupSums:
    """The sums of one pass (the fields of ``_core.robust.CutSums``), as reduced over the chunks of a Dask array."""

    a_groups: np.ndarray
    b_groups: np.ndarray
    e_groups: np.ndarray
    n_c_groups: np.ndarray
    hinge_groups: np.ndarray

    @property
    def n_c(self) -> float:
        return float(self.n_c_groups.sum())

    @property
    def hinge(self) -> float:
        return float(self.hinge_groups.sum())


def _chunk_pass(xb, yb, db, v, gamma, S, Z, recipe, n_groups, row_offset, n_total):
    """One chunk's part of a pass (on the worker that holds it): the group sums and the chunk's scores."""
    from svmopt.distributed import _params_from_recipe

    scores = np.empty(xb.shape[0])
    cut = _core.robust.reduced_cut_pass(yb, v, gamma, S, X=np.asarray(xb, dtype=np.float64), Z=Z,
                                        params=_params_from_recipe(recipe), delta=db, scores_out=scores,
                                        n_groups=n_groups, row_offset=row_offset, n_total=n_total)
    return (cut.a_groups, cut.b_groups, cut.e_groups, cut.n_c_groups, cut.hinge_groups), scores


def _dask_pass(X, y, delta, v, gamma, S, Z, params, n_groups) -> tuple[GroupSums, np.ndarray]:
    """A pass over a Dask array: each chunk's sums computed by the core where the chunk is, tree-reduced; the scores
    (n floats) gathered in row order."""
    import dask
    from dask import delayed

    from svmopt.distributed import _add_sums, _params_recipe, _tree_reduce

    n, recipe = X.shape[0], _params_recipe(params)
    parts, r0 = [], 0
    for xb, nb in zip(X.to_delayed().ravel(), X.chunks[0], strict=True):
        db = None if delta is None else delta[r0:r0 + nb]
        parts.append(delayed(_chunk_pass, nout=2, pure=True)(xb, y[r0:r0 + nb], db, v, gamma, S, Z, recipe,
                                                             n_groups, r0, n))
        r0 += nb
    sums = _tree_reduce([p[0] for p in parts], _add_sums)
    total, scores = dask.compute(sums, [p[1] for p in parts])
    return GroupSums(*total), np.concatenate(scores)


@dataclass
class ReducedSolution:
    """One solve of the reduced LP at one nu.

    ``objective`` is the true objective at ``(v, gamma)`` (an upper bound on the optimum) and ``lower_bound`` a
    certified lower bound (the master LP's value; for :func:`solve_direct` both are HiGHS's optimum).
    """

    v: np.ndarray
    gamma: float
    nu: float
    objective: float
    lower_bound: float
    n_iter: int
    scores: np.ndarray  # f_i = Phi_i v
    history: list[tuple[float, float]] = field(default_factory=list)  # (upper, lower) after each pass

    @property
    def gap(self) -> float:
        """Certified relative gap (objective - lower_bound) / max(1, |objective|)."""
        return (self.objective - self.lower_bound) / max(1.0, abs(self.objective))


def _check(y: np.ndarray, r: np.ndarray, delta: np.ndarray | None, n: int) -> tuple[np.ndarray, np.ndarray | None]:
    y = np.ascontiguousarray(y, dtype=np.float64)
    if y.shape != (n,) or not np.all(np.abs(y) == 1.0):
        raise ValueError(f"y must hold {n} labels -1 or +1")
    if delta is not None:
        delta = np.ascontiguousarray(delta, dtype=np.float64)
        if delta.shape != (n,) or not np.all(np.isfinite(delta)) or np.any(delta < 0):
            raise ValueError(f"delta must hold {n} finite values >= 0")
    if r.ndim != 1 or not np.all(np.isfinite(r)) or np.any(r < 0):
        raise ValueError("r must be a 1-D array of finite values >= 0")
    return y, delta


def _check_nu(nu: float) -> float:
    nu = float(nu)
    if not nu > 0 or not np.isfinite(nu):
        raise ValueError(f"nu must be finite and > 0, got {nu!r}")
    return nu


def solve_direct(Phi: np.ndarray, y: np.ndarray, r: np.ndarray, nu: float, delta: np.ndarray | None = None,
                 solver_options: Mapping[str, Any] | None = None) -> ReducedSolution:
    """The reduced LP passed to HiGHS as it is (dense n x L blocks: for moderate n only)."""
    Phi = np.asarray(Phi, dtype=np.float64)
    n, L = Phi.shape
    r = np.asarray(r, dtype=np.float64)
    y, delta = _check(y, r, delta, n)
    _check_nu(nu)
    if r.shape != (L,):
        raise ValueError(f"r must hold one value per landmark ({L})")
    yPhi = y[:, None] * Phi
    rob = np.zeros((n, L)) if delta is None else delta[:, None] * r[None, :]
    # Columns [v+ (L), v- (L), gamma, xi (n)], each v column dense over the n rows (column-major blocks).
    blocks = [(yPhi - rob).T, (-yPhi - rob).T]
    value = np.concatenate([b.ravel() for b in blocks] + [-y, np.ones(n)])
    index = np.concatenate([np.tile(np.arange(n, dtype=np.int32), 2 * L), np.arange(n, dtype=np.int32),
                            np.arange(n, dtype=np.int32)])
    start = np.concatenate([np.arange(2 * L + 1, dtype=np.int64) * n, 2 * L * n + n + np.arange(n + 1)])
    cost = np.concatenate([np.ones(2 * L), [0.0], np.full(n, float(nu))])
    lower = np.zeros(2 * L + 1 + n)
    lower[2 * L] = -np.inf
    res = HighsModel(a_start=start, a_index=index, a_value=value, col_cost=cost, n_rows=n, col_lower=lower,
                     col_upper=np.inf, row_lower=1.0, row_upper=np.inf, options=solver_options).solve()
    v = res.x[:L] - res.x[L:2 * L]
    # A solve stopped at a HiGHS limit returns a feasible point: an upper bound only.
    return ReducedSolution(v=v, gamma=float(res.x[2 * L]), nu=float(nu), objective=res.objective,
                           lower_bound=res.objective if res.optimal else -np.inf, n_iter=1, scores=Phi @ v)


class ReducedLP:
    """Cutting-plane solver of the reduced LP on one data set; :meth:`solve` for each nu keeps the cuts.

    Parameters
    ----------
    y : labels in {-1, +1} (n,).
    r : sqrt(k(z_j, z_j)) of the landmarks (L,).
    Phi : the kernel rows K(X, Z) (n x L), when they fit in memory; else
    X, Z, params : the rows (a numpy array, a memmap or a Dask array), the landmarks and the core kernel parameters
        (rows computed at every pass; for a Dask array on the workers that hold the chunks, the sums tree-reduced).
    delta : Lemma 1-3 bounds (n,), or None for the deterministic model.
    n_groups : the master models the hinge sum of each of this many groups of consecutive rows by its own cuts
        (the multi-cut form; 1 is the 1-slack form); default :data:`DEFAULT_GROUPS` (at most n).
    """

    def __init__(self, y: np.ndarray, r: np.ndarray, *, Phi: np.ndarray | None = None, X: np.ndarray | None = None,
                 Z: np.ndarray | None = None, params: _core.kernels.KernelParams | None = None,
                 delta: np.ndarray | None = None, n_threads: int = 0, block: int = 4096,
                 n_groups: int | None = None, solver_options: Mapping[str, Any] | None = None):
        self.r = np.ascontiguousarray(r, dtype=np.float64)
        if Phi is not None and (X is not None or Z is not None or params is not None):
            raise ValueError("give Phi, or X, Z and params, not both")
        self._dask = False
        if Phi is not None:
            self.Phi: np.ndarray | None = np.asarray(Phi, dtype=np.float64)
            n = self.Phi.shape[0]
            self._rows: dict[str, Any] = {"Phi": self.Phi}
        else:
            if X is None or Z is None or params is None:
                raise ValueError("give Phi, or X, Z and params")
            from svmopt.distributed import check_dask_array, is_dask_array

            self.Phi = None
            n = X.shape[0]
            self._dask = is_dask_array(X)
            if isinstance(X, np.memmap) and X.dtype != np.float64:
                raise ValueError(f"X is a {X.dtype} memmap: the passes read float64 rows in place, and converting it "
                                 "would load it into memory; store it as float64")
            self._rows = {"X": check_dask_array(X) if self._dask else np.asarray(X, dtype=np.float64),
                          "Z": np.ascontiguousarray(Z, dtype=np.float64), "params": params}
        self.L = self.r.shape[0]
        landmarks = self.Phi.shape[1] if self.Phi is not None else self._rows["Z"].shape[0]
        if self.r.ndim != 1 or self.L != landmarks:
            raise ValueError(f"r must hold one value per landmark ({landmarks})")
        self.n = n
        self.y, self.delta = _check(y, self.r, delta, n)
        self.n_threads, self.block = int(n_threads), int(block)
        self.G = min(DEFAULT_GROUPS, max(n, 1)) if n_groups is None else int(n_groups)
        if not 1 <= self.G <= max(n, 1):
            raise ValueError(f"n_groups must be in [1, n] = [1, {n}], got {n_groups!r}")
        L, G = self.L, self.G
        # Master columns [v+ (L), v- (L), gamma, xi_1 .. xi_G]: one hinge-sum model per group of consecutive rows
        # (G = 1: the 1-slack form); no rows yet (xi_g >= 0 is the cut c = 0).
        lower = np.zeros(2 * L + 1 + G)
        lower[2 * L] = -np.inf
        self.master = HighsModel(a_start=np.zeros(2 * L + 2 + G, dtype=np.int32), a_index=np.zeros(0, np.int32),
                                 a_value=np.zeros(0), col_cost=np.concatenate([np.ones(2 * L), [0.0], np.ones(G)]),
                                 n_rows=0, col_lower=lower, col_upper=np.inf, options=solver_options)
        self.n_cuts = 0
        self.n_passes = 0
        # Cut management: a cut slack at the master's solution for more than max_age solves in a row is deleted (the
        # master's value stays a valid lower bound when it was computed; the bound reported is the best of them).
        self.max_age = 20
        self._age = np.zeros(0, dtype=np.int64)
        # The in-out weight of the stability centre: 0 is Kelley's method; measured at n = 3000, L = 300 (RBF), to a
        # 1e-6 gap, nu = 0.1 / 1: 368 / 790 passes at 0, 179 / 370 at 0.5, 130 / 246 at 0.8, 137 / 227 at 0.9,
        # 204 / 272 at 0.95 (docs/performance.md).
        self.alpha = 0.8
        self._start: tuple[np.ndarray, float] = (np.zeros(L), 0.0)

    def _pass(self, v: np.ndarray, gamma: float,
              scores: np.ndarray | None = None) -> _core.robust.CutSums | GroupSums:
        self.n_passes += 1
        S = float(self.r @ np.abs(v))
        if self._dask:
            sums, f = _dask_pass(self._rows["X"], self.y, self.delta, np.ascontiguousarray(v, dtype=np.float64),
                                 float(gamma), S, self._rows["Z"], self._rows["params"], self.G)
            if scores is not None:
                scores[:] = f
            return sums
        return _core.robust.reduced_cut_pass(self.y, np.ascontiguousarray(v, dtype=np.float64), float(gamma), S,
                                             delta=self.delta, scores_out=scores, n_threads=self.n_threads,
                                             block=self.block, n_groups=self.G, **self._rows)

    def _add_cut(self, cut: _core.robust.CutSums | GroupSums) -> None:
        """Per group g with violated rows: xi_g >= n_c - a'(v+ - v-) + b gamma + e r'(v+ + v-), i.e.
        -a'v+ + a'v- + e r'(v+ + v-) + b gamma - xi_g <= -n_c."""
        L = self.L
        groups = np.flatnonzero(cut.n_c_groups > 0)
        if groups.size == 0:
            return
        a, er = cut.a_groups[groups], cut.e_groups[groups, None] * self.r[None, :]
        width = 2 * L + 2  # v+, v-, gamma, xi_g
        values = np.concatenate([-a + er, a + er, cut.b_groups[groups, None], -np.ones((groups.size, 1))], axis=1)
        index = np.concatenate([np.broadcast_to(np.arange(2 * L + 1), (groups.size, 2 * L + 1)),
                                (2 * L + 1 + groups)[:, None]], axis=1)
        self.master.add_rows(np.full(groups.size, -np.inf), -cut.n_c_groups[groups],
                             np.arange(groups.size, dtype=np.int32) * width, index.ravel(), values.ravel())
        self.n_cuts += groups.size
        self._age = np.concatenate([self._age, np.zeros(groups.size, dtype=np.int64)])

    def _age_cuts(self, res: Any) -> None:
        """Age the cuts slack at this master solution (zero dual), reset the others; delete the old slack ones."""
        if self._age.size == 0 or res.row_dual.size != self._age.size:
            return
        slack = np.abs(res.row_dual) <= 1e-12
        self._age = np.where(slack, self._age + 1, 0)
        old = np.flatnonzero(self._age > self.max_age)
        if old.size:
            self.master.delete_rows(old)
            self._age = np.delete(self._age, old)

    def _solve_master(self) -> Any:
        """The master LP, warm-started. When HiGHS ends a solve without a status (numerical trouble on the long,
        dense, nearly parallel cuts: seen at n = 10^4 with L = 100 and 500), it is solved again from the slack basis,
        then passed anew to a fresh HiGHS instance (the same LP, which then solves: the trouble is in the state left
        by many row additions and deletions)."""
        try:
            return self.master.solve()
        except SolverError:
            pass
        self.master.clear_solver()
        try:
            return self.master.solve()
        except SolverError:
            self.master.rebuild()
            return self.master.solve()

    def _violation(self, cut: _core.robust.CutSums | GroupSums, v: np.ndarray, gamma: float, xi: np.ndarray) -> float:
        """The largest violation by (v, gamma, xi) of the cuts this pass makes."""
        S = float(self.r @ np.abs(v))
        values = cut.n_c_groups - cut.a_groups @ v + cut.b_groups * gamma + cut.e_groups * S
        return float(np.max(values - xi))

    def solve(self, nu: float, *, tol: float = 1e-6, max_iter: int = 1000) -> ReducedSolution:
        """Cutting planes at this nu from the kept cuts, until the certified relative gap is <= ``tol`` (or
        ``max_iter`` passes; the gap is then reported as it stands)."""
        nu = _check_nu(nu)
        if not tol >= 0 or int(max_iter) < 1:
            raise ValueError(f"tol must be >= 0 and max_iter >= 1, got tol={tol!r}, max_iter={max_iter!r}")
        L = self.L
        self.master.change_costs(np.arange(2 * L + 1, 2 * L + 1 + self.G, dtype=np.int32), np.full(self.G, nu))
        v, gamma = self._start
        best_ub, best = np.inf, (v, gamma)
        lower_bound = 0.0
        history: list[tuple[float, float]] = []
        # In-out separation (Ben-Ameur & Neto): cut at a point between the stability centre (the best iterate) and
        # the master's solution; Kelley's plain iterates (separating at the master's point) zig-zag for hundreds of
        # passes. When the cut there does not cut off the master's point, separate at that point itself.
        master_point: tuple[np.ndarray, float, np.ndarray] | None = None  # (v, gamma, xi) of the last master point
        scores, work = np.full(self.n, np.nan), np.empty(self.n)  # the best point's scores, and a pass's
        passes0 = self.n_passes
        while self.n_passes - passes0 < int(max_iter):  # max_iter bounds the passes over the data
            if master_point is None:
                point = (v, gamma)
            else:
                vm, gm, _ = master_point
                point = (self.alpha * best[0] + (1 - self.alpha) * vm, self.alpha * best[1] + (1 - self.alpha) * gm)
            cut = self._pass(*point, work)
            ub = float(np.abs(point[0]).sum()) + nu * cut.hinge
            if ub < best_ub:
                best_ub, best = ub, point
                scores, work = work, scores
            if master_point is not None:
                vm, gm, xim = master_point
                if (self._violation(cut, vm, gm, xim) <= 1e-9 * max(1.0, float(np.abs(xim).sum())) and self.alpha > 0
                        and self.n_passes - passes0 < int(max_iter)):
                    # mis-pricing: this cut leaves the master's point feasible; separate there too
                    self._add_cut(cut)
                    cut = self._pass(vm, gm, work)
                    ub = float(np.abs(vm).sum()) + nu * cut.hinge
                    if ub < best_ub:
                        best_ub, best = ub, (vm, gm)
                        scores, work = work, scores
            self._add_cut(cut)
            res = self._solve_master()
            if res.optimal:  # a master stopped at a HiGHS limit gives a point to separate at, but no bound
                lower_bound = max(lower_bound, res.objective)
            self._age_cuts(res)
            history.append((best_ub, lower_bound))
            if best_ub - lower_bound <= tol * max(1.0, abs(best_ub)):
                break
            master_point = (res.x[:L] - res.x[L:2 * L], float(res.x[2 * L]), res.x[2 * L + 1:])
        v, gamma = best
        self._start = (v, gamma)
        return ReducedSolution(v=v, gamma=gamma, nu=nu, objective=best_ub, lower_bound=lower_bound,
                               n_iter=self.n_passes - passes0, scores=scores, history=history)
