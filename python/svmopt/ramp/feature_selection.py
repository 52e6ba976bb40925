"""Filter and wrapper feature selection for the comparison models of paper 001 (Baldomero-Naranjo et al.).

The paper compares its ramp-loss model (RL-FS-M) with two classical ways of giving a linear SVM a feature
budget ``B`` (paper 001, Section 4.3); both are scikit-learn pipelines built here:

* **Fisher-SVM** (Guyon et al. 2006): rank the features by the Fisher criterion :func:`fisher_score`, keep the
  ``B`` best (``sklearn.feature_selection.SelectKBest``), then fit a standard l2 soft-margin linear SVM
  ``min 1/2 ||w||^2 + C sum xi`` (``sklearn.svm.SVC(kernel="linear", C=C)``) on them -- :func:`make_fisher_svm`.
* **RFE-SVM** (Guyon et al. 2002): recursive feature elimination with the same linear SVM, dropping the
  feature(s) with the smallest ``w_k^2`` (``sklearn.feature_selection.RFE``) until ``B`` remain; RFE refits the
  SVM on the survivors -- :func:`make_rfe_svm`.

:func:`n_selected_features` counts the features a fitted model uses (the paper's "Av. F" column; decision: the
nonzero weights, not the sum of the binaries ``v``):
the selector's support for the two pipelines, the nonzero weights ``|w_k| > tol`` for any linear model that
exposes ``coef_`` (RampLossSVC, L1SVC, FeatureBudgetSVC).

Decisions (where paper 001 is silent; documented and tested)
------------------------------------------------------------
* Fisher score ``F_k = (mu+_k - mu-_k)^2 / (var+_k + var-_k)`` with **population** variances (``ddof = 0``), the
  moments of each class taken on the data passed to ``fit`` (the training fold only when used in a pipeline).
* Zero-variance handling: if ``var+_k + var-_k = 0`` the feature is constant inside each class. Then
  ``F_k = +inf`` when the class means differ (the feature separates the classes perfectly, so it ranks first)
  and ``F_k = 0`` when they are equal (the feature is constant overall and carries no information). No NaN is
  ever returned, so ``SelectKBest`` never has to clean scores.
* Ties in the score: ``SelectKBest`` keeps the last ``k`` of a stable sort, i.e. among equal scores the feature
  with the larger index wins. This only matters for exactly equal scores.
* RFE step (decision; the paper does not give it): one feature per elimination step when the data have at most 1000
  features, otherwise 10 % of the original number per step (``RFE(step=0.1)``); :func:`rfe_step`. The same C is
  used by the elimination SVMs and the final SVM (the paper gives only one C per row).
* Labels: any two values; the Fisher score codes the class ``np.unique(y)[1]`` as "+" (the score is symmetric in
  the two classes, so the coding does not matter).
"""

from __future__ import annotations

import numpy as np
from sklearn.feature_selection import RFE, SelectKBest
from sklearn.pipeline import Pipeline
from sklearn.svm import SVC
from sklearn.utils._param_validation import validate_params
from sklearn.utils.validation import check_X_y

from svmopt._shared.validation import POSITIVE, POSITIVE_INT, Interval, Real

#: Up to this many features RFE removes one feature per step; beyond, 10 % of the original count per step.
RFE_DENSE_LIMIT = 1000


def fisher_score(X, y):
    """Fisher criterion of every feature for a two-class problem (paper 001's Fisher-SVM,
    Section 4.3).

    ``F_k = (mu+_k - mu-_k)^2 / (var+_k + var-_k)`` with the class means ``mu`` and population variances
    ``var`` (``ddof = 0``) of feature ``k``. Features that are constant within both classes score ``+inf`` if
    their class means differ and ``0`` otherwise (see the module docstring).

    Parameters
    ----------
    X : array-like of shape (n_samples, n_features)
    y : array-like of shape (n_samples,)
        Exactly two distinct labels.

    Returns
    -------
    scores : ndarray of shape (n_features,)
        Non-negative, possibly ``inf``; usable as ``SelectKBest(score_func=fisher_score)``.
    """
    X, y = check_X_y(X, y, dtype=np.float64)
    classes = np.unique(y)
    if classes.size != 2:
        raise ValueError(f"y: the Fisher score needs exactly 2 classes, got {classes.size}")
    pos = y == classes[1]
    Xp, Xm = X[pos], X[~pos]
    num = (Xp.mean(axis=0) - Xm.mean(axis=0)) ** 2
    den = Xp.var(axis=0) + Xm.var(axis=0)
    scores = np.zeros(X.shape[1])
    nz = den > 0
    scores[nz] = num[nz] / den[nz]
    scores[~nz & (num > 0)] = np.inf
    return scores


@validate_params({"budget": [POSITIVE_INT], "C": [POSITIVE]}, prefer_skip_nested_validation=True)
def make_fisher_svm(budget: int, C: float = 1.0) -> Pipeline:
    """(Fisher-SVM): the ``budget`` features with the largest :func:`fisher_score`, then a linear l2-SVM.

    Returns ``Pipeline([("select", SelectKBest(fisher_score, k=budget)), ("svm", SVC(kernel="linear", C=C))])``.
    If the training data have fewer than ``budget`` features, ``SelectKBest`` warns and keeps them all.
    """
    return Pipeline([("select", SelectKBest(fisher_score, k=int(budget))),
                     ("svm", SVC(kernel="linear", C=float(C)))])


@validate_params({"n_features": [POSITIVE_INT]}, prefer_skip_nested_validation=True)
def rfe_step(n_features: int) -> int | float:
    """Elimination step of RFE-SVM: 1 feature when ``n_features <= 1000``, else ``0.1`` (10 % of the original d)."""
    return 1 if n_features <= RFE_DENSE_LIMIT else 0.1


@validate_params({"budget": [POSITIVE_INT], "C": [POSITIVE], "n_features": [POSITIVE_INT, None],
                  "step": [POSITIVE_INT, Interval(Real, 0, 1, closed="neither"), None]},
                 prefer_skip_nested_validation=True)
def make_rfe_svm(budget: int, C: float = 1.0, *, n_features: int | None = None, step: int | float | None = None) -> RFE:
    """(RFE-SVM): ``RFE(SVC(kernel="linear", C=C), n_features_to_select=budget, step=...)``.

    Parameters
    ----------
    budget : int
        Number of features kept (the paper's B).
    C : float
        Misclassification weight of every SVM in the elimination and of the final one.
    n_features : int, optional
        Number of features of the data the model will be fitted on; it fixes the step by :func:`rfe_step`.
    step : int or float, optional
        Explicit RFE step (overrides ``n_features``). One of the two must be given.
    """
    if step is None:
        if n_features is None:
            raise ValueError("n_features: give the number of features (or an explicit step) to fix the RFE step")
        step = rfe_step(n_features)
    return RFE(SVC(kernel="linear", C=float(C)), n_features_to_select=int(budget), step=step)


def n_selected_features(model, tol: float = 1e-7) -> int:
    """Number of features a fitted model uses (the paper's "Av. F"; decision: count
    ``|w_k| > tol``, not the binaries ``v``).

    * ``RFE`` / a ``Pipeline`` whose first step is a selector: the size of the selector's support;
    * any fitted estimator with ``coef_`` (also the last step of a pipeline without a selector):
      the number of columns ``k`` of ``coef_`` with some ``|w_k| > tol``.
    """
    if isinstance(model, Pipeline):
        first = model.steps[0][1]
        if hasattr(first, "get_support"):
            return int(np.count_nonzero(first.get_support()))
        return n_selected_features(model.steps[-1][1], tol)
    if hasattr(model, "get_support"):
        return int(np.count_nonzero(model.get_support()))
    if hasattr(model, "coef_"):
        coef = np.atleast_2d(np.asarray(model.coef_, dtype=float))
        return int(np.count_nonzero(np.any(np.abs(coef) > tol, axis=0)))
    raise TypeError(f"model: cannot count the selected features of a {type(model).__name__}")
