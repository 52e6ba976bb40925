"""scipy.sparse X in RobustSVC (paper 000): what its fit reads of a CSR X without densifying it.

A sparse X (CSR or CSC, matrices or arrays; :func:`svmopt._shared.sparse.as_csr`) is read over its nonzeros only:

* the Gram matrix of LP (23) and the reduced model's kernel rows K(X, Z) against the dense landmarks come from
  :class:`svmopt.Kernel`, which takes a sparse X (``X X^T`` and ``X Z^T`` over the nonzeros); beyond half the memory
  budget, where the dense path recomputes the rows at every pass, :class:`SparseKernelRows` computes them a block of
  rows at a time for the interior point's passes (:mod:`svmopt.robust.ipm`) and for the cutting planes'
  (:class:`SparseRowsCuttingPlanes`, the core's pass on each block with its row offset);
* the statistics of the kernel widths and of the rho rule (Section 6) from the weighted column moments over the
  nonzeros (:func:`sparse_spread`, :func:`class_max_std`), the robust bounds (12) from the row norms;
* the support vectors of the paper's model stay sparse rows: the decision (:func:`sparse_points_matvec`) takes
  ``X P^T`` over the nonzeros, a block of rows at a time, with the kernel functions of :class:`svmopt.Kernel`
  (:func:`svmopt._shared.sparse.kernel_of_products`);
* the landmarks are dense: the random ones and the Rényi-entropy search's candidates (those within half the
  memory budget) are densified, memory-checked.
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import numpy as np

from svmopt import _core
from svmopt._shared.config import check_dense_allocation
from svmopt._shared.cutting_plane import HingeCuttingPlanes
from svmopt._shared.dask import GroupSums, add_sums
from svmopt._shared.moments import column_stds
from svmopt._shared.sparse import (
    BLOCK_ROWS,
    as_csr,
    column_moments,
    is_sparse,
    kernel_block,
    kernel_of_products,
    row_sq_norms,
)

__all__ = ["SparseKernelRows", "SparseRowsCuttingPlanes", "class_max_std", "dense_rows", "is_sparse",
           "row_norms", "sparse_points_matvec", "sparse_spread"]


def dense_rows(X: Any, what: str) -> np.ndarray:
    """Rows of a sparse X (a small subset: landmarks, candidates) as a dense float64 array, memory-checked."""
    check_dense_allocation(X.shape[0], X.shape[1], what)
    return np.ascontiguousarray(X.toarray(), dtype=np.float64)


def row_norms(X: Any) -> np.ndarray:
    """``||x_i||_2`` of every row of a sparse X, over its nonzeros."""
    return np.sqrt(row_sq_norms(as_csr(X)))


def sparse_spread(X: Any, w: np.ndarray | None) -> tuple[np.ndarray, float]:
    """:func:`svmopt.robust.data.weighted_spread` of a sparse X: the column stds (ddof=1; weighted: over
    :func:`~svmopt._shared.moments.weighted_variance_denominator`) and the variance of all the entries (population
    form, weighted), from the weighted column moments over the nonzeros."""
    n, d = X.shape
    mean, var = column_moments(as_csr(X), w)
    W = float(n if w is None else w.sum())
    stds = column_stds(var * W, n, w)
    return stds, (float(var.mean() + mean.var()) if d else 0.0)


def class_max_std(X: Any, w: np.ndarray | None) -> float:
    """``max_j std_j`` (ddof=1; weighted as :func:`sparse_spread`) of the rows of a sparse X (the rho rule's)."""
    stds, _ = sparse_spread(X, w)
    return float(np.max(stds)) if stds.size else 0.0


def sparse_points_matvec(kern: Any, X: Any, P: Any, V: np.ndarray) -> np.ndarray:
    """``K(X, P) @ V`` for sparse expansion points ``P`` (the paper's model fitted on a sparse X), X dense or sparse,
    neither densified: ``X P^T`` over the nonzeros a block of :data:`BLOCK_ROWS` rows of X at a time (``block x
    n_points`` values)."""
    P = as_csr(P, "support_vectors_")
    V = np.asarray(V, dtype=np.float64)
    V2 = V.reshape(V.shape[0], -1)
    sparse_x = is_sparse(X)
    if sparse_x:
        X = as_csr(X, "X")
    sqp = row_sq_norms(P)
    out = np.empty((X.shape[0], V2.shape[1]))
    for a in range(0, X.shape[0], BLOCK_ROWS):
        Xb = X[a:a + BLOCK_ROWS]
        G = (Xb @ P.T).toarray() if sparse_x else np.asarray(P @ np.asarray(Xb).T).T
        G = np.ascontiguousarray(G, dtype=np.float64)
        sqx = row_sq_norms(Xb) if sparse_x else np.einsum("ij,ij->i", Xb, Xb)
        out[a:a + BLOCK_ROWS] = kernel_of_products(kern, G, sqx, sqp) @ V2
    return out[:, 0] if V.ndim == 1 else out


class SparseKernelRows:
    """The kernel rows K(X, Z) of a CSR ``X`` against dense landmarks ``Z``, computed a block of ``block`` rows at a
    time (``block x L`` values beyond the input): the reduced model's rows when n x L exceeds half the memory
    budget. Non-finite values or values of magnitude 1e15 and more are refused (as the cached rows are)."""

    def __init__(self, kern: Any, X: Any, Z: np.ndarray, block: int = BLOCK_ROWS, max_magnitude: float = 1e15):
        self.kernel = kern
        self.X = as_csr(X)
        self.Z = np.ascontiguousarray(Z, dtype=np.float64)
        self.sqz = np.einsum("ij,ij->i", self.Z, self.Z)
        self.block = int(block)
        self.max_magnitude = max_magnitude
        self.shape = (self.X.shape[0], self.Z.shape[0])

    def rows(self, start: int, stop: int) -> np.ndarray:
        """K(x_i, Z) for the rows ``start <= i < stop`` (C order)."""
        out = np.ascontiguousarray(kernel_block(self.kernel, self.X[start:stop], self.Z, self.sqz))
        top = max(float(out.max()), -float(out.min())) if out.size else 0.0
        if not top < self.max_magnitude:
            raise ValueError(f"the kernel rows reach a magnitude of {top:.3g} (non-finite, or >= "
                             f"{self.max_magnitude:g}): rescale X (e.g. MaxAbsScaler) or lower the degree")
        return out

    def blocks(self, start: int = 0) -> Iterator[tuple[slice, np.ndarray]]:
        """``(rows, K(X[rows], Z))`` for consecutive blocks of the rows from ``start`` on."""
        n = self.shape[0]
        for a in range(start, n, self.block):
            b = min(n, a + self.block)
            yield slice(a, b), self.rows(a, b)


class SparseRowsCuttingPlanes(HingeCuttingPlanes):
    """The reduced LP's cutting planes (:class:`svmopt._shared.cutting_plane.HingeCuttingPlanes`) over kernel rows
    computed block by block from a sparse X (:class:`SparseKernelRows`): each pass runs the core's pass
    (``_core.cutting_plane.cut_pass``) on every block with its row offset, so that the group sums are those of one
    pass over all the rows."""

    def __init__(self, y: np.ndarray, r: np.ndarray, *, rows: SparseKernelRows, **kwargs: Any):
        n, L = rows.shape
        # a placeholder of the rows' shape that holds no memory (one value, strides 0): the passes below read `rows`
        super().__init__(y, r, Phi=np.broadcast_to(np.zeros(()), (n, L)), **kwargs)
        self.Phi = None
        self.kernel_rows = rows

    def _pass(self, v: np.ndarray, gamma: float, scores: np.ndarray | None = None) -> GroupSums:
        self.n_passes += 1
        v = np.ascontiguousarray(v, dtype=np.float64)
        S = float(self.r @ np.abs(v))

        def cut(a: np.ndarray | None, sl: slice) -> np.ndarray | None:
            return None if a is None else np.ascontiguousarray(a[sl])

        parts = []
        for sl, block in self.kernel_rows.blocks():
            sc = None if scores is None else np.empty(block.shape[0])
            out = _core.cutting_plane.cut_pass(np.ascontiguousarray(self.y[sl]), v, float(gamma), S, Phi=block,
                                               delta=cut(self.delta, sl), offset=cut(self.offset, sl),
                                               scores_out=sc, n_threads=self.n_threads, block=self.block,
                                               n_groups=self.G, row_offset=sl.start, n_total=self.n,
                                               weight=cut(self.weight, sl))
            parts.append((out.a_groups, out.b_groups, out.e_groups, out.n_c_groups, out.hinge_groups))
            if scores is not None:
                scores[sl] = sc
        return GroupSums(*add_sums(*parts))
