"""Export of fitted svmopt models to ONNX (the optional extra ``pip install "svmopt[onnx]"``): predictions under
onnxruntime, on any platform, without svmopt's C++ core.

Every estimator has a skl2onnx converter that writes its prediction as a graph of standard ONNX operators: the input
scaling the model applies, its kernel rows against the stored support vectors, landmarks or prototypes (every kernel
of :class:`svmopt.Kernel`), the linear map and the decision rule (one-vs-one votes, minimum output coding,
one-vs-rest), ties as ``predict`` breaks them.

* :func:`to_onnx` -- the ``onnx.ModelProto`` of a fitted estimator or pipeline;
* :func:`register` -- registers the converters with skl2onnx (idempotent), after which ``skl2onnx.to_onnx`` converts
  svmopt estimators inside ``sklearn.pipeline.Pipeline`` too.

Outputs: classifiers ``label`` and ``probabilities`` (N, n_classes), as skl2onnx names them. ``label`` is computed
from the decision values, as ``predict``. ``probabilities`` depends on the estimator's ``probability`` parameter:

* ``probability=True`` (a fitted ``calibration_``): ``predict_proba(X)``, the calibration map of
  :mod:`svmopt._shared.calibration` written as ONNX operators (:mod:`svmopt.onnx.calibration`), columns in the order
  of ``classes_`` (two classes: ``[1 - p, p]``), rows summing to 1;
* ``probability=False`` (the default): **not probabilities** but the scores of ``decision_function``; for two
  classes ``[-f, f]``, so column 1 is ``decision_function``.

Regressors: ``variable`` (N, 1). A float64 graph reproduces svmopt's ``decision_function`` and ``predict`` to 1e-9
and ``predict_proba`` to 1e-6 relative; a float32 graph computes in float32 (docs/guide/export.md gives the
differences measured).
"""

try:
    import onnxruntime  # type: ignore[import-not-found, import-untyped, unused-ignore]  # noqa: F401
    import skl2onnx  # type: ignore[import-not-found, import-untyped, unused-ignore]  # noqa: F401
except ImportError as exc:  # the optional extra is not installed
    raise ImportError(f"svmopt.onnx needs skl2onnx and onnxruntime ({exc}); install them with: "
                      'pip install "svmopt[onnx]"') from exc

from svmopt.onnx.convert import register, to_onnx

__all__ = ["register", "to_onnx"]
