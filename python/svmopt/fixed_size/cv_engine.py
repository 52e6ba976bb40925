"""The fast v-fold cross-validation of the fixed-size LS-SVM (paper 002, Section 6.1, Algorithm 3).

* :class:`CVEngine` -- the fast v-fold CV ((19)-(21), realized with per-fold statistics G_u = Phi_u^T Phi_u so that
  the fold products of (20) come with the single pass) over a stream of row blocks: one pass over the data per
  sigma^2 collects the per-fold Phi_u^T Phi_u, Phi_u^T Y_u (C++ blockwise accumulation); each gamma then costs v
  Cholesky solves plus the residuals. With the features over the memory budget it runs the blocked Algorithm 3B
  (second pass for the residuals, or the SSE shortcut for the MSE when it does not cancel). With per-row weights
  (``sample_weight``, ``class_weight``) the same engine sums Phi_u^T W_u Phi_u, Phi_u^T W_u Y_u in the core and
  scores the weighted mean of the held-out losses. A few sigma^2's statistics are cached (:func:`make_room`,
  :func:`remember`: least recently used first out, within the feature budget).
* :class:`CoreCVEngine` -- the same costs of rows held in memory computed in the core (``_core.fixed_size.CVCost``),
  with CSA + simplex run there too (``_core.fixed_size.tune_cv``).
* :func:`simple_cv_cost` -- the "simple" CV the paper compares against (Tables 3-4): everything recomputed per
  fold.

For dask arrays, :class:`svmopt.fixed_size.dask_engine.DaskCVEngine` is the same engine with each streaming pass
replaced by a dask graph over the chunks (per-chunk fold sums on the workers, tree-reduced).
"""

from __future__ import annotations

import math
from collections import OrderedDict
from collections.abc import Callable, Iterable, Iterator
from typing import Any

import numpy as np

from svmopt import _core
from svmopt.fixed_size.nystrom import (
    Block,
    BlockFactory,
    ParamsFactory,
    Statistics,
    kernel_fold_models,
    kernel_fold_predict,
    linear_accumulator,
    nystrom_projection,
)
from svmopt.fixed_size.tuning import (
    TuningResult,
    column_groups,
    column_losses,
    fold_sum_sse,
    path_cost_vector,
    stack_fold_models,
    tuning_result,
)


def holdout_cheaper(n: int, p: int, v: int) -> bool:
    """Whether the holdout identity (``_core.fixed_size.fast_cv_holdout``) beats v Cholesky solves (``acc.fold_solve``):
    its flops p^3/3 + n p^2 + n (n/v) (p + n/(3v)) below 2 times v p^3/3. The factor is measured: the blocked triangular
    solves and rank updates of the holdout form run at a higher flop rate than v small Cholesky factorizations, and the
    factor 2 picked the faster form in every cell measured (the figures are in
    docs/performance.md#fixed-size-design-figures). True for many small
    folds next to p; false whenever n >> p (magic at any v)."""
    return _core.fixed_size.holdout_cheaper(int(n), int(p), int(v))



def make_room(cache: OrderedDict, new_bytes: int, budget: int) -> None:
    """Drop the least recently used entries of a per-sigma^2 ``cache`` that hold features (``"kept_bytes"``) until
    they and a new entry's ``new_bytes`` fit ``budget`` together: the features held at once, over every sigma^2
    remembered, stay within the feature budget (each entry alone may take all of it)."""
    if new_bytes <= 0:
        return
    held = sum(e.get("kept_bytes", 0) for e in cache.values())
    for key in list(cache):  # least recently used first
        if held + new_bytes <= budget:
            break
        dropped = cache[key].get("kept_bytes", 0)
        if dropped:
            del cache[key]
            held -= dropped


def remember(cache: OrderedDict, key: float, entry: dict, size: int) -> None:
    """Put a sigma^2's ``entry`` in ``cache`` as the most recently used, keeping at most ``size`` entries."""
    cache[key] = entry
    while len(cache) > size:
        cache.popitem(last=False)


class _FoldStats(dict):
    """A :meth:`CVEngine.stats` entry: the accumulator (``acc``), ``P``, ``Phi``, ``holdout``, ``kept`` (the
    accumulator keeps the features: the CV predictions come from ``acc.predict_kept``, and ``Phi`` in stream order is
    built only when asked for, an n x p copy), ``Y`` (the targets in stream order, present when the features are kept
    or ``holdout``), ``kept_bytes`` (what the entry holds, counted against the feature budget); the per-fold arrays
    ``G`` (v, p, p), ``t``, ``yy``, ``counts`` are copied out of the accumulator on first use only (the fold solves
    run on the accumulator's own statistics: the copy alone had cost a noticeable share of an evaluation at many
    folds and large p; docs/performance.md#fixed-size-design-figures)."""

    def __missing__(self, key):
        if key == "Phi":  # stream-ordered Phi_e on demand, from features the accumulator kept (else None): a copy,
            return self["acc"].kept_features() if self.get("kept") else None  # not kept (the budget holds one)
        if key not in ("G", "t", "yy", "counts"):
            raise KeyError(key)
        G, t, yy, counts = self["acc"].results()
        self.update(G=G, t=t, yy=yy, counts=counts)
        return self[key]


class CVEngine:
    """Fast v-fold CV of one binary/regression FS-LSSVM problem over a re-iterable stream of row blocks.

    Parameters
    ----------
    blocks : callable returning an iterator of ``(X_block, Y_block)`` (float64, C order, Y 2-D with k columns);
        every call must yield the same rows in the same order. None for a subclass that makes its passes itself
        (:class:`svmopt.fixed_size.dask_engine.DaskCVEngine`).
    folds : int32 array, fold id of every row (in stream order).
    PV : prototype vectors (m x d), or None for explicit linear features (the inputs themselves: ``n_features``
        is then required).
    make_params : sigma2 -> core KernelParams (ignored for explicit linear features).
    task : "classification" (misclassification rate of sign(f), sign(0) = +1) or "regression" (MSE).
    feature_budget : bytes allowed for what a sigma^2's statistics keep in memory: Phi_e (or the kernel block) and
        the targets in stream order (default 1 GiB; the paper's machine had 3.2 GB); above, blocked Algorithm 3B.
    statistics : "auto", "features" or "kernel": what the accumulator sums per fold (``FoldAccumulator``):
        Phi_u^T Phi_u, or C_u^T C_u of the kernel block C = [K(X, PV), 1] mapped by P once per sigma^2 (n m^2
        flops a pass instead of 2 n m m' + n m'^2); "auto": the kernel block where the core prefers it.
    weights : None, or one finite weight w_i > 0 per row (stream order): weighted least squares (``sample_weight``
        / ``class_weight``), row i entering every sum with its weight, so that the model minimises
        sum_i w_i (y_i - phi_e(x_i)^T theta)^2 + theta^T R theta / gamma. The accumulator sums
        G_u = Phi_u^T W_u Phi_u, t_u = Phi_u^T W_u Y_u and yy_u = sum w y^2 (``FoldAccumulator.add(weights=...)``:
        the bias column included, either statistics), the fold models (20)-(21) and the final fit (7) are the ridge
        solves on these sums, and the CV cost is the weighted mean of the held-out losses,
        sum_i w_i L_i / (k sum_i w_i) over the k targets (squared error, or the misclassification of sign(f)); a
        streamed regression takes the weighted SSE from the fold sums, divided by k sum_i w_i.

    Fold solves: v Cholesky factorizations of (20)-(21) (``_core.fixed_size.fast_cv_solve``), or, when Phi_e is in
    memory and :func:`holdout_cheaper` says so (many folds that are small next to p), the holdout identity from one
    factorization of the whole-data system (``_core.fixed_size.fast_cv_holdout``); the two give the same predictions
    to rounding (tests/fixed_size/test_tuning.py). ``holdout`` is the attribute that decides (set it to False to force
    the per-fold form); weighted engines always take the per-fold form.
    """

    def __init__(self, blocks: BlockFactory | None, folds: np.ndarray, n_folds: int, PV: np.ndarray | None,
                 make_params: ParamsFactory, task: str, *, n_targets: int = 1, regularize_bias: bool = True,
                 feature_budget: int = 1 << 30, n_threads: int = 0, cache_size: int = 4, n_features: int | None = None,
                 progress: Callable[[Iterable[Block]], Iterable[Block]] | None = None,
                 statistics: Statistics = "auto", weights: np.ndarray | None = None):
        self.blocks = blocks
        self.folds = np.ascontiguousarray(folds, dtype=np.int32)
        self.n = self.folds.size
        self.v = int(n_folds)
        self.w: np.ndarray | None = None
        if weights is not None:
            self.w = np.ascontiguousarray(weights, dtype=np.float64)
            if self.w.shape != (self.n,) or not np.all(np.isfinite(self.w)) or not np.all(self.w > 0):
                raise ValueError("weights must hold one finite weight > 0 per row")
        # The denominator of the pooled CV cost (before the k targets): the rows, or the weight sum.
        self.total = float(self.n) if self.w is None else float(self.w.sum())
        self.PV = None if PV is None else np.asarray(PV, dtype=np.float64)
        self.make_params = make_params
        self.task = task
        self.k = int(n_targets)
        self.regularize_bias = regularize_bias
        self.feature_budget = feature_budget
        self.n_features = n_features
        self.statistics = statistics
        # p before the small eigenpairs are dropped
        if self.PV is not None:
            p = self.PV.shape[0] + 1
        elif n_features is not None:
            p = n_features + 1
        else:
            raise TypeError(f"{type(self).__name__}: n_features is required with explicit linear features (PV=None)")
        self.p_max = p
        # Small problems run on one thread: an OpenMP barrier costs milliseconds on a loaded machine.
        self.n_threads = 1 if self.n * p * p < 2e8 else n_threads
        # In memory, small folds are solved by the holdout identity from the whole-data system (one factorization
        # instead of v); the fold statistics are then the whole-data G, t only (one fold in the accumulator). It works
        # on the rows of Phi_e unweighted: weighted engines solve the folds.
        self.holdout = PV is not None and self.w is None and holdout_cheaper(self.n, p, self.v)
        self._cache: OrderedDict[float, dict[str, Any]] = OrderedDict()
        self.cache_size = cache_size
        self.n_passes = 0
        self.n_evals = 0
        self.progress = progress

    def _kept_bytes(self, holdout: bool) -> int:
        """Bytes of features a sigma^2's statistics hold, with the targets in stream order: Phi_e (the holdout
        identity), else what the accumulator keeps per row when that fits the budget -- the features, or the kernel
        block [K(x, PV), 1, Y] with kernel statistics (m + 1 + k doubles: the core's
        FoldAccumulator::kept_row_doubles, the bound for both) -- else nothing (streamed)."""
        row = self.p_max if holdout or self.PV is None else self.PV.shape[0] + 1 + self.k
        held = self.n * (row + self.k) * 8  # with the targets in stream order
        return held if holdout or held <= self.feature_budget else 0

    def _cached(self, key: float) -> dict[str, Any] | None:
        """The statistics cached for ``key`` (a sigma^2), made the most recently used; None when absent."""
        entry = self._cache.get(key)
        if entry is not None:
            self._cache.move_to_end(key)
        return entry

    def keeps_rows(self) -> bool:
        """Whether a sigma^2's statistics keep the rows in memory (within the feature budget), so that a CV cost
        needs no second pass over the data."""
        return self._kept_bytes(False) > 0

    def _accumulator(self, sigma2: float, n_folds: int,
                     keep: bool) -> tuple[_core.fixed_size.FoldAccumulator, np.ndarray | None]:
        """The accumulator for one sigma^2 and its P; ``keep``: let it keep the features (``keep_features``) when
        they fit the feature budget."""
        keep = keep and self._kept_bytes(False) > 0
        if self.PV is None:
            d = self.p_max - 1  # the explicit features: the n_features inputs
            return linear_accumulator(d, n_folds=n_folds, n_targets=self.k, n_threads=self.n_threads,
                                      keep_features=keep), None
        params = self.make_params(sigma2)
        P, _ = nystrom_projection(self.PV, params, self.n_threads)
        return _core.fixed_size.FoldAccumulator(self.PV, params, P, n_folds=n_folds, n_targets=self.k,
                                                n_threads=self.n_threads, keep_features=keep,
                                                statistics=self.statistics), P

    def _iter(self) -> Iterator[tuple[int, np.ndarray, np.ndarray]]:
        if self.blocks is None:
            raise TypeError(f"{type(self).__name__} has no block stream")
        r0 = 0
        it = self.blocks()
        if self.progress is not None:
            it = self.progress(it)
        for Xb, Yb in it:
            yield r0, np.asarray(Xb, dtype=np.float64), np.asarray(Yb, dtype=np.float64)
            r0 += Xb.shape[0]
        if r0 != self.n:
            raise ValueError(f"the block stream yielded {r0} rows, expected {self.n}; it must be re-iterable")

    def stats(self, sigma2: float) -> dict[str, Any]:
        """Per-fold statistics for one sigma^2 (cached): G (v,p,p), t (v,p,k), yy, counts, P, Phi (or None)."""
        key = float(sigma2)
        cached = self._cached(key)
        if cached is not None:
            return cached
        holdout = self.holdout and self.n * (self.p_max + self.k) * 8 <= self.feature_budget
        # Per-fold form: the accumulator keeps the features itself, in the fold order it computes them in
        # (predict_kept); the holdout identity needs Phi_e in stream order (written while accumulating).
        acc, P = self._accumulator(sigma2, 1 if holdout else self.v, keep=not holdout)
        make_room(self._cache, self._kept_bytes(holdout), self.feature_budget)  # once P exists (it may raise)
        Phi = np.empty((self.n, acc.dim)) if holdout else None  # kept: s["Phi"] built on demand only
        # The targets of the in-memory predictions, in stream order, collected on the way (no second read).
        Y = np.empty((self.n, self.k)) if holdout or acc.keeps_features else None
        self.n_passes += 1
        for r0, Xb, Yb in self._iter():
            nb = Xb.shape[0]
            if Y is not None:
                Y[r0:r0 + nb] = Yb.reshape(nb, self.k)
            if Phi is not None:  # holdout
                acc.add(Xb, Yb, None, out=Phi[r0:r0 + nb])
            else:  # weighted: the block's rows scaled by sqrt(w) in the core on their way into the sums
                acc.add(Xb, Yb, self.folds[r0:r0 + nb], weights=None if self.w is None else self.w[r0:r0 + nb])
        entry = _FoldStats(P=P, acc=acc, holdout=holdout, kept=acc.keeps_features,
                           kept_bytes=self._kept_bytes(holdout) if Y is not None else 0)
        if Y is not None:
            entry["Y"] = Y
        if not entry["kept"]:
            entry["Phi"] = Phi
        remember(self._cache, key, entry, self.cache_size)
        return entry

    def _fold_models(self, s: dict, gamma: float) -> np.ndarray:
        """theta (v, p, k) of the fold models (20)-(21): on the accumulator's statistics in place where the entry has
        one, else from the entry's G and t (backends that sum them elsewhere)."""
        acc = s.get("acc")
        if acc is not None:
            return acc.fold_solve(float(gamma), self.regularize_bias)
        return _core.fixed_size.fast_cv_solve(s["G"], s["t"], float(gamma), self.regularize_bias, self.n_threads)

    def predictions(self, gamma: float, sigma2: float) -> tuple[np.ndarray, np.ndarray]:
        """CV predictions of every row by its own fold model, and the row targets (stream order)."""
        s = self.stats(sigma2)
        if s.get("holdout"):
            return _core.fixed_size.fast_cv_holdout(s["Phi"], s["Y"], self.folds, self.v, s["G"][0], s["t"][0],
                                                    float(gamma), self.regularize_bias, self.n_threads), s["Y"]
        theta = self._fold_models(s, gamma)
        if s.get("kept") or s["Phi"] is not None:
            return self._held_out(s, theta)
        parts = list(self._streamed_predictions(s, theta, sigma2))
        if not parts:
            return np.zeros((0, theta.shape[2])), np.zeros((0, self.k))
        return np.concatenate([f for f, _ in parts]), np.concatenate([Y for _, Y in parts])

    def _streamed_predictions(self, s: dict, theta: np.ndarray,
                              sigma2: float) -> Iterator[tuple[np.ndarray, np.ndarray]]:
        """One more pass over the rows: each block's predictions by its own fold's models (every column of
        ``theta`` (v, p, c)) and its targets. In Nystrom mode from the kernel block, K(x, PV) (P w_u) + b_u, whichever
        statistics were summed: the compact predictor of Section 3.2 that the final model uses, at n m (d + c)
        flops; the features would cost 2 n m m' more (as much as the accumulation pass itself)."""
        self.n_passes += 1
        PV = self.PV if s.get("P") is not None else None
        if PV is not None:
            V, bias = kernel_fold_models(s["P"], theta)
            params = self.make_params(sigma2)
        for r0, Xb, Yb in self._iter():
            nb = Xb.shape[0]
            if nb == 0:
                continue
            fb = self.folds[r0:r0 + nb]
            if PV is not None:
                f = kernel_fold_predict(Xb, PV, params, V, bias, fb, self.n_threads)
            else:
                f = _core.fixed_size.fold_predict(s["acc"].features(Xb), fb, theta, self.n_threads)
            yield f, Yb.reshape(nb, -1)

    def cost(self, gamma: float, sigma2: float) -> float:
        """CV cost (19)-(21): misclassification rate (classification) or MSE (regression), pooled over folds.
        For k > 1 targets the mean over targets; with weights the weighted mean, sum_i w_i L_i / (k sum_i w_i)."""
        self.n_evals += 1
        s = self.stats(sigma2)
        if self.task == "regression" and not s.get("kept") and s["Phi"] is None:
            sse = fold_sum_sse(self._fold_models(s, gamma), s["G"], s["t"], s["yy"])  # weighted with the sums
            if sse is not None:
                return sse / (self.total * self.k)
        return self._pooled_error(gamma, sigma2)

    def cost_path(self, gammas: Iterable[float], sigma2: float) -> np.ndarray:
        """CV costs (19)-(21) at every gamma of ``gammas`` on one sigma^2's fold statistics (one pass, cached): each
        gamma costs v fold solves, and the held-out predictions of all gammas come together -- from the kept
        features, or from one more streaming pass for the whole path (not one per gamma). +inf where a fold system
        cannot be solved."""
        gammas = [float(g) for g in gammas]
        s = self.stats(sigma2)
        if s.get("holdout"):  # the holdout identity: no prediction pass to share
            return np.array([_cost_or_inf(self.cost, g, sigma2) for g in gammas])
        self.n_evals += len(gammas)
        theta, todo = stack_fold_models(lambda g: self._fold_models(s, g), gammas)
        streamed_mse = self.task == "regression" and not s.get("kept") and s["Phi"] is None
        return path_cost_vector(theta, todo, self.k, self.total, s if streamed_mse else None,
                                lambda th: self._path_error_sums(s, th, sigma2))

    def _row_sums(self, losses: np.ndarray, r0: int = 0) -> np.ndarray:
        """Per-column sums of the losses of rows r0, r0 + 1, ... (stream order), each row times its weight if any."""
        if self.w is None:
            return losses.sum(axis=0)
        return self.w[r0:r0 + losses.shape[0]] @ losses

    def _path_error_sums(self, s: dict, theta: np.ndarray, sigma2: float) -> np.ndarray:
        """Summed (weighted) held-out losses of every column of the stacked fold models ``theta`` (v, p, c)."""
        if s.get("kept") or s["Phi"] is not None:
            err = np.empty(theta.shape[2])
            for c in column_groups(theta.shape[2], self.k, self.n):
                f, Y = self._held_out(s, np.ascontiguousarray(theta[:, :, c]))
                err[c] = self._row_sums(column_losses(f, Y, self.task))
            return err
        err = np.zeros(theta.shape[2])
        r0 = 0  # the blocks of rows come in stream order (empty ones skipped)
        for f, Y in self._streamed_predictions(s, theta, sigma2):
            err += self._row_sums(column_losses(f, Y, self.task), r0)
            r0 += f.shape[0]
        return err

    def _held_out(self, s: dict, theta: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        """Predictions of the in-memory rows (kept features or stream-ordered Phi_e) by their own fold's models, and
        their targets (collected by the statistics' pass)."""
        if s.get("kept"):
            return s["acc"].predict_kept(theta), s["Y"]
        return _core.fixed_size.fold_predict(s["Phi"], self.folds, theta, self.n_threads), s["Y"]

    def _pooled_error(self, gamma: float, sigma2: float) -> float:
        """Pooled CV error of the fold models over all rows (the mean in (19)-(21); weighted: sum_i w_i L_i /
        (k sum_i w_i)); one place to override for backends that reduce the errors where the data live
        (:class:`svmopt.fixed_size.dask_engine.DaskCVEngine`)."""
        f, Y = self.predictions(gamma, sigma2)
        if self.w is not None:
            return float(self._row_sums(column_losses(f, Y, self.task)).sum()) / (self.total * self.k)
        if self.task == "regression":
            return float(np.mean((Y - f) ** 2))
        return float(np.mean(np.where(f >= 0, 1.0, -1.0) != Y))

    def fit(self, gamma: float, sigma2: float) -> tuple[np.ndarray | None, np.ndarray]:
        """Final fit (7) on all rows: (P, theta) with theta = [w; b] (p x k); with weights
        theta = (Phi^T W Phi + R/gamma)^{-1} Phi^T W Y."""
        s = self.stats(sigma2)
        if s.get("acc") is not None:  # summed in the core (kernel statistics: mapped once, not per fold)
            G, t = s["acc"].totals()
        else:
            G, t = s["G"].sum(axis=0), s["t"].sum(axis=0)
        return s["P"], _core.fixed_size.ridge_solve(G, t, float(gamma), self.regularize_bias)


class CoreCVEngine:
    """:class:`CVEngine`'s in-memory path computed in the core (``_core.fixed_size.CVCost``): the rows ``rows`` (None:
    all) of the float64 array ``X``, standardized by ``(x - mean) / scale`` when ``mean`` is given, streamed in
    blocks of ``block`` rows (the blocks :class:`CVEngine` is fed from a :class:`svmopt.fixed_size.sources.Source`),
    with the features kept in memory (they must fit ``feature_budget``). The same costs as :class:`CVEngine` on the
    same blocks (tests/fixed_size/test_tuning_core.py), and :meth:`tune` runs CSA + simplex on them with no Python call
    per evaluation. ``weights`` (one per problem row, finite and > 0; None: unweighted): the weighted problem of
    :class:`CVEngine` (the weighted fold sums, the weighted CV cost, the per-fold solves)."""

    def __init__(self, X: np.ndarray, rows: np.ndarray | None, mean: np.ndarray | None, scale: np.ndarray | None,
                 block: int, Y: np.ndarray, folds: np.ndarray, n_folds: int, PV: np.ndarray | None,
                 make_params: ParamsFactory, task: str, *, tune_rbf: bool, n_features: int,
                 regularize_bias: bool = True, feature_budget: int = 1 << 30, n_threads: int = 0,
                 statistics: Statistics = "auto", weights: np.ndarray | None = None):
        linear = PV is None
        params = _core.kernels.KernelParams(_core.kernels.KernelKind.linear) if linear else make_params(1.0)
        self._cv = _core.fixed_size.CVCost(
            X, np.ascontiguousarray(Y, dtype=np.float64).reshape(len(folds), -1),
            np.ascontiguousarray(folds, dtype=np.int32), int(n_folds),
            np.zeros((0, n_features)) if linear else np.asarray(PV, dtype=np.float64), params, bool(tune_rbf),
            int(n_features) if linear else 0, _core.fixed_size.CVTask.__members__[task],
            rows=None if rows is None else np.asarray(rows, dtype=np.int64),
            mean=None if mean is None else np.asarray(mean, dtype=np.float64),
            scale=None if scale is None else np.asarray(scale, dtype=np.float64), block=int(block),
            regularize_bias=bool(regularize_bias), feature_budget=int(feature_budget), n_threads=int(n_threads),
            statistics=statistics, weights=None if weights is None else np.ascontiguousarray(weights, dtype=np.float64))

    @staticmethod
    def keeps_rows() -> bool:
        """Always: the whole CV runs on features kept in memory (:meth:`CVEngine.keeps_rows`)."""
        return True

    @staticmethod
    def fits(n: int, p: int, feature_budget: int) -> bool:
        """Whether the features of n rows and p columns (the constant included) fit the budget."""
        return n * p * 8 <= feature_budget

    @property
    def n_passes(self) -> int:
        return self._cv.n_passes

    @property
    def n_evals(self) -> int:
        return self._cv.n_evals

    def cost(self, gamma: float, sigma2: float) -> float:
        """CV cost (19)-(21), as :meth:`CVEngine.cost`."""
        return self._cv.cost(float(gamma), float(sigma2))

    def cost_path(self, gammas: Iterable[float], sigma2: float) -> np.ndarray:
        """:meth:`cost` at every gamma of ``gammas`` (the core keeps one sigma^2's statistics: one pass for the
        path); +inf where a fold system cannot be solved."""
        return np.array([_cost_or_inf(self.cost, float(g), sigma2) for g in gammas])

    def fit(self, gamma: float, sigma2: float) -> tuple[np.ndarray | None, np.ndarray]:
        """Final fit (7) on all rows: (P, theta), as :meth:`CVEngine.fit`."""
        return self._cv.fit(float(gamma), float(sigma2))

    def tune(self, x0: np.ndarray, lower, upper, *, tune_gamma: bool, tune_sigma2: bool, gamma: float,
             sigma2: float, n_csa: int = 90, n_simplex: int = 70, inner: int = 5, seed: int = 0,
             step: float = 0.5, time_limit: float | None = None) -> TuningResult:
        """:func:`csa_simplex` over x = (log gamma, log sigma2) -- the tuned ones; the others fixed at ``gamma``,
        ``sigma2`` -- on :meth:`cost`, all in the core (a failed cost counts as +inf; ``time_limit`` as there)."""
        return tuning_result(_core.fixed_size.tune_cv(
            self._cv, np.atleast_2d(np.asarray(x0, dtype=np.float64)), np.asarray(lower, dtype=np.float64),
            np.asarray(upper, dtype=np.float64), bool(tune_gamma), bool(tune_sigma2), float(gamma), float(sigma2),
            n_csa=int(n_csa), n_simplex=int(n_simplex), inner=int(inner), seed=int(seed), step=float(step),
            time_limit=time_limit))


def _cost_or_inf(cost: Callable[[float, float], float], gamma: float, sigma2: float) -> float:
    try:
        return cost(gamma, sigma2)
    except (RuntimeError, np.linalg.LinAlgError, ValueError):
        return math.inf


def simple_cv_cost(X: np.ndarray, Y: np.ndarray, folds: np.ndarray, PV: np.ndarray | None,
                   params: _core.kernels.KernelParams, gamma: float, task: str, *, regularize_bias: bool = True,
                   n_threads: int = 0) -> float:
    """The "simple" v-fold CV of the paper's Tables 3–4 (as the paper's operation count
    (4/3) v m^3 + (2v-2) n m^2 implies): per fold recompute eig(Omega_mm), the
    features of the training and validation rows, the training Gram matrix and the solve."""
    X = np.ascontiguousarray(X, dtype=np.float64)
    Y = np.ascontiguousarray(np.asarray(Y, dtype=np.float64).reshape(X.shape[0], -1))
    PV = None if PV is None else np.asarray(PV, dtype=np.float64)
    errs = np.empty_like(Y)
    p = (X.shape[1] if PV is None else PV.shape[0]) + 1
    n_threads = 1 if X.shape[0] * p * p < 2e8 else n_threads  # same rule as CVEngine
    for u in np.unique(folds):
        tr, va = folds != u, folds == u
        if PV is None:
            acc = linear_accumulator(X.shape[1], n_targets=Y.shape[1], n_threads=n_threads)
        else:
            P, _ = nystrom_projection(PV, params, n_threads)
            acc = _core.fixed_size.FoldAccumulator(PV, params, P, n_targets=Y.shape[1], n_threads=n_threads)
        acc.add(np.ascontiguousarray(X[tr]), np.ascontiguousarray(Y[tr]))
        G, t, _, _ = acc.results()
        theta = _core.fixed_size.ridge_solve(G[0], t[0], float(gamma), regularize_bias)
        f = acc.features(np.ascontiguousarray(X[va])) @ theta
        errs[va] = Y[va] - f if task == "regression" else (np.where(f >= 0, 1.0, -1.0) != Y[va])
    if task == "regression":
        return float(np.mean(errs**2))
    return float(np.mean(errs))
