"""``partial_fit`` of the fixed-size LS-SVM: the sums of the ridge system (7) accumulated chunk by chunk with fixed
hyperparameters, and the systems solved again after every chunk.

A stream is a dict (the estimator's ``_stream``): the projection ``P``, the per-class sums ``G`` (L, p, p) =
Phi_c^T W_c Phi_c, ``t`` (L, p) = Phi_c^T W_c y_c (y = 1 for a class's indicator, the target for regression),
``yy`` = sum w y^2, ``ww`` = sum w^2 and the row ``counts``, the RBF's ``sigma2`` and the ``definition`` of the
features the first chunk fixed. Until :func:`rows_needed` rows have arrived they wait in a :class:`RowBuffer` (the
estimator's ``_buffer``), then are taken as one first chunk. :func:`start_stream` makes the first chunk's (input
scaling, prototypes, feature map), :func:`add_chunk` adds a chunk's sums, :func:`solve_stream` solves each problem's
system, :func:`check_definition` refuses a later call whose features would differ.
"""

from __future__ import annotations

import math
import numbers
from dataclasses import dataclass, field
from typing import Any, cast

import numpy as np
from sklearn.exceptions import NotFittedError
from sklearn.utils.validation import check_random_state

from svmopt import _core
from svmopt._shared.moments import block_moments, column_stds
from svmopt._shared.validation import check_fit_weights, shown
from svmopt.fixed_size.nystrom import Statistics, linear_accumulator, nystrom_projection, rbf_params, resolve_statistics
from svmopt.fixed_size.selection import (
    AUTO_PROTOTYPES,
    PrototypeSet,
    candidate_rows,
    given,
    given_prototypes,
    select,
)

#: One binary/regression system for partial_fit: (Phi^T W Phi, Phi^T W y, the classes whose rows it holds).
System = tuple[np.ndarray, np.ndarray, list]


def stream_params(mode: str, kern: Any, sigma2: float | None) -> _core.kernels.KernelParams | None:
    """The core's kernel parameters of a ``partial_fit`` stream (None for the explicit linear features)."""
    if mode == "kernel":
        return kern.core_params
    return rbf_params(float(sigma2)) if mode == "rbf" and sigma2 is not None else None


def chunk_accumulator(PV: np.ndarray | None, params: _core.kernels.KernelParams | None, P: np.ndarray | None,
                      d: int, n_classes: int, statistics: str) -> _core.fixed_size.FoldAccumulator:
    """The accumulator of one ``partial_fit`` chunk's per-class sums (the class as the fold, one target), by the
    statistics ``fit`` would take ("auto" resolved by the accumulator, as for fit)."""
    if PV is None or params is None or P is None:
        return linear_accumulator(d, n_folds=n_classes, n_targets=1)
    return _core.fixed_size.FoldAccumulator(PV, params, P, n_folds=n_classes, n_targets=1,
                                            statistics=cast(Statistics, statistics))


def require_fixed_hyperparameters(mode: str, gamma: float | None, sigma2: float | None) -> None:
    """partial_fit exists only with fixed hyperparameters: an AttributeError naming the missing ones otherwise."""
    missing = [name for name, value in (("gamma", gamma), ("sigma2", sigma2))
               if value is None and (name == "gamma" or mode == "rbf")]
    if missing:
        raise AttributeError(f"partial_fit needs fixed hyperparameters, but {' and '.join(missing)} "
                             f"{'is' if len(missing) == 1 else 'are'} None: pass numbers for "
                             f"{' and '.join(missing)} (e.g. the gamma_ and sigma2_ of a tuned fit on a sample), "
                             "or use fit, which tunes them")


def check_definition(first: dict[str, Any] | None, definition: dict[str, Any]) -> None:
    """A later ``partial_fit`` call: every parameter that defines the features is as the first call resolved
    it (``first``; None: a stream pickled before the definition was recorded), since the stream's sums hold
    features of that definition only."""
    if first is None:
        return
    for name, value in definition.items():
        old = first.get(name)
        if isinstance(old, np.ndarray) or isinstance(value, np.ndarray):
            same = isinstance(old, np.ndarray) and isinstance(value, np.ndarray) and np.array_equal(old, value)
            note = ""
        else:
            same = old is value or bool(old == value)
            note = f" ({shown(old)} then, {shown(value)} now)"
        if not same:
            raise ValueError(f"{name} differs from the first partial_fit call{note}: the stream's sums hold the "
                             f"features that call defined. Set {name} back, or call fit, which starts over (the "
                             "first partial_fit call after fit starts a new stream)")


def chunk_weights(X, y, sample_weight, class_weight, classes: np.ndarray | None, first: bool = True):
    """(X, y, w, kept) of a partial_fit chunk: rows of weight 0 left out (``kept``: the indices of the rows left
    in the chunk, None for all); ``class_weight`` (a dict) applied by label among ``classes``. A later chunk (not
    ``first``) whose sample weights are all 0 adds nothing, as one that ``class_weight`` zeroes."""
    X, y, w, kept = check_fit_weights(X, y, sample_weight, None, return_kept=True, allow_all_zero=not first)
    if class_weight is None:
        return X, y, w, kept
    if isinstance(class_weight, str):
        raise ValueError("class_weight='balanced' needs the class counts of the whole stream; partial_fit takes "
                         "class_weight=None or a dict")
    classes = cast(np.ndarray, classes)
    known = {lab.item() if hasattr(lab, "item") else lab: i for i, lab in enumerate(classes)}
    factor = np.ones(classes.size)
    for key, value in class_weight.items():
        k = key.item() if hasattr(key, "item") else key
        if k not in known:
            raise ValueError(f"class_weight has the label {key!r}, which is not in classes ({classes.tolist()})")
        if isinstance(value, bool) or not (isinstance(value, numbers.Real) and math.isfinite(value)) or value < 0:
            raise ValueError(f"class_weight[{key!r}] must be a finite number >= 0, got {value!r}")
        factor[known[k]] = float(value)
    w = (np.ones(y.shape[0]) if w is None else w) * factor[np.searchsorted(classes, y)]
    keep = w > 0
    if not keep.all():
        kept = np.flatnonzero(keep) if kept is None else kept[keep]
    return X[keep], y[keep], w[keep], kept


def rows_needed(est: Any, mode: str) -> int:
    """The rows of positive weight a stream waits for before its first chunk is taken (:class:`RowBuffer`): the
    ``n_prototypes`` its selection chooses among them (``"auto"``: :data:`AUTO_PROTOTYPES`, fit's m from that many
    rows on), or, without a selection (given prototypes, the linear kernel), the 2 rows of a standard deviation
    with ``standardize``, else 1."""
    needed = 2 if est.standardize else 1
    if mode != "linear" and est.prototypes is None:
        needed = max(needed, AUTO_PROTOTYPES if est.n_prototypes == "auto" else int(est.n_prototypes))
    return needed


@dataclass
class RowBuffer:
    """The rows of the first ``partial_fit`` calls while fewer than :func:`rows_needed` have arrived: a stream
    whose first chunk had one row fixed one prototype (and a zero standard deviation) for good. Once enough have
    arrived they are taken as one first chunk -- the same input scaling, prototypes and sums as a stream whose
    first chunk held them all."""

    needed: int
    definition: dict[str, Any]
    X: list[np.ndarray] = field(default_factory=list)
    y: list[np.ndarray] = field(default_factory=list)
    w: list[np.ndarray | None] = field(default_factory=list)
    kept: list[np.ndarray] = field(default_factory=list)  # the rows' indices among the rows passed (weight 0 too)
    n_given: int = 0  # the rows passed so far, those of weight 0 included

    @property
    def n(self) -> int:
        return sum(x.shape[0] for x in self.X)

    def add(self, X: np.ndarray, y: np.ndarray, w: np.ndarray | None, kept: np.ndarray | None,
            n_given: int) -> None:
        """A chunk's rows of positive weight (copies: the caller's arrays may change before the stream starts);
        ``kept``: their indices in the chunk as passed (None: all), of ``n_given`` rows."""
        self.X.append(np.array(X, dtype=np.float64, order="C"))
        self.y.append(np.array(y))
        self.w.append(None if w is None else np.array(w, dtype=np.float64))
        self.kept.append(self.n_given + (np.arange(X.shape[0]) if kept is None else np.asarray(kept)))
        self.n_given += n_given

    def rows(self) -> tuple[np.ndarray, np.ndarray, np.ndarray | None, np.ndarray | None]:
        """(X, y, w, kept) of every row buffered, as one chunk (``kept`` None when no row of weight 0 was passed)."""
        X, y = np.concatenate(self.X), np.concatenate(self.y)
        w = None if all(wb is None for wb in self.w) else \
            np.concatenate([np.ones(xb.shape[0]) if wb is None else wb for xb, wb in zip(self.X, self.w, strict=True)])
        kept = np.concatenate(self.kept)
        return X, y, w, None if kept.size == self.n_given else kept

    def not_fitted(self, est: Any) -> NotFittedError:
        """The error of a prediction before the stream has started, naming why."""
        what = (f"the {self.needed} rows its prototypes are selected among (n_prototypes={shown(est.n_prototypes)})"
                if self.needed > 2 else f"the {self.needed} rows its input scaling is computed from")
        return NotFittedError(f"This {type(est).__name__} instance is not fitted yet: partial_fit has received "
                              f"{self.n} rows of positive weight, fewer than {what}; the rows are kept, and the "
                              "model exists from the call that brings the rest")


@dataclass
class StreamStart:
    """What the first partial_fit call fixes: the empty sums, the input scaling and the prototypes."""

    state: dict[str, Any]
    mean: np.ndarray
    scale: np.ndarray
    prototypes: PrototypeSet


def start_stream(est: Any, X: np.ndarray, y: np.ndarray, w: np.ndarray | None, mode: str, kern: Any,
                 sigma2: float | None, kept: np.ndarray | None = None) -> StreamStart:
    """The first partial_fit call of ``est``: input scaling, prototypes, the feature map, and empty sums (``kept``:
    the rows of the chunk as passed that X holds, None for all)."""
    d = X.shape[1]
    if X.shape[0] == 0:
        raise ValueError("the first partial_fit chunk has no rows of positive weight (sample_weight times "
                         "class_weight): the input scaling and the prototypes are chosen from the first rows")
    rng = np.random.default_rng(check_random_state(est.random_state).randint(0, 2**31 - 1, size=4))
    if est.standardize:
        mean, s2, _, unit = block_moments(lambda: [X], d, w)
        scale = column_stds(s2, X.shape[0], w, unit)
        scale[~(scale > 0)] = 1.0
    else:
        mean, scale = np.zeros(d), np.ones(d)
    if mode == "linear" or est.prototypes is not None:
        prototypes = given(None if mode == "linear" else given_prototypes(est.prototypes, d))
    else:
        Xs = np.ascontiguousarray((X - mean) / scale)
        n = Xs.shape[0]
        cand = candidate_rows(n, est.max_candidates, rng)
        prototypes = select(Xs[cand], est._strata(y[cand]), rng, n, est.n_prototypes, est.prototype_selection)
        idx = cand[prototypes.indices]
        prototypes.indices = idx if kept is None else kept[idx]  # rows of the first chunk
    params = stream_params(mode, kern, sigma2)
    PV = prototypes.PV
    P = None if PV is None or params is None else nystrom_projection(PV, params)[0]
    p = (d if P is None else P.shape[1]) + 1  # the extended features [phi(x), 1] of (5)
    L = est.classes_.size if est._task == "classification" else 1
    state = {"P": P, "G": np.zeros((L, p, p)), "t": np.zeros((L, p)), "yy": np.zeros(L), "ww": np.zeros(L),
             "counts": np.zeros(L, dtype=np.int64), "sigma2": math.nan if mode != "rbf" else float(cast(float, sigma2))}
    return StreamStart(state, mean, scale, prototypes)


def add_chunk(state: dict[str, Any], acc: _core.fixed_size.FoldAccumulator, Xs: np.ndarray, target: np.ndarray,
              codes: np.ndarray, w: np.ndarray | None, regression: bool) -> None:
    """Add a chunk's per-class sums to ``state`` in the core's pass, the class as the "fold" and the row weights
    inside (Phi_c^T W_c Phi_c, Phi_c^T W_c y_c, sum w y^2, sum w^2); new arrays, so that an error leaves the stream
    as it was."""
    L = state["G"].shape[0]
    acc.add(Xs, target.reshape(-1, 1), codes.astype(np.int32), weights=w)
    Gc, tc, yyc, cc = acc.results()
    ww = state["ww"] + np.bincount(codes, weights=None if w is None else w * w, minlength=L)  # sum w^2
    state.update(G=state["G"] + Gc, t=state["t"] + tc[:, :, 0], counts=state["counts"] + cc.astype(np.int64),
                 yy=state["yy"] + (yyc[:, 0] if regression else 0.0), ww=ww)


def solve_stream(systems: list[System], state: dict[str, Any], gamma: float, regularize_bias: bool,
                 statistics: str) -> list[dict]:
    """The model of all rows seen so far (7): each system solved, the records of ``problems_``."""
    problems = []
    for Gp, tp, members in systems:
        if Gp[-1, -1] > 0:  # the bias entry: the problem's weight sum
            theta = _core.fixed_size.ridge_solve(Gp, tp.reshape(-1, 1), gamma, regularize_bias)
        else:  # no rows yet (a class pair not seen so far): the zero model
            theta = np.zeros((Gp.shape[0], 1))
        wv = theta[:-1, 0]
        problems.append({"gamma": gamma, "sigma2": state["sigma2"], "cv_score": math.nan,
                         "coef": wv if state["P"] is None else state["P"] @ wv, "intercept": float(theta[-1, 0]),
                         "n_evals": 0, "n_passes": 0, "n_rows": int(state["counts"][members].sum()),
                         "statistics": resolve_statistics(state["P"], 1, statistics)})
    return problems
