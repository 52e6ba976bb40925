"""Exact cutting planes for the l1-penalised hinge-sum models of papers 000 and 001, one pass over the data per
iteration.

Every model here is

    min  ||v||_1 + C sum_i max(0, a_i - y_i (Phi_i v - gamma) + delta_i S(v))     [ s.t. ||v||_0 <= B ]

over the columns of ``Phi`` (n x L): paper 000's reduced-kernel robust LP (Phi the kernel rows against L landmarks,
a = 1, delta of Lemmas 1-3, S(v) = sum_j r_j |v_j|), and paper 001's (SVM-l1) and (FS-SVM) (Phi = X, a = 1,
delta = 0) and the convex step of the ramp loss's concave-convex procedure (a current outlier's row has label -y_i and
offset a_i = -1; see :mod:`svmopt.ramp.cccp`). The hinge sum is the maximum of the cuts
sum_i c_i (a_i - y_i Phi_i v + y_i gamma + delta_i S(v)) over c in {0, 1}^n (the 1-slack form of Joachims 2006), so
the master problem

    min  e'(v+ + v-) + C sum_g xi_g   s.t.  xi_g >= sum_{i in g} c_i (...)  for every cut kept,  xi >= 0
         [ v+_j + v-_j <= U s_j,  sum_j s_j <= B,  s binary ]

has 2L + 1 + G columns (G groups of consecutive rows, each with its own hinge-sum model: the multi-cut form) and
one row per group and pass, whatever n. With a budget the master is a small MILP whose only binaries are the L
feature indicators s_j; U is a valid bound on ||v*||_1 (any feasible objective value), tightened as better points are
found. A pass (C++, ``_core.cutting_plane.cut_pass``) reads the rows block by block -- from ``Phi`` in memory or a
memmap, computed as K(X, Z) from the rows, or on the workers that hold a Dask array's chunks -- and returns the most
violated cut at the iterate and its hinge sum. The master's value (its dual bound for a MILP) is a lower bound on the
optimum and the objective at any feasible iterate an upper bound: the solver stops on a certified relative gap.
A cut does not depend on C or B, so the cuts of one solve stay valid for the next (a C grid, or (SVM-l1) before
(FS-SVM), reuses them); new labels or offsets (:meth:`HingeCuttingPlanes.set_rows`) invalidate them.
"""

from __future__ import annotations

import time
import warnings
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from typing import Any

import numpy as np
from sklearn.exceptions import ConvergenceWarning

from svmopt import _core
from svmopt._shared.dask import GroupSums, check_dask_array, dask_cut_pass, is_dask_array
from svmopt._shared.highs import HighsModel
from svmopt._shared.sparse import as_csr, is_sparse, sparse_cut_pass
from svmopt.exceptions import SolverError

#: Groups of consecutive rows with a hinge-sum model each in the master (G = 1: the 1-slack form). Measured (RBF,
#: nu = 1, 1e-6 gap; docs/performance.md#the-reduced-model-cutting-planes): n = 5,000, L = 100: 443 / 135 / 62 / 40
#: passes at G = 1 / 4 / 16 / 64, 0.74 / 0.26 / 0.23 / 0.49 s with the kernel rows cached (the master grows G rows
#: a pass); n = 50,000, L = 200: G = 1 stopped at 1,000 passes (gap 1e-4), G = 16 reached 1e-6 in 131 passes
#: (3.2 s cached, 3.6 s streamed).
DEFAULT_GROUPS = 16

#: ``on_iteration(iterations, upper, lower)``: a solver's progress after each iteration (its certified bounds).
OnIteration = Callable[[int, float, float], None]

_MASTER_MIP_OPTIONS = {"mip_rel_gap": 1e-9, "mip_abs_gap": 0.0, "presolve": "on", "threads": 1}

_LARGE_MATRIX_VALUE = 1e15  # HiGHS's default large_matrix_value: every master coefficient stays below it


@dataclass
class CutSolution:
    """One solve of the model at one C: ``objective`` is the objective at ``(v, gamma)`` (an upper bound on the
    optimum), ``lower_bound`` a certified lower bound (the master's value or dual bound; a direct solve: HiGHS's)."""

    v: np.ndarray
    gamma: float
    nu: float
    objective: float
    lower_bound: float
    n_iter: int
    scores: np.ndarray  # f_i = Phi_i v
    history: list[tuple[float, float]] = field(default_factory=list)  # (upper, lower) after each pass
    timed_out: bool = False
    restricted_gap: float = float("nan")  # with a budget: the gap on the last support searched (exact there)
    n_swaps: int = 0  # with a budget: the support swaps made
    stalled: bool = False  # the interior-point method stopped short of tol without progress (stall_reason: why)
    stall_reason: str = ""
    limits: list[str] = field(default_factory=list)  # HiGHS statuses of masters a solver options' limit stopped

    @property
    def gap(self) -> float:
        """Certified relative gap (objective - lower_bound) / max(1, |objective|), >= 0 (a bound above the objective
        by rounding gives 0)."""
        return max(0.0, (self.objective - self.lower_bound) / max(1.0, abs(self.objective)))


def row_source(Phi: Any, X: Any, Z: Any, params: Any) -> tuple[dict[str, Any], bool, int, int]:
    """The rows of a solver's passes, checked: ``{"Phi": Phi}`` (the kernel rows, n x L) or ``{"X": X, "Z": Z,
    "params": params}`` (computed block by block), with a float64 ``np.memmap`` read in place and a Dask array
    checked; returns them, whether they are a Dask array, the number n of rows and the number L of landmarks."""
    given = [a is not None for a in (X, Z, params)]
    if not (all(given) if Phi is None else not any(given)):
        raise ValueError("give Phi, or X, Z and params, not both")
    rows = Phi if Phi is not None else X
    if Phi is not None and is_sparse(Phi):  # scipy sparse rows, as CSR: the passes of sparse_cut_pass, O(nnz) each
        return {"Phi": as_csr(Phi, "X")}, False, Phi.shape[0], Phi.shape[1]
    dask = is_dask_array(rows)
    if isinstance(rows, np.memmap) and rows.dtype != np.float64:
        raise ValueError(f"the rows are a {rows.dtype} memmap: the passes read float64 rows in place, and "
                         "converting them would load them into memory; store them as float64")
    rows = check_dask_array(rows) if dask else np.asarray(rows, dtype=np.float64)
    if rows.ndim != 2:
        raise ValueError(f"{'Phi' if Phi is not None else 'X'} must be 2-D, got ndim={rows.ndim}")
    if not dask and any(st % rows.itemsize for st in rows.strides):  # e.g. a field of a structured array
        rows = np.ascontiguousarray(rows)
    if Phi is not None:
        return {"Phi": rows}, dask, rows.shape[0], rows.shape[1]
    Z = np.ascontiguousarray(Z, dtype=np.float64)
    if Z.ndim != 2:
        raise ValueError(f"Z must be 2-D, got ndim={Z.ndim}")
    return {"X": rows, "Z": Z, "params": params}, dask, rows.shape[0], Z.shape[0]


def check_labels(y: np.ndarray, n: int, name: str = "y") -> np.ndarray:
    y = np.ascontiguousarray(y, dtype=np.float64)
    if y.shape != (n,) or not np.all(np.abs(y) == 1.0):
        raise ValueError(f"{name} must hold {n} labels -1 or +1")
    return y


def check_nonnegative(a: np.ndarray | None, n: int, name: str, sign: str = ">=") -> np.ndarray | None:
    """None, or ``a`` as n finite float64 values ``sign`` 0 (">=", ">", or "" for any sign)."""
    if a is None:
        return None
    a = np.ascontiguousarray(a, dtype=np.float64)
    if a.shape != (n,) or not np.all(np.isfinite(a)) or np.any(a <= 0 if sign == ">" else a < 0 if sign else False):
        raise ValueError(f"{name} must hold {n} finite values" + (f" {sign} 0" if sign else ""))
    return a


def check_weight(w: np.ndarray | None, n: int) -> np.ndarray | None:
    """Sample weights of the hinge terms: None (all 1) or n finite values > 0."""
    return check_nonnegative(w, n, "weight", ">")


def check_nu(nu: float) -> float:
    if not (nu := float(nu)) > 0 or not np.isfinite(nu):
        raise ValueError(f"nu must be finite and > 0, got {nu!r}")
    return nu


def class_balance(s_pos: float, s_neg: float) -> tuple[float, float]:
    """Factors (k_pos, k_neg) in [0, 1] for the dual variables of the positive and of the negative rows, given
    their sums, that make sum_i y_i lambda_i = 0 (the dual constraint of the free offset) with the largest sum left:
    the larger class's scaled down to the smaller's. A dual point of an L1 hinge LP (its box 0 <= lambda <= C kept)
    scaled so is feasible up to the constraints of the coefficients, which a common factor then meets."""
    k_pos = min(1.0, s_neg / s_pos) if s_pos > 0 else 0.0
    k_neg = min(1.0, s_pos / s_neg) if s_neg > 0 else 0.0
    return k_pos, k_neg


class HingeCuttingPlanes:
    """Cutting-plane solver of the model above on one data set; :meth:`solve` for each C keeps the cuts.

    Parameters
    ----------
    y : labels in {-1, +1} (n,).
    r : the weights of the robust term S(v) = r'|v| (L,); zeros when there is no robust term.
    Phi : the rows Phi (n x L) in memory (a numpy array or a float64 memmap, read in place; a scipy sparse matrix,
        as CSR), or a Dask array of them (each chunk's sums computed where it is); else
    X, Z, params : the data rows (a numpy array, a memmap or a Dask array), the landmarks and the core kernel
        parameters (Phi = K(X, Z) computed at every pass).
    delta : the per-row factors of the robust term (n,), or None.
    offset : the margins a_i (n,), or None for 1.
    weight : the sample weights w_i > 0 (n,), or None for 1: the hinge sum is sum_i w_i max(0, ...), so every cut's
        sums are weighted (integer weights equal repeated rows).
    budget : at most this many nonzero v_j (a MILP master with L binaries); None: no budget.
    n_groups : the master models the hinge sum of each of this many groups of consecutive rows by its own cuts
        (the multi-cut form; 1 is the 1-slack form); default :data:`DEFAULT_GROUPS` (at most n).
    """

    def __init__(self, y: np.ndarray, r: np.ndarray, *, Phi: Any = None, X: Any = None, Z: np.ndarray | None = None,
                 params: _core.kernels.KernelParams | None = None, delta: np.ndarray | None = None,
                 offset: np.ndarray | None = None, budget: int | None = None, n_threads: int = 0, block: int = 4096,
                 n_groups: int | None = None, solver_options: Mapping[str, Any] | None = None,
                 weight: np.ndarray | None = None):
        self.r = np.ascontiguousarray(r, dtype=np.float64)
        source, self._dask, n, landmarks = row_source(Phi, X, Z, params)
        self._rows: dict[str, Any] = {"Z": None, "params": None, **source}
        self.Phi: Any = source.get("Phi")
        self.L = self.r.shape[0]
        if self.r.ndim != 1 or self.L != landmarks or not np.all(np.isfinite(self.r)) or np.any(self.r < 0):
            raise ValueError(f"r must hold one value per landmark ({landmarks}), each finite and >= 0")
        self.n = n
        self.y = check_labels(y, n)
        self.delta = check_nonnegative(delta, n, "delta")
        self.offset = check_nonnegative(offset, self.n, "offset", "")  # finite, of any sign
        self.weight = check_weight(weight, n)
        self.n_threads, self.block = int(n_threads), int(block)
        self.G = min(DEFAULT_GROUPS, max(n, 1)) if n_groups is None else int(n_groups)
        if not 1 <= self.G <= max(n, 1):
            raise ValueError(f"n_groups must be in [1, n] = [1, {n}], got {n_groups!r}")
        L, G = self.L, self.G
        self.budget: int | None = None
        self._s0 = 2 * L + 1 + G  # first column of the feature indicators s (when there is a budget)
        self._n_fixed = 0  # rows before the cuts: v+_j + v-_j - U s_j <= 0 (L) and sum s <= B (1), with a budget
        self.options = dict(solver_options or {})
        self._limits: list[str] = []  # the HiGHS statuses of this solve's masters that a limit stopped
        self.master = self._new_master(with_budget=budget is not None and budget < L)
        self.U = np.inf
        self.n_cuts = 0
        self.n_passes = 0
        # Cut management: a cut slack at the master's solution for more than max_age solves in a row is deleted (the
        # master's value stays a valid lower bound when it was computed; the bound reported is the best of them).
        self.max_age = 20
        self._age = np.zeros(0, dtype=np.int64)
        self._cut_upper = np.zeros(0)  # the cut rows' upper bounds -n_c, for the slack test of a MILP master
        # The in-out weight of the stability centre: 0 is Kelley's method; measured at n = 3000, L = 300 (RBF), to a
        # 1e-6 gap, nu = 0.1 / 1: 368 / 790 passes at 0, 179 / 370 at 0.5, 130 / 246 at 0.8, 137 / 227 at 0.9,
        # 204 / 272 at 0.95 (docs/performance.md#the-reduced-model-cutting-planes).
        self.alpha = 0.8
        self._start: tuple[np.ndarray, float] = (np.zeros(L), 0.0)
        if budget is not None:
            self.set_budget(budget)

    # -- the data's side ------------------------------------------------------------------------------------------
    def set_rows(self, y: np.ndarray, offset: np.ndarray | None) -> None:
        """New labels and margin offsets (a CCCP step's): the cuts so far are deleted, the start point kept."""
        self.y = check_labels(y, self.n)
        self.offset = check_nonnegative(offset, self.n, "offset", "")  # finite, of any sign
        if self.master.n_rows > self._n_fixed:
            self.master.delete_rows(np.arange(self._n_fixed, self.master.n_rows))
        self._age = np.zeros(0, dtype=np.int64)
        self._cut_upper = np.zeros(0)
        self.master.clear_solver()

    def _pass(self, v: np.ndarray, gamma: float,
              scores: np.ndarray | None = None) -> _core.cutting_plane.CutSums | GroupSums:
        self.n_passes += 1
        v = np.ascontiguousarray(v, dtype=np.float64)
        S = float(self.r @ np.abs(v))
        if self._dask:
            X = self._rows["Phi"] if self.Phi is not None else self._rows["X"]
            sums, f = dask_cut_pass(X, self.y, self.delta, self.offset, v, float(gamma), S, self._rows["Z"],
                                    self._rows["params"], self.G, self.weight)
            if scores is not None:
                scores[:] = f
            return sums
        if is_sparse(self.Phi):  # scipy's compiled CSR products (sparse_cut_pass): O(nnz), the core's sums
            return GroupSums(*sparse_cut_pass(self.Phi, self.y, v, float(gamma), S, delta=self.delta,
                             offset=self.offset, weight=self.weight, n_groups=self.G, scores_out=scores))
        rows = {k: val for k, val in self._rows.items() if val is not None}
        return _core.cutting_plane.cut_pass(self.y, v, float(gamma), S, delta=self.delta, offset=self.offset,
                                            scores_out=scores, n_threads=self.n_threads, block=self.block,
                                            n_groups=self.G, weight=self.weight, **rows)

    # -- the master -----------------------------------------------------------------------------------------------
    def _new_master(self, *, with_budget: bool) -> HighsModel:
        """Columns [v+ (L), v- (L), gamma, xi_1 .. xi_G (, s_1 .. s_L)]; no cut rows yet (xi_g >= 0 is the cut c = 0).
        With a budget, the rows v+_j + v-_j - U s_j <= 0 and sum_j s_j <= B come first (U and B set later)."""
        L, G = self.L, self.G
        n_cols = 2 * L + 1 + G + (L if with_budget else 0)
        lower = np.zeros(n_cols)
        lower[2 * L] = -np.inf
        upper = np.full(n_cols, np.inf)
        cost = np.concatenate([np.ones(2 * L), [0.0], np.ones(G), np.zeros(n_cols - 2 * L - 1 - G)])
        if not with_budget:
            return HighsModel(a_start=np.zeros(n_cols + 1, dtype=np.int32), a_index=np.zeros(0, np.int32),
                              a_value=np.zeros(0), col_cost=cost, n_rows=0, col_lower=lower, col_upper=upper,
                              options=self.options)
        s0 = self._s0
        upper[s0:] = 1.0
        lower[s0:] = 1.0  # until set_budget: every s_j = 1, the budget row inactive
        # column j of v+ and v-: an entry in row j; column s_j: -U in row j and 1 in row L
        starts = np.concatenate([np.arange(2 * L + 1), np.full(G, 2 * L), 2 * L + 2 * np.arange(L + 1)])
        index = np.concatenate([np.arange(L), np.arange(L), np.column_stack([np.arange(L), np.full(L, L)]).ravel()])
        value = np.concatenate([np.ones(2 * L), np.column_stack([-np.ones(L), np.ones(L)]).ravel()])
        self._n_fixed = L + 1
        return HighsModel(a_start=starts.astype(np.int32), a_index=index.astype(np.int32), a_value=value,
                          col_cost=cost, n_rows=L + 1, col_lower=lower, col_upper=upper, row_lower=-np.inf,
                          row_upper=np.concatenate([np.zeros(L), [float(L)]]), options=self.options)

    def set_budget(self, budget: int | None) -> None:
        """At most ``budget`` nonzero v_j from the next solve on (None or >= L: no budget); the cuts are kept."""
        L = self.L
        if budget is not None and not 1 <= int(budget):
            raise ValueError(f"budget must be >= 1 or None, got {budget!r}")
        B = None if budget is None or int(budget) >= L else int(budget)
        if B is not None and self._n_fixed == 0:
            raise ValueError("the master was built without a budget: pass budget= to the constructor")
        self.budget = B
        if self._n_fixed:
            self.master.change_row_bounds(L, -np.inf, float(L if B is None else B))
            self._restrict(None)

    def _restrict(self, support: np.ndarray | None) -> None:
        """The master over v_j, j in ``support``, only (s fixed: an LP), or (None) every j (the MILP over s)."""
        if self._n_fixed == 0:
            return
        s = np.arange(self._s0, self._s0 + self.L)
        if support is not None or self.budget is None:
            on = np.ones(self.L) if support is None else np.isin(np.arange(self.L), support).astype(np.float64)
            self.master.change_integrality(s, False)
            self.master.change_col_bounds(s, on, on)
        else:
            self.master.change_col_bounds(s, 0.0, 1.0)
            self.master.change_integrality(s, True)
            for key, val in _MASTER_MIP_OPTIONS.items():
                if key not in self.options:
                    self.master.set_option(key, val)

    def _set_U(self, U: float) -> None:
        """The bound |v_j| <= U s_j of the budget rows (any feasible objective bounds ||v*||_1; 0.1% steps)."""
        if self._n_fixed == 0 or not U < self.U * (1.0 - 1e-3):
            return
        self._check_coefficient(U, "the objective bound U of the budget rows (|v_j| <= U s_j)")
        self.U = float(U)
        for j in range(self.L):
            self.master.change_coeff(j, self._s0 + j, -self.U)

    def _check_coefficient(self, top: float, what: str) -> None:
        large = float(self.options.get("large_matrix_value", _LARGE_MATRIX_VALUE))
        if not top < large:  # HiGHS would refuse it (addRows: "Load error", changeCoeff: "Model error")
            raise ValueError(f"{what} reach {top:.3g}, at or above HiGHS's large_matrix_value ({large:g}): the rows, "
                             "the sample weights or C are too large in magnitude; rescale the data (e.g. "
                             "StandardScaler) or divide the weights by a common factor")

    def _feasible(self, v: np.ndarray) -> bool:
        return self.budget is None or int(np.count_nonzero(v)) <= self.budget

    def _add_cut(self, cut: _core.cutting_plane.CutSums | GroupSums) -> None:
        """Per group g with violated rows: xi_g >= n_c - a'(v+ - v-) + b gamma + e r'(v+ + v-), i.e.
        -a'v+ + a'v- + e r'(v+ + v-) + b gamma - xi_g <= -n_c (n_c = sum_i c_i a_i)."""
        L = self.L
        groups = np.flatnonzero(cut.hinge_groups > 0)
        if groups.size == 0:
            return
        a, er = cut.a_groups[groups], cut.e_groups[groups, None] * self.r[None, :]
        width = 2 * L + 2  # v+, v-, gamma, xi_g
        values = np.concatenate([-a + er, a + er, cut.b_groups[groups, None], -np.ones((groups.size, 1))], axis=1)
        self._check_coefficient(float(np.max(np.abs(values))), "a cut's coefficients (weighted sums of rows)")
        index = np.concatenate([np.broadcast_to(np.arange(2 * L + 1), (groups.size, 2 * L + 1)),
                                (2 * L + 1 + groups)[:, None]], axis=1)
        self.master.add_rows(np.full(groups.size, -np.inf), -cut.n_c_groups[groups],
                             np.arange(groups.size, dtype=np.int32) * width, index.ravel(), values.ravel())
        self.n_cuts += groups.size
        self._age = np.concatenate([self._age, np.zeros(groups.size, dtype=np.int64)])
        self._cut_upper = np.concatenate([self._cut_upper, -cut.n_c_groups[groups]])

    def _age_cuts(self, res: Any) -> None:
        """Age the cuts slack at this master solution (a zero dual, or for a MILP master a slack row), reset the
        others; delete the old slack ones."""
        k = self._n_fixed
        if self._age.size == 0 or res.row_value.size != k + self._age.size:
            return
        if res.row_dual.size == res.row_value.size:
            slack = np.abs(res.row_dual[k:]) <= 1e-12
        else:
            slack = res.row_value[k:] < self._cut_upper - 1e-9 * (1.0 + np.abs(self._cut_upper))
        self._age = np.where(slack, self._age + 1, 0)
        old = np.flatnonzero(self._age > self.max_age)
        if old.size:
            self.master.delete_rows(k + old)
            self._age = np.delete(self._age, old)
            self._cut_upper = np.delete(self._cut_upper, old)

    def _solve_master(self) -> Any:
        """The master, warm-started. When HiGHS ends a solve without a status (numerical trouble on the long, dense,
        nearly parallel cuts: seen at n = 10^4 with L = 100 and 500), it is solved again from the slack basis, then
        passed anew to a fresh HiGHS instance (the same problem, which then solves: the trouble is in the state left
        by many row additions and deletions). At a limit of the solver options: HiGHS's point, not optimal."""
        try:
            return self.master.solve(iterate_at_limit=True)
        except SolverError as exc:
            if "limit" in (exc.status or "").lower():
                raise
        self.master.clear_solver()
        try:
            return self.master.solve(iterate_at_limit=True)
        except SolverError:
            self.master.rebuild()
            return self.master.solve(iterate_at_limit=True)

    def _violation(self, cut: _core.cutting_plane.CutSums | GroupSums, v: np.ndarray, gamma: float,
                   xi: np.ndarray) -> float:
        """The largest violation by (v, gamma, xi) of the cuts this pass makes."""
        S = float(self.r @ np.abs(v))
        values = cut.n_c_groups - cut.a_groups @ v + cut.b_groups * gamma + cut.e_groups * S
        return float(np.max(values - xi))

    # -- the solve ------------------------------------------------------------------------------------------------
    def solve(self, nu: float, *, tol: float = 1e-6, max_iter: int = 1000,
              start: tuple[np.ndarray, float] | None = None, deadline: float | None = None,
              max_swaps: int | None = None, certify_time: float | None = None,
              until_support: bool = False, on_iteration: OnIteration | None = None) -> CutSolution:
        """Cutting planes at C = ``nu`` from the kept cuts, until the certified relative gap is <= ``tol`` (or
        ``max_iter`` passes, the ``time.perf_counter()`` ``deadline``, or a limit of the solver options stopping a
        master, its HiGHS status in ``limits``; the gap is then reported as it stands; ``until_support``: not before
        the best point has a nonzero coefficient).

        The first pass is at ``start`` (default: the last solution), which must satisfy the budget: the returned
        point is the best feasible point separated at, so its objective is never above the start's.

        With a budget, the cutting planes run over one support S of at most B features at a time (the master an LP
        with s fixed), exactly to ``tol`` on S. S starts as the start's support and is then improved by swaps
        (at most ``max_swaps``, default B): the feature outside S with the largest ``nu |a_j| > 1`` -- a at the best
        point is the hinge sum's subgradient, so the objective decreases along v_j -- replaces the smallest
        ``|v_j|`` in S (or is added while ``|S| < B``); a swap that does not lower the objective ends the search.
        The MILP over every support, with the cuts so far, is then solved within ``certify_time`` seconds in all
        (None: no limit; 0: skipped): its dual bound is the certified lower bound, and a support it prefers is
        searched in turn. Without it the lower bound is -inf: the search is a local method. (Solving the
        MILP at every pass cost 0.15-0.3 s a pass at d = 10, B = 3, and a single MILP over d = 50, B = 10 did not
        finish in 5 minutes: HiGHS's branch and bound on the big-M relaxation, which the budget hardly tightens.)
        ``on_iteration(passes, upper, lower)`` is called after every master solve (a progress bar's)."""
        nu = check_nu(nu)
        if not tol >= 0 or int(max_iter) < 1:
            raise ValueError(f"tol must be >= 0 and max_iter >= 1, got tol={tol!r}, max_iter={max_iter!r}")
        L = self.L
        self.master.change_costs(np.arange(2 * L + 1, 2 * L + 1 + self.G, dtype=np.int32), np.full(self.G, nu))
        v, gamma = self._start if start is None else (np.asarray(start[0], dtype=np.float64), float(start[1]))
        if v.shape != (L,) or not np.all(np.isfinite(v)) or not np.isfinite(gamma):
            raise ValueError(f"start must be a finite (v of {L} values, gamma)")
        if not self._feasible(v):
            raise ValueError(f"the start has {np.count_nonzero(v)} nonzero coefficients, more than the budget "
                             f"{self.budget}")
        self.U, self._limits = np.inf, []  # U bounds ||v*||_1 at this nu: set again from this solve's points
        st = _SolveState(self, nu, tol, int(max_iter), deadline, (v, gamma), until_support, on_iteration)
        if self.budget is None:
            self._restrict(None)
            st.lower_bound = st.run(None)
        else:
            self._budget_search(st, np.flatnonzero(v), self.budget if max_swaps is None else int(max_swaps),
                                certify_time)
        self._restrict(None)
        v, gamma = st.best
        self._start = (v, gamma)
        return CutSolution(v=v, gamma=gamma, nu=nu, objective=st.best_ub, lower_bound=st.lower_bound,
                           n_iter=self.n_passes - st.passes0, scores=st.scores, history=st.history,
                           timed_out=st.timed_out, restricted_gap=st.restricted_gap, n_swaps=st.n_swaps,
                           limits=list(dict.fromkeys(self._limits)))

    def _budget_search(self, st: _SolveState, support: np.ndarray, max_swaps: int,
                       certify_time: float | None) -> None:
        """The support search of :meth:`solve` with a budget."""
        L, B = self.L, self.budget
        assert B is not None
        tried: set[bytes] = set()
        mip_deadline = None if certify_time is None else time.perf_counter() + float(certify_time)
        while True:
            swaps_left = max_swaps
            while True:
                tried.add(np.sort(support).tobytes())
                self._restrict(support)
                before = st.best_ub
                bound = st.run(support)
                if np.all(np.isin(np.flatnonzero(st.best[0]), support)):  # the best point lies on this support
                    st.restricted_gap = max(0.0, st.gap_of(bound))
                if st.stopped:
                    return
                if st.best_ub >= before * (1.0 - 1e-12) and before < np.inf and st.n_swaps:
                    break  # the last swap did not help
                if swaps_left <= 0 or st.best_grad is None:
                    break
                v = st.best[0]
                cur = np.flatnonzero(v)
                gain = np.abs(st.nu * st.best_grad) - 1.0
                gain[cur] = -np.inf
                j = int(np.argmax(gain))
                if not gain[j] > 1e-9:
                    break  # no feature outside the support lowers the objective: a local optimum over supports
                new = np.append(cur, j) if cur.size < B else np.append(np.delete(cur, np.argmin(np.abs(v[cur]))), j)
                if np.sort(new).tobytes() in tried:
                    break
                support = new
                swaps_left -= 1
                st.n_swaps += 1
            # The MILP over every support: its dual bound certifies; a support it prefers that was not searched yet is
            # searched next. Its optimum at a searched support is within tol of the best point (that support's
            # restricted master closed the gap), so the loop ends.
            res = self._solve_mip(st.best[0], mip_deadline, st.deadline)
            if res is None:
                return
            bound = res.info.get("mip_dual_bound", -np.inf)
            if np.isfinite(bound):
                st.lower_bound = max(st.lower_bound, min(bound, res.objective))
            new = np.flatnonzero(res.x[self._s0:self._s0 + L] > 0.5)
            if st.closed(st.lower_bound) or np.sort(new).tobytes() in tried:
                return
            support = new

    def _solve_mip(self, incumbent: np.ndarray, *deadlines: float | None) -> Any:
        """The MILP master over every support (the cuts so far), from the incumbent's support as a MIP start, until
        the earliest of the deadlines; None when no time is left."""
        now = time.perf_counter()
        limit = min([np.inf] + [d - now for d in deadlines if d is not None])
        if limit <= 0:
            return None
        self._restrict(None)
        self.master.set_option("time_limit", float(limit) if np.isfinite(limit) else np.inf)
        self.master.set_start((incumbent != 0).astype(np.float64), np.arange(self._s0, self._s0 + self.L))
        try:
            with warnings.catch_warnings():
                warnings.simplefilter("ignore", ConvergenceWarning)  # a time limit leaves a valid dual bound
                res = self._solve_master()
            status = None if res.optimal else res.status
        except SolverError as exc:  # a limit before any point (the MIP start refused): no certificate
            if "limit" not in (exc.status or "").lower():
                raise
            res, status = None, str(exc.status)
        finally:
            self.master.set_option("time_limit", float(self.options.get("time_limit", np.inf)))
        if status is not None and ("time" not in status.lower() or self.options.get("time_limit", np.inf) < limit):
            self._limits.append(status)  # a limit of the solver options, not the certificate's time
        return res


class _SolveState:
    """The state of one :meth:`HingeCuttingPlanes.solve`: the best point and its scores, the bounds, the passes."""

    def __init__(self, eng: HingeCuttingPlanes, nu: float, tol: float, max_iter: int, deadline: float | None,
                 start: tuple[np.ndarray, float], until_support: bool = False,
                 on_iteration: OnIteration | None = None):
        self.eng, self.nu, self.tol, self.max_iter, self.deadline = eng, nu, tol, max_iter, deadline
        self.on_iteration, self.start = on_iteration, start
        self.until_support = bool(until_support)  # the deadline waits for a best point with a nonzero coefficient
        self.best_ub, self.best = np.inf, start
        self.best_grad: np.ndarray | None = None  # sum_i c_i y_i Phi_i at the best point (the hinge subgradient: -a)
        self.lower_bound = -np.inf if eng.budget is not None else 0.0
        self.restricted_gap = np.nan
        self.history: list[tuple[float, float]] = []
        self.scores, self.work = np.full(eng.n, np.nan), np.empty(eng.n)  # the best point's scores, and a pass's
        self.passes0, self.timed_out, self.n_swaps, self.limited = eng.n_passes, False, 0, False

    @property
    def stopped(self) -> bool:
        return self.timed_out or self.limited or self.eng.n_passes - self.passes0 >= self.max_iter

    def closed(self, bound: float) -> bool:
        return self.best_ub - bound <= self.tol * max(1.0, abs(self.best_ub))

    def gap_of(self, bound: float) -> float:
        return (self.best_ub - bound) / max(1.0, abs(self.best_ub))

    def separate(self, point: tuple[np.ndarray, float]) -> Any:
        eng = self.eng
        cut = eng._pass(*point, self.work)
        ub = float(np.abs(point[0]).sum()) + self.nu * cut.hinge
        if ub < self.best_ub and eng._feasible(point[0]):
            self.best_ub, self.best = ub, point
            self.scores, self.work = self.work, self.scores
            self.best_grad = np.asarray(cut.a_groups).sum(axis=0)
            eng._set_U(self.best_ub)
        return cut

    def run(self, support: np.ndarray | None) -> float:
        """Cutting planes with the master as configured (over every v_j, or over ``support``) from the best point,
        until the master's bound closes the gap, or a limit; returns the master's best bound."""
        eng, L = self.eng, self.eng.L
        bound = -np.inf
        # In-out separation (Ben-Ameur & Neto): cut at a point between the stability centre (the best iterate) and
        # the master's solution; Kelley's plain iterates (separating at the master's point) zig-zag for hundreds of
        # passes. When the cut there does not cut off the master's point, separate at that point itself. A
        # combination of two supports may exceed the budget: the pass is then made at the master's point.
        master_point: tuple[np.ndarray, float, np.ndarray] | None = None
        first = self.best_ub == np.inf
        while not self.stopped:
            if (self.deadline is not None and eng.n_passes > self.passes0 and time.perf_counter() > self.deadline
                    and not (self.until_support and not np.any(self.best[0] != 0.0))):
                self.timed_out = True  # (the start is always separated at, so the result has its scores)
                break
            if master_point is None:
                # the start first; later runs (a new support) begin at the master, the best point being known
                point = self.start if first else None
                first = False
            else:
                vm, gm, _ = master_point
                a = eng.alpha
                point = (a * self.best[0] + (1 - a) * vm, a * self.best[1] + (1 - a) * gm)
                if not eng._feasible(point[0]):
                    point = (vm, gm)
            if point is not None:
                cut = self.separate(point)
                if master_point is not None and point[0] is not master_point[0]:
                    vm, gm, xim = master_point
                    if (eng._violation(cut, vm, gm, xim) <= 1e-9 * max(1.0, float(np.abs(xim).sum()))
                            and eng.alpha > 0 and not self.stopped):
                        # mis-pricing: this cut leaves the master's point feasible; separate there too
                        eng._add_cut(cut)
                        cut = self.separate((vm, gm))
                eng._add_cut(cut)
            res = eng._solve_master()
            eng._age_cuts(res)
            if res.optimal:
                bound = max(bound, res.objective)
            else:  # a limit of the solver options stopped the master: the solve stops with its best point
                eng._limits.append(res.status)
                self.limited = True
            if support is None:
                self.lower_bound = max(self.lower_bound, bound)
            self.history.append((self.best_ub, self.lower_bound))
            if self.on_iteration is not None:
                self.on_iteration(eng.n_passes - self.passes0, self.best_ub, self.lower_bound)
            if self.closed(bound):
                break
            vm = res.x[:L] - res.x[L:2 * L]
            if eng._n_fixed:
                vm = np.where(res.x[eng._s0:eng._s0 + L] > 0.5, vm, 0.0)  # v_j = 0 wherever s_j = 0, exactly
            master_point = (vm, float(res.x[2 * L]), res.x[2 * L + 1:2 * L + 1 + eng.G])
        return bound
