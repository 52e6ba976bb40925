"""The magnitudes of X, C and the sample weights that paper 001's models are solved at, checked for all three
estimators (:class:`svmopt.ramp.estimators.L1SVC`, :class:`svmopt.ramp.estimators.FeatureBudgetSVC`,
:class:`svmopt.ramp.ramp_loss.RampLossSVC`) by the same two helpers.

Decision: X is used as given, never rescaled inside. The models ``min ||w||_1 + sum_i C_i loss(y_i (w.x_i + b))``
(hinge or ramp loss, ``C_i = C w_i``) are not scale invariant with C fixed: on ``X / s`` with ``w`` scaled back
(``w = w' / s``) the problem is the same only with every ``C_i`` replaced by ``C_i s`` -- that is, a different C.
So a fit at another scale of X answers another question, and at a tiny scale its true answer is ``w = 0``: both
losses are 1-Lipschitz in the margin, so for any ``(w, b)`` the loss sum drops by at most
``sum_k |w_k| sum_i C_i |x_ik|`` below the best constant model's; when every column has ``kappa_k = sum_i C_i
|x_ik| <= 1`` no ``w != 0`` can pay for its l1 norm, and ``w = 0`` is the certified optimum (whatever the budget).

* :func:`check_magnitudes`, before any work: X at or above HiGHS's ``large_matrix_value`` (1e15; HiGHS refuses such
  matrix entries), ``C`` times the largest weight at or above it (every row's cost; its double is a matrix entry of
  the MILPs' cut-off row (18)), the big-M coefficients the MILPs would hold (the class diameter times the objective
  bound, Prop. 2.2; the feature bound ``u``), and columns whose entries all lie below HiGHS's ``small_matrix_value``
  (1e-9: HiGHS reads them as 0) although their ``kappa_k > 1`` (the optimum may use them): a ValueError naming the
  magnitude and the remedy.
* :func:`warn_zero_model`, after the fit: a fitted ``w = 0`` warns (UserWarning), naming X's magnitude, whether
  ``w = 0`` is the certified optimum (``max_k kappa_k <= 1``), and the remedy: standardize X (e.g.
  ``sklearn.preprocessing.StandardScaler``) or raise C.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

import numpy as np
import scipy.sparse as sp

from svmopt._shared.config import warn
from svmopt._shared.dask import finite_column_max, has_sparse_chunks, is_dask_array, reduce_row_chunks
from svmopt._shared.sparse import is_sparse
from svmopt.ramp.sparse_rows import column_ptp

#: HiGHS's defaults for the largest and the smallest matrix entry it keeps (``solver_options`` may change them).
LARGE_MATRIX_VALUE = 1e15
SMALL_MATRIX_VALUE = 1e-9

_BLOCK = 65_536  # rows per block of a pass over a numpy array or a memmap (no n x d temporary)


def column_max(X: Any) -> np.ndarray:
    """``max_i |x_ik|`` per column, by row blocks (a Dask array where its chunks are; scipy sparse chunks over their
    stored values)."""
    if has_sparse_chunks(X):
        return finite_column_max(X)
    if is_dask_array(X):
        import dask.array as da

        return np.asarray(da.abs(X).max(axis=0).compute(), dtype=np.float64)
    if is_sparse(X):  # over the stored values (the implicit zeros do not raise a maximum of |x|)
        out = np.zeros(X.shape[1])
        _, kk, vals = sp.find(X)
        np.maximum.at(out, kk, np.abs(vals))
        return out
    out = np.zeros(X.shape[1])
    for s in range(0, X.shape[0], _BLOCK):
        np.maximum(out, np.abs(X[s:s + _BLOCK]).max(axis=0, initial=0.0), out=out)
    return out


def column_kappa(X: Any, costs: Any, cols: np.ndarray | None = None) -> np.ndarray:
    """``kappa_k = sum_i C_i |x_ik|`` for the columns ``cols`` (all: None); ``costs`` is C or one ``C_i`` per row."""
    cols = np.arange(X.shape[1]) if cols is None else np.asarray(cols, dtype=np.intp)
    c = np.asarray(costs, dtype=np.float64)
    if has_sparse_chunks(X):  # each chunk's |X|^T C over its nonzeros where it is, the chunks' sums added
        per_row, scale = (None, float(c)) if c.ndim == 0 else (c, 1.0)
        return np.asarray(reduce_row_chunks(X, _chunk_kappa, per_row, args=(cols, scale))[0])
    if is_dask_array(X):
        import dask.array as da

        A = da.abs(X[:, cols])
        return np.asarray((A.sum(axis=0) * float(c) if c.ndim == 0 else (A * c[:, None]).sum(axis=0)).compute())
    if is_sparse(X):  # sum_i C_i |x_ik| over the nonzeros: |X|^T C, a sparse product
        A = abs(sp.csc_matrix(X)[:, cols])
        return np.asarray(A.sum(axis=0) * float(c) if c.ndim == 0 else A.T @ c, dtype=np.float64).ravel()
    out = np.zeros(cols.size)
    for s in range(0, X.shape[0], _BLOCK):
        A = np.abs(np.asarray(X[s:s + _BLOCK])[:, cols])
        out += A.sum(axis=0) * float(c) if c.ndim == 0 else c[s:s + _BLOCK] @ A
    return out


def _chunk_kappa(xb: Any, c: np.ndarray | None, cols: np.ndarray, scale: float) -> tuple[np.ndarray]:
    """Worker task of :func:`column_kappa` on a scipy sparse chunk: ``sum_i C_i |x_ik|`` over its nonzeros (``c``
    the chunk's ``C_i``, or None and the common C ``scale``)."""
    A = abs(sp.csc_matrix(xb)[:, cols])
    out = A.sum(axis=0) * scale if c is None else A.T @ c
    return (np.asarray(out, dtype=np.float64).ravel(),)


def _option(options: Mapping[str, Any] | None, key: str, default: float) -> float:
    return float((options or {}).get(key, default))


def objective_bound(y: np.ndarray, costs: Any) -> float:
    """``2 min(sum_{y_i = 1} C_i, sum_{y_i = -1} C_i)``: the objective of the best constant model, which bounds the
    optimum of every model here and Algorithm 1's UB (an objective no worse than it)."""
    c = np.broadcast_to(np.asarray(costs, dtype=np.float64), y.shape)
    return 2.0 * min(float(c[y > 0].sum()), float(c[y < 0].sum()))


def check_magnitudes(name: str, X: Any, y: np.ndarray, col_max: np.ndarray, C: float, weight: np.ndarray | None,
                     options: Mapping[str, Any] | None = None, *, big_m: str | None = None) -> None:
    """The checks of the module docstring, before any work; a ValueError naming the magnitude and the remedy.

    ``col_max`` is :func:`column_max` of the rows fitted, ``weight`` their sample weights (None: unweighted), ``C``
    the largest C the fit solves at; ``big_m``: "ramp" for (RL-FS-M) (M_i = Delta_i UB of Prop. 2.2), "budget" for
    (FS-SVM) (u = UB), None for the models without big-Ms (the (SVM-l1) LP, the cutting planes)."""
    large = _option(options, "large_matrix_value", LARGE_MATRIX_VALUE)
    small = _option(options, "small_matrix_value", SMALL_MATRIX_VALUE)
    top = float(col_max.max(initial=0.0))
    if top >= large:
        raise ValueError(f"{name}: X has entries of magnitude up to {top:.3g}, at or above HiGHS's large_matrix_value "
                         f"({large:g}), which HiGHS refuses in a model; the model (C fixed) is not scale invariant, so "
                         "rescale X: standardize it (e.g. sklearn.preprocessing.StandardScaler)")
    w_max = 1.0 if weight is None else float(weight.max(initial=0.0))
    cost = C * w_max
    if 2.0 * cost >= large:
        if weight is None:
            raise ValueError(f"{name}: C={C:g} is every row's cost in every LP and MILP of the fit, and twice it (an "
                             "outlier's cost) a matrix entry of the MILPs' cut-off row, at or above HiGHS's "
                             f"large_matrix_value ({large:g}): lower C (on standardized X, e.g. "
                             "sklearn.preprocessing.StandardScaler, C of order 0.01 to 100)")
        raise ValueError(f"{name}: C={C:g} times max(sample_weight)={w_max:.3g} is {cost:.3g}: C times a row's weight "
                         "is its cost in every LP and MILP of the fit, and twice it (an outlier's cost) a matrix entry "
                         f"of the MILPs' cut-off row, at or above HiGHS's large_matrix_value ({large:g}). C times the "
                         "weights is what enters: divide the weights by a common factor (e.g. their mean) and choose "
                         "C for the result")
    costs = C if weight is None else C * weight
    if big_m is not None:
        ub = objective_bound(y, costs)
        if big_m == "ramp":  # M_i <= Delta_i UB, Delta_i <= the class's largest coordinate spread (Prop. 2.2)
            spread = max((float(np.max(column_ptp(X[y == c]), initial=0.0)) for c in (-1.0, 1.0)
                          if np.any(y == c)), default=0.0)
            coef, what = spread * ub, f"the big-M coefficients of (13) (class diameter {spread:.3g} times UB)"
        else:
            coef, what = ub, "the feature bound u = UB of (10)/(11)"
        if coef >= large:
            raise ValueError(f"{name}: {what} would reach {coef:.3g}, at or above HiGHS's large_matrix_value "
                             f"({large:g}); UB <= {ub:.3g}, twice the lighter class's sum of C times the weights: "
                             "rescale X (e.g. sklearn.preprocessing.StandardScaler), or lower C or the weights")
    tiny = np.flatnonzero((col_max > 0) & (col_max < small))
    if tiny.size:
        kappa = column_kappa(X, costs, tiny)
        bad = tiny[kappa > 1.0]
        if bad.size:
            raise ValueError(f"{name}: X column(s) {bad[:5].tolist()}{' ...' if bad.size > 5 else ''} have entries "
                             f"of magnitude at most {float(col_max[bad].max()):.3g}, below HiGHS's small_matrix_value "
                             f"({small:g}), which HiGHS reads as 0, while C times their sum of |x| reaches "
                             f"{float(kappa.max()):.3g} > 1, so the optimum may use them: the model (C fixed) is not "
                             "scale invariant; rescale X: standardize it (e.g. sklearn.preprocessing.StandardScaler)")


def warn_zero_model(name: str, X: Any, col_max: np.ndarray, C: float, weight: np.ndarray | None,
                    stopped: str | None = None) -> None:
    """The UserWarning of a fitted ``w = 0`` (module docstring): X's magnitude, whether ``w = 0`` is certified
    optimal, the remedy. ``stopped``: the fit's status when a limit stopped it (its usable point may then be the
    constant model although a better one exists), None otherwise."""
    costs = C if weight is None else C * weight
    kappa = float(column_kappa(X, costs).max(initial=0.0))
    top = float(col_max.max(initial=0.0))
    head = (f"{name}: the fitted w is 0 (no feature selected), so every point gets the class of the intercept's "
            f"sign; X's largest magnitude is {top:.3g}")
    if kappa == 0.0:
        why = ": X is 0 on the rows fitted; no feature can separate them"
    elif kappa <= 1.0:
        why = (f", and C={C:g} times its columns' sums of |x|{' (weighted)' if weight is not None else ''} is at most "
               f"{kappa:.3g} <= 1, so w = 0 is the optimum: no w pays for its l1 norm by the loss it saves. The model "
               "(C fixed) is not scale invariant: standardize X (e.g. sklearn.preprocessing.StandardScaler) or raise "
               f"C (above {C / kappa:.3g} the certificate no longer holds)")
    elif stopped is not None:
        why = (f"; the fit stopped at a limit (status_ {stopped!r}) with the constant model as its best point, and "
               "C times the columns' sums of |x| exceeds 1, so a better model may exist: raise max_time (or the "
               "limit of solver_options); the model (C fixed) depends on X's scale too: standardize X (e.g. "
               "sklearn.preprocessing.StandardScaler)")
    else:
        why = (f": the l1 norm outweighs C={C:g} times the losses saved; standardize X (e.g. "
               "sklearn.preprocessing.StandardScaler) or raise C")
    warn(head + why, UserWarning)
