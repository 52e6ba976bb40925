"""Registration of svmopt's converters with skl2onnx (:func:`register`) and the conversion of a fitted model or
pipeline (:func:`to_onnx`)."""

from __future__ import annotations

import numbers
from typing import Any

import numpy as np
from skl2onnx import to_onnx as skl2onnx_to_onnx  # type: ignore[import-not-found, import-untyped, unused-ignore]
from skl2onnx import update_registered_converter  # type: ignore[import-not-found, import-untyped, unused-ignore]
from skl2onnx.common.data_types import (  # type: ignore[import-not-found, import-untyped, unused-ignore]
    DoubleTensorType,
    FloatTensorType,
)

from svmopt.ellipsoid import EllipsoidPSOClassifier
from svmopt.fixed_size import FixedSizeLSSVC, FixedSizeLSSVR
from svmopt.onnx.ellipsoid import convert_ellipsoid_classifier
from svmopt.onnx.fixed_size import convert_fixed_size_classifier, convert_fixed_size_regressor
from svmopt.onnx.graph import MIN_OPSET, classifier_shape, regressor_shape
from svmopt.onnx.ramp import convert_linear_svc
from svmopt.onnx.robust import convert_robust_svc
from svmopt.ramp import L1SVC, FeatureBudgetSVC, RampLossSVC
from svmopt.robust import RobustSVC

#: The options of every svmopt classifier's converter, those of scikit-learn's classifiers in skl2onnx: ``zipmap``
#: (True: a list of {class: score} dicts; False: a tensor; "columns": one output per class), ``nocl`` (class indices
#: instead of the labels) and ``output_class_labels`` (a third output with the classes).
CLASSIFIER_OPTIONS = {"zipmap": [True, False, "columns"], "nocl": [False, True], "output_class_labels": [False, True]}

#: estimator class -> (skl2onnx alias, converter); the regressor has no options.
CONVERTERS = {
    RobustSVC: ("SvmoptRobustSVC", convert_robust_svc),
    RampLossSVC: ("SvmoptRampLossSVC", convert_linear_svc),
    L1SVC: ("SvmoptL1SVC", convert_linear_svc),
    FeatureBudgetSVC: ("SvmoptFeatureBudgetSVC", convert_linear_svc),
    FixedSizeLSSVC: ("SvmoptFixedSizeLSSVC", convert_fixed_size_classifier),
    FixedSizeLSSVR: ("SvmoptFixedSizeLSSVR", convert_fixed_size_regressor),
    EllipsoidPSOClassifier: ("SvmoptEllipsoidPSOClassifier", convert_ellipsoid_classifier),
}

_registered = False


def register() -> None:
    """Register the shape calculators, converters and (for the classifiers, skl2onnx's classifier parser, through
    the ``zipmap`` option) parsers of every svmopt estimator with ``skl2onnx.update_registered_converter``.
    Idempotent. Afterwards ``skl2onnx.to_onnx`` converts svmopt estimators, alone or inside a
    ``sklearn.pipeline.Pipeline``."""
    global _registered
    if _registered:
        return
    for cls, (alias, converter) in CONVERTERS.items():
        regressor = cls is FixedSizeLSSVR
        update_registered_converter(cls, alias, regressor_shape if regressor else classifier_shape, converter,
                                    options=None if regressor else CLASSIFIER_OPTIONS)
    _registered = True


def _n_features(model: Any, X: Any, n_features: int | None) -> int:
    if n_features is not None:
        if isinstance(n_features, bool) or not isinstance(n_features, numbers.Integral) or n_features < 1:
            raise ValueError(f"n_features must be an integer >= 1 or None, got {n_features!r}")
        return int(n_features)
    if X is not None:
        shape = np.shape(X)
        if len(shape) != 2 or shape[1] < 1:
            raise ValueError(f"X must be a 2-D array with at least one column (only its number of columns is used), "
                             f"got shape {shape}")
        return int(shape[1])
    n = getattr(model, "n_features_in_", None)
    if n is None:
        raise ValueError(f"{type(model).__name__} has no n_features_in_ (is it fitted?): pass X or n_features")
    return int(n)


def to_onnx(model: Any, X: Any = None, *, n_features: int | None = None, target_opset: int | dict | None = None,
            dtype: Any = np.float64, options: dict | None = None) -> Any:
    """The ONNX graph (``onnx.ModelProto``) of a fitted svmopt estimator, or of a pipeline holding one.

    A thin wrapper of ``skl2onnx.to_onnx`` after :func:`register`: one input ``"X"`` of shape (N, n_features) and
    type ``dtype``; the outputs of skl2onnx's classifiers and regressors: ``label`` (N,) and ``probabilities``
    (N, n_classes), which holds ``predict_proba(X)`` for a classifier fitted with ``probability=True`` and the
    scores of ``decision_function`` otherwise (for two classes ``[-f, f]``: column 1 is ``decision_function``);
    ``variable`` (N, 1) for a regressor. Without ``options`` svmopt's classifiers output tensors (``zipmap=False``;
    skl2onnx's default ZipMap, ``output_label`` and ``output_probability`` as a list of dicts, takes float32 only);
    given ``options`` are passed to skl2onnx as they are.

    Parameters
    ----------
    model : fitted estimator or sklearn Pipeline
    X : array-like, optional
        Only its number of columns is used (the input's type is ``dtype``).
    n_features : int, optional
        The number of input columns (default: ``X``'s, else ``model.n_features_in_``).
    target_opset : int or dict, optional
        skl2onnx's ``target_opset`` (at least 13 for svmopt's graphs; default skl2onnx's latest tested opset).
    dtype : numpy.float64 or numpy.float32, default numpy.float64
        The input's (and the computation's) float type.
    options : dict, optional
        skl2onnx's converter options, e.g. ``{"zipmap": "columns"}`` or ``{id(clf): {"zipmap": True}}`` (float32).
    """
    dt = np.dtype(dtype)
    if dt not in (np.dtype(np.float64), np.dtype(np.float32)):
        raise ValueError(f"dtype must be numpy.float64 or numpy.float32, got {dtype!r}")
    if isinstance(target_opset, numbers.Integral) and not isinstance(target_opset, bool) and target_opset < MIN_OPSET:
        raise ValueError(f"target_opset must be >= {MIN_OPSET} for svmopt's converters, got {target_opset}")
    register()
    if options is None:  # tensors, not skl2onnx's ZipMap (whose float-only input refuses a float64 graph)
        options = {cls: {"zipmap": False} for cls in CONVERTERS if cls is not FixedSizeLSSVR}
    tensor = DoubleTensorType if dt == np.dtype(np.float64) else FloatTensorType
    initial_types = [("X", tensor([None, _n_features(model, X, n_features)]))]
    return skl2onnx_to_onnx(model, initial_types=initial_types, target_opset=target_opset, options=options)
