"""Weighted column moments: the standardization of the fixed-size LS-SVM (paper 002) and RobustSVC's kernel-width
statistics (paper 000) read their means and standard deviations here, over stored rows or a block stream."""

from __future__ import annotations

from collections.abc import Callable, Iterable
from typing import Any

import numpy as np


def block_moments(blocks: Callable[[], Iterable[Any]], d: int,
                  weights: np.ndarray | None = None) -> tuple[np.ndarray, np.ndarray, float]:
    """``(mean, s2, W)`` of the rows that ``blocks()`` yields (row blocks, d columns, read twice): the column means
    sum_i w_i x_i / W, the sums of squared deviations sum_i w_i (x_i - mean)^2 and W = sum_i w_i (w_i = 1 and W = n
    without ``weights``, one per row, >= 0). Rows of weight 0 add exactly 0: they are left out of the deviations,
    where a value whose square overflows would turn 0 * inf into NaN. The in-memory counterpart of
    :func:`svmopt.fixed_size.dask_engine.column_moments`."""
    s1, s2, n = np.zeros(d), np.zeros(d), 0
    for xb in blocks():
        xb = np.asarray(xb, dtype=np.float64)
        s1 += xb.sum(axis=0) if weights is None else weights[n:n + xb.shape[0]] @ xb
        n += xb.shape[0]
    W = float(n) if weights is None else float(weights.sum())
    mean, r0 = s1 / W, 0
    for xb in blocks():
        xb = np.asarray(xb, dtype=np.float64)
        nb = xb.shape[0]
        if weights is None:
            s2 += ((xb - mean) ** 2).sum(axis=0)
        else:
            wb = weights[r0:r0 + nb]
            pos = wb > 0
            if not pos.all():
                xb, wb = xb[pos], wb[pos]
            s2 += wb @ ((xb - mean) ** 2)
        r0 += nb
    return mean, s2, W


def column_stds(s2: np.ndarray, n: int, weights: np.ndarray | None = None) -> np.ndarray:
    """Column standard deviations from the sums of squared deviations ``s2`` of ``n`` rows: ddof=1 (over n - 1, at
    least 1) without weights, over :func:`weighted_variance_denominator` with them."""
    return np.sqrt(s2 / (max(n - 1, 1) if weights is None else weighted_variance_denominator(weights)))


def weighted_variance_denominator(w: np.ndarray) -> float:
    """The denominator of a weighted variance ``sum_i w_i (x_i - mean)^2`` of positive weights ``w``:
    ``W - min(1, sum_i w_i^2 / W)`` with ``W = sum_i w_i``. It is ``W - 1`` whenever every weight is >= 1 (then
    ``sum w^2 / W >= 1``), so integer weights give the ddof=1 variance of the rows repeated; for smaller weights it
    is the unbiased form of reliability weights (``W - sum w^2 / W``: weights summing to 1 are not one row), and it
    stays positive (1 for a single row)."""
    return weighted_variance_denominator_of_sums(float(w.sum()), float(w @ w))


def weighted_variance_denominator_of_sums(W: float, sum_w2: float) -> float:
    """:func:`weighted_variance_denominator` from ``W = sum_i w_i`` and ``sum_w2 = sum_i w_i^2`` (for statistics
    accumulated over chunks of rows)."""
    denom = W - min(1.0, sum_w2 / W)
    return denom if denom > 0.0 else 1.0
