"""The feature maps of the fixed-size LS-SVM (paper 002, Sections 3.1-3.2) and the fold models' predictions on them.

* :func:`rbf_params` -- the core's RBF parameters of a bandwidth sigma^2, K(x, z) = exp(-||x - z||^2 / sigma^2);
* :func:`nystrom_projection` -- P = U' Lambda'^{-1/2} of the Nyström features (5), computed in the core;
* :func:`linear_accumulator` -- the fold sums on explicit linear features (the inputs and the bias column);
* :func:`resolve_statistics` -- what a FoldAccumulator sums, the features or the kernel block;
* :func:`kernel_fold_models`, :func:`kernel_fold_predict` -- held-out rows predicted by their own fold's model
  through the kernel block, K(x, PV) P w_u + b_u (the compact predictor of Section 3.2).
"""

from __future__ import annotations

import math
from collections.abc import Callable, Iterable
from typing import Any, Literal

import numpy as np

from svmopt import _core

Block = tuple[np.ndarray, np.ndarray]
Statistics = Literal["auto", "features", "kernel"]
BlockFactory = Callable[[], Iterable[Block]]
ParamsFactory = Callable[[float], "_core.kernels.KernelParams"]


def rbf_params(sigma2: float) -> _core.kernels.KernelParams:
    """The core's RBF parameters of the bandwidth sigma^2 (svmopt's ``Kernel("rbf", alpha=sqrt(sigma2 / 2))``)."""
    return _core.kernels.KernelParams(_core.kernels.KernelKind.rbf, alpha=math.sqrt(float(sigma2) / 2.0))


def nystrom_projection(PV: np.ndarray, params: _core.kernels.KernelParams,
                       n_threads: int = 0) -> tuple[np.ndarray, np.ndarray]:
    """P = U' Lambda'^{-1/2} (m x m') from eig(Omega_mm), keeping lambda > m eps lambda_max (Section 3.1;
    decision: an ill-conditioned Omega_mm loses its small eigenpairs, no jitter is added). In the core: LAPACK's
    dsyevd from the BLAS already loaded from m = 256, Eigen's symmetric eigensolver below (as fast there; figures in
    docs/performance.md#tuning-in-the-core)."""
    return _core.fixed_size.nystrom_projection(np.asarray(PV, dtype=np.float64), params, int(n_threads))



def linear_accumulator(d: int, **kw: Any) -> _core.fixed_size.FoldAccumulator:
    """A FoldAccumulator on explicit linear features (decision: the linear FS-LSSVM uses the inputs
    themselves, equivalent to the Nyström-linear map when the prototypes span R^d): the d inputs plus the bias
    column, no prototypes.
    ``kw``: n_folds, n_targets, n_threads, chunk, keep_features."""
    linear = _core.kernels.KernelParams(_core.kernels.KernelKind.linear)
    return _core.fixed_size.FoldAccumulator(np.zeros((0, d)), linear, np.zeros((0, 0)), n_features_linear=d, **kw)


def resolve_statistics(P: np.ndarray | None, n_targets: int, choice: str = "auto") -> str:
    """What a ``FoldAccumulator(statistics=choice)`` with projection ``P`` (None: explicit linear features) sums:
    "kernel" or "features" ("auto": ``_core.fixed_size.kernel_statistics_preferred``)."""
    if P is None or choice == "features":
        return "features"
    return "kernel" if choice == "kernel" or _core.fixed_size.kernel_statistics_preferred(P, n_targets) else "features"


def kernel_fold_models(P: np.ndarray, theta: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """The fold models theta (v, p, k) on [K(x, PV), 1]: V = [P w_1, ..., P w_v] (m x v k, w_u = theta_u without its
    bias row) and the biases (v, k)."""
    theta = np.asarray(theta)
    return np.ascontiguousarray(np.concatenate([P @ th[:-1] for th in theta], axis=1)), theta[:, -1, :]


def kernel_fold_predict(X: np.ndarray, PV: np.ndarray, params: _core.kernels.KernelParams, V: np.ndarray,
                        bias: np.ndarray, folds: np.ndarray, n_threads: int = 0) -> np.ndarray:
    """Row i of X predicted by its own fold's model, Phi_e[i] theta_u = K(x_i, PV) P w_u + b_u (u = folds[i]), by the
    streamed kernel matvec against all v models at once (n m (d + v k) flops, not the features' 2 n m m')."""
    n, (v, k) = X.shape[0], bias.shape
    if v * k <= PATH_COLUMNS:
        KV = _core.kernels.matvec(X, PV, V, params, n_threads, 256).reshape(n, v, k)
        return KV[np.arange(n), folds] + bias[folds]
    # Many models per fold (a gamma path): each row times its own fold's k columns only, n m (d + k) flops, from one
    # kernel block per piece of rows (PATH_PIECE x m doubles) instead of all v k columns for every row.
    out = np.empty((n, k))
    for r0 in range(0, n, PATH_PIECE):
        Kp = _core.kernels.cross(np.ascontiguousarray(X[r0:r0 + PATH_PIECE]), PV, params, n_threads, 256)
        fp = folds[r0:r0 + PATH_PIECE]
        for u in np.unique(fp):
            sel = np.flatnonzero(fp == u)
            out[r0 + sel] = Kp[sel] @ V[:, u * k:(u + 1) * k] + bias[u]
    return out


#: kernel_fold_predict's streamed matvec computes every fold's columns for every row; above this many columns it
#: forms the kernel block of PATH_PIECE rows and multiplies each row by its own fold's columns only.
PATH_COLUMNS = 32
PATH_PIECE = 4096
