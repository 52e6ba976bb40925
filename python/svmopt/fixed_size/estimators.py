"""Optimized fixed-size LS-SVM (De Brabanter, De Brabanter, Suykens & De Moor, 2010): ``FixedSizeLSSVC`` and
``FixedSizeLSSVR``, svmopt's large-scale model.

Pipeline (paper Algorithm 5, Sections 3-6 and 8.4):

1. standardize the inputs (train statistics; one streaming pass), and the target for regression;
2. entropy bandwidths ``h_j`` by the two-stage solve-the-equation plug-in per dimension (Algorithm 2,
   :mod:`svmopt._shared.bandwidth`);
3. ``m`` prototype vectors maximizing the quadratic Rényi entropy (12) with O(m d) log-domain swap updates in
   the C++ core (Algorithm 1; stratified by class for classification), or ``prototype_selection="random"``: m
   distinct rows drawn uniformly (the paper's Table 1 baseline);
4. per binary/regression problem, (gamma, sigma^2) by coupled simulated annealing (90 evaluations) then
   Nelder–Mead (70) in log space, on the fast v-fold CV cost (19)–(21) (:class:`svmopt.fixed_size.tuning.CVEngine`): one
   streaming pass over the data per sigma^2 accumulates the per-fold Phi_u^T Phi_u, Phi_u^T Y_u in C++
   (``gamma_search="path"``, the default from PATH_MIN_ROWS training rows on: the search over log sigma^2 alone,
   gamma the best of a 31-value path on each pass's statistics);
5. the primal ridge solve (7) with the Nyström features (5) (eigenpairs with
   lambda <= m eps lambda_max dropped), bias penalized as printed (``regularize_bias=True``) or not;
6. the compact predictor f(x) = sum_k beta_k K(x, PV_k) + b, beta = U' Lambda'^{-1/2} w (Section 3.2).

``X`` may be a numpy array, an ``np.memmap`` (read block by block, never copied whole), a callable returning
a fresh iterator of ``(X_block, y_block)`` pairs (one call per pass: the data are never held in memory; every call
must yield the same rows in the same order), a one-shot iterator of such pairs (materialized once), or a
``dask.array.Array`` (:mod:`svmopt.fixed_size.dask_engine`: each chunk's Nyström features and fold partial sums are computed
by the core on the worker holding it and the sums are tree-reduced; the candidate rows for the prototypes are
sampled from the dask array; with the same random_state the prototypes, folds and hence the fit equal the in-memory
ones up to floating-point summation order). Memory is O(block * m + v m^2) besides the input (for dask:
O(chunk * m) per worker task, O(v m^2) on the driver).

Weights, streaming, time. ``fit(X, y, sample_weight)`` (and ``class_weight`` for the classifier) solves the weighted
least-squares form of (7), min sum_i w_i (y_i - w^T phi(x_i) - b)^2 + ||[w; b]||^2 / gamma: the weights enter the
blockwise sums Phi^T W Phi and Phi^T W y (the bias column included), the fast CV cost (a weighted mean of the held-out
losses), and the standardization statistics; the prototypes are chosen among the rows of positive weight without
regard to the weight values. X may then be an array, an ``np.memmap`` or a dask array (each chunk's weighted sums
on its worker), not a block stream; rows of weight 0 are masked out of every pass, never copied out of X.
``partial_fit`` accumulates the same sums chunk by chunk with fixed hyperparameters; ``prototypes`` fixes the
prototype vectors; ``max_time`` bounds the tuning (the search keeps its best point).

Kernels: ``"rbf"`` is K(x, z) = exp(-||x - z||^2 / sigma2) (the paper's and LS-SVMlab's convention; svmopt's
``Kernel("rbf", alpha=sqrt(sigma2 / 2))``); ``"linear"`` uses the inputs as explicit features (decision: equivalent to
the Nyström-linear model when the prototypes span R^d; gamma tuned alone); any other :class:`svmopt.Kernel` is used
as given through the Nyström map (gamma tuned alone).
"""

from __future__ import annotations

import logging
import math
import numbers
import time
from itertools import combinations
from typing import Any, ClassVar, cast

import numpy as np
from sklearn.base import BaseEstimator, ClassifierMixin, RegressorMixin
from sklearn.utils.metaestimators import available_if
from sklearn.utils.multiclass import check_classification_targets
from sklearn.utils.validation import check_array, check_is_fitted, check_random_state, validate_data

from svmopt import _core
from svmopt._shared.bandwidth import entropy_bandwidths
from svmopt._shared.config import atomic_fit, parse_bytes, warn
from svmopt._shared.dask import is_dask_array, map_row_chunks
from svmopt._shared.moments import (
    block_moments,
    column_stds,
    weighted_variance_denominator,
    weighted_variance_denominator_of_sums,
)
from svmopt._shared.prototypes import MAX_CANDIDATES, random_prototypes, select_prototypes
from svmopt._shared.runtime import TimeBudget
from svmopt._shared.runtime import progress as progress_bar
from svmopt._shared.splits import random_folds
from svmopt._shared.validation import (
    CLASS_WEIGHT,
    NONNEGATIVE_INT,
    POSITIVE,
    POSITIVE_INT,
    SECONDS,
    Integral,
    Interval,
    Options,
    StrOptions,
    check_fit_weights,
    fit_context,
    validate_params,
)
from svmopt.fixed_size.dask_engine import DaskCVEngine, DaskSource
from svmopt.fixed_size.sources import DEFAULT_BLOCK, Source, check_block, load_source
from svmopt.fixed_size.tuning import (
    GAMMA_PATH,
    CoreCVEngine,
    CVEngine,
    Statistics,
    csa_simplex,
    linear_accumulator,
    nystrom_projection,
    path_choice,
    resolve_statistics,
)
from svmopt.kernels import Kernel

#: One binary/regression system for partial_fit: (Phi^T W Phi, Phi^T W y, the classes whose rows it holds).
_System = tuple[np.ndarray, np.ndarray, list]

logger = logging.getLogger(__name__)

#: ``n_prototypes="auto"``: m = 500, at most the candidate rows (without the warning an explicit larger m gets).
AUTO_PROTOTYPES = 500

#: ``gamma_search="auto"``: the paper's CSA + simplex search over gamma (Section 6) below this many training rows
#: (all problems together), the gamma path from it on. The joint search pays one pass over the data for nearly every
#: one of its 160 evaluations; at 5·10⁴ rows (m = 500, d = 20) it took 133 s against the path's 39 s, for test
#: accuracies 0.08 points apart (81.84 % and 81.76 %; docs/performance.md). With sigma^2 fixed the path is a grid
#: over gamma on one sigma^2's statistics (one or two passes), where CSA's evaluations each cost a prediction pass
#: once the features exceed ``feature_memory``.
PATH_MIN_ROWS = 50_000
#: The tuning budgets (n_csa, n_simplex) that None stands for: the paper's 90 + 70 cost evaluations for the search
#: over (log gamma, log sigma^2) or over log gamma alone; 20 + 10 for a search over log sigma^2 alone (the path, or
#: gamma fixed), each evaluation a pass over the data.
JOINT_BUDGET, SIGMA2_BUDGET = (90, 70), (20, 10)
#: With fixed gamma and sigma^2 and ``cv=None``, the informational CV score is computed only while its v fold
#: systems (20)-(21) cost at most this many flops: v ((m+1)^3 / 3) for the Cholesky factorizations, and 4 (m+1)^3 more
#: each to map the kernel statistics by P (``statistics`` other than "features"). At m = 2000, 2.5·10⁵ rows, the
#: ten fold solves took 4.1 s of a 17.7 s pass; at m = 1000, 10⁶ rows, 0.8 s of 17 s (docs/performance.md).
FIXED_CV_FLOPS = 1e10


def _rbf_params(sigma2: float) -> _core.kernels.KernelParams:
    return _core.kernels.KernelParams(_core.kernels.KernelKind.rbf, alpha=math.sqrt(float(sigma2) / 2.0))


def _stream_params(mode: str, kern: Any, sigma2: float | None) -> _core.kernels.KernelParams | None:
    """The core's kernel parameters of a ``partial_fit`` stream (None for the explicit linear features)."""
    if mode == "kernel":
        return kern.core_params
    return _rbf_params(float(sigma2)) if mode == "rbf" and sigma2 is not None else None


def _chunk_accumulator(PV: np.ndarray | None, params: _core.kernels.KernelParams | None, P: np.ndarray | None,
                       d: int, n_classes: int, statistics: str) -> _core.fixed_size.FoldAccumulator:
    """The accumulator of one ``partial_fit`` chunk's per-class sums (the class as the fold, one target), by the
    statistics ``fit`` would take ("auto" resolved by the accumulator, as for fit)."""
    if PV is None or params is None or P is None:
        return linear_accumulator(d, n_folds=n_classes, n_targets=1)
    return _core.fixed_size.FoldAccumulator(PV, params, P, n_folds=n_classes, n_targets=1,
                                            statistics=cast(Statistics, statistics))


# --------------------------------------------------------------------------------------------- estimators
def _tunes_sigma2(mode: str, sigma2_fixed: float | None) -> bool:
    """Whether the fit searches sigma^2: an RBF kernel whose bandwidth is neither given nor fixed by the kernel."""
    return mode == "rbf" and sigma2_fixed is None


class _FixedSizeLSSVM(BaseEstimator):
    def __setstate__(self, state: dict) -> None:
        """A model pickled before ``gamma_search_`` was recorded gets the search it ran (its ``gamma_search``)."""
        if "problems_" in state and "gamma_search_" not in state:
            state = {**state, "gamma_search_": state.get("gamma_search", "csa")}
        super().__setstate__(state)

    _task = "regression"
    _parameter_constraints: ClassVar[dict] = {
        "n_prototypes": [POSITIVE_INT, StrOptions({"auto"})],
        "kernel": [StrOptions({"rbf", "linear"}), Kernel],
        "gamma": [POSITIVE, None],  # None: tuned by CSA + simplex
        "sigma2": [POSITIVE, None],
        "cv": [Interval(Integral, 2, None, closed="left"), "cv_object"],  # folds, a splitter or (train, test) pairs
        "prototypes": ["array-like", None],  # fixed prototype vectors (standardized scale); None: selected
        "block_size": [POSITIVE_INT, None],
        "random_state": ["random_state"],
        "verbose": ["verbose"],
        "regularize_bias": ["boolean"],
        "standardize": ["boolean"],
        "n_csa": [NONNEGATIVE_INT, None],  # 0 skips the stage; None: DEFAULT_BUDGET of the search
        "n_simplex": [NONNEGATIVE_INT, None],
        "gamma_search": [StrOptions({"auto", "csa", "path"})],
        "max_candidates": [POSITIVE_INT],
        "feature_memory": [str, POSITIVE_INT],  # "1G", "512M", or bytes
        "n_jobs": [POSITIVE_INT, Options(Integral, {-1}), None],  # threads; None or -1 = all
        "prototype_selection": [StrOptions({"entropy", "random"})],
        "statistics": [StrOptions({"auto", "features", "kernel"})],
        "max_time": [SECONDS, None],
    }

    def __init__(self, *, n_prototypes: int | str = "auto", kernel: str | Kernel = "rbf", gamma: float | None = None,
                 sigma2: float | None = None, cv: Any = None, block_size: int | None = None, random_state=None,
                 verbose: bool = False, regularize_bias: bool = True, standardize: bool = True,
                 n_csa: int | None = None, n_simplex: int | None = None, max_candidates: int = MAX_CANDIDATES,
                 feature_memory: str | int = "1G", n_jobs: int | None = None,
                 prototype_selection: str = "entropy", statistics: str = "auto", prototypes=None,
                 max_time: float | None = None, gamma_search: str = "auto"):
        self.n_prototypes = n_prototypes
        self.kernel = kernel
        self.gamma = gamma
        self.sigma2 = sigma2
        self.cv = cv
        self.block_size = block_size
        self.random_state = random_state
        self.verbose = verbose
        self.regularize_bias = regularize_bias
        self.standardize = standardize
        self.n_csa = n_csa
        self.n_simplex = n_simplex
        self.max_candidates = max_candidates
        self.feature_memory = feature_memory
        self.n_jobs = n_jobs
        self.prototype_selection = prototype_selection
        self.statistics = statistics
        self.prototypes = prototypes
        self.max_time = max_time
        self.gamma_search = gamma_search

    # -- parameters (validated by fit_context against _parameter_constraints) ------------------------
    def _resolved(self):
        """(mode, kernel or None, fixed sigma^2 or None) of the validated parameters."""
        k = self.kernel
        if isinstance(k, str):
            name, kern = k, None
        else:
            name, kern = k.name, k
            if name not in ("rbf", "linear") and not k.is_resolved:
                raise ValueError(f"kernel={k!r} has an unresolved 'auto' parameter; pass a number")
        sigma2 = self.sigma2
        if name == "rbf" and kern is not None and kern.is_resolved and sigma2 is None:
            sigma2 = 2.0 * float(kern.alpha) ** 2
        mode = "rbf" if name == "rbf" else ("linear" if name == "linear" else "kernel")
        return mode, kern, sigma2

    def _search_plan(self, n: int, mode: str, sigma2_fixed: float | None) -> tuple[str, int, int]:
        """(search, n_csa, n_simplex) of a fit on n rows: ``gamma_search`` with "auto" resolved (the path from
        PATH_MIN_ROWS rows on) and the budgets None stands for: SIGMA2_BUDGET where the search runs over sigma^2
        alone (the path, or gamma fixed), JOINT_BUDGET otherwise."""
        search = self.gamma_search
        if search == "auto":
            search = "path" if n >= PATH_MIN_ROWS and self.gamma is None else "csa"
        tunes_sigma = _tunes_sigma2(mode, sigma2_fixed)
        n_csa, n_simplex = SIGMA2_BUDGET if tunes_sigma and (search == "path" or self.gamma is not None) \
            else JOINT_BUDGET
        return (search, n_csa if self.n_csa is None else int(self.n_csa),
                n_simplex if self.n_simplex is None else int(self.n_simplex))

    # -- fitting -----------------------------------------------------------------------------------
    def _load(self, X, y):
        """Validate the input, returning (source, y_all, d); sets ``n_features_in_``."""
        return load_source(self, X, y, int(self.block_size or DEFAULT_BLOCK))

    def _check_y(self, y):
        return np.asarray(y, dtype=np.float64)

    def _problems(self, y, w=None, dropped: bool = False) -> list[dict]:
        """The binary/regression problems on the labels ``y`` of the rows of positive weight (weights ``w``;
        ``dropped``: rows of weight 0 were left out)."""
        raise NotImplementedError

    def _class_weight(self):
        return None

    def _given_prototypes(self, d: int) -> np.ndarray:
        """The ``prototypes`` parameter as a float64 (m, d) array, checked."""
        PV = check_array(self.prototypes, dtype=np.float64, input_name="prototypes")
        if PV.shape[1] != d:
            raise ValueError(f"prototypes has {PV.shape[1]} columns but X has {d} features")
        return np.ascontiguousarray(PV)

    @fit_context
    def fit(self, X, y=None, sample_weight=None):
        """Fit on X (array, np.memmap, dask array, callable returning (X_block, y_block) pairs, or an iterator of
        them). A positive ``n_jobs`` also limits the BLAS's threads (the feature, Gram and Cholesky kernels run on
        it) for the duration of the fit.

        A callable is called once per pass over the data and must yield the same rows in the same order on every
        call: the labels are taken from the first pass, and every later pass's y blocks are checked against them
        (and its number of rows), a ValueError otherwise (a stream that shuffles its rows per call would pair rows
        with other rows' labels).

        ``sample_weight`` (array-like of n_samples non-negative numbers; X an array, np.memmap or dask array, not a
        block stream): weighted least squares, every row's terms of (7) and of the CV cost multiplied by its
        weight; rows of weight 0 are left out (masked out of every pass, X is not copied). Which quantities the
        weights enter is listed in the class docstring."""
        nj = self.n_jobs
        if isinstance(nj, (int, np.integer)) and not isinstance(nj, bool) and nj > 0:
            from svmopt._shared.runtime import blas_controller

            with blas_controller().limit(limits=int(nj), user_api="blas"):
                return self._fit(X, y, sample_weight)
        return self._fit(X, y, sample_weight)

    def _split_folds(self, X, y, n: int) -> np.ndarray:
        """Fold ids from ``cv`` given as a splitter (``split(X, y)``) or as (train, test) index pairs: fold u holds
        the test rows of split u; the test sets must partition the rows."""
        cv: Any = self.cv
        splits = list(cv.split(X, y)) if hasattr(cv, "split") else list(cv)
        folds = np.full(n, -1, dtype=np.int32)
        for u, split in enumerate(splits):
            test = np.asarray(split[1])
            if test.dtype == bool:
                test = np.flatnonzero(test)
            test = test.astype(np.int64)
            if test.size and (test.min() < 0 or test.max() >= n):
                raise ValueError(f"cv: split {u} has test indices outside [0, {n})")
            if np.any(folds[test] >= 0):
                raise ValueError("cv: the test sets of the splits overlap; they must partition the rows")
            folds[test] = u
        if len(splits) < 2 or np.any(folds < 0):
            raise ValueError("cv: give at least 2 splits whose test sets cover every row exactly once (they are the "
                             "folds of the fast CV)")
        return folds

    def _weights_and_folds(self, src, y, sample_weight):
        """(y, w, folds, kept) of the rows of positive weight: their labels, their weights (None: unweighted), the
        fold ids from a ``cv`` of splits (None: ``cv`` folds drawn per problem), and their indices among the rows
        of X (None: every row). The source itself is left as it is: rows of weight 0 are masked out of every
        problem (``_fit``), never copied out of X."""
        cw = self._class_weight()
        custom_cv = self.cv is not None and not isinstance(self.cv, numbers.Integral)
        if sample_weight is None and cw is None and not custom_cv:
            return y, None, None, None
        X = src.X if isinstance(src, DaskSource) else src.array
        if X is None:
            raise ValueError("sample_weight, class_weight and a cv of splits need X as a numpy array, an np.memmap "
                             "or a dask array (not a block stream)")
        n = y.shape[0]
        _, y_kept, w, kept = check_fit_weights(np.empty((n, 0)), y, sample_weight, cw, return_kept=True)
        folds = self._split_folds(X, y, n) if custom_cv else None
        if kept is not None and folds is not None:
            folds = folds[kept]
        return y_kept, w, folds, kept

    def _select(self, Xc: np.ndarray, labels, rng: np.random.Generator, n: int, timings: dict) -> np.ndarray:
        """Indices (sorted) of the prototype vectors among the candidate rows ``Xc`` (steps 2-3); sets the entropy
        attributes."""
        t1 = time.perf_counter()
        d = Xc.shape[1]
        entropy = self.prototype_selection == "entropy"
        if entropy:
            h, n_fallbacks = entropy_bandwidths(Xc) if Xc.shape[0] >= 2 else (np.ones(d), d)
            self.n_bandwidth_fallbacks_ = n_fallbacks
        timings["bandwidth"] = time.perf_counter() - t1
        t2 = time.perf_counter()
        asked = AUTO_PROTOTYPES if self.n_prototypes == "auto" else int(self.n_prototypes)
        m = min(asked, Xc.shape[0])
        if m < asked and n > 1 and self.n_prototypes != "auto":
            warn(f"n_prototypes={self.n_prototypes} exceeds the {Xc.shape[0]} candidate rows; "
                          f"using m={m}", UserWarning)
        if entropy:
            sel = select_prototypes(Xc, m, labels=labels, bandwidths=h, random_state=int(rng.integers(2**62)))
            idx = np.sort(sel["idx"])
            self.entropy_bandwidths_: np.ndarray | None = h
            self.entropy_log_offdiag_ = sel["log_offdiag"]
            self.n_pv_proposals_ = sel["n_proposals"]
        else:
            idx = random_prototypes(Xc.shape[0], m, labels, rng)
            self.entropy_log_offdiag_, self.n_pv_proposals_, self.n_bandwidth_fallbacks_ = None, 0, 0
        timings["prototypes"] = time.perf_counter() - t2
        return idx

    def _given(self, timings: dict) -> None:
        """The selection's attributes when no prototypes are selected (given, or the linear kernel's explicit
        features): their documented "none" values."""
        self.prototype_indices_ = None
        self.entropy_log_offdiag_, self.n_pv_proposals_, self.n_bandwidth_fallbacks_ = None, 0, 0
        timings["bandwidth"] = timings["prototypes"] = 0.0

    def _check_prototypes_mode(self, mode: str) -> None:
        if mode == "linear" and self.prototypes is not None:
            raise ValueError("prototypes: the linear kernel uses the inputs as features and takes no prototypes; "
                             "leave prototypes=None")

    def _fit(self, X, y, sample_weight=None):
        tbudget = TimeBudget(self.max_time)
        mode, kern, sigma2_fixed = self._resolved()
        self._check_prototypes_mode(mode)
        timings: dict[str, float] = {}
        t0 = time.perf_counter()
        rng = np.random.default_rng(check_random_state(self.random_state).randint(0, 2**31 - 1, size=4))
        threads = 0 if self.n_jobs in (None, -1) else int(self.n_jobs)
        src, y, d = self._load(X, y)
        n_rows = y.shape[0]  # the rows of X; n below: those of positive weight
        y, w, folds_given, kept = self._weights_and_folds(src, y, sample_weight)
        PV_given = self._given_prototypes(d) if self.prototypes is not None else None
        n = y.shape[0]
        plan = self._search_plan(n, mode, sigma2_fixed)
        self.gamma_search_ = plan[0]
        if self.gamma_search == "auto" and self.gamma is None:
            tunes_sigma = _tunes_sigma2(mode, sigma2_fixed)
            logger.info("%s: gamma_search='auto' chose %r for %d training rows (%s %d; %s)", type(self).__name__,
                        plan[0], n, ">=" if n >= PATH_MIN_ROWS else "<", PATH_MIN_ROWS,
                        f"n_csa={plan[1]}, n_simplex={plan[2]}" if tunes_sigma or plan[0] == "csa"
                        else "a grid over gamma at the fixed kernel")
        # on the rows of positive weight: their masks, targets, weights and folds
        problems = self._problems(y, w, kept is not None)
        kept_rows = None  # rows of weight 0: out of every problem's row mask (over X's rows), X itself not copied
        if kept is not None:
            kept_rows = np.zeros(n_rows, dtype=bool)
            kept_rows[kept] = True
        for prob in problems:
            mask = prob["mask"]
            prob["weights"] = None if w is None else (w if mask is None else w[mask])
            prob["folds"] = None if folds_given is None else (folds_given if mask is None else folds_given[mask])
            if kept is not None and mask is not None:
                prob["mask"] = np.zeros(n_rows, dtype=bool)
                prob["mask"][kept[mask]] = True
            elif kept is not None:
                prob["mask"] = kept_rows
        # The standardization's weight per row of X: 0 for the rows left out (they add nothing to the weighted sums
        # nor to weighted_variance_denominator), 1 for kept rows of an unweighted fit.
        w_rows = w
        if kept is not None:
            w_rows = np.zeros(n_rows)
            w_rows[kept] = 1.0 if w is None else w
        self._stream = None  # a fit keeps no statistics for partial_fit

        # 1. standardization statistics (one streaming pass; weighted means and deviations with sample weights)
        if isinstance(src, DaskSource):  # dask reductions on the workers (and the finiteness check)
            mean, scale = src.moments(self.standardize, w_rows)
        elif self.standardize:
            # rows of weight 0 (left out of the fit) are left out of the deviations: a huge value there cannot
            # overflow the sum
            mean, s2, _ = block_moments(lambda: (xb for xb, _ in src.raw()), d, w_rows)
            scale = column_stds(s2, n, w_rows)
            scale[scale == 0.0] = 1.0  # a NaN or infinity is left to the overflow check below
            src.mean, src.scale = mean, scale
        else:
            mean, scale = np.zeros(d), np.ones(d)
        if not (np.isfinite(mean).all() and np.isfinite(scale).all()):
            raise ValueError("X: the column means/standard deviations overflow float64 (|values| near 1e308); "
                             "rescale X before fitting")
        self.x_mean_, self.x_scale_ = mean, scale
        timings["standardize"] = time.perf_counter() - t0

        # 2-3. entropy bandwidths and prototype vectors on the candidate rows (or the given prototypes)
        self.entropy_bandwidths_ = None
        PV: np.ndarray | None = None
        if mode == "linear" or PV_given is not None:
            PV = PV_given  # None for the linear kernel (it takes no prototypes)
            self._given(timings)
        else:
            # candidates drawn among the n rows of positive weight (cand indexes them), gathered from X's rows
            cand = np.arange(n) if n <= self.max_candidates else np.sort(rng.choice(n, self.max_candidates,
                                                                                     replace=False))
            rows = cand if kept is None else kept[cand]
            Xc = self._gather(src, rows)
            idx = self._select(Xc, self._strata(y[cand]), rng, n, timings)
            PV = np.ascontiguousarray(Xc[idx])
            self.prototype_indices_ = rows[idx]
        self.prototypes_ = PV
        self.n_prototypes_ = 0 if PV is None else PV.shape[0]
        self.kernel_mode_ = mode

        # 4-5. tuning and final fit per problem
        t3 = time.perf_counter()
        budget = parse_bytes(self.feature_memory, "feature_memory")
        fixed_params = None if mode != "kernel" else kern.core_params

        def make_params(s2: float) -> _core.kernels.KernelParams:
            return fixed_params if fixed_params is not None else _rbf_params(s2)

        self.problems_ = []
        last_tuned: list[tuple[float, float]] = []
        for prob in problems:
            self.problems_.append(self._fit_problem(src, prob, PV, d, mode, make_params, sigma2_fixed, rng, threads,
                                                    budget, tbudget, last_tuned, plan))
        timings["tuning_and_fit"] = time.perf_counter() - t3
        timings["total"] = time.perf_counter() - t0
        self.timings_ = timings
        self._set_hyperparameters()
        tbudget.finish(self)
        return self

    def _set_hyperparameters(self) -> None:
        if len(self.problems_) == 1:
            self.gamma_ = self.problems_[0]["gamma"]
            self.sigma2_ = self.problems_[0]["sigma2"]
            self.cv_score_ = self.problems_[0]["cv_score"]
        else:
            self.gamma_ = np.array([p["gamma"] for p in self.problems_])
            self.sigma2_ = np.array([p["sigma2"] for p in self.problems_])
            self.cv_score_ = np.array([p["cv_score"] for p in self.problems_])

    def _strata(self, y):
        return None

    def _gather(self, src: Source | DaskSource, rows: np.ndarray) -> np.ndarray:
        if isinstance(src, DaskSource):
            return src.gather(rows)
        if src.array is not None and not isinstance(src.array, np.memmap) and rows.size == src.array.shape[0]:
            X = np.asarray(src.array, dtype=np.float64)
            return np.ascontiguousarray((X - src.mean) / src.scale) if src.mean is not None else np.ascontiguousarray(X)
        out, r0, j = [], 0, 0
        for xb, _ in src.blocks():
            nb = xb.shape[0]
            k = np.searchsorted(rows, r0 + nb, side="left")
            if k > j:
                out.append(xb[rows[j:k] - r0])
            j, r0 = k, r0 + nb
        return np.ascontiguousarray(np.concatenate(out)) if out else np.zeros((0, self.n_features_in_))

    def _fit_problem(self, src, prob, PV, d, mode, make_params, sigma2_fixed, rng, threads, budget,
                     tbudget: TimeBudget, last_tuned: list, plan: tuple[str, int, int]) -> dict:
        search, n_csa, n_simplex = plan
        mask, T = prob["mask"], prob["targets"].reshape(-1, 1).astype(np.float64)
        wp = prob.get("weights")
        n_p = T.shape[0]
        if mask is None:
            def blocks():
                r0 = 0
                for xb, _ in src.blocks():
                    nb = xb.shape[0]
                    yield xb, np.ascontiguousarray(T[r0:r0 + nb])
                    r0 += nb
        else:
            def blocks():
                r0, t0 = 0, 0
                for xb, _ in src.blocks():
                    mb = mask[r0:r0 + xb.shape[0]]
                    k = int(mb.sum())
                    if k:
                        yield np.ascontiguousarray(xb[mb]), np.ascontiguousarray(T[t0:t0 + k])
                    r0, t0 = r0 + xb.shape[0], t0 + k
        if prob.get("folds") is not None:  # cv given as splits: their test sets are the folds
            folds = np.ascontiguousarray(prob["folds"], dtype=np.int32)
            v = int(folds.max()) + 1 if n_p else 1
        else:
            v = int(min(10 if self.cv is None else self.cv, n_p))
            folds = random_folds(n_p, max(v, 1), rng)
        progress = None
        if self.verbose and n_p > int(self.block_size or DEFAULT_BLOCK):  # a bar per pass only if it has blocks
            from tqdm.auto import tqdm

            def progress(it):
                return tqdm(it, desc="row blocks", leave=False, unit="block")

        def make_engine(folds_, v_, progress_=None) -> CVEngine | CoreCVEngine:
            kw: dict[str, Any] = {"regularize_bias": self.regularize_bias, "feature_budget": budget,
                                  "n_threads": threads, "n_features": d, "statistics": self.statistics}
            PVx = None if mode == "linear" else PV
            # Weighted least squares (Phi^T W Phi, Phi^T W y summed in the core, a weighted CV cost): every engine
            # below takes the weights (of the problem's rows, those of its mask: rows of weight 0 masked out).
            if wp is not None:
                kw["weights"] = wp
            if isinstance(src, DaskSource):
                return DaskCVEngine(src, T, mask, folds_, v_, PVx, make_params, self._task, **kw)
            # kept per row: the features, or the kernel block [K(x, PV), 1, y] (kernel statistics)
            p_max = d + 1 if PVx is None else PVx.shape[0] + 2
            if (src.array is not None and not isinstance(src.array, np.memmap)
                    and CoreCVEngine.fits(n_p, p_max, budget)):
                # In memory, features within the budget: the whole CV in the core (no Python per evaluation).
                return CoreCVEngine(src.array, None if mask is None else np.flatnonzero(mask), src.mean, src.scale,
                                    src.block_size, T, folds_, v_, PVx, make_params, self._task,
                                    tune_rbf=mode == "rbf", **kw)
            return CVEngine(blocks, folds_, v_, PVx, make_params, self._task, progress=progress_, **kw)

        engine = make_engine(folds, max(v, 1), progress)
        tune_gamma = self.gamma is None
        tune_sigma = _tunes_sigma2(mode, sigma2_fixed)
        gamma = float(self.gamma) if self.gamma is not None else 1.0
        sigma2 = float(sigma2_fixed) if sigma2_fixed is not None else float(d)
        cv_score = math.nan
        path = tune_gamma and search == "path" and v >= 2
        path_gamma: dict[float, float] = {}  # gamma_search="path": the best gamma at every sigma^2 scored
        if path:
            def path_cost(s2: float) -> float:
                costs = engine.cost_path(GAMMA_PATH, s2)
                i = path_choice(costs)
                path_gamma[s2] = float(GAMMA_PATH[i])
                return float(costs[i])
        if path and not tune_sigma:
            # a grid search over gamma on the one sigma^2's fold statistics
            if tbudget.expired():  # no time for the path: the previous problem's gamma (none before: 1, on the path)
                tbudget.cut("tuning (gamma path)")
                gamma = last_tuned[-1][0] if last_tuned else 1.0
                n_evals = 0
            else:
                cv_score = path_cost(sigma2)
                gamma = path_gamma[sigma2]
                n_evals = 1
            last_tuned.append((gamma, sigma2))
        elif (tune_gamma or tune_sigma) and v >= 2:
            lo, hi, ilo, ihi = [], [], [], []
            if tune_gamma and not path:
                lo += [-10.0]
                hi += [20.0]
                ilo += [0.0]
                ihi += [10.0]
            if tune_sigma:
                ld = math.log(d)
                lo += [ld - 10]
                hi += [ld + 10]
                ilo += [ld - 3]
                ihi += [ld + 3]

            def unpack(x):
                s = math.exp(x[-1]) if tune_sigma else sigma2
                if path:
                    return path_gamma.get(s, gamma), s
                g = math.exp(x[0]) if tune_gamma else gamma
                return g, s

            tune_bar = progress_bar(self.verbose, n_csa + n_simplex,
                                    f"tuning ({prob.get('name', 'model')})")

            def cost(x):
                g, s = unpack(x)
                tune_bar.update(1)
                try:
                    return path_cost(s) if path else engine.cost(g, s)
                except (RuntimeError, np.linalg.LinAlgError, ValueError):
                    return math.inf

            q = min(5, n_csa) if n_csa >= 1 else 5  # 5 coupled CSA processes (fewer if n_csa < 5)
            x0 = rng.uniform(ilo, ihi, size=(q, len(lo)))
            seed = int(rng.integers(2**62))
            # max_time: the search stops (checked in the core between evaluations) with its best point so far
            limit = tbudget.remaining_or_none()
            # the default: the whole search in the core, no Python call per evaluation
            if isinstance(engine, CoreCVEngine) and not self.verbose and not path:
                res = engine.tune(x0, lo, hi, tune_gamma=tune_gamma, tune_sigma2=tune_sigma, gamma=gamma,
                                  sigma2=sigma2, n_csa=n_csa, n_simplex=n_simplex, seed=seed,
                                  time_limit=limit)
            else:
                res = csa_simplex(cost, x0, lo, hi, n_csa=n_csa, n_simplex=n_simplex, seed=seed,
                                  time_limit=limit)
            tune_bar.close()
            n_evals = res.history.shape[0]
            if res.timed_out:
                tbudget.cut("tuning (CSA + simplex)")
            if n_evals == 0 and last_tuned:  # no time for a single evaluation: the previous problem's values
                gamma, sigma2 = last_tuned[-1]  # (none before: CSA's first initial state)
                cv_score = math.nan
            else:
                gamma, sigma2 = unpack(res.x)
                cv_score = res.fun if n_evals else math.nan
            last_tuned.append((gamma, sigma2))
        else:
            n_evals = 0
            # Fixed hyperparameters: the CV score is informational. Skip it when it would need a second
            # streaming pass (the rows not kept within the budget and a misclassification cost), which would cost
            # 50% more (a regression's MSE comes from the fold sums of the one pass), and, unless cv was given,
            # when its fold solves alone would cost more than FIXED_CV_FLOPS.
            if v >= 2 and tbudget.expired():
                tbudget.cut("CV score")  # informational only: skipped past max_time
            elif (v >= 2 and (self._task == "regression" or engine.keeps_rows())
                  and (self.cv is not None or self._fixed_cv_flops(PV, v) <= FIXED_CV_FLOPS)):
                cv_score = engine.cost(gamma, sigma2)
            else:  # no CV: one pass summing all rows at once (no per-fold sums to split the blocks by)
                v = 1
        if n_p == 0:
            raise ValueError("a binary problem has no rows")
        if v < 2:  # a single row, or no CV: ridge on all rows
            engine = make_engine(np.zeros(n_p, np.int32), 1, progress)
        P, theta = engine.fit(gamma, sigma2)
        w, b = theta[:-1, 0], float(theta[-1, 0])
        coef = w if P is None else P @ w
        statistics = resolve_statistics(P, 1, self.statistics)
        return {"gamma": gamma, "sigma2": sigma2 if mode == "rbf" else math.nan, "cv_score": cv_score, "coef": coef,
                "intercept": b, "n_evals": n_evals, "n_passes": engine.n_passes, "n_rows": n_p,
                "statistics": statistics}

    def _fixed_cv_flops(self, PV: np.ndarray | None, v: int) -> float:
        """Flops of the v fold solves of one CV cost evaluation (see FIXED_CV_FLOPS): the Cholesky factorizations,
        and the kernel statistics' map by P unless the features' statistics are summed (``statistics="features"``,
        or the linear kernel's explicit features, whose width is n_features, not m)."""
        if PV is None:
            return 0.0
        m1 = float(PV.shape[0] + 1)
        return v * m1**3 * (1.0 / 3.0 + (0.0 if self.statistics == "features" else 4.0))

    # -- streaming fit (partial_fit) -----------------------------------------------------------------
    def _fixed_hyperparameters(self) -> bool:
        """partial_fit exists only with fixed hyperparameters (as scikit-learn's MLPClassifier.partial_fit exists only
        for its stochastic solvers): an AttributeError naming the missing ones otherwise."""
        try:
            mode, _, sigma2 = self._resolved()
        except ValueError:  # an unresolved kernel: partial_fit raises it
            return True
        missing = [name for name, value in (("gamma", self.gamma), ("sigma2", sigma2))
                   if value is None and (name == "gamma" or mode == "rbf")]
        if missing:
            raise AttributeError(f"partial_fit needs fixed hyperparameters, but {' and '.join(missing)} "
                                 f"{'is' if len(missing) == 1 else 'are'} None: pass numbers for "
                                 f"{' and '.join(missing)} (e.g. the gamma_ and sigma2_ of a tuned fit on a sample), "
                                 "or use fit, which tunes them")
        return True

    def _stream_targets(self, y: np.ndarray) -> np.ndarray:
        raise NotImplementedError

    def _stream_definition(self, mode: str, kern, sigma2) -> dict[str, Any]:
        """What the sums of a ``partial_fit`` stream are built on, as a call resolves it (None where it does not
        apply): the kernel and the RBF's sigma^2, the prototypes (given, or the parameters of their selection from
        the first chunk), the statistics summed, the scaling. ``gamma`` and ``regularize_bias`` enter only the
        ridge solve (7), redone from the sums after every call, so they may change between calls."""
        selected = mode != "linear" and self.prototypes is None
        return {"kernel": kern if mode == "kernel" else mode,
                "sigma2": float(sigma2) if mode == "rbf" else None,
                "prototypes": None if mode == "linear" or selected else np.array(self.prototypes, dtype=np.float64),
                **{name: getattr(self, name) if selected else None
                   for name in ("n_prototypes", "prototype_selection", "max_candidates", "random_state")},
                "statistics": self.statistics if mode != "linear" else None,
                "standardize": bool(self.standardize)}

    def _check_stream_definition(self, definition: dict[str, Any]) -> None:
        """A later ``partial_fit`` call: every parameter that defines the features is as the first call resolved
        it (the stream's sums hold features of that definition only)."""
        first = (self._stream or {}).get("definition")
        if first is None:  # a stream pickled before the definition was recorded
            return
        for name, value in definition.items():
            old = first.get(name)
            if isinstance(old, np.ndarray) or isinstance(value, np.ndarray):
                same = isinstance(old, np.ndarray) and isinstance(value, np.ndarray) and np.array_equal(old, value)
                shown = ""
            else:
                same = old is value or bool(old == value)
                shown = f" ({old!r} then, {value!r} now)"
            if not same:
                raise ValueError(f"{name} differs from the first partial_fit call{shown}: the stream's sums hold the "
                                 f"features that call defined. Set {name} back, or call fit, which starts over (the "
                                 "first partial_fit call after fit starts a new stream)")

    def _stream_solve(self, G: np.ndarray, t: np.ndarray, yy: np.ndarray, ww: np.ndarray) -> list[_System]:
        raise NotImplementedError

    def _chunk_weights(self, X, y, sample_weight, first: bool = True):
        """(X, y, w, kept) of a partial_fit chunk: rows of weight 0 left out (``kept``: the indices of the rows left
        in the chunk, None for all); ``class_weight`` (a dict) applied by label. A later chunk (not ``first``) whose
        sample weights are all 0 adds nothing, as one that ``class_weight`` zeroes."""
        X, y, w, kept = check_fit_weights(X, y, sample_weight, None, return_kept=True, allow_all_zero=not first)
        cw = self._class_weight()
        if cw is None:
            return X, y, w, kept
        if isinstance(cw, str):
            raise ValueError("class_weight='balanced' needs the class counts of the whole stream; partial_fit takes "
                             "class_weight=None or a dict")
        known = {lab.item() if hasattr(lab, "item") else lab: i for i, lab in enumerate(self.classes_)}
        factor = np.ones(self.classes_.size)
        for key, value in cw.items():
            k = key.item() if hasattr(key, "item") else key
            if k not in known:
                raise ValueError(f"class_weight has the label {key!r}, which is not in classes "
                                 f"({self.classes_.tolist()})")
            if isinstance(value, bool) or not (isinstance(value, numbers.Real) and math.isfinite(value)) or value < 0:
                raise ValueError(f"class_weight[{key!r}] must be a finite number >= 0, got {value!r}")
            factor[known[k]] = float(value)
        w = (np.ones(y.shape[0]) if w is None else w) * factor[np.searchsorted(self.classes_, y)]
        keep = w > 0
        if not keep.all():
            kept = np.flatnonzero(keep) if kept is None else kept[keep]
        return X[keep], y[keep], w[keep], kept

    def _stream_start(self, X, y, w, mode: str, kern, sigma2, kept: np.ndarray | None = None) -> dict[str, Any]:
        """First partial_fit call: input scaling, prototypes, the feature map, and empty sums (``kept``: the rows
        of the chunk as passed that X holds, None for all)."""
        d = X.shape[1]
        if X.shape[0] == 0:
            raise ValueError("the first partial_fit chunk has no rows of positive weight (sample_weight times "
                             "class_weight): it fixes the input scaling, and the prototypes are selected from it")
        rng = np.random.default_rng(check_random_state(self.random_state).randint(0, 2**31 - 1, size=4))
        timings: dict[str, float] = {}
        if self.standardize:
            mean, s2, _ = block_moments(lambda: [X], d, w)
            scale = column_stds(s2, X.shape[0], w)
            scale[~(scale > 0)] = 1.0
        else:
            mean, scale = np.zeros(d), np.ones(d)
        self.x_mean_, self.x_scale_ = mean, scale
        self.entropy_bandwidths_ = None
        PV: np.ndarray | None = None
        if mode == "linear" or self.prototypes is not None:
            PV = None if mode == "linear" else self._given_prototypes(d)
            self._given(timings)
        else:
            Xs = np.ascontiguousarray((X - mean) / scale)
            n = Xs.shape[0]
            cand = np.arange(n) if n <= self.max_candidates else np.sort(rng.choice(n, self.max_candidates,
                                                                                     replace=False))
            idx = self._select(Xs[cand], self._strata(y[cand]), rng, n, timings)
            PV = np.ascontiguousarray(Xs[cand][idx])
            self.prototype_indices_ = cand[idx] if kept is None else kept[cand[idx]]  # rows of the first chunk
        self.prototypes_ = PV
        self.n_prototypes_ = 0 if PV is None else PV.shape[0]
        self.kernel_mode_ = mode
        params = _stream_params(mode, kern, sigma2)
        P = None if PV is None or params is None else nystrom_projection(PV, params)[0]
        p = (d if P is None else P.shape[1]) + 1  # the extended features [phi(x), 1] of (5)
        L = self.classes_.size if self._task == "classification" else 1
        self.timings_ = timings
        return {"P": P, "G": np.zeros((L, p, p)), "t": np.zeros((L, p)), "yy": np.zeros(L),
                "ww": np.zeros(L), "counts": np.zeros(L, dtype=np.int64),
                "sigma2": math.nan if mode != "rbf" else float(sigma2)}

    def _partial_fit(self, X, y, classes, sample_weight):
        return atomic_fit(type(self)._partial_fit_impl)(self, X, y, classes, sample_weight)

    def _partial_fit_impl(self, X, y, classes, sample_weight):
        t0 = time.perf_counter()
        first = getattr(self, "_stream", None) is None
        if first:
            validate_params(self)
        mode, kern, sigma2 = self._resolved()
        if first:
            self._check_prototypes_mode(mode)
        X, y = validate_data(self, X, y, dtype=np.float64, reset=first, y_numeric=self._task == "regression")
        y = self._check_y(y)
        if self._task == "classification":
            if first:
                if classes is None and hasattr(self, "classes_"):  # after fit: a new stream over its classes
                    classes = getattr(self, "classes_")  # noqa: B009 (set by the classifier's fit)
                if classes is None:
                    raise ValueError("classes must be passed on the first call to partial_fit (every label of "
                                     "the whole stream)")
                self.classes_ = np.unique(np.asarray(classes))
                if self.classes_.size < 2:
                    raise ValueError(f"classes must hold at least 2 labels, got {self.classes_.tolist()}")
                self._set_coding(self.classes_.size)
            elif classes is not None and not np.array_equal(np.unique(np.asarray(classes)), self.classes_):
                raise ValueError(f"classes={classes!r} differs from the classes of the first partial_fit call "
                                 f"({self.classes_.tolist()})")
            unknown = np.setdiff1d(y, self.classes_)
            if unknown.size:
                raise ValueError(f"y has labels {unknown.tolist()} not in classes ({self.classes_.tolist()})")
        definition = self._stream_definition(mode, kern, sigma2)
        if not first:
            self._check_stream_definition(definition)
        X, y, w, kept = self._chunk_weights(X, y, sample_weight, first)
        if first:
            state = {**self._stream_start(X, y, w, mode, kern, sigma2, kept), "definition": definition}
        else:
            state = dict(self._stream or {})
        if X.shape[0]:
            codes = self._stream_targets(y)
            L = state["G"].shape[0]
            # The chunk's per-class sums in the core's pass, the class as the "fold" and the row weights inside
            # (Phi_c^T W_c Phi_c, Phi_c^T W_c y_c with y = 1 for a class's indicator, sum w y^2).
            acc = _chunk_accumulator(self.prototypes_, _stream_params(mode, kern, sigma2), state["P"],
                                     self.n_features_in_, L, self.statistics)
            target = np.ones(y.shape[0]) if self._task == "classification" else np.asarray(y, dtype=np.float64)
            acc.add(np.ascontiguousarray((X - self.x_mean_) / self.x_scale_), target.reshape(-1, 1),
                    codes.astype(np.int32), weights=w)
            Gc, tc, yyc, cc = acc.results()
            ww = state["ww"] + np.bincount(codes, weights=None if w is None else w * w, minlength=L)  # sum w^2
            # new arrays: atomic on error
            state.update(G=state["G"] + Gc, t=state["t"] + tc[:, :, 0], counts=state["counts"] + cc.astype(np.int64),
                         yy=state["yy"] + (yyc[:, 0] if self._task == "regression" else 0.0), ww=ww)
        self._stream = state
        # The model of all rows seen so far (7): solved after every call, so predictions are always current.
        gamma = float(self.gamma or 0.0)  # set: partial_fit exists only with fixed hyperparameters
        problems = []
        for Gp, tp, members in self._stream_solve(state["G"], state["t"], state["yy"], state["ww"]):
            if Gp[-1, -1] > 0:  # the bias entry: the problem's weight sum
                theta = _core.fixed_size.ridge_solve(Gp, tp.reshape(-1, 1), gamma, self.regularize_bias)
            else:  # no rows yet (a class pair not seen so far): the zero model
                theta = np.zeros((Gp.shape[0], 1))
            wv = theta[:-1, 0]
            problems.append({"gamma": gamma, "sigma2": state["sigma2"], "cv_score": math.nan,
                             "coef": wv if state["P"] is None else state["P"] @ wv, "intercept": float(theta[-1, 0]),
                             "n_evals": 0, "n_passes": 0, "n_rows": int(state["counts"][members].sum()),
                             "statistics": resolve_statistics(state["P"], 1, self.statistics)})
        self.problems_ = problems
        self.gamma_search_ = "csa" if self.gamma_search == "auto" else self.gamma_search  # nothing searched
        self._set_hyperparameters()
        self.timings_ = {**getattr(self, "timings_", {}), "partial_fit": time.perf_counter() - t0}
        self.max_time_reached_ = False
        return self

    # -- prediction --------------------------------------------------------------------------------
    def _raw_decision(self, X) -> np.ndarray:
        """Real outputs of every binary/regression problem (n x L), streaming in blocks."""
        check_is_fitted(self, "problems_")
        if is_dask_array(X):  # block by block on the workers, gathered here (n x L outputs)
            return map_row_chunks(self, "_raw_decision", X, len(self.problems_))
        if isinstance(X, np.memmap):
            if X.ndim != 2:  # scikit-learn's message for arrays, without the values (the memmap may be large)
                raise ValueError(f"Expected 2D array, got {X.ndim}D array instead. Reshape your data either using "
                                 "array.reshape(-1, 1) if your data has a single feature or array.reshape(1, -1) if "
                                 "it contains a single sample.")
            if X.shape[1] != self.n_features_in_:
                raise ValueError(f"X has {X.shape[1]} features, but {type(self).__name__} is expecting "
                                 f"{self.n_features_in_} features as input")
        else:
            X = validate_data(self, X, dtype=np.float64, reset=False)
        block = int(self.block_size or DEFAULT_BLOCK)
        out = np.empty((X.shape[0], len(self.problems_)))
        groups: dict[float, list[int]] = {}
        for j, p in enumerate(self.problems_):
            groups.setdefault(p["sigma2"] if self.kernel_mode_ == "rbf" else 0.0, []).append(j)
        PV = self.prototypes_  # None for the linear kernel (explicit features)
        fixed = self.kernel.core_params if self.kernel_mode_ == "kernel" and isinstance(self.kernel, Kernel) else None
        for s in range(0, X.shape[0], block):
            xb = check_block(X[s:s + block], self.n_features_in_)
            xb = np.ascontiguousarray((xb - self.x_mean_) / self.x_scale_)
            for s2, js in groups.items():
                V = np.ascontiguousarray(np.column_stack([self.problems_[j]["coef"] for j in js]), dtype=np.float64)
                if PV is None:
                    f = xb @ V
                else:
                    params = fixed if fixed is not None else _rbf_params(s2)
                    f = _core.kernels.matvec(xb, PV, V, params)
                out[s:s + xb.shape[0], js] = f + np.array([self.problems_[j]["intercept"] for j in js])
        return out

    def __sklearn_tags__(self):
        tags = super().__sklearn_tags__()
        tags.non_deterministic = False
        return tags


class FixedSizeLSSVR(RegressorMixin, _FixedSizeLSSVM):
    """Fixed-size LS-SVM regression (paper 002), tuned by CSA + simplex on the fast v-fold CV MSE.

    Parameters
    ----------
    n_prototypes : int or "auto", default="auto"
        m, the number of prototype vectors (clamped to the number of candidate rows with a warning); ``"auto"``:
        :data:`AUTO_PROTOTYPES`, or every candidate row when there are fewer (no warning).
    kernel : {"rbf", "linear"} or svmopt.Kernel, default="rbf"
    gamma : float or None
        Regularization constant of (7); None: tuned.
    sigma2 : float or None
        RBF bandwidth in K = exp(-||x - z||^2 / sigma2) on the standardized inputs; None: tuned.
    cv : int, CV splitter, iterable of (train, test) pairs or None, default=None
        Folds of the fast CV: a number (random folds per problem), or splits whose test sets partition the rows
        (they are the folds; X must then be an array, np.memmap or dask array: ``split(X, y)`` sees X as given).
        None: 10 random folds; with ``gamma`` and ``sigma2`` fixed the CV score is then informational and is
        computed only while its 10 fold solves are cheap (:data:`FIXED_CV_FLOPS`: m up to about 600), else
        ``cv_score_`` is NaN and the fit takes one pass without per-fold sums. Give ``cv`` to always have it.
    block_size : int or None
        Rows per streamed block (default 65536).
    random_state, verbose, n_jobs
        Seed (bandwidths are deterministic; PV, folds, CSA are seeded), tqdm progress bars, threads of the core's
        OpenMP loops and, during ``fit``, of the BLAS (None or -1: all).
    regularize_bias : bool, default=True
        True: (7) as printed (I_{m+1}/gamma); False: the bias is not penalized.
    standardize : bool, default=True
        Standardize inputs (and the target) with the training statistics, as the paper does.
    n_csa, n_simplex : int or None, default=None
        The tuning budget: CSA then simplex cost evaluations. None: the paper's 90 + 70 for a search over gamma
        (with sigma^2, or alone); 20 + 10 for a search over sigma^2 alone (``gamma_search="path"``, or gamma
        fixed), where each evaluation is a sigma^2 value tried: one pass over the data, plus one prediction pass
        for a classifier whose features exceed ``feature_memory``.
    gamma_search : {"auto", "csa", "path"}, default="auto"
        How gamma is tuned. "auto": "csa" below 50,000 training rows (``PATH_MIN_ROWS``, all problems together),
        "path" from there on when gamma is tuned, logged (``logging.INFO``) and stored as ``gamma_search_``; at
        5·10⁴ rows the joint search took 3.4x the path's time, for a test accuracy 0.08 points higher
        (docs/performance.md).
        "csa": jointly with sigma^2 by CSA + simplex over (log gamma, log sigma^2), as in the
        paper (Section 6): nearly every evaluation is at a new sigma^2, hence one pass over the data. "path": CSA +
        simplex search log sigma^2 alone, and at every sigma^2 tried gamma takes the best of the 31 values
        :data:`svmopt.fixed_size.tuning.GAMMA_PATH` (log gamma = -10, -9, ..., 20, the joint search's bounds), all scored on
        that sigma^2's fold statistics: the same fast v-fold CV cost (19)-(21), minimized over gamma on the path
        instead of searched. It scores 31 gammas for the price of one pass, so it reaches a comparable model with
        far fewer passes (hence its budget of 20 + 10): the choice for millions of rows. Ties on the path (the
        misclassification rate is piecewise constant) take the middle of the tied values. With sigma^2 fixed (or a
        kernel other than RBF) "path" is a grid search over gamma: one pass, plus one prediction pass for a
        classifier whose features exceed ``feature_memory``.
    max_candidates : int, default=200000
        Rows (a uniform subsample above this) used for the entropy bandwidths and the prototype search.
    feature_memory : str or int, default="1G"
        Budget for holding Phi_e in memory during CV; above it the blocked Algorithm 3B streams twice. With
        fixed gamma and sigma2 and Phi_e over this budget, a classifier skips the (second-pass) CV score, even
        with ``cv`` given: ``cv_score_`` is NaN.
    prototype_selection : {"entropy", "random"}, default="entropy"
        How the m prototype vectors are chosen among the candidate rows: "entropy" maximizes the quadratic
        Rényi entropy (Algorithm 1, with the entropy bandwidths); "random" draws m distinct rows uniformly
        without replacement (seeded by ``random_state``; stratified by class for classification, as the entropy
        path; no bandwidths are computed, ``entropy_bandwidths_`` is None). The paper's Table 1 compares the two.
    statistics : {"auto", "features", "kernel"}, default="auto"
        What each streaming pass sums per CV fold. "features": Phi_u^T Phi_u and Phi_u^T y_u of the Nyström
        features (5), as the paper's Algorithm 3. "kernel": the same products of the kernel block
        C = [K(X, PV), 1], mapped to the features' statistics by the projection once per sigma^2
        (Phi^T Phi = P~^T C^T C P~): one symmetric rank-k update of order m per row block (n m^2 flops) instead
        of the projection C P and the update of order m' (2 n m m' + n m'^2), about 3x fewer flops at m' = m; the
        fast CV predicts held-out rows as C (P~ theta). The map multiplies C^T C's rounding errors by
        lambda_max / lambda_min of the kept spectrum of Omega_mm, so "auto" (the default) takes the kernel block
        only where that ratio is at most 1e5 (the measured errors are in docs/performance.md) and the features
        otherwise; the linear kernel always uses its explicit features. ``problems_[i]["statistics"]`` records
        the choice of each final fit.
    prototypes : array-like (m, n_features) or None, default=None
        Fixed prototype vectors, on the scale the model works on (the standardized one when ``standardize``: an
        earlier fit's ``prototypes_`` fit for the same scaling): ``fit`` and ``partial_fit`` use exactly these
        points (no bandwidths, no selection; ``prototype_indices_`` is None). None: selected as above. Not for the
        linear kernel.
    max_time : float or None, default=None
        Seconds for ``fit`` (None: unlimited). The tuning's search (coupled simulated annealing, then the simplex)
        checks the clock between cost evaluations, in the core, and stops with the best point so far; the remaining
        binary problems of a multi-class model then take the last tuned values, and the informational CV score of
        fixed hyperparameters is skipped. Not cut short: the standardization pass, the entropy bandwidths and the
        prototype selection (they run before the tuning), a cost evaluation (or gamma path) under way, and the
        final fit (7) of every binary/regression problem (a pass over the data each), so a fit may run past
        max_time by their time.
        ``max_time_reached_`` is True and a ``ConvergenceWarning`` names what was cut short.

    Sample weights
    --------------
    ``fit(X, y, sample_weight)`` (X an array, ``np.memmap`` or dask array) minimises the weighted squared loss:
    with W = diag(w), the ridge system (7) becomes (Phi_e^T W Phi_e + I/gamma) theta = Phi_e^T W y (the bias column
    of Phi_e included, so Phi_e^T W 1 and sum w enter too); each CV fold model (20)-(21) is built from the weighted
    fold sums and the CV cost (19) is the weighted mean sum_i w_i L_i / sum_i w_i of the held-out losses; the input
    (and target) standardization uses weighted means and deviations (denominator sum w - min(1, sum w^2 / sum w),
    the one of RobustSVC and the ellipsoids: sum w - 1 when every weight is >= 1, so integer weights equal repeated
    rows). Rows of weight 0 are left out (masked out of every pass over X, never copied out of it). The prototypes
    are *not* chosen by weight: the Rényi-entropy (or random) selection runs on the rows of positive weight as if
    unweighted (the entropy bandwidths too), so with selected prototypes a weighted fit differs from the fit on
    repeated rows; with ``prototypes`` given (and fixed gamma, sigma2) integer weights give the same model as
    repeated rows. On a dask array every chunk sums its rows' weighted statistics and held-out losses on its
    worker (:class:`svmopt.fixed_size.dask_engine.DaskCVEngine`). The weights enter the streaming pass in the core
    (each row of the features, or of the kernel block with ``statistics="kernel"``, scaled by sqrt(w_i) on its way
    into the per-fold sums), so ``statistics`` applies as to unweighted fits, and a weighted fit takes the same
    passes as an unweighted one; it forgoes only the holdout identity of the fast CV (many small folds) and, for
    explicit linear features, the dsyrk straight on X's rows.

    Attributes
    ----------
    n_prototypes_ : int
        m, the number of prototype vectors used (0 for the linear kernel).
    prototypes_ : ndarray (n_prototypes_, n_features) or None
        The prototype vectors on the standardized scale (None for the linear kernel).
    prototype_indices_ : ndarray of int or None
        Their rows in the training data: indices into the X passed to ``fit`` (into the first chunk for
        ``partial_fit``), counting the rows of weight 0 too (the prototypes are chosen among the rows of positive
        weight only); None when ``prototypes`` is given or the kernel is linear.
    entropy_bandwidths_ : ndarray (n_features,) or None
        Per-dimension plug-in bandwidths of the entropy criterion (None for random selection).
    entropy_log_offdiag_ : float or None
        Log of the off-diagonal entropy sum of the selected set (None without an entropy search).
    n_pv_proposals_ : int
        Swap proposals made by the prototype search (0 without an entropy search).
    n_bandwidth_fallbacks_ : int
        Dimensions whose plug-in bandwidth fell back to the normal reference rule (0 without an entropy search).
    kernel_mode_ : str
        ``"rbf"``, ``"linear"`` (explicit features) or ``"kernel"`` (a given :class:`svmopt.Kernel`).
    gamma_ : float or ndarray (n_problems,)
        Tuned (or given) regularization constant; one entry per binary problem for multi-class models.
    sigma2_ : float or ndarray (n_problems,)
        Tuned (or given) RBF bandwidth, likewise.
    cv_score_ : float
        The fast v-fold CV cost at ``(gamma_, sigma2_)``: the (weighted) mean squared error of the standardized
        target (y - y_mean_) / y_scale_, so ``cv_score_ * y_scale_**2`` is the MSE in the target's units (NaN when
        it was skipped: fixed hyperparameters, see ``cv`` and ``feature_memory``, or ``max_time`` spent).
    gamma_search_ : str
        The gamma search of the fit, "csa" or "path" (``gamma_search="auto"`` resolved: "csa" with gamma fixed, when
        sigma^2 alone, if anything, is searched by CSA + simplex).
    problems_ : list of dict
        Per binary/regression problem: the tuning record and the fitted coefficients (``"statistics"``: what the
        final fit summed, "features" or "kernel").
    x_mean_ : ndarray (n_features,)
        Means used to standardize the inputs (0 when ``standardize=False``).
    x_scale_ : ndarray (n_features,)
        Standard deviations used to standardize the inputs (1 when ``standardize=False``).
    timings_ : dict
        Seconds spent per stage (standardize, bandwidth, prototypes, tuning_and_fit, total).
    max_time_reached_ : bool
        Whether ``max_time`` cut a stage short (the model is the best found in the time).
    n_features_in_ : int
        Number of features seen during ``fit``.
    y_mean_ : float
        Mean used to standardize the target (0 when ``standardize=False``).
    y_scale_ : float
        Standard deviation used to standardize the target (1 when ``standardize=False``).

    See Also
    --------
    FixedSizeLSSVC : The classifier.
    choose_n_prototypes : The paper's heuristic for m.
    svmopt.fixed_size.tuning.CVEngine : The fast v-fold cross-validation.

    References
    ----------
    .. [1] K. De Brabanter, J. De Brabanter, J. A. K. Suykens and B. De Moor, "Optimized fixed-size kernel models
       for large data sets", Computational Statistics & Data Analysis (Elsevier), 2010.

    Examples
    --------
    >>> import numpy as np
    >>> from svmopt import FixedSizeLSSVR
    >>> rng = np.random.default_rng(0)
    >>> X = rng.uniform(-3, 3, size=(400, 1))
    >>> y = np.sinc(X[:, 0]) + 0.1 * rng.standard_normal(400)
    >>> reg = FixedSizeLSSVR(n_prototypes=30, random_state=0).fit(X, y)
    >>> reg.prototypes_.shape
    (30, 1)
    >>> reg.score(X, y) > 0.8
    True
    """

    _task = "regression"

    def _check_y(self, y):
        y = np.asarray(y, dtype=np.float64)
        if not np.all(np.isfinite(y)):
            raise ValueError("Input y contains NaN or infinity.")
        return y

    def _problems(self, y, w=None, dropped: bool = False):
        if w is None:
            self.y_mean_ = float(y.mean()) if self.standardize else 0.0
            sd = float(y.std(ddof=1)) if (self.standardize and y.size > 1) else 1.0
        else:  # weighted mean and deviation (integer weights: as the repeated rows)
            W = float(w.sum())
            self.y_mean_ = float(w @ y) / W if self.standardize else 0.0
            sd = math.sqrt(float(w @ (y - self.y_mean_) ** 2) / weighted_variance_denominator(w)) \
                if self.standardize else 1.0
        if not (np.isfinite(self.y_mean_) and np.isfinite(sd)):
            raise ValueError("y: the target's mean/standard deviation overflow float64; rescale y before fitting")
        self.y_scale_ = sd if sd > 0 else 1.0
        return [{"mask": None, "targets": (y - self.y_mean_) / self.y_scale_, "name": "regression"}]

    def predict(self, X):
        """Predictions sum_k beta_k K(x, PV_k) + b (mapped back to the target's scale)."""
        return self._raw_decision(X)[:, 0] * self.y_scale_ + self.y_mean_

    @available_if(_FixedSizeLSSVM._fixed_hyperparameters)
    def partial_fit(self, X, y, sample_weight=None):
        """Add a chunk of rows to the fit with fixed ``gamma`` and ``sigma2`` (required): the first call takes
        ``prototypes`` or selects them from its chunk (and, with ``standardize``, fixes the input scaling from that
        chunk's statistics); every call adds the chunk's Phi^T W Phi, Phi^T W y, sum w y^2 and sum w^2, and the
        ridge solve (7) is redone, so the model after any call is the fit on all rows seen (the target standardized
        with the exact statistics of all rows). With ``prototypes`` given, many calls equal one ``fit`` on their
        concatenation (with ``standardize=False`` or the same scaling) to rounding; otherwise the prototypes are
        selected from the first chunk alone, not from all rows as ``fit`` selects them. The parameters that define
        the features (``kernel``, ``sigma2``, the prototypes and their selection, ``statistics``, ``standardize``)
        must not change between calls (a ValueError names the one that did); ``gamma`` and ``regularize_bias`` may:
        the solve uses their current values."""
        return self._partial_fit(X, y, None, sample_weight)

    def _stream_targets(self, y: np.ndarray) -> np.ndarray:
        return np.zeros(y.shape[0], dtype=np.int64)

    def _stream_solve(self, G: np.ndarray, t: np.ndarray, yy: np.ndarray, ww: np.ndarray) -> list[_System]:
        """The regression system from the sums of all rows: with ``standardize`` the target is centred and scaled by
        the exact (weighted) statistics of everything seen, Phi^T W (y - mu) / sd = (t - mu Phi^T W 1) / sd, where
        Phi^T W 1 is the bias column of G."""
        G0, t0 = G[0], t[0]
        W = float(G0[-1, -1])
        if self.standardize and W > 0:
            self.y_mean_ = float(t0[-1]) / W
            var = max(float(yy[0]) - W * self.y_mean_**2, 0.0) / weighted_variance_denominator_of_sums(W, float(ww[0]))
            sd = math.sqrt(var)
            self.y_scale_ = sd if sd > 0 else 1.0
        else:
            self.y_mean_, self.y_scale_ = 0.0, 1.0
        return [(G0, (t0 - self.y_mean_ * G0[:, -1]) / self.y_scale_, [0])]


class FixedSizeLSSVC(ClassifierMixin, _FixedSizeLSSVM):
    """Fixed-size LS-SVM classification (paper 002): least squares on ±1 codes, sign decision.

    All binary problems share one stratified prototype set and are tuned separately (decision:
    the paper's Section 8.4 does not say whether the prototypes are shared).

    Parameters
    ----------
    multiclass : {"ovo", "moc"}, default="ovo"
        One-vs-one (one binary model per class pair, trained on that pair's rows, majority vote, ties by the summed
        outputs) or minimum output coding (ceil(log2 M) bits, nearest valid codeword in Hamming distance, ties by
        Euclidean distance).
    n_prototypes, kernel, gamma, sigma2, cv, block_size, random_state, verbose
        As for :class:`FixedSizeLSSVR`.
    regularize_bias, standardize, n_csa, n_simplex, max_candidates, feature_memory, n_jobs, prototype_selection
    statistics, prototypes, max_time, gamma_search
        As for :class:`FixedSizeLSSVR` (its "Sample weights" section says where the weights enter).
    class_weight : dict, "balanced" or None, default=None
        Multiplies the sample weight of each row by its class's factor (``{label: weight}``, or "balanced":
        W / (k W_c) with W_c the class's weighted count); the fit is then the weighted one of
        :class:`FixedSizeLSSVR`'s "Sample weights" (each binary problem on its rows' weights).

    Attributes
    ----------
    classes_ : ndarray (n_classes,)
        The labels; ``classes_[1]`` is the positive class of a binary problem.
    coding_ : str
        ``"binary"``, ``"ovo"`` or ``"moc"``.
    pairs_ : list of (int, int)
        Class indices of the one-vs-one problems (``coding_ == "ovo"`` only).
    codebook_ : ndarray (n_classes, n_bits)
        The ±1 codeword of each class (``coding_ == "moc"`` only).
    n_prototypes_ : int
        m, the number of prototype vectors used (0 for the linear kernel).
    prototypes_ : ndarray (n_prototypes_, n_features) or None
        The prototype vectors on the standardized scale (None for the linear kernel).
    prototype_indices_ : ndarray of int or None
        Their rows in the training data: indices into the X passed to ``fit`` (into the first chunk for
        ``partial_fit``), counting the rows of weight 0 too (the prototypes are chosen among the rows of positive
        weight only); None when ``prototypes`` is given or the kernel is linear.
    entropy_bandwidths_ : ndarray (n_features,) or None
        Per-dimension plug-in bandwidths of the entropy criterion (None for random selection).
    entropy_log_offdiag_ : float or None
        Log of the off-diagonal entropy sum of the selected set (None without an entropy search).
    n_pv_proposals_ : int
        Swap proposals made by the prototype search (0 without an entropy search).
    n_bandwidth_fallbacks_ : int
        Dimensions whose plug-in bandwidth fell back to the normal reference rule (0 without an entropy search).
    kernel_mode_ : str
        ``"rbf"``, ``"linear"`` (explicit features) or ``"kernel"`` (a given :class:`svmopt.Kernel`).
    gamma_ : float or ndarray (n_problems,)
        Tuned (or given) regularization constant; one entry per binary problem for multi-class models.
    sigma2_ : float or ndarray (n_problems,)
        Tuned (or given) RBF bandwidth, likewise.
    cv_score_ : float or ndarray (n_problems,)
        The fast v-fold CV cost at ``(gamma_, sigma2_)`` (NaN when it was skipped: fixed hyperparameters, see
        ``cv`` and ``feature_memory``, or ``max_time`` spent), likewise.
    gamma_search_ : str
        The gamma search of the fit, "csa" or "path" (``gamma_search="auto"`` resolved: "csa" with gamma fixed, when
        sigma^2 alone, if anything, is searched by CSA + simplex).
    problems_ : list of dict
        Per binary/regression problem: the tuning record and the fitted coefficients (``"statistics"``: what the
        final fit summed, "features" or "kernel").
    x_mean_ : ndarray (n_features,)
        Means used to standardize the inputs (0 when ``standardize=False``).
    x_scale_ : ndarray (n_features,)
        Standard deviations used to standardize the inputs (1 when ``standardize=False``).
    timings_ : dict
        Seconds spent per stage (standardize, bandwidth, prototypes, tuning_and_fit, total).
    max_time_reached_ : bool
        Whether ``max_time`` cut a stage short (the model is the best found in the time).
    n_features_in_ : int
        Number of features seen during ``fit``.

    See Also
    --------
    FixedSizeLSSVR : The regressor (and the shared parameters).
    choose_n_prototypes : The paper's heuristic for m.
    RobustSVC : A kernel SVM solved as an LP (paper 000).

    References
    ----------
    .. [1] K. De Brabanter, J. De Brabanter, J. A. K. Suykens and B. De Moor, "Optimized fixed-size kernel models
       for large data sets", Computational Statistics & Data Analysis (Elsevier), 2010.

    Examples
    --------
    >>> from svmopt import FixedSizeLSSVC
    >>> from svmopt.datasets import load_dataset
    >>> X, y = load_dataset("wdbc")
    >>> clf = FixedSizeLSSVC(n_prototypes=50, random_state=0).fit(X, y)
    >>> clf.classes_.tolist(), clf.prototypes_.shape
    (['B', 'M'], (50, 30))
    >>> clf.score(X, y) > 0.9
    True
    """

    _task = "classification"

    _parameter_constraints: ClassVar[dict] = {
        **_FixedSizeLSSVM._parameter_constraints,
        "multiclass": [StrOptions({"ovo", "moc"})],
        "class_weight": CLASS_WEIGHT,
    }

    def __init__(self, *, n_prototypes: int | str = "auto", kernel: str | Kernel = "rbf", gamma: float | None = None,
                 sigma2: float | None = None, cv: Any = None, multiclass: str = "ovo", block_size: int | None = None,
                 random_state=None, verbose: bool = False, regularize_bias: bool = True, standardize: bool = True,
                 n_csa: int | None = None, n_simplex: int | None = None, max_candidates: int = MAX_CANDIDATES,
                 feature_memory: str | int = "1G", n_jobs: int | None = None, prototype_selection: str = "entropy",
                 statistics: str = "auto", prototypes=None, max_time: float | None = None, class_weight=None,
                 gamma_search: str = "auto"):
        super().__init__(n_prototypes=n_prototypes, kernel=kernel, gamma=gamma, sigma2=sigma2, cv=cv,
                         block_size=block_size, random_state=random_state, verbose=verbose,
                         regularize_bias=regularize_bias, standardize=standardize, n_csa=n_csa, n_simplex=n_simplex,
                         max_candidates=max_candidates, feature_memory=feature_memory, n_jobs=n_jobs,
                         prototype_selection=prototype_selection, statistics=statistics, prototypes=prototypes,
                         max_time=max_time, gamma_search=gamma_search)
        self.multiclass = multiclass
        self.class_weight = class_weight

    def _class_weight(self):
        return self.class_weight

    def _check_y(self, y):
        y = np.asarray(y)
        check_classification_targets(y)
        return y

    def _set_coding(self, M: int) -> None:
        """``coding_`` (and ``pairs_`` or ``codebook_``) for M >= 2 classes."""
        self.__dict__.pop("pairs_", None)  # from an earlier fit of another coding
        self.__dict__.pop("codebook_", None)
        if M == 2:
            self.coding_ = "binary"
        elif self.multiclass == "ovo":
            self.coding_ = "ovo"
            self.pairs_ = list(combinations(range(M), 2))
        else:
            self.coding_ = "moc"
            L = max(1, math.ceil(math.log2(M)))
            self.codebook_ = np.array([[1.0 if (c >> (L - 1 - j)) & 1 else -1.0 for j in range(L)]
                                       for c in range(M)])

    def _problems(self, y, w=None, dropped: bool = False):
        self.classes_, codes = np.unique(y, return_inverse=True)
        self._codes = codes
        M = self.classes_.size
        if M < 2 and dropped:
            raise ValueError(f"{type(self).__name__} needs samples of at least 2 classes, but the rows of positive "
                             f"weight (sample_weight times class_weight) hold only one class: {self.classes_[0]!r} "
                             "(got 1 class)")
        if M < 2:
            raise ValueError(f"{type(self).__name__} needs samples of at least 2 classes in the data, but the data "
                             f"contains only one class: {self.classes_[0]!r} (got 1 class)")
        self._set_coding(M)
        if M == 2:
            return [{"mask": None, "targets": np.where(codes == 1, 1.0, -1.0), "name": "binary"}]
        if self.multiclass == "ovo":
            probs = []
            for a, b in self.pairs_:
                mask = (codes == a) | (codes == b)
                probs.append({"mask": mask, "targets": np.where(codes[mask] == a, 1.0, -1.0),
                              "name": f"{self.classes_[a]} vs {self.classes_[b]}"})
            return probs
        return [{"mask": None, "targets": self.codebook_[codes, j], "name": f"MOC bit {j}"}
                for j in range(self.codebook_.shape[1])]

    @available_if(_FixedSizeLSSVM._fixed_hyperparameters)
    def partial_fit(self, X, y, classes=None, sample_weight=None):
        """Add a chunk of rows to the fit with fixed ``gamma`` and ``sigma2`` (required). ``classes`` (every label
        of the whole stream) is required on the first call, as for scikit-learn's ``SGDClassifier``; it fixes the
        coding. The first call takes ``prototypes`` or selects them from its chunk (and, with ``standardize``,
        fixes the input scaling from that chunk's statistics); every call adds, per class c, Phi_c^T W_c Phi_c and
        Phi_c^T w_c (the sums every binary problem's (7) is built from: a pair (a, b) has G_a + G_b and targets
        s_a - s_b), and the systems are solved again, so the model after any call is the fit on all rows seen.
        ``class_weight`` may be a dict ("balanced" needs the class counts of the whole stream: not supported).
        With ``prototypes`` given, many calls equal one ``fit`` on their concatenation (with ``standardize=False``
        or the same scaling) to rounding; otherwise the prototypes are selected from the first chunk alone, not from
        all rows as ``fit`` selects them. The parameters that define the features (``kernel``, ``sigma2``, the
        prototypes and their selection, ``statistics``, ``standardize``, ``multiclass``) must not change between
        calls (a ValueError names the one that did); ``gamma`` and ``regularize_bias`` may. ``fit`` keeps no sums:
        the first partial_fit call after it starts a new stream (``classes`` defaulting to the fitted
        ``classes_``)."""
        return self._partial_fit(X, y, classes, sample_weight)

    def _stream_targets(self, y: np.ndarray) -> np.ndarray:
        return np.searchsorted(self.classes_, y).astype(np.int64)

    def _stream_definition(self, mode: str, kern, sigma2) -> dict[str, Any]:
        """As for the regressor, and the coding of more than two classes (fixed by the first call)."""
        return {**super()._stream_definition(mode, kern, sigma2),
                "multiclass": self.multiclass if self.classes_.size > 2 else None}

    def _stream_solve(self, G: np.ndarray, t: np.ndarray, yy: np.ndarray, ww: np.ndarray) -> list[_System]:
        """Each binary problem's (Phi^T W Phi, Phi^T W y) from the per-class sums (targets +1 / -1)."""
        if self.coding_ == "binary":
            return [(G[0] + G[1], t[1] - t[0], [0, 1])]
        if self.coding_ == "ovo":
            return [(G[a] + G[b], t[a] - t[b], [a, b]) for a, b in self.pairs_]
        Gs, every = G.sum(axis=0), list(range(G.shape[0]))
        return [(Gs, np.tensordot(self.codebook_[:, j], t, axes=1), every) for j in range(self.codebook_.shape[1])]

    def _strata(self, y):
        return np.searchsorted(self.classes_, y).astype(np.int64)

    def decision_function(self, X):
        """Binary: the real output f(x) (> 0 means classes_[1]). Multiclass: one score per class whose argmax is
        the prediction (1vs1: votes plus the summed outputs squashed into (-1/3, 1/3); MOC: minus the Hamming
        distance to the class codeword minus a squashed Euclidean distance)."""
        F = self._raw_decision(X)
        if self.coding_ == "binary":
            return F[:, 0]
        M = self.classes_.size
        if self.coding_ == "ovo":
            votes = np.zeros((F.shape[0], M))
            conf = np.zeros((F.shape[0], M))
            for j, (a, b) in enumerate(self.pairs_):
                pos = F[:, j] >= 0
                votes[:, a] += pos
                votes[:, b] += ~pos
                conf[:, a] += F[:, j]
                conf[:, b] -= F[:, j]
            return votes + conf / (3.0 * (np.abs(conf) + 1.0))
        S = np.where(F >= 0, 1.0, -1.0)
        ham = (S[:, None, :] != self.codebook_[None, :, :]).sum(axis=2)
        euc = np.sqrt(((F[:, None, :] - self.codebook_[None, :, :]) ** 2).sum(axis=2))
        return -ham - euc / (1.0 + euc)

    def predict(self, X):
        """Class labels: sign of f (sign(0) = +1) for two classes, 1vs1 vote or MOC decoding otherwise."""
        D = self.decision_function(X)
        if D.ndim == 1:
            return self.classes_[(D >= 0).astype(int)]
        return self.classes_[np.argmax(D, axis=1)]
