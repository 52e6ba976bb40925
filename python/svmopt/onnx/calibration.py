"""The probability maps of :mod:`svmopt._shared.calibration` as ONNX operators: a classifier fitted with
``probability=True`` (whose ``predict_proba`` exists and whose ``calibration_`` is fitted) outputs
``predict_proba(X)`` as ``probabilities``; without it, the decision function's scores (see :mod:`svmopt.onnx`).

* two classes (:class:`~svmopt._shared.calibration.BinaryCalibration`): ``x = a (f / scale)`` with the slope
  ``a = a_pos`` for ``f >= 0`` and ``a_neg`` below, then the columns ``[1 / (1 + exp(x)), 1 / (1 + exp(-x))]``
  (``[1 - p, p]`` with ``p = P(classes_[1] | f)``, each column computed without forming 1 - p, so that a probability
  near 0 keeps its relative precision: onnxruntime's ``Sigmoid`` does not). Where the two round to one value (1/2,
  at ``f = 0`` or where ``x`` is below the float's resolution), the class ``label`` gives is raised to the next
  float above 1/2 and the other is 1 minus it, as ``predict_proba`` does;
* more classes (:class:`~svmopt._shared.calibration.MulticlassCalibration`): ``Softmax(temperature * (D / scale))``
  over the per-class scores ``D`` (onnxruntime's ``Softmax`` subtracts the row's largest entry first).
  ``predict_proba`` also raises the predicted class to the next float above the others where rounding ties them
  (scores that differ below the resolution of the exponential); the graph does not reproduce that one-ulp raise,
  so on such rows the label's probability may equal another's.

``label`` is computed from the decision values in every case, not from these probabilities, so it equals
``predict`` (a float32 graph: wherever its scores are not within float32 rounding of a tie).
"""

from __future__ import annotations

from typing import Any

import numpy as np
from sklearn.utils.validation import check_is_fitted

from svmopt._shared.calibration import BinaryCalibration, MulticlassCalibration


def _fitted_calibration(model: Any, expected: type) -> Any:
    """``model.calibration_`` where ``model`` has ``predict_proba`` (``probability=True``), else None. A model with
    ``probability=True`` but no ``calibration_`` (the parameter set after its fit) is not fitted for it: a
    NotFittedError, as from its ``predict_proba``."""
    if not getattr(model, "probability", False):
        return None
    check_is_fitted(model, "calibration_")
    cal = model.calibration_
    if not isinstance(cal, expected):
        raise TypeError(f"{type(model).__name__} with {len(model.classes_)} classes: calibration_ must be a "
                        f"{expected.__name__}, got {type(cal).__name__}")
    return cal


def binary_calibration(model: Any) -> BinaryCalibration | None:
    """The fitted calibration of a two-class ``model`` with ``probability=True``, else None."""
    cal: BinaryCalibration | None = _fitted_calibration(model, BinaryCalibration)
    return cal


def multiclass_calibration(model: Any) -> MulticlassCalibration | None:
    """The fitted calibration of a ``model`` of more than two classes with ``probability=True``, else None."""
    cal: MulticlassCalibration | None = _fitted_calibration(model, MulticlassCalibration)
    return cal


def _reciprocal_one_plus_exp(g: Any, x: str, hint: str) -> str:
    """``1 / (1 + exp(x))`` (N, 1): accurate relative to its value for any x (0 where exp overflows)."""
    return g.node("Reciprocal", [g.node("Add", [g.const(1.0, "one"), g.node("Exp", [x], f"{hint}_exp")],
                                        f"{hint}_denominator")], hint)


def binary_probabilities(g: Any, f: str, positive: str, cal: BinaryCalibration, out: str) -> str:
    """``predict_proba`` of two classes (N, 2) into ``out`` from the decision function ``f`` (N, 1) and the
    predicted side ``positive`` (bool, N x 1: the label is ``classes_[1]``)."""
    z = g.node("Div", [f, g.const(cal.scale, "calibration_scale")], "calibration_z")
    slope = g.node("Where", [g.node("GreaterOrEqual", [f, g.const(0.0, "zero")], "calibration_upper"),
                             g.const(cal.a_pos, "slope_pos"), g.const(cal.a_neg, "slope_neg")], "calibration_slope")
    x = g.node("Mul", [slope, z], "calibration_x")
    p_neg = _reciprocal_one_plus_exp(g, x, "proba_neg")
    p_pos = _reciprocal_one_plus_exp(g, g.node("Neg", [x], "calibration_minus_x"), "proba_pos")
    probs = g.node("Concat", [p_neg, p_pos], "calibrated", axis=1)
    # a tie at 1/2: one unit in the last place (of the graph's float type) to the predicted class
    half_up = np.nextafter(g.dtype(0.5), g.dtype(1.0))
    lean = np.array([[g.dtype(1.0) - half_up, half_up]], dtype=g.dtype)
    leaned = g.node("Where", [positive, g.const(lean, "lean_pos"), g.const(lean[:, ::-1], "lean_neg")], "leaned")
    tie = g.node("Equal", [p_neg, p_pos], "proba_tie")
    return g.node("Where", [tie, leaned, probs], out=out)


def multiclass_probabilities(g: Any, scores: str, cal: MulticlassCalibration, out: str) -> str:
    """``predict_proba`` of more classes (N, n_classes) into ``out`` from the per-class scores (N, n_classes)."""
    z = g.node("Div", [scores, g.const(cal.scale, "calibration_scale")], "calibration_z")
    logits = g.node("Mul", [z, g.const(cal.temperature, "temperature")], "calibration_logits")
    return g.node("Softmax", [logits], out=out, axis=1)
