"""RobustSVC's training data as a fit reads it (:class:`TrainingData`): an array checked by scikit-learn's
``validate_data`` with the weights of the rows (rows of weight 0 left out), or a Dask array checked chunk by chunk
for the reduced model; the data statistics of the kernel widths; rows taken from either."""

from __future__ import annotations

import dataclasses
from dataclasses import dataclass
from typing import Any

import numpy as np
from sklearn.utils.multiclass import check_classification_targets
from sklearn.utils.validation import column_or_1d, validate_data

from svmopt._shared.dask import check_dask_array, column_moments, is_dask_array
from svmopt._shared.moments import block_moments, column_stds
from svmopt._shared.validation import check_dask_fit_weights, check_fit_weights, shown


@dataclass
class TrainingData:
    """The rows a fit uses, with what the resolution of its parameters reads of them."""

    X: Any  # float64 rows of positive weight (an array, or a Dask array for the reduced model)
    y: np.ndarray  # their labels
    weight: np.ndarray | None  # their weights (sample times class weight; None: every weight 1)
    kept: np.ndarray | None  # indices of these rows among the rows given to fit (None: every row)
    y_given: np.ndarray  # the labels of every row given to fit (rows of weight 0 included)
    stds: np.ndarray  # the column stds (ddof=1; weighted: the frequency-weighted ones)
    total_var: float  # the variance of all the entries of X (population form, weighted)
    classes: np.ndarray  # the sorted class labels

    def in_memory(self) -> TrainingData:
        """These data with a Dask X gathered (the paper's model: at most ``AUTO_MAX_ROWS`` rows)."""
        if not is_dask_array(self.X):
            return self
        return dataclasses.replace(self, X=np.ascontiguousarray(self.X.compute(), dtype=np.float64))


def training_data(estimator: Any, X: Any, y: Any, sample_weight: Any) -> TrainingData:
    """The checked training data of ``estimator.fit(X, y, sample_weight)`` (``estimator.class_weight`` applied;
    ``n_features_in_`` set as ``validate_data`` sets it); a ValueError for fewer than two classes."""
    kept: np.ndarray | None = None
    if is_dask_array(X):
        X, y, w, stds, total_var = _dask_data(estimator, X, y, sample_weight)
        y_given = y  # every row kept: a Dask X takes no weight of 0
    else:
        X, y = validate_data(estimator, X, y, dtype=np.float64, ensure_min_samples=2, y_numeric=False)
        y = column_or_1d(y, warn=True)
        y_given = y
        X, y, w, kept = check_fit_weights(X, y, sample_weight, estimator.class_weight, return_kept=True)
        stds, total_var = weighted_spread(X, w)
    check_classification_targets(y)
    classes = np.unique(y)
    if classes.size < 2:
        raise ValueError(f"RobustSVC needs samples of at least 2 classes in y; got 1 class ({shown(classes[0])})")
    return TrainingData(X, y, w, kept, y_given, stds, total_var, classes)


def _dask_data(estimator: Any, X: Any, y: Any,
               sample_weight: Any) -> tuple[Any, np.ndarray, np.ndarray | None, np.ndarray, float]:
    """A Dask X as the reduced model reads it: checked (2-D, known row chunks, finite); y gathered; the weights
    (sample and class; every one must be > 0, rows cannot be left out of a Dask array here); and the data
    statistics of the kernel widths, :func:`weighted_spread`'s, computed by the workers (one pass unweighted,
    two weighted: :func:`svmopt._shared.dask.column_moments`)."""
    import dask
    import dask.array as da

    X = check_dask_array(X).astype(np.float64)
    y = column_or_1d(np.asarray(y.compute() if is_dask_array(y) else y), warn=True)
    n = X.shape[0]
    if y.shape[0] != n:
        raise ValueError(f"X has {n} rows but y has {y.shape[0]} labels")
    if n < 2:
        raise ValueError(f"Found array with {n} sample(s) (shape={X.shape}) while a minimum of 2 is required.")
    w = check_dask_fit_weights(y, sample_weight, estimator.class_weight)
    if w is None:  # one pass
        col_var, col_mean, finite = dask.compute(X.var(axis=0), X.mean(axis=0), da.isfinite(X).all())
        if not bool(finite):
            raise ValueError("Input X contains NaN or infinity.")
        col_var = np.asarray(col_var, dtype=np.float64)
        stds = np.sqrt(col_var * n / (n - 1))
    else:
        col_mean, s2, W, unit = column_moments(X, w)
        col_var = s2 / W * unit**2
        stds = column_stds(s2, n, w, unit)
    estimator.n_features_in_ = int(X.shape[1])
    estimator.__dict__.pop("feature_names_in_", None)
    return X, y, w, stds, (float(col_var.mean() + np.var(col_mean)) if col_var.size else 0.0)


def weighted_spread(X: np.ndarray, w: np.ndarray | None) -> tuple[np.ndarray, float]:
    """The column stds (ddof=1; weighted: ``sum w (x - mean)^2`` over
    :func:`~svmopt._shared.moments.weighted_variance_denominator`) and the variance of all the
    entries of X (its population form, weighted by ``w``), the data statistics of the kernel widths."""
    n = X.shape[0]
    if w is None:
        col_var = X.var(axis=0)
        stds = np.sqrt(col_var * n / (n - 1))
        return stds, (float(col_var.mean() + X.mean(axis=0).var()) if X.shape[1] else 0.0)
    mean, s2, W, unit = block_moments(lambda: [X], X.shape[1], w)
    col_var = s2 / W * unit**2
    stds = column_stds(s2, n, w, unit)
    return stds, (float(col_var.mean() + mean.var()) if X.shape[1] else 0.0)


def take_rows(X: Any, idx: np.ndarray) -> np.ndarray:
    """Rows ``idx`` (sorted) of X as a float64 array (of a Dask array: read from the chunks that hold them)."""
    rows = X[idx]
    return np.ascontiguousarray(rows.compute() if is_dask_array(rows) else rows, dtype=np.float64)
