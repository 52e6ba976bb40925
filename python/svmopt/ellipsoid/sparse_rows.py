"""scipy.sparse X for :class:`svmopt.EllipsoidPSOClassifier` (paper 003): the statistics of the construction from a
CSR X over its nonzeros, never an n x d dense array.

The construction only reads X through d-dimensional parameters: the means and covariances of the whitening
(Section 4.3.5), of the 2-D projection and of the class ellipsoids (Section 4.2, eq. (15)), and per row the
quadratic forms ``(x - c)^T A (x - c)`` that place the facing points, and the projections ``x^T T``. Here

* a mean and covariance of rows of X (weights ``w``) are ``mu = X^T w / W`` and ``(X^T diag(w) X - W mu mu^T) /
  denom`` by scipy's sparse products (a dense d x d result; ``denom`` the normalization of
  :func:`svmopt.ellipsoid.geometry.weighted_mean_cov`: ``n - 1``, or ``W - min(1, sum w^2 / W)``);
* the rows in a d x r basis, ``(x - m)^T T``, are ``X T - m^T T`` (sparse x dense, a block of rows at a time where
  their moments are summed: :data:`svmopt._shared.sparse.BLOCK_ROWS` x r values);
* with no more rows than features the whitening is read from the rows' n x n Gram matrix (the thin SVD of the dense
  path, :func:`svmopt.ellipsoid.projection.whiten`, has the same nonzero spectrum), and so is the Ledoit-Wolf amount.

The same formulas as the dense path in another order of the sums: the moments agree with the dense ones to rounding
(relative ``1e-16 (|mu| / sigma)^2`` for the one-pass covariance), and the rest of the fit is the dense code.
"""

from __future__ import annotations

from typing import Any

import numpy as np
import scipy.sparse as sp

from svmopt._shared.config import check_dense_allocation
from svmopt._shared.sparse import as_csr, column_moments, row_blocks
from svmopt.ellipsoid.geometry import check_class_sizes, class_ellipsoids, ellipsoids_from_moments, unit_weights
from svmopt.ellipsoid.projection import projection_of, whiten_covariance

#: The d x d float64 matrices a fit on sparse X holds at once at its peak (the sparse product X^T diag(w) X, its
#: dense copy, the covariance of the whitening and its eigenvectors), which the memory budget is checked for.
DXD_AT_ONCE = 4


def check_width(X, name: str = "EllipsoidPSOClassifier") -> None:
    """The memory budget for the d x d matrices of a fit (:func:`svmopt._shared.config.check_dense_allocation`),
    before any work: one d x d (the covariance) for dense X, :data:`DXD_AT_ONCE` for sparse X. With fewer rows than
    features the dense path works on the rows' SVD (n x d) and the sparse path on their n x n Gram matrix and the
    d x n singular vectors, both within the same bound."""
    d = X.shape[1]
    if not sp.issparse(X):
        check_dense_allocation(d, d, f"{name} with n_features={d} (the covariance of the whitening, Section 4.3.5, "
                               "and of the class ellipsoids, d x d)", remedy="reduce the features first (e.g. "
                               "sklearn.decomposition.PCA or a feature selection in a Pipeline)")
        return
    check_dense_allocation(DXD_AT_ONCE * d, d, f"{name} on a sparse X of n_features={d} columns (the covariances "
                           f"of the whitening, Section 4.3.5, and of the class ellipsoids: {DXD_AT_ONCE} dense "
                           f"{d} x {d} matrices at once)", remedy="reduce the features first (e.g. "
                           "sklearn.decomposition.TruncatedSVD, which takes sparse X, or a feature selection in a "
                           "Pipeline)")


def stack_rows(A, B):
    """The rows of A over those of B (CSR for sparse blocks)."""
    return sp.vstack([A, B], format="csr") if sp.issparse(A) else np.vstack([A, B])


def _weights(n: int, w: np.ndarray | None) -> tuple[np.ndarray, float, float, float]:
    """``(u, U, denom, unit)``: the weights over a power of two ``unit`` (ones without weights), their sum and the
    covariance's denominator, as :func:`svmopt.ellipsoid.geometry.weighted_mean_cov` (``n - 1`` unweighted)."""
    if w is None:
        return np.ones(n), float(n), float(n - 1), 1.0
    u, unit = unit_weights(w)
    U = float(u.sum())
    denom = U - min(1.0 / unit, float(u @ u) / U)
    return u, U, denom if denom > 0.0 else 1.0 / unit, unit


def _scatter(X: sp.csr_matrix, u: np.ndarray, U: float) -> tuple[np.ndarray, np.ndarray]:
    """The weighted mean ``X^T u / U`` and scatter ``X^T diag(u) X - U mu mu^T`` (d x d dense) of the rows."""
    mu = np.asarray(X.T @ u, dtype=np.float64).ravel() / U
    S = np.asarray((X.T @ X.multiply(u[:, None]).tocsr()).toarray(), dtype=np.float64)
    S -= U * np.outer(mu, mu)
    return mu, S


def sparse_mean_cov(X: sp.csr_matrix, w: np.ndarray | None = None) -> tuple[np.ndarray, np.ndarray]:
    """:func:`svmopt.ellipsoid.geometry.weighted_mean_cov` of the rows of a CSR X (d x d dense covariance)."""
    u, U, denom, _ = _weights(X.shape[0], w)
    mu, S = _scatter(X, u, U)
    S /= denom
    return mu, 0.5 * (S + S.T)


def _centred_gram(X: sp.csr_matrix, m: np.ndarray) -> np.ndarray:
    """``(X - m)(X - m)^T`` (n x n) from ``X X^T`` over the nonzeros."""
    G = np.asarray((X @ X.T).toarray(), dtype=np.float64)
    a = np.asarray(X @ m, dtype=np.float64).ravel()
    G -= a[:, None]
    G -= a[None, :]
    G += float(m @ m)
    return 0.5 * (G + G.T)


def sparse_ledoit_wolf(X: sp.csr_matrix, w: np.ndarray | None = None) -> float:
    """:func:`svmopt.ellipsoid.projection.weighted_ledoit_wolf_shrinkage` of the rows of a CSR X (centred by their
    weighted mean): the per-column variances by :func:`svmopt._shared.sparse.column_moments`, the squared norms of
    the centred rows by ``||x||^2 - 2 x^T m + ||m||^2``, and ``||Xc^T U Xc||_F^2`` from the d x d scatter (or, with
    no more rows than features, from the n x n Gram matrix)."""
    n, p = X.shape
    if n < 2 or p == 1:  # one feature: the same whatever the amount (scikit-learn's 0)
        return 0.0
    u, U, _, unit = _weights(n, w)
    m, var = column_moments(X, u)
    emp_cov_trace = var
    mu = float(np.sum(emp_cov_trace)) / p
    sq = np.asarray(X.multiply(X).sum(axis=1), dtype=np.float64).ravel()
    r = np.maximum(sq - 2.0 * np.asarray(X @ m, dtype=np.float64).ravel() + float(m @ m), 0.0)
    beta_ = float(u @ r**2)
    if n > p:
        delta_ = float(np.sum(_scatter(X, u, U)[1] ** 2)) / U**2
    else:
        delta_ = float(u @ (_centred_gram(X, m) ** 2) @ u) / U**2
    beta = 1.0 / (p * U) * (beta_ / U - delta_) / unit
    delta = (delta_ - 2.0 * mu * float(emp_cov_trace.sum()) + p * mu**2) / p
    beta = min(beta, delta)
    return 0.0 if beta == 0 else beta / delta


def sparse_whiten(X, shrinkage: float | str = 0.0, w: np.ndarray | None = None) -> tuple[np.ndarray, np.ndarray]:
    """:func:`svmopt.ellipsoid.projection.whiten` of the rows of a sparse X."""
    X = as_csr(X)
    amount = sparse_ledoit_wolf(X, w) if shrinkage == "ledoit_wolf" else float(shrinkage)
    if max(X.shape[0], 0.0 if w is None else float(np.sum(w))) <= X.shape[1]:
        return _whiten_gram(X, amount, w)
    m, C = sparse_mean_cov(X, w)
    return whiten_covariance(m, C, amount)


def _whiten_gram(X: sp.csr_matrix, a: float, w: np.ndarray | None) -> tuple[np.ndarray, np.ndarray]:
    """The whitening of n <= d rows: the dense path's thin SVD ``G = U S V^T`` of the scaled centred rows (G^T G
    their covariance) from the eigenvectors of ``G G^T`` (n x n) and ``V = G^T U / S`` (d x k, from sparse
    products). The directions of a numerically null singular value (``S^2 <= 1e-10 max S^2``: the centring's own,
    along which the rows have no component) are left out, since ``G^T U / S`` does not define them; the shrinkage
    and the eigenvalue floor are then those of the dense path."""
    n, d = X.shape
    u, U, denom, _ = _weights(n, w)
    m = np.asarray(X.T @ u, dtype=np.float64).ravel() / U
    scale = np.sqrt(u / denom) if n > 1 else np.zeros(n)
    lam_all, E = np.linalg.eigh(_centred_gram(X, m) * scale[:, None] * scale[None, :])
    lam_all, E = lam_all[::-1], E[:, ::-1]
    if not lam_all.size or lam_all[0] <= 0 or not np.isfinite(lam_all[0]):
        raise ValueError("the training samples of a class pair have zero variance; nothing separates them")
    real = lam_all > 1e-10 * lam_all[0]
    lam, E = lam_all[real], E[:, real] * scale[:, None]
    V = (np.asarray(X.T @ E, dtype=np.float64) - np.outer(m, E.sum(axis=0))) / np.sqrt(lam)
    if a:  # the eigenvalues of (1 - a) C + a mean(eig C) I along the rows
        lam = (1.0 - a) * lam + a * (float(np.maximum(lam_all, 0.0).sum()) / d)
    keep = lam > 1e-10 * lam.max()
    return m, V[:, keep] / np.sqrt(lam[keep])


def _rows_moments(V: sp.csr_matrix, w: np.ndarray | None, m: np.ndarray, T: np.ndarray) -> tuple[np.ndarray, ...]:
    """Mean and covariance (:func:`svmopt.ellipsoid.geometry.weighted_mean_cov`) of the rows ``(v - m)^T T``
    (r columns), a block of rows at a time, centred in a second pass as the dense path centres."""
    u, U, denom, _ = _weights(V.shape[0], w)
    mT = m @ T
    mean = np.asarray(V.T @ u, dtype=np.float64).ravel() / U @ T - mT
    S = np.zeros((T.shape[1], T.shape[1]))
    for rows in row_blocks(V.shape[0]):
        D = np.asarray(V[rows] @ T, dtype=np.float64) - mT - mean
        S += (D * u[rows, None]).T @ D
    return mean, np.atleast_2d(S / denom)


def sparse_projection(V1, V2, w1, w2, m: np.ndarray, W: np.ndarray, p2_mode: str, rng) -> np.ndarray:
    """:func:`svmopt.ellipsoid.projection.project_2d` of the whitened rows ``(v - m)^T W`` of two sparse classes,
    from their whitened means and covariances."""
    both = w1 is not None and w2 is not None
    mean1, mean2 = (_rows_moments(V, wc if both else None, m, W)[0] for V, wc in ((V1, w1), (V2, w2)))

    def spread() -> np.ndarray:
        if p2_mode == "covdiff":
            return _rows_moments(V1, w1, m, W)[1] - _rows_moments(V2, w2, m, W)[1]
        return _rows_moments(stack_rows(V1, V2), None if w1 is None else np.r_[w1, w2], m, W)[1]

    return projection_of(mean1 - mean2, spread, p2_mode, rng, basis=W)


def _quadratic_rows(V: sp.csr_matrix, mu: np.ndarray, M: np.ndarray) -> np.ndarray:
    """``(v - mu)^T M (v - mu)`` of every row of a sparse V, as ``v^T M v - 2 v^T M mu + mu^T M mu``, a block of rows
    at a time (``block x d`` dense values)."""
    Mmu = M @ mu
    out = np.empty(V.shape[0])
    for rows in row_blocks(V.shape[0]):
        Vb = V[rows]
        out[rows] = np.asarray(Vb.multiply(Vb @ M).sum(axis=1), dtype=np.float64).ravel() - 2.0 * (Vb @ Mmu)
    return out + float(mu @ Mmu)


def _row(V: sp.csr_matrix, i: int) -> np.ndarray:
    return np.asarray(V[i].toarray(), dtype=np.float64).ravel()


def sparse_ellipsoids(V1, V2, *, metric: str, reading: str, w1=None, w2=None) -> dict:
    """:func:`svmopt.ellipsoid.geometry.class_ellipsoids` of two sparse classes in the input space
    (``projection="none"``)."""
    check_class_sizes(V1, V2, w1, w2)
    return ellipsoids_from_moments(V1, V2, [sparse_mean_cov(V1, w1), sparse_mean_cov(V2, w2)], metric=metric,
                                   reading=reading, delta=_quadratic_rows, row=_row)


def sparse_working_space(V1, V2, w1, w2, glob, shrinkage: float | str, rng, cons) -> tuple[Any, ...]:
    """``(m, W, Pi, T, E)`` of :func:`svmopt.ellipsoid.binary.working_space` for sparse class rows: the whitening
    (``glob``: the data set's), the 2-D projection from the whitened moments, and the class ellipsoids of the rows
    in the working space ``(v - m)^T T`` (n x 2, from ``V T``); in the input space with ``projection="none"``."""
    V1, V2 = as_csr(V1), as_csr(V2)
    d = V1.shape[1]
    if cons.projection == "none":
        E = sparse_ellipsoids(V1, V2, metric=cons.metric, reading=cons.reading, w1=w1, w2=w2)
        return np.zeros(d), np.eye(d), np.eye(d), np.eye(d), E
    m, W = glob if glob is not None else sparse_whiten(stack_rows(V1, V2), shrinkage,
                                                       None if w1 is None else np.r_[w1, w2])
    Pi = sparse_projection(V1, V2, w1, w2, m, W, cons.p2_mode, rng)
    T = W @ Pi
    mT = m @ T
    Q1, Q2 = (np.asarray(V @ T, dtype=np.float64) - mT for V in (V1, V2))
    return m, W, Pi, T, class_ellipsoids(Q1, Q2, metric=cons.metric, reading=cons.reading, w1=w1, w2=w2)

