"""The working space of paper 003's binary problems (Section 4.3.5): the whitening of the training rows (with an
optional shrinkage of their covariance, the Ledoit-Wolf amount weighted by frequency weights) and the 2-D projection
onto the direction of the class means and a second direction orthogonal to it."""

from __future__ import annotations

import numpy as np
import scipy.sparse as sp
from sklearn.covariance import ledoit_wolf_shrinkage

from svmopt._shared.moments import power_of_two_unit
from svmopt.ellipsoid.geometry import unit_weights, weighted_mean_cov

#: The magnitudes of X (its largest |x|) a fit uses as they are. Outside, with a projection, X is divided by the
#: power of two at or above its largest |x| first (exact; :func:`input_unit`), since the covariances of Section
#: 4.3.5 square the entries (overflow near 1e154, underflow to a "zero variance" near 1e-162); the whitened working
#: space is the same for X over any factor, so the model maps back exactly (:func:`map_back`). Inside, nothing is
#: rescaled: the usual data keep their bits.
SAFE_MAGNITUDE = (2.0**-128, 2.0**128)


def input_unit(X: np.ndarray, projection: str, solver: str = "pso") -> float:
    """1, or the power of two a fit divides X by (:data:`SAFE_MAGNITUDE`). With ``projection="none"`` the problem is
    solved in the input space: the exact solver's ellipsoids and closest points scale with X, so X over a power of
    two maps back exactly as with a projection, but the swarms' craziness radius (below 1) does not, so with
    ``solver="pso"`` X beyond the range is refused, naming its magnitude."""
    absmax = largest_magnitude(X)
    if absmax == 0.0 or SAFE_MAGNITUDE[0] <= absmax <= SAFE_MAGNITUDE[1]:
        return 1.0
    if projection == "none" and solver == "pso":
        raise ValueError(f"X has entries of magnitude up to {absmax:.3g}: projection='none' solves the problem in the "
                         "input space, whose scale the swarms depend on (the craziness radius below 1); rescale X "
                         "(e.g. StandardScaler), or use projection='pair' or solver='exact'")
    return float(power_of_two_unit(np.asarray(absmax)))


def largest_magnitude(X) -> float:
    """The largest ``|x|`` of a dense or scipy sparse ``X`` (over its stored values), 0 when empty."""
    values = X.data if sp.issparse(X) else X
    return float(np.max(np.abs(values))) if values.size else 0.0


def map_back(mdl: dict, unit: float) -> dict:
    """A binary model fitted on ``X / unit`` as the model of ``X``: the working space ``q = T^T (v - m)``,
    ``T = W Pi``, is unchanged when ``m`` is multiplied by ``unit`` and ``W`` divided by it (``projection="none"``:
    ``m = 0``, ``W = I / unit``, the working space is that of ``X / unit``), and so are the
    ellipsoids, the closest points, ``w`` and ``w0`` (eqs. (13), (14), (16)); ``w_in = T w`` is divided by ``unit``
    and ``b_in = w0 - w_in^T m`` is unchanged. ``unit`` is a power of two: the products are exact."""
    if unit == 1.0:
        return mdl
    with np.errstate(over="ignore"):  # a coefficient beyond float64 (X near 1e-308) is refused by the caller
        return {**mdl, "m": mdl["m"] * unit, "W": mdl["W"] / unit, "w_in": mdl["w_in"] / unit}


def relative_norms(coef: np.ndarray) -> np.ndarray:
    """The rows' norms ``||w_k||`` over the largest (0 taken as 1), which the multiclass margins divide by: as
    input-space distances ``z_k / ||w_k||`` they scale with X and vanished next to the votes at X * 1e-20 (ties fell
    to the first class); relative, they are scale-free. Each norm is computed in the power of two of its row's
    largest entry (exact scaling: no overflow for coefficients near 1e300); one beyond float64 stays absolute."""
    unit = power_of_two_unit(np.max(np.abs(coef), axis=1))
    norms = unit * np.linalg.norm(coef / unit[:, None], axis=1)
    norms[norms == 0] = 1.0
    top = float(np.max(norms))
    return norms / top if np.isfinite(top) else norms


def weighted_ledoit_wolf_shrinkage(Xc: np.ndarray, w: np.ndarray | None = None) -> float:
    """The Ledoit-Wolf shrinkage amount of the centred rows ``Xc`` (scikit-learn's ``ledoit_wolf_shrinkage``
    unweighted); ``w``: frequency weights, the same formula with every sum over rows weighted and the row count
    replaced by ``W = sum(w)``, so that integer weights give the amount of the repeated rows. With no more rows than
    features its two sums over feature pairs are taken on the rows' n x n Gram matrix instead of d x d products (the
    same sums, O(n^2 d) instead of O(n d^2): 7129 features of 72 rows)."""
    n, p = Xc.shape
    if n < 2 or (w is not None and p == 1):
        return 0.0
    if w is None and n > p:
        return float(ledoit_wolf_shrinkage(Xc))
    # On u = w / unit (an exact division by a power of two, U = n / unit): every quantity below has the bits of
    # the formula on w, and none overflows (n^2 for weights near 1e300) or underflows (near 1e-300).
    u, unit = (np.ones(n), 1.0) if w is None else unit_weights(w)
    U = float(u.sum())
    Xc = Xc - (u @ Xc) / U  # centred by the weighted mean (as scikit-learn centres again)
    X2 = Xc**2
    emp_cov_trace = (u @ X2) / U
    mu = float(np.sum(emp_cov_trace)) / p
    if n > p:
        beta_ = float(np.sum((X2 * u[:, None]).T @ X2))  # sum w X2'X2 / unit
        delta_ = float(np.sum(((Xc * u[:, None]).T @ Xc) ** 2)) / U**2
    else:  # sum_jk (X2'UX2)_jk = sum_i u_i (sum_j X2_ij)^2; ||Xc'UXc||_F^2 = sum_ii' u_i u_i' (Xc Xc')_ii'^2
        beta_ = float(u @ X2.sum(axis=1) ** 2)
        delta_ = float(u @ ((Xc @ Xc.T) ** 2) @ u) / U**2
    beta = 1.0 / (p * U) * (beta_ / U - delta_) / unit  # 1 / (p n) (beta_ / n - delta_) on w
    delta = (delta_ - 2.0 * mu * float(emp_cov_trace.sum()) + p * mu**2) / p
    beta = min(beta, delta)
    return 0.0 if beta == 0 else beta / delta


def whiten(X: np.ndarray, shrinkage: float | str = 0.0, w: np.ndarray | None = None) -> tuple[np.ndarray, np.ndarray]:
    """The whitening of the rows ``X`` (weights ``w``): their (weighted) mean ``m`` and ``W`` with ``(x - m) W``
    of identity covariance, from the eigen-decomposition of the covariance (eigenvalues below ``1e-10 * max``
    dropped), shrunk towards ``mean(eig) I`` by ``shrinkage`` (an amount, or ``"ledoit_wolf"``).

    With no more rows than features the covariance has rank below d: the eigenvectors of its nonzero eigenvalues
    come from the thin SVD of the n x d centred rows (no d x d matrix), and the directions orthogonal to the rows
    (eigenvalue 0, or ``a mean(eig)`` after the shrinkage) are left out of ``W``. The rows, and so the projection
    of Section 4.3.5 and every class ellipsoid, have no component there: the working space is the same. The count
    is that of the repeated rows with weights (``max(n, sum(w))``), so that integer weights take the path of the
    rows they repeat."""
    if max(X.shape[0], 0.0 if w is None else float(np.sum(w))) <= X.shape[1]:
        return _whiten_rows(X, shrinkage, w)
    m, C = weighted_mean_cov(X, w)
    return whiten_covariance(m, C, _amount(X - m, shrinkage, w))


def whiten_covariance(m: np.ndarray, C: np.ndarray, a: float) -> tuple[np.ndarray, np.ndarray]:
    """:func:`whiten` from the mean ``m`` and covariance ``C`` of the rows and the shrinkage amount ``a``."""
    if a:  # (1 - a) C + a mean(eig C) I: the whitening of a covariance estimated from few rows per feature
        C = (1.0 - a) * C + a * (np.trace(C) / C.shape[0]) * np.eye(C.shape[0])
    lam, V = np.linalg.eigh(C)
    if lam[-1] <= 0 or not np.isfinite(lam[-1]):
        raise ValueError("the training samples of a class pair have zero variance; nothing separates them")
    keep = lam > 1e-10 * lam[-1]
    return m, V[:, keep] / np.sqrt(lam[keep])


def _amount(Xc: np.ndarray, shrinkage: float | str, w: np.ndarray | None) -> float:
    return weighted_ledoit_wolf_shrinkage(Xc, w) if shrinkage == "ledoit_wolf" else float(shrinkage)


def _whiten_rows(X: np.ndarray, shrinkage: float | str, w: np.ndarray | None) -> tuple[np.ndarray, np.ndarray]:
    """:func:`whiten` of n <= d rows from the SVD of ``G`` with ``G^T G`` their (weighted) covariance, the
    normalization of :func:`weighted_mean_cov`."""
    n, d = X.shape
    if w is None:
        m = X.mean(axis=0)
        scale = np.full(n, 1.0 / np.sqrt(n - 1.0)) if n > 1 else np.zeros(n)
    else:
        u, unit = unit_weights(w)
        U = float(u.sum())
        m = (u @ X) / U
        denom = U - min(1.0 / unit, float(u @ u) / U)
        scale = np.sqrt(u / (denom if denom > 0.0 else 1.0 / unit))
    D = X - m
    _, sv, Vt = np.linalg.svd(D * scale[:, None], full_matrices=False)
    lam = sv**2
    if not lam.size or lam[0] <= 0 or not np.isfinite(lam[0]):
        raise ValueError("the training samples of a class pair have zero variance; nothing separates them")
    a = _amount(D, shrinkage, w)
    if a:  # the eigenvalues of (1 - a) C + a mean(eig C) I along the rows
        lam = (1.0 - a) * lam + a * (float(lam.sum()) / d)
    keep = lam > 1e-10 * lam.max()
    return m, Vt[keep].T / np.sqrt(lam[keep])


def project_2d(Z1: np.ndarray, Z2: np.ndarray, p2_mode: str, rng, w1: np.ndarray | None = None,
               w2: np.ndarray | None = None, basis: np.ndarray | None = None) -> np.ndarray:
    """The 2-D projection ``[p_1, p_2]`` (d x 2; d x 1 for one feature) of two whitened classes: ``p_1`` along the
    difference of their (weighted) means, ``p_2`` orthogonal to it by ``p2_mode`` (see the estimator's docstring),
    oriented deterministically (``basis``: the whitening W, so that the orientation is that of the input-space
    direction ``W p_2`` and not of the eigenvectors' arbitrary signs)."""
    if w1 is None or w2 is None:
        dmu = Z1.mean(axis=0) - Z2.mean(axis=0)
    else:
        (u1, _), (u2, _) = unit_weights(w1), unit_weights(w2)
        dmu = (u1 @ Z1) / u1.sum() - (u2 @ Z2) / u2.sum()

    def spread() -> np.ndarray:
        if p2_mode == "covdiff":
            return weighted_mean_cov(Z1, w1)[1] - weighted_mean_cov(Z2, w2)[1]
        return weighted_mean_cov(np.vstack([Z1, Z2]), None if w1 is None else np.r_[w1, w2])[1]

    return projection_of(dmu, spread, p2_mode, rng, basis)


def projection_of(dmu: np.ndarray, spread, p2_mode: str, rng, basis: np.ndarray | None = None) -> np.ndarray:
    """:func:`project_2d` from the difference ``dmu`` of the whitened class means and ``spread()``, the matrix
    whose deflation gives ``p_2``: the difference of the whitened class covariances (``"covdiff"``) or the
    covariance of both classes' whitened rows (``"literal"``); not called for ``"random"`` or one dimension."""
    dp = dmu.size
    nrm = np.linalg.norm(dmu)
    if nrm == 0:
        raise ValueError("the two class means coincide after whitening; the projection direction p_1 is undefined")
    p1 = dmu / nrm
    if dp == 1:
        return p1[:, None]
    Q = np.eye(dp) - np.outer(p1, p1)
    if p2_mode == "covdiff":
        S = Q @ spread() @ Q
        lam, V = np.linalg.eigh(0.5 * (S + S.T))
        k = int(np.argmax(np.abs(lam)))
        p2 = V[:, k] if abs(lam[k]) >= 1e-12 else None
    elif p2_mode == "literal":
        S = Q @ spread() @ Q
        lam, V = np.linalg.eigh(0.5 * (S + S.T))
        p2 = V[:, -1]
    else:  # "random"
        p2 = Q @ rng.standard_normal(dp)
    if p2 is None or np.linalg.norm(Q @ p2) < 1e-12:
        k = int(np.argmin(np.abs(p1)))
        p2 = np.eye(dp)[k]
    p2 = Q @ p2
    p2 = p2 / np.linalg.norm(p2)
    # a deterministic orientation: the largest component of W p_2 positive, whatever the signs LAPACK gave the
    # whitening's eigenvectors (the same model from another rounding of the covariance: a sparse X's, another BLAS)
    v = p2 if basis is None else basis @ p2
    sign = 1.0 if v[int(np.argmax(np.abs(v)))] > 0 else -1.0
    return np.column_stack([p1, sign * p2])
