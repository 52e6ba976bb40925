"""Choosing among candidates by their held-out errors under a deadline, ties broken by a preference order: the
``C="auto"`` of the ramp loss (paper 001's C grid) and the ratio/shrinkage selection of the ellipsoids (paper 003,
Sec. 4.3).

:func:`fold_errors` scores every (fold, candidate), folds outer, and starts no score after the deadline;
:func:`fold_totals` sums the folds under one of two completeness rules; :func:`first_lowest` picks the first
candidate of a preference order among the lowest totals, :func:`first_within_noise` the first one of that order within
the noise of the folds. :func:`candidate_fold_errors` scores the other way round, the candidates outer, when one
fit scores several values at once (the robust SVC's nu path: every nu of a path from one fit) and a candidate's setup
(its kernel rows) serves all its folds.
"""

from __future__ import annotations

import time
from collections.abc import Callable, Iterable, Sequence
from typing import Any, Literal

import numpy as np

#: ``fold_totals(complete=...)``: "candidate" sums every fold and gives inf to a candidate not scored on all of them;
#: "fold" sums only the folds on which every candidate was scored.
Completeness = Literal["candidate", "fold"]


def fold_errors(n_folds: int, n_candidates: int, score: Callable[[int, int], float], deadline: float | None,
                bar: Any = None) -> tuple[np.ndarray, bool]:
    """The held-out errors ``score(fold, candidate)`` of every fold and candidate, shape (n_folds, n_candidates),
    the folds outer and the candidates in their order within each; NaN where not scored. No score starts once
    ``time.perf_counter()`` reaches ``deadline`` (None: no deadline): the search stops there, and the second value
    says so. ``bar`` (a progress bar) is updated once before each score."""
    pairs = ((f, c) for f in range(n_folds) for c in range(n_candidates))
    return _scored(np.full((n_folds, n_candidates), np.nan), pairs, score, deadline, bar)


def candidate_fold_errors(n_folds: int, n_candidates: int, score: Callable[[int, int], np.ndarray],
                          deadline: float | None, bar: Any = None,
                          shape: tuple[int, ...] = ()) -> tuple[np.ndarray, bool]:
    """The held-out errors of every fold and candidate when one score gives an array of them (``shape``: e.g. one
    per value of a regularization path fitted at once), shape (n_folds, n_candidates, *shape), the candidates
    outer and the folds in their order within each (so that a candidate's setup is made once for its folds); NaN
    where not scored, and where ``score(fold, candidate)`` left NaN (a path it cut short). No score starts once
    ``time.perf_counter()`` reaches ``deadline`` (None: no deadline): the search stops there, and the second value
    says so. ``bar`` (a progress bar) is updated once before each score. The folds summed as :func:`fold_totals`
    sums them, after ``errors.reshape(n_folds, -1)``."""
    pairs = ((f, c) for c in range(n_candidates) for f in range(n_folds))
    return _scored(np.full((n_folds, n_candidates, *shape), np.nan), pairs, score, deadline, bar)


def _scored(errors: np.ndarray, pairs: Iterable[tuple[int, int]], score: Callable[[int, int], Any],
            deadline: float | None, bar: Any) -> tuple[np.ndarray, bool]:
    """``errors[f, c] = score(f, c)`` over ``pairs`` in their order until ``deadline``; whether it stopped there."""
    for f, c in pairs:
        if deadline is not None and time.perf_counter() >= deadline:
            return errors, True
        if bar is not None:
            bar.update()
        errors[f, c] = score(f, c)
    return errors, False


def fold_totals(errors: np.ndarray, complete: Completeness) -> tuple[np.ndarray, np.ndarray]:
    """The errors of :func:`fold_errors` summed over the folds in their order, per candidate, and the folds summed
    (a boolean mask). ``complete="candidate"``: every fold, a candidate not scored on all of them (NaN) gets inf;
    ``complete="fold"``: only the folds on which every candidate was scored (none: zeros)."""
    scored = ~np.isnan(errors)
    counted = np.ones(errors.shape[0], dtype=bool) if complete == "candidate" else scored.all(axis=1)
    totals = np.zeros(errors.shape[1])
    for f in np.flatnonzero(counted):
        totals += np.where(scored[f], errors[f], 0.0)
    if complete == "candidate":
        totals[~scored.all(axis=0)] = np.inf
    return totals, counted


def first_lowest(values: np.ndarray, order: Sequence[int] | np.ndarray) -> int:
    """The candidate of lowest ``values`` (flat, one per candidate), the first in ``order`` (every candidate, most
    preferred first) among ties; ``order[0]`` when all are inf."""
    order = np.asarray(order)
    return int(order[int(np.argmin(np.asarray(values)[order]))])


def first_within_noise(errors: np.ndarray, counted: np.ndarray, order: Sequence[int] | np.ndarray) -> int:
    """A one-standard-error rule on paired folds: the first candidate of ``order`` (most preferred first, e.g. a
    paper's own rule) whose held-out error exceeds the lowest one's by no more than the noise of the folds.

    ``errors`` (n_folds, n_candidates) as :func:`fold_errors` gives them, ``counted`` the folds to use (as
    :func:`fold_totals` returns them). With ``best`` the :func:`first_lowest` candidate of the counted folds'
    totals, candidate ``c`` is within the noise when the mean over the counted folds of ``e_c - e_best`` is at most
    its standard error (``std(ddof=1) / sqrt(k)``, k counted folds): a candidate that lost on every fold by the
    same margin is not, one that lost on some folds and won on others by amounts that average out is. Fewer than
    two counted folds leave no estimate of the noise: the rule is then :func:`first_lowest`; so are candidates not
    scored on every counted fold, which are never preferred over a scored one."""
    errors = np.asarray(errors, dtype=np.float64)
    order = np.asarray(order)
    rows = errors[np.asarray(counted, dtype=bool)]
    totals = np.where(np.isnan(rows), np.inf, rows).sum(axis=0) if rows.size else np.zeros(errors.shape[1])
    best = first_lowest(totals, order)
    k = rows.shape[0]
    if k < 2 or not np.isfinite(totals[best]):
        return best
    for c in order:
        c = int(c)
        if c == best:
            return best
        diff = rows[:, c] - rows[:, best]
        if np.any(np.isnan(diff)):
            continue
        if diff.mean() <= diff.std(ddof=1) / np.sqrt(k):
            return c
    return best
