"""A scipy sparse X in paper 001's bounds: column bounds, the class diameters of Prop. 2.2 and the rows ``y_i x_i``
of Algorithm 1's (UB_Mi) LPs, over the stored values, never densified.

Every result equals the dense computation's exactly (minima, maxima and one product per value): the implicit zeros
count as the value 0 of their column, as the stored ones do."""

from __future__ import annotations

from typing import Any

import numpy as np
import scipy.sparse as sp

from svmopt._shared.sparse import is_sparse


def canonical_csr(X: Any) -> sp.csr_matrix:
    """A sparse ``X`` as CSR with sorted indices and no duplicate entries (a copy of its nonzeros only when it has
    duplicates or is not CSR)."""
    out = sp.csr_matrix(X, dtype=np.float64, copy=False)
    if not out.has_canonical_format:
        out = out.copy()
        out.sum_duplicates()
    return out


def column_bounds(X: Any) -> tuple[np.ndarray, np.ndarray]:
    """``(min_i x_ik, max_i x_ik)`` of every column (a sparse X: its implicit zeros included, O(nnz))."""
    if not is_sparse(X):
        return X.min(axis=0), X.max(axis=0)
    S = sp.csc_matrix(X, dtype=np.float64)
    lo = np.asarray(S.min(axis=0).toarray(), dtype=np.float64).ravel()  # 1 x d
    hi = np.asarray(S.max(axis=0).toarray(), dtype=np.float64).ravel()
    return lo, hi


def column_ptp(X: Any) -> np.ndarray:
    """``max_i x_ik - min_i x_ik`` of every column (``np.ptp`` on a dense X)."""
    if not is_sparse(X):
        return np.ptp(X, axis=0)
    lo, hi = column_bounds(X)
    return hi - lo


def _row_max_stored(X: sp.csr_matrix, values: np.ndarray) -> np.ndarray:
    """The largest of ``values`` (one per stored entry) in each row; -inf for a row with none stored."""
    out = np.full(X.shape[0], -np.inf)
    nnz_row = np.diff(X.indptr)
    full = nnz_row > 0
    if values.size:
        out[full] = np.maximum.reduceat(values, X.indptr[:-1][full])
    return out


def _row_max_unstored(X: sp.csr_matrix, g: np.ndarray) -> np.ndarray:
    """``max_{k not stored in row i} g_k`` of every row (-inf for a row that stores every column), O(nnz log nnz):
    with the columns ranked by decreasing ``g``, the answer is the column whose rank is the smallest one the row does
    not store (the first gap in its sorted stored ranks)."""
    n, d = X.shape
    order = np.argsort(-g, kind="stable")
    rank = np.empty(d, dtype=np.intp)
    rank[order] = np.arange(d)
    row = np.repeat(np.arange(n), np.diff(X.indptr))
    r = rank[X.indices]
    srt = np.lexsort((r, row))
    r = r[srt]
    pos = np.arange(r.size) - X.indptr[row]  # position of each entry within its row (rows stay in order)
    nnz_row = np.diff(X.indptr)
    mex = nnz_row.copy()  # no gap: the first rank past the row's entries
    full = nnz_row > 0
    if r.size:
        gap = np.where(r != pos, pos, np.iinfo(np.intp).max)
        first = np.minimum.reduceat(gap, X.indptr[:-1][full])
        mex[full] = np.minimum(mex[full], first)
    out = np.full(n, -np.inf)
    some = mex < d
    out[some] = g[order[mex[some]]]
    return out


def sparse_class_diameters(X: Any, y: np.ndarray) -> np.ndarray:
    """``Delta_i = max_{j: y_j = y_i} ||x_i - x_j||_inf`` (Prop. 2.2) of a sparse X as
    :func:`svmopt.ramp.model.class_diameters` computes it for a dense one: ``max_k max(x_ik - lo_k, hi_k - x_ik)``
    with the class's column bounds, over the stored entries of row i and, for its implicit zeros, ``max(-lo_k,
    hi_k)`` of the columns it does not store."""
    X = canonical_csr(X)
    delta = np.zeros(X.shape[0])
    for cls in (-1.0, 1.0):  # two classes, not a loop over rows
        idx = np.flatnonzero(y == cls)
        if not idx.size:
            continue
        Xc = X[idx]
        lo, hi = column_bounds(Xc)
        k, v = Xc.indices, Xc.data
        stored = _row_max_stored(Xc, np.maximum(v - lo[k], hi[k] - v))
        unstored = _row_max_unstored(Xc, np.maximum(0.0 - lo, hi - 0.0))
        delta[idx] = np.maximum(np.maximum(stored, unstored), 0.0)
    return delta


def signed_row(X: sp.csr_matrix, y: np.ndarray, i: int) -> np.ndarray:
    """``y_i x_i`` as a dense vector of length d from row i of a canonical CSR X (the objective of (UB_Mi))."""
    out = np.zeros(X.shape[1])
    s, e = X.indptr[i], X.indptr[i + 1]
    out[X.indices[s:e]] = y[i] * X.data[s:e]
    return out
