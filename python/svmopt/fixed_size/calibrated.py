"""``FixedSizeLSSVC(probability=True)``: what the calibration of :mod:`svmopt._shared.calibration` needs of a
fixed-size fit -- X in memory and 2 rows of every class, checked before any work -- and the parameters its folds'
clones take from the fit (the tuned gamma and sigma^2, the prototype count), so that they fit the chosen model at
fixed values instead of tuning again."""

from __future__ import annotations

import time
from typing import Any

import numpy as np

from svmopt._shared.calibration import N_FOLDS
from svmopt._shared.dask import is_dask_array
from svmopt._shared.runtime import TimeBudget


def check_probability(est: Any, X: Any, y_kept: np.ndarray | None = None) -> None:
    """``probability=True`` needs X in memory (its held-out decision values come from folds of rows): a dask array
    or a block stream is refused before the first pass over it (``X`` as given); then at least 2 rows of positive
    weight of every class (``y_kept``, their labels), before the model's fit."""
    if not est.probability:
        return
    stream = callable(X) or (not isinstance(X, np.ndarray) and hasattr(X, "__next__"))
    if X is not None and (is_dask_array(X) or stream):
        kind = "dask array" if is_dask_array(X) else "block stream"
        raise ValueError(f"probability=True needs X as an array or np.memmap: its held-out decision values come from "
                         f"folds of rows, which a {kind} does not give; compute the rows into an array, or leave "
                         "probability=False")
    counts = np.unique(y_kept, return_counts=True)[1] if y_kept is not None else np.zeros(0)
    if counts.size >= 2 and counts.min() < 2:  # (one class: the classifier's own error says so)
        raise ValueError("probability=True needs at least 2 rows of every class (of positive weight) for its "
                         "held-out decision values")


def fold_time(tbudget: TimeBudget) -> float | None:
    """Each calibration fold's share of the time left under ``max_time`` (None: no limit)."""
    if tbudget.max_time is None:
        return None
    return max(1e-3, tbudget.start + tbudget.max_time - time.perf_counter()) / N_FOLDS


def problem_values(est: Any, name: str) -> float | np.ndarray:
    """The fitted problems' ``name`` ("gamma", "sigma2"): one number when they agree, else one per problem."""
    values = np.array([float(p[name]) for p in est.problems_])
    return float(values[0]) if np.all(values == values[0]) else values


def fold_params(est: Any, seconds: float | None) -> dict[str, Any]:
    """The choices of the fitted ``est``, for the calibration's clones: the tuned ``gamma`` and RBF ``sigma2`` (one
    value, or one per binary problem), so the folds do not tune again; the prototype count (an explicit
    ``n_prototypes`` as the fit used it; ``"auto"`` stays, resolved by each fold's rows as by the fit's); no
    progress output; and ``seconds`` per fold (:func:`fold_time`; None: no ``max_time``)."""
    params: dict[str, Any] = {"gamma": problem_values(est, "gamma"), "verbose": False}
    if est.kernel_mode_ == "rbf":
        params["sigma2"] = problem_values(est, "sigma2")
    if est.n_prototypes != "auto" and est.n_prototypes_ > 0:
        params["n_prototypes"] = int(est.n_prototypes_)
    if seconds is not None:
        params["max_time"] = seconds
    return params
