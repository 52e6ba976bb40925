"""Models, big-M computation (Algorithm 1) and Dynamic Adaptive Kernel Search (Algorithm 2) of paper 001.

Baldomero-Naranjo, Martinez-Merino, Rodriguez-Chia, "A robust SVM-based approach with feature selection and
outliers detection for classification problems". Everything here works on labels ``y`` in {-1, +1} (float) and a
dense float64 ``X``; the estimators in :mod:`svmopt.ramp_svc` do the validation and label coding.

Column layout of every (RL-FS-M) model built here (``m`` = number of feature columns, ``n`` = points)::

    [ wp (m) | wm (m) | b | xi (n) | z (n) | v (m) ]

Row layout::

    (13) n rows   y_i (sum_k (wp_k - wm_k) x_ik + b) + xi_i + M_i z_i >= 1
    (15) n rows   xi_i + 2 z_i <= 2
    (10) m rows   wp_k - u v_k <= 0
    (11) m rows   wm_k - l v_k <= 0          (u = l, as in the paper: UB, then UB_w)
    (6)  1 row    sum_k v_k <= B
    (21) m rows   wp_k + wm_k <= UB_w
    (18)/(24) 1   sum (wp + wm) + C sum xi + 2C sum z <= UB   (objective cut-off)
    (25)/(26) 1   sum_{k in cover} v_k >= 1

Matrices are assembled once per model with vectorised numpy (COO -> CSC through scipy) and handed to HiGHS in one
``passModel`` call through :class:`svmopt.highs.HighsModel`; the bounding LPs of Algorithm 1 reuse one model and only
change costs, bounds and single z coefficients (Gauss-Seidel update of M_i).
"""

from __future__ import annotations

import math
import time
import warnings
from dataclasses import dataclass, field
from typing import Any

import numpy as np
import scipy.sparse as sp
from sklearn.exceptions import ConvergenceWarning

from svmopt.exceptions import SolverError
from svmopt.highs import HighsModel, merge_options

__all__ = [
    "BigM",
    "DAKSParams",
    "RLSolution",
    "algorithm1",
    "class_diameters",
    "daks",
    "initial_solution",
    "ramp",
    "rlfs_objective",
    "solve_fs_svm",
    "solve_rlfs_mip",
    "solve_svm_l1",
]

INF = math.inf
W_TOL = 1e-7  # D18/D19: |w_k| > W_TOL means feature k is selected
_ZERO_M = 1e-8  # D9: M_i at or below this is 0, and z_i is fixed to 0 (z_i = 1 is dominated)

LP_OPTIONS: dict[str, Any] = {}  # highs.DEFAULT_OPTIONS: dual simplex, presolve off, tolerances 1e-9
MIP_OPTIONS: dict[str, Any] = {
    "presolve": "on",
    "solver": "choose",
    "mip_rel_gap": 0.0,  # paper: CPLEX relative gap 0
    "mip_feasibility_tolerance": 1e-9,  # D14: CPLEX used 0; HiGHS' minimum is 1e-10
    "threads": 1,
}


# ---------------------------------------------------------------------------------------------------------------
# objective and solutions
# ---------------------------------------------------------------------------------------------------------------
def ramp(t: np.ndarray) -> np.ndarray:
    """Brooks' ramp loss ``min(2, max(0, 1 - t))`` of the margins ``t = y_i f(x_i)`` (spec 1.2)."""
    return np.minimum(2.0, np.maximum(0.0, 1.0 - np.asarray(t, dtype=np.float64)))


def rlfs_objective(X: np.ndarray, y: np.ndarray, w: np.ndarray, b: float, C: float) -> float:
    """``||w||_1 + C sum_i ramp(y_i (w.x_i + b))``: the value of (RL-FS) / (RL-l1) at ``(w, b)`` (ramp identity)."""
    return float(np.abs(w).sum() + C * ramp(y * (X @ w + b)).sum())


def hinge_objective(X: np.ndarray, y: np.ndarray, w: np.ndarray, b: float, C: float) -> float:
    """``||w||_1 + C sum_i max(0, 1 - y_i f(x_i))``: the value of (SVM-l1) / (FS-SVM) at ``(w, b)``."""
    return float(np.abs(w).sum() + C * np.maximum(0.0, 1.0 - y * (X @ w + b)).sum())


@dataclass
class RLSolution:
    """A solution of (RL-FS-M) in canonical form: ``z_i = 1`` iff ``y_i f(x_i) < -1``, ``xi`` the capped hinge.

    ``objective`` equals ``||w||_1 + C (sum xi + 2 sum z)`` = the ramp objective (spec 1.2), so it is a true
    (RL-FS) value whatever solver path produced ``(w, b)``.
    """

    w: np.ndarray
    b: float
    xi: np.ndarray
    z: np.ndarray
    objective: float

    @property
    def support(self) -> np.ndarray:
        return np.flatnonzero(np.abs(self.w) > W_TOL)

    @classmethod
    def from_wb(cls, X: np.ndarray, y: np.ndarray, w: np.ndarray, b: float, C: float, *,
                ramp_loss: bool = True) -> RLSolution:
        w = np.where(np.abs(w) > W_TOL, w, 0.0)
        t = y * (X @ w + b)
        if ramp_loss:
            z = (t < -1.0).astype(np.float64)
            xi = np.where(z > 0, 0.0, np.clip(1.0 - t, 0.0, 2.0))
        else:
            z = np.zeros_like(t)
            xi = np.maximum(0.0, 1.0 - t)
        obj = float(np.abs(w).sum() + C * (xi.sum() + 2.0 * z.sum()))
        return cls(w=w, b=float(b), xi=xi, z=z, objective=obj)


# ---------------------------------------------------------------------------------------------------------------
# (SVM-l1) LP, used for (SVM-l1), its top-B re-solve, (SVM-l1-bar) and polishing
# ---------------------------------------------------------------------------------------------------------------
def solve_svm_l1(X: np.ndarray, y: np.ndarray, C: float, *, features: np.ndarray | None = None,
                 points: np.ndarray | None = None, xi_cap: float = INF, options: dict | None = None,
                 time_limit: float | None = None) -> tuple[np.ndarray, float, np.ndarray, float]:
    """(SVM-l1) (eqs. (5), (8), (16), (17)) in split form on a feature / point subset; ``xi <= xi_cap``.

    With ``xi_cap = 2`` and ``points = {i : z_i = 0}`` this is (SVM-l1-bar)_{v,z} of Sec. 2.1. Returns the full
    ``w`` (zero outside ``features``), ``b``, ``xi`` on ``points`` and the LP objective.
    """
    d = X.shape[1]
    feats = np.arange(d) if features is None else np.asarray(features, dtype=np.intp)
    pts = np.arange(X.shape[0]) if points is None else np.asarray(points, dtype=np.intp)
    Xs = X[np.ix_(pts, feats)]
    ys = y[pts]
    n, m = Xs.shape
    ii, kk = np.nonzero(Xs)
    yx = ys[ii] * Xs[ii, kk]
    rows = np.concatenate([ii, ii, np.arange(n), np.arange(n)])
    cols = np.concatenate([kk, m + kk, np.full(n, 2 * m), 2 * m + 1 + np.arange(n)])
    vals = np.concatenate([yx, -yx, ys, np.ones(n)])
    A = sp.csc_matrix((vals, (rows, cols)), shape=(n, 2 * m + 1 + n))
    cost = np.concatenate([np.ones(2 * m), [0.0], np.full(n, C)])
    lower = np.zeros(2 * m + 1 + n)
    lower[2 * m] = -INF
    upper = np.full(2 * m + 1 + n, INF)
    upper[2 * m + 1:] = xi_cap
    model = HighsModel(a_start=A.indptr, a_index=A.indices, a_value=A.data, col_cost=cost, n_rows=n,
                       col_lower=lower, col_upper=upper, row_lower=1.0, options=merge_options(options),
                       time_limit=time_limit)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", ConvergenceWarning)
        res = model.solve()
    if not res.optimal:
        raise SolverError("the (SVM-l1) LP hit a limit", res.status)
    w = np.zeros(d)
    w[feats] = res.x[:m] - res.x[m:2 * m]
    return w, float(res.x[2 * m]), res.x[2 * m + 1:], res.objective


def initial_solution(X: np.ndarray, y: np.ndarray, C: float, budget: int, *, options: dict | None = None,
                     time_limit: float | None = None) -> tuple[RLSolution, float]:
    """Step 1 of Algorithm 1 (Sec. 2.1): (SVM-l1), top-B re-solve (D1), tilde solution, (SVM-l1-bar), UB.

    Returns the initial feasible solution (canonical form) and UB, the (RL-FS-M) objective of the
    solution ``(wp-, wm-, b-, xi-, z- = z~, v- = v~)`` including the constant ``2C |{z~ = 1}|`` (D6).
    """
    d = X.shape[1]
    w, _b, xi, _ = solve_svm_l1(X, y, C, options=options, time_limit=time_limit)
    supp = np.flatnonzero(np.abs(w) > W_TOL)
    if supp.size > budget:  # D1: keep the B largest |w_k|, ties to the smaller index
        keep = np.sort(np.argsort(-np.abs(w), kind="stable")[:budget])
        w, _, xi, _ = solve_svm_l1(X, y, C, features=keep, options=options, time_limit=time_limit)
        supp = np.flatnonzero(np.abs(w) > W_TOL)
    z_t = xi > 2.0 + 1e-9  # tilde: xi^S > 2 -> outlier
    pts = np.flatnonzero(~z_t)
    if supp.size:
        wbar, bbar, xibar, _ = solve_svm_l1(X, y, C, features=supp, points=pts, xi_cap=2.0, options=options,
                                            time_limit=time_limit)
    else:  # v~ = 0: only b is free
        wbar, bbar, xibar, _ = solve_svm_l1(X, y, C, features=np.zeros(0, np.intp), points=pts, xi_cap=2.0,
                                            options=options, time_limit=time_limit)
    wbar = np.where(np.abs(wbar) > W_TOL, wbar, 0.0)
    xi_full = np.zeros(X.shape[0])
    xi_full[pts] = np.clip(xibar, 0.0, 2.0)
    z = z_t.astype(np.float64)
    ub = float(np.abs(wbar).sum() + C * (xi_full.sum() + 2.0 * z.sum()))  # D6: with the 2C constant
    sol = RLSolution(w=wbar, b=bbar, xi=xi_full, z=z, objective=ub)
    assert np.count_nonzero(sol.w) <= budget <= d
    return sol, ub


def class_diameters(X: np.ndarray, y: np.ndarray) -> np.ndarray:
    """``Delta_i = max_{j: y_j = y_i} ||x_i - x_j||_inf`` (Prop. 2.2) in O(n d): the inner max over j and k
    swaps, and ``max_j |x_ik - x_jk| = max(x_ik - min_class_k, max_class_k - x_ik)``."""
    delta = np.zeros(X.shape[0])
    for cls in (-1.0, 1.0):  # two classes, not a loop over rows
        idx = y == cls
        if not idx.any():
            continue
        Xc = X[idx]
        lo, hi = Xc.min(axis=0), Xc.max(axis=0)
        delta[idx] = np.maximum(Xc - lo, hi - Xc).max(axis=1, initial=0.0)
    return delta


# ---------------------------------------------------------------------------------------------------------------
# (RL-FS-M) matrix
# ---------------------------------------------------------------------------------------------------------------
@dataclass(frozen=True)
class _Layout:
    n: int
    m: int

    @property
    def n_cols(self) -> int:
        return 3 * self.m + 1 + 2 * self.n

    @property
    def b(self) -> int:
        return 2 * self.m

    @property
    def xi0(self) -> int:
        return 2 * self.m + 1

    @property
    def z0(self) -> int:
        return 2 * self.m + 1 + self.n

    @property
    def v0(self) -> int:
        return 2 * self.m + 1 + 2 * self.n

    # rows
    @property
    def n_rows(self) -> int:
        return 2 * self.n + 3 * self.m + 3

    @property
    def r15(self) -> int:
        return self.n

    @property
    def r10(self) -> int:
        return 2 * self.n

    @property
    def r11(self) -> int:
        return 2 * self.n + self.m

    @property
    def r6(self) -> int:
        return 2 * self.n + 2 * self.m

    @property
    def r21(self) -> int:
        return 2 * self.n + 2 * self.m + 1

    @property
    def r18(self) -> int:
        return 2 * self.n + 3 * self.m + 1

    @property
    def rcover(self) -> int:
        return 2 * self.n + 3 * self.m + 2


@dataclass
class _Built:
    layout: _Layout
    A: sp.csc_matrix
    cost: np.ndarray
    col_lower: np.ndarray
    col_upper: np.ndarray
    row_lower: np.ndarray
    row_upper: np.ndarray
    integrality: np.ndarray

    def model(self, options: dict, time_limit: float | None = None, cost: np.ndarray | None = None) -> HighsModel:
        return HighsModel(a_start=self.A.indptr, a_index=self.A.indices, a_value=self.A.data,
                          col_cost=self.cost if cost is None else cost, n_rows=self.layout.n_rows,
                          col_lower=self.col_lower, col_upper=self.col_upper, row_lower=self.row_lower,
                          row_upper=self.row_upper, integrality=self.integrality, options=options,
                          time_limit=time_limit)

    def is_feasible(self, x: np.ndarray, tol: float = 1e-7) -> bool:
        """Check a column vector against every row and column bound (D5: before using it as a MIP start)."""
        ax = self.A @ x
        scale = 1.0 + np.abs(ax)
        if np.any(ax < self.row_lower - tol * scale) or np.any(ax > self.row_upper + tol * scale):
            return False
        return bool(np.all(x >= self.col_lower - tol) and np.all(x <= self.col_upper + tol))

    def start_vector(self, sol: RLSolution, feats: np.ndarray) -> np.ndarray | None:
        """``sol`` in this layout (None when its support is not inside ``feats``)."""
        L = self.layout
        wf = sol.w[feats]
        if np.count_nonzero(sol.w) != np.count_nonzero(wf):
            return None
        x = np.zeros(L.n_cols)
        x[:L.m] = np.maximum(wf, 0.0)
        x[L.m:2 * L.m] = np.maximum(-wf, 0.0)
        x[L.b] = sol.b
        x[L.xi0:L.z0] = sol.xi
        x[L.z0:L.v0] = sol.z
        x[L.v0:] = (np.abs(wf) > 0).astype(np.float64)
        return x


def build_rlfs(Xs: np.ndarray, y: np.ndarray, C: float, *, M: np.ndarray, U: float, budget: int,
               ub_w: float = INF, b_bounds: tuple[float, float] = (-INF, INF), cutoff: float = INF,
               cover: np.ndarray | None = None, zh: np.ndarray | None = None, ramp_loss: bool = True,
               use_cut15: bool = True, scaled_v: bool = False, int_z: bool = True, int_v: bool = True,
               fix_zero_m: bool = True) -> _Built:
    """(RL-FS-M) + (15) + (21) + (22) [+ (18)/(24) cut-off, + (25)/(26) cover] on the feature columns of ``Xs``.

    * ``U``: the common ``u_k = l_k`` of (10)/(11). With ``scaled_v`` (bounding LPs) the column ``v`` holds
      ``U v_k`` in ``[0, U]`` so that (10)/(11) have coefficient -1 and (6) reads ``sum <= B U``: a change of U is a
      bound change only (no coefficient edits between the LPs of Algorithm 1).
    * ``zh`` (DAKS, Sec. 4.1): 0 fixes ``z_i = 0``; 1 fixes ``z_i = 1`` (cost 2C through the fixed column, row
      (13) deactivated, ``xi_i = 0``); 2 leaves ``z_i`` binary. ``None`` means all 2.
    * ``ramp_loss=False`` gives (FS-SVM): ``z = 0`` and ``xi`` unbounded, no (15).
    * ``fix_zero_m`` (D9): ``M_i = 0`` fixes ``z_i = 0``.
    """
    n, m = Xs.shape
    L = _Layout(n, m)
    M = np.asarray(M, dtype=np.float64)
    ii, kk = np.nonzero(Xs)
    yx = y[ii] * Xs[ii, kk]
    ar_n, ar_m = np.arange(n), np.arange(m)
    vc = 1.0 if scaled_v else U
    cov = np.zeros(0, np.intp) if cover is None else np.asarray(cover, dtype=np.intp)
    rows = [ii, ii, ar_n, ar_n, ar_n,  # (13)
            L.r15 + ar_n, L.r15 + ar_n,  # (15)
            L.r10 + ar_m, L.r10 + ar_m, L.r11 + ar_m, L.r11 + ar_m,  # (10), (11)
            np.full(m, L.r6),  # (6)
            L.r21 + ar_m, L.r21 + ar_m,  # (21)
            np.full(2 * m + 2 * n, L.r18),  # (18)
            np.full(cov.size, L.rcover)]
    cols = [kk, m + kk, np.full(n, L.b), L.xi0 + ar_n, L.z0 + ar_n,
            L.xi0 + ar_n, L.z0 + ar_n,
            ar_m, L.v0 + ar_m, m + ar_m, L.v0 + ar_m,
            L.v0 + ar_m,
            ar_m, m + ar_m,
            np.concatenate([ar_m, m + ar_m, L.xi0 + ar_n, L.z0 + ar_n]),
            L.v0 + cov]
    vals = [yx, -yx, y, np.ones(n), M,
            np.ones(n), np.full(n, 2.0),
            np.ones(m), np.full(m, -vc), np.ones(m), np.full(m, -vc),
            np.ones(m),
            np.ones(m), np.ones(m),
            np.concatenate([np.ones(2 * m), np.full(n, C), np.full(n, 2.0 * C)]),
            np.ones(cov.size)]
    A = sp.csc_matrix((np.concatenate(vals), (np.concatenate(rows), np.concatenate(cols))),
                      shape=(L.n_rows, L.n_cols))
    A.eliminate_zeros()
    A.sort_indices()

    cost = np.concatenate([np.ones(2 * m), [0.0], np.full(n, C), np.full(n, 2.0 * C), np.zeros(m)])
    col_lower = np.zeros(L.n_cols)
    col_upper = np.full(L.n_cols, INF)
    col_lower[L.b], col_upper[L.b] = b_bounds
    col_upper[L.xi0:L.z0] = 2.0 if ramp_loss else INF
    col_upper[L.z0:L.v0] = 1.0 if ramp_loss else 0.0
    col_upper[L.v0:] = U if scaled_v else 1.0
    row_lower = np.full(L.n_rows, -INF)
    row_upper = np.full(L.n_rows, INF)
    row_lower[:n] = 1.0
    if ramp_loss and use_cut15:
        row_upper[L.r15:L.r15 + n] = 2.0
    row_upper[L.r10:L.r6] = 0.0
    row_upper[L.r6] = budget * U if scaled_v else budget
    row_upper[L.r21:L.r21 + m] = ub_w
    row_upper[L.r18] = cutoff
    if cov.size:
        row_lower[L.rcover] = 1.0
    if ramp_loss and fix_zero_m:
        col_upper[L.z0 + np.flatnonzero(M <= _ZERO_M)] = 0.0
    if zh is not None:
        zh = np.asarray(zh)
        zero, one = np.flatnonzero(zh == 0), np.flatnonzero(zh == 1)
        col_upper[L.z0 + zero] = 0.0
        col_lower[L.z0 + one] = 1.0
        col_upper[L.z0 + one] = 1.0
        col_upper[L.xi0 + one] = 0.0
        row_lower[one] = -INF  # D11: deactivate (13) of fixed outliers
    integ = np.zeros(L.n_cols, dtype=np.int32)
    if int_z and ramp_loss:
        integ[L.z0:L.v0] = 1
    if int_v:
        integ[L.v0:] = 1
    return _Built(L, A, cost, col_lower, col_upper, row_lower, row_upper, integ)


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


class _BoundingLP:
    """The LP relaxation of (RL-FS-M) + (15) + (18) shared by every bounding LP of Algorithm 1.

    Built once (vectorised); between solves only the costs, the bounds of ``v`` / (6) / (21) / ``b`` and single
    ``z_i`` coefficients of (13) change, and HiGHS re-solves from the previous basis.
    """

    def __init__(self, X, y, C, budget, M, U, ub, use_cut15, options, deadline):
        self.built = build_rlfs(X, y, C, M=M, U=U, budget=budget, cutoff=ub + 1e-9 * max(1.0, abs(ub)),
                                scaled_v=True, int_z=False, int_v=False, use_cut15=use_cut15)
        self.L = self.built.layout
        self.budget = budget
        self.cost = np.zeros(self.L.n_cols)
        self.model = self.built.model(merge_options({**LP_OPTIONS, **(options or {})}), cost=self.cost)
        self.deadline = deadline
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
            return None
        self.model.set_option("time_limit", float(remaining))
        try:
            with warnings.catch_warnings():
                warnings.simplefilter("ignore", ConvergenceWarning)
                res = self.model.solve()
        except SolverError as exc:
            if exc.status is not None and "time" in exc.status.lower():
                return None  # time budget spent inside this LP: the bounds so far stay valid
            raise
        self.n_solves += 1
        if not res.optimal:
            return None
        return -res.objective if maximize else res.objective

    def set_u(self, U: float) -> None:
        L = self.L
        self.model.change_col_bounds(np.arange(L.v0, L.n_cols), 0.0, U)
        self.model.change_row_bounds(L.r6, -INF, self.budget * U)
        self.model.change_row_bounds(np.arange(L.r21, L.r21 + L.m), -INF, U)

    def set_b_bounds(self, lo: float, hi: float) -> None:
        self.model.change_col_bounds(self.L.b, lo, hi)

    def set_m(self, i: int, value: float) -> None:
        """Gauss-Seidel update of one M_i (D9): the coefficient of z_i in its row (13)."""
        self.M[i] = value
        self.model.change_coeff(int(i), int(self.L.z0 + i), float(value))
        if value <= _ZERO_M:
            self.model.change_col_bounds(int(self.L.z0 + i), 0.0, 0.0)

    def set_m_all(self, M: np.ndarray) -> None:
        for i in np.flatnonzero(M != self.M):  # only the coefficients that changed
            self.set_m(int(i), float(M[i]))


_DOMINATED_M = 2.0 - 1e-9


def _tighten(old: float, value: float, fix_dominated: bool = True) -> float:
    """D9: ``min(old, max(0, value))`` with a 1e-9 relative safety margin for the LP tolerance.

    With ``fix_dominated`` an ``M_i < 2`` becomes 0 (so ``z_i`` is fixed to 0). Decision (extends D9): if
    ``M_i < 2``, any solution with ``z_i = 1`` (hence ``xi_i = 0`` by (15)) satisfies ``1 - y_i f(x_i) <= M_i < 2``,
    and switching to ``z_i = 0``, ``xi_i = max(0, 1 - y_i f(x_i))`` keeps every other constraint and lowers the
    objective by at least ``C (2 - M_i) > 0``; so no optimal solution has ``z_i = 1``, and ``M_i := 0`` is valid.
    """
    m = value + 1e-9 * (1.0 + abs(value))
    if m <= _ZERO_M or (fix_dominated and m < _DOMINATED_M):
        m = 0.0
    return min(old, m)


def _fix_dominated(M: np.ndarray, on: bool) -> np.ndarray:
    return np.where(M < _DOMINATED_M, 0.0, M) if on else M


def algorithm1(X: np.ndarray, y: np.ndarray, C: float, budget: int, *, variant: str = "variant1",
               max_iter: int = 30, tol: float = 1e-4, time_limit: float | None = None,
               rebound_b_in_loop: bool = False, use_cut15: bool = True, fix_dominated: bool = True,
               warm_start: bool = False, options: dict | None = None,
               verbose: bool = False) -> tuple[BigM, RLSolution]:
    """Algorithm 1 (Sec. 2.1-2.2, spec 2.6): initial solution and UB, initial Ms, (UB-w), (LB-b)/(UB-b), then the
    loop of (UB-w) and the M LPs -- one LP per point (``"variant1"``, (UB_Mi)) or per class (``"variant2"``,
    (UB_M+)/(UB_M-)) -- until no bound drops by more than ``tol * max(1, old)`` (D10) or ``max_iter`` loops.

    ``variant="initial"`` stops after step 2 (``M_i = Delta_i UB``, ``u = l = UB``; no (21)/(22)).
    Decisions: D3 (15) in every LP, D8 ``min(old, new)`` updates, D9 floor at 0 and sequential M updates,
    D10 stopping rule; ``fix_dominated`` (default True) sets every tightened ``M_i < 2`` to 0, which fixes
    ``z_i = 0`` (see :func:`_tighten`; valid because C > 0) and skips that point's later (UB_Mi) LPs.
    A time limit stops the tightening early; the bounds found so far stay valid.

    All bounding LPs share one HiGHS model (built once); between solves only costs, bounds and single z
    coefficients change. ``warm_start=False`` (default) clears the solver state before each re-solve (no second
    ``passModel``); ``True`` starts from the previous basis. Measured in ``benchmarks/bench_ramp.py::BigMSweep``
    (one Variant-I sweep, d = 10): n = 60: cold 0.18 s, warm 0.30 s, rebuilding the LP per point 0.37 s;
    n = 150: cold 1.39 s, warm 2.36 s, rebuild 1.97 s. After an objective change the old basis is far from
    optimal for the new (UB_Mi) objective and the dual simplex needs more iterations from it than from scratch.
    """
    t0 = time.perf_counter()
    deadline = t0 + (INF if time_limit is None else time_limit)
    sol, ub = initial_solution(X, y, C, budget, options=options)
    delta = class_diameters(X, y)
    M = delta * ub
    bm = BigM(M=M, u=ub, ub_w=INF, lb_b=-INF, ub_b=INF, ub=ub, variant=variant)
    if verbose:
        print(f"[Algorithm 1] initial solution: UB = {ub:.6g}, support {sol.support.size}, "
              f"outliers {int(sol.z.sum())}")
    if variant == "initial" or ub <= 0:
        return bm, sol
    lp = _BoundingLP(X, y, C, budget, M, ub, ub, use_cut15, options, deadline)
    lp.warm_start = warm_start
    L = lp.L
    wcols = np.arange(2 * L.m)
    ones_w = np.ones(2 * L.m)
    val = lp.optimum(wcols, ones_w, maximize=True)  # line 4: (UB-w)
    if val is None:
        return bm, sol
    bm.ub_w = min(ub, max(0.0, val + 1e-9 * (1.0 + abs(val))))
    bm.u = bm.ub_w
    M = _fix_dominated(np.minimum(M, delta * bm.ub_w), fix_dominated)  # line 5 (D8)
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

    Yx = y[:, None] * X
    n = X.shape[0]
    if variant == "variant2":
        pos, neg = y > 0, y < 0
        lo_p, hi_p = X[pos].min(axis=0), X[pos].max(axis=0)
        lo_n, hi_n = X[neg].min(axis=0), X[neg].max(axis=0)
    idx_i = np.concatenate([wcols, [L.b], [0]])
    for it in range(max_iter):  # lines 7-11
        old_ubw, old_M = bm.ub_w, lp.M.copy()
        val = lp.optimum(wcols, ones_w, maximize=True)  # line 8
        if val is None:
            break
        bm.ub_w = _tighten(bm.ub_w, val, False)
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
                coef = np.concatenate([-Yx[i], Yx[i], [-y[i]], [-1.0]])
                v = lp.optimum(idx_i, coef, maximize=True)
                if v is None:
                    timed_out = True
                    break
                lp.set_m(i, _tighten(lp.M[i], 1.0 + v, fix_dominated))
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
                newM[members] = np.minimum(lp.M[members], _tighten(INF, 1.0 + v, fix_dominated))
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


def run_mip(built: _Built, *, options: dict, time_limit: float | None, start: np.ndarray | None = None,
            t_fea: float | None = None, t_inc: float | None = None) -> MipOutcome:
    """Solve a built model; ``start`` (checked for feasibility, D5) is the MIP start; ``t_fea`` / ``t_inc`` are
    enforced through HiGHS' MIP interrupt callback (Sec. 4.5)."""
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


def polish(X: np.ndarray, y: np.ndarray, C: float, w: np.ndarray, b: float, z: np.ndarray, *,
           ramp_loss: bool = True, options: dict | None = None) -> RLSolution:
    """D14: with z rounded and ``v = 1[|w| > tol]``, re-solve the LP (SVM-l1-bar) on that support and the
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


def _decode(x: np.ndarray, L: _Layout, feats: np.ndarray, d: int) -> tuple[np.ndarray, float, np.ndarray]:
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


def solve_rlfs_mip(X: np.ndarray, y: np.ndarray, C: float, budget: int, bm: BigM, *,
                   start: RLSolution | None = None, time_limit: float | None = None, mip_gap: float = 0.0,
                   use_cut15: bool = True, options: dict | None = None) -> MilpResult | None:
    """The exact approach (Sec. 4.2, spec 3): (RL-FS-M) + (15) + (21) + (22) with Algorithm 1's bounds, the
    initial solution as MIP start, then polishing (D14). None when HiGHS found no solution in the time limit."""
    d = X.shape[1]
    feats = np.arange(d)
    built = build_rlfs(X, y, C, M=bm.M, U=bm.u, budget=budget, ub_w=bm.ub_w, b_bounds=(bm.lb_b, bm.ub_b),
                       use_cut15=use_cut15)
    x0 = None if start is None else built.start_vector(start, feats)
    opts = merge_options({**MIP_OPTIONS, "mip_rel_gap": float(mip_gap), **(options or {})})
    out = run_mip(built, options=opts, time_limit=time_limit, start=x0)
    if out.x is None:
        if out.status == "infeasible":
            raise SolverError("the (RL-FS-M) MILP is infeasible: the big-M bounds cut off every solution",
                              "Infeasible")
        return None
    w, b, z = _decode(out.x, built.layout, feats, d)
    sol = polish(X, y, C, w, b, z, options=options)
    if start is not None and start.objective < sol.objective:
        sol = start
    gap = out.gap
    if out.status != "optimal" and np.isfinite(out.dual_bound):
        gap = max(0.0, (sol.objective - out.dual_bound) / max(abs(sol.objective), 1e-12))
    return MilpResult(sol, out.status, gap, out.dual_bound, out.runtime)


def solve_fs_svm(X: np.ndarray, y: np.ndarray, C: float, budget: int, *, time_limit: float | None = None,
                 mip_gap: float = 0.0, options: dict | None = None) -> tuple[MilpResult | None, RLSolution]:
    """(FS-SVM) (spec 1.5): the budget-constrained l1-SVM MILP with ``u = l = UB`` from the top-B (SVM-l1)
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
    w2, b2, z = _decode(out.x, built.layout, feats, d)
    sol = polish(X, y, C, w2, b2, z, ramp_loss=False, options=options)
    if start.objective < sol.objective:
        sol = start
    gap = out.gap
    if out.status != "optimal" and np.isfinite(out.dual_bound):
        gap = max(0.0, (sol.objective - out.dual_bound) / max(abs(sol.objective), 1e-12))
    return MilpResult(sol, out.status, gap, out.dual_bound, out.runtime), start


# ---------------------------------------------------------------------------------------------------------------
# Dynamic Adaptive Kernel Search (Algorithm 2, Sec. 3; spec 4.7)
# ---------------------------------------------------------------------------------------------------------------
@dataclass
class DAKSParams:
    """DAKS parameters with the paper's defaults (Sec. 4.2 / spec 4.6) and the spec's decisions.

    delta : growth of the kernel+bucket size after an easy sub-problem, in [0, 1] (0.35).
    p : a kernel feature unused in the last ``p`` feasible iterations leaves the kernel (2).
    q : a possible outlier whose ``z`` was equal in the last ``q`` feasible iterations is fixed (2).
    t_easy, t_fea, t_inc, t_limit : sub-problem time controls in seconds (10, 120, 160, 400).
    time_limit : total DAKS time, checked before each sub-problem (D17; 1800).
    tau : threshold of the ``zh`` rules on ``xi`` (D12; 1).
    max_phase2 : cap on phase-2 passes (D17; 20).
    a1_max_iter, a1_time_fraction : Algorithm 1 budget in phase 1 (D10; 5 loops, 10% of ``time_limit``).
    subproblem_bounds : add (21)/(22) to the sub-problems (D11; True).
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
    """Phase 1 (Sec. 3.1.1, D12): 1 if z = 1; 2 if z = 0 and xi > tau; 0 otherwise."""
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
    """Table 1 after a feasible phase-3 iteration (D12, D16). ``hist`` (n, q) holds the last q values of z for
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


def should_interrupt(t: float, last_improve: float | None, primal_bound: float, t_fea: float | None,
                     t_inc: float | None) -> bool:
    """Sec. 4.5 time controls of a sub-problem at HiGHS run time ``t``: ``t_fea`` while no feasible solution
    exists, ``t_inc`` measured from the last improvement once one exists."""
    if last_improve is None:
        return t_fea is not None and t > t_fea and primal_bound >= INF
    return t_inc is not None and t - last_improve > t_inc


def next_bucket(order: np.ndarray, ptr: int, S: int, kernel_size: int) -> tuple[np.ndarray, int]:
    """D15: the next ``max(1, S - |K|)`` unused indices of the ordered list (each index once per pass)."""
    size = max(1, S - kernel_size)
    bucket = order[ptr:ptr + size]
    return bucket, ptr + bucket.size


def grow_size(S: int, runtime: float, t_easy: float, delta: float) -> int:
    """Sec. 3.1.3 / D15: ``S := ceil((1 + delta) S)`` after an easy sub-problem (time <= t_Easy), else unchanged."""
    return math.ceil((1.0 + delta) * S) if runtime <= t_easy else S


def cover_features(bucket: np.ndarray, in_kernel: np.ndarray, best_selected: np.ndarray, it: int,
                   prev_feasible_not_optimal: bool) -> np.ndarray:
    """(25) ``sum_{B_it} v >= 1``, or (26) ``sum_{B_it u {k in K: vbar_k = 0}} v >= 1`` when the previous
    iteration found a feasible but not proven-optimal solution (vbar normalised by D18)."""
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
    stop_reason: str  # "rule_i", "cycle", "max_phase2", "time_limit"
    n_phase2: int
    n_subproblems: int
    ub_history: list


class _DAKS:
    def __init__(self, X, y, C, budget, params: DAKSParams, options, seed_options, verbose):
        self.X, self.y, self.C, self.B = X, y, C, budget
        self.n, self.d = X.shape
        self.P = params
        self.lp_options = options
        self.mip_options = merge_options({**MIP_OPTIONS, **seed_options, **(options or {})})
        self.verbose = verbose
        self.n_sub = 0

    def log(self, msg):
        if self.verbose:
            print(f"[DAKS] {msg}")

    def remaining(self) -> float:
        return self.deadline - time.perf_counter()

    def build(self, feats, zh, *, cutoff=INF, cover=None, relax_v=False):
        bm, P = self.bm, self.P
        kw = {}
        if P.subproblem_bounds:
            kw = {"ub_w": bm.ub_w, "b_bounds": (bm.lb_b, bm.ub_b)}
        return build_rlfs(self.X[:, feats], self.y, self.C, M=bm.M, U=bm.u, budget=self.B, zh=zh,
                          cutoff=cutoff, cover=cover, int_v=not relax_v, **kw)

    def solve_restricted(self, feats, zh, *, cutoff=INF, cover=None):
        """(RL-FS-M)(K)_zh [+ (24) + (25)/(26)] under t_limit / t_fea / t_inc; polished solution or None."""
        feats = np.asarray(feats, dtype=np.intp)
        built = self.build(feats, zh, cutoff=cutoff, cover=cover)
        start = built.start_vector(self.best, feats)
        tl = min(self.P.t_limit, max(self.remaining(), 1e-3))
        out = run_mip(built, options=self.mip_options, time_limit=tl, start=start, t_fea=self.P.t_fea,
                      t_inc=self.P.t_inc)
        self.n_sub += 1
        if out.x is None:
            return None, out
        w, b, z = _decode(out.x, built.layout, feats, self.d)
        sol = polish(self.X, self.y, self.C, w, b, z, options=self.lp_options)
        return sol, out

    def margins(self, sol):
        return self.y * (self.X @ sol.w + sol.b)

    def phase2(self, zh):
        """P2.1 - P2.3: LB_zh, the reduced-cost order and K0."""
        allf = np.arange(self.d)
        built = self.build(allf, zh, relax_v=True)
        tl = max(min(self.P.t_limit, self.remaining()), 1e-3)
        out = run_mip(built, options=self.mip_options, time_limit=tl, start=built.start_vector(self.best, allf))
        if out.x is None:
            return None
        lb = out.objective if out.status == "optimal" else out.dual_bound
        L = built.layout
        zsol = np.round(out.x[L.z0:L.v0])
        zfix = np.where(zsol > 0.5, 1, 0).astype(np.int8)
        zfix[zh == 1] = 1
        lpb = self.build(allf, zfix, relax_v=True)
        lpb.integrality[:] = 0
        lp = run_mip(lpb, options=merge_options(self.lp_options), time_limit=tl)
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
        # ---- phase 1 ----
        variant = self.variant
        self.bm, init = algorithm1(X, y, self.C, self.B, variant=variant, max_iter=P.a1_max_iter,
                                   time_limit=P.a1_time_fraction * P.time_limit, options=self.lp_options,
                                   verbose=self.verbose, fix_dominated=P.fix_dominated)
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
            p2 = self.phase2(zh)
            if p2 is None:
                stop = "time_limit"
                break
            lb_zh, order, K = p2
            if first:
                K = np.union1d(K, init.support)
                first = False
            zh_lb = zh.copy()
            self.log(f"phase 2 pass {n_p2}: LB_zh = {lb_zh:.6g}, |K0| = {K.size}, UB = {ub:.6g}, "
                     f"zh counts {np.bincount(zh, minlength=3).tolist()}")
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
            S = 2 * max(1, int(inK.sum()))  # D15
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
        status = "time_limit" if stop == "time_limit" else "heuristic"
        self.log(f"stop ({stop}) after {n_p2} phase-2 passes, {self.n_sub} sub-problems: UB = {ub:.6g}")
        return DAKSResult(self.best, init, self.bm, status, stop, n_p2, self.n_sub, ub_hist)


def daks(X: np.ndarray, y: np.ndarray, C: float, budget: int, *, params: DAKSParams | None = None,
         variant: str = "variant1", options: dict | None = None, seed_options: dict | None = None,
         verbose: bool = False) -> DAKSResult:
    """Dynamic Adaptive Kernel Search (Algorithm 2, Sec. 3) with the spec's decisions D10-D18 (spec 4.7).

    Phase 1 runs Algorithm 1 (at most ``a1_max_iter`` loops / ``a1_time_fraction`` of the time); phase 2 solves
    (Rel_v-RL-FS-M)(D)_zh for LB_zh, orders the features by reduced costs and solves (RL-FS-M)(K0)_zh; phase 3
    walks the buckets with (24) and (25)/(26), the K+/K- rules and the Table-1 zh update; stopping rules (i), (ii),
    (iii) (bucket list exhausted); the outer loop stops on the total time, ``max_phase2`` or a repeated
    ``(zh, UB)`` pair at phase-2 entry (cycle detection, D17). The returned solution is never worse than the
    Algorithm-1 initial solution.
    """
    t0 = time.perf_counter()
    engine = _DAKS(X, y, C, budget, params or DAKSParams(), options, seed_options or {}, verbose)
    engine.variant = variant
    return engine.run(t0)
