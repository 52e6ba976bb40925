"""The ONNX graph of the fixed-size LS-SVM (paper 002, Section 3.2's compact predictor): the standardized inputs
``(x - x_mean_) / x_scale_``, then per binary/regression problem ``f(x) = sum_k beta_k K(x, PV_k) + b`` over the
prototype vectors (``beta = U' Lambda'^{-1/2} w``, the Nyström map folded in at fit time, so the graph needs only the
kernel rows), or ``w . x + b`` on the standardized inputs for the linear kernel. The RBF is
``exp(-||x - z||^2 / sigma2)`` with each problem's own sigma2 (one kernel block per distinct value).

:class:`svmopt.FixedSizeLSSVR` outputs ``f(x) * y_scale_ + y_mean_``; :class:`svmopt.FixedSizeLSSVC` decodes as its
``decision_function``: ``f >= 0`` for two classes, one-vs-one votes plus squashed margins, or minimum output coding.
"""

from __future__ import annotations

import math
from typing import Any

import numpy as np
from sklearn.utils.validation import check_is_fitted

from svmopt.kernels import Kernel
from svmopt.onnx.graph import Graph, argmax_outputs, binary_outputs, moc_scores, ovo_scores
from svmopt.onnx.kernel_rows import kernel_rows


def problem_outputs(g: Graph) -> str:
    """The real outputs of every problem (N x n_problems), as the estimators' ``_raw_decision``."""
    est = g.model
    check_is_fitted(est, "problems_")  # a partial_fit stream still waiting for its first rows has none
    problems = est.problems_
    X = g.standardize(g.input, np.asarray(est.x_mean_, dtype=np.float64), np.asarray(est.x_scale_, dtype=np.float64))
    coef = np.column_stack([np.asarray(p["coef"], dtype=np.float64) for p in problems])  # (m or d, n_problems)
    bias = np.array([float(p["intercept"]) for p in problems])
    mode = est.kernel_mode_
    if mode == "linear":
        return g.affine(X, coef, bias, "problem_outputs")
    groups: dict[float, list[int]] = {}
    for j, p in enumerate(problems):
        groups.setdefault(float(p["sigma2"]) if mode == "rbf" else 0.0, []).append(j)
    PV = np.asarray(est.prototypes_, dtype=np.float64)
    pieces, order = [], []
    for sigma2, js in groups.items():
        # the core's RBF of sigma2 is Kernel("rbf", alpha=sqrt(sigma2 / 2)); any other kernel is the one given
        kern = Kernel("rbf", alpha=math.sqrt(sigma2 / 2.0)) if mode == "rbf" else est.kernel
        K = kernel_rows(g, X, PV, kern)
        pieces.append(g.node("MatMul", [K, g.const(coef[:, js], "beta")], "group_outputs"))
        order.extend(js)
    F = pieces[0] if len(pieces) == 1 else g.node("Concat", pieces, "grouped_outputs", axis=1)
    if order != sorted(order):  # back to the problems' order
        F = g.node("Gather", [F, g.ints(np.argsort(order), "problem_order")], "ordered_outputs", axis=1)
    return g.node("Add", [F, g.const(bias, "problem_bias")], "problem_outputs")


def convert_fixed_size_classifier(scope: Any, operator: Any, container: Any) -> None:
    """skl2onnx converter of FixedSizeLSSVC: ``label`` and ``probabilities`` (the decision function's
    scores, or ``predict_proba`` with ``probability=True``)."""
    g = Graph(scope, operator, container)
    est = g.model
    F = problem_outputs(g)
    if est.coding_ == "binary":
        binary_outputs(g, F, strict=False)
    elif est.coding_ == "ovo":
        argmax_outputs(g, ovo_scores(g, F, F, [(int(a), int(b)) for a, b in est.pairs_], len(est.classes_)))
    else:
        argmax_outputs(g, moc_scores(g, F, np.asarray(est.codebook_, dtype=np.float64)))


def convert_fixed_size_regressor(scope: Any, operator: Any, container: Any) -> None:
    """skl2onnx converter of FixedSizeLSSVR: ``variable`` (N, 1), the prediction on the target's scale."""
    g = Graph(scope, operator, container)
    est = g.model
    F = problem_outputs(g)
    scaled = g.node("Mul", [F, g.const(float(est.y_scale_), "y_scale")], "y_scaled")
    g.node("Add", [scaled, g.const(float(est.y_mean_), "y_mean")], out=g.outputs[0])
