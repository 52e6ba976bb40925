"""ONNX export study: onnxruntime against svmopt's own ``predict``, per estimator, and the export's accuracy.

What it measures
----------------
For each estimator (``--estimators``; defaults below) one model is fitted on 1,000 rows of Gaussian class blobs
(d = 10, centres N(0, 0.5^2): overlapping classes; two classes for the binary models, three for the multiclass ones; a
smooth target for the regressor) and exported by ``svmopt.onnx.to_onnx`` (float64 and float32, ``zipmap=False``).
Then, on rows of the same distribution:

* single-row latency: ``--single-repeats`` calls on one row each of ``est.predict(x)`` and of onnxruntime's
  ``session.run(None, {"X": x})`` (label and scores), each call timed in wall (``time.perf_counter``) and CPU
  (``time.process_time``, all threads of the process) seconds; the medians are reported;
* batch throughput: ``--batch`` rows (default 10^5) predicted ``--repeats`` times by each; median wall and CPU
  seconds, and rows per wall second;
* agreement on the batch: float64 and float32 max ``|onnx scores - decision_function|`` (``|onnx - predict|`` for
  the regressor) and the number of differing labels; float32 one-vs-one and minimum output coding scores jump by a
  whole vote where a pairwise output lies within float32 rounding of 0: those rows are counted and left out of the
  float32 difference.

The accuracy sweep (``--no-sweep`` skips it) fits every estimator x kernel x coding of tests/common/test_onnx.py on
small data (120 training, 60 held-out rows, d = 4) and records the float64 and float32 max absolute differences and
the float32 one relative to ``max(1, max |scores|)``: the figures behind the tolerance docs/guide/export.md states.

onnxruntime runs with its default session options (intra-op threads = the machine's cores) on the CPU provider;
svmopt's core with its default OpenMP threads. Both share the machine with whatever else runs on it (the load
averages at the start and end are recorded).

Outputs (``--out-dir``, default ``benchmarks/results``): ``onnx_latency.json`` and ``onnx_latency.md`` (generated
from the JSON; ``--report-only`` rewrites it)::

    python -m benchmarks.studies.onnx_latency --note "2-core machine shared with other jobs"
"""

from __future__ import annotations

import argparse
import json
import os
import platform
import statistics
import time
import warnings
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any

import numpy as np

import svmopt
from benchmarks.studies.util import RESULTS, command_line, git_head, uncommitted
from svmopt import (
    L1SVC,
    EllipsoidPSOClassifier,
    FeatureBudgetSVC,
    FixedSizeLSSVC,
    FixedSizeLSSVR,
    Kernel,
    RampLossSVC,
    RobustSVC,
)

D = 10
N_TRAIN = 1_000
#: the latency data's class centres are N(0, SPREAD^2): overlapping classes, so that the kernel models keep many
#: support vectors
SPREAD = 0.5
#: estimator -> (factory, number of classes (0: regression), description)
ESTIMATORS: dict[str, tuple[Callable[[], Any], int, str]] = {
    "RobustSVC": (lambda: RobustSVC(kernel="rbf", nu=1.0, selection="training_error", n_landmarks=None), 2,
                  "RobustSVC(kernel='rbf', nu=1.0, selection='training_error', n_landmarks=None): the paper's "
                  "model, alpha the 'scale' width"),
    "RampLossSVC": (lambda: RampLossSVC(C=1.0, budget=5, method="cccp", random_state=0), 2,
                    "RampLossSVC(C=1.0, budget=5, method='cccp', random_state=0)"),
    "L1SVC": (lambda: L1SVC(C=1.0), 2, "L1SVC(C=1.0)"),
    "FeatureBudgetSVC": (lambda: FeatureBudgetSVC(C=1.0, budget=5, max_time=30), 2,
                         "FeatureBudgetSVC(C=1.0, budget=5, max_time=30)"),
    "FixedSizeLSSVC": (lambda: FixedSizeLSSVC(n_prototypes=100, n_csa=10, n_simplex=5, random_state=0), 3,
                       "FixedSizeLSSVC(n_prototypes=100, n_csa=10, n_simplex=5, random_state=0): RBF, one-vs-one"),
    "FixedSizeLSSVR": (lambda: FixedSizeLSSVR(n_prototypes=100, n_csa=10, n_simplex=5, random_state=0), 0,
                       "FixedSizeLSSVR(n_prototypes=100, n_csa=10, n_simplex=5, random_state=0): RBF"),
    "EllipsoidPSOClassifier": (lambda: EllipsoidPSOClassifier(random_state=0), 3,
                               "EllipsoidPSOClassifier(random_state=0): one-vs-one"),
}

SWEEP_KERNELS = {
    "linear": Kernel("linear"), "rbf": Kernel("rbf", alpha=1.5), "poly": Kernel("poly", degree=2),
    "inhom_poly": Kernel("inhom_poly", degree=3, c=1.0), "sigmoid": Kernel("sigmoid", a=0.1, b=0.1),
}


def blobs(n: int, n_classes: int, d: int, seed: int, spread: float = 2.0) -> tuple[np.ndarray, np.ndarray]:
    """``n`` rows of ``max(n_classes, 2)`` Gaussian blobs (unit spread, centres N(0, spread^2) drawn with ``seed``);
    the label, or for ``n_classes = 0`` the target ``sin(x_0) + x_1 / 2``."""
    k = max(n_classes, 2)
    centres = np.random.default_rng(seed).normal(scale=spread, size=(k, d))
    rng = np.random.default_rng([seed, n])
    y = rng.integers(0, k, size=n)
    X = centres[y] + rng.normal(size=(n, d))
    return X, (np.sin(X[:, 0]) + 0.5 * X[:, 1] if n_classes == 0 else y)


def sweep_cases(names: Sequence[str]) -> list[tuple[str, Callable[[], Any], int]]:
    """The estimator x kernel x coding cases of the accuracy sweep, for the estimators ``names``."""
    K = SWEEP_KERNELS
    fs = {k: (k if k in ("rbf", "linear") else K[k]) for k in K}
    cases: list[tuple[str, Callable[[], Any], int]] = []
    for k in K:
        cases.append((f"RobustSVC-{k}-binary", lambda k=k: RobustSVC(kernel=K[k], nu=1.0, selection="training_error",
                                                                       n_landmarks=None), 2))
        cases.append((f"RobustSVC-{k}-ovr-reduced", lambda k=k: RobustSVC(
            kernel=K[k], nu=1.0, selection="training_error", n_landmarks=15, random_state=0), 3))
        for coding, n_classes in (("binary", 2), ("ovo", 4), ("moc", 4)):
            cases.append((f"FixedSizeLSSVC-{k}-{coding}", lambda k=k, c=coding: FixedSizeLSSVC(
                n_prototypes=20, kernel=fs[k], multiclass="moc" if c == "moc" else "ovo", n_csa=4, n_simplex=2,
                random_state=0), n_classes))
        cases.append((f"FixedSizeLSSVR-{k}", lambda k=k: FixedSizeLSSVR(n_prototypes=20, kernel=fs[k], n_csa=4,
                                                                         n_simplex=2, random_state=0), 0))
    cases += [("RampLossSVC-binary", lambda: RampLossSVC(C=1.0, budget=3, method="cccp", random_state=0), 2),
              ("L1SVC-binary", lambda: L1SVC(C=1.0), 2),
              ("FeatureBudgetSVC-binary", lambda: FeatureBudgetSVC(C=1.0, budget=2), 2)]
    for coding, n_classes in (("binary", 2), ("ovo", 3), ("ovr", 3)):
        cases.append((f"EllipsoidPSOClassifier-{coding}", lambda c=coding: EllipsoidPSOClassifier(
            solver="exact", multiclass="ovr" if c == "ovr" else "ovo", ratio=1.0, shrinkage=0.0), n_classes))
    return [c for c in cases if c[0].split("-")[0] in names]


# ----------------------------------------------------------------------------------------------- measuring
def session(model: Any, dtype: Any) -> Any:
    import onnxruntime as ort

    from svmopt.onnx import to_onnx

    onx = to_onnx(model, n_features=model.n_features_in_, dtype=dtype)
    return ort.InferenceSession(onx.SerializeToString(), providers=["CPUExecutionProvider"])


def reference(model: Any, X: np.ndarray) -> tuple[np.ndarray, np.ndarray | None]:
    """svmopt's scores (``[-f, f]`` for two classes, as the graph's) and labels; for a regressor its prediction."""
    if not hasattr(model, "classes_"):
        return model.predict(X), None
    d = model.decision_function(X)
    return (d if d.ndim == 2 else np.column_stack([-d, d])), model.predict(X)


def agreement(model: Any, X: np.ndarray, sess64: Any, sess32: Any) -> dict[str, Any]:
    """float64 and float32 max absolute differences of the graph's real outputs, the float32 one relative to
    ``max(1, max |scores|)``, and the share of equal labels."""
    scores, labels = reference(model, X)
    out64 = sess64.run(None, {"X": X})
    out32 = sess32.run(None, {"X": X.astype(np.float32)})
    i = 0 if labels is None else 1
    real64 = out64[i][:, 0] if labels is None else out64[i]
    real32 = out32[i][:, 0].astype(np.float64) if labels is None else out32[i].astype(np.float64)
    diff32 = np.abs(real32 - scores).reshape(X.shape[0], -1).max(axis=1)
    # one-vs-one and minimum output coding scores jump by a whole vote (or code bit) when a pairwise output within
    # float32 rounding of 0 takes the other side: such rows are counted, and the difference is that of the others
    flipped = diff32 >= 0.5
    rec = {"max_abs_diff_float64": float(np.max(np.abs(real64 - scores))),
           "max_abs_diff_float32": float(np.max(diff32[~flipped], initial=0.0)),
           "rows_with_a_flipped_vote_float32": int(flipped.sum()),
           "max_abs_score": float(np.max(np.abs(scores)))}
    rec["relative_diff_float32"] = rec["max_abs_diff_float32"] / max(1.0, rec["max_abs_score"])
    if labels is not None:
        rec["labels_differing_float64"] = int(np.sum(out64[0] != labels))
        rec["labels_differing_float32"] = int(np.sum(out32[0] != labels))
    return rec


def timed(fn: Callable[[], Any], repeats: int) -> dict[str, float]:
    """Median wall and CPU seconds of ``repeats`` calls of ``fn`` (after one untimed call)."""
    fn()
    walls, cpus = [], []
    for _ in range(repeats):
        w0, c0 = time.perf_counter(), time.process_time()
        fn()
        walls.append(time.perf_counter() - w0)
        cpus.append(time.process_time() - c0)
    return {"wall_s": statistics.median(walls), "cpu_s": statistics.median(cpus), "repeats": repeats}


def measure(name: str, batch: int, repeats: int, single_repeats: int, seed: int,
            log: Callable[[str], None]) -> dict[str, Any]:
    factory, n_classes, desc = ESTIMATORS[name]
    X, y = blobs(N_TRAIN, n_classes, D, seed, SPREAD)
    model = factory()
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        t0 = time.perf_counter()
        model.fit(X, y)
        fit_s = time.perf_counter() - t0
    Xb, _ = blobs(batch, n_classes, D, seed + 1, SPREAD)
    sess64, sess32 = session(model, np.float64), session(model, np.float32)
    row = np.ascontiguousarray(Xb[:1])
    rec: dict[str, Any] = {"estimator": name, "description": desc, "fit_s": fit_s, "batch": batch}
    size = getattr(model, "support_vectors_", getattr(model, "prototypes_", None))
    rec["stored_points"] = 0 if size is None else int(np.shape(size)[0])
    rec["single_svmopt"] = timed(lambda: model.predict(row), single_repeats)
    rec["single_onnx"] = timed(lambda: sess64.run(None, {"X": row}), single_repeats)
    rec["batch_svmopt"] = timed(lambda: model.predict(Xb), repeats)
    rec["batch_onnx"] = timed(lambda: sess64.run(None, {"X": Xb}), repeats)
    Xb32 = Xb.astype(np.float32)
    rec["batch_onnx_float32"] = timed(lambda: sess32.run(None, {"X": Xb32}), repeats)
    rec.update(agreement(model, Xb, sess64, sess32))
    log(f"{name}: single row {1e3 * rec['single_svmopt']['wall_s']:.3f} ms svmopt, "
        f"{1e3 * rec['single_onnx']['wall_s']:.3f} ms onnxruntime; {batch} rows "
        f"{rec['batch_svmopt']['wall_s']:.3f} s svmopt, {rec['batch_onnx']['wall_s']:.3f} s onnxruntime; "
        f"max diff {rec['max_abs_diff_float64']:.1e} / {rec['max_abs_diff_float32']:.1e} (float32)")
    return rec


def sweep(names: Sequence[str], log: Callable[[str], None]) -> list[dict[str, Any]]:
    out = []
    for case, factory, n_classes in sweep_cases(names):
        X, y = blobs(180, n_classes, 4, 0)
        model = factory()
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            model.fit(X[:120], y[:120])
        rec = {"case": case, **agreement(model, X[120:], session(model, np.float64), session(model, np.float32))}
        out.append(rec)
        log(f"sweep {case}: {rec['max_abs_diff_float64']:.1e} / {rec['max_abs_diff_float32']:.1e} (float32, "
            f"relative {rec['relative_diff_float32']:.1e})")
    return out


# ------------------------------------------------------------------------------------------------ report
def _ms(t: dict[str, float]) -> str:
    return f"{1e3 * t['wall_s']:.3f} / {1e3 * t['cpu_s']:.3f}"


def markdown(saved: dict[str, Any]) -> str:
    res, meta = saved["results"], saved["meta"]
    lines = ["# ONNX export: onnxruntime against svmopt's predict", "",
             "Generated by `benchmarks/studies/onnx_latency.py` from `onnx_latency.json`; see the script's docstring "
             "for the protocol.", ""]
    lines += [f"* {k}: {v}" for k, v in meta.items()]
    lines += ["", "## Single-row latency (median per call, ms, wall / CPU)", "",
              "| estimator | stored points | svmopt predict | onnxruntime | svmopt / onnxruntime (wall) |",
              "|---|---:|---:|---:|---:|"]
    for r in res["latency"]:
        ratio = r["single_svmopt"]["wall_s"] / r["single_onnx"]["wall_s"]
        lines.append(f"| {r['estimator']} | {r['stored_points']} | {_ms(r['single_svmopt'])} | "
                     f"{_ms(r['single_onnx'])} | {ratio:.1f} |")
    lines += ["", "## Batch throughput (median of the repeats)", "",
              "| estimator | rows | svmopt s (wall / CPU) | onnxruntime float64 s (wall / CPU) | onnxruntime float32 s "
              "(wall / CPU) | svmopt rows/s | onnxruntime rows/s |", "|---|---:|---:|---:|---:|---:|---:|"]
    for r in res["latency"]:
        s, o, o32 = r["batch_svmopt"], r["batch_onnx"], r["batch_onnx_float32"]
        lines.append(f"| {r['estimator']} | {r['batch']} | {s['wall_s']:.4f} / {s['cpu_s']:.4f} | "
                     f"{o['wall_s']:.4f} / {o['cpu_s']:.4f} | {o32['wall_s']:.4f} / {o32['cpu_s']:.4f} | "
                     f"{r['batch'] / s['wall_s']:.3g} | {r['batch'] / o['wall_s']:.3g} |")
    lines += ["", "## Agreement on the batch", "",
              "Scores against `decision_function` (the regressor: `predict`); the float32 difference and its value "
              "relative to max(1, max abs score) leave out the rows where a one-vs-one vote flipped (counted).", "",
              AGREEMENT_HEADER[0].format(what="estimator"), AGREEMENT_HEADER[1]]
    lines += [_agreement_row(r["estimator"], r["batch"], r) for r in res["latency"]]
    if res.get("sweep"):
        lines += ["", "## Accuracy sweep (estimator x kernel x coding, 60 held-out rows)", "",
                  AGREEMENT_HEADER[0].format(what="case"), AGREEMENT_HEADER[1]]
        lines += [_agreement_row(r["case"], 60, r) for r in res["sweep"]]
        worst = max(res["sweep"], key=lambda r: r["relative_diff_float32"])
        lines += ["", f"Largest float64 difference of the sweep: "
                  f"{max(r['max_abs_diff_float64'] for r in res['sweep']):.1e}; largest float32 relative difference: "
                  f"{worst['relative_diff_float32']:.1e} ({worst['case']})."]
    return "\n".join(lines) + "\n"


AGREEMENT_HEADER = ["| {what} | rows | max abs diff float64 | max abs diff float32 | float32 relative | "
                    "max abs score | float32 rows with a flipped vote | labels differing float64 | "
                    "labels differing float32 |",
                    "|---|---:|---:|---:|---:|---:|---:|---:|---:|"]


def _agreement_row(name: str, rows: int, r: dict[str, Any]) -> str:
    eq = [str(r[k]) if k in r else "-" for k in ("labels_differing_float64", "labels_differing_float32")]
    return (f"| {name} | {rows} | {r['max_abs_diff_float64']:.1e} | {r['max_abs_diff_float32']:.1e} | "
            f"{r['relative_diff_float32']:.1e} | {r['max_abs_score']:.3g} | {r['rows_with_a_flipped_vote_float32']} | "
            f"{eq[0]} | {eq[1]} |")


# ------------------------------------------------------------------------------------------------- main
def main(argv: Sequence[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=(__doc__ or "").split("\n\n")[0],
                                 formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--estimators", nargs="+", default=list(ESTIMATORS), choices=list(ESTIMATORS))
    ap.add_argument("--batch", type=int, default=100_000, help="rows of the throughput measurement")
    ap.add_argument("--repeats", type=int, default=7, help="timed repeats of the batch prediction")
    ap.add_argument("--single-repeats", type=int, default=300, help="timed single-row calls")
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("--no-sweep", action="store_true", help="skip the accuracy sweep")
    ap.add_argument("--out-dir", type=Path, default=RESULTS)
    ap.add_argument("--note", action="append", default=[], help="a line added to the report's header")
    ap.add_argument("--report-only", action="store_true", help="rewrite onnx_latency.md from onnx_latency.json")
    args = ap.parse_args(argv)
    args.out_dir.mkdir(parents=True, exist_ok=True)
    if args.report_only:
        saved = json.loads((args.out_dir / "onnx_latency.json").read_text())
        (args.out_dir / "onnx_latency.md").write_text(markdown(saved))
        return 0
    import onnxruntime
    import skl2onnx

    t0 = time.perf_counter()
    meta: dict[str, Any] = {
        "command": command_line(__spec__.name if __spec__ else "benchmarks.studies.onnx_latency", argv),
        "CPUs": os.cpu_count(), "OMP_NUM_THREADS": os.environ.get("OMP_NUM_THREADS", "unset"),
        "load average at start (1, 5, 15 min)": [round(v, 2) for v in os.getloadavg()],
        "svmopt": svmopt.__version__, "skl2onnx / onnxruntime": f"{skl2onnx.__version__} / {onnxruntime.__version__}",
        "git HEAD": git_head(), "files differing from HEAD under python and cpp": len(uncommitted()),
        "python / numpy": f"{platform.python_version()} / {np.__version__}", "machine": platform.machine(),
        "data": f"{N_TRAIN} training rows of Gaussian blobs (centres N(0, {SPREAD}^2), unit spread), d = {D}; the "
                "batch drawn from the same blobs",
    }
    for i, note in enumerate(args.note):
        meta[f"note {i + 1}"] = note

    def log(msg: str) -> None:
        print(f"[{time.perf_counter() - t0:7.1f} s] {msg}", flush=True)

    results: dict[str, Any] = {"latency": [measure(n, args.batch, args.repeats, args.single_repeats, args.seed, log)
                                           for n in args.estimators]}
    results["sweep"] = [] if args.no_sweep else sweep(args.estimators, log)
    meta["load average at end (1, 5, 15 min)"] = [round(v, 2) for v in os.getloadavg()]
    meta["run time"] = f"{time.perf_counter() - t0:.1f} s"
    saved = {"meta": meta, "results": results}
    (args.out_dir / "onnx_latency.json").write_text(json.dumps(saved, indent=1) + "\n")
    (args.out_dir / "onnx_latency.md").write_text(markdown(saved))
    log(f"wrote {args.out_dir / 'onnx_latency.md'}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
