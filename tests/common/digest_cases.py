"""The behaviour digest: every estimator fitted on fixed data and seeds, with the paper's and the default settings.

`tests/common/test_digest.py` compares each case's predictions, decision values and fitted numeric attributes with
the committed `digest.json` (to 1e-10, relative to the value's magnitude where it exceeds 1). The digest pins the
behaviour across refactorings: a change that moves a number must say so by regenerating it
(`python -m tests.common.digest_cases --write`) in a commit of its own, with the reason.
"""

from __future__ import annotations

import json
import sys
import warnings
from collections.abc import Callable
from importlib.metadata import version
from pathlib import Path
from typing import Any

import numpy as np
from sklearn.preprocessing import MinMaxScaler, StandardScaler

import svmopt
from svmopt.datasets import load_dataset

DIGEST = Path(__file__).with_name("digest.json")
ROUND = 1e-10
# Attributes that measure the run, not the model: wall times, and the MIP's bound and gap (HiGHS reports the bound
# reached when it stopped, which depends on its node order under a time or node limit).
UNSTABLE = ("time", "lower_bound_", "mip_gap_")


def _data(name: str, n: int, scaler: str = "standard", seed: int = 0) -> tuple[np.ndarray, np.ndarray]:
    X, y = load_dataset(name)
    X = np.asarray(X, dtype=float)
    y = np.asarray(y)
    rows = np.random.default_rng(seed).permutation(len(y))[:n]
    X, y = X[rows], y[rows]
    X = (StandardScaler() if scaler == "standard" else MinMaxScaler()).fit_transform(X)
    return X, y


def _regression(n: int = 240, d: int = 4, seed: int = 0) -> tuple[np.ndarray, np.ndarray]:
    rng = np.random.default_rng(seed)
    X = rng.uniform(-2.0, 2.0, size=(n, d))
    y = np.sinc(X[:, 0]) + 0.5 * np.cos(X[:, 1]) * X[:, 2] + 0.05 * rng.normal(size=n)
    return X, y


def _stream(est: Any, X: np.ndarray, y: np.ndarray) -> Any:
    for start in range(0, len(y), 60):
        est.partial_fit(X[start:start + 60], y[start:start + 60])
    return est


inf = float("inf")
# name -> (data, estimator factory, fit); data is (set, rows, scaler) or "regression"
CASES: dict[str, tuple[Any, Callable[[], Any], Callable[[Any, np.ndarray, np.ndarray], Any] | None]] = {
    # paper 000
    "robust_default": (("wdbc", 300, "standard"), lambda: svmopt.RobustSVC(random_state=0), None),
    "robust_paper_table3": (("wdbc", 250, "minmax"),
                            lambda: svmopt.RobustSVC(kernel="inhom_poly", degree=2, nu="grid",
                                                     selection="training_error", n_landmarks=None, p=inf,
                                                     rho=1e-4), None),
    "robust_l2_rbf": (("sonar", 208, "minmax"),
                      lambda: svmopt.RobustSVC(kernel="rbf", nu=0.5, alpha=1.0, p=2, rho=1e-2, n_landmarks=None,
                                               selection="training_error"), None),
    "robust_reduced_ipm": (("wdbc", 400, "standard"),
                           lambda: svmopt.RobustSVC(n_landmarks=60, solver="ipm", nu=1.0, alpha=1.0,
                                                    random_state=1), None),
    "robust_reduced_cutting_plane": (("wdbc", 400, "standard"),
                                     lambda: svmopt.RobustSVC(n_landmarks=60, solver="cutting_plane", nu=1.0,
                                                              alpha=1.0, random_state=1), None),
    "robust_multiclass": (("iris", 150, "standard"), lambda: svmopt.RobustSVC(random_state=0), None),
    # paper 001
    "ramp_default": (("wdbc", 200, "standard"), lambda: svmopt.RampLossSVC(random_state=0), None),
    "ramp_exact_budget": (("pima", 30, "standard"),
                          lambda: svmopt.RampLossSVC(C=1.0, budget=4, method="exact", random_state=0), None),
    "ramp_heuristic": (("ionosphere", 60, "standard"),
                       lambda: svmopt.RampLossSVC(C=1.0, budget=5, method="heuristic", random_state=0), None),
    "ramp_cccp": (("wdbc", 400, "standard"),
                  lambda: svmopt.RampLossSVC(C=1.0, budget=10, method="cccp", random_state=0), None),
    "l1svc_lp": (("wdbc", 400, "standard"), lambda: svmopt.L1SVC(C=1.0, solver="lp"), None),
    "l1svc_cutting_plane": (("wdbc", 400, "standard"), lambda: svmopt.L1SVC(C=1.0, solver="cutting_plane"), None),
    "feature_budget": (("wdbc", 300, "standard"), lambda: svmopt.FeatureBudgetSVC(C=1.0, budget=6), None),
    # paper 002
    "fixed_size_default": (("wdbc", 300, "standard"), lambda: svmopt.FixedSizeLSSVC(random_state=0), None),
    "fixed_size_fixed": (("pima", 400, "standard"),
                         lambda: svmopt.FixedSizeLSSVC(n_prototypes=40, gamma=1.0, sigma2=4.0, random_state=0),
                         None),
    "fixed_size_multiclass": (("wine", 178, "standard"),
                              lambda: svmopt.FixedSizeLSSVC(n_prototypes=30, random_state=0), None),
    "fixed_size_regression": ("regression", lambda: svmopt.FixedSizeLSSVR(n_prototypes=40, random_state=0), None),
    "fixed_size_stream": ("regression",
                          lambda: svmopt.FixedSizeLSSVR(n_prototypes=30, gamma=10.0, sigma2=1.0, random_state=0),
                          _stream),
    # paper 003
    "ellipsoid_default": (("wdbc", 300, "standard"),
                          lambda: svmopt.EllipsoidPSOClassifier(random_state=0), None),
    "ellipsoid_paper": (("iris", 150, "standard"),
                        lambda: svmopt.EllipsoidPSOClassifier(ratio=1, shrinkage=0, random_state=0), None),
    "ellipsoid_exact": (("wine", 178, "standard"),
                        lambda: svmopt.EllipsoidPSOClassifier(solver="exact", ratio=1, shrinkage=0,
                                                              random_state=0), None),
}


def _numeric(value: Any) -> np.ndarray | None:
    if isinstance(value, (bool, np.bool_)):
        return np.asarray([float(value)])
    if isinstance(value, (int, float, np.integer, np.floating)):
        return np.asarray([float(value)])
    if isinstance(value, np.ndarray) and value.dtype.kind in "biuf" and value.size <= 100_000:
        return value.astype(float).ravel()
    return None


def digest_of(name: str) -> dict[str, list[float]]:
    """Predictions, decision values (or predictions for the regressor) and fitted numeric attributes of a case."""
    data, factory, fit = CASES[name]
    X, y = _regression() if data == "regression" else _data(*data)
    est = factory()
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        (fit or (lambda e, X, y: e.fit(X, y)))(est, X, y)
        pred = np.asarray(est.predict(X))
        if pred.dtype.kind not in "biuf":  # string labels: their codes
            pred = np.unique(pred, return_inverse=True)[1]
        out: dict[str, list[float]] = {"predict": pred.astype(float).tolist()}
        if hasattr(est, "decision_function"):
            out["decision_function"] = np.asarray(est.decision_function(X), dtype=float).ravel().tolist()
    for attr in sorted(vars(est)):
        if not attr.endswith("_") or attr.startswith("_") or any(w in attr for w in UNSTABLE):
            continue
        v = _numeric(getattr(est, attr))
        if v is not None:
            out[attr] = v.tolist()
    return {k: [round(x / ROUND) * ROUND if np.isfinite(x) else x for x in v] for k, v in out.items()}


def stack() -> dict[str, str]:
    """The numerical libraries a digest depends on (an iterative solver in SciPy or HiGHS may round differently in
    another release), and the BLAS's kernels for this CPU (OpenBLAS picks its kernels by the processor: the same
    releases on another CPU round a dot product differently, enough to move an SLSQP solve at 1e-8)."""
    from threadpoolctl import threadpool_info

    blas = sorted({f"{i.get('internal_api')} {i.get('architecture')}" for i in threadpool_info()
                   if i.get("user_api") == "blas"})
    return {**{name: version(name) for name in ("numpy", "scipy", "scikit-learn", "highspy")},
            "blas": ", ".join(blas)}


def write() -> None:
    result: dict[str, Any] = {"_stack": stack()}
    for name in CASES:
        print(name, file=sys.stderr)
        result[name] = digest_of(name)
    DIGEST.write_text(json.dumps(result, indent=0, sort_keys=True, allow_nan=True) + "\n")


if __name__ == "__main__":
    if "--write" in sys.argv:
        write()
