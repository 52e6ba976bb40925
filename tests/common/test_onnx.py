"""svmopt.onnx: every estimator x kernel x coding exported to ONNX predicts under onnxruntime as svmopt does.

float64 graphs: the labels equal ``predict`` and the scores (``probabilities``) equal ``decision_function`` (or the
regressor's ``variable`` equals ``predict``) to 1e-9 on held-out rows, alone and inside a Pipeline with a
StandardScaler converted by plain ``skl2onnx.to_onnx``. float32 graphs: within :data:`FLOAT32_RTOL` (the tolerance
docs/guide/export.md documents; a one-vs-one vote or code bit flipped by a pairwise output within rounding of 0 moves
a score by a whole vote, allowed on one row), the labels equal wherever svmopt's decision is not within it of a tie.
With probability=True, ``probabilities`` is ``predict_proba`` (to :data:`PROBA_FLOAT64_RTOL` relative in float64,
:data:`PROBA_FLOAT32_ATOL` absolute in float32), rows summing to 1, ``label`` its argmax.
"""

from __future__ import annotations

import copy
import json
import subprocess
import sys
import warnings
from pathlib import Path

import numpy as np
import pytest

pytest.importorskip("skl2onnx", reason="svmopt.onnx needs the optional extra: pip install 'svmopt[onnx]'")
ort = pytest.importorskip("onnxruntime", reason="svmopt.onnx needs the optional extra: pip install 'svmopt[onnx]'")

import onnx  # noqa: E402
import skl2onnx  # noqa: E402
from sklearn.exceptions import NotFittedError  # noqa: E402
from sklearn.pipeline import make_pipeline  # noqa: E402
from sklearn.preprocessing import StandardScaler  # noqa: E402

import svmopt.onnx  # noqa: E402
from benchmarks.studies import onnx_latency  # noqa: E402
from svmopt import (  # noqa: E402
    L1SVC,
    EllipsoidPSOClassifier,
    FeatureBudgetSVC,
    FixedSizeLSSVC,
    FixedSizeLSSVR,
    Kernel,
    RampLossSVC,
    RobustSVC,
)
from tests.common.test_docs import python_blocks  # noqa: E402

ROOT = Path(__file__).resolve().parents[2]
#: float64: the graph against svmopt's own outputs.
FLOAT64_ATOL = 1e-9
#: float32: |onnx - svmopt| <= FLOAT32_RTOL * max(1, max |svmopt's scores|) (docs/guide/export.md).
FLOAT32_RTOL = 1e-4
#: probability=True: float64 probabilities relative to predict_proba; float32 ones absolute (docs/guide/export.md).
PROBA_FLOAT64_RTOL = 1e-6
PROBA_FLOAT32_ATOL = 1e-5

KERNELS = {
    "linear": Kernel("linear"),
    "rbf": Kernel("rbf", alpha=1.5),
    "poly": Kernel("poly", degree=2),
    "inhom_poly": Kernel("inhom_poly", degree=3, c=1.0),
    "sigmoid": Kernel("sigmoid", a=0.1, b=0.1),
}


def _data(n_classes: int, seed: int = 0, n: int = 180, d: int = 4):
    rng = np.random.default_rng(seed)
    centres = rng.normal(scale=2.0, size=(n_classes, d))
    y = np.arange(n) % n_classes
    X = centres[y] + rng.normal(size=(n, d))
    return X[:120], y[:120], X[120:], y[120:]


def _fs_kernel(name: str):
    return name if name in ("rbf", "linear") else KERNELS[name]


def _cases():
    cases = []
    for k in KERNELS:
        cases.append((f"RobustSVC-{k}-binary", lambda k=k: RobustSVC(
            kernel=KERNELS[k], nu=1.0, selection="training_error", n_landmarks=None), 2))
        cases.append((f"RobustSVC-{k}-ovr-reduced", lambda k=k: RobustSVC(
            kernel=KERNELS[k], nu=1.0, selection="training_error", n_landmarks=15, random_state=0), 3))
    cases += [
        ("RampLossSVC-binary", lambda: RampLossSVC(C=1.0, budget=3, method="cccp", random_state=0), 2),
        ("L1SVC-binary", lambda: L1SVC(C=1.0), 2),
        ("FeatureBudgetSVC-binary", lambda: FeatureBudgetSVC(C=1.0, budget=2), 2),
    ]
    for k in KERNELS:
        for coding, n_classes in (("binary", 2), ("ovo", 4), ("moc", 4)):
            cases.append((f"FixedSizeLSSVC-{k}-{coding}", lambda k=k, c=coding: FixedSizeLSSVC(
                n_prototypes=20, kernel=_fs_kernel(k), multiclass="moc" if c == "moc" else "ovo", n_csa=4,
                n_simplex=2, random_state=0), n_classes))
        cases.append((f"FixedSizeLSSVR-{k}", lambda k=k: FixedSizeLSSVR(
            n_prototypes=20, kernel=_fs_kernel(k), n_csa=4, n_simplex=2, random_state=0), 0))
    for coding, n_classes in (("binary", 2), ("ovo", 3), ("ovr", 3)):
        cases.append((f"EllipsoidPSOClassifier-{coding}", lambda c=coding: EllipsoidPSOClassifier(
            solver="exact", multiclass="ovr" if c == "ovr" else "ovo", ratio=1.0, shrinkage=0.0), n_classes))
    return cases


CASES = _cases()


def _fit(factory, n_classes: int, scale: float = 1.0, shift: float = 0.0, pipeline: bool = False):
    Xtr, ytr, Xte, _ = _data(max(n_classes, 2))
    Xtr, Xte = Xtr * scale + shift, Xte * scale + shift
    if n_classes == 0:  # regression: a smooth target of the same rows
        ytr = np.sin(Xtr[:, 0] / scale) + 0.5 * Xtr[:, 1] / scale
    est = factory()
    model = make_pipeline(StandardScaler(), est) if pipeline else est
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # e.g. a degenerate fit's UserWarning: the export of any fitted model counts
        model.fit(Xtr, ytr)
    return model, Xte


def _run(onx, X: np.ndarray, dtype=np.float64) -> list:
    onnx.checker.check_model(onx)
    sess = ort.InferenceSession(onx.SerializeToString(), providers=["CPUExecutionProvider"])
    return sess.run(None, {sess.get_inputs()[0].name: X.astype(dtype)})


def _scores(model, X: np.ndarray) -> np.ndarray:
    d = model.decision_function(X)
    return d if d.ndim == 2 else np.column_stack([-d, d])


def _check_float64(model, X: np.ndarray, out: list) -> None:
    if hasattr(model, "classes_"):
        label, scores = out
        np.testing.assert_array_equal(label, model.predict(X))
        if hasattr(model, "predict_proba"):  # probability=True: the calibrated probabilities
            _check_probabilities(model, X, label, scores, PROBA_FLOAT64_RTOL, 0.0)
        else:
            np.testing.assert_allclose(scores, _scores(model, X), rtol=0, atol=FLOAT64_ATOL)
    else:
        (variable,) = out
        assert variable.shape == (X.shape[0], 1)
        np.testing.assert_allclose(variable[:, 0], model.predict(X), rtol=0, atol=FLOAT64_ATOL)


@pytest.mark.parametrize("name,factory,n_classes", CASES, ids=[c[0] for c in CASES])
def test_float64_graph_reproduces_predict_and_decision_function(name, factory, n_classes):
    model, Xte = _fit(factory, n_classes)
    _check_float64(model, Xte, _run(svmopt.onnx.to_onnx(model, Xte), Xte))


@pytest.mark.parametrize("name,factory,n_classes", CASES, ids=[c[0] for c in CASES])
def test_float32_graph_within_the_documented_tolerance(name, factory, n_classes):
    model, Xte = _fit(factory, n_classes)
    out = _run(svmopt.onnx.to_onnx(model, Xte, dtype=np.float32), Xte, np.float32)
    assert all(o.dtype == np.float32 for o in out if o.dtype.kind == "f")
    if not hasattr(model, "classes_"):
        ref = model.predict(Xte)
        tol = FLOAT32_RTOL * max(1.0, np.max(np.abs(ref)))
        np.testing.assert_allclose(out[0][:, 0], ref, rtol=0, atol=tol)
        return
    ref = _scores(model, Xte)
    tol = FLOAT32_RTOL * max(1.0, np.max(np.abs(ref)))
    diff = np.abs(out[1] - ref).max(axis=1)
    if name.endswith(("-ovo", "-moc")):  # a pairwise output within float32 rounding of 0 moves a whole vote or bit
        whole = np.abs(diff - np.round(diff)) <= tol
        assert np.sum(whole & (diff > 0.5)) <= 1, "more than one row with a flipped vote"
        diff = np.where(whole, 0.0, diff)
    assert diff.max() <= tol, (diff.max(), tol)
    top2 = np.sort(ref, axis=1)[:, -2:]
    decided = top2[:, 1] - top2[:, 0] > 2 * tol  # not within the tolerance of a tie
    np.testing.assert_array_equal(out[0][decided], model.predict(Xte)[decided])


# one case per estimator: inside a Pipeline after a StandardScaler, converted by plain skl2onnx.to_onnx
PIPELINE_CASES = [c for c in CASES if c[0] in (
    "RobustSVC-rbf-ovr-reduced", "RampLossSVC-binary", "L1SVC-binary", "FeatureBudgetSVC-binary",
    "FixedSizeLSSVC-rbf-ovo", "FixedSizeLSSVR-rbf", "EllipsoidPSOClassifier-ovo")]


@pytest.mark.parametrize("name,factory,n_classes", PIPELINE_CASES, ids=[c[0] for c in PIPELINE_CASES])
def test_pipeline_with_a_scaler_converts_with_plain_skl2onnx(name, factory, n_classes):
    pipe, Xte = _fit(factory, n_classes, scale=10.0, shift=3.0, pipeline=True)
    svmopt.onnx.register()
    svmopt.onnx.register()  # idempotent
    options = {id(pipe[-1]): {"zipmap": False}} if hasattr(pipe, "classes_") else None
    onx = skl2onnx.to_onnx(pipe, Xte.astype(np.float64), options=options)
    _check_float64(pipe, Xte, _run(onx, Xte))


def test_string_labels_and_the_zipmap_options():
    Xtr, ytr, Xte, _ = _data(3)
    names = np.array(["setosa", "versicolor", "virginica"])
    clf = FixedSizeLSSVC(n_prototypes=15, n_csa=2, n_simplex=1, random_state=0).fit(Xtr, names[ytr])
    label, scores = _run(svmopt.onnx.to_onnx(clf, Xte), Xte)  # default: tensors, not ZipMap
    assert label.dtype == object and list(label) == list(clf.predict(Xte))
    # skl2onnx's ZipMap (float32 only): a list of {class: score}
    onx = svmopt.onnx.to_onnx(clf, Xte, dtype=np.float32, options={"zipmap": True})
    out_label, out_scores = _run(onx, Xte, np.float32)
    assert list(out_label) == list(clf.predict(Xte)) and set(out_scores[0]) == set(names)
    np.testing.assert_allclose([row["virginica"] for row in out_scores], scores[:, 2], atol=1e-4)
    # nocl: class indices instead of the labels
    label_idx, _ = _run(svmopt.onnx.to_onnx(clf, Xte, options={"zipmap": False, "nocl": True}), Xte)
    np.testing.assert_array_equal(label_idx, np.searchsorted(clf.classes_, clf.predict(Xte)))


def test_robust_svc_working_unit_and_empty_support():
    Xtr, ytr, Xte, _ = _data(2)
    # an RBF model fitted beyond the safe magnitudes is evaluated on X over its power-of-two unit, as svmopt does
    big = RobustSVC(kernel="rbf", nu=1.0, selection="training_error", n_landmarks=None).fit(Xtr * 1e200, ytr)
    _check_float64(big, Xte * 1e200, _run(svmopt.onnx.to_onnx(big, Xte), Xte * 1e200))
    # no support vector: the scores are -b
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", UserWarning)
        flat = RobustSVC(kernel="linear", nu=1e-6, selection="training_error", n_landmarks=None).fit(Xtr, ytr)
    assert flat.support_.size == 0
    _check_float64(flat, Xte, _run(svmopt.onnx.to_onnx(flat, Xte), Xte))


def test_fixed_size_problems_grouped_by_bandwidth_keep_their_order():
    Xtr, ytr, Xte, _ = _data(4)
    clf = FixedSizeLSSVC(n_prototypes=20, n_csa=4, n_simplex=2, random_state=0).fit(Xtr, ytr)
    assert len({p["sigma2"] for p in clf.problems_}) > 2
    shared = copy.deepcopy(clf)  # problems 0 and 2 share a bandwidth: one kernel block, outputs put back in order
    shared.problems_[2]["sigma2"] = shared.problems_[0]["sigma2"]
    _check_float64(shared, Xte, _run(svmopt.onnx.to_onnx(shared, Xte), Xte))


def test_ties_follow_predict():
    """A decision function of exactly 0: RobustSVC and the ellipsoid classifier give classes_[0] (f > 0 rule), the
    ramp family and FixedSizeLSSVC classes_[1] (f >= 0)."""
    Xtr, ytr, _, _ = _data(2)
    X0 = np.zeros((1, Xtr.shape[1]))
    l1 = L1SVC().fit(Xtr, ytr)
    l1.coef_[:] = 0.0
    l1.intercept_[:] = 0.0
    robust = RobustSVC(kernel="linear", nu=1.0, selection="training_error", n_landmarks=None).fit(Xtr, ytr)
    robust.intercept_[:] = 0.0  # a linear surface with no offset is 0 at the origin
    for model, expected in ((l1, 1), (robust, 0)):
        label, _ = _run(svmopt.onnx.to_onnx(model, X0), X0)
        assert model.decision_function(X0)[0] == 0.0
        assert label[0] == model.predict(X0)[0] == model.classes_[expected]


def _check_probabilities(model, X: np.ndarray, label: np.ndarray, proba: np.ndarray, rtol: float,
                         atol: float) -> None:
    """``probabilities`` is predict_proba (columns in classes_ order, rows summing to 1) and ``label`` its argmax."""
    ref = model.predict_proba(X)
    assert proba.shape == ref.shape == (X.shape[0], len(model.classes_))
    np.testing.assert_allclose(proba, ref, rtol=rtol, atol=atol)
    np.testing.assert_allclose(proba.sum(axis=1), 1.0, rtol=0, atol=10 * np.finfo(proba.dtype).eps)
    np.testing.assert_array_equal(label, model.classes_[np.argmax(proba, axis=1)])


# every classifier with probability=True: two classes, and three where the estimator has a multiclass rule
PROBA_CASES = [
    ("RobustSVC-rbf-binary", lambda: RobustSVC(kernel=KERNELS["rbf"], nu=1.0, selection="training_error",
                                               n_landmarks=None, probability=True, random_state=0), 2),
    ("RobustSVC-rbf-ovr-reduced", lambda: RobustSVC(kernel=KERNELS["rbf"], nu=1.0, selection="training_error",
                                                    n_landmarks=15, probability=True, random_state=0), 3),
    ("RampLossSVC-binary", lambda: RampLossSVC(C=1.0, budget=3, method="cccp", random_state=0, probability=True), 2),
    ("L1SVC-binary", lambda: L1SVC(C=1.0, probability=True), 2),
    ("FeatureBudgetSVC-binary", lambda: FeatureBudgetSVC(C=1.0, budget=2, probability=True), 2),
]
for _coding, _k in (("binary", 2), ("ovo", 3), ("moc", 3)):
    PROBA_CASES.append((f"FixedSizeLSSVC-rbf-{_coding}", lambda c=_coding: FixedSizeLSSVC(
        n_prototypes=20, multiclass="moc" if c == "moc" else "ovo", n_csa=4, n_simplex=2, random_state=0,
        probability=True), _k))
for _coding, _k in (("binary", 2), ("ovo", 3), ("ovr", 3)):
    PROBA_CASES.append((f"EllipsoidPSOClassifier-{_coding}", lambda c=_coding: EllipsoidPSOClassifier(
        solver="exact", multiclass="ovr" if c == "ovr" else "ovo", ratio=1.0, shrinkage=0.0, probability=True,
        random_state=0), _k))


@pytest.mark.parametrize("name,factory,n_classes", PROBA_CASES, ids=[c[0] for c in PROBA_CASES])
def test_probability_true_outputs_predict_proba(name, factory, n_classes):
    model, Xte = _fit(factory, n_classes)
    assert hasattr(model, "calibration_")
    label, proba = _run(svmopt.onnx.to_onnx(model, Xte), Xte)
    np.testing.assert_array_equal(label, model.predict(Xte))
    _check_probabilities(model, Xte, label, proba, PROBA_FLOAT64_RTOL, 0.0)
    label32, proba32 = _run(svmopt.onnx.to_onnx(model, Xte, dtype=np.float32), Xte, np.float32)
    assert proba32.dtype == np.float32
    _check_probabilities(model, Xte, label32, proba32, 0.0, PROBA_FLOAT32_ATOL)


def test_probability_true_inside_a_pipeline_and_with_zipmap():
    _, factory, n_classes = PROBA_CASES[1]  # RobustSVC, three classes
    pipe, Xte = _fit(factory, n_classes, scale=10.0, shift=3.0, pipeline=True)
    svmopt.onnx.register()
    onx = skl2onnx.to_onnx(pipe, Xte.astype(np.float64), options={id(pipe[-1]): {"zipmap": False}})
    _check_float64(pipe, Xte, _run(onx, Xte))
    onx32 = skl2onnx.to_onnx(pipe, Xte.astype(np.float32), options={id(pipe[-1]): {"zipmap": True}})
    _, dicts = _run(onx32, Xte, np.float32)
    ref = pipe.predict_proba(Xte)
    got = np.array([[row[c] for c in pipe.classes_] for row in dicts])
    np.testing.assert_allclose(got, ref, rtol=0, atol=PROBA_FLOAT32_ATOL)


def test_probability_ties_at_zero_lean_as_predict_proba():
    """f = 0: both probabilities are 1/2; predict_proba and the graph raise the predicted class by one unit in the
    last place (classes_[1] for the ramp family, classes_[0] for RobustSVC)."""
    Xtr, ytr, _, _ = _data(2)
    X0 = np.zeros((1, Xtr.shape[1]))
    l1 = L1SVC(probability=True).fit(Xtr, ytr)
    l1.coef_[:] = 0.0
    l1.intercept_[:] = 0.0
    robust = RobustSVC(kernel="linear", nu=1.0, selection="training_error", n_landmarks=None, probability=True,
                       random_state=0).fit(Xtr, ytr)
    robust.intercept_[:] = 0.0
    for model, expected in ((l1, 1), (robust, 0)):
        assert model.decision_function(X0)[0] == 0.0
        label, proba = _run(svmopt.onnx.to_onnx(model, X0), X0)
        np.testing.assert_array_equal(proba, model.predict_proba(X0))
        assert proba[0, expected] > 0.5 > proba[0, 1 - expected]
        assert label[0] == model.predict(X0)[0] == model.classes_[expected]


def test_probability_set_after_fit_is_not_fitted_and_probability_false_keeps_the_scores():
    Xtr, ytr, Xte, _ = _data(2)
    clf = L1SVC(C=1.0).fit(Xtr, ytr)
    _check_float64(clf, Xte, _run(svmopt.onnx.to_onnx(clf, Xte), Xte))  # the scores [-f, f]
    clf.set_params(probability=True)  # no calibration_: as predict_proba, not fitted for it
    with pytest.raises(NotFittedError):
        svmopt.onnx.to_onnx(clf, Xte)


def test_to_onnx_checks_its_arguments():
    Xtr, ytr, Xte, _ = _data(2)
    clf = L1SVC().fit(Xtr, ytr)
    with pytest.raises(ValueError, match="dtype"):
        svmopt.onnx.to_onnx(clf, dtype=np.int64)
    with pytest.raises(ValueError, match="target_opset"):
        svmopt.onnx.to_onnx(clf, target_opset=12)
    with pytest.raises(ValueError, match="n_features"):
        svmopt.onnx.to_onnx(clf, n_features=0)
    onx = svmopt.onnx.to_onnx(clf, n_features=Xtr.shape[1], target_opset=13)  # the oldest opset supported
    _check_float64(clf, Xte, _run(onx, Xte))
    floats = copy.deepcopy(clf)
    floats.classes_ = np.array([0.5, 1.5])  # labels with no ONNX label type
    with pytest.raises(ValueError, match="integers .* or strings"):
        svmopt.onnx.to_onnx(floats, Xte)


def test_importing_svmopt_does_not_import_onnx_and_a_missing_extra_names_it():
    code = ("import sys, svmopt; assert not any(m.split('.')[0] in ('onnx', 'skl2onnx', 'onnxruntime') "
            "for m in sys.modules), 'svmopt imported onnx'\n"
            "sys.modules['skl2onnx'] = None\n"
            "try:\n    import svmopt.onnx\nexcept ImportError as e:\n    print(e)\n")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True, cwd=ROOT)
    assert 'pip install "svmopt[onnx]"' in out.stdout


def test_the_export_guide_runs(tmp_path, monkeypatch):
    """docs/guide/export.md: every block, those marked to be skipped without the extra included."""
    monkeypatch.chdir(tmp_path)  # the example writes its model file
    namespace: dict = {"__name__": "__docs__"}
    path = ROOT / "docs" / "guide" / "export.md"
    for block in python_blocks(path):
        exec(compile(block.code, f"{path.name}:{block.line}", "exec"), namespace)


def test_latency_study_runs_at_a_tiny_size(tmp_path):
    assert onnx_latency.main(["--batch", "200", "--repeats", "2", "--single-repeats", "5", "--estimators",
                              "L1SVC", "FixedSizeLSSVC", "--out-dir", str(tmp_path)]) == 0
    saved = json.loads((tmp_path / "onnx_latency.json").read_text())
    assert {r["estimator"] for r in saved["results"]["latency"]} == {"L1SVC", "FixedSizeLSSVC"}
    assert (tmp_path / "onnx_latency.md").read_text().count("| L1SVC |") >= 1


def test_a_partial_fit_stream_exports_its_current_model():
    Xtr, ytr, Xte, _ = _data(3)
    clf = FixedSizeLSSVC(gamma=10.0, sigma2=2.0, n_prototypes=15, random_state=0)
    clf.partial_fit(Xtr[:60], ytr[:60], classes=[0, 1, 2]).partial_fit(Xtr[60:], ytr[60:])
    _check_float64(clf, Xte, _run(svmopt.onnx.to_onnx(clf, Xte), Xte))
    waiting = FixedSizeLSSVC(gamma=10.0, sigma2=2.0, n_prototypes=50).partial_fit(Xtr[:10], ytr[:10], classes=[0, 1, 2])
    with pytest.raises(NotFittedError):
        svmopt.onnx.to_onnx(waiting, Xte)
    with pytest.raises(NotFittedError):
        svmopt.onnx.to_onnx(L1SVC(), n_features=3)


@pytest.mark.parametrize("name,factory", [
    ("RobustSVC-paper", lambda: svmopt.RobustSVC(n_landmarks=None, random_state=0)),
    ("RobustSVC-reduced", lambda: svmopt.RobustSVC(n_landmarks=40, random_state=0)),
    ("FixedSizeLSSVC", lambda: svmopt.FixedSizeLSSVC(n_prototypes=30, random_state=0)),
    ("EllipsoidPSOClassifier", lambda: svmopt.EllipsoidPSOClassifier(random_state=0)),
    ("RampLossSVC", lambda: svmopt.RampLossSVC(random_state=0)),
    ("L1SVC", lambda: svmopt.L1SVC()),
], ids=lambda c: c if isinstance(c, str) else "")
def test_a_model_fitted_on_sparse_x_exports(name, factory):
    """A model fitted on a scipy sparse X (the paper's RobustSVC keeps sparse support vectors) becomes the same
    graph of dense constants: the labels and scores of its dense rows equal predict and decision_function."""
    import scipy.sparse as sp

    Xs = sp.random(240, 12, density=0.3, random_state=1, format="csr")
    y = (Xs @ np.random.default_rng(1).normal(size=12) > 0.2).astype(int)
    model = factory().fit(Xs, y)
    _check_float64(model, Xs.toarray(), _run(svmopt.onnx.to_onnx(model, Xs.toarray()), Xs.toarray()))
