"""The ONNX graph of a fitted :class:`svmopt.RobustSVC` (paper 000): the surface ``f_l(x) = sum_j k(x, x_j) v_lj``
over the support vectors (or the reduced model's landmarks) with the threshold ``b_l`` subtracted, as
``RobustSVC.decision_function`` evaluates it; class A (``classes_[1]``) iff ``f(x) - b > 0`` for two classes, the
largest ``f_l(x) - b_l`` (one-vs-rest) otherwise.

An RBF model fitted on data beyond the safe magnitudes (its working unit, a power of two, is not 1) is evaluated as
the estimator does: on ``X / unit`` against ``support_vectors_ / unit`` with the width ``alpha / unit`` (exact).
"""

from __future__ import annotations

from typing import Any

import numpy as np
import scipy.sparse as sp

from svmopt.onnx.graph import Graph, argmax_outputs, binary_outputs
from svmopt.onnx.kernel_rows import kernel_expansion


def working_unit(model: Any) -> float:
    """The power of two the RBF's inputs are divided by (1 as a rule). RobustSVC keeps it as ``_input_unit`` (no
    public attribute yet); a model without it was fitted on X as given."""
    return float(getattr(model, "_input_unit", 1.0))


def dense_points(points: Any) -> np.ndarray:
    """The expansion points as the graph's dense constant: the support vectors of a model fitted on a sparse X are
    sparse rows (as in scikit-learn's ``SVC``), densified here (n_support x n_features, the graph's own size)."""
    return np.asarray(points.toarray() if sp.issparse(points) else points, dtype=np.float64)


def convert_robust_svc(scope: Any, operator: Any, container: Any) -> None:
    """skl2onnx converter of RobustSVC: outputs ``label`` and ``probabilities`` (the decision function's
    scores, or ``predict_proba`` with ``probability=True``)."""
    g = Graph(scope, operator, container)
    est = g.model
    coef = np.asarray(est.dual_coef_, dtype=np.float64)  # (n_problems, n_support)
    X = g.input
    if coef.shape[1] == 0:  # no support: f = 0, the scores are -b
        zeros = np.zeros((est.n_features_in_, coef.shape[0]))
        f = g.affine(X, zeros, est.intercept_, "robust_f", subtract=True)
    else:
        kern, points, unit = est.kernel_, dense_points(est.support_vectors_), working_unit(est)
        if unit != 1.0:
            X = g.node("Div", [X, g.const(unit, "input_unit")], "x_in_unit")
            points = points / unit
            kern = kern.replace(alpha=float(kern.alpha) / unit) if kern.name == "rbf" else kern
        f = kernel_expansion(g, X, points, kern, coef.T, est.intercept_, "robust_f", subtract=True)
    if len(est.classes_) == 2:
        binary_outputs(g, f, strict=True)
    else:
        argmax_outputs(g, f)
