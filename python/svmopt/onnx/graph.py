"""The building blocks every svmopt converter shares: :class:`Graph` (constants and nodes of standard ONNX operators
in the input's float type), the shape calculators of a classifier and a regressor, and the decision rules that turn
real outputs into the two outputs of a classifier, ``label`` and ``probabilities`` (``predict_proba`` with
``probability=True``, through :mod:`svmopt.onnx.calibration`, else the scores of ``decision_function``: see
:mod:`svmopt.onnx`).

Decision rules (each as the estimator's ``predict`` has it, ties included):

* :func:`binary_outputs` -- two classes: ``classes_[1]`` iff ``f > 0`` (``strict``) or ``f >= 0``; the scores are
  ``[-f, f]``, so that column 1 is ``decision_function`` and ZipMap has a column per class (or ``predict_proba``);
* :func:`argmax_outputs` -- the first class of largest score (ONNX ``ArgMax`` with ``select_last_index=0``, as
  ``numpy.argmax``);
* :func:`ovo_scores` -- one-vs-one votes (``f_k >= 0`` votes for the pair's first class) plus the summed margins
  squashed into (-1/3, 1/3);
* :func:`moc_scores` -- minimum output coding: minus the Hamming distance of ``sign(f)`` (``sign(0) = +1``) to each
  codeword, minus the Euclidean distance of ``f`` to it squashed into [0, 1).
"""

from __future__ import annotations

import numbers
from collections.abc import Sequence
from typing import Any

import numpy as np
from onnx import TensorProto, numpy_helper  # type: ignore[import-not-found, import-untyped, unused-ignore]
from skl2onnx.common.data_types import (  # type: ignore[import-not-found, import-untyped, unused-ignore]
    DoubleTensorType,
    FloatTensorType,
    Int64TensorType,
    StringTensorType,
)
from sklearn.utils.validation import check_is_fitted

from svmopt.onnx.calibration import (
    binary_calibration,
    binary_probabilities,
    multiclass_calibration,
    multiclass_probabilities,
)

#: The oldest ONNX opset the graphs are written for (``ReduceSum``'s and ``Unsqueeze``'s axes are inputs from 13).
MIN_OPSET = 13


class Graph:
    """The nodes of one converted estimator: its input, its outputs, constants cast to the input's float type
    (float32 or float64) and standard ONNX operators, each named uniquely in the skl2onnx scope."""

    def __init__(self, scope: Any, operator: Any, container: Any):
        self.scope, self.container = scope, container
        self.model = operator.raw_operator
        self.input = operator.inputs[0].full_name
        self.outputs = [v.full_name for v in operator.outputs]
        in_type = _check_input(operator)
        self.float_type = TensorProto.DOUBLE if isinstance(in_type, DoubleTensorType) else TensorProto.FLOAT
        self.dtype = np.float64 if self.float_type == TensorProto.DOUBLE else np.float32
        opset = container.target_opset
        if opset is not None and opset < MIN_OPSET:
            raise ValueError(f"target_opset must be >= {MIN_OPSET} for svmopt's converters, got {opset}")

    # -- constants and nodes ---------------------------------------------------------------------
    def _array(self, arr: np.ndarray, hint: str) -> str:
        name = self.scope.get_unique_variable_name(hint)
        self.container.add_initializer(name, None, None, numpy_helper.from_array(np.ascontiguousarray(arr), name))
        return name

    def const(self, value: Any, hint: str) -> str:
        """A float constant (cast to the input's float type)."""
        return self._array(np.asarray(value, dtype=np.float64).astype(self.dtype), hint)

    def ints(self, value: Any, hint: str) -> str:
        """An int64 constant (axes, shapes, indices)."""
        return self._array(np.asarray(value, dtype=np.int64), hint)

    def node(self, op_type: str, inputs: Sequence[str], hint: str | None = None, *, out: str | None = None,
             **attrs: Any) -> str:
        """One node of the default ONNX domain; its output (a new name, or ``out``)."""
        out = out if out is not None else self.scope.get_unique_variable_name(hint or op_type.lower())
        self.container.add_node(op_type, list(inputs), [out], name=self.scope.get_unique_operator_name(op_type),
                                **attrs)
        return out

    # -- the linear pieces ---------------------------------------------------------------------
    def affine(self, X: str, W: np.ndarray, b: Any, hint: str, *, subtract: bool = False) -> str:
        """``X @ W + b`` (``- b`` with ``subtract``), W of shape (d, k), b of shape (k,)."""
        prod = self.node("MatMul", [X, self.const(W, f"{hint}_coef")], f"{hint}_prod")
        return self.node("Sub" if subtract else "Add", [prod, self.const(np.atleast_1d(b), f"{hint}_bias")], hint)

    def standardize(self, X: str, mean: np.ndarray, scale: np.ndarray) -> str:
        """``(X - mean) / scale``, as the estimators standardize their inputs."""
        centred = self.node("Sub", [X, self.const(mean, "x_mean")], "x_centred")
        return self.node("Div", [centred, self.const(scale, "x_scale")], "x_std")


# ---------------------------------------------------------------------------------------------- labels and shapes
def label_classes(scope: Any, model: Any) -> tuple[np.ndarray, bool]:
    """``(classes, is_string)``: the labels as int64 (integers, booleans, integral floats, as skl2onnx maps them) or
    as strings; the class indices with skl2onnx's option ``nocl``. Other labels (non-integral floats, mixed objects)
    have no ONNX label type: a ValueError."""
    classes = np.asarray(model.classes_)
    if scope.get_options(model, {"nocl": False})["nocl"]:
        return np.arange(classes.shape[0], dtype=np.int64), False
    if classes.dtype.kind in "iub":
        return classes.astype(np.int64), False
    if classes.dtype.kind == "f":
        if np.all(np.isfinite(classes)) and np.all(classes == np.round(classes)):
            return classes.astype(np.int64), False
    elif classes.dtype.kind in "USO":
        values = classes.tolist()
        if all(isinstance(v, str) for v in values):
            return np.array(values, dtype=object), True
        if all(isinstance(v, numbers.Integral) for v in values):
            return np.array(values, dtype=np.int64), False
    raise ValueError(f"{type(model).__name__}: classes_ {classes.tolist()[:5]} cannot be ONNX labels: class labels "
                     "must be integers (or integral floats) or strings, as for skl2onnx's converters")


def _check_input(operator: Any) -> Any:
    """The input's type (float or double tensor) of an operator whose estimator is fitted."""
    check_is_fitted(operator.raw_operator)
    if len(operator.inputs) != 1:
        raise RuntimeError(f"{type(operator.raw_operator).__name__} takes one input, got {len(operator.inputs)}")
    in_type = operator.inputs[0].type
    if not isinstance(in_type, (FloatTensorType, DoubleTensorType)):
        raise TypeError(f"{type(operator.raw_operator).__name__}: the ONNX input must be a float or double tensor, "
                        f"got {type(in_type).__name__}")
    return in_type


def classifier_shape(operator: Any) -> None:
    """Shape calculator of a classifier: ``label`` (N,) int64 or string, ``probabilities`` (N, n_classes) in the
    input's float type."""
    in_type = _check_input(operator)
    if len(operator.outputs) != 2:
        raise RuntimeError(f"{type(operator.raw_operator).__name__} has two outputs, got {len(operator.outputs)}")
    N = operator.inputs[0].get_first_dimension()
    _, is_string = label_classes(operator.scope_inst, operator.raw_operator)
    operator.outputs[0].set_type(StringTensorType([N]) if is_string else Int64TensorType([N]))
    operator.outputs[1].set_type(type(in_type)([N, len(operator.raw_operator.classes_)]))


def regressor_shape(operator: Any) -> None:
    """Shape calculator of a regressor: ``variable`` (N, 1) in the input's float type."""
    in_type = _check_input(operator)
    if len(operator.outputs) != 1:
        raise RuntimeError(f"{type(operator.raw_operator).__name__} has one output, got {len(operator.outputs)}")
    operator.outputs[0].set_type(type(in_type)([operator.inputs[0].get_first_dimension(), 1]))


def _labels(g: Graph, index: str) -> None:
    """``label = classes_[index]`` into the first output."""
    classes, is_string = label_classes(g.scope, g.model)
    name = g.scope.get_unique_variable_name("classes")
    if is_string:
        g.container.add_initializer(name, TensorProto.STRING, [len(classes)],
                                    [s.encode("utf-8") for s in classes.tolist()])
    else:
        g.container.add_initializer(name, TensorProto.INT64, [len(classes)], classes.tolist())
    g.node("Gather", [name, index], out=g.outputs[0], axis=0)


# ---------------------------------------------------------------------------------------------- decision rules
def binary_outputs(g: Graph, f: str, *, strict: bool) -> None:
    """Two classes from the decision function ``f`` (N, 1): ``classes_[1]`` iff ``f > 0`` (``strict``) or
    ``f >= 0``; ``predict_proba`` with ``probability=True`` (:func:`~svmopt.onnx.calibration.binary_probabilities`),
    else the scores ``[-f, f]``."""
    side = g.node("Greater" if strict else "GreaterOrEqual", [f, g.const(0.0, "zero")], "positive")
    index = g.node("Cast", [side], "side", to=TensorProto.INT64)
    _labels(g, g.node("Reshape", [index, g.ints([-1], "flat")], "label_index"))
    cal = binary_calibration(g.model)
    if cal is not None:
        binary_probabilities(g, f, side, cal, g.outputs[1])
    else:
        g.node("Concat", [g.node("Neg", [f], "negative_score"), f], out=g.outputs[1], axis=1)


def argmax_outputs(g: Graph, scores: str) -> None:
    """The first class of largest score (N, n_classes), as ``numpy.argmax``; ``predict_proba`` with
    ``probability=True`` (:func:`~svmopt.onnx.calibration.multiclass_probabilities`), else the scores as they are."""
    _labels(g, g.node("ArgMax", [scores], "label_index", axis=1, keepdims=0, select_last_index=0))
    cal = multiclass_calibration(g.model)
    if cal is not None:
        multiclass_probabilities(g, scores, cal, g.outputs[1])
    else:
        g.node("Identity", [scores], out=g.outputs[1])


def ovo_scores(g: Graph, votes_of: str, margins: str, pairs: Sequence[tuple[int, int]], n_classes: int) -> str:
    """One-vs-one scores (N, n_classes): ``votes + margin / (3 (|margin| + 1))``, where model k of the pair
    ``(a, b)`` votes for ``a`` iff ``votes_of[:, k] >= 0`` (else for ``b``) and adds ``margins[:, k]`` to ``a``'s
    margin and subtracts it from ``b``'s."""
    A = np.zeros((len(pairs), n_classes))
    B = np.zeros((len(pairs), n_classes))
    for k, (a, b) in enumerate(pairs):
        A[k, a] = 1.0
        B[k, b] = 1.0
    pos = g.node("Cast", [g.node("GreaterOrEqual", [votes_of, g.const(0.0, "zero")], "vote_first")], "vote_a",
                 to=g.float_type)
    neg = g.node("Sub", [g.const(1.0, "one"), pos], "vote_b")
    votes = g.node("Add", [g.node("MatMul", [pos, g.const(A, "pairs_a")], "votes_a"),
                           g.node("MatMul", [neg, g.const(B, "pairs_b")], "votes_b")], "votes")
    margin = g.node("MatMul", [margins, g.const(A - B, "pairs_sign")], "margin")
    spread = g.node("Mul", [g.node("Add", [g.node("Abs", [margin], "abs_margin"), g.const(1.0, "one")], "abs_1"),
                            g.const(3.0, "three")], "spread")
    return g.node("Add", [votes, g.node("Div", [margin, spread], "squashed")], "ovo_scores")


def moc_scores(g: Graph, F: str, codebook: np.ndarray) -> str:
    """Minimum output coding scores (N, n_classes): ``-hamming(sign(F), c) - e / (1 + e)`` with ``e = ||F - c||``
    for each codeword ``c`` (a row of ``codebook``, entries +-1; ``sign(0) = +1``)."""
    n_bits = codebook.shape[1]
    signs = g.node("Where", [g.node("GreaterOrEqual", [F, g.const(0.0, "zero")], "bit_set"), g.const(1.0, "one"),
                             g.const(-1.0, "minus_one")], "bits")
    agree = g.node("MatMul", [signs, g.const(codebook.T, "codebook_t")], "agreement")  # n_bits - 2 * hamming
    hamming = g.node("Div", [g.node("Sub", [g.const(float(n_bits), "n_bits"), agree], "twice_hamming"),
                             g.const(2.0, "two")], "hamming")
    diff = g.node("Sub", [g.node("Unsqueeze", [F, g.ints([1], "axis1")], "outputs_3d"), g.const(codebook, "codebook")],
                  "to_codeword")
    sq = g.node("ReduceSum", [g.node("Mul", [diff, diff], "sq_diff"), g.ints([2], "axis2")], "sq_dist", keepdims=0)
    euc = g.node("Sqrt", [sq], "distance")
    squashed = g.node("Div", [euc, g.node("Add", [euc, g.const(1.0, "one")], "distance_1")], "squashed_distance")
    return g.node("Sub", [g.node("Neg", [hamming], "minus_hamming"), squashed], "moc_scores")
