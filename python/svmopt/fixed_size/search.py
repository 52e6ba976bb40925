"""The tuning and final fit of each binary/regression problem of a fixed-size LS-SVM (paper 002, Sections 6 and 3.2;
Algorithm 5 steps 4-5).

A fit resolves one :class:`SearchPlan` (:func:`search_plan`: the search, its budget, the engine's settings), and a
:class:`SearchRun` solves its :class:`Problem`\\ s in order: (gamma, sigma^2) by coupled simulated annealing then
Nelder–Mead in log space on the fast v-fold CV cost (19)-(21), or gamma the best of :data:`GAMMA_PATH` at every
sigma^2 (``gamma_search="path"``), or the given values with an informational CV score; then the ridge solve (7) on
all the problem's rows. A problem of more than ``tune_rows`` rows is tuned on a stratified sample of them
(:meth:`SearchRun._sample`, held in memory), then solved on all of them in one pass; ``n_iter_no_change`` stops each
stage of the search (:class:`svmopt.fixed_size.tuning.StallStop`). The CV engine is the core's (:class:`CoreCVEngine`:
rows in memory, features within the
budget), the streamed one (:class:`CVEngine`) or the Dask one (:class:`DaskCVEngine`).
"""

from __future__ import annotations

import contextlib
import logging
import math
import numbers
from collections.abc import Iterable, Iterator
from dataclasses import dataclass
from typing import Any, cast

import numpy as np

from svmopt import _core
from svmopt._shared.config import parse_bytes
from svmopt._shared.runtime import TimeBudget, blas_controller
from svmopt._shared.runtime import progress as progress_bar
from svmopt._shared.splits import random_folds
from svmopt.fixed_size.cv_engine import CoreCVEngine, CVEngine
from svmopt.fixed_size.dask_engine import DaskCVEngine, DaskSource
from svmopt.fixed_size.nystrom import Block, ParamsFactory, Statistics, rbf_params, resolve_statistics
from svmopt.fixed_size.selection import gather_rows
from svmopt.fixed_size.sources import DEFAULT_BLOCK, Source
from svmopt.fixed_size.tuning import GAMMA_PATH, StallStop, csa_simplex, path_choice

logger = logging.getLogger(__name__)

#: ``gamma_search="auto"``: the paper's CSA + simplex search over gamma (Section 6) below this many training rows
#: (all problems together), the gamma path from it on. The joint search pays one pass over the data for nearly every
#: one of its 160 evaluations; at 5·10⁴ rows (m = 500, d = 20) it took 133 s against the path's 39 s, for test
#: accuracies 0.08 points apart (81.84 % and 81.76 %; docs/performance.md#tuning-along-the-gamma-path). With sigma^2
#: fixed the path is a grid
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
#: ten fold solves took 4.1 s of a 17.7 s pass; at m = 1000, 10⁶ rows, 0.8 s of 17 s
#: (docs/performance_log.md#reruns-against-scikit-learn).
FIXED_CV_FLOPS = 1e10
#: The defaults of ``tune_rows`` and ``n_iter_no_change``: the tuning of a problem of more rows runs on a stratified
#: sample of TUNE_ROWS of them, and each stage of CSA + simplex stops after N_ITER_NO_CHANGE evaluations that did not
#: improve the best CV cost (docs/guide/fixed_size.md#tuning-on-a-sample-tune_rows has the measurements behind both).
TUNE_ROWS = 2000
N_ITER_NO_CHANGE = 20
#: A search over n rows of p features (p = m + 1) with n p^2 at most this runs on one thread, its core loops and its
#: BLAS (unless ``n_jobs`` is a positive number): its factorizations and products of order m are too small to gain
#: from threads and lose much to their synchronization on a busy machine. A new sigma^2 of 2,000 rows at m = 500
#: took 90 ms of CPU on one thread against 1,120 ms on two (m = 200: 14 against 300 ms), the wall time falling
#: likewise.
SMALL_SEARCH = 1e10
#: ``tune_rows``: the gamma tuned on a sample of a problem's rows is used on all of them as
#: gamma * (W_sample / W_all) ** GAMMA_TRANSFER, W the rows' weight sums (their counts unweighted). The loss of (7)
#: sums over the rows and its penalty ||theta||^2 / gamma does not, so at 1 every row is penalized as in the sample's
#: fold models. At 10^6 x 20 rows (m = 500, 100,000 test rows, random_state 0-2) the values tuned on 2,000 rows gave
#: 80.97-82.48 % with it against 79.71-80.11 % with gamma as tuned (exponent 0), where the search on every row
#: reached 82.48 %; the regression's test MSE was lower at 0 (0.468-0.485 against 0.477-0.499). On the data store's
#: binary sets of 3,220-14,000 training rows exponent 0 was -0.1 to +0.3 points from 1
#: (benchmarks/results/tune_sample.json, docs/guide/fixed_size.md#tuning-on-a-sample-tune_rows).
GAMMA_TRANSFER = 1.0


@dataclass
class Problem:
    """One binary/regression problem of a fit: the targets of its rows (row order), the rows of X it takes
    (``mask``, None: all), their weights (None: unweighted) and fold ids (None: drawn per problem)."""

    name: str
    targets: np.ndarray
    mask: np.ndarray | None = None
    weights: np.ndarray | None = None
    folds: np.ndarray | None = None


@dataclass(frozen=True)
class FixedKernel:
    """The ``make_params`` of a given kernel: its own core parameters at every sigma^2."""

    params: _core.kernels.KernelParams

    def __call__(self, sigma2: float) -> _core.kernels.KernelParams:
        return self.params


@dataclass(frozen=True)
class SearchPlan:
    """How a fit tunes and solves each of its problems, resolved once from the estimator's parameters."""

    task: str  # "classification" or "regression"
    mode: str  # "rbf", "linear" (explicit features) or "kernel" (a given Kernel)
    make_params: ParamsFactory  # sigma^2 -> the core's kernel parameters
    n_features: int
    gamma: float | np.ndarray | None  # given, one value or one per problem (None: tuned)
    sigma2: float | np.ndarray | None  # fixed, likewise (None: tuned, with the RBF kernel)
    search: str  # "csa" or "path"
    n_csa: int
    n_simplex: int
    n_folds: int | None  # folds drawn per problem (None: cv given as splits, the problem's own folds)
    cv_given: bool  # cv is not None (the informational CV score of fixed hyperparameters is then always computed)
    regularize_bias: bool
    statistics: str
    feature_budget: int
    n_threads: int
    verbose: bool
    block_size: int
    tune_rows: int | None = None  # the tuning of a problem of more rows runs on a sample of this many (None: all)
    n_iter_no_change: int | None = None  # each search stage stops after this many evaluations without improvement

    @property
    def tunes_sigma2(self) -> bool:
        """Whether sigma^2 is searched: an RBF kernel whose bandwidth is neither given nor fixed by the kernel."""
        return _tunes_sigma2(self.mode, self.sigma2)

    def values(self, index: int) -> tuple[float | None, float | None]:
        """(gamma, sigma^2) given for problem ``index`` (None: tuned)."""
        return value_at(self.gamma, index), value_at(self.sigma2, index)


def value_at(value: float | np.ndarray | None, index: int) -> float | None:
    """A hyperparameter given as one value or one per problem, for problem ``index`` (None: tuned)."""
    if value is None:
        return None
    return float(value[index]) if isinstance(value, np.ndarray) else float(value)


@dataclass
class Tuned:
    """The outcome of one problem's tuning: (gamma, sigma^2), the CV cost there (NaN: not computed), evaluations."""

    gamma: float
    sigma2: float
    cv_score: float = math.nan
    n_evals: int = 0
    stopped_early: bool = False  # a stage of the search stopped by n_iter_no_change


def _tunes_sigma2(mode: str, sigma2_fixed: float | np.ndarray | None) -> bool:
    return mode == "rbf" and sigma2_fixed is None


def search_plan(est: Any, n: int, mode: str, kern: Any, gamma_fixed: float | np.ndarray | None,
                sigma2_fixed: float | np.ndarray | None, d: int) -> SearchPlan:
    """The plan of ``est``'s fit on n training rows: ``gamma_search`` with "auto" resolved (the path from
    PATH_MIN_ROWS tuning rows on -- the rows, or ``tune_rows`` when fewer and no cv of splits is given; logged)
    and the budgets None stands for: SIGMA2_BUDGET where the search runs over sigma^2 alone (the path, or gamma
    fixed), JOINT_BUDGET otherwise."""
    search = est.gamma_search
    cv = est.cv
    splits = cv is not None and not isinstance(cv, numbers.Integral)
    tune_rows = None if est.tune_rows is None or splits else int(est.tune_rows)
    n_tune = n if tune_rows is None else min(n, tune_rows)
    if search == "auto":
        search = "path" if n_tune >= PATH_MIN_ROWS and gamma_fixed is None else "csa"
    tunes_sigma = _tunes_sigma2(mode, sigma2_fixed)
    n_csa, n_simplex = SIGMA2_BUDGET if tunes_sigma and (search == "path" or gamma_fixed is not None) \
        else JOINT_BUDGET
    n_csa = n_csa if est.n_csa is None else int(est.n_csa)
    n_simplex = n_simplex if est.n_simplex is None else int(est.n_simplex)
    if est.gamma_search == "auto" and gamma_fixed is None:
        logger.info("%s: gamma_search='auto' chose %r for %d tuning rows (%s %d; %s)", type(est).__name__,
                    search, n_tune, ">=" if n_tune >= PATH_MIN_ROWS else "<", PATH_MIN_ROWS,
                    f"n_csa={n_csa}, n_simplex={n_simplex}" if tunes_sigma or search == "csa"
                    else "a grid over gamma at the fixed kernel")
    return SearchPlan(
        task=est._task, mode=mode, make_params=FixedKernel(kern.core_params) if mode == "kernel" else rbf_params,
        n_features=d, gamma=gamma_fixed, sigma2=sigma2_fixed, search=search,
        n_csa=n_csa, n_simplex=n_simplex,
        n_folds=10 if cv is None else (int(cv) if isinstance(cv, numbers.Integral) else None),
        cv_given=cv is not None, regularize_bias=est.regularize_bias, statistics=est.statistics,
        feature_budget=parse_bytes(est.feature_memory, "feature_memory"),
        n_threads=0 if est.n_jobs in (None, -1) else int(est.n_jobs), verbose=bool(est.verbose),
        block_size=int(est.block_size or DEFAULT_BLOCK), tune_rows=tune_rows,
        n_iter_no_change=None if est.n_iter_no_change is None else int(est.n_iter_no_change))


def fixed_cv_flops(PV: np.ndarray | None, v: int, statistics: str) -> float:
    """Flops of the v fold solves of one CV cost evaluation (see FIXED_CV_FLOPS): the Cholesky factorizations,
    and the kernel statistics' map by P unless the features' statistics are summed (``statistics="features"``,
    or the linear kernel's explicit features, whose width is n_features, not m)."""
    if PV is None:
        return 0.0
    m1 = float(PV.shape[0] + 1)
    return v * m1**3 * (1.0 / 3.0 + (0.0 if statistics == "features" else 4.0))


@dataclass
class ProblemBlocks:
    """The blocks of one problem, one pass per call: the source's standardized row blocks restricted to the
    problem's rows (``mask``, None: all), each with its targets ``T``."""

    src: Source
    T: np.ndarray
    mask: np.ndarray | None

    def __call__(self) -> Iterator[Block]:
        T, mask = self.T, self.mask
        r0, t0 = 0, 0
        for xb, _ in self.src.blocks():
            nb = xb.shape[0]
            if mask is None:
                yield xb, np.ascontiguousarray(T[r0:r0 + nb])
            else:
                mb = mask[r0:r0 + nb]
                k = int(mb.sum())
                if k:
                    yield np.ascontiguousarray(xb[mb]), np.ascontiguousarray(T[t0:t0 + k])
                t0 += k
            r0 += nb


def row_block_progress(blocks: Iterable[Block]) -> Iterable[Block]:
    """A progress bar over the row blocks of one pass (``verbose``)."""
    from tqdm.auto import tqdm

    return tqdm(blocks, desc="row blocks", leave=False, unit="block")


class GammaPath:
    """The cost of a sigma^2 under ``gamma_search="path"``: the best fast CV cost over :data:`GAMMA_PATH` on that
    sigma^2's fold statistics; remembers the gamma chosen at every sigma^2 scored."""

    def __init__(self, engine: Any):
        self.engine = engine
        self.gamma: dict[float, float] = {}

    def __call__(self, sigma2: float) -> float:
        costs = self.engine.cost_path(GAMMA_PATH, sigma2)
        i = path_choice(costs)
        self.gamma[sigma2] = float(GAMMA_PATH[i])
        return float(costs[i])


@dataclass
class SearchSpace:
    """The box of CSA + simplex, x = (log gamma, log sigma^2) of the searched ones (gamma not, on a path), and the
    values of the others; bounds as in the paper's Section 6 (log gamma in [-10, 20], log sigma^2 within 10 of
    log d), initial states in a narrower box."""

    gamma: float
    sigma2: float
    search_gamma: bool
    search_sigma2: bool
    path: GammaPath | None
    n_features: int

    def bounds(self) -> tuple[list[float], list[float], list[float], list[float]]:
        """(lower, upper, initial lower, initial upper)."""
        boxes: list[tuple[float, float, float, float]] = []
        if self.search_gamma:
            boxes.append((-10.0, 20.0, 0.0, 10.0))
        if self.search_sigma2:
            ld = math.log(self.n_features)
            boxes.append((ld - 10, ld + 10, ld - 3, ld + 3))
        lo, hi, ilo, ihi = ([box[i] for box in boxes] for i in range(4))
        return lo, hi, ilo, ihi

    def point(self, x) -> tuple[float, float]:
        """(gamma, sigma^2) of a point x of the search."""
        s = math.exp(x[-1]) if self.search_sigma2 else self.sigma2
        if self.path is not None:
            return self.path.gamma.get(s, self.gamma), s
        return (math.exp(x[0]) if self.search_gamma else self.gamma), s


class SearchCost:
    """The search's cost of a point x: the CV cost (19)-(21) at its (gamma, sigma^2), or the gamma path's at its
    sigma^2; +inf where a fold system cannot be solved. Advances the progress bar."""

    def __init__(self, space: SearchSpace, engine: Any, bar: Any):
        self.space, self.engine, self.bar = space, engine, bar

    def __call__(self, x) -> float:
        g, s = self.space.point(x)
        self.bar.update(1)
        try:
            return self.space.path(s) if self.space.path is not None else self.engine.cost(g, s)
        except (RuntimeError, np.linalg.LinAlgError, ValueError):
            return math.inf


class SearchRun:
    """The tuning and final fit (7) of a fit's problems, one after the other, on one source and one set of
    prototypes: a problem whose search had no time takes the previous problem's (gamma, sigma^2)."""

    def __init__(self, src: Source | DaskSource, PV: np.ndarray | None, plan: SearchPlan, rng: np.random.Generator,
                 tbudget: TimeBudget):
        self.src, self.PV, self.plan, self.rng, self.tbudget = src, PV, plan, rng, tbudget
        self.last_tuned: list[tuple[float, float]] = []

    def solve(self, problem: Problem, index: int = 0) -> dict:
        """The record in ``problems_`` of problem ``index``: the tuned (gamma, sigma^2), CV score and the fitted
        coefficients. A tuned problem of more than ``tune_rows`` rows (and random folds) is tuned on a sample of
        them (:meth:`_sample`), then fitted (7) on all of them in one pass with the values chosen."""
        plan = self.plan
        T = problem.targets.reshape(-1, 1).astype(np.float64)
        n_p = T.shape[0]
        gamma, sigma2 = plan.values(index)
        search_sigma2 = _tunes_sigma2(plan.mode, sigma2)
        tunes = gamma is None or search_sigma2
        progress = row_block_progress if plan.verbose and n_p > plan.block_size else None  # a bar if it has blocks
        sample = self._sample(problem, n_p) if tunes else None
        p = (plan.n_features if plan.mode == "linear" else cast(np.ndarray, self.PV).shape[0]) + 1
        small = tunes and plan.n_threads == 0 and (n_p if sample is None else sample.size) * p * p <= SMALL_SEARCH
        with blas_controller().limit(limits=1, user_api="blas") if small else contextlib.nullcontext():
            if sample is None:
                folds, v = self._folds(problem, n_p)
                engine = self._engine(problem, T, folds, max(v, 1), progress, 1 if small else None)
            else:
                v = int(min(cast(int, plan.n_folds), sample.size))
                engine = self._sample_engine(problem, T, sample, v, 1 if small else None)
            tuned = Tuned(gamma if gamma is not None else 1.0,
                          sigma2 if sigma2 is not None else float(plan.n_features))
            path = gamma is None and plan.search == "path" and v >= 2
            if path and not search_sigma2:
                tuned = self._gamma_grid(engine, tuned)
            elif tunes and v >= 2:
                tuned = self._search(engine, tuned, problem.name, path, gamma is None, search_sigma2)
            else:
                v = self._fixed_score(engine, tuned, v)
        if n_p == 0:
            raise ValueError("a binary problem has no rows")
        n_passes, sample_gamma = 0, tuned.gamma
        if sample is not None:  # the values chosen on the sample, one pass over all the problem's rows
            w = problem.weights
            share = sample.size / n_p if w is None else float(w[sample].sum()) / float(w.sum())
            tuned.gamma *= share ** GAMMA_TRANSFER
            n_passes = 1  # gathering the sample
            engine = self._engine(problem, T, np.zeros(n_p, np.int32), 1, progress)
        elif v < 2:  # a single row, or no CV: ridge on all rows
            engine = self._engine(problem, T, np.zeros(n_p, np.int32), 1, progress)
        P, theta = engine.fit(tuned.gamma, tuned.sigma2)
        w, b = theta[:-1, 0], float(theta[-1, 0])
        return {"gamma": tuned.gamma, "sigma2": tuned.sigma2 if plan.mode == "rbf" else math.nan,
                "cv_score": tuned.cv_score, "coef": w if P is None else P @ w, "intercept": b,
                "n_evals": tuned.n_evals, "n_passes": n_passes + engine.n_passes, "n_rows": n_p,
                "tune_rows": n_p if sample is None else int(sample.size), "sample_gamma": sample_gamma,
                "stopped_early": tuned.stopped_early,
                "statistics": resolve_statistics(P, 1, plan.statistics)}

    def _sample(self, problem: Problem, n_p: int) -> np.ndarray | None:
        """The problem's rows the tuning runs on (sorted indices), when it has more than ``tune_rows`` and random
        folds: ``tune_rows`` of them drawn without replacement, stratified by the sign of the target for
        classification (proportional allocation, at least one row of each sign present), uniformly for regression;
        None: all rows."""
        k = self.plan.tune_rows
        if k is None or n_p <= k or problem.folds is not None:
            return None
        if self.plan.task != "classification":
            return np.sort(self.rng.choice(n_p, k, replace=False))
        pos = np.flatnonzero(problem.targets > 0)
        neg = np.flatnonzero(problem.targets <= 0)
        k_pos = min(pos.size, max(int(pos.size > 0), round(k * pos.size / n_p)))
        k_pos = max(k_pos, k - neg.size)
        k_neg = k - k_pos
        if k_neg == 0 and neg.size:
            k_pos, k_neg = k_pos - 1, 1
        return np.sort(np.concatenate([self.rng.choice(pos, k_pos, replace=False),
                                       self.rng.choice(neg, k_neg, replace=False)]))

    def _sample_engine(self, problem: Problem, T: np.ndarray, sample: np.ndarray, v: int,
                       n_threads: int | None = None) -> CVEngine | CoreCVEngine:
        """The CV engine of the tuning sample: its rows gathered from the source (one pass; standardized) and held
        in memory, their targets and weights, v random folds; in the core when its features fit the budget."""
        plan = self.plan
        rows = sample if problem.mask is None else np.flatnonzero(problem.mask)[sample]
        Xs = gather_rows(self.src, rows, plan.n_features)
        Ts = np.ascontiguousarray(T[sample])
        folds = random_folds(sample.size, v, self.rng)
        kw: dict[str, Any] = {"regularize_bias": plan.regularize_bias, "feature_budget": plan.feature_budget,
                              "n_threads": plan.n_threads if n_threads is None else n_threads,
                              "n_features": plan.n_features, "statistics": cast(Statistics, plan.statistics)}
        if problem.weights is not None:
            kw["weights"] = problem.weights[sample]
        PVx = None if plan.mode == "linear" else self.PV
        p_max = plan.n_features + 1 if PVx is None else PVx.shape[0] + 2
        if CoreCVEngine.fits(sample.size, p_max, plan.feature_budget):
            return CoreCVEngine(Xs, None, None, None, plan.block_size, Ts, folds, v, PVx, plan.make_params,
                                plan.task, tune_rbf=plan.mode == "rbf", **kw)
        b = plan.block_size
        return CVEngine(lambda: ((Xs[r:r + b], Ts[r:r + b]) for r in range(0, Xs.shape[0], b)), folds, v, PVx,
                        plan.make_params, plan.task, **kw)

    def _folds(self, problem: Problem, n_p: int) -> tuple[np.ndarray, int]:
        """(fold id per row, v): the test sets of a ``cv`` of splits, or v = min(cv, rows) random folds."""
        if problem.folds is not None:
            folds = np.ascontiguousarray(problem.folds, dtype=np.int32)
            return folds, int(folds.max()) + 1 if n_p else 1
        v = int(min(cast(int, self.plan.n_folds), n_p))
        return random_folds(n_p, max(v, 1), self.rng), v

    def _engine(self, problem: Problem, T: np.ndarray, folds: np.ndarray, v: int, progress=None,
                n_threads: int | None = None) -> CVEngine | CoreCVEngine:
        """The problem's CV engine: on dask chunks, in the core (rows in memory, features within the budget), or
        streamed. Weighted least squares (Phi^T W Phi, Phi^T W y summed in the core, a weighted CV cost): every
        engine takes the weights of the problem's rows (those of its mask: rows of weight 0 masked out)."""
        plan, src, mask = self.plan, self.src, problem.mask
        kw: dict[str, Any] = {"regularize_bias": plan.regularize_bias, "feature_budget": plan.feature_budget,
                              "n_threads": plan.n_threads if n_threads is None else n_threads,
                              "n_features": plan.n_features, "statistics": cast(Statistics, plan.statistics)}
        PVx = None if plan.mode == "linear" else self.PV
        if problem.weights is not None:
            kw["weights"] = problem.weights
        if isinstance(src, DaskSource):
            return DaskCVEngine(src, T, mask, folds, v, PVx, plan.make_params, plan.task, **kw)
        # kept per row: the features, or the kernel block [K(x, PV), 1, y] (kernel statistics)
        p_max = plan.n_features + 1 if PVx is None else PVx.shape[0] + 2
        if src.in_memory is not None and CoreCVEngine.fits(T.shape[0], p_max, plan.feature_budget):
            # In memory, features within the budget: the whole CV in the core (no Python per evaluation).
            return CoreCVEngine(src.in_memory, None if mask is None else np.flatnonzero(mask), src.mean, src.scale,
                                src.block_size, T, folds, v, PVx, plan.make_params, plan.task,
                                tune_rbf=plan.mode == "rbf", **kw)
        return CVEngine(ProblemBlocks(src, T, mask), folds, v, PVx, plan.make_params, plan.task, progress=progress,
                        **kw)

    def _gamma_grid(self, engine: Any, start: Tuned) -> Tuned:
        """sigma^2 fixed, gamma on the path: a grid search over gamma on the one sigma^2's fold statistics. Past
        max_time the previous problem's gamma (none before: 1, on the path)."""
        if self.tbudget.expired():
            self.tbudget.cut("tuning (gamma path)")
            tuned = Tuned(self.last_tuned[-1][0] if self.last_tuned else 1.0, start.sigma2)
        else:
            path = GammaPath(engine)
            cost = path(start.sigma2)
            tuned = Tuned(path.gamma[start.sigma2], start.sigma2, cost, 1)
        self.last_tuned.append((tuned.gamma, tuned.sigma2))
        return tuned

    def _search(self, engine: Any, start: Tuned, name: str, path: bool, search_gamma: bool,
                search_sigma2: bool) -> Tuned:
        """CSA + simplex over the searched hyperparameters (Section 6.3), in the core where the engine is the
        core's (and no progress is shown, no gamma path and no ``n_iter_no_change``); max_time stops the search
        (checked in the core between evaluations) with its best point so far, ``n_iter_no_change`` each of its
        stages (:class:`svmopt.fixed_size.tuning.StallStop`)."""
        plan, rng = self.plan, self.rng
        space = SearchSpace(start.gamma, start.sigma2, search_gamma and not path, search_sigma2,
                            GammaPath(engine) if path else None, plan.n_features)
        lo, hi, ilo, ihi = space.bounds()
        bar = progress_bar(plan.verbose, plan.n_csa + plan.n_simplex, f"tuning ({name})")
        q = min(5, plan.n_csa) if plan.n_csa >= 1 else 5  # 5 coupled CSA processes (fewer if n_csa < 5)
        x0 = rng.uniform(ilo, ihi, size=(q, len(lo)))
        seed = int(rng.integers(2**62))
        limit = self.tbudget.remaining_or_none()
        stall = None
        if (isinstance(engine, CoreCVEngine) and not plan.verbose and not path
                and plan.n_iter_no_change is None):
            res = engine.tune(x0, lo, hi, tune_gamma=search_gamma, tune_sigma2=search_sigma2,
                              gamma=start.gamma, sigma2=start.sigma2, n_csa=plan.n_csa, n_simplex=plan.n_simplex,
                              seed=seed, time_limit=limit)
        else:
            stall = StallStop(SearchCost(space, engine, bar), plan.n_csa, plan.n_iter_no_change)
            res = csa_simplex(stall, x0, lo, hi, n_csa=plan.n_csa, n_simplex=plan.n_simplex, seed=seed,
                              time_limit=limit)
        bar.close()
        n_evals = res.history.shape[0] if stall is None else stall.n_evals
        if res.timed_out:
            self.tbudget.cut("tuning (CSA + simplex)")
        if n_evals == 0 and self.last_tuned:  # no time for a single evaluation: the previous problem's values
            gamma, sigma2 = self.last_tuned[-1]  # (none before: CSA's first initial state)
            tuned = Tuned(gamma, sigma2, math.nan, n_evals)
        else:
            gamma, sigma2 = space.point(res.x)
            tuned = Tuned(gamma, sigma2, res.fun if n_evals else math.nan, n_evals,
                          stall is not None and stall.stopped)
        self.last_tuned.append((tuned.gamma, tuned.sigma2))
        return tuned

    def _fixed_score(self, engine: Any, tuned: Tuned, v: int) -> int:
        """Fixed hyperparameters: the CV score is informational (set on ``tuned``); the folds of the final fit
        (1: none). Skipped when it would need a second streaming pass (the rows not kept within the budget and a
        misclassification cost), which would cost 50% more (a regression's MSE comes from the fold sums of the one
        pass), and, unless cv was given, when its fold solves alone would cost more than FIXED_CV_FLOPS."""
        plan = self.plan
        if v >= 2 and self.tbudget.expired():
            self.tbudget.cut("CV score")  # informational only: skipped past max_time
            return v
        if (v >= 2 and (plan.task == "regression" or engine.keeps_rows())
                and (plan.cv_given or fixed_cv_flops(self.PV, v, plan.statistics) <= FIXED_CV_FLOPS)):
            tuned.cv_score = engine.cost(tuned.gamma, tuned.sigma2)
            return v
        return 1  # no CV: one pass summing all rows at once (no per-fold sums to split the blocks by)
