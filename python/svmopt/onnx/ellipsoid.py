"""The ONNX graph of a fitted :class:`svmopt.EllipsoidPSOClassifier` (paper 003): the input-space hyperplanes
``z_k(x) = coef_[k] . x + intercept_[k]`` (eqs. (13), (14), (16)), then the estimator's decision rule:

* two classes: the score ``-z`` (positive means ``classes_[1]``), ``classes_[1]`` iff ``-z > 0``;
* one-vs-one: votes (``z_k >= 0`` votes for the pair's first class) plus the summed normalized margins squashed into
  (-1/3, 1/3); the normalized margin of model k is ``z_k / (||w_k|| / max_j ||w_j||)``, the norms computed from
  ``coef_`` at conversion exactly as ``decision_function`` computes them;
* one-vs-rest: the normalized margins; the prediction is the first class of largest score.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from svmopt._shared.moments import power_of_two_unit
from svmopt.onnx.graph import Graph, argmax_outputs, binary_outputs, ovo_scores


def relative_norms(coef: np.ndarray) -> np.ndarray:
    """``||w_k|| / max_j ||w_j||`` without overflow (0 norms become 1), as the estimator's decision function."""
    unit = power_of_two_unit(np.max(np.abs(coef), axis=1))
    norms = unit * np.linalg.norm(coef / unit[:, None], axis=1)
    norms[norms == 0] = 1.0
    top = float(np.max(norms))
    return norms / top if np.isfinite(top) else norms


def convert_ellipsoid_classifier(scope: Any, operator: Any, container: Any) -> None:
    """skl2onnx converter of EllipsoidPSOClassifier: ``label`` and ``probabilities`` (the decision function, or
    ``predict_proba`` with ``probability=True``)."""
    g = Graph(scope, operator, container)
    est = g.model
    coef = np.asarray(est.coef_, dtype=np.float64)
    Z = g.affine(g.input, coef.T, est.intercept_, "hyperplanes")
    K = len(est.classes_)
    if K == 2:
        binary_outputs(g, g.node("Neg", [Z], "ellipsoid_f"), strict=True)
        return
    Zn = g.node("Div", [Z, g.const(relative_norms(coef), "relative_norms")], "normalized_margins")
    if est.multiclass == "ovr":
        argmax_outputs(g, Zn)
    else:
        argmax_outputs(g, ovo_scores(g, Z, Zn, [(int(a), int(b)) for a, b in est.pairs_], K))
