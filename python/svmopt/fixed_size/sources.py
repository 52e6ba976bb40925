"""The data sources of a streaming fit (paper 002's blockwise accumulation, eq. (20)): a numpy array or
``np.memmap`` read in row blocks, a scipy sparse matrix (CSR/CSC), a callable or iterator of ``(X_block, y_block)``
pairs, or a dask array (:class:`svmopt.fixed_size.dask_engine.DaskSource`), each validated before any work and turned
into re-iterable blocks.

A sparse X is never densified as a whole: the standardization of step 1 centres its columns, so the kernel rows of
the passes (the core's, on dense rows) are computed from its rows densified a block at a time
(:func:`sparse_block_rows` rows, at most 1 / :data:`SPARSE_BLOCK_SHARE` of the memory budget); the tuning sample and
the prototype candidates are the only rows densified together (``tune_rows`` and ``max_candidates`` of them,
memory-checked). A pass then costs its dense blocks' n d, not nnz."""

from __future__ import annotations

import functools
from collections.abc import Callable, Iterable, Iterator
from typing import Any

import numpy as np
from sklearn.utils import column_or_1d
from sklearn.utils.validation import validate_data

from svmopt._shared.config import check_dense_allocation, get_memory_budget
from svmopt._shared.dask import is_dask_array
from svmopt._shared.moments import block_moments, column_stds
from svmopt._shared.sparse import as_csr, check_sparse_input, is_sparse
from svmopt.fixed_size.dask_engine import DaskSource

DEFAULT_BLOCK = 65536
#: A dense block of a sparse X's rows takes at most this fraction (its inverse) of the memory budget.
SPARSE_BLOCK_SHARE = 16


def sparse_block_rows(d: int, block_size: int) -> int:
    """Rows per dense block of a sparse X of ``d`` columns: ``block_size``, fewer where ``block x d`` float64 values
    would pass 1 / :data:`SPARSE_BLOCK_SHARE` of the memory budget (at least 1)."""
    fit = get_memory_budget() // (SPARSE_BLOCK_SHARE * 8 * max(int(d), 1))
    return int(max(1, min(int(block_size), fit)))


def dense_rows(X: Any, what: str = "rows of the sparse X") -> np.ndarray:
    """Rows of a sparse X (a block, the tuning sample, the candidates) as a C-ordered float64 array, memory-checked."""
    check_dense_allocation(X.shape[0], X.shape[1], what)
    return np.ascontiguousarray(X.toarray(), dtype=np.float64)


def input_blocks(X: Any, block_size: int) -> Iterator[tuple[int, np.ndarray]]:
    """``(first row, dense float64 block)`` of X's rows (an array, a memmap or a sparse X, a block of
    :func:`sparse_block_rows` rows then), each checked by :func:`check_block`."""
    block = sparse_block_rows(X.shape[1], block_size) if is_sparse(X) else int(block_size)
    for s in range(0, X.shape[0], block):
        xb = X[s:s + block]
        yield s, check_block(dense_rows(xb) if is_sparse(xb) else xb, X.shape[1])


Blocks = Callable[[], Iterable[tuple[Any, Any]]]

_STREAM_CHANGED = ("the block stream must yield the same rows in the same order on every call (one call per pass over "
                   "the data, each pass's rows paired with the labels of the first): {}. Shuffle the rows once, "
                   "outside the fit, or pass X as an array or np.memmap")


class Source:
    """A re-iterable stream of standardized row blocks ``(X_block, y_block)``."""

    def __init__(self, X: Any, y: Any, block_size: int):
        self.block_size = block_size
        self.array: Any = None  # X itself when it is an array, an np.memmap or a CSR matrix
        self.y: np.ndarray | None = None
        self.factory: Blocks
        if isinstance(X, np.ndarray) or is_sparse(X):
            self.array, self.y = X, y
            self.factory = functools.partial(self._array_blocks, X, y)
        elif callable(X):
            self.factory = X
        else:
            blocks = [(np.asarray(xb), np.asarray(yb)) for xb, yb in X]
            self.factory = lambda: iter(blocks)
        self.mean: np.ndarray | None = None
        self.scale: np.ndarray | None = None
        # a block stream's labels from its first pass: every later pass must yield them again, row for row
        self.labels: np.ndarray | None = None

    @property
    def in_memory(self) -> np.ndarray | None:
        """X when it is a dense array in memory (not a memmap, nor sparse): what the core's whole-CV engine reads."""
        X = self.array
        return X if isinstance(X, np.ndarray) and not isinstance(X, np.memmap) else None

    @property
    def sparse(self) -> bool:
        return is_sparse(self.array)

    def _array_blocks(self, X: Any, y: np.ndarray) -> Iterator[tuple[np.ndarray, np.ndarray]]:
        if is_sparse(X):  # dense blocks of the sparse rows (module docstring)
            for s, xb in input_blocks(X, self.block_size):
                yield xb, y[s:s + xb.shape[0]]
            return
        for s in range(0, X.shape[0], self.block_size):
            yield X[s:s + self.block_size], y[s:s + self.block_size]

    def raw(self) -> Iterable[tuple[np.ndarray, np.ndarray]]:
        if self.labels is None:
            yield from self.factory()
            return
        # A later pass over a block stream: the fit pairs the rows of every pass with the first pass's labels, so
        # each y block must equal the labels of its rows and the pass must hold as many rows (O(n) labels, X is
        # not kept).
        labels, n, r0 = self.labels, self.labels.shape[0], 0
        for xb, yb in self.factory():
            yb, nb = np.asarray(yb).ravel(), len(xb)
            if r0 + nb > n:
                raise ValueError(_STREAM_CHANGED.format(f"a later pass yielded more than the first pass's {n} rows"))
            if yb.shape[0] != nb or not np.array_equal(yb, labels[r0:r0 + nb]):
                raise ValueError(_STREAM_CHANGED.format(f"a later pass's y block of rows {r0} to {r0 + nb - 1} "
                                                        "differs from the first pass's labels of those rows"))
            r0 += nb
            yield xb, yb
        if r0 != n:
            raise ValueError(_STREAM_CHANGED.format(f"a later pass yielded {r0} rows, the first {n}"))

    def raw_inputs(self) -> Iterator[np.ndarray]:
        """The X blocks of one pass, as given (not standardized)."""
        for xb, _ in self.raw():
            yield xb

    def blocks(self) -> Iterable[tuple[np.ndarray, np.ndarray]]:
        for xb, yb in self.raw():
            xb = np.asarray(xb, dtype=np.float64)
            if self.mean is not None:
                xb = (xb - self.mean) / self.scale
            yield np.ascontiguousarray(xb), np.asarray(yb)


def check_block(xb: np.ndarray, d: int | None, name: str = "X") -> np.ndarray:
    """One block of a stream as float64, checked: 2-D, ``d`` columns (when known), finite, not complex."""
    xb = np.asarray(xb)
    if np.iscomplexobj(xb):
        raise ValueError("Complex data not supported")
    xb = xb.astype(np.float64, copy=False)
    if xb.ndim != 2:
        raise ValueError(f"{name} blocks must be 2-D, got ndim={xb.ndim}")
    if d is not None and xb.shape[1] != d:
        raise ValueError(f"{name} blocks must all have {d} columns, got {xb.shape[1]}")
    if not np.all(np.isfinite(xb)):
        raise ValueError(f"Input {name} contains NaN or infinity.")
    return xb


def load_source(est, X, y, block: int = DEFAULT_BLOCK):
    """Validate a fit's input for the estimator ``est`` (its ``_check_y`` codes the target), set
    ``est.n_features_in_``, and return ``(source, y_all, d)``: a numpy array or ``np.memmap`` is read in row
    blocks, a callable or iterator yields ``(X_block, y_block)`` pairs, a dask array becomes a ``DaskSource``."""
    check_sparse_input(type(est).__name__, X, accepted=True)  # a Dask array of sparse chunks: refused
    if is_dask_array(X):
        return _load_dask(est, X, y)
    if isinstance(X, np.memmap):
        if y is None:
            raise ValueError(f"{type(est).__name__} requires y to be passed, but the target y is None")
        if X.ndim != 2:
            raise ValueError(f"X must be 2-D, got ndim={X.ndim}")
        y = est._check_y(column_or_1d(y, warn=True))
        if y.shape[0] != X.shape[0]:
            raise ValueError(f"X has {X.shape[0]} rows but y has {y.shape[0]}")
        est.__dict__.pop("feature_names_in_", None)  # from an earlier fit on a DataFrame
        est.n_features_in_ = X.shape[1]
        src = Source(X, y, block)
        for xb, _ in src.raw():
            check_block(xb, X.shape[1])
        return src, y, X.shape[1]
    if callable(X) or (not isinstance(X, np.ndarray) and hasattr(X, "__next__")):
        if y is not None:
            raise ValueError("y must be None when X is a block stream: the blocks carry (X_block, y_block)")
        src = Source(X, None, block)
        ys, d = [], None
        for xb, yb in src.raw():
            xb = check_block(xb, d)
            d = xb.shape[1]
            yb = np.asarray(yb).ravel()
            if yb.shape[0] != xb.shape[0]:
                raise ValueError("every y block must have one entry per row of its X block")
            ys.append(yb)
        if d is None:
            raise ValueError("the block stream is empty")
        est.__dict__.pop("feature_names_in_", None)
        est.n_features_in_ = d
        src.labels = est._check_y(np.concatenate(ys))
        return src, src.labels, d
    if y is None:
        raise ValueError(f"{type(est).__name__} requires y to be passed, but the target y is None")
    X, y = validate_data(est, X, y, dtype=np.float64, y_numeric=est._task == "regression",
                         accept_sparse=("csr", "csc"))
    if is_sparse(X):
        X = as_csr(X, "X")  # CSC converted once (the passes read row blocks)
    y = est._check_y(y)
    return Source(X, y, block), y, X.shape[1]


def _load_dask(est, X, y):
    """A dask array X (rows chunked; chunk sizes known): validated lazily, y (numpy or dask) brought to the
    driver (O(n) labels; the masks, folds and targets of every problem are built from it as in memory)."""
    src = DaskSource(X)  # raises for a wrong ndim, unknown chunk sizes, no rows/columns, bad dtype
    if y is None:
        raise ValueError(f"{type(est).__name__} requires y to be passed, but the target y is None")
    if is_dask_array(y):
        y = y.compute()
    y = est._check_y(column_or_1d(y, warn=True))
    if y.shape[0] != src.n:
        raise ValueError(f"X has {src.n} rows but y has {y.shape[0]}")
    est.__dict__.pop("feature_names_in_", None)
    est.n_features_in_ = src.d
    return src, y, src.d


def input_scaling(src: Source | DaskSource, d: int, standardize: bool, w_rows: np.ndarray | None,
                  n: int) -> tuple[np.ndarray, np.ndarray]:
    """The standardization statistics (mean, scale) of the inputs (step 1: one streaming pass; weighted means and
    deviations with weights ``w_rows``, rows of weight 0 left out so a huge value there cannot overflow the sum); an
    in-memory source standardizes its blocks by them from then on."""
    if isinstance(src, DaskSource):  # dask reductions on the workers (and the finiteness check)
        mean, scale = src.moments(standardize, w_rows)
    elif standardize:
        mean, s2, _, unit = block_moments(src.raw_inputs, d, w_rows)
        scale = column_stds(s2, n, w_rows, unit)
        scale[scale == 0.0] = 1.0  # a NaN or infinity is left to the overflow check below
        src.mean, src.scale = mean, scale
    else:
        mean, scale = np.zeros(d), np.ones(d)
    if not (np.isfinite(mean).all() and np.isfinite(scale).all()):
        raise ValueError("X: the column means/standard deviations overflow float64 (|values| near 1e308); "
                         "rescale X before fitting")
    return mean, scale
