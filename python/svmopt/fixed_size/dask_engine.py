"""The Dask backend: out-of-core sums over dask arrays.

It holds the dask-array support of :class:`svmopt.FixedSizeLSSVC` / :class:`svmopt.FixedSizeLSSVR` (paper 002): the
Nyström features of each chunk and its partial sums ΦᵀΦ, Φᵀy (eq. (20)) and per-fold sums are computed by the C++
core on the worker that holds the chunk, then tree-reduced, so the driver only ever holds O(m²) numbers. With row
weights (``sample_weight``, ``class_weight``) each chunk sums ΦᵀWΦ, ΦᵀWy (the core scales its rows by √wᵢ) and the
weighted held-out losses, as the in-memory engine does.

Dask is optional (``pip install svmopt[dask]``): nothing in this module imports it at import time, and numpy-only
code paths never import it.
"""

from __future__ import annotations

import math
from typing import Any

import numpy as np

from svmopt import _core
from svmopt._shared.dask import (
    Box,
    add_sums,
    check_dask_array,
    column_moments,
    params_from_recipe,
    params_recipe,
    tree_reduce,
)
from svmopt._shared.moments import column_stds
from svmopt.fixed_size.cv_engine import CVEngine, make_room, remember
from svmopt.fixed_size.nystrom import (
    ParamsFactory,
    kernel_fold_models,
    kernel_fold_predict,
    linear_accumulator,
    nystrom_projection,
    resolve_statistics,
)
from svmopt.fixed_size.tuning import column_losses


def _make_accumulator(recipe: dict[str, Any] | Box) -> _core.fixed_size.FoldAccumulator:
    """The core's FoldAccumulator described by ``recipe`` (built on the worker)."""
    recipe = recipe.value if isinstance(recipe, Box) else recipe
    if recipe["PV"] is None:
        return linear_accumulator(recipe["n_features"], n_folds=recipe["n_folds"], n_targets=recipe["n_targets"],
                                  n_threads=recipe["n_threads"])
    return _core.fixed_size.FoldAccumulator(recipe["PV"], params_from_recipe(recipe["params"]), recipe["P"],
                                            n_folds=recipe["n_folds"], n_targets=recipe["n_targets"],
                                            n_threads=recipe["n_threads"], statistics=recipe["statistics"])


def _prepare_chunk(xb, mean, scale, mask) -> np.ndarray:
    """Standardize a raw chunk with the training statistics and keep the problem's rows (as the in-memory
    stream does: standardize the block, then select)."""
    xb = np.asarray(xb, dtype=np.float64)
    if mean is not None:
        xb = (xb - mean) / scale
    xb = np.ascontiguousarray(xb)
    if mask is not None:
        xb = np.ascontiguousarray(xb[mask])
    return xb


class _ChunkRows:
    """One problem's rows in one chunk: row mask (or None), targets Y (k columns), fold ids and row weights W (None:
    unweighted). A plain object, not a tuple, so that a persisted value is never mistaken for a task by the local
    schedulers."""

    __slots__ = ("W", "Y", "folds", "mask")

    def __init__(self, mask, Y, folds, W=None):
        self.mask, self.Y, self.folds, self.W = mask, Y, folds, W

    def __reduce__(self):
        return _ChunkRows, (self.mask, self.Y, self.folds, self.W)


def _n_threads(recipe) -> int:
    return (recipe.value if isinstance(recipe, Box) else recipe)["n_threads"]


def _chunk_sums(xb, rows: _ChunkRows, mean, scale, recipe: dict, keep_features: bool):
    """Worker task: features of one chunk and its per-fold partial sums (G_u, t_u, y_u^T y_u, counts); with row
    weights the weighted sums Phi_u^T W_u Phi_u, Phi_u^T W_u Y_u, sum w y^2 (the kept features ``phi`` and the counts
    unweighted)."""
    xb = _prepare_chunk(xb, mean, scale, rows.mask)
    acc = _make_accumulator(recipe)
    phi = np.empty((xb.shape[0], acc.dim)) if keep_features else None
    acc.add(xb, rows.Y, rows.folds, out=phi, weights=rows.W)
    return acc.results(raw=acc.kernel_statistics), phi


def _chunk_features(data, is_features: bool, rows: _ChunkRows, mean, scale, recipe: dict) -> np.ndarray:
    if is_features:
        return data
    return _make_accumulator(recipe).features(_prepare_chunk(data, mean, scale, rows.mask))


def _chunk_fold_outputs(data, is_features: bool, rows: _ChunkRows, mean, scale, recipe: dict, theta,
                        compact: bool = False) -> np.ndarray:
    """Every row of a chunk predicted by its own fold model. From a raw chunk under kernel statistics (or ``compact``,
    the gamma path's choice in Nystrom mode, as :meth:`svmopt.fixed_size.cv_engine.CVEngine.cost_path`): the kernel
    block times the fold models on [K(x, PV), 1] (theta_u mapped by P~), n m (d + v k) flops instead of the
    features' 2 n m m'."""
    r = recipe.value if isinstance(recipe, Box) else recipe
    if is_features or (r["statistics"] != "kernel" and not (compact and r["P"] is not None)):
        phi = _chunk_features(data, is_features, rows, mean, scale, recipe)
        return _core.fixed_size.fold_predict(phi, rows.folds, theta, _n_threads(recipe))
    V, bias = kernel_fold_models(r["P"], theta)
    return kernel_fold_predict(_prepare_chunk(data, mean, scale, rows.mask), r["PV"], params_from_recipe(r["params"]),
                               V, bias, rows.folds, r["n_threads"])


def _chunk_errors(data, is_features: bool, rows: _ChunkRows, mean, scale, recipe: dict, theta, task: str) -> float:
    """Worker task: summed CV error of one chunk's rows under their own fold models (squared errors for
    regression, misclassifications of sign(f), sign(0) = +1, for classification); eq. (19)-(21) before pooling.
    With row weights the weighted sum, sum_i w_i L_i over the chunk's rows (the k targets' losses added)."""
    f = _chunk_fold_outputs(data, is_features, rows, mean, scale, recipe, theta)
    if rows.W is not None:
        return float((rows.W @ column_losses(f, rows.Y, task)).sum())
    if task == "regression":
        return float(((rows.Y - f) ** 2).sum())
    return float((np.where(f >= 0, 1.0, -1.0) != rows.Y).sum())


def _chunk_path_errors(data, is_features: bool, rows: _ChunkRows, mean, scale, recipe: dict, theta,
                       task: str) -> np.ndarray:
    """Worker task: per column of the stacked fold models theta (v, p, g k: a gamma path, gamma major), the summed
    CV losses of one chunk's rows (weighted by the rows' weights if any), as :func:`_chunk_errors` for each column."""
    f = _chunk_fold_outputs(data, is_features, rows, mean, scale, recipe, theta, compact=True)
    losses = column_losses(f, rows.Y, task)
    return losses.sum(axis=0) if rows.W is None else rows.W @ losses


def _chunk_predictions(data, is_features: bool, rows: _ChunkRows, mean, scale, recipe: dict, theta) -> np.ndarray:
    return _chunk_fold_outputs(data, is_features, rows, mean, scale, recipe, theta)


class DaskSource:
    """A dask array ``X`` seen as a sequence of row chunks, each processed where it lives.

    The driver keeps only the chunk layout, the standardization statistics and O(m^2) reduced sums; chunks are
    read, standardized, mapped to Nyström features and accumulated by tasks on the workers.
    """

    is_dask = True

    def __init__(self, X):
        self.X = check_dask_array(X)
        self.n, self.d = int(self.X.shape[0]), int(self.X.shape[1])
        self.chunks = list(self.X.to_delayed().ravel())
        self.offsets = np.concatenate([[0], np.cumsum(self.X.chunks[0])]).astype(np.int64)
        self.mean = None
        self.scale = None

    def moments(self, standardize: bool, weights: np.ndarray | None = None) -> tuple[np.ndarray, np.ndarray]:
        """Check every entry is finite and, with ``standardize``, return the column means and (n-1)-normalized
        standard deviations (zero deviations replaced by 1), computed by dask reductions on the workers.

        ``weights`` (one per row, >= 0; zeros for rows left out of the fit): the weighted mean sum_i w_i x_i / W and
        deviation sqrt(sum_i w_i (x_i - mean)^2 / (W - min(1, sum_i w_i^2 / W))), W = sum_i w_i, the in-memory
        weighted statistics (:func:`svmopt._shared.validation.weighted_variance_denominator`), by
        :func:`column_moments`."""
        import dask.array as da

        X = self.X.astype(np.float64)
        if not standardize:
            if not bool(da.isfinite(X).all().compute()):
                raise ValueError("Input X contains NaN or infinity.")
            return np.zeros(self.d), np.ones(self.d)
        mean, s2, _, unit = column_moments(X, weights)
        scale = column_stds(s2, self.n, weights, unit)
        scale[scale == 0.0] = 1.0  # a NaN or infinity is left to the caller's overflow check
        self.mean, self.scale = mean, scale
        return mean, scale

    def gather(self, rows: np.ndarray) -> np.ndarray:
        """The standardized rows ``rows`` (sorted indices), fetched from the chunks that hold them only."""
        rows = np.asarray(rows, dtype=np.int64)
        if rows.size == self.n:
            Xc = np.asarray(self.X.compute(), dtype=np.float64)
        else:
            Xc = np.asarray(self.X[rows].compute(), dtype=np.float64)
        if self.mean is not None:
            Xc = (Xc - self.mean) / self.scale
        return np.ascontiguousarray(Xc)

    def problem_chunks(self, mask: np.ndarray | None, Y: np.ndarray, folds: np.ndarray,
                       weights: np.ndarray | None = None) -> list[tuple[Any, Any]]:
        """Per non-empty chunk of one problem: ``(delayed raw chunk, rows)`` with rows = (row mask or None, Y rows,
        fold ids, row weights or None), in row order: the same rows, targets, folds and weights the in-memory
        stream gives that chunk (``Y``, ``folds`` and ``weights`` hold the problem's rows, those of ``mask``). The
        ``rows`` are persisted (sent to the cluster once, then referenced by every pass)."""
        import dask
        from dask import delayed

        Y = np.asarray(Y, dtype=np.float64)
        W = None if weights is None else np.asarray(weights, dtype=np.float64)
        if W is not None and W.shape[0] != Y.shape[0]:
            raise ValueError(f"the problem has {Y.shape[0]} target rows but {W.shape[0]} weights")
        chunks, rows, t0 = [], [], 0
        for c, (r0, r1) in enumerate(zip(self.offsets[:-1], self.offsets[1:], strict=True)):
            mb = None if mask is None else np.ascontiguousarray(mask[r0:r1])
            k = int(r1 - r0) if mb is None else int(mb.sum())
            if k:
                chunks.append(self.chunks[c])
                rows.append(delayed(_ChunkRows, pure=True)(
                    mb, np.ascontiguousarray(Y[t0:t0 + k]), np.ascontiguousarray(folds[t0:t0 + k], dtype=np.int32),
                    None if W is None else np.ascontiguousarray(W[t0:t0 + k])))
            t0 += k
        if t0 != Y.shape[0]:
            raise ValueError(f"the problem has {Y.shape[0]} target rows but the mask selects {t0}")
        return list(zip(chunks, dask.persist(*rows), strict=True))

    def constants(self):
        """The standardization statistics as delayed constants (or None)."""
        from dask import delayed

        if self.mean is None:
            return None, None
        return delayed(self.mean, pure=True), delayed(self.scale, pure=True)


def _fold_sums(source: DaskSource, chunk_rows: list, recipe_d, keep_features: bool, split_every: int = 8,
               project: np.ndarray | None = None):
    """One pass: per-chunk sums (and features) on the workers, tree-reduced; ``recipe_d`` is the delayed
    accumulator description (persisted once per sigma^2 by :class:`DaskCVEngine`). ``project``: the recipe's P
    when its chunks accumulate kernel statistics (mapped to feature statistics here, once, after the reduction)."""
    import dask
    from dask import delayed

    mean, scale = source.constants()
    outs = [delayed(_chunk_sums, pure=True, nout=2)(xb, rows, mean, scale, recipe_d, keep_features)
            for xb, rows in chunk_rows]
    total = delayed(Box, pure=True)(tree_reduce([o[0] for o in outs], add_sums, split_every))
    features = None
    if keep_features:  # one graph: the features stay on the workers, the sums come back
        features, total = dask.persist([o[1] for o in outs], total)
    sums = tuple(np.asarray(a) for a in total.compute().value)
    if project is not None:
        sums = (*_core.fixed_size.project_statistics(sums[0], sums[1], project), *sums[2:])
    return sums, features


def fold_sums(source: DaskSource, Y: np.ndarray, folds: np.ndarray, n_folds: int, PV: np.ndarray | None,
              params: _core.kernels.KernelParams | None, P: np.ndarray | None, *, mask: np.ndarray | None = None,
              n_threads: int = 0, keep_features: bool = False, split_every: int = 8,
              statistics: str = "auto", weights: np.ndarray | None = None
              ) -> tuple[tuple[np.ndarray, ...], list[Any] | None]:
    """Per-fold sums G_u = Phi_u^T Phi_u, t_u = Phi_u^T Y_u, y_u^T y_u and counts over a dask array (eq. (20)).

    Each chunk's extended Nyström features [phi(x), 1] (eq. (5), projection ``P``) and partial sums are computed
    by the C++ core on the worker holding the chunk; the partial sums are tree-reduced (fan-in ``split_every``).

    Parameters
    ----------
    source : DaskSource
        The data (standardization statistics applied when set).
    Y : (n_rows,) or (n_rows, k) float array
        Targets of the selected rows, in row order.
    folds : int array
        Fold id of each selected row (``zeros`` and ``n_folds=1`` for the plain sums of (7)).
    PV, params, P
        Prototypes, core kernel parameters and Nyström projection; ``PV=None`` for explicit linear features.
    mask : bool array of length n or None
        Rows of the problem (one-vs-one pairs); None: all rows.
    keep_features : bool
        Also return the per-chunk features, persisted on the workers (list of delayed, or None).
    statistics : {"auto", "features", "kernel"}
        What the chunks sum: the features' statistics, or those of the kernel block [K(X, PV), 1], reduced and
        then mapped by ``P`` once (``FoldAccumulator``); the results are the features' statistics either way.
    weights : (n_rows,) float array or None
        Weight (finite, > 0) of each selected row, in row order: the weighted sums G_u = Phi_u^T W_u Phi_u,
        t_u = Phi_u^T W_u Y_u, sum w y^2 (``counts`` and the kept features unweighted). None: unweighted.

    Returns
    -------
    (G (v,p,p), t (v,p,k), yy (v,k), counts (v,)), features
    """
    folds = np.ascontiguousarray(folds, dtype=np.int32)
    Y = np.ascontiguousarray(np.asarray(Y, dtype=np.float64).reshape(folds.shape[0], -1))
    if folds.size and (folds.min() < 0 or folds.max() >= n_folds):
        raise ValueError(f"folds must lie in [0, {n_folds}), got [{folds.min()}, {folds.max()}]")
    PV = None if PV is None else np.asarray(PV, dtype=np.float64)
    P = None if P is None else np.asarray(P, dtype=np.float64)
    statistics = resolve_statistics(P, Y.shape[1], statistics)
    recipe = {"PV": PV, "params": params_recipe(params), "P": P, "n_folds": int(n_folds), "n_targets": Y.shape[1],
            "n_features": source.d, "n_threads": int(n_threads), "statistics": statistics}
    from dask import delayed

    return _fold_sums(source, source.problem_chunks(mask, Y, folds, weights), delayed(Box, pure=True)(recipe),
                      keep_features, split_every, project=P if statistics == "kernel" else None)


class DaskCVEngine(CVEngine):
    """:class:`svmopt.fixed_size.cv_engine.CVEngine` over a dask array: the same fast v-fold CV (19)-(21) and final fit
    (7), with each streaming pass replaced by one dask graph over the chunks (partial sums tree-reduced; CV errors
    summed per chunk on the workers).

    Folds are assigned per row exactly as in the in-memory path (``folds`` in row order of the problem), so with
    the same prototypes and (gamma, sigma^2) the statistics, CV costs and solution agree with the in-memory
    engine up to floating-point summation order. When the features fit ``feature_budget`` (n p 8 bytes) they are
    kept on the workers (persisted) between the cost evaluations of one sigma^2; otherwise each
    evaluation recomputes them from the chunks (the blocked Algorithm 3B, one more pass).

    ``weights`` (one per problem row, finite and > 0; as :class:`CVEngine`): each chunk's rows enter its fold sums
    with their weights (Phi_u^T W_u Phi_u, Phi_u^T W_u Y_u), the chunks return weighted held-out loss sums, and the
    pooled cost is sum_i w_i L_i / (k sum_i w_i).
    """

    def __init__(self, source: DaskSource, Y: np.ndarray, mask: np.ndarray | None, folds: np.ndarray, n_folds: int,
                 PV: np.ndarray | None, make_params: ParamsFactory, task: str, **kwargs: Any):
        super().__init__(None, folds, n_folds, PV, make_params, task, **kwargs)
        self.holdout = False  # the fold models are solved here and sent to the workers (per-fold statistics)
        self.source = source
        self.Y = np.ascontiguousarray(np.asarray(Y, dtype=np.float64).reshape(self.n, -1))
        self.mask = mask
        self.k = self.Y.shape[1]
        self._chunk_rows: list[tuple[Any, Any]] | None = None

    def _rows(self) -> list[tuple[Any, Any]]:
        if self._chunk_rows is None:
            self._chunk_rows = self.source.problem_chunks(self.mask, self.Y, self.folds, self.w)
        return self._chunk_rows

    def stats(self, sigma2: float) -> dict[str, Any]:
        """Per-fold statistics for one sigma^2 (cached), as :meth:`CVEngine.stats`; ``Phi`` is the list of
        per-chunk features persisted on the workers (or None over the feature budget)."""
        key = float(sigma2)
        cached = self._cached(key)
        if cached is not None:
            return cached
        params = None
        if self.PV is None:
            P, p = None, self.source.d + 1
        else:
            params = self.make_params(sigma2)
            P, _ = nystrom_projection(self.PV, params, self.n_threads)
            p = P.shape[1] + 1
        keep_phi = self.n * p * 8 <= self.feature_budget
        make_room(self._cache, self.n * p * 8 if keep_phi else 0, self.feature_budget)  # on the workers
        statistics = resolve_statistics(P, self.k, self.statistics)
        recipe = {"PV": self.PV, "params": params_recipe(params), "P": P, "n_folds": self.v, "n_targets": self.k,
                "n_features": self.source.d, "n_threads": self.n_threads, "statistics": statistics}
        import dask
        from dask import delayed

        (recipe_d,) = dask.persist(delayed(Box, pure=True)(recipe))  # PV and P go to the cluster once per sigma^2
        self.n_passes += 1
        (G, t, yy, counts), Phi = _fold_sums(self.source, self._rows(), recipe_d, keep_phi,
                                             project=P if statistics == "kernel" else None)
        entry = {"G": G, "t": t, "yy": yy, "counts": counts, "P": P, "Phi": Phi, "recipe": recipe_d,
                 "kept_bytes": self.n * p * 8 if keep_phi else 0}
        remember(self._cache, key, entry, self.cache_size)
        return entry

    def _chunk_tasks(self, s: dict, theta: np.ndarray, func, *extra) -> list:
        from dask import delayed

        recipe_d = s["recipe"]
        theta_d = delayed(theta, pure=True)
        mean, scale = self.source.constants()
        tasks = []
        for i, (xb, rows) in enumerate(self._rows()):
            data, is_phi = (s["Phi"][i], True) if s["Phi"] is not None else (xb, False)
            tasks.append(delayed(func, pure=True)(data, is_phi, rows, mean, scale, recipe_d, theta_d, *extra))
        if s["Phi"] is None:
            self.n_passes += 1
        return tasks

    def _pooled_error(self, gamma: float, sigma2: float) -> float:
        import dask

        s = self.stats(sigma2)
        theta = self._fold_models(s, gamma)
        errs = dask.compute(*self._chunk_tasks(s, theta, _chunk_errors, self.task))
        return float(math.fsum(errs)) / (self.total * self.k)  # total: the rows, or the weight sum

    def _path_error_sums(self, s: dict, theta: np.ndarray, sigma2: float) -> np.ndarray:
        """Summed (weighted) held-out losses of every column of the stacked fold models (a gamma path), summed per
        chunk on the workers: one pass for the whole path."""
        import dask

        errs = dask.compute(*self._chunk_tasks(s, theta, _chunk_path_errors, self.task))
        return np.sum(errs, axis=0)

    def predictions(self, gamma: float, sigma2: float) -> tuple[np.ndarray, np.ndarray]:
        """CV predictions of every row by its own fold model (gathered on the driver: O(n)), and the targets."""
        import dask

        s = self.stats(sigma2)
        theta = self._fold_models(s, gamma)
        F = dask.compute(*self._chunk_tasks(s, theta, _chunk_predictions))
        return np.concatenate(F), self.Y
