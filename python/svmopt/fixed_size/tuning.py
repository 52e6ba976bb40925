"""Tuning of the fixed-size LS-SVM (paper 002, Section 6): CSA + simplex search, and the gamma path.

* :func:`csa` -- coupled simulated annealing with variance control (CSA-MwVC, the paper's Appendix, with the
  acceptance function of Xavier de Souza et al.: the printed one does not depend on the candidate) in the C++
  core, calling a Python cost; 90 evaluations by default, the q = 5 initial ones included.
* :func:`nelder_mead` -- the simplex fine-tuning (Section 6.3) in the C++ core (the steps of scipy's
  Nelder–Mead), 70 evaluations by default.
* :func:`csa_simplex` -- both in sequence; returns the best point ever evaluated.
* the gamma path of ``gamma_search="path"`` (:data:`GAMMA_PATH`, :func:`path_choice`, :func:`path_cost_vector`):
  the fast v-fold CV cost (19)-(21) of every gamma of a path scored on one sigma^2's fold statistics, and the
  held-out losses it pools (:func:`column_losses`, :func:`fold_sum_sse`).

These take any Python cost. The estimators' default path tunes in-memory data without one:
``_core.fixed_size.CVCost`` is :class:`svmopt.fixed_size.cv_engine.CVEngine` computed in the core, and
``_core.fixed_size.tune_cv`` runs CSA + simplex on it with no call back into Python
(:class:`svmopt.fixed_size.cv_engine.CoreCVEngine`).
"""

from __future__ import annotations

import math
from collections.abc import Callable
from dataclasses import dataclass, field

import numpy as np

from svmopt import _core


# ----------------------------------------------------------------------------------------------- search
@dataclass
class TuningResult:
    x: np.ndarray
    fun: float
    history: np.ndarray  # one row per evaluation: x..., cost
    n_csa: int = 0
    n_simplex: int = 0
    extra: dict = field(default_factory=dict)
    timed_out: bool = False  # stopped by ``time_limit`` with the best point so far


def csa(cost: Callable[[np.ndarray], float], x0: np.ndarray, lower, upper, *, max_evals: int = 90, inner: int = 5,
        T0: float = 1.0, Tac0: float = 0.0, seed: int = 0, time_limit: float | None = None) -> TuningResult:
    """Coupled simulated annealing (CSA-MwVC) from the q initial states ``x0`` (q x dim), inside [lower, upper].
    ``time_limit``: seconds (None: none), checked between evaluations; the best state so far when it stops."""
    x0 = np.atleast_2d(np.asarray(x0, dtype=np.float64))
    r = _core.fixed_size.csa_minimize(lambda v: float(cost(np.array(v))), x0, np.asarray(lower, dtype=np.float64),
                                      np.asarray(upper, dtype=np.float64), max_evals=int(max_evals), inner=int(inner),
                                      T0=float(T0), Tac0=float(Tac0), seed=int(seed), time_limit=time_limit)
    return TuningResult(np.asarray(r.x), float(r.fun), np.asarray(r.history), n_csa=len(r.history),
                        extra={"Tac": r.Tac, "n_stages": r.n_stages}, timed_out=bool(r.timed_out))


def tuning_result(r: _core.fixed_size.SearchResult) -> TuningResult:
    """The core's search result as a :class:`TuningResult`."""
    return TuningResult(r.x, float(r.fun), r.history, n_csa=int(r.n_csa), n_simplex=int(r.n_simplex),
                        extra={"Tac": r.Tac, "n_stages": r.n_stages} if r.n_csa else {}, timed_out=bool(r.timed_out))


def _float_cost(cost: Callable[[np.ndarray], float]) -> Callable[[np.ndarray], float]:
    return lambda v: float(cost(v))


def nelder_mead(cost: Callable[[np.ndarray], float], x0, lower=None, upper=None, *, max_evals: int = 70,
                step: float = 0.5, tol: float = 1e-4, time_limit: float | None = None) -> TuningResult:
    """Nelder–Mead (1, 2, 0.5, 0.5) from ``x0`` with initial simplex x0 + step e_i; at most ``max_evals`` costs,
    evaluated at points clipped into [lower, upper] (a NaN cost counts as +inf); the best point evaluated.
    ``time_limit``: seconds (None: none), checked between evaluations."""
    x0 = np.asarray(x0, dtype=np.float64).ravel()
    lo = None if lower is None else np.asarray(lower, dtype=np.float64)
    hi = None if upper is None else np.asarray(upper, dtype=np.float64)
    return tuning_result(_core.fixed_size.nelder_mead(_float_cost(cost), x0, lo, hi, max_evals=int(max_evals),
                                                step=float(step), tol=float(tol), time_limit=time_limit))


def csa_simplex(cost: Callable[[np.ndarray], float], x0: np.ndarray, lower, upper, *, n_csa: int = 90,
                n_simplex: int = 70, inner: int = 5, seed: int = 0, step: float = 0.5,
                time_limit: float | None = None) -> TuningResult:
    """The paper's tuning (Section 6.3): CSA for ``n_csa`` evaluations (0: none), then Nelder–Mead for ``n_simplex``
    from the CSA best; returns the best point over all evaluations (decision: the argmin over all CSA and
    simplex evaluations). ``time_limit``: seconds for both stages (None: none), checked in the core between
    evaluations; when it stops the search, the best point so far and ``timed_out=True``."""
    x0 = np.atleast_2d(np.asarray(x0, dtype=np.float64))
    return tuning_result(_core.fixed_size.csa_simplex(_float_cost(cost), x0, np.asarray(lower, dtype=np.float64),
                                                np.asarray(upper, dtype=np.float64), n_csa=int(n_csa),
                                                n_simplex=int(n_simplex), inner=int(inner), seed=int(seed),
                                                step=float(step), time_limit=time_limit))



# -------------------------------------------------------------------------------------------- early stop
#: ``n_iter_no_change``: an evaluation improves on the best cost so far when it is lower by more than this share of
#: it (a misclassification rate's smallest step, one row of a few thousand, is far above it; an MSE's rounding is not).
STALL_RTOL = 1e-3


class StallStop:
    """A search cost that stops each stage of CSA + simplex (the first ``n_csa`` calls are CSA's, then the simplex's,
    as :func:`csa_simplex` makes them) once ``patience`` evaluations in a row have not improved the best cost so far
    by more than :data:`STALL_RTOL` of it: the stage's remaining calls return +inf at once, without evaluating, so
    the stage ends with its best point (CSA's is where the simplex starts) and the search returns the best point
    evaluated. ``patience`` None: every call is evaluated (the full budget). ``n_evals`` counts the evaluations
    made; ``stopped`` whether a stage was cut short."""

    def __init__(self, cost: Callable[[np.ndarray], float], n_csa: int, patience: int | None):
        self.cost, self.n_csa, self.patience = cost, int(n_csa), patience
        self.calls = self.n_evals = self.since = 0
        self.best = math.inf
        self.stage, self.skipping, self.stopped = 0, False, False

    def __call__(self, x: np.ndarray) -> float:
        stage = 0 if self.calls < self.n_csa else 1
        self.calls += 1
        if stage != self.stage:  # the simplex begins: its own count, from the best cost so far
            self.stage, self.skipping, self.since = stage, False, 0
        if self.skipping:
            return math.inf
        f = float(self.cost(x))
        self.n_evals += 1
        if f < self.best - STALL_RTOL * abs(self.best) or (math.isinf(self.best) and f < self.best):
            self.since = 0
        else:
            self.since += 1
        self.best = min(self.best, f) if not math.isnan(f) else self.best
        if self.patience is not None and self.since >= self.patience:
            self.skipping = self.stopped = True
        return f


# ------------------------------------------------------------------------------------------- gamma path
#: The gamma path of ``gamma_search="path"``: log gamma over the joint search's bounds [-10, 20] in steps of 1 (a
#: factor e between neighbours), every value scored on one sigma^2's fold statistics.
GAMMA_PATH = np.exp(np.arange(-10.0, 20.5, 1.0))


def path_choice(costs: np.ndarray) -> int:
    """The index of the best gamma on a path: the lowest cost (NaN counts as +inf); among tied lowest costs (the
    misclassification rate is piecewise constant in gamma) the middle one, away from the edges of the plateau."""
    costs = np.asarray(costs, dtype=np.float64)
    costs = np.where(np.isnan(costs), np.inf, costs)
    best = np.flatnonzero(costs == np.min(costs))
    return int(best[(best.size - 1) // 2])


def _path_costs(err: np.ndarray, n_gamma: int, k: int, total: float) -> np.ndarray:
    """Per-gamma CV costs from the summed (weighted) held-out losses of the n_gamma * k columns (gamma major)."""
    return err.reshape(n_gamma, k).sum(axis=1) / (total * k)


def column_losses(f: np.ndarray, Y: np.ndarray, task: str) -> np.ndarray:
    """Per-row losses of predictions f (n, g k), gamma major, against the targets Y (n, k)."""
    n, k = Y.shape
    F = f.reshape(n, -1, k)
    if task == "regression":
        return ((Y[:, None, :] - F) ** 2).reshape(n, -1)
    return (np.where(F >= 0, 1.0, -1.0) != Y[:, None, :]).reshape(n, -1).astype(np.float64)


def stack_fold_models(solve: Callable[[float], np.ndarray],
                      gammas: list[float]) -> tuple[np.ndarray | None, np.ndarray]:
    """The fold models (v, p, g k) of every gamma side by side (gamma major; None if none could be solved), and which
    gammas were solved (the others' columns are zero and their costs +inf)."""
    thetas: list[np.ndarray | None] = []
    solved = np.ones(len(gammas), dtype=bool)
    for i, g in enumerate(gammas):
        try:
            thetas.append(solve(g))
        except (RuntimeError, np.linalg.LinAlgError, ValueError):
            solved[i] = False
            thetas.append(None)
    shape = next((t.shape for t in thetas if t is not None), None)
    if shape is None:
        return None, solved
    return np.concatenate([np.zeros(shape) if t is None else t for t in thetas], axis=2), solved


#: Bytes of held-out predictions and losses computed at once when scoring a gamma path on rows held in memory.
PATH_MEMORY = 64 << 20


def column_groups(n_columns: int, k: int, n_rows: int) -> list[slice]:
    """Groups of whole gammas (k columns each) whose n_rows x columns predictions and losses (three float64 arrays)
    fit PATH_MEMORY."""
    step = k * max(1, PATH_MEMORY // max(1, 24 * n_rows * k))
    return [slice(c, min(c + step, n_columns)) for c in range(0, n_columns, step)]


def fold_sum_sse(theta: np.ndarray, G: np.ndarray, t: np.ndarray, yy: np.ndarray) -> float | None:
    """The held-out SSE of the fold models theta (v, p, k) from the fold sums, sum_u yy_u - 2 theta_u' t_u +
    theta_u' G_u theta_u; None where it cancels (below 1e-8 yy_u: the predictions must then be computed)."""
    sse = 0.0
    for u in range(theta.shape[0]):
        th = theta[u]
        e = yy[u] - 2.0 * np.einsum("pk,pk->k", th, t[u]) + np.einsum("pk,pq,qk->k", th, G[u], th)
        if np.any(e < 1e-8 * np.maximum(yy[u], 1e-300)):
            return None
        sse += float(e.sum())
    return sse


def path_cost_vector(theta: np.ndarray | None, solved: np.ndarray, k: int, total: float, sums: dict | None,
                     error_sums: Callable[[np.ndarray], np.ndarray]) -> np.ndarray:
    """The costs of a gamma path: +inf where a fold model failed; from the fold sums' SSE where ``sums`` (the MSE of
    a streamed regression) and it does not cancel; the rest from one call of ``error_sums`` (one prediction pass at
    most) on their stacked models."""
    costs = np.full(solved.size, math.inf)
    if theta is None:
        return costs
    todo = solved.copy()
    if sums is not None:
        for i in np.flatnonzero(todo):
            sse = fold_sum_sse(theta[:, :, i * k:(i + 1) * k], sums["G"], sums["t"], sums["yy"])
            if sse is not None:
                costs[i], todo[i] = sse / (total * k), False
    if todo.any():
        idx = np.flatnonzero(todo)
        cols = (idx[:, None] * k + np.arange(k)).ravel()
        costs[idx] = _path_costs(error_sums(np.ascontiguousarray(theta[:, :, cols])), idx.size, k, total)
    return costs
