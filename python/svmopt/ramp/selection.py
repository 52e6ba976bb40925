"""``C="auto"`` of :class:`svmopt.ramp.ramp_loss.RampLossSVC`: the C of the paper's grid (Sec. 4.1) with the fewest
held-out errors, each fold fitted by CCCP (the fast local solver of the same objective, whatever ``method`` the final
fit uses)."""

from __future__ import annotations

import time
import warnings
from dataclasses import dataclass
from numbers import Integral
from typing import Any

import numpy as np
from sklearn.base import clone
from sklearn.exceptions import ConvergenceWarning

from svmopt._shared.dask import is_dask_array
from svmopt._shared.runtime import progress
from svmopt._shared.selection import first_lowest, fold_errors, fold_totals
from svmopt._shared.sparse import is_sparse
from svmopt._shared.splits import cv_is_index_pairs, cv_splits, stratified_subsample
from svmopt.ramp.estimators import seed_options

#: ``C="auto"`` of RampLossSVC: the paper's grid (Sec. 4.1), compared by held-out errors.
#: (Literal decades: np.logspace(-2, 2, 5) rounds 0.1 an ulp off on some numpy releases.)
C_GRID = np.array([1e-2, 1e-1, 1.0, 1e1, 1e2])
#: Ties between the Cs of :data:`C_GRID` (paper 001, Sec. 4.1) go to the C nearest 1, the grid's centre.
C_ORDER = np.argsort(np.abs(np.log(C_GRID)), kind="stable")
#: ``C="auto"`` cross-validates on a stratified subsample of at most this many training rows.
SELECT_MAX_ROWS = 2000


@dataclass
class _SelectionData:
    """The rows ``C="auto"`` runs on (in memory), their weights (ones when unweighted) and the folds over them."""

    X: np.ndarray
    y: np.ndarray
    w: np.ndarray
    weighted: bool
    folds: list


def select_C(est: Any, X: Any, ys: np.ndarray, sw: np.ndarray | None, *, kept: np.ndarray | None, n_given: int,
             deadline: float | None) -> tuple[float, dict, bool]:
    """``C="auto"`` of the RampLossSVC ``est``: the C of :data:`C_GRID` (the paper's grid) with the fewest held-out
    errors on ``est.cv`` stratified (unshuffled) folds of at most :data:`SELECT_MAX_ROWS` training rows (a
    stratified subsample above, seeded by ``random_state``), each fold fitted by CCCP; ties to the C nearest 1. With
    sample weights ``sw`` the folds are fitted weighted and a held-out error counts its weight. ``kept`` and
    ``n_given`` map the user's index pairs past the rows of weight 0. No fold fit starts after ``deadline``; a C not
    scored on every fold is not chosen (the third value: whether the deadline cut the search short)."""
    t0 = time.perf_counter()
    data = _selection_data(est, X, ys, sw, kept, n_given)
    err = np.zeros(C_GRID.size)
    n_rows = int(data.y.size)
    if not data.folds:
        return 1.0, {"C": C_GRID.copy(), "errors": err, "n_rows": n_rows, "n_folds": 0, "time_s": 0.0}, False
    held_out = float(sum(data.w[va].sum() for _, va in data.folds))  # each row once for k-fold; more if repeated
    err, stopped = _fold_errors(est, data, deadline)
    C = float(C_GRID[first_lowest(err, C_ORDER)]) if np.isfinite(err).any() else 1.0
    return C, {"C": C_GRID.copy(), "errors": err / held_out, "n_rows": n_rows, "n_folds": len(data.folds),
               "time_s": time.perf_counter() - t0}, stopped


def _selection_data(est: Any, X: Any, ys: np.ndarray, sw: np.ndarray | None, kept: np.ndarray | None,
                    n_given: int) -> _SelectionData:
    """The rows the selection runs on (all, or a stratified subsample of :data:`SELECT_MAX_ROWS` unless ``cv`` gives
    index pairs), in memory, with their weights and the ``cv`` folds over them (none when a class has one row)."""
    rows = np.arange(X.shape[0])
    explicit = cv_is_index_pairs(est.cv)
    if X.shape[0] > SELECT_MAX_ROWS and not explicit:
        seed = seed_options(est.random_state).get("random_seed", 0)
        rows = stratified_subsample(ys, SELECT_MAX_ROWS, np.random.RandomState(seed))
    Xs = X[rows]
    if is_dask_array(Xs) and is_sparse(Xs._meta):  # a Dask array of sparse chunks: these rows as one sparse matrix
        Xs = Xs.compute()
    if not is_sparse(Xs):  # a sparse X stays sparse (CSR rows): its folds are fitted without densifying it
        Xs = np.ascontiguousarray(Xs.compute() if is_dask_array(Xs) else Xs, dtype=np.float64)
    yc = ys[rows]
    wc = np.ones(yc.size) if sw is None else sw[rows]
    folds = cv_splits(est.cv, yc, kept if explicit else None, n_given=n_given if explicit else None)
    if isinstance(est.cv, Integral) and min(int(est.cv), int(np.min(np.unique(yc, return_counts=True)[1]))) < 2:
        folds = []  # a class with one row: nothing to hold out
    return _SelectionData(Xs, yc, wc, sw is not None, folds)


def _fold_errors(est: Any, data: _SelectionData, deadline: float | None) -> tuple[np.ndarray, bool]:
    """Held-out errors (weighted) per C of :data:`C_GRID` summed over the folds (inf for a C not scored on every
    fold), and whether ``deadline`` stopped the search (no fold fit starts after it)."""

    def score(f: int, j: int) -> float:
        tr, va = data.folds[f]
        fold = _fold_fit(est, data, tr, float(C_GRID[j]), deadline)
        return float(data.w[va] @ (fold.predict(data.X[va]) != data.y[va]))

    bar = progress(est.verbose, len(data.folds) * C_GRID.size, "RampLossSVC C selection")
    errors, stopped = fold_errors(len(data.folds), C_GRID.size, score, deadline, bar)
    bar.close()
    return fold_totals(errors, complete="candidate")[0], stopped


def _fold_fit(est: Any, data: _SelectionData, tr: np.ndarray, C: float, deadline: float | None) -> Any:
    """A CCCP fit of a clone of ``est`` with this C on a fold's training rows (its limits and degenerate models are
    scored as they are)."""
    fold = clone(est).set_params(C=C, method="cccp", verbose=False, class_weight=None,
                                 max_time=None if deadline is None else max(1e-3, deadline - time.perf_counter()))
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", ConvergenceWarning)
        warnings.filterwarnings("ignore", message="RampLossSVC: ", category=UserWarning)
        fold.fit(data.X[tr], data.y[tr], sample_weight=data.w[tr] if data.weighted else None)
    return fold
