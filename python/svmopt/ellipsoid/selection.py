"""The radius ratio and whitening shrinkage of each binary problem of :class:`svmopt.EllipsoidPSOClassifier`, chosen
by held-out errors (not in paper 003; ``ratio="auto"``, ``shrinkage="auto"``), and the folds they are counted on.

``cv`` is read by :mod:`svmopt._shared.splits`: a splitter or an iterable of pairs is split over all the rows given to
``fit`` (as :func:`sklearn.model_selection.check_cv` reads it, rows of weight 0 leaving both sides), then each binary
problem keeps its own rows of each split; an int (None: 3) gives unshuffled stratified folds of each binary problem's
rows.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from numbers import Integral
from typing import Any

import numpy as np
from sklearn.model_selection import check_cv

from svmopt._shared.runtime import TimeBudget
from svmopt._shared.selection import first_lowest, fold_errors, fold_totals
from svmopt._shared.splits import cv_splits, index_pairs, restrict_splits


@dataclass
class PairData:
    """The training rows of one binary problem: class 1 (the positive side) and class 2, their weights (None:
    unweighted), and the folds over ``[class 1; class 2]`` its selection counts errors on."""

    V1: np.ndarray
    V2: np.ndarray
    w1: np.ndarray | None = None
    w2: np.ndarray | None = None
    folds: list | None = None


@dataclass
class SelectionPlan:
    """The candidates of the selection (the shrinkages, the ratios), the data set's whitening per shrinkage
    (``projection="dataset"``; None values otherwise), and whether there is anything to select."""

    shrinks: list[float | str]
    ratios: np.ndarray
    globs: dict

    @property
    def select(self) -> bool:
        return self.ratios.size * len(self.shrinks) > 1

    @property
    def n_candidates(self) -> int:
        return self.ratios.size * len(self.shrinks)


def user_splits(cv: Any, kept: np.ndarray, X: np.ndarray, y: np.ndarray) -> list | None:
    """A CV splitter's or an iterable's (train, test) pairs over all the rows given to ``fit`` (as
    ``cross_validate`` would split them), as indices into the ``kept`` rows (rows of weight 0 leave both sides); None
    for an int ``cv`` (the per-problem stratified folds of :func:`pair_folds`)."""
    if cv is None or isinstance(cv, Integral):
        return None
    return index_pairs(check_cv(cv, y, classifier=True), X.shape[0], kept=kept, X=X, y=y)


def pair_folds(cv: Any, i1: np.ndarray, i2: np.ndarray, splits: list | None, n_rows: int) -> list:
    """The folds of one binary problem, as indices into its rows ``[class 1; class 2]``. An int ``cv`` (None: 3):
    stratified (unshuffled) folds of those rows, ``min(cv, n_1, n_2)`` of them (none below 2); else the user's
    ``splits`` (over the ``n_rows`` rows fitted) restricted to the problem's rows (folds without held-out rows of the
    problem dropped)."""
    if splits is None:
        if min(i1.size, i2.size) < 2:
            return []
        t = np.r_[np.ones(i1.size, dtype=int), np.zeros(i2.size, dtype=int)]
        return cv_splits(cv, t)
    return restrict_splits(splits, np.r_[i1, i2], n_rows)


def select_pair(fit_binary: Callable[..., dict], pair: PairData, plan: SelectionPlan, seed: int,
                deadline: float | None, budget: TimeBudget, bar: Any) -> tuple[tuple[Any, float], np.ndarray]:
    """The whitening shrinkage and the radius ratio of one binary problem by held-out errors on ``pair.folds``
    (:func:`pair_folds`), weighted by the rows' weights, each candidate fitted by ``fit_binary`` on a fold's training
    rows. Ties go to the paper's choices: no shrinkage, then the ratio nearest 1. A candidate whose ellipsoids are
    undefined on a fold (too few rows) counts that fold's held-out rows as errors. When ``deadline`` passes, only the
    folds every candidate completed count (none: the paper's choices, errors NaN). Returns the choice and the error
    rates, shape (n_shrinkages, n_ratios)."""
    shrinks, ratios = plan.shrinks, plan.ratios
    t = np.r_[np.ones(len(pair.V1), dtype=int), np.zeros(len(pair.V2), dtype=int)]
    V = np.vstack([pair.V1, pair.V2])
    wv = None if pair.w1 is None or pair.w2 is None else np.r_[pair.w1, pair.w2]
    # Ties go to paper 003's ellipsoids (Sec. 4.3): the first shrinkage (0 under "auto"), then the ratio nearest 1;
    # candidate c is (shrinkage, ratio) = divmod(c, n_ratios)
    near_1 = np.argsort(np.abs(np.log(ratios)), kind="stable")
    order = [i * ratios.size + int(j) for i in range(len(shrinks)) for j in near_1]
    if not pair.folds:  # nothing to hold out: the paper's ellipsoids
        return _candidate(plan, order[0]), np.zeros((len(shrinks), ratios.size))
    folds = pair.folds
    held = [va.size if wv is None else float(wv[va].sum()) for _, va in folds]
    train: dict[int, PairData] = {}  # the fold being scored's training rows (one fold at a time)

    def score(f: int, c: int) -> float:
        tr, va = folds[f]
        if f not in train:
            train.clear()
            train[f] = PairData(V[tr][t[tr] == 1], V[tr][t[tr] == 0])
            if wv is not None:
                train[f].w1, train[f].w2 = wv[tr][t[tr] == 1], wv[tr][t[tr] == 0]
        sh, r = _candidate(plan, c)
        try:
            mdl = fit_binary(train[f], plan.globs[sh], seed, np.random.RandomState(seed), r, sh, deadline)
        except ValueError:
            return held[f]
        wrong = ((V[va] @ mdl["w_in"] + mdl["b_in"]) >= 0) != (t[va] == 1)
        return int(np.count_nonzero(wrong)) if wv is None else float(wv[va] @ wrong)

    errors, stopped = fold_errors(len(folds), plan.n_candidates, score, deadline, bar)
    if stopped:
        budget.cut("the ratio/shrinkage selection (only the folds every candidate completed count)")
    err, counted = fold_totals(errors, complete="fold")
    total = sum(held[f] for f in np.flatnonzero(counted))
    if not total:
        return _candidate(plan, order[0]), np.full((len(shrinks), ratios.size), np.nan)
    rates = err / total
    return _candidate(plan, first_lowest(rates, order)), rates.reshape(len(shrinks), ratios.size)


def _candidate(plan: SelectionPlan, c: int) -> tuple[Any, float]:
    """The shrinkage and the ratio of the candidate ``c`` (shrinkages outer, ratios inner)."""
    i, j = divmod(c, plan.ratios.size)
    return plan.shrinks[i], float(plan.ratios[j])
