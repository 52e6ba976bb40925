"""The (RL-FS-M) objective, its solutions, the (SVM-l1) LP and the model matrix of paper 001 (Sec. 2).

See :mod:`svmopt.ramp` for the column and row layout of the models."""

from __future__ import annotations

import math
import time
import warnings
from dataclasses import dataclass
from typing import Any

import numpy as np
import scipy.sparse as sp
from sklearn.exceptions import ConvergenceWarning

from svmopt._shared.cutting_plane import class_balance
from svmopt._shared.highs import HighsModel, merge_options
from svmopt._shared.sparse import as_csr, is_sparse, nonzeros
from svmopt.exceptions import SolverError
from svmopt.ramp.sparse_rows import sparse_class_diameters

INF = math.inf
W_TOL = 1e-7  # decision: feature k is selected when |w_k| > W_TOL (not when v_k = 1)
ZERO_M = 1e-8  # M_i at or below this is 0, and z_i is fixed to 0 (z_i = 1 costs 2C and forces y_i f >= 1)

LP_OPTIONS: dict[str, Any] = {}  # highs.DEFAULT_OPTIONS: dual simplex, presolve off, tolerances 1e-9
MIP_OPTIONS: dict[str, Any] = {
    "presolve": "on",
    "solver": "choose",
    "mip_rel_gap": 0.0,  # paper: CPLEX relative gap 0
    "mip_feasibility_tolerance": 1e-9,  # the paper's CPLEX used 0; HiGHS' minimum is 1e-10; solutions polished
    "threads": 1,
}


# ---------------------------------------------------------------------------------------------------------------
# objective and solutions
# ---------------------------------------------------------------------------------------------------------------
def ramp(t: np.ndarray) -> np.ndarray:
    """Brooks' ramp loss ``min(2, max(0, 1 - t))`` of the margins ``t = y_i f(x_i)`` (eqs. (1)-(3))."""
    return np.minimum(2.0, np.maximum(0.0, 1.0 - np.asarray(t, dtype=np.float64)))


def row_costs(C: Any, n: int, points: np.ndarray | None = None) -> np.ndarray:
    """The per-row misclassification weights ``C_i`` (n,), or of the rows ``points``: ``C`` is a number (every row)
    or an array of one weight per row (``C w_i`` with sample weights ``w``)."""
    c = np.asarray(C, dtype=np.float64)
    if c.ndim == 0:
        return np.full(n if points is None else len(points), float(c))
    return c.copy() if points is None else c[points]


def weighted_sum(C: Any, values: np.ndarray) -> float:
    """``sum_i C_i values_i``: ``C * values.sum()`` for a number C (the unweighted models' own order of summation),
    ``C @ values`` for one weight per row."""
    return float(C * values.sum()) if np.ndim(C) == 0 else float(np.asarray(C, dtype=np.float64) @ values)


def rlfs_objective(X: np.ndarray, y: np.ndarray, w: np.ndarray, b: float, C: Any) -> float:
    """``||w||_1 + sum_i C_i ramp(y_i (w.x_i + b))``: the value of (RL-FS) / (RL-l1) at ``(w, b)`` (ramp identity);
    ``C`` a number or one weight per row."""
    return float(np.abs(w).sum() + weighted_sum(C, ramp(y * (X @ w + b))))


def hinge_objective(X: np.ndarray, y: np.ndarray, w: np.ndarray, b: float, C: Any) -> float:
    """``||w||_1 + sum_i C_i max(0, 1 - y_i f(x_i))``: the value of (SVM-l1) / (FS-SVM) at ``(w, b)``."""
    return float(np.abs(w).sum() + weighted_sum(C, np.maximum(0.0, 1.0 - y * (X @ w + b))))


def ramp_loss_objective(X: Any, y: Any, coef: Any, intercept: float, C: float) -> float:
    """The (RL-FS) objective ``||w||_1 + C sum_i ramp(y_i (w.x_i + b))`` of any ``(w, b)`` (eqs. (1)-(3) with the
    l1 norm).

    ``y`` must be coded -1/+1. By the ramp identity this equals the (RL-FS-M) objective of the best ``(xi, z)``
    for that ``(w, b)``, so it evaluates any returned solution independently of the MILP variables.
    """
    X = as_csr(X) if is_sparse(X) else np.asarray(X, dtype=np.float64)  # sparse: X @ w over the nonzeros
    y = np.asarray(y, dtype=np.float64).ravel()
    w = np.asarray(coef, dtype=np.float64).ravel()
    if X.ndim != 2 or X.shape[0] != y.shape[0] or X.shape[1] != w.shape[0]:
        raise ValueError(f"X {X.shape}, y {y.shape} and coef {w.shape} have inconsistent shapes")
    if not np.isin(y, (-1.0, 1.0)).all():
        raise ValueError("y must be coded -1/+1 for ramp_loss_objective")
    return rlfs_objective(X, y, w, float(intercept), float(C))


@dataclass
class RLSolution:
    """A solution of (RL-FS-M) in canonical form: ``z_i = 1`` iff ``y_i f(x_i) < -1``, ``xi`` the capped hinge.

    ``objective`` equals ``||w||_1 + C (sum xi + 2 sum z)`` = the ramp objective (eqs. (1)-(3)), so it is a true
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
    def from_wb(cls, X: np.ndarray, y: np.ndarray, w: np.ndarray, b: float, C: Any, *,
                ramp_loss: bool = True) -> RLSolution:
        w = np.where(np.abs(w) > W_TOL, w, 0.0)
        t = y * (X @ w + b)
        if ramp_loss:
            z = (t < -1.0).astype(np.float64)
            xi = np.where(z > 0, 0.0, np.clip(1.0 - t, 0.0, 2.0))
        else:
            z = np.zeros_like(t)
            xi = np.maximum(0.0, 1.0 - t)
        obj = float(np.abs(w).sum() + (C * (xi.sum() + 2.0 * z.sum()) if np.ndim(C) == 0 else
                                        weighted_sum(C, xi + 2.0 * z)))
        return cls(w=w, b=float(b), xi=xi, z=z, objective=obj)


# ---------------------------------------------------------------------------------------------------------------
# (SVM-l1) LP, used for (SVM-l1), its top-B re-solve, (SVM-l1-bar) and polishing
# ---------------------------------------------------------------------------------------------------------------
def _svm_l1_model(X: np.ndarray, y: np.ndarray, C: Any, features: np.ndarray | None, points: np.ndarray | None,
                  xi_cap: float, options: dict | None, time_limit: float | None
                  ) -> tuple[HighsModel, np.ndarray, np.ndarray]:
    """(SVM-l1) in split form as a HiGHS model, columns (w+, w-, b, xi): (model, features, points)."""
    d = X.shape[1]
    feats = np.arange(d) if features is None else np.asarray(features, dtype=np.intp)
    pts = np.arange(X.shape[0]) if points is None else np.asarray(points, dtype=np.intp)
    Xs = X[pts][:, feats] if is_sparse(X) else X[np.ix_(pts, feats)]
    ys = y[pts]
    n, m = Xs.shape
    ii, kk, xv = nonzeros(Xs)  # the constraint rows from X's nonzeros (a sparse X never densified)
    yx = ys[ii] * xv
    rows = np.concatenate([ii, ii, np.arange(n), np.arange(n)])
    cols = np.concatenate([kk, m + kk, np.full(n, 2 * m), 2 * m + 1 + np.arange(n)])
    vals = np.concatenate([yx, -yx, ys, np.ones(n)])
    A = sp.csc_matrix((vals, (rows, cols)), shape=(n, 2 * m + 1 + n))
    cost = np.concatenate([np.ones(2 * m), [0.0], row_costs(C, X.shape[0], pts)])
    lower = np.zeros(2 * m + 1 + n)
    lower[2 * m] = -INF
    upper = np.full(2 * m + 1 + n, INF)
    upper[2 * m + 1:] = xi_cap
    model = HighsModel(a_start=A.indptr, a_index=A.indices, a_value=A.data, col_cost=cost, n_rows=n,
                       col_lower=lower, col_upper=upper, row_lower=1.0, options=merge_options(options),
                       time_limit=time_limit)
    return model, feats, pts


def solve_svm_l1(X: np.ndarray, y: np.ndarray, C: Any, *, features: np.ndarray | None = None,
                 points: np.ndarray | None = None, xi_cap: float = INF, options: dict | None = None,
                 time_limit: float | None = None) -> tuple[np.ndarray, float, np.ndarray, float]:
    """(SVM-l1) (eqs. (5), (8), (16), (17)) in split form on a feature / point subset; ``xi <= xi_cap``.

    With ``xi_cap = 2`` and ``points = {i : z_i = 0}`` this is (SVM-l1-bar)_{v,z} of Sec. 2.1. Returns the full
    ``w`` (zero outside ``features``), ``b``, ``xi`` on ``points`` and the LP objective; a limit raises
    :class:`SolverError` (:func:`svm_l1_point` returns the usable point instead).
    """
    model, feats, _ = _svm_l1_model(X, y, C, features, points, xi_cap, options, time_limit)
    m = feats.size
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", ConvergenceWarning)
        res = model.solve()
    if not res.optimal:
        raise SolverError("the (SVM-l1) LP hit a limit", res.status)
    w = np.zeros(X.shape[1])
    w[feats] = res.x[:m] - res.x[m:2 * m]
    return w, float(res.x[2 * m]), res.x[2 * m + 1:], res.objective


def constant_model(y: np.ndarray, C: Any, points: np.ndarray | None = None) -> tuple[np.ndarray, float]:
    """The best constant model of the rows ``points`` (all: None) for the hinge and the ramp alike: ``w = 0`` and
    ``b = +1`` or ``-1`` by the weighted majority (objective twice the minority's ``sum C_i``); ``w`` is empty, the
    caller sizes it."""
    pts = np.arange(y.size) if points is None else np.asarray(points, dtype=np.intp)
    Cs = row_costs(C, y.size, pts)
    yp = y[pts]
    return np.zeros(0), (1.0 if float(Cs[yp > 0].sum()) >= float(Cs[yp < 0].sum()) else -1.0)


def _limit_status(exc: SolverError) -> bool:
    """Whether a SolverError is HiGHS stopping at a limit (time, iteration, node, solution, interrupt) before it had
    any values, rather than a failure of the model."""
    st = (exc.status or "").lower()
    return any(word in st for word in ("limit", "interrupt"))


def _solve_to_limit(model: Any) -> tuple[Any, str | None]:
    """``model.solve(iterate_at_limit=True)`` and None, or None and the HiGHS status when HiGHS stopped at a limit
    before it had any values (any other SolverError is raised)."""
    try:
        return model.solve(iterate_at_limit=True), None
    except SolverError as exc:
        if not _limit_status(exc):
            raise
        return None, str(exc.status)


def svm_l1_point(X: np.ndarray, y: np.ndarray, C: Any, *, features: np.ndarray | None = None,
                 points: np.ndarray | None = None, xi_cap: float = INF, options: dict | None = None,
                 time_limit: float | None = None) -> tuple[np.ndarray, float, np.ndarray, float, str | None]:
    """:func:`solve_svm_l1` that returns a usable point at a HiGHS limit: ``(w, b, xi, objective, status)`` with
    ``status`` None when solved (the LP's values, as :func:`solve_svm_l1`). At a limit (``status`` HiGHS's), ``(w,
    b)`` is HiGHS's iterate, which with ``xi`` the hinge on ``points`` is feasible for (SVM-l1) (not necessarily
    under ``xi_cap``; for (RL-FS-M) every ``(w, b)`` is, see :meth:`RLSolution.from_wb`), or the constant model
    (:func:`constant_model`) when that has the lower hinge objective or HiGHS had no values yet; ``objective`` is
    the point's hinge objective on ``points``."""
    model, feats, pts = _svm_l1_model(X, y, C, features, points, xi_cap, options, time_limit)
    m = feats.size
    d = X.shape[1]
    res, status = _solve_to_limit(model)
    if res is not None and res.optimal:
        w = np.zeros(d)
        w[feats] = res.x[:m] - res.x[m:2 * m]
        return w, float(res.x[2 * m]), res.x[2 * m + 1:], res.objective, None
    Cs = row_costs(C, X.shape[0], pts)
    Xp, yp = X[pts], y[pts]
    _, b0 = constant_model(y, C, pts)
    best = (np.zeros(d), b0, np.maximum(0.0, 1.0 - yp * b0))
    if res is not None:
        status = res.status
        w = np.zeros(d)
        w[feats] = res.x[:m] - res.x[m:2 * m]
        b = float(res.x[2 * m])
        xi = np.maximum(0.0, 1.0 - yp * (Xp @ w + b))
        if float(np.abs(w).sum() + Cs @ xi) < float(Cs @ best[2]):
            best = (w, b, xi)
    w, b, xi = best
    return w, b, xi, float(np.abs(w).sum() + Cs @ xi), status


def solve_svm_l1_within(X: np.ndarray, y: np.ndarray, C: Any, *, options: dict | None = None,
                        time_limit: float | None = None) -> tuple[np.ndarray, float, float, str | None, str]:
    """(SVM-l1) on all rows and features within ``time_limit``: ``(w, b, lower_bound, limit, point)``, ``point``
    naming what (w, b) is: "optimum", "iterate" or "constant".

    Solved, ``lower_bound`` is HiGHS's optimum and ``limit`` None. Stopped at a limit (``limit`` the HiGHS status),
    HiGHS's iterate gives ``(w, b)``, feasible with xi the hinge whatever its own slacks (its objective there is an
    upper bound on the optimum), and its row duals a lower bound: lambda clipped to the box [0, C_i] of the dual
    ``max sum_i lambda_i  s.t.  sum_i y_i lambda_i = 0, |sum_i lambda_i y_i x_ik| <= 1``, scaled per class so that
    sum_i y_i lambda_i = 0, then as a whole so that max_k |sum_i lambda_i y_i x_ik| <= 1, is dual feasible, and its
    sum bounds the optimum from below. When the constant model (w = 0) has the lower objective, it is returned
    instead; so it is when HiGHS stopped before it had any values (the lower bound is then 0)."""
    model, _, _ = _svm_l1_model(X, y, C, None, None, INF, options, time_limit)
    d = X.shape[1]
    res, status = _solve_to_limit(model)
    if res is None:
        return np.zeros(d), constant_model(y, C)[1], 0.0, status, "constant"
    w = res.x[:d] - res.x[d:2 * d]
    b = float(res.x[2 * d])
    if res.optimal:
        return w, b, float(res.objective), None, "optimum"
    Cs = row_costs(C, X.shape[0])
    duals = res.row_dual if res.row_dual.size == y.size else np.zeros(y.size)
    lam = np.clip(np.where(np.isfinite(duals), duals, 0.0), 0.0, Cs)
    s_pos, s_neg = float(lam[y > 0].sum()), float(lam[y < 0].sum())
    k_pos, k_neg = class_balance(s_pos, s_neg)
    lam = lam * np.where(y > 0, k_pos, k_neg)
    worst = float(np.max(np.abs(X.T @ (lam * y)))) if d else 0.0
    lower = float(lam.sum()) / max(1.0, worst)
    # The dual simplex's primal iterate can be far worse than w = 0: then the best constant model (b = +-1 by the
    # weighted majority, objective 2 sum of the minority's C_i) is the usable point returned.
    c_pos, c_neg = float(Cs[y > 0].sum()), float(Cs[y < 0].sum())
    hinge = float(Cs @ np.maximum(0.0, 1.0 - y * (X @ w + b)))
    if 2.0 * min(c_pos, c_neg) < float(np.abs(w).sum()) + hinge:
        return np.zeros(d), (1.0 if c_pos >= c_neg else -1.0), lower, res.status, "constant"
    return w, b, lower, res.status, "iterate"


def top_b(v: np.ndarray, budget: int | None) -> np.ndarray:
    """``v`` with all but its ``budget`` largest-magnitude entries set to 0 (ties to the lower index)."""
    if budget is None or np.count_nonzero(v) <= budget:
        return v.copy()
    keep = np.argsort(-np.abs(v), kind="stable")[:budget]
    out = np.zeros_like(v)
    out[keep] = v[keep]
    return out


#: The stage :func:`initial_solution` names when a limit stops one of its LPs.
INITIAL_STAGE = "Algorithm 1's initial solution (its (SVM-l1) LPs, Sec. 2.1)"


def initial_solution(X: np.ndarray, y: np.ndarray, C: Any, budget: int, *, options: dict | None = None,
                     time_limit: float | None = None, limits: Any = None) -> tuple[RLSolution, float]:
    """Step 1 of Algorithm 1 (Sec. 2.1): (SVM-l1), top-B re-solve (the B largest |w_k|: the paper's "first n-B" after
    sorting is d-B by |w_k|), tilde solution, (SVM-l1-bar), UB.

    Returns the initial feasible solution (canonical form) and UB, the (RL-FS-M) objective of the solution ``(wp-, wm-,
    b-, xi-, z- = z~, v- = v~)`` including the constant ``2C |{z~ = 1}|`` that the (SVM-l1-bar) objective leaves out.

    ``time_limit`` covers the three LPs. At a limit (noted on ``limits``, a
    :class:`svmopt.ramp.limits.SolveLimits`, under :data:`INITIAL_STAGE`) the best usable point so far is the
    solution: HiGHS's iterate cut to the B largest ``|w_k|``, the previous LP's solution or the constant model, in
    canonical form with UB its ramp objective."""
    d = X.shape[1]
    deadline = None if time_limit is None else time.perf_counter() + float(time_limit)

    def lp(**kw: Any) -> tuple[np.ndarray, float, np.ndarray, float, str | None]:
        tl = None if deadline is None else max(0.0, deadline - time.perf_counter())
        out = svm_l1_point(X, y, C, options=options, time_limit=tl, **kw)
        if out[4] is not None and limits is not None:
            limits.note(INITIAL_STAGE, out[4], tl)
        return out

    candidates = [(np.zeros(d), constant_model(y, C)[1])]  # usable points, should a limit stop an LP
    w, b, xi, _, status = lp()
    supp = np.flatnonzero(np.abs(w) > W_TOL)
    if status is None and supp.size > budget:  # keep the B largest |w_k|, ties to the smaller index
        keep = np.sort(np.argsort(-np.abs(w), kind="stable")[:budget])
        candidates.append((top_b(w, budget), b))
        w, b, xi, _, status = lp(features=keep)
        supp = np.flatnonzero(np.abs(w) > W_TOL)
    if status is None:
        z_t = xi > 2.0 + 1e-9  # tilde: xi^S > 2 -> outlier
        pts = np.flatnonzero(~z_t)
        candidates.append((w, b))
        # v~ = 0 (an empty support): only b is free
        w, b, xibar, _, status = lp(features=supp if supp.size else np.zeros(0, np.intp), points=pts, xi_cap=2.0)
    if status is not None:  # a limit: the best usable point so far, in canonical form
        candidates.append((top_b(w, budget), b))
        sols = [RLSolution.from_wb(X, y, np.where(np.abs(cw) > W_TOL, cw, 0.0), cb, C) for cw, cb in candidates]
        sol = min(sols, key=lambda s: s.objective)
        return sol, sol.objective
    wbar, bbar = w, b
    wbar = np.where(np.abs(wbar) > W_TOL, wbar, 0.0)
    xi_full = np.zeros(X.shape[0])
    xi_full[pts] = np.clip(xibar, 0.0, 2.0)
    z = z_t.astype(np.float64)
    ub = float(np.abs(wbar).sum() + (C * (xi_full.sum() + 2.0 * z.sum()) if np.ndim(C) == 0 else
                                     weighted_sum(C, xi_full + 2.0 * z)))  # with the 2C sum z constant
    sol = RLSolution(w=wbar, b=bbar, xi=xi_full, z=z, objective=ub)
    assert np.count_nonzero(sol.w) <= budget <= d
    return sol, ub


def class_diameters(X: np.ndarray, y: np.ndarray) -> np.ndarray:
    """``Delta_i = max_{j: y_j = y_i} ||x_i - x_j||_inf`` (Prop. 2.2) in O(n d): the inner max over j and k
    swaps, and ``max_j |x_ik - x_jk| = max(x_ik - min_class_k, max_class_k - x_ik)`` (a sparse X over its nonzeros,
    :func:`svmopt.ramp.sparse_rows.sparse_class_diameters`)."""
    if is_sparse(X):
        return sparse_class_diameters(X, y)
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
class RLFSLayout:
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
class BuiltRLFS:
    layout: RLFSLayout
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
        """Check a column vector against every row and column bound (a heuristic solution need not satisfy (13) with
        Prop. 2.2's M: checked before it is a MIP start)."""
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


def build_rlfs(Xs: np.ndarray, y: np.ndarray, C: Any, *, M: np.ndarray, U: float, budget: int,
               ub_w: float = INF, b_bounds: tuple[float, float] = (-INF, INF), cutoff: float = INF,
               cover: np.ndarray | None = None, zh: np.ndarray | None = None, ramp_loss: bool = True,
               use_cut15: bool = True, scaled_v: bool = False, int_z: bool = True, int_v: bool = True,
               fix_zero_m: bool = True) -> BuiltRLFS:
    """(RL-FS-M) + (15) + (21) + (22) [+ (18)/(24) cut-off, + (25)/(26) cover] on the feature columns of ``Xs``.

    * ``U``: the common ``u_k = l_k`` of (10)/(11). With ``scaled_v`` (bounding LPs) the column ``v`` holds
      ``U v_k`` in ``[0, U]`` so that (10)/(11) have coefficient -1 and (6) reads ``sum <= B U``: a change of U is a
      bound change only (no coefficient edits between the LPs of Algorithm 1).
    * ``zh`` (DAKS, Sec. 4.1): 0 fixes ``z_i = 0``; 1 fixes ``z_i = 1`` (cost 2C through the fixed column, row
      (13) deactivated, ``xi_i = 0``); 2 leaves ``z_i`` binary. ``None`` means all 2.
    * ``ramp_loss=False`` gives (FS-SVM): ``z = 0`` and ``xi`` unbounded, no (15).
    * ``fix_zero_m``: ``M_i = 0`` fixes ``z_i = 0``.
    """
    n, m = Xs.shape
    L = RLFSLayout(n, m)
    M = np.asarray(M, dtype=np.float64)
    ii, kk, xv = nonzeros(Xs)  # a sparse Xs (CSR or CSC) by its nonzeros
    yx = y[ii] * xv
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
            np.concatenate([np.ones(2 * m), row_costs(C, n), 2.0 * row_costs(C, n)]),
            np.ones(cov.size)]
    A = sp.csc_matrix((np.concatenate(vals), (np.concatenate(rows), np.concatenate(cols))),
                      shape=(L.n_rows, L.n_cols))
    A.eliminate_zeros()
    A.sort_indices()

    cost = np.concatenate([np.ones(2 * m), [0.0], row_costs(C, n), 2.0 * row_costs(C, n), np.zeros(m)])
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
        col_upper[L.z0 + np.flatnonzero(M <= ZERO_M)] = 0.0
    if zh is not None:
        zh = np.asarray(zh)
        zero, one = np.flatnonzero(zh == 0), np.flatnonzero(zh == 1)
        col_upper[L.z0 + zero] = 0.0
        col_lower[L.z0 + one] = 1.0
        col_upper[L.z0 + one] = 1.0
        col_upper[L.xi0 + one] = 0.0
        row_lower[one] = -INF  # deactivate (13) of the fixed outliers, as the paper does
    integ = np.zeros(L.n_cols, dtype=np.int32)
    if int_z and ramp_loss:
        integ[L.z0:L.v0] = 1
    if int_v:
        integ[L.v0:] = 1
    return BuiltRLFS(L, A, cost, col_lower, col_upper, row_lower, row_upper, integ)
