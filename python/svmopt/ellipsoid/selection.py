"""The radius ratio and whitening shrinkage of each binary problem of :class:`svmopt.EllipsoidPSOClassifier`, chosen
by held-out errors (not in paper 003; ``ratio="auto"``, ``shrinkage="auto"``) with a one-standard-error rule that keeps
the paper's construction unless another candidate is better beyond the noise of the folds, and the folds they are
counted on.

``cv`` is read by :mod:`svmopt._shared.splits`: a splitter or an iterable of pairs is split over all the rows given to
``fit`` (as :func:`sklearn.model_selection.check_cv` reads it, rows of weight 0 leaving both sides), then each binary
problem keeps its own rows of each split; an int (None: 5) gives unshuffled stratified folds of each binary problem's
rows.
"""

from __future__ import annotations

from dataclasses import dataclass
from numbers import Integral
from typing import Any

import numpy as np
from sklearn.model_selection import check_cv

from svmopt._shared.runtime import TimeBudget
from svmopt._shared.selection import first_lowest, first_within_noise, fold_errors, fold_totals
from svmopt._shared.splits import cv_splits, index_pairs, restrict_splits
from svmopt.ellipsoid.binary import ClosestSolver, Construction, PairData, hyperplane, working_space
from svmopt.ellipsoid.geometry import unit_weights
from svmopt.ellipsoid.sparse_rows import stack_rows

#: ``ratio="auto"``: the radius ratios of the two class ellipsoids compared by cross-validation (1 = the paper's).
RATIO_GRID = 2.0 ** np.arange(-6.0, 7.0)
#: The ratios 2^-3 ... 2^3 are scored first; further ones only while the lowest error is at the edge
#: (:func:`select_pair`).
RATIO_WINDOW = 3.0


@dataclass
class SelectionPlan:
    """The candidates of the selection (the shrinkages, the ratios), the data set's whitening per shrinkage
    (``projection="dataset"``; None values otherwise), and whether there is anything to select."""

    shrinks: list[float | str]
    ratios: np.ndarray
    globs: dict

    @property
    def select(self) -> bool:
        return self.ratios.size * len(self.shrinks) > 1

    @property
    def n_candidates(self) -> int:
        return self.ratios.size * len(self.shrinks)

    def order(self) -> list[int]:
        """The candidates (``c = i * n_ratios + j`` for shrinkage i, ratio j), the paper's construction first:
        by the distance ``|log2 ratio| + [shrinkage != 0]`` from paper 003's ellipsoids (Sec. 4.2, ratio 1, and the
        unshrunk whitening of Sec. 4.3.5), then no shrinkage first, then the ratio below 1 first."""
        far = np.abs(np.log2(self.ratios))
        key = [(far[j] + (not _is_zero(sh)), not _is_zero(sh), i, far[j], self.ratios[j] > 1.0)
               for i, sh in enumerate(self.shrinks) for j in range(self.ratios.size)]
        return sorted(range(self.n_candidates), key=key.__getitem__)


def _is_zero(shrinkage: float | str) -> bool:
    return not isinstance(shrinkage, str) and float(shrinkage) == 0.0


def per_model_choices(ratio: Any, shrinkage: Any, n_models: int) -> list[tuple[float | str, float]] | None:
    """The (shrinkage, ratio) of each binary model when ``ratio`` or ``shrinkage`` is given per model (an array, e.g.
    a fitted model's ``ratios_`` and ``shrinkages_``; the other one per model or one fixed value), else None.
    ValueError naming the parameter for a wrong length or value."""
    per = [not isinstance(v, str) and np.ndim(v) > 0 for v in (ratio, shrinkage)]
    if not any(per):
        return None
    values = []
    for name, v, is_per in (("ratio", ratio, per[0]), ("shrinkage", shrinkage, per[1])):
        if not is_per:
            if isinstance(v, str) and v == "auto":
                raise ValueError(f"{name}='auto' cannot be combined with the other parameter given per binary model; "
                                 f"give {name} per model too, or as one value")
            v = [v] * n_models
        v = list(np.asarray(v, dtype=object).ravel())
        if len(v) != n_models:
            raise ValueError(f"{name}: {len(v)} values given per binary model, but the fit has {n_models} binary "
                             "model(s) (one per class pair for one-vs-one, per class for one-vs-rest)")
        values.append(v)
    out = []
    for r, sh in zip(*values, strict=True):
        if isinstance(r, str) or not np.isfinite(float(r)) or float(r) <= 0:
            raise ValueError(f"ratio: every per-model value must be a float > 0, got {r!r}")
        if not (isinstance(sh, str) and sh == "ledoit_wolf") and (isinstance(sh, str) or not 0 <= float(sh) <= 1):
            raise ValueError(f"shrinkage: every per-model value must be 'ledoit_wolf' or a float in [0, 1], got {sh!r}")
        out.append((sh if isinstance(sh, str) else float(sh), float(r)))
    return out


def user_splits(cv: Any, kept: np.ndarray, X: np.ndarray, y: np.ndarray) -> list | None:
    """A CV splitter's or an iterable's (train, test) pairs over all the rows given to ``fit`` (as
    ``cross_validate`` would split them), as indices into the ``kept`` rows (rows of weight 0 leave both sides); None
    for an int ``cv`` (the per-problem stratified folds of :func:`pair_folds`)."""
    if cv is None or isinstance(cv, Integral):
        return None
    return index_pairs(check_cv(cv, y, classifier=True), X.shape[0], kept=kept, X=X, y=y)


def pair_folds(cv: Any, i1: np.ndarray, i2: np.ndarray, splits: list | None, n_rows: int) -> list:
    """The folds of one binary problem, as indices into its rows ``[class 1; class 2]``. An int ``cv`` (None: 5):
    stratified (unshuffled) folds of those rows, ``min(cv, n_1, n_2)`` of them (none below 2); else the user's
    ``splits`` (over the ``n_rows`` rows fitted) restricted to the problem's rows (folds without held-out rows of the
    problem dropped)."""
    if splits is None:
        if min(i1.size, i2.size) < 2:
            return []
        t = np.r_[np.ones(i1.size, dtype=int), np.zeros(i2.size, dtype=int)]
        return cv_splits(cv, t, default=5)
    return restrict_splits(splits, np.r_[i1, i2], n_rows)


def select_pair(pair: PairData, plan: SelectionPlan, cons: Construction, closest: ClosestSolver, seed: int,
                deadline: float | None, budget: TimeBudget,
                bar: Any) -> tuple[tuple[Any, float], np.ndarray, np.ndarray]:
    """The whitening shrinkage and the radius ratio of one binary problem by held-out errors on ``pair.folds``
    (:func:`pair_folds`), weighted by the rows' weights.

    On each fold's training rows the working space and the class ellipsoids are built once per shrinkage
    (:func:`~svmopt.ellipsoid.binary.working_space`), then each ratio's hyperplane with the closest points of
    ``closest``; the held-out rows count the errors. The ratios are tried from the window of
    :data:`RATIO_WINDOW` around 1 outwards: while the lowest total error lies on an edge of the tried ratios, the
    next ratio beyond it is scored too (the held-out error is about unimodal in log(ratio); very unequal classes
    take the far ratios, most pairs never reach them). The choice is the one-standard-error rule on the paired
    folds (:func:`svmopt._shared.selection.first_within_noise`) over :meth:`SelectionPlan.order` of the scored
    candidates: the paper's construction unless another candidate is better beyond the noise of the folds, else
    the candidate nearest to it among those within the noise of the best. A candidate undefined on a fold (too few
    rows) counts that fold's held-out rows as errors. When ``deadline`` passes, only the folds every scored
    candidate completed count (none: the first of the order, errors NaN). Returns the choice, the error rates,
    shape (n_shrinkages, n_ratios), and the held-out errors per fold (counts, or weights of the misclassified
    rows over the power of two at or above the largest weight), shape (n_folds, n_shrinkages, n_ratios); NaN where
    not scored."""
    shrinks, ratios = plan.shrinks, plan.ratios
    order = plan.order()
    shape = (len(shrinks), ratios.size)
    if not pair.folds:  # nothing to hold out: the paper's ellipsoids
        return _candidate(plan, order[0]), np.zeros(shape), np.zeros((0, *shape))
    t = np.r_[np.ones(pair.V1.shape[0], dtype=int), np.zeros(pair.V2.shape[0], dtype=int)]
    V = stack_rows(pair.V1, pair.V2)  # CSR for sparse rows
    wv = None if pair.w1 is None or pair.w2 is None else np.r_[pair.w1, pair.w2]
    # the errors in units of the largest weight (an exact power of two): their fold differences and standard errors
    # neither overflow nor underflow at any magnitude of the weights
    wu = None if wv is None else unit_weights(wv)[0]
    folds = pair.folds
    held = [va.size if wu is None else float(wu[va].sum()) for _, va in folds]
    spaces: dict[tuple[int, int], Any] = {}  # (fold, shrinkage index) -> scoring space or the ValueError

    def space(f: int, i: int) -> Any:
        if (f, i) not in spaces:
            tr = folds[f][0]
            train = PairData(V[tr][t[tr] == 1], V[tr][t[tr] == 0])
            if wv is not None:
                train.w1, train.w2 = wv[tr][t[tr] == 1], wv[tr][t[tr] == 0]
            sh = shrinks[i]
            try:
                spaces[f, i] = working_space(train, plan.globs[sh], sh, np.random.RandomState(seed), cons).scoring()
            except ValueError as exc:
                spaces[f, i] = exc
        return spaces[f, i]

    def score(f: int, c: int) -> float:
        va = folds[f][1]
        i, j = divmod(c, ratios.size)
        ws = space(f, i)
        if isinstance(ws, ValueError):
            return held[f]
        try:
            mdl = hyperplane(ws, float(ratios[j]), cons, closest)
        except ValueError:
            return held[f]
        wrong = ((V[va] @ mdl["w_in"] + mdl["b_in"]) >= 0) != (t[va] == 1)
        return int(np.count_nonzero(wrong)) if wu is None else float(wu[va] @ wrong)

    errors = np.full((len(folds), plan.n_candidates), np.nan)
    window = np.flatnonzero(np.abs(np.log2(ratios)) <= RATIO_WINDOW)
    first = list(range(window[0], window[-1] + 1)) if window.size else [int(np.argmin(np.abs(np.log(ratios))))]
    tried, todo, stopped = list(first), list(first), False
    while todo and not stopped:
        cols = _scored(todo, shrinks, ratios)
        part, stopped = fold_errors(len(folds), len(cols), lambda f, c, cols=cols: score(f, cols[c]),  # type: ignore[misc]
                                     deadline, bar)
        errors[:, cols] = part
        scored = _scored(tried, shrinks, ratios)
        totals, counted = fold_totals(errors[:, scored], complete="fold")
        best = scored[first_lowest(totals, [scored.index(c) for c in order if c in scored])] % ratios.size
        lo, hi = min(tried), max(tried)
        todo = [lo - 1] if best == lo and lo > 0 else [hi + 1] if best == hi and hi < ratios.size - 1 else []
        tried += todo
    if stopped:
        budget.cut("the ratio/shrinkage selection (only the folds every candidate completed count)")
    bar.update(len(folds) * len(shrinks) * (ratios.size - len(tried)))  # the ratios not needed
    # a deadline in the first window: the folds every candidate completed; beyond it: the ratios scored in full
    full = [j for j in tried if not np.isnan(errors[:, _scored([j], shrinks, ratios)]).any()]
    some = [j for j in tried if not np.isnan(errors[:, _scored([j], shrinks, ratios)]).all()]
    scored = _scored(full if set(first) <= set(full) else some, shrinks, ratios)
    per_fold = errors.reshape(len(folds), *shape)
    err, counted = fold_totals(errors[:, scored], complete="fold")
    total = sum(held[f] for f in np.flatnonzero(counted))
    if not total:
        return _candidate(plan, order[0]), np.full(shape, np.nan), per_fold
    rates = np.full(plan.n_candidates, np.nan)
    rates[scored] = err / total
    pick = first_within_noise(errors[:, scored], counted, [scored.index(c) for c in order if c in scored])
    return _candidate(plan, scored[pick]), rates.reshape(shape), per_fold


def _scored(tried: list[int], shrinks: list, ratios: np.ndarray) -> list[int]:
    """The candidates of the ratios ``tried`` (indices), every shrinkage."""
    return sorted(i * ratios.size + j for i in range(len(shrinks)) for j in tried)


def _candidate(plan: SelectionPlan, c: int) -> tuple[Any, float]:
    """The shrinkage and the ratio of the candidate ``c`` (shrinkages outer, ratios inner)."""
    i, j = divmod(c, plan.ratios.size)
    return plan.shrinks[i], float(plan.ratios[j])
