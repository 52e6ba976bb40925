"""The reduced-kernel robust LP of paper 000 and its cutting-plane solver (for RobustSVC at scale).

Paper 000's LP (23) expands the surface over every training point, f(x) = sum_j k(x, x_j) y_j u_j: m^2 kernel
values and an LP with ~2 m^2 nonzeros. The reduced model (Lee & Mangasarian's reduced SVM) expands it over L
landmarks z_j only, f(x) = sum_j k(x, z_j) v_j, and keeps every training row as a constraint:

    min  ||v||_1 + nu sum_i w_i xi_i        (sample weights w_i; 1 without them)
    s.t. y_i (Phi_i v - gamma) - delta_i sum_j r_j |v_j| >= 1 - xi_i,   xi >= 0,
         Phi_ij = k(x_i, z_j),  r_j = sqrt(k(z_j, z_j)),  delta_i of Lemmas 1-3 (0: the deterministic model (6)).

With the training points as landmarks (z = X) it is LP (23) itself (v_j = y_j u_j keeps ||.||_1 and the robust term),
so its optimum is the paper's. |v_j| is linearised as v = v+ - v- as in (23).

:func:`solve_direct` passes this LP to HiGHS as it is (n rows, 2L + n + 1 columns): the reference at sizes where it
fits. :class:`ReducedLP` solves it by exact cutting planes on the hinge sum, one pass over the data per iteration
(:class:`svmopt._shared.cutting_plane.HingeCuttingPlanes`, which paper 001's l1-SVMs share, with offsets a = 1 and no
budget).
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

import numpy as np

from svmopt._shared.cutting_plane import (
    CutSolution,
    HingeCuttingPlanes,
    check_labels,
    check_nonnegative,
    check_nu,
    check_weight,
)
from svmopt._shared.highs import HighsModel

#: The reduced robust LP's cutting-plane solver: :class:`HingeCuttingPlanes` with its defaults (a = 1, no budget).
ReducedLP = HingeCuttingPlanes
#: One solve's result (upper bound, certified lower bound, passes).
ReducedSolution = CutSolution


def _check(y: np.ndarray, r: np.ndarray, delta: np.ndarray | None, n: int) -> tuple[np.ndarray, np.ndarray | None]:
    y = check_labels(y, n)
    delta = check_nonnegative(delta, n, "delta")
    if r.ndim != 1 or not np.all(np.isfinite(r)) or np.any(r < 0):
        raise ValueError("r must be a 1-D array of finite values >= 0")
    return y, delta


def solve_direct(Phi: np.ndarray, y: np.ndarray, r: np.ndarray, nu: float, delta: np.ndarray | None = None,
                 solver_options: Mapping[str, Any] | None = None, weight: np.ndarray | None = None,
                 time_limit: float | None = None) -> ReducedSolution:
    """The reduced LP passed to HiGHS as it is (dense n x L blocks: for moderate n only); ``weight`` (n,) > 0
    multiplies the slack costs (nu w_i xi_i); ``time_limit`` (seconds: a fit's remaining budget) can only tighten
    a ``time_limit`` of ``solver_options`` (:class:`svmopt._shared.highs.HighsModel`)."""
    Phi = np.asarray(Phi, dtype=np.float64)
    n, L = Phi.shape
    r = np.asarray(r, dtype=np.float64)
    y, delta = _check(y, r, delta, n)
    check_nu(nu)
    w = check_weight(weight, n)
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
    cost = np.concatenate([np.ones(2 * L), [0.0], np.full(n, float(nu)) if w is None else float(nu) * w])
    lower = np.zeros(2 * L + 1 + n)
    lower[2 * L] = -np.inf
    res = HighsModel(a_start=start, a_index=index, a_value=value, col_cost=cost, n_rows=n, col_lower=lower,
                     col_upper=np.inf, row_lower=1.0, row_upper=np.inf, options=solver_options,
                     time_limit=time_limit).solve()
    v = res.x[:L] - res.x[L:2 * L]
    # A solve stopped at a HiGHS limit returns a feasible point: an upper bound only.
    return ReducedSolution(v=v, gamma=float(res.x[2 * L]), nu=float(nu), objective=res.objective,
                           lower_bound=res.objective if res.optimal else -np.inf, n_iter=1, scores=Phi @ v)
