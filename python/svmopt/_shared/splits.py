"""The one reader of ``cv`` for every family, and the row samples the selections run on.

``cv`` is read the same way by every estimator: an int k (None: the estimator's default) gives unshuffled stratified
k-fold of the training rows, as scikit-learn's ``cross_val_score(cv=k)`` draws them; a splitter (an object with
``split``) or an iterable of (train, test) pairs gives the user's folds, whose indices (or boolean masks) index the
rows *as given to fit*. :func:`index_pairs` is the one place where pairs are checked (masks, ranges, emptiness) and
mapped past the rows that weights of zero removed; :func:`cv_splits` adds the int case; :func:`fold_ids` turns
pairs whose test sets partition the rows into the fold id per row that the fast CV of paper 002 takes;
:func:`restrict_splits` keeps a sub-problem's rows (one pair of classes); :func:`random_folds` draws the fold ids
of a tuning run; :func:`stratified_subsample` the rows a selection runs on.
"""

from __future__ import annotations

from numbers import Integral
from typing import Any

import numpy as np
from sklearn.model_selection import KFold, StratifiedKFold


def cv_is_index_pairs(cv: Any) -> bool:
    """Whether ``cv`` is an iterable of (train, test) index pairs (into the rows given to fit), not a fold count
    (None: the default) or a splitter."""
    return not (cv is None or isinstance(cv, Integral) or hasattr(cv, "split"))


def cv_indices(part: Any, n: int, name: str) -> np.ndarray:
    """One side of a (train, test) pair as int64 indices: a boolean mask over the n rows becomes the indices of
    its True entries (one of another length is refused)."""
    a = np.asarray(part)
    if a.dtype == bool:
        if a.shape != (n,):
            raise ValueError(f"{name} has a boolean mask of shape {a.shape}: a mask must have one entry per row "
                             f"({n})")
        return np.flatnonzero(a).astype(np.int64)
    return a.astype(np.int64).ravel()


def _as_pairs(pairs: Any, n: int) -> list[tuple[np.ndarray, np.ndarray]]:
    """(train, test) pairs over n rows as int64 indices (boolean masks read as such)."""
    return [(cv_indices(tr, n, "cv"), cv_indices(te, n, "cv")) for tr, te in pairs]


def _outside(splits: list[tuple[np.ndarray, np.ndarray]], n: int) -> bool:
    """Whether any index of the pairs lies outside [0, n)."""
    return any(idx.size and (idx.min() < 0 or idx.max() >= n) for tr, te in splits for idx in (tr, te))


def _remap(splits: list[tuple[np.ndarray, np.ndarray]], kept: np.ndarray) -> list[tuple[np.ndarray, np.ndarray]]:
    """Pairs over the rows given to fit as pairs over the ``kept`` rows (the others leave both sides)."""
    where = np.full(int(kept.max()) + 1 if kept.size else 0, -1, dtype=np.int64)
    where[kept] = np.arange(kept.size)

    def remap(idx: np.ndarray) -> np.ndarray:
        idx = idx[idx < where.size]
        new = where[idx]
        return new[new >= 0]

    return [(remap(tr), remap(te)) for tr, te in splits]


def index_pairs(cv: Any, n_given: int, *, kept: np.ndarray | None = None, X: Any = None,
                y: Any = None) -> list[tuple[np.ndarray, np.ndarray]]:
    """The user's (train, test) pairs of a splitter or an iterable, over the ``n_given`` rows given to fit (a
    splitter splits ``X``, ``y``: those rows), as int64 indices (boolean masks read as such), every index checked;
    with ``kept`` (``check_fit_weights(..., return_kept=True)``) mapped to the kept rows."""
    if hasattr(cv, "split"):
        splits = _as_pairs(cv.split(np.zeros((n_given, 1)) if X is None else X, y), n_given)
        if not splits:
            raise ValueError("cv gives no (train, test) split")
    else:
        splits = _as_pairs(cv, n_given)
        if not splits:
            raise ValueError("cv is an empty iterable: give at least one (train, test) pair")
    if _outside(splits, n_given):
        raise ValueError(f"cv has an index outside the {n_given} rows given to fit")
    return splits if kept is None else _remap(splits, kept)


def cv_splits(cv: Any, y: np.ndarray, kept: np.ndarray | None = None, n_given: int | None = None,
              default: int = 3) -> list[tuple[np.ndarray, np.ndarray]]:
    """The (train, test) index pairs of ``cv`` on the rows of ``y`` (the training rows).

    * an int k (None: ``default``): unshuffled stratified k-fold, with k capped by the smallest class; plain k-fold
      when a class has one row;
    * a splitter: its folds of these rows (a splitter of fixed indices, e.g. PredefinedSplit, must index them);
    * an iterable of pairs: :func:`index_pairs` over the ``n_given`` rows given to fit (default: the rows of
      ``y``), mapped past the rows left out by ``kept``.
    """
    n = y.shape[0]
    if cv is None:
        cv = default
    if isinstance(cv, Integral) and not isinstance(cv, bool):
        counts = np.unique(y, return_counts=True)[1]
        k = min(int(cv), int(counts.min()))
        if k >= 2:
            return list(StratifiedKFold(n_splits=k).split(np.zeros(n), y))
        return list(KFold(n_splits=min(int(cv), n)).split(np.zeros(n)))
    if hasattr(cv, "split"):
        splits = _as_pairs(cv.split(np.zeros((n, 1)), y), n)
        if _outside(splits, n):
            raise ValueError(f"cv's split has an index outside the {n} rows it was given to split (the training "
                             "rows left after zero-weight rows, or a subsample of them): a splitter of fixed "
                             "indices (e.g. PredefinedSplit) indexes the rows given to fit; pass its pairs, "
                             "list(cv.split(X, y)), instead")
        return splits
    splits = index_pairs(cv, n if n_given is None else int(n_given), kept=kept)
    if _outside(splits, n):
        raise ValueError(f"cv has an index outside the {n} training rows")
    return splits


def fold_ids(splits: list[tuple[np.ndarray, np.ndarray]], n: int) -> np.ndarray:
    """Fold id per row (int32) from the checked pairs of :func:`index_pairs` over n rows whose test sets partition
    them: fold u holds the test rows of split u (the folds of paper 002's fast CV, which needs a partition)."""
    folds = np.full(n, -1, dtype=np.int32)
    for u, (_, test) in enumerate(splits):
        if np.any(folds[test] >= 0):
            raise ValueError("cv: the test sets of the splits overlap; they must partition the rows")
        folds[test] = u
    if len(splits) < 2 or np.any(folds < 0):
        raise ValueError("cv: give at least 2 splits whose test sets cover every row exactly once (they are the "
                         "folds of the fast CV)")
    return folds


def restrict_splits(splits: list[tuple[np.ndarray, np.ndarray]], rows: np.ndarray,
                    n_rows: int) -> list[tuple[np.ndarray, np.ndarray]]:
    """The pairs restricted to ``rows`` (of ``n_rows``), as sorted indices into ``rows``; pairs without a held-out
    row among them are dropped."""
    local = np.full(n_rows, -1)
    local[rows] = np.arange(rows.size)
    out = []
    for train, test in splits:
        tr, va = local[train], local[test]
        tr, va = np.sort(tr[tr >= 0]), np.sort(va[va >= 0])
        if va.size:
            out.append((tr, va))
    return out


def random_folds(n: int, v: int, rng: np.random.Generator, y: np.ndarray | None = None) -> np.ndarray:
    """Fold id per row: one random permutation cut into v contiguous near-equal blocks, reused for every
    evaluation of one tuning run (decision: paper 002 does not say; no stratification by default); with ``y``
    (class codes) the folds are stratified (round-robin within each class)."""
    v = int(v)
    folds = np.empty(n, dtype=np.int32)
    if y is None:
        perm = rng.permutation(n)
        folds[perm] = (np.arange(n) * v // max(n, 1)).astype(np.int32)
        return folds
    offset = 0
    for c in np.unique(y):
        rows = rng.permutation(np.flatnonzero(y == c))
        folds[rows] = ((np.arange(rows.size) + offset) % v).astype(np.int32)
        offset += rows.size
    return folds


def stratified_subsample(y: np.ndarray, n_max: int, rng: np.random.RandomState) -> np.ndarray:
    """Sorted indices of ``n_max`` rows (all rows when there are no more), every class kept in proportion: each
    class's share n_max n_c / n rounded down, at least one row, the rows left to the largest remainders; a class
    drawn uniformly from its rows. With more classes than ``n_max``, one row of each."""
    n = y.shape[0]
    if n <= n_max:
        return np.arange(n)
    _, inv, counts = np.unique(y, return_inverse=True, return_counts=True)
    share = counts * (n_max / n)
    take = np.minimum(np.maximum(np.floor(share).astype(np.int64), 1), counts)
    left = n_max - int(take.sum())
    while left < 0 and take.max() > 1:  # the one-row floors took more than n_max: back from the largest classes
        take[int(np.argmax(take))] -= 1
        left += 1
    for c in np.argsort(-(share - np.floor(share)), kind="stable"):
        if left <= 0:
            break
        if take[c] < counts[c]:
            take[c] += 1
            left -= 1
    rows = [rng.permutation(np.flatnonzero(inv == c))[:take[c]] for c in range(counts.size)]
    return np.sort(np.concatenate(rows))
