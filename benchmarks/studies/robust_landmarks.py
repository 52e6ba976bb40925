"""Test accuracy against the number of landmarks: RobustSVC's reduced model (paper 000) against FixedSizeLSSVC
(paper 002) at equal size, each with its defaults.

What it measures
----------------
For every data set, split and L of ``--landmarks``: ``RobustSVC(n_landmarks=L)`` with every other parameter at its
default (RBF, entropy landmarks, ``nu="auto"`` and ``alpha="auto"`` compared by its own 3-fold cross-validation on a
stratified subsample of at most ``svmopt.robust.plan.SELECT_MAX_ROWS`` training rows, then one fit on every row by the
interior point) and ``FixedSizeLSSVC(n_prototypes=L)`` with its defaults (entropy prototypes, (gamma, sigma^2) tuned
on the fast 10-fold CV). Both get the same standardized rows. Recorded per fit: the test accuracy, wall and CPU seconds,
the ConvergenceWarnings, and RobustSVC's chosen ``nu``, RBF width and number of landmarks with ``v_j != 0``.

The data sets, splits and standardization are those of ``benchmarks/studies/robust_accuracy.py`` (``--max-train``
training rows, ``--max-test`` test rows, stratified, ``random_state`` = split index; the estimators get ``random_state``
= split index too). Fits run one per process (``--jobs`` processes over the (data set, split) pairs); set
``OMP_NUM_THREADS=1`` so that the processes do not share cores::

    OMP_NUM_THREADS=1 SVMOPT_DATA=/path/to/datasets python -m benchmarks.studies.robust_landmarks --jobs 2

Results: ``robust_landmarks.json`` (raw per-fit records) and ``robust_landmarks.md`` (means ± std over the splits, the
paired difference RobustSVC - FixedSizeLSSVC) in ``--out-dir``; ``--plot`` draws accuracy against L;
``--report-from`` rewrites the Markdown (and the plot) from a saved JSON without fitting.
"""

from __future__ import annotations

import argparse
import json
import os
import platform
import time
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any

import numpy as np
from sklearn.preprocessing import StandardScaler

from benchmarks.studies.robust_accuracy import (
    DEFAULT_DATASETS,
    TASKS,
    load_task,
    mean_sd,
    split_indices,
    wins_ties_losses,
)
from benchmarks.studies.util import RESULTS, command_line, fit_timed, git_head

DEFAULT_LANDMARKS = (25, 50, 100, 200, 400)


def one_split(X: np.ndarray, y: np.ndarray, split: int, landmarks: Sequence[int], max_train: int,
              max_test: int) -> list[dict[str, Any]]:
    """Both models at every L on one split of (X, y), y in {-1, +1}: one record per L."""
    from svmopt import FixedSizeLSSVC, RobustSVC

    tr, te = split_indices(y, split, max_train, max_test)
    sc = StandardScaler().fit(X[tr])
    Xtr, Xte, ytr, yte = sc.transform(X[tr]), sc.transform(X[te]), y[tr], y[te]
    out = []
    for L in landmarks:
        L = int(min(L, tr.size))
        rob = RobustSVC(n_landmarks=L, random_state=split)
        rw, rc, rn = fit_timed(rob, Xtr, ytr)
        fs = FixedSizeLSSVC(n_prototypes=L, random_state=split)
        fw, fc, fn = fit_timed(fs, Xtr, ytr)
        out.append({"split": split, "L": L, "n_train": int(tr.size), "n_test": int(te.size),
                    "robust": {"accuracy": float(rob.score(Xte, yte)), "wall_s": rw, "cpu_s": rc,
                               "convergence_warnings": rn, "nu": float(np.ravel(rob.nu_)[0]),
                               "alpha": float(rob.kernel_.core_params.alpha),
                               "n_support": int(np.count_nonzero(rob.dual_coef_))},
                    "fixed_size": {"accuracy": float(fs.score(Xte, yte)), "wall_s": fw, "cpu_s": fc,
                                   "convergence_warnings": fn, "gamma": float(fs.gamma_),
                                   "sigma2": float(fs.sigma2_)}})
    return out


def run_curve(data: Mapping[str, tuple[np.ndarray, np.ndarray]], *, n_splits: int = 5,
              landmarks: Sequence[int] = DEFAULT_LANDMARKS, max_train: int = 10_000, max_test: int = 5000,
              jobs: int = 1) -> dict[str, Any]:
    """Raw records: ``{"datasets": {name: {"records": [...], ...}}}``, one record per (split, L)."""
    from joblib import Parallel, delayed

    tasks = [(name, s) for name in data for s in range(n_splits)]
    parts = Parallel(n_jobs=jobs)(delayed(one_split)(data[name][0], data[name][1], s, landmarks, max_train,
                                                     max_test) for name, s in tasks)
    out: dict[str, Any] = {"landmarks": [int(v) for v in landmarks], "datasets": {}}
    for (name, _), recs in zip(tasks, parts, strict=True):
        X = data[name][0]
        entry = out["datasets"].setdefault(name, {"d": int(X.shape[1]), "n_rows": int(X.shape[0]), "records": []})
        entry["records"].extend(recs)
    return out


def table_rows(results: Mapping[str, Any]) -> list[dict[str, Any]]:
    """One row per (data set, L): means over the splits, the paired difference, the wins."""
    rows = []
    for name, ds in results["datasets"].items():
        for L in sorted({r["L"] for r in ds["records"]}):
            recs = [r for r in ds["records"] if r["L"] == L]
            ra = np.array([r["robust"]["accuracy"] for r in recs])
            fa = np.array([r["fixed_size"]["accuracy"] for r in recs])
            rows.append({"dataset": name, "L": L, "n_splits": len(recs), "robust": mean_sd(ra),
                         "fixed_size": mean_sd(fa),
                         "robust_mean": float(ra.mean()), "fixed_size_mean": float(fa.mean()),
                         "difference": mean_sd(ra - fa), "difference_mean": float((ra - fa).mean()),
                         "wins": wins_ties_losses(ra, fa),
                         "robust_wall": mean_sd([r["robust"]["wall_s"] for r in recs], 2),
                         "robust_cpu": mean_sd([r["robust"]["cpu_s"] for r in recs], 2),
                         "fixed_size_wall": mean_sd([r["fixed_size"]["wall_s"] for r in recs], 2),
                         "fixed_size_cpu": mean_sd([r["fixed_size"]["cpu_s"] for r in recs], 2),
                         "robust_support": mean_sd([r["robust"]["n_support"] for r in recs], 1),
                         "robust_nu": sorted({round(r["robust"]["nu"], 6) for r in recs}),
                         "warnings": sum(r["robust"]["convergence_warnings"] + r["fixed_size"]["convergence_warnings"]
                                         for r in recs)})
    return rows


def markdown(results: Mapping[str, Any], meta: Mapping[str, Any]) -> str:
    rows = table_rows(results)
    lines = ["# Accuracy against the number of landmarks: RobustSVC vs FixedSizeLSSVC, each with its defaults", "",
             "Written by `benchmarks/studies/robust_landmarks.py` from its own measurements (raw per-fit records: "
             "`robust_landmarks.json`; protocol in the script's docstring). Means ± std (ddof=1) over the splits; "
             "*wins* = splits where RobustSVC's test accuracy is higher / equal / lower.", ""]
    lines += [f"- {k}: {v}" for k, v in meta.items()]
    lines += ["", "| data set | L | RobustSVC acc. | FixedSizeLSSVC acc. | RobustSVC − FixedSizeLSSVC | wins | "
              "RobustSVC nu chosen | RobustSVC v_j != 0 | RobustSVC wall / CPU (s) | FixedSizeLSSVC wall / CPU (s) | "
              "ConvergenceWarnings |", "|---|---|---|---|---|---|---|---|---|---|---|"]
    for r in rows:
        lines.append(f"| {r['dataset']} | {r['L']} | {r['robust']} | {r['fixed_size']} | {r['difference']} | "
                     f"{' / '.join(map(str, r['wins']))} | {', '.join(f'{v:g}' for v in r['robust_nu'])} | "
                     f"{r['robust_support']} | {r['robust_wall']} / {r['robust_cpu']} | "
                     f"{r['fixed_size_wall']} / {r['fixed_size_cpu']} | {r['warnings']} |")
    worst = min(rows, key=lambda r: r["difference_mean"]) if rows else None
    if worst is not None:
        behind = sum(r["difference_mean"] >= -0.01 for r in rows)
        within = sum(abs(r["difference_mean"]) <= 0.01 for r in rows)
        ahead = sum(r["difference_mean"] > 0 for r in rows)
        lines += ["", f"RobustSVC's mean accuracy is at most one point below FixedSizeLSSVC's in {behind} of "
                  f"{len(rows)} (data set, L) cells and within one point either way in {within}; it is higher in "
                  f"{ahead}. Its largest shortfall is {-100 * worst['difference_mean']:.2f} points "
                  f"({worst['dataset']}, L = {worst['L']}).", ""]
    return "\n".join(lines)


def plot(results: Mapping[str, Any], path: Path) -> None:
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    rows = table_rows(results)
    names = list(results["datasets"])
    fig, axes = plt.subplots(1, len(names), figsize=(3.2 * len(names), 3.0), squeeze=False)
    for ax, name in zip(axes[0], names, strict=True):
        rs = [r for r in rows if r["dataset"] == name]
        Ls = [r["L"] for r in rs]
        ax.plot(Ls, [r["robust_mean"] for r in rs], "o-", label="RobustSVC")
        ax.plot(Ls, [r["fixed_size_mean"] for r in rs], "s--", label="FixedSizeLSSVC")
        ax.set_xscale("log")
        ax.minorticks_off()
        ax.set_xticks(Ls)
        ax.set_xticklabels([str(v) for v in Ls])
        ax.set_title(name)
        ax.set_xlabel("landmarks / prototypes L")
    axes[0][0].set_ylabel("test accuracy (mean over splits)")
    axes[0][0].legend(fontsize=8)
    fig.tight_layout()
    fig.savefig(path, dpi=110)
    plt.close(fig)


def main(argv: Sequence[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0],
                                 formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--datasets", nargs="+", default=list(DEFAULT_DATASETS), choices=sorted(TASKS))
    ap.add_argument("--landmarks", type=int, nargs="+", default=list(DEFAULT_LANDMARKS))
    ap.add_argument("--splits", type=int, default=5)
    ap.add_argument("--max-train", type=int, default=10_000)
    ap.add_argument("--max-test", type=int, default=5000)
    ap.add_argument("--jobs", type=int, default=1, help="processes over the (data set, split) pairs")
    ap.add_argument("--out-dir", type=Path, default=RESULTS)
    ap.add_argument("--plot", type=Path, default=None, help="write the figure (PNG) here")
    ap.add_argument("--report-from", type=Path, default=None,
                    help="only rewrite robust_landmarks.md (and --plot) from this robust_landmarks.json (no fits)")
    args = ap.parse_args(argv)
    args.out_dir.mkdir(parents=True, exist_ok=True)
    if args.report_from is not None:
        saved = json.loads(args.report_from.read_text())
        (args.out_dir / "robust_landmarks.md").write_text(markdown(saved["results"], saved["meta"]))
        if args.plot is not None:
            plot(saved["results"], args.plot)
        return 0
    import svmopt

    t0 = time.perf_counter()
    data = {name: load_task(name) for name in args.datasets}
    results = run_curve(data, n_splits=args.splits, landmarks=args.landmarks, max_train=args.max_train,
                        max_test=args.max_test, jobs=args.jobs)
    meta = {"command": command_line(__spec__.name, argv),
            "splits": args.splits, "max_train": args.max_train, "max_test": args.max_test,
            "jobs": args.jobs, "OMP_NUM_THREADS": os.environ.get("OMP_NUM_THREADS", "unset"),
            "svmopt": f"{svmopt.__version__} at {Path(svmopt.__file__).parent}", "git HEAD": git_head(),
            "python / numpy": f"{platform.python_version()} / {np.__version__}", "machine": platform.machine(),
            "total run time": f"{time.perf_counter() - t0:.1f} s"}
    (args.out_dir / "robust_landmarks.json").write_text(json.dumps({"meta": meta, "results": results}, indent=1))
    (args.out_dir / "robust_landmarks.md").write_text(markdown(results, meta))
    if args.plot is not None:
        plot(results, args.plot)
    print(f"total {meta['total run time']}; wrote {args.out_dir / 'robust_landmarks.md'}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
