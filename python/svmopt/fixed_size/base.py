"""The shared estimator of the optimized fixed-size LS-SVM (De Brabanter, De Brabanter, Suykens & De Moor, 2010):
:class:`FixedSizeLSSVM`, the base of ``FixedSizeLSSVC`` and ``FixedSizeLSSVR`` (:mod:`svmopt.fixed_size.estimators`):
their parameters, ``fit``, ``partial_fit`` and the compact predictor.

Pipeline (paper Algorithm 5, Sections 3-6 and 8.4):

1. standardize the inputs (train statistics; one streaming pass), and the target for regression;
2. entropy bandwidths ``h_j`` by the two-stage solve-the-equation plug-in per dimension (Algorithm 2,
   :mod:`svmopt._shared.bandwidth`);
3. ``m`` prototype vectors maximizing the quadratic Rényi entropy (12) with O(m d) log-domain swap updates in
   the C++ core (Algorithm 1; stratified by class for classification), or ``prototype_selection="random"``: m
   distinct rows drawn uniformly (the paper's Table 1 baseline) (:mod:`svmopt.fixed_size.selection`);
4. per binary/regression problem, (gamma, sigma^2) by coupled simulated annealing (90 evaluations) then
   Nelder–Mead (70) in log space, on the fast v-fold CV cost (19)–(21) (:mod:`svmopt.fixed_size.search`,
   :class:`svmopt.fixed_size.cv_engine.CVEngine`): one streaming pass over the data per sigma^2 accumulates the
   per-fold Phi_u^T Phi_u, Phi_u^T Y_u in C++ (``gamma_search="path"``, the default from PATH_MIN_ROWS tuning
   rows on: the search over log sigma^2 alone, gamma the best of a 31-value path on each pass's statistics). By
   default (``tune_rows``) a problem of more rows is tuned on a stratified sample of them held in memory, and
   each stage of the search stops once it stops improving (``n_iter_no_change``); ``tune_rows=None,
   n_iter_no_change=None`` is the paper's protocol;
5. the primal ridge solve (7) with the Nyström features (5) (eigenpairs with
   lambda <= m eps lambda_max dropped), bias penalized as printed (``regularize_bias=True``) or not, on all the
   problem's rows (one more pass when the tuning ran on a sample);
6. the compact predictor f(x) = sum_k beta_k K(x, PV_k) + b, beta = U' Lambda'^{-1/2} w (Section 3.2);
7. with ``probability=True`` (the classifier), a calibration of held-out decision values
   (:mod:`svmopt._shared.calibration`) by clones at the tuned values (:mod:`svmopt.fixed_size.calibrated`).

``X`` may be a numpy array, an ``np.memmap`` (read block by block, never copied whole), a callable returning
a fresh iterator of ``(X_block, y_block)`` pairs (one call per pass: the data are never held in memory; every call
must yield the same rows in the same order), a one-shot iterator of such pairs (materialized once), or a
``dask.array.Array`` (:mod:`svmopt.fixed_size.dask_engine`: each chunk's Nyström features and fold partial sums are
computed by the core on the worker holding it and the sums are tree-reduced; the candidate rows for the prototypes
are sampled from the dask array; with the same random_state the prototypes, folds and hence the fit equal the
in-memory ones up to floating-point summation order). Memory is O(block * m + v m^2) besides the input (for dask:
O(chunk * m) per worker task, O(v m^2) on the driver).

Weights, streaming, time. ``fit(X, y, sample_weight)`` (and ``class_weight`` for the classifier) solves the weighted
least-squares form of (7), min sum_i w_i (y_i - w^T phi(x_i) - b)^2 + ||[w; b]||^2 / gamma: the weights enter the
blockwise sums Phi^T W Phi and Phi^T W y (the bias column included), the fast CV cost (a weighted mean of the held-out
losses), and the standardization statistics; the prototypes are chosen among the rows of positive weight without
regard to the weight values. X may then be an array, an ``np.memmap`` or a dask array (each chunk's weighted sums
on its worker), not a block stream; rows of weight 0 are masked out of every pass, never copied out of X.
``partial_fit`` accumulates the same sums chunk by chunk with fixed hyperparameters (:mod:`svmopt.fixed_size.stream`);
``prototypes`` fixes the prototype vectors; ``max_time`` bounds the tuning (the search keeps its best point).

Kernels: ``"rbf"`` is K(x, z) = exp(-||x - z||^2 / sigma2) (the paper's and LS-SVMlab's convention; svmopt's
``Kernel("rbf", alpha=sqrt(sigma2 / 2))``); ``"linear"`` uses the inputs as explicit features (decision: equivalent to
the Nyström-linear model when the prototypes span R^d; gamma tuned alone); any other :class:`svmopt.Kernel` is used
as given through the Nyström map (gamma tuned alone).
"""

from __future__ import annotations

import functools
import numbers
import time
import types
from dataclasses import dataclass
from functools import cached_property
from typing import Any, ClassVar, cast

import numpy as np
from sklearn.base import BaseEstimator
from sklearn.utils.validation import check_is_fitted, check_random_state, validate_data

from svmopt import _core
from svmopt._shared.config import atomic_fit
from svmopt._shared.dask import is_dask_array, map_row_chunks
from svmopt._shared.prototypes import MAX_CANDIDATES
from svmopt._shared.runtime import TimeBudget, blas_controller
from svmopt._shared.sparse import as_csr, is_sparse
from svmopt._shared.splits import fold_ids, index_pairs
from svmopt._shared.validation import (
    NONNEGATIVE_INT,
    POSITIVE,
    POSITIVE_INT,
    SECONDS,
    Integral,
    Interval,
    Options,
    StrOptions,
    check_fit_weights,
    check_input,
    fit_context,
    real_array,
    shown,
    validate_params,
)
from svmopt.fixed_size.dask_engine import DaskSource
from svmopt.fixed_size.nystrom import rbf_params
from svmopt.fixed_size.search import N_ITER_NO_CHANGE, TUNE_ROWS, Problem, SearchRun, search_plan
from svmopt.fixed_size.selection import (
    PrototypeSet,
    candidate_rows,
    check_prototypes_mode,
    gather_rows,
    given,
    given_prototypes,
    select,
)
from svmopt.fixed_size.sources import DEFAULT_BLOCK, Source, dense_rows, input_blocks, input_scaling, load_source
from svmopt.fixed_size.stream import (
    RowBuffer,
    System,
    add_chunk,
    check_definition,
    chunk_accumulator,
    chunk_weights,
    require_fixed_hyperparameters,
    rows_needed,
    solve_stream,
    start_stream,
    stream_params,
)
from svmopt.kernels import Kernel


@dataclass
class TrainingRows:
    """The rows a fit trains on, those of positive weight: their labels ``y``, weights ``w`` (None: unweighted),
    fold ids ``folds`` (None: drawn per problem) and indices ``kept`` among X's ``n_rows`` rows (None: all)."""

    y: np.ndarray
    n_rows: int
    w: np.ndarray | None = None
    folds: np.ndarray | None = None
    kept: np.ndarray | None = None

    @property
    def n(self) -> int:
        return self.y.shape[0]

    @cached_property
    def kept_mask(self) -> np.ndarray:
        """The kept rows as a mask over X's rows."""
        mask = np.zeros(self.n_rows, dtype=bool)
        mask[self.kept] = True
        return mask

    def assign(self, problem: Problem) -> Problem:
        """The problem (its mask and targets over the kept rows) with its weights, its folds and its row mask over
        X's rows: rows of weight 0 out of every problem's row mask, X itself not copied."""
        mask = problem.mask
        problem.weights = None if self.w is None else (self.w if mask is None else self.w[mask])
        problem.folds = None if self.folds is None else (self.folds if mask is None else self.folds[mask])
        if self.kept is not None and mask is not None:
            problem.mask = np.zeros(self.n_rows, dtype=bool)
            problem.mask[self.kept[mask]] = True
        elif self.kept is not None:
            problem.mask = self.kept_mask
        return problem

    def row_weights(self) -> np.ndarray | None:
        """The standardization's weight per row of X: 0 for the rows left out (they add nothing to the weighted sums
        nor to weighted_variance_denominator), 1 for kept rows of an unweighted fit; None: all rows, unweighted."""
        if self.kept is None:
            return self.w
        w_rows = np.zeros(self.n_rows)
        w_rows[self.kept] = 1.0 if self.w is None else self.w
        return w_rows


class FixedHyperparametersError(ValueError, AttributeError):
    """``partial_fit`` of a model whose ``gamma`` (or RBF ``sigma2``) is None (tuned by ``fit``; a stream is not
    tuned): a ValueError naming them, and an AttributeError so that ``hasattr(est, "partial_fit")`` is False, as
    scikit-learn's ``NotFittedError`` is both."""


class ProbabilityStreamError(ValueError, AttributeError):
    """``partial_fit`` of a classifier with ``probability=True``: refused by name (a ValueError), and absent
    (an AttributeError: ``hasattr(est, "partial_fit")`` is False), as for tuned hyperparameters."""


class only_with_fixed_hyperparameters:
    """The ``partial_fit`` descriptor: the method when :meth:`FixedSizeLSSVM._fixed_hyperparameters` holds, else
    its :class:`FixedHyperparametersError` (or :class:`ProbabilityStreamError`) on access, not "no attribute"."""

    def __init__(self, fn: Any):
        self.fn = fn
        functools.update_wrapper(cast(Any, self), fn)

    def __get__(self, obj: Any, owner: Any = None) -> Any:
        if obj is None:
            return self.fn
        obj._fixed_hyperparameters()
        return types.MethodType(self.fn, obj)


class FixedSizeLSSVM(BaseEstimator):
    """The parameters, ``fit``, ``partial_fit`` and prediction shared by FixedSizeLSSVC and FixedSizeLSSVR; the
    subclasses define the problems (:meth:`_problems`) and the systems of a stream (:meth:`_stream_solve`)."""

    def __setstate__(self, state: dict) -> None:
        """A model pickled before ``gamma_search_`` was recorded gets the search it ran (its ``gamma_search``)."""
        if "problems_" in state and "gamma_search_" not in state:
            state = {**state, "gamma_search_": state.get("gamma_search", "csa")}
        super().__setstate__(state)

    _task = "regression"
    _parameter_constraints: ClassVar[dict] = {
        "n_prototypes": [POSITIVE_INT, StrOptions({"auto"})],
        "kernel": [StrOptions({"rbf", "linear"}), Kernel],
        "gamma": [POSITIVE, "array-like", None],  # None: tuned by CSA + simplex; an array: one per problem
        "sigma2": [POSITIVE, "array-like", None],
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
        "tune_rows": [Interval(Integral, 2, None, closed="left"), None],  # None: tuned on every row (the paper)
        "n_iter_no_change": [POSITIVE_INT, None],  # None: the whole budget (the paper)
    }

    def __init__(self, *, n_prototypes: int | str = "auto", kernel: str | Kernel = "rbf", gamma: float | None = None,
                 sigma2: float | None = None, cv: Any = None, block_size: int | None = None, random_state=None,
                 verbose: bool = False, regularize_bias: bool = True, standardize: bool = True,
                 n_csa: int | None = None, n_simplex: int | None = None, max_candidates: int = MAX_CANDIDATES,
                 feature_memory: str | int = "1G", n_jobs: int | None = None,
                 prototype_selection: str = "entropy", statistics: str = "auto", prototypes=None,
                 max_time: float | None = None, gamma_search: str = "auto", tune_rows: int | None = TUNE_ROWS,
                 n_iter_no_change: int | None = N_ITER_NO_CHANGE):
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
        self.tune_rows = tune_rows
        self.n_iter_no_change = n_iter_no_change

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

    def _per_problem(self, name: str, value: Any, n_problems: int) -> float | np.ndarray | None:
        """A given ``gamma`` or ``sigma2``: None (tuned), one number for every problem, or one per problem (an
        array-like of ``n_problems`` finite values > 0: the binary problems of the coding, as ``gamma_`` and
        ``sigma2_`` of a multi-class fit list them)."""
        if value is None or np.ndim(value) == 0:
            return None if value is None else float(value)
        arr = real_array(value, name)
        if arr.ndim != 1 or arr.size not in (1, n_problems):
            raise ValueError(f"{name} must be a number or hold one value per binary problem ({n_problems} here), "
                             f"got shape {arr.shape}")
        if not (np.all(np.isfinite(arr)) and np.all(arr > 0)):
            raise ValueError(f"{name} must hold finite values > 0, got {shown(value)}")
        return float(arr[0]) if arr.size == 1 else arr

    # -- what the subclasses define -------------------------------------------------------------------
    def _check_y(self, y):
        return np.asarray(y, dtype=np.float64)

    def _problems(self, y, w=None, dropped: bool = False) -> list[Problem]:
        """The binary/regression problems on the labels ``y`` of the rows of positive weight (weights ``w``;
        ``dropped``: rows of weight 0 were left out)."""
        raise NotImplementedError

    def _class_weight(self):
        return None

    def _strata(self, y):
        return None

    # -- fitting -----------------------------------------------------------------------------------
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
            with blas_controller().limit(limits=int(nj), user_api="blas"):
                return self._fit(X, y, sample_weight)
        return self._fit(X, y, sample_weight)

    def _fit(self, X, y, sample_weight=None):
        t0 = time.perf_counter()
        tbudget = TimeBudget(self.max_time)
        # validate
        mode, kern, sigma2_fixed = self._resolved()
        check_prototypes_mode(mode, self.prototypes)
        self._check_probability(X)
        rng = np.random.default_rng(check_random_state(self.random_state).randint(0, 2**31 - 1, size=4))
        src, y, d = load_source(self, X, y, int(self.block_size or DEFAULT_BLOCK))
        rows = self._training_rows(src, y, sample_weight)
        self._check_probability(None, rows.y)
        PV_given = given_prototypes(self.prototypes, d) if self.prototypes is not None else None
        # resolve: the problems on the rows of positive weight (masks, targets, weights, folds), and the search
        problems = [rows.assign(p) for p in self._problems(rows.y, rows.w, rows.kept is not None)]
        plan = search_plan(self, rows.n, mode, kern, self._per_problem("gamma", self.gamma, len(problems)),
                           self._per_problem("sigma2", sigma2_fixed, len(problems)) if mode == "rbf" else None, d)
        # 1. standardize
        mean, scale = input_scaling(src, d, self.standardize, rows.row_weights(), rows.n)
        timings = {"standardize": time.perf_counter() - t0}
        # 2-3. select: entropy bandwidths and prototype vectors on the candidate rows (or the given prototypes)
        prototypes = self._prototypes(src, rows, mode, PV_given, rng)
        timings.update(prototypes.seconds)
        # 4-5. solve: tuning and final fit per problem
        t3 = time.perf_counter()
        run = SearchRun(src, prototypes.PV, plan, rng, tbudget)
        fitted = [run.solve(problem, j) for j, problem in enumerate(problems)]
        timings["tuning_and_fit"] = time.perf_counter() - t3
        timings["total"] = time.perf_counter() - t0
        # set the attributes
        self._stream = self._buffer = None  # a fit keeps no statistics (nor rows) for partial_fit
        self.gamma_search_ = plan.search
        self.x_mean_, self.x_scale_ = mean, scale
        prototypes.set_attributes(self, mode)
        self.problems_ = fitted
        self.timings_ = timings
        self._set_hyperparameters()
        tbudget.finish(self)
        self._after_fit(src, y, sample_weight, tbudget)
        return self

    def _check_probability(self, X: Any, y_kept: np.ndarray | None = None) -> None:
        """What ``probability=True`` needs, checked before the work that needs it (the classifier's; nothing
        here): ``X`` as given (before any pass), then the labels of the rows of positive weight."""

    def _after_fit(self, src: Source | DaskSource, y: np.ndarray, sample_weight: Any, tbudget: TimeBudget) -> None:
        """After the model's fit, on its validated input (the classifier's calibration; nothing here)."""

    def _training_rows(self, src: Source | DaskSource, y: np.ndarray, sample_weight) -> TrainingRows:
        """The rows of positive weight: their labels, their weights, the fold ids from a ``cv`` of splits (the
        splitter's or the pairs' test sets over X's rows, :func:`svmopt._shared.splits.index_pairs`, restricted to
        the kept rows), and their indices among the rows of X. The source itself is left as it is: rows of weight
        0 are masked out of every problem, never copied out of X."""
        cw = self._class_weight()
        custom_cv = self.cv is not None and not isinstance(self.cv, numbers.Integral)
        n = y.shape[0]
        if sample_weight is None and cw is None and not custom_cv:
            return TrainingRows(y, n)
        X = src.X if isinstance(src, DaskSource) else src.array
        if X is None:
            raise ValueError("sample_weight, class_weight and a cv of splits need X as a numpy array, an np.memmap "
                             "or a dask array (not a block stream)")
        _, y_kept, w, kept = check_fit_weights(np.empty((n, 0)), y, sample_weight, cw, return_kept=True)
        folds = fold_ids(index_pairs(self.cv, n, X=X, y=y), n) if custom_cv else None
        if kept is not None and folds is not None:
            folds = folds[kept]
        return TrainingRows(y_kept, n, w, folds, kept)

    def _prototypes(self, src: Source | DaskSource, rows: TrainingRows, mode: str, PV_given: np.ndarray | None,
                    rng: np.random.Generator) -> PrototypeSet:
        """The given prototypes (none for the linear kernel), or those selected among candidates drawn from the
        rows of positive weight (gathered from X's rows)."""
        if mode == "linear" or PV_given is not None:
            return given(PV_given)
        cand = candidate_rows(rows.n, self.max_candidates, rng)
        at = cand if rows.kept is None else rows.kept[cand]
        prototypes = select(gather_rows(src, at, self.n_features_in_), self._strata(rows.y[cand]), rng, rows.n,
                            self.n_prototypes, self.prototype_selection)
        prototypes.indices = at[prototypes.indices]
        return prototypes

    def _set_hyperparameters(self) -> None:
        self.kernel_ = self._fitted_kernel()
        if len(self.problems_) == 1:
            self.gamma_ = self.problems_[0]["gamma"]
            self.sigma2_ = self.problems_[0]["sigma2"]
            self.cv_score_ = self.problems_[0]["cv_score"]
        else:
            self.gamma_ = np.array([p["gamma"] for p in self.problems_])
            self.sigma2_ = np.array([p["sigma2"] for p in self.problems_])
            self.cv_score_ = np.array([p["cv_score"] for p in self.problems_])

    def _fitted_kernel(self) -> Kernel | list[Kernel]:
        """``kernel_``: the kernel of the fitted model as a :class:`svmopt.Kernel` -- the RBF of sigma^2,
        ``Kernel("rbf", alpha=sqrt(sigma2 / 2))`` (K = exp(-||x - z||^2 / sigma2)), a list of one per problem when
        the problems' sigma^2 differ; ``Kernel("linear")``; or the kernel given."""
        if self.kernel_mode_ == "linear":
            return Kernel("linear")
        if self.kernel_mode_ == "kernel":
            return cast(Kernel, self.kernel)
        kernels = [Kernel("rbf", alpha=float(np.sqrt(p["sigma2"] / 2.0))) for p in self.problems_]
        return kernels[0] if all(k == kernels[0] for k in kernels) else kernels

    # -- streaming fit (partial_fit) -----------------------------------------------------------------
    def _fixed_hyperparameters(self) -> bool:
        """partial_fit exists only with fixed hyperparameters (as scikit-learn's MLPClassifier.partial_fit exists only
        for its stochastic solvers): a :class:`FixedHyperparametersError` naming the missing ones otherwise; nor with
        ``probability=True`` (:class:`ProbabilityStreamError`)."""
        if getattr(self, "probability", False):
            raise ProbabilityStreamError("probability=True is not available with partial_fit: its calibration needs "
                                         "held-out decision values from folds of all the rows, which a stream does "
                                         "not keep; leave probability=False, or fit on the rows in memory")
        try:
            mode, _, sigma2 = self._resolved()
        except ValueError:  # an unresolved kernel: partial_fit raises it
            return True
        try:
            require_fixed_hyperparameters(mode, self.gamma, sigma2)
        except AttributeError as exc:
            raise FixedHyperparametersError(str(exc)) from None
        return True

    def _stream_targets(self, y: np.ndarray) -> np.ndarray:
        raise NotImplementedError

    def _stream_classes(self, y: np.ndarray, classes, first: bool) -> None:
        """The classes of a stream (the classifier's; nothing for the regressor)."""

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

    def _stream_solve(self, G: np.ndarray, t: np.ndarray, yy: np.ndarray, ww: np.ndarray) -> list[System]:
        raise NotImplementedError

    def _partial_fit(self, X, y, classes, sample_weight):
        return atomic_fit(type(self)._partial_fit_impl)(self, X, y, classes, sample_weight)

    def _partial_fit_impl(self, X, y, classes, sample_weight):
        t0 = time.perf_counter()
        buffer: RowBuffer | None = getattr(self, "_buffer", None)
        first = getattr(self, "_stream", None) is None and buffer is None
        # validate: the parameters (first call), the chunk, its classes, the stream's definition, the weights
        if first:
            validate_params(self)
        if first:
            self.__dict__.pop("calibration_", None)  # a stream's model is not an earlier fit's calibrated one
        mode, kern, sigma2 = self._resolved()
        if first:
            check_prototypes_mode(mode, self.prototypes)
        for name, value in (("gamma", self.gamma), ("sigma2", sigma2 if mode == "rbf" else None)):
            if value is not None and np.ndim(value) != 0:
                raise ValueError(f"partial_fit takes one number for {name} (every class's sums share one feature "
                                 f"map and one solve), got {shown(value)}; fit takes one value per binary problem")
        check_input(X, "X")
        check_input(y, "y")
        X, y = validate_data(self, X, y, dtype=np.float64, reset=first, y_numeric=self._task == "regression",
                             accept_sparse=("csr", "csc"))
        X = dense_rows(X, "a partial_fit chunk of sparse rows") if is_sparse(X) else X  # the chunk, memory-checked
        y = self._check_y(y)
        self._stream_classes(y, classes, first)
        definition = self._stream_definition(mode, kern, sigma2)
        if not first:
            check_definition(buffer.definition if buffer is not None else (self._stream or {}).get("definition"),
                             definition)
        n_given = X.shape[0]
        X, y, w, kept = chunk_weights(X, y, sample_weight, self._class_weight(), getattr(self, "classes_", None),
                                      first)
        if first and X.shape[0] == 0:
            raise ValueError("the first partial_fit chunk has no rows of positive weight (sample_weight times "
                             "class_weight): the input scaling and the prototypes are chosen from the first rows")
        # until rows_needed rows have arrived, they wait (the prototypes are chosen among them); then they are the
        # first chunk: the input scaling, prototypes, the feature map, empty sums
        if buffer is not None or first:
            buffer = buffer if buffer is not None else RowBuffer(rows_needed(self, mode), definition)
            buffer.add(X, y, w, kept, n_given)
            if buffer.n < buffer.needed:
                self.__dict__.pop("problems_", None)  # a model of an earlier fit is not this stream's
                self._buffer, self._stream = buffer, None
                return self
            X, y, w, kept = buffer.rows()
            start = start_stream(self, X, y, w, mode, kern, sigma2, kept)
            self.x_mean_, self.x_scale_ = start.mean, start.scale
            start.prototypes.set_attributes(self, mode)
            self.timings_ = dict(start.prototypes.seconds)
            state = {**start.state, "definition": definition}
        else:
            state = dict(self._stream or {})
        # the chunk's sums
        if X.shape[0]:
            acc = chunk_accumulator(self.prototypes_, stream_params(mode, kern, sigma2), state["P"],
                                    self.n_features_in_, state["G"].shape[0], self.statistics)
            target = np.ones(y.shape[0]) if self._task == "classification" else np.asarray(y, dtype=np.float64)
            add_chunk(state, acc, np.ascontiguousarray((X - self.x_mean_) / self.x_scale_), target,
                      self._stream_targets(y), w, self._task == "regression")
        self._stream, self._buffer = state, None
        # solve: the model of all rows seen so far (7), after every call, so predictions are always current
        gamma = float(self.gamma or 0.0)  # set: partial_fit exists only with fixed hyperparameters
        systems = self._stream_solve(state["G"], state["t"], state["yy"], state["ww"])
        self.problems_ = solve_stream(systems, state, gamma, self.regularize_bias, self.statistics)
        # set the attributes
        self.gamma_search_ = "csa" if self.gamma_search == "auto" else self.gamma_search  # nothing searched
        self._set_hyperparameters()
        self.timings_ = {**getattr(self, "timings_", {}), "partial_fit": time.perf_counter() - t0}
        self.max_time_reached_ = False
        return self

    # -- prediction --------------------------------------------------------------------------------
    def _raw_decision(self, X) -> np.ndarray:
        """Real outputs of every binary/regression problem (n x L), streaming in blocks."""
        buffer = getattr(self, "_buffer", None)
        if buffer is not None and not hasattr(self, "problems_"):  # a stream still waiting for its first rows
            raise buffer.not_fitted(self)
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
            check_input(X, "X")
            X = validate_data(self, X, dtype=np.float64, reset=False, accept_sparse=("csr", "csc"))
            X = as_csr(X, "X") if is_sparse(X) else X  # dense blocks of its rows below
        block = int(self.block_size or DEFAULT_BLOCK)
        out = np.empty((X.shape[0], len(self.problems_)))
        groups: dict[float, list[int]] = {}
        for j, p in enumerate(self.problems_):
            groups.setdefault(p["sigma2"] if self.kernel_mode_ == "rbf" else 0.0, []).append(j)
        PV = self.prototypes_  # None for the linear kernel (explicit features)
        fixed = self.kernel.core_params if self.kernel_mode_ == "kernel" and isinstance(self.kernel, Kernel) else None
        for s, xb in input_blocks(X, block):
            xb = np.ascontiguousarray((xb - self.x_mean_) / self.x_scale_)
            for s2, js in groups.items():
                V = np.ascontiguousarray(np.column_stack([self.problems_[j]["coef"] for j in js]), dtype=np.float64)
                if PV is None:
                    f = xb @ V
                else:
                    params = fixed if fixed is not None else rbf_params(s2)
                    f = _core.kernels.matvec(xb, PV, V, params)
                out[s:s + xb.shape[0], js] = f + np.array([self.problems_[j]["intercept"] for j in js])
        return out

    def __sklearn_tags__(self):
        tags = super().__sklearn_tags__()
        tags.non_deterministic = False
        tags.input_tags.sparse = True  # CSR/CSC, dense a block of rows at a time (svmopt.fixed_size.sources)
        return tags
