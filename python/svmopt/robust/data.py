"""RobustSVC's training data as a fit reads it (:class:`TrainingData`): an array checked by scikit-learn's
``validate_data`` with the weights of the rows (rows of weight 0 left out), or a Dask array checked chunk by chunk
for the reduced model; for the RBF kernel, X over a power of two when its magnitude is beyond
:data:`SAFE_MAGNITUDE` (:func:`input_unit`); the data statistics of the kernel widths; rows taken from either."""

from __future__ import annotations

import dataclasses
from dataclasses import dataclass
from typing import Any

import numpy as np
from sklearn.utils.multiclass import check_classification_targets
from sklearn.utils.validation import column_or_1d, validate_data

from svmopt._shared.dask import check_dask_array, column_moments, is_dask_array
from svmopt._shared.moments import block_moments, column_stds, power_of_two_unit
from svmopt._shared.sparse import as_csr, is_sparse
from svmopt._shared.validation import check_dask_fit_weights, check_fit_weights, shown
from svmopt.robust.sparse import sparse_spread


@dataclass
class TrainingData:
    """The rows a fit uses, with what the resolution of its parameters reads of them."""

    X: Any  # float64 rows of positive weight (an array, a CSR matrix, or a Dask array for the reduced model)
    y: np.ndarray  # their labels
    weight: np.ndarray | None  # their weights (sample times class weight; None: every weight 1)
    kept: np.ndarray | None  # indices of these rows among the rows given to fit (None: every row)
    y_given: np.ndarray  # the labels of every row given to fit (rows of weight 0 included)
    stds: np.ndarray  # the column stds (ddof=1; weighted: the frequency-weighted ones)
    total_var: float  # the variance of all the entries of X (population form, weighted)
    classes: np.ndarray  # the sorted class labels
    absmax: float = 0.0  # the largest |x| of the rows given (before the division by ``unit``)
    unit: float = 1.0  # the power of two X was divided by (:func:`input_unit`; 1: X as given)
    X_given: Any = None  # every row given to fit as validated (float64, weights of 0 included; None for Dask)

    def in_memory(self) -> TrainingData:
        """These data with a Dask X gathered (the paper's model: at most ``AUTO_MAX_ROWS`` rows)."""
        if not is_dask_array(self.X):
            return self
        return dataclasses.replace(self, X=np.ascontiguousarray(self.X.compute(), dtype=np.float64))


#: The magnitudes of X (its largest |x|) the RBF kernel is evaluated on as they are. Beyond them X is divided by the
#: power of two at or above its largest |x| (:func:`input_unit`): the squared distances of the Gaussian kernel (21)
#: underflow to 0 from about 1e-154 (every kernel value 1, u = 0) and overflow from 1e154. A power of two divides
#: exactly, and k(x / 2^k, z / 2^k) with the width alpha / 2^k is k(x, z) with alpha, so the fit is the one of X.
SAFE_MAGNITUDE = (2.0**-128, 2.0**128)


def input_unit(absmax: float, kernel_name: str | None = "rbf") -> float:
    """1, or the power of two an RBF fit divides X by (X's largest magnitude ``absmax`` beyond
    :data:`SAFE_MAGNITUDE`). The other kernels (``kernel_name``; None: any) are not divided: their values (and so
    the LP) scale with X."""
    if (kernel_name is not None and kernel_name != "rbf") or absmax == 0.0 or not np.isfinite(absmax) or \
            SAFE_MAGNITUDE[0] <= absmax <= SAFE_MAGNITUDE[1]:
        return 1.0
    return float(power_of_two_unit(np.asarray(absmax)))


def training_data(estimator: Any, X: Any, y: Any, sample_weight: Any, kernel_name: str = "rbf") -> TrainingData:
    """The checked training data of ``estimator.fit(X, y, sample_weight)`` (``estimator.class_weight`` applied;
    ``n_features_in_`` set as ``validate_data`` sets it); a ValueError for fewer than two classes. For the kernel
    ``kernel_name`` "rbf", X over :func:`input_unit` (and its statistics those of ``X / unit``)."""
    kept: np.ndarray | None = None
    spread: tuple[np.ndarray, float] | None = None
    if is_dask_array(X):
        X, y, w, absmax, spread = _dask_data(estimator, X, y, sample_weight)
        y_given, X_given = y, None  # every row kept: a Dask X takes no weight of 0
    else:  # a scipy sparse X as CSR (its nonzeros checked finite, never densified: svmopt.robust.sparse)
        X, y = validate_data(estimator, X, y, dtype=np.float64, ensure_min_samples=2, y_numeric=False,
                             accept_sparse=("csr", "csc"))
        if is_sparse(X):
            X = as_csr(X, "X")
        y = column_or_1d(y, warn=True)
        y_given, X_given = y, X
        X, y, w, kept = check_fit_weights(X, y, sample_weight, estimator.class_weight, return_kept=True)
        if is_sparse(X):
            absmax = float(np.max(np.abs(X.data))) if X.nnz else 0.0
        else:
            absmax = float(np.max(np.abs(X))) if X.size else 0.0
    if kernel_name != "rbf" and absmax > SAFE_MAGNITUDE[1]:
        raise ValueError(f"X has entries of magnitude up to {absmax:.3g}: the {kernel_name} kernel is evaluated on X "
                         "as it is, and its values scale with X (as inner products or their powers; the sigmoid's "
                         "saturate), far beyond what the LP's solvers take (kernel values below 1e15); rescale X "
                         "(e.g. StandardScaler), or use the RBF kernel with a data-driven width, whose fit does not "
                         "depend on the scale of X")
    unit = input_unit(absmax, kernel_name)
    if unit != 1.0:
        X = X / unit  # exact (a power of two); a new array (or graph): the caller's X is not modified
    # The statistics in a power of two of X's magnitude too (the variances squared the entries: 0 below 1e-162),
    # so that "paper" and c="auto" of the other kernels are X's at any finite scale.
    s_unit = input_unit(absmax / unit, None)
    if spread is None or unit != 1.0 or s_unit != 1.0:
        Xs = X if s_unit == 1.0 else X / s_unit
        stds, total_var = (dask_spread(Xs, w) if is_dask_array(Xs) else sparse_spread(Xs, w) if is_sparse(Xs)
                           else weighted_spread(Xs, w))
        with np.errstate(over="ignore", under="ignore"):  # total_var: the RBF's (s_unit = 1 there)
            stds, total_var = stds * s_unit, float(np.float64(total_var) * s_unit * s_unit)
    else:
        stds, total_var = spread
    check_classification_targets(y)
    classes = np.unique(y)
    if classes.size < 2:
        raise ValueError(f"RobustSVC needs samples of at least 2 classes in y; got 1 class ({shown(classes[0])})")
    return TrainingData(X, y, w, kept, y_given, stds, total_var, classes, absmax, unit, X_given)


def _dask_data(estimator: Any, X: Any, y: Any,
               sample_weight: Any) -> tuple[Any, np.ndarray, np.ndarray | None, float, tuple | None]:
    """A Dask X as the reduced model reads it: checked (2-D, known row chunks, finite; its largest magnitude
    computed in the same pass); y gathered; the weights (sample and class; every one must be > 0, rows cannot be
    left out of a Dask array here); without weights, :func:`weighted_spread`'s statistics from that pass too
    (None: computed by :func:`dask_spread`)."""
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
    spread = None
    if w is None:  # one pass
        finite, absmax, col_var, col_mean = dask.compute(da.isfinite(X).all(), abs(X).max(), X.var(axis=0),
                                                         X.mean(axis=0))
        spread = _spread_of(np.asarray(col_var, dtype=np.float64), np.asarray(col_mean, dtype=np.float64), n)
    else:
        finite, absmax = dask.compute(da.isfinite(X).all(), abs(X).max())
    if not bool(finite):
        raise ValueError("Input X contains NaN or infinity.")
    estimator.n_features_in_ = int(X.shape[1])
    estimator.__dict__.pop("feature_names_in_", None)
    return X, y, w, float(absmax), spread


def _spread_of(col_var: np.ndarray, col_mean: np.ndarray, n: int) -> tuple[np.ndarray, float]:
    return np.sqrt(col_var * n / (n - 1)), (float(col_var.mean() + np.var(col_mean)) if col_var.size else 0.0)


def dask_spread(X: Any, w: np.ndarray | None) -> tuple[np.ndarray, float]:
    """:func:`weighted_spread` of a Dask X, computed by the workers (one pass unweighted, two weighted:
    :func:`svmopt._shared.dask.column_moments`)."""
    import dask

    n = X.shape[0]
    if w is None:
        col_var, col_mean = dask.compute(X.var(axis=0), X.mean(axis=0))
        return _spread_of(np.asarray(col_var, dtype=np.float64), np.asarray(col_mean, dtype=np.float64), n)
    col_mean, s2, W, unit = column_moments(X, w)
    col_var = s2 / W * unit**2
    return column_stds(s2, n, w, unit), (float(col_var.mean() + np.var(col_mean)) if col_var.size else 0.0)


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


def take_rows(X: Any, idx: np.ndarray) -> Any:
    """Rows ``idx`` (sorted) of X as a float64 array (of a Dask array: read from the chunks that hold them; of a
    sparse X: CSR rows, not densified)."""
    rows = X[idx]
    if is_sparse(rows):
        return as_csr(rows, "X")
    return np.ascontiguousarray(rows.compute() if is_dask_array(rows) else rows, dtype=np.float64)
