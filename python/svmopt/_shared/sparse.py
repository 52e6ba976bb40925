"""scipy.sparse input: the one place where a sparse X is accepted, and the kernel rows of sparse rows.

A sparse ``X`` (CSR or CSC, any scipy sparse matrix or array) is never densified as a whole. :func:`as_csr` checks it
(finite values, float64) and gives its CSR form: a CSC input is converted once (a copy of its nonzeros, ``12 nnz``
bytes, never ``n x d``). The kernel rows against dense points ``Z`` (landmarks, prototypes, support vectors) are formed
from the inner products over the nonzeros (scipy's compiled CSR x dense product) and the squared row norms, a block
of rows at a time (:func:`kernel_rows`, :func:`kernel_matvec`), with the same kernel functions as the core's
(:class:`svmopt.Kernel`): ``<x, z>``, ``<x, z>^d``, ``(<x, z> + c)^d``, ``exp(-max(||x||^2 + ||z||^2 - 2 <x, z>, 0)
/ (2 alpha^2))`` and ``tanh(a <x, z> + b)``.
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import numpy as np
import scipy.sparse as sp

#: Rows of a sparse X per block of kernel rows: the block's ``block x n_z`` float64 values are the memory beyond the
#: input (8 MiB at 1,000 points).
BLOCK_ROWS = 1024


def is_sparse(X: Any) -> bool:
    """Whether ``X`` is a scipy sparse matrix or array."""
    return sp.issparse(X)


def as_csr(X: Any, name: str = "X") -> sp.csr_matrix:
    """``X`` as a float64 CSR matrix with sorted indices and no explicit NaN or inf: a ValueError naming ``name``
    otherwise. CSR input of that form is returned as it is (no copy)."""
    if not sp.issparse(X):
        raise TypeError(f"{name} must be a scipy sparse matrix, got {type(X).__name__}")
    if X.ndim != 2:
        raise ValueError(f"{name} must be 2-D, got a sparse array of {X.ndim} dimensions")
    if X.dtype.kind == "c":
        raise ValueError(f"Complex data not supported: {name} is complex (dtype {X.dtype}); pass real numbers")
    if X.dtype.kind not in "biuf":
        raise ValueError(f"{name} must hold numbers, got a sparse matrix of dtype {X.dtype}")
    out = sp.csr_matrix(X, dtype=np.float64, copy=False)
    if not np.all(np.isfinite(out.data)):
        raise ValueError(f"Input {name} contains NaN or infinity (in its stored values)")
    if not out.has_sorted_indices:
        out = out.sorted_indices()
    return out


def row_sq_norms(X: sp.csr_matrix) -> np.ndarray:
    """``||x_i||^2`` of every row, over its nonzeros."""
    sq = X.multiply(X).sum(axis=1)
    return np.asarray(sq, dtype=np.float64).ravel()


def kernel_of_products(kernel: Any, G: np.ndarray, sqx: np.ndarray, sqz: np.ndarray) -> np.ndarray:
    """The values of ``kernel`` (:class:`svmopt.Kernel`, its core's functions) from the inner products ``G`` (block x
    n_z, modified in place) and the squared norms of both sides (read by the RBF only)."""
    p = kernel.core_params
    name = kernel.name
    if name == "linear":
        return G
    if name == "poly":
        return np.power(G, p.degree, out=G)
    if name == "inhom_poly":
        G += p.c
        return np.power(G, p.degree, out=G)
    if name == "rbf":
        G *= -2.0
        G += sqx[:, None]
        G += sqz[None, :]
        np.maximum(G, 0.0, out=G)
        G *= -1.0 / (2.0 * p.alpha * p.alpha)
        return np.exp(G, out=G)
    if name == "sigmoid":
        G *= p.a
        G += p.b
        return np.tanh(G, out=G)
    raise ValueError(f"unknown kernel {name!r}")


def row_blocks(n: int, block: int = BLOCK_ROWS) -> Iterator[slice]:
    for start in range(0, n, block):
        yield slice(start, min(n, start + block))


def kernel_block(kernel: Any, X: sp.csr_matrix, Z: np.ndarray, sqz: np.ndarray | None = None) -> np.ndarray:
    """``K(X, Z)`` for the rows of a (small) CSR block ``X`` and dense ``Z`` (n_z x d): ``len(X) x n_z``."""
    G = np.asarray(X @ Z.T, dtype=np.float64)
    if not G.flags.writeable or not G.flags.c_contiguous:
        G = np.ascontiguousarray(G)
    needs_norms = kernel.name == "rbf"
    sqx = row_sq_norms(X) if needs_norms else np.empty(0)
    if needs_norms and sqz is None:
        sqz = np.einsum("ij,ij->i", Z, Z)
    return kernel_of_products(kernel, G, sqx, np.empty(0) if sqz is None else sqz)


def kernel_rows(kernel: Any, X: sp.csr_matrix, Z: np.ndarray, block: int = BLOCK_ROWS) -> np.ndarray:
    """``K(X, Z)`` (n x n_z) for a CSR ``X``, a block of rows at a time (the caller checks the result's memory)."""
    Z = np.ascontiguousarray(Z, dtype=np.float64)
    sqz = np.einsum("ij,ij->i", Z, Z)
    out = np.empty((X.shape[0], Z.shape[0]))
    for rows in row_blocks(X.shape[0], block):
        out[rows] = kernel_block(kernel, X[rows], Z, sqz)
    return out


def kernel_matvec(kernel: Any, X: sp.csr_matrix, Z: np.ndarray, V: np.ndarray, block: int = BLOCK_ROWS) -> np.ndarray:
    """``K(X, Z) @ V`` (n x k) without storing ``K(X, Z)``: ``block x n_z`` values at a time."""
    Z = np.ascontiguousarray(Z, dtype=np.float64)
    V = np.asarray(V, dtype=np.float64)
    sqz = np.einsum("ij,ij->i", Z, Z)
    out = np.empty((X.shape[0], V.shape[1]))
    for rows in row_blocks(X.shape[0], block):
        out[rows] = kernel_block(kernel, X[rows], Z, sqz) @ V
    return out


def gram(kernel: Any, X: sp.csr_matrix) -> np.ndarray:
    """``K(X, X)`` (n x n, dense; the caller checks its memory) from ``X X^T`` over the nonzeros."""
    G = np.ascontiguousarray((X @ X.T).toarray(), dtype=np.float64)
    sq = row_sq_norms(X) if kernel.name == "rbf" else np.empty(0)
    K = kernel_of_products(kernel, G, sq, sq)
    if kernel.name == "rbf":
        np.fill_diagonal(K, 1.0)  # exact, as the core's: ||x - x||^2 = 0 whatever the rounding of the sums
    return K


def kernel_diag(kernel: Any, X: sp.csr_matrix) -> np.ndarray:
    """``k(x_i, x_i)`` of every row."""
    p = kernel.core_params
    sq = row_sq_norms(X)
    name = kernel.name
    if name == "linear":
        return sq
    if name == "poly":
        return sq**p.degree
    if name == "inhom_poly":
        return (sq + p.c) ** p.degree
    if name == "rbf":
        return np.ones_like(sq)
    return np.tanh(p.a * sq + p.b)


def column_moments(X: sp.csr_matrix, w: np.ndarray | None = None) -> tuple[np.ndarray, np.ndarray]:
    """Weighted column means and (ddof = 0) variances of a sparse X over its nonzeros and implicit zeros, without
    densifying: ``E[x]`` and ``E[x^2] - E[x]^2`` (clipped at 0) from two sparse products."""
    n = X.shape[0]
    w = np.ones(n) if w is None else np.asarray(w, dtype=np.float64)
    W = float(w.sum())
    mean = np.asarray(X.T @ w, dtype=np.float64).ravel() / W
    sq = np.asarray(X.multiply(X).T @ w, dtype=np.float64).ravel() / W
    return mean, np.maximum(sq - mean * mean, 0.0)


def nonzeros(X: Any) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """``(rows, cols, values)`` of the nonzero entries of a dense array or a scipy sparse matrix (explicit zeros of
    a sparse one left out), without densifying a sparse one."""
    if sp.issparse(X):
        ii, kk, vals = sp.find(X)
        return ii.astype(np.intp), kk.astype(np.intp), np.asarray(vals, dtype=np.float64)
    ii, kk = np.nonzero(X)
    return ii, kk, X[ii, kk]


def sparse_cut_pass(X: sp.csr_matrix, y: np.ndarray, v: np.ndarray, gamma: float, S: float, *,
                    delta: np.ndarray | None, offset: np.ndarray | None, weight: np.ndarray | None, n_groups: int,
                    scores_out: np.ndarray | None = None, row_offset: int = 0,
                    n_total: int | None = None) -> tuple[np.ndarray, ...]:
    """One cutting-plane pass over the rows of a CSR ``X``, the same sums as the core's dense pass
    (``_core.cutting_plane.cut_pass``: row i violated when ``a_i + y_i gamma - y_i x_i.v + delta_i S > 0``, the
    rows of group g those in ``[g N / G, (g + 1) N / G)``), in time proportional to nnz: ``X @ v`` and the group sums
    ``P @ X`` (P the G x n matrix of the violated rows' ``w_i y_i``) are scipy's compiled sparse products. Returns
    ``(a_groups, b_groups, e_groups, n_c_groups, hinge_groups)``.

    As the core's pass, the rows may be rows ``row_offset ..`` of a data set of ``n_total`` rows (None: N = n), one
    chunk of a Dask array: they fall in the groups of the whole data set, so the chunks' sums add up to the whole
    pass's (``y``, ``delta``, ``offset``, ``weight`` and ``scores_out`` are the chunk's own n entries)."""
    n = X.shape[0]
    N = n if n_total is None else int(n_total)
    row_offset = int(row_offset)
    if row_offset < 0 or row_offset + n > N:
        raise ValueError("the rows must lie within the n_total rows: row_offset >= 0, row_offset + n <= n_total")
    f = np.asarray(X @ v, dtype=np.float64).ravel()
    if not np.all(np.isfinite(f)):
        raise ValueError("Phi must be finite (no NaN or infinity), and Phi v too")
    if scores_out is not None:
        scores_out[:] = f
    a = np.ones(n) if offset is None else offset
    margin = a + y * gamma - y * f + (0.0 if delta is None else delta * S)
    c = (margin > 0.0) * (1.0 if weight is None else weight)
    group = np.searchsorted((np.arange(n_groups) * N) // n_groups, row_offset + np.arange(n), side="right") - 1
    P = sp.csr_matrix((c * y, (group, np.arange(n))), shape=(n_groups, n))
    a_groups = np.asarray((P @ X).toarray(), dtype=np.float64)  # G x L, the cuts' own size

    def sums(values: np.ndarray) -> np.ndarray:
        return np.bincount(group, weights=values, minlength=n_groups)

    e = sums(c * delta) if delta is not None else np.zeros(n_groups)
    return a_groups, sums(c * y), e, sums(c * a), sums(c * np.maximum(margin, 0.0))


def check_sparse_input(name: str, X: Any, accepted: bool, *, dask_chunks: bool = False) -> None:
    """A scipy sparse ``X`` given to an estimator whose paths cannot take it (``accepted`` False), or a Dask array
    of sparse chunks given to one whose passes do not read them (``dask_chunks`` False; True for the linear models
    of paper 001, whose cutting-plane passes run :func:`sparse_cut_pass` on each chunk): a TypeError naming X (every
    estimator of svmopt takes sparse X)."""
    if not accepted and sp.issparse(X):
        raise TypeError(f"{name} does not take a scipy sparse X (got {type(X).__name__}); pass a dense array "
                        "(X.toarray() where it fits in memory)")
    if not dask_chunks and sp.issparse(getattr(X, "_meta", None)) and not sp.issparse(X):
        raise TypeError(f"{name}: X is a Dask array of scipy sparse chunks, which {name}'s solvers do not read; "
                        "pass a scipy sparse matrix in memory or a Dask array of dense chunks")
