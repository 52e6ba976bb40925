"""Dask support shared by every family: recognising and checking dask arrays, weighted column moments, a method mapped
over row chunks, picklable kernel descriptions for worker tasks, the tree reduction of partial sums, and the
cutting-plane pass of :mod:`svmopt._shared.cutting_plane` over a dask array's chunks.

A Dask array whose chunks are scipy sparse matrices (:func:`has_sparse_chunks`, e.g.
``da.from_array(csr, chunks=(k, d), asarray=False)``) is read chunk by chunk without densifying one: the cutting-plane
pass runs :func:`svmopt._shared.sparse.sparse_cut_pass` on each chunk, and :func:`finite_column_max`,
:func:`reduce_row_chunks` and :func:`chunk_dot` give the column maxima, any per-chunk sums and ``X @ w`` over the
stored values (dask's own reductions and products call numpy functions that scipy sparse chunks do not take).

Dask is optional (``pip install svmopt[dask]``): nothing in this module imports it at import time, and numpy-only
code paths never import it.
"""

from __future__ import annotations

import math
import sys
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

import numpy as np
import scipy.sparse as sp

from svmopt import _core
from svmopt._shared.moments import power_of_two_unit
from svmopt._shared.sparse import as_csr, sparse_cut_pass


def is_dask_array(obj: Any) -> bool:
    """True when ``obj`` is a ``dask.array.Array`` (checked without importing dask: a dask array cannot exist
    unless the user imported ``dask.array``)."""
    da = sys.modules.get("dask.array")
    return da is not None and isinstance(obj, da.Array)


def has_sparse_chunks(obj: Any) -> bool:
    """True when ``obj`` is a Dask array whose chunks are scipy sparse matrices (its ``_meta`` is one)."""
    return is_dask_array(obj) and sp.issparse(getattr(obj, "_meta", None))


# ============================================================================================ dask arrays
def check_dask_array(X: Any, name: str = "X", *, ndim: int = 2) -> Any:
    """Validate a dask array for a streaming fit and return it with one chunk across the columns.

    Raises ``ValueError`` (before any computation) for a wrong dimensionality, unknown chunk sizes along the rows
    (e.g. after boolean indexing: call ``X.compute_chunk_sizes()`` first), no rows, no columns, or a complex dtype;
    ``TypeError`` for a non-numeric dtype.
    """
    if X.ndim != ndim:
        raise ValueError(f"{name} must be a {ndim}-D dask array, got ndim={X.ndim}")
    if any(isinstance(c, float) and math.isnan(c) for cs in X.chunks for c in cs):
        raise ValueError(f"{name} is a dask array with unknown chunk sizes {X.chunks}; call "
                         f"{name}.compute_chunk_sizes() (or rechunk to known sizes) before passing it")
    if np.issubdtype(X.dtype, np.complexfloating):
        raise ValueError(f"Complex data not supported in {name}")
    if not (np.issubdtype(X.dtype, np.number) or X.dtype == np.bool_):
        raise TypeError(f"{name} must have a numeric dtype, got {X.dtype}")
    if X.shape[0] < 1:
        raise ValueError(f"{name} has 0 rows; at least 1 is required")
    if ndim == 2:
        if X.shape[1] < 1:
            raise ValueError(f"{name} has 0 features; at least 1 is required")
        if X.numblocks[1] > 1:
            X = X.rechunk({1: -1})
    return X


def column_moments(X: Any,
                   weights: np.ndarray | None = None) -> tuple[np.ndarray, np.ndarray, float, np.ndarray]:
    """``(mean, s2, W, unit)`` of a float64 dask array ``X`` by dask reductions on the workers, once every entry is
    checked finite (a ``ValueError`` otherwise): the column means sum_i w_i x_i / W, the sums of squared deviations
    in ``unit`` (a power of two per column), sum_i w_i ((x_i - mean) / unit)^2, and W = sum_i w_i (w_i = 1 and W = n
    without ``weights``; rows of weight 0 add exactly 0). Two passes: the sums, magnitudes and the check, then the
    deviations. ``weights`` (one per row, >= 0) travel as a dask array chunked like X's rows, so each chunk is
    weighted where it is. The in-memory counterpart: :func:`svmopt._shared.moments.block_moments`."""
    import dask
    import dask.array as da

    n = X.shape[0]
    Wd = None
    if weights is not None:
        weights = np.ascontiguousarray(weights, dtype=np.float64)
        if weights.shape != (n,):
            raise ValueError(f"weights must have shape ({n},), got {weights.shape}")
        Wd = da.from_array(weights, chunks=(X.chunks[0],))[:, None]
    absX = abs(X) if Wd is None else da.where(Wd > 0, abs(X), 0.0)
    s1, ok, absmax = dask.compute(X.sum(axis=0) if Wd is None else (Wd * X).sum(axis=0), da.isfinite(X).all(),
                                  absX.max(axis=0))
    if not bool(ok):
        raise ValueError("Input X contains NaN or infinity.")
    total = float(n) if weights is None else float(weights.sum())
    mean = np.asarray(s1, dtype=np.float64) / total
    unit = power_of_two_unit(np.asarray(absmax))
    dev = ((X - mean) / unit) ** 2
    if Wd is not None:
        dev = da.where(Wd > 0, Wd * dev, 0.0)  # not 0 * inf for a row of weight 0
    return mean, np.asarray(dev.sum(axis=0).compute(), dtype=np.float64), total, unit


def map_row_chunks(estimator: Any, method: str, X: Any, n_outputs: int) -> np.ndarray:
    """``getattr(estimator, method)`` on each row chunk of the dask array X, run where the chunk is and gathered
    here (n x n_outputs float64): a fitted estimator's predictions on a dask array. X is checked first
    (:func:`check_dask_array`, then its column count against ``estimator.n_features_in_``)."""
    from dask import delayed

    X = check_dask_array(X)
    if X.shape[1] != estimator.n_features_in_:
        raise ValueError(f"X has {X.shape[1]} features, but {type(estimator).__name__} is expecting "
                         f"{estimator.n_features_in_} features as input")
    out = X.map_blocks(_method_on_chunk, delayed(estimator, pure=True), method, dtype=np.float64,
                       chunks=(X.chunks[0], (n_outputs,)), meta=np.empty((0, n_outputs)))
    return np.asarray(out.compute())


def _method_on_chunk(xb, estimator, method: str) -> np.ndarray:
    """Worker task of :func:`map_row_chunks`: the method on one row chunk (a 1-D result as one column); a scipy
    sparse chunk is passed as it is (never densified)."""
    out = np.asarray(getattr(estimator, method)(xb if sp.issparse(xb) else np.asarray(xb)), dtype=np.float64)
    return out.reshape(out.shape[0], -1)


ParamsRecipe = tuple[str, int, float, float, float, float]


def params_recipe(params: _core.kernels.KernelParams | None) -> ParamsRecipe | None:
    """A picklable description of a core ``KernelParams`` (the pybind object itself does not pickle)."""
    if params is None:
        return None
    return (params.kind.name, int(params.degree), float(params.c), float(params.alpha), float(params.a),
            float(params.b))


def params_from_recipe(recipe: ParamsRecipe) -> _core.kernels.KernelParams:
    kind, degree, c, alpha, a, b = recipe
    return _core.kernels.KernelParams(_core.kernels.KernelKind.__members__[kind], degree=degree, c=c, alpha=alpha,
                                      a=a, b=b)


class Box:
    """A value boxed so that, persisted, it is never mistaken for a task by the local schedulers (which read a
    tuple or dict in a graph as a task or a container of tasks)."""

    __slots__ = ("value",)

    def __init__(self, value):
        self.value = value

    def __reduce__(self):
        return Box, (self.value,)


def add_sums(*parts):
    """Combine partial sums (tuples of arrays) elementwise; one node of the reduction tree."""
    out = [np.array(a, copy=True) for a in parts[0]]
    for p in parts[1:]:
        for o, a in zip(out, p, strict=True):
            o += a
    return tuple(out)


def tree_reduce(parts: list, combine: Callable, split_every: int = 8):
    """Reduce delayed ``parts`` with ``combine`` over a tree of fan-in ``split_every`` (depth log_k(#chunks)),
    so no single task receives every chunk's m x m partial sum."""
    from dask import delayed

    if not parts:
        raise ValueError("nothing to reduce: every chunk is empty")
    while len(parts) > 1:
        parts = [delayed(combine, pure=True)(*parts[i:i + split_every]) for i in range(0, len(parts), split_every)]
    return parts[0]


# ============================================================================================ sparse chunks
def _stored(xb) -> tuple[np.ndarray, np.ndarray]:
    """``(columns, values)`` of the stored entries of a scipy sparse chunk (explicit zeros included)."""
    if xb.format == "csr":
        return xb.indices, xb.data
    coo = xb.tocoo()
    return coo.col, coo.data


def _chunk_abs_max(xb, d: int) -> tuple[np.ndarray, np.ndarray]:
    """Worker task of :func:`finite_column_max`: ``([any stored value not finite], max |x_ik| per column)``."""
    cols, vals = _stored(xb)
    out = np.zeros(d)
    if not np.all(np.isfinite(vals)):
        return np.ones(1), out
    np.maximum.at(out, cols, np.abs(vals))
    return np.zeros(1), out


def max_parts(*parts):
    """Combine partial maxima (tuples of arrays) elementwise; one node of a reduction tree."""
    out = [np.array(a, copy=True) for a in parts[0]]
    for p in parts[1:]:
        for o, a in zip(out, p, strict=True):
            np.maximum(o, a, out=o)
    return tuple(out)


def reduce_row_chunks(X: Any, func: Callable, *row_arrays: np.ndarray | None, args: tuple = (),
                      combine: Callable = add_sums) -> tuple:
    """``func(chunk, *its slices of row_arrays, *args)`` (a tuple of arrays) on each row chunk of the Dask array X
    where the chunk is, the parts combined by a tree (:func:`tree_reduce`; ``combine`` :func:`add_sums` or
    :func:`max_parts`) and computed. ``row_arrays``: arrays of one entry per row (or None), sliced by the chunks;
    ``func`` must be a module-level function (it travels to the workers)."""
    from dask import delayed

    parts, r0 = [], 0
    for xb, nb in zip(X.to_delayed().ravel(), X.chunks[0], strict=True):
        rows = [None if a is None else a[r0:r0 + nb] for a in row_arrays]
        parts.append(delayed(func, pure=True)(xb, *rows, *args))
        r0 += nb
    return tree_reduce(parts, combine).compute()


def finite_column_max(X: Any) -> np.ndarray:
    """``max_i |x_ik|`` per column of a Dask array (one chunk across the columns) where its chunks are, once every
    entry is checked finite (a ValueError otherwise), in one pass over the chunks; for scipy sparse chunks over each
    chunk's stored values (an implicit zero does not raise a maximum of ``|x|``)."""
    if has_sparse_chunks(X):
        bad, top = reduce_row_chunks(X, _chunk_abs_max, args=(int(X.shape[1]),), combine=max_parts)
        finite = not bad[0]
    else:
        import dask.array as da

        finite, top = da.compute(da.isfinite(X).all(), da.abs(X).max(axis=0))
    if not bool(finite):
        raise ValueError("Input X contains NaN or infinity.")
    return np.asarray(top, dtype=np.float64)


def _chunk_dot(xb, w: np.ndarray) -> np.ndarray:
    return np.asarray(xb @ w, dtype=np.float64).ravel()


def chunk_dot(X: Any, w: np.ndarray) -> np.ndarray:
    """``X @ w`` (n floats, gathered here) for a Dask array of dense or scipy sparse chunks (one chunk across the
    columns), each chunk's product where it is (over its nonzeros for a sparse one)."""
    w = np.ascontiguousarray(w, dtype=np.float64)
    out = X.map_blocks(_chunk_dot, w, drop_axis=1, dtype=np.float64, chunks=(X.chunks[0],), meta=np.empty(0))
    return np.asarray(out.compute(), dtype=np.float64)


# ============================================================================================ cutting-plane passes
@dataclass
class GroupSums:
    """The sums of one cutting-plane pass (the fields of ``_core.cutting_plane.CutSums``), as reduced over the chunks of
    a Dask array."""

    a_groups: np.ndarray
    b_groups: np.ndarray
    e_groups: np.ndarray
    n_c_groups: np.ndarray
    hinge_groups: np.ndarray

    @property
    def n_c(self) -> float:
        return float(self.n_c_groups.sum())

    @property
    def hinge(self) -> float:
        return float(self.hinge_groups.sum())


def _chunk_cut_pass(xb, yb, db, ob, v, gamma, S, Z, recipe, n_groups, row_offset, n_total, wb=None):
    """One chunk's part of a pass (on the worker that holds it): the group sums and the chunk's scores. ``Z`` None:
    the chunk's rows are Phi's rows themselves (the linear models); a scipy sparse chunk of them is read by
    :func:`svmopt._shared.sparse.sparse_cut_pass` over its nonzeros (the same sums, the same global groups)."""
    scores = np.empty(xb.shape[0])
    if sp.issparse(xb):
        if Z is not None:
            raise TypeError("X is a Dask array of scipy sparse chunks: the kernel rows K(X, Z) of a pass are computed "
                            "from dense chunks only")
        sums = sparse_cut_pass(as_csr(xb, "X"), yb, v, gamma, S, delta=db, offset=ob, weight=wb, n_groups=n_groups,
                               scores_out=scores, row_offset=row_offset, n_total=n_total)
        return sums, scores
    rows: dict[str, Any] = {"Phi": np.asarray(xb, dtype=np.float64)} if Z is None else {
        "X": np.asarray(xb, dtype=np.float64), "Z": Z, "params": params_from_recipe(recipe)}
    cut = _core.cutting_plane.cut_pass(yb, v, gamma, S, delta=db, offset=ob, scores_out=scores, n_groups=n_groups,
                                       row_offset=row_offset, n_total=n_total, weight=wb, **rows)
    return (cut.a_groups, cut.b_groups, cut.e_groups, cut.n_c_groups, cut.hinge_groups), scores


def dask_cut_pass(X, y, delta, offset, v, gamma, S, Z, params, n_groups, weight=None) -> tuple[GroupSums, np.ndarray]:
    """A cutting-plane pass (``_core.cutting_plane.cut_pass``) over a Dask array: each chunk's sums computed by the
    core where the chunk is (by :func:`svmopt._shared.sparse.sparse_cut_pass` for a scipy sparse chunk), tree-reduced;
    the scores (n floats) gathered in row order."""
    import dask
    from dask import delayed

    n, recipe = X.shape[0], params_recipe(params)
    parts, r0 = [], 0
    for xb, nb in zip(X.to_delayed().ravel(), X.chunks[0], strict=True):
        db = None if delta is None else delta[r0:r0 + nb]
        ob = None if offset is None else offset[r0:r0 + nb]
        wb = None if weight is None else weight[r0:r0 + nb]
        parts.append(delayed(_chunk_cut_pass, nout=2, pure=True)(xb, y[r0:r0 + nb], db, ob, v, gamma, S, Z,
                                                                 recipe, n_groups, r0, n, wb))
        r0 += nb
    sums = tree_reduce([p[0] for p in parts], add_sums)
    total, scores = dask.compute(sums, [p[1] for p in parts])
    return GroupSums(*total), np.concatenate(scores)
