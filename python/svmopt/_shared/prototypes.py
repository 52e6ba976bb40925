"""Prototype vectors of the fixed-size LS-SVM (paper 002): Rényi-entropy selection (Section 3.2, Algorithm 1, in the
C++ core), the stratified uniform sample the estimators offer instead, and the choice of their number m (Section 5)."""

from __future__ import annotations

import math
from typing import Any

import numpy as np
from sklearn.utils import check_array
from sklearn.utils.validation import check_random_state

from svmopt import _core
from svmopt._shared.bandwidth import entropy_bandwidths


def _selection_dict(r: _core.prototypes.EntropySelectResult) -> dict[str, Any]:
    """The core's prototype selection as a dict: ``idx``, ``log_offdiag``, ``n_proposals``, ``n_accepted``,
    ``n_recomputes`` (of the whole sum), ``n_row_recomputes`` (of one kept row sum), ``n_kernel_evals``,
    ``stopped_early``."""
    return {"idx": r.idx, "log_offdiag": r.log_offdiag, "n_proposals": r.n_proposals, "n_accepted": r.n_accepted,
            "n_recomputes": r.n_recomputes, "n_row_recomputes": r.n_row_recomputes, "n_kernel_evals": r.n_kernel_evals,
            "stopped_early": r.stopped_early}


#: Rows the Rényi-entropy search draws its prototypes from at most (a uniform sample of the data above that):
#: ``FixedSizeLSSVC(max_candidates=...)``'s default and RobustSVC's landmark candidates.
MAX_CANDIDATES = 200_000


def select_prototypes(X: np.ndarray, m: int, *, labels: np.ndarray | None = None, bandwidths: np.ndarray | None = None,
                      random_state=None, max_proposals: int = 0, window: int = 0, tol: float = 1e-5) -> dict:
    """Rényi-entropy prototype selection (Algorithm 1, stratified by ``labels``).

    Decision (the paper stops when the entropy "change is small"): every ``window`` proposals (default 5 m) the
    log off-diagonal sum must have dropped by at least ``tol``, with at most ``max_proposals`` (default
    min(max(n, 50 m), 10^7)) proposals.

    Returns a dict: ``idx`` (the m selected rows), ``log_offdiag``, the counts ``n_proposals``, ``n_accepted``,
    ``n_recomputes``, ``n_row_recomputes``, ``n_kernel_evals``, ``stopped_early``, and ``bandwidths``.
    """
    X = check_array(X, dtype=np.float64, order="C")
    if bandwidths is None:
        bandwidths = entropy_bandwidths(X)[0] if X.shape[0] >= 2 else np.ones(X.shape[1])
    h = np.where(np.asarray(bandwidths, float) > 0, bandwidths, 1.0)
    Z = np.ascontiguousarray(X / (2.0 * h))
    seed = int(random_state) if isinstance(random_state, (int, np.integer)) else int(
        check_random_state(random_state).randint(0, 2**31 - 1))
    lab = None if labels is None else np.asarray(labels, dtype=np.int64)
    r = _core.prototypes.entropy_select(Z, int(m), labels=lab, max_proposals=max_proposals, window=window, tol=tol,
                                        seed=seed)
    return {**_selection_dict(r), "bandwidths": h}


def random_prototypes(n: int, m: int, labels: np.ndarray | None, rng: np.random.Generator) -> np.ndarray:
    """``m`` distinct row indices of ``n`` drawn uniformly without replacement (sorted), stratified by ``labels``
    (proportional allocation, sklearn's ``train_test_split``) when given and feasible, like the entropy path."""
    if m >= n:
        return np.arange(n)
    from sklearn.model_selection import train_test_split

    seed = int(rng.integers(2**31 - 1))
    strat = labels if labels is not None and np.unique(labels).size > 1 else None
    try:
        idx, _ = train_test_split(np.arange(n), train_size=m, stratify=strat, random_state=seed)
    except ValueError:  # a class too small to stratify (or m below the number of classes): plain uniform sample
        idx = np.random.default_rng(seed).choice(n, m, replace=False)
    return np.sort(idx)


def default_prototype_candidates(n: int) -> list[int]:
    """Candidate m (decision, after the paper's Section 5): the values of {100, 200, 500, 1000,
    1500} that are <= 0.6 n; if fewer than 2 remain, round(geomspace(20, 0.6 n, 5)) (unique values)."""
    c = [m for m in (100, 200, 500, 1000, 1500) if m <= 0.6 * n]
    if len(c) >= 2:
        return c
    hi = max(0.6 * n, 2.0)
    return sorted({max(1, round(float(v))) for v in np.geomspace(min(20, hi), hi, 5)})


def choose_n_prototypes(estimator, X, y=None, candidates=None):
    """Choose m by the paper's heuristic (Section 5) scored by the tuned CV cost rather than on the test set
    (decision: the paper picks m on the test data): fit the estimator for each candidate m and keep the one
    with the smallest tuned CV cost (ties toward the smaller m).

    Returns ``(best_fitted_estimator, {m: cv_score})``. For multi-class models the CV costs of the binary
    problems are averaged. ``X`` must be re-iterable (an array, a memmap or a callable of blocks). A ValueError
    when no candidate's CV score was computed (all NaN: see the estimator's ``cv``).
    """
    from sklearn.base import clone

    if candidates is None:
        n = X.shape[0] if hasattr(X, "shape") else None
        if n is None:
            raise ValueError("pass candidates= for block-stream input (n is unknown)")
        candidates = default_prototype_candidates(n)
    ms = sorted(int(c) for c in candidates)
    if not ms:
        raise ValueError("candidates is empty: give at least one m")
    scores, best, best_score = {}, None, math.inf
    for m in ms:
        est = clone(estimator).set_params(n_prototypes=m).fit(X, y)
        score = float(np.mean(est.cv_score_))
        scores[m] = score
        if score < best_score - 1e-12:
            best, best_score = est, score
    if best is None:
        raise ValueError(f"choose_n_prototypes: the CV scores were not computed (cv_score_ is NaN for every candidate "
                         f"m in {list(scores)}): with gamma and sigma2 fixed the score is informational, skipped "
                         "without cv when its fold solves are costly (FIXED_CV_FLOPS), for a classifier also when its "
                         "features exceed feature_memory, and past max_time. Pass cv explicitly (e.g. cv=10; a "
                         "classifier also needs a feature_memory that holds its features), or leave gamma and sigma2 "
                         "to be tuned")
    return best, scores
