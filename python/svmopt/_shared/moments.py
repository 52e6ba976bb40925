"""Weighted column moments: the standardization of the fixed-size LS-SVM (paper 002) and RobustSVC's kernel-width
statistics (paper 000) read their means and standard deviations here, over stored rows or a block stream."""

from __future__ import annotations

from collections.abc import Callable, Iterable
from typing import Any

import numpy as np


def power_of_two_unit(absmax: np.ndarray) -> np.ndarray:
    """Per column, the power of two at or above ``absmax`` (1 where it is 0 or not finite): dividing by it is exact,
    and it brings the column's deviations to [-2, 2], where their squares neither underflow (|x| <= 1e-162) nor
    overflow (|x| >= 1e154)."""
    absmax = np.asarray(absmax, dtype=np.float64)
    ok = np.isfinite(absmax) & (absmax > 0)
    _, exponent = np.frexp(np.where(ok, absmax, 1.0))
    return np.where(ok, np.ldexp(1.0, exponent), 1.0)


def block_moments(blocks: Callable[[], Iterable[Any]], d: int,
                  weights: np.ndarray | None = None) -> tuple[np.ndarray, np.ndarray, float, np.ndarray]:
    """``(mean, s2, W, unit)`` of the rows that ``blocks()`` yields (row blocks, d columns, read twice): the column
    means sum_i w_i x_i / W, the sums of squared deviations measured in ``unit`` (a power of two per column,
    :func:`power_of_two_unit` of the column's largest magnitude), sum_i w_i ((x_i - mean) / unit)^2, and
    W = sum_i w_i (w_i = 1 and W = n without ``weights``, one per row, >= 0). In that unit the sums neither underflow
    nor overflow at any finite scale of X, so :func:`column_stds` is scale-invariant (the deviation of a column
    scaled by 2^k is scaled by 2^k exactly). Rows of weight 0 add exactly 0: they are left out of the deviations. The
    in-memory counterpart of :func:`svmopt._shared.dask.column_moments`."""
    s1, s2, n, absmax = np.zeros(d), np.zeros(d), 0, np.zeros(d)
    for xb in blocks():
        xb = np.asarray(xb, dtype=np.float64)
        nb = xb.shape[0]
        if weights is None:
            s1 += xb.sum(axis=0)
            seen = xb
        else:
            wb = weights[n:n + nb]
            s1 += wb @ xb
            seen = xb[wb > 0]
        if seen.shape[0]:
            absmax = np.maximum(absmax, np.abs(seen).max(axis=0))
        n += nb
    W = float(n) if weights is None else float(weights.sum())
    unit = power_of_two_unit(absmax)
    mean, r0 = s1 / W, 0
    for xb in blocks():
        xb = np.asarray(xb, dtype=np.float64)
        nb = xb.shape[0]
        if weights is None:
            s2 += (((xb - mean) / unit) ** 2).sum(axis=0)
        else:
            wb = weights[r0:r0 + nb]
            pos = wb > 0
            if not pos.all():
                xb, wb = xb[pos], wb[pos]
            s2 += wb @ (((xb - mean) / unit) ** 2)
        r0 += nb
    return mean, s2, W, unit


def column_stds(s2: np.ndarray, n: int, weights: np.ndarray | None = None,
                unit: np.ndarray | float = 1.0) -> np.ndarray:
    """Column standard deviations from the sums of squared deviations ``s2`` (in ``unit``, see
    :func:`block_moments`) of ``n`` rows: ddof=1 (over n - 1, at least 1) without weights, over
    :func:`weighted_variance_denominator` with them."""
    return unit * np.sqrt(s2 / (max(n - 1, 1) if weights is None else weighted_variance_denominator(weights)))


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
