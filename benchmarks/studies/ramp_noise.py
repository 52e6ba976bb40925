"""Label-noise benchmark: RampLossSVC (CCCP, feature budget) against hinge-loss linear SVMs on far-from-boundary flips.

What it measures
----------------
Synthetic data with a known sparse linear rule: ``d = 50`` standard normal features, a true weight vector ``w*``
supported on 5 features (fixed seed, :func:`true_rule`) and a small intercept ``b*``; labels
``y = sign(X w* + b*)``. In the training set 15% of the labels are flipped, chosen uniformly among the 50% of the
rows with the largest ``|X w* + b*|`` (points far from the true boundary, where a flip costs a hinge loss most). The
test set (20,000 rows, same distribution) has no flips, so a model that recovers the true rule scores 1.0.

Models (all on the raw features, which are already N(0, 1); nothing is standardized)

* ``RampLossSVC(method="cccp", budget=10)`` -- svmopt's ramp-loss l1-SVM with a feature budget by CCCP
  (a local solution, ``n_init=3`` starts, ``random_state=0``);
* ``L1SVC(solver="cutting_plane")`` -- svmopt's l1-norm hinge-loss SVM (an LP, solved exactly);
* scikit-learn ``LinearSVC(penalty="l2", loss="hinge", dual="auto")`` and
  ``LinearSVC(penalty="l1", loss="squared_hinge", dual=False)``.

Protocol
--------
For each training size ``n`` (``--sizes``), ``C`` is chosen on a random 20% validation split of the noisy training
rows (fit on the other 80%, highest validation accuracy on the noisy labels, ties to the smaller C) over
``{0.01, 0.1, 1}`` for the two svmopt models and ``{0.001, 0.01, 0.1, 1}`` for LinearSVC. For ``n`` above
``--tune-max-n`` (default 10^5) no validation is run: the C chosen at the largest tuned size of the same run is
reused (or, if none was tuned, the validation is run on the first ``--tune-max-n`` training rows); the JSON says
which, per size. The final model is fit on all ``n`` noisy training rows with that C; its wall
(``time.perf_counter``) and CPU (``time.process_time``) seconds, ConvergenceWarnings, test accuracy, the features
with ``|w_k| > 1e-7`` and the 5 largest ``|w_k|`` are recorded, with how many of the 5 true features they contain.

Outputs (``--out-dir``, default ``benchmarks/results``): ``ramp_noise.json`` (raw records), ``ramp_noise.md``
(tables generated from the JSON) and the figure ``--figure`` (default ``docs/ramp_noise.png``: test accuracy against
n). ``--report-only`` rewrites the Markdown and the figure from the saved JSON without fitting::

    python -m benchmarks.studies.ramp_noise --sizes 10000 100000 1000000
"""

from __future__ import annotations

import argparse
import json
import os
import platform
import time
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any

import numpy as np
from sklearn.svm import LinearSVC

import svmopt
from benchmarks.studies.util import RESULTS, ROOT, command_line, fit_timed, git_head
from svmopt import L1SVC, RampLossSVC

D = 50
N_TRUE = 5
BUDGET = 10
FLIP = 0.15
FAR_FRACTION = 0.5
INTERCEPT = 0.2
N_TEST = 20_000
RULE_SEED = 2024
FEATURE_TOL = 1e-7
SVMOPT_C_GRID = (0.01, 0.1, 1.0)
SKLEARN_C_GRID = (0.001, 0.01, 0.1, 1.0)
DEFAULT_SIZES = (10_000, 100_000, 1_000_000)

#: model name -> (factory of C, C grid, one-line description)
MODELS: dict[str, tuple[Callable[[float], Any], tuple[float, ...], str]] = {
    "RampLossSVC-cccp": (lambda C: RampLossSVC(C=C, budget=BUDGET, method="cccp", random_state=0), SVMOPT_C_GRID,
                         f"svmopt RampLossSVC(method='cccp', budget={BUDGET}, n_init=3, random_state=0)"),
    "L1SVC-cp": (lambda C: L1SVC(C=C, solver="cutting_plane"), SVMOPT_C_GRID,
                 "svmopt L1SVC(solver='cutting_plane'): l1-norm, hinge loss"),
    "LinearSVC-l2": (lambda C: LinearSVC(C=C, penalty="l2", loss="hinge", dual="auto", random_state=0),
                     SKLEARN_C_GRID, "scikit-learn LinearSVC(penalty='l2', loss='hinge', dual='auto')"),
    "LinearSVC-l1": (lambda C: LinearSVC(C=C, penalty="l1", loss="squared_hinge", dual=False, random_state=0),
                     SKLEARN_C_GRID, "scikit-learn LinearSVC(penalty='l1', loss='squared_hinge', dual=False)"),
}


# ----------------------------------------------------------------------------------------------------- data
def true_rule(d: int = D, k: int = N_TRUE, seed: int = RULE_SEED) -> tuple[np.ndarray, float]:
    """``(w*, b*)``: ``k`` nonzero weights on features drawn with ``seed``, magnitudes in [1, 2], random signs."""
    rng = np.random.default_rng(seed)
    support = np.sort(rng.choice(d, size=k, replace=False))
    w = np.zeros(d)
    w[support] = rng.uniform(1.0, 2.0, size=k) * rng.choice([-1.0, 1.0], size=k)
    return w, INTERCEPT


def make_data(n: int, seed: int, flip: float = FLIP, far_fraction: float = FAR_FRACTION
              ) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """``(X, y, flipped)``: ``n`` rows of N(0, I_d), ``y = sign(X w* + b*)`` in {-1, +1}, then ``round(flip n)``
    labels flipped among the ``far_fraction`` of the rows with the largest ``|X w* + b*|`` (uniformly, without
    replacement; ``flip = 0`` gives clean labels)."""
    w, b = true_rule()
    rng = np.random.default_rng([seed, n])
    X = rng.standard_normal((n, w.size))
    f = X @ w + b
    y = np.where(f >= 0, 1, -1)
    n_flip = round(flip * n)
    if n_flip == 0:
        return X, y, np.empty(0, dtype=np.int64)
    n_far = max(n_flip, round(far_fraction * n))
    far = np.argsort(-np.abs(f), kind="stable")[:n_far]
    flipped = np.sort(rng.choice(far, size=n_flip, replace=False))
    y[flipped] = -y[flipped]
    return X, y, flipped


# ---------------------------------------------------------------------------------------------- fitting
def _coef(model: Any) -> tuple[np.ndarray, float]:
    return np.asarray(model.coef_, dtype=float).ravel(), float(np.ravel(model.intercept_)[0])


def _accuracy(model: Any, X: np.ndarray, y: np.ndarray) -> float:
    w, b = _coef(model)
    return float(np.mean(np.where(X @ w + b >= 0, 1, -1) == y))


def timed_fit(model: Any, X: np.ndarray, y: np.ndarray) -> dict[str, Any]:
    """Fit, returning the model, wall / CPU seconds and the number of ConvergenceWarnings."""
    wall, cpu, n_conv = fit_timed(model, X, y)
    return {"model": model, "wall_s": wall, "cpu_s": cpu, "convergence_warnings": n_conv}


def validate_c(name: str, X: np.ndarray, y: np.ndarray, seed: int = 0) -> dict[str, Any]:
    """Validation of one model's C on a random 20% of (X, y): accuracy on the (noisy) held-out labels per C."""
    make, grid, _ = MODELS[name]
    rng = np.random.default_rng(seed)
    perm = rng.permutation(y.size)
    n_val = max(1, round(0.2 * y.size))
    va, tr = np.sort(perm[:n_val]), np.sort(perm[n_val:])
    acc = []
    for C in grid:
        fit = timed_fit(make(C), X[tr], y[tr])
        acc.append(_accuracy(fit["model"], X[va], y[va]))
    best = int(np.argmax(acc))  # the first (smallest C) on ties
    return {"C": float(grid[best]), "grid": [float(c) for c in grid], "validation_accuracy": acc,
            "n_fit": int(tr.size), "n_validation": int(va.size)}


def feature_record(w: np.ndarray, support: np.ndarray) -> dict[str, Any]:
    selected = np.flatnonzero(np.abs(w) > FEATURE_TOL)
    top5 = np.argsort(-np.abs(w), kind="stable")[:N_TRUE]
    top5 = top5[np.abs(w[top5]) > FEATURE_TOL]
    return {"n_selected": int(selected.size), "selected": selected.tolist() if selected.size <= BUDGET else None,
            "true_in_selected": int(np.isin(support, selected).sum()), "top5": sorted(int(i) for i in top5),
            "true_in_top5": int(np.isin(support, top5).sum()),
            "top5_equals_true": bool(set(top5.tolist()) == set(support.tolist()))}


def run_size(n: int, seed: int, models: Sequence[str], tuned: dict[str, float], tune_max_n: int,
             Xte: np.ndarray, yte: np.ndarray, log: Callable[[str], None]) -> dict[str, Any]:
    """All models at one training size ``n``; ``tuned`` (model -> C of the largest size validated so far) is
    updated in place."""
    w_true, _ = true_rule()
    support = np.flatnonzero(w_true)
    t0 = time.perf_counter()
    X, y, flipped = make_data(n, seed)
    rec: dict[str, Any] = {"n": n, "n_flipped": int(flipped.size), "data_s": time.perf_counter() - t0, "models": {}}
    log(f"n={n}: data in {rec['data_s']:.1f} s, {flipped.size} flips")
    for name in models:
        if n <= tune_max_n:
            sel = validate_c(name, X, y, seed)
            sel["how"] = f"validated at n={n}"
            tuned[name] = sel["C"]
        elif name in tuned:
            sel = {"C": tuned[name], "how": "reused from the largest validated size"}
        else:
            sel = validate_c(name, X[:tune_max_n], y[:tune_max_n], seed)
            sel["how"] = f"validated on the first {tune_max_n} training rows"
        fit = timed_fit(MODELS[name][0](sel["C"]), X, y)
        w, b = _coef(fit["model"])
        out = {"C": sel["C"], "selection": sel, "test_accuracy": _accuracy(fit["model"], Xte, yte),
               "train_accuracy_noisy": _accuracy(fit["model"], X, y), "wall_s": fit["wall_s"], "cpu_s": fit["cpu_s"],
               "convergence_warnings": fit["convergence_warnings"], "intercept": b, **feature_record(w, support)}
        status = getattr(fit["model"], "status_", None)
        if status is not None:
            out["status"] = str(status)
        rec["models"][name] = out
        log(f"n={n} {name}: C={sel['C']:g} ({sel['how']}), test acc {out['test_accuracy']:.4f}, "
            f"fit {fit['wall_s']:.1f} s wall / {fit['cpu_s']:.1f} s CPU, true in top5 {out['true_in_top5']}/5")
    return rec


def run_study(sizes: Sequence[int], seed: int = 0, models: Sequence[str] = tuple(MODELS),
              tune_max_n: int = 100_000, n_test: int = N_TEST, log: Callable[[str], None] = print,
              checkpoint: Callable[[dict[str, Any]], None] | None = None) -> dict[str, Any]:
    """All sizes in increasing order; ``checkpoint(results)`` is called after each size with the sizes done."""
    w_true, b_true = true_rule()
    Xte, yte, _ = make_data(n_test, seed + 1, flip=0.0)
    tuned: dict[str, float] = {}
    results = {"true_support": np.flatnonzero(w_true).tolist(), "true_weights": w_true[w_true != 0].tolist(),
               "true_intercept": b_true, "n_test": n_test, "d": D, "flip": FLIP, "far_fraction": FAR_FRACTION,
               "budget": BUDGET, "models": {m: MODELS[m][2] for m in models}, "runs": []}
    for n in sorted(sizes):
        results["runs"].append(run_size(int(n), seed, models, tuned, tune_max_n, Xte, yte, log))
        if checkpoint is not None:
            checkpoint(results)
    return results


# ------------------------------------------------------------------------------------------------ report
def markdown(results: dict[str, Any], meta: dict[str, Any]) -> str:
    models = list(results["models"])
    lines = ["# Label-noise benchmark: RampLossSVC (CCCP) vs hinge-loss linear SVMs", "",
             "Generated by `benchmarks/studies/ramp_noise.py` from `ramp_noise.json`; see the script's docstring for "
             "the protocol.", ""]
    lines += [f"* {k}: {v}" for k, v in meta.items()]
    lines += ["", f"Data: d = {results['d']} N(0, 1) features; true rule on features {results['true_support']} "
              f"(weights {', '.join(f'{v:.3f}' for v in results['true_weights'])}, intercept "
              f"{results['true_intercept']:g}); {100 * results['flip']:g}% of the training labels flipped among the "
              f"{100 * results['far_fraction']:g}% of rows farthest from the true boundary; "
              f"{results['n_test']} clean test rows (the true rule scores 1.0).", ""]
    lines += ["Models:", ""] + [f"* `{m}`: {desc}" for m, desc in results["models"].items()]
    lines += ["", "## Test accuracy (clean labels)", "", "| n | " + " | ".join(models) + " |",
              "|---:|" + "---:|" * len(models)]
    for r in results["runs"]:
        lines.append(f"| {r['n']} | " + " | ".join(f"{r['models'][m]['test_accuracy']:.4f}" for m in models) + " |")
    lines += ["", "## Per model and size", "",
              "| n | model | C | C chosen | test acc. | train acc. (noisy) | fit wall s | fit CPU s | conv. warnings "
              "| # selected | true among selected | top-5 by abs(w) | true among top 5 |",
              "|---:|---|---:|---|---:|---:|---:|---:|---:|---:|---:|---|---:|"]
    for r in results["runs"]:
        for m in models:
            o = r["models"][m]
            lines.append(f"| {r['n']} | {m} | {o['C']:g} | {o['selection']['how']} | {o['test_accuracy']:.4f} | "
                         f"{o['train_accuracy_noisy']:.4f} | {o['wall_s']:.2f} | {o['cpu_s']:.2f} | "
                         f"{o['convergence_warnings']} | {o['n_selected']} | {o['true_in_selected']}/5 | "
                         f"{o['top5']} | {o['true_in_top5']}/5 |")
    lines += ["", "## Validation accuracy (noisy held-out labels) per C", ""]
    for r in results["runs"]:
        for m in models:
            sel = r["models"][m]["selection"]
            if "validation_accuracy" in sel:
                cells = zip(sel["grid"], sel["validation_accuracy"], strict=True)
                pairs = ", ".join(f"C={c:g}: {a:.4f}" for c, a in cells)
                lines.append(f"* n = {r['n']}, {m} ({sel['n_fit']} fit / {sel['n_validation']} validation rows): "
                             f"{pairs}")
    lines += ["", "## Observations (computed from the table)", ""]
    for r in results["runs"]:
        acc = {m: r["models"][m]["test_accuracy"] for m in models}
        best = max(acc, key=acc.get)
        lines.append(f"* n = {r['n']}: highest test accuracy {acc[best]:.4f} ({best}); "
                     + ", ".join(f"{m} {acc[m]:.4f}" for m in models if m != best) + ".")
    return "\n".join(lines) + "\n"


def figure(results: dict[str, Any], path: Path) -> None:
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    fig, ax = plt.subplots(figsize=(6.4, 4.2))
    ns = [r["n"] for r in results["runs"]]
    for m, marker in zip(results["models"], "osD^", strict=False):
        ax.plot(ns, [r["models"][m]["test_accuracy"] for r in results["runs"]], marker=marker, label=m)
    ax.set_xscale("log")
    ax.set_xlabel("training rows n")
    ax.set_ylabel("test accuracy (clean labels)")
    ax.set_title(f"{100 * results['flip']:g}% far-from-boundary label flips, d={results['d']}, 5 true features")
    ax.grid(True, which="both", alpha=0.3)
    ax.legend()
    fig.tight_layout()
    path.parent.mkdir(parents=True, exist_ok=True)
    fig.savefig(path, dpi=110)
    plt.close(fig)


# ------------------------------------------------------------------------------------------------- main
def write_report(saved: dict[str, Any], out_dir: Path, fig_path: Path | None) -> None:
    out_dir.mkdir(parents=True, exist_ok=True)
    (out_dir / "ramp_noise.md").write_text(markdown(saved["results"], saved["meta"]))
    if fig_path is not None:
        figure(saved["results"], fig_path)


def main(argv: Sequence[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0],
                                 formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--sizes", type=int, nargs="+", default=list(DEFAULT_SIZES))
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("--models", nargs="+", default=list(MODELS), choices=list(MODELS))
    ap.add_argument("--tune-max-n", type=int, default=100_000,
                    help="largest n at which C is validated; above it the C of the largest validated size is reused")
    ap.add_argument("--n-test", type=int, default=N_TEST)
    ap.add_argument("--out-dir", type=Path, default=RESULTS)
    ap.add_argument("--figure", type=Path, default=ROOT / "docs" / "ramp_noise.png",
                    help="where the accuracy-vs-n figure goes ('none': no figure)")
    ap.add_argument("--note", action="append", default=[], help="a line added to the report's header")
    ap.add_argument("--report-only", action="store_true",
                    help="rewrite ramp_noise.md and the figure from --out-dir/ramp_noise.json (no fits)")
    args = ap.parse_args(argv)
    fig_path = None if str(args.figure) == "none" else args.figure
    if args.report_only:
        write_report(json.loads((args.out_dir / "ramp_noise.json").read_text()), args.out_dir, fig_path)
        return 0
    t0 = time.perf_counter()
    meta = {
        "command": command_line(__spec__.name, argv),
        "sizes requested": sorted(args.sizes), "seed": args.seed, "C validated up to n": args.tune_max_n,
        "OMP_NUM_THREADS": os.environ.get("OMP_NUM_THREADS", "unset"), "CPUs": os.cpu_count(),
        "svmopt": svmopt.__version__, "git HEAD": git_head(),
        "python / numpy": f"{platform.python_version()} / {np.__version__}", "machine": platform.machine(),
    }
    for i, note in enumerate(args.note):
        meta[f"note {i + 1}"] = note

    def save(results: dict[str, Any]) -> None:  # after each size, so that an interrupted run keeps what it did
        meta["sizes done"] = [r["n"] for r in results["runs"]]
        meta["run time so far"] = f"{time.perf_counter() - t0:.1f} s"
        saved = {"meta": meta, "results": results}
        args.out_dir.mkdir(parents=True, exist_ok=True)
        (args.out_dir / "ramp_noise.json").write_text(json.dumps(saved, indent=1) + "\n")
        write_report(saved, args.out_dir, fig_path)

    run_study(args.sizes, seed=args.seed, models=args.models, tune_max_n=args.tune_max_n, n_test=args.n_test,
              log=lambda msg: print(f"[{time.perf_counter() - t0:7.1f} s] {msg}", flush=True), checkpoint=save)
    total = time.perf_counter() - t0
    print(f"total {total:.1f} s; wrote {args.out_dir / 'ramp_noise.md'}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
