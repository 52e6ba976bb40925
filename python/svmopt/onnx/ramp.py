"""The ONNX graph of the linear classifiers of paper 001 (:class:`svmopt.RampLossSVC`, :class:`svmopt.L1SVC`,
:class:`svmopt.FeatureBudgetSVC`): ``f(x) = w.x + b`` from ``coef_`` and ``intercept_``; ``classes_[1]`` iff
``f(x) >= 0`` (ties go to the positive class), as their ``predict`` has it."""

from __future__ import annotations

from typing import Any

import numpy as np

from svmopt.onnx.graph import Graph, binary_outputs


def convert_linear_svc(scope: Any, operator: Any, container: Any) -> None:
    """skl2onnx converter of the ramp family's classifiers: ``label`` and ``probabilities`` (``[-f, f]``, or
    ``predict_proba`` with ``probability=True``)."""
    g = Graph(scope, operator, container)
    est = g.model
    f = g.affine(g.input, np.asarray(est.coef_, dtype=np.float64).T, est.intercept_, "linear_f")
    binary_outputs(g, f, strict=False)
