"""The working space of paper 003's binary problems (Section 4.3.5): the whitening of the training rows (with an
optional shrinkage of their covariance, the Ledoit-Wolf amount weighted by frequency weights) and the 2-D projection
onto the direction of the class means and a second direction orthogonal to it."""

from __future__ import annotations

import numpy as np
from sklearn.covariance import ledoit_wolf_shrinkage

from svmopt.ellipsoid.geometry import weighted_mean_cov


def weighted_ledoit_wolf_shrinkage(Xc: np.ndarray, w: np.ndarray | None = None) -> float:
    """The Ledoit-Wolf shrinkage amount of the centred rows ``Xc`` (scikit-learn's ``ledoit_wolf_shrinkage``
    unweighted); ``w``: frequency weights, the same formula with every sum over rows weighted and the row count
    replaced by ``W = sum(w)``, so that integer weights give the amount of the repeated rows."""
    if w is None:
        return float(ledoit_wolf_shrinkage(Xc)) if Xc.shape[0] > 1 else 0.0
    if Xc.shape[1] == 1 or Xc.shape[0] < 2:
        return 0.0
    n, p = float(w.sum()), Xc.shape[1]
    Xc = Xc - (w @ Xc) / n  # centred by the weighted mean (as scikit-learn centres again)
    X2 = Xc**2
    emp_cov_trace = (w @ X2) / n
    mu = float(np.sum(emp_cov_trace)) / p
    beta_ = float(np.sum((X2 * w[:, None]).T @ X2))
    delta_ = float(np.sum(((Xc * w[:, None]).T @ Xc) ** 2)) / n**2
    beta = 1.0 / (p * n) * (beta_ / n - delta_)
    delta = (delta_ - 2.0 * mu * float(emp_cov_trace.sum()) + p * mu**2) / p
    beta = min(beta, delta)
    return 0.0 if beta == 0 else beta / delta


def whiten(X: np.ndarray, shrinkage: float | str = 0.0, w: np.ndarray | None = None) -> tuple[np.ndarray, np.ndarray]:
    """The whitening of the rows ``X`` (weights ``w``): their (weighted) mean ``m`` and ``W`` with ``(x - m) W``
    of identity covariance, from the eigen-decomposition of the covariance (eigenvalues below ``1e-10 * max``
    dropped), shrunk towards ``mean(eig) I`` by ``shrinkage`` (an amount, or ``"ledoit_wolf"``)."""
    m, C = weighted_mean_cov(X, w)
    if shrinkage == "ledoit_wolf":
        a = weighted_ledoit_wolf_shrinkage(X - m, w)
    else:
        a = float(shrinkage)
    if a:  # (1 - a) C + a mean(eig C) I: the whitening of a covariance estimated from few rows per feature
        C = (1.0 - a) * C + a * (np.trace(C) / C.shape[0]) * np.eye(C.shape[0])
    lam, V = np.linalg.eigh(C)
    if lam[-1] <= 0 or not np.isfinite(lam[-1]):
        raise ValueError("the training samples of a class pair have zero variance; nothing separates them")
    keep = lam > 1e-10 * lam[-1]
    return m, V[:, keep] / np.sqrt(lam[keep])


def project_2d(Z1: np.ndarray, Z2: np.ndarray, p2_mode: str, rng, w1: np.ndarray | None = None,
               w2: np.ndarray | None = None) -> np.ndarray:
    """The 2-D projection ``[p_1, p_2]`` (d x 2; d x 1 for one feature) of two whitened classes: ``p_1`` along the
    difference of their (weighted) means, ``p_2`` orthogonal to it by ``p2_mode`` (see the estimator's docstring),
    oriented deterministically."""
    dp = Z1.shape[1]
    if w1 is None or w2 is None:
        dmu = Z1.mean(axis=0) - Z2.mean(axis=0)
    else:
        dmu = (w1 @ Z1) / w1.sum() - (w2 @ Z2) / w2.sum()
    nrm = np.linalg.norm(dmu)
    if nrm == 0:
        raise ValueError("the two class means coincide after whitening; the projection direction p_1 is undefined")
    p1 = dmu / nrm
    if dp == 1:
        return p1[:, None]
    Q = np.eye(dp) - np.outer(p1, p1)
    if p2_mode == "covdiff":
        S = Q @ (weighted_mean_cov(Z1, w1)[1] - weighted_mean_cov(Z2, w2)[1]) @ Q
        lam, V = np.linalg.eigh(0.5 * (S + S.T))
        k = int(np.argmax(np.abs(lam)))
        p2 = V[:, k] if abs(lam[k]) >= 1e-12 else None
    elif p2_mode == "literal":
        S = Q @ weighted_mean_cov(np.vstack([Z1, Z2]), None if w1 is None else np.r_[w1, w2])[1] @ Q
        lam, V = np.linalg.eigh(0.5 * (S + S.T))
        p2 = V[:, -1]
    else:  # "random"
        p2 = Q @ rng.standard_normal(dp)
    if p2 is None or np.linalg.norm(Q @ p2) < 1e-12:
        k = int(np.argmin(np.abs(p1)))
        p2 = np.eye(dp)[k]
    p2 = Q @ p2
    p2 = p2 / np.linalg.norm(p2)
    sign = 1.0 if p2[int(np.argmax(np.abs(p2)))] > 0 else -1.0  # a deterministic orientation
    return np.column_stack([p1, sign * p2])
