"""FixedSizeLSSVC / FixedSizeLSSVR at their default ``tune_rows=2000`` against the paper's search on every row. A plain
script (not an asv suite); it produces the figures of ``docs/guide/fixed_size.md#tuning-on-a-sample-tune_rows``:

    SVMOPT_DATA=/path/to/datasets python -m benchmarks.studies.tune_sample --out benchmarks/results/tune_sample.json

Contenders, all with ``random_state`` each of ``--seeds`` (0) and every other parameter at its default (inputs
standardized by the estimator itself); ``--append`` adds a run's records to those of ``--out``:

* ``default``  -- ``tune_rows=2000, n_iter_no_change=20``: a problem of more rows is tuned (CSA + simplex over gamma and
  sigma^2 on the fast 10-fold CV) on a stratified sample of 2,000 of its rows, each stage of the search stopped after
  20 evaluations without improvement, then fitted on all its rows with gamma scaled by
  ``(W_sample / W_all) ** GAMMA_TRANSFER`` (``svmopt.fixed_size.search.GAMMA_TRANSFER``, 1);
* ``transfer0`` -- the same with ``GAMMA_TRANSFER = 0`` (set in this process): gamma used as tuned on the sample;
* ``full``     -- ``tune_rows=None, n_iter_no_change=None``: the paper's protocol, the search on every row with its
  whole 90 + 70 evaluation budget.

Two cases:

* the data store's sets (``--datasets``; loaded as ``benchmarks.studies.defaults`` loads them, a binary set as the
  catalog's positive class against the rest, ``--multiclass`` sets with all their classes) with ``--splits``
  stratified 70/30 splits (``StratifiedShuffleSplit(test_size=0.3, random_state=0)``), every contender on each;
* the synthetic set of ``benchmarks/studies/peers_fixed_size.py`` (``--large-rows`` x ``--d`` standard normal features,
  labels ``sign(sin(2 x0) + x1 x2 + 0.3 noise)`` from ``scale_fixed_size.make_data``, regression targets the latent
  function with fresh noise; 100,000 test rows of the same law), ``n_prototypes=--m``: ``default`` and ``transfer0``
  only, each in its own child process (its peak RSS its own). The search on every row is not run there (at 10^6 rows
  it takes many minutes); ``benchmarks/results/peers_fixed_size_path_1m.json`` holds it.

Per fit: test accuracy (MSE for regression), fit wall and CPU seconds (``time.process_time`` of the process), the
chosen ``gamma_`` and ``sigma2_`` (the gamma tuned on the sample too), the search's evaluations. The JSON's meta holds
the command, commit, files modified against it, and the load average before and after.
"""

from __future__ import annotations

import argparse
import json
import os
import platform
import sys
import tempfile
import time
from collections.abc import Sequence
from typing import Any

import numpy as np

import svmopt.fixed_size.search as fs_search
from benchmarks.studies.defaults import load_task, splits
from benchmarks.studies.peers_fixed_size import N_TEST, held_out_rows, regression_targets
from benchmarks.studies.scale_fixed_size import make_data
from benchmarks.studies.util import RESULTS, command_line, fit_timed, git_head, peak_rss_mib, run_child, uncommitted
from svmopt import FixedSizeLSSVC, FixedSizeLSSVR

DEFAULT_JSON = RESULTS / "tune_sample.json"
#: contender -> (estimator keywords, GAMMA_TRANSFER during its fit; None: the module's own)
CONTENDERS: dict[str, tuple[dict[str, Any], float | None]] = {
    "default": ({}, None),
    "transfer0": ({}, 0.0),
    "full": ({"tune_rows": None, "n_iter_no_change": None}, None),
}
DATASETS = ("spambase", "mushroom", "magic", "letter")
MULTICLASS = ("landsat",)
SHOWN = 16  # per-problem arrays longer than this are summarized by their range


def values(v: Any) -> Any:
    """A fitted hyperparameter for the JSON: a float, a short list, or the range of a long array."""
    a = np.atleast_1d(np.asarray(v, dtype=np.float64))
    if a.size == 1:
        return float(a[0])
    if a.size <= SHOWN:
        return [float(x) for x in a]
    return {"n": int(a.size), "min": float(a.min()), "median": float(np.median(a)), "max": float(a.max())}


def fit_one(est: Any, transfer: float | None, X: np.ndarray, y: np.ndarray) -> tuple[float, float]:
    """``est.fit(X, y)`` with GAMMA_TRANSFER set to ``transfer`` for its duration: (wall, CPU) seconds."""
    saved = fs_search.GAMMA_TRANSFER
    if transfer is not None:
        fs_search.GAMMA_TRANSFER = transfer
    try:
        wall, cpu, _ = fit_timed(est, X, y)
    finally:
        fs_search.GAMMA_TRANSFER = saved
    return wall, cpu


def search_record(est: Any) -> dict[str, Any]:
    """What the fit chose and how: gamma_, sigma2_, the sample's gamma, tuning rows, evaluations, early stops."""
    probs = est.problems_
    return {"gamma": values(est.gamma_), "sigma2": values(est.sigma2_),
            "sample_gamma": values([p["sample_gamma"] for p in probs]),
            "tune_rows": values([p["tune_rows"] for p in probs]), "n_rows": values([p["n_rows"] for p in probs]),
            "n_evals": values([p["n_evals"] for p in probs]),
            "stopped_early": int(sum(bool(p["stopped_early"]) for p in probs)), "n_problems": len(probs),
            "n_prototypes": int(est.n_prototypes_)}


def small_case(name: str, task: str, n_splits: int, contenders: Sequence[str],
               seeds: Sequence[int] = (0,)) -> list[dict[str, Any]]:
    """Every contender on every split of one data-store task, at every ``random_state`` of ``seeds``."""
    loaded = load_task(name, task)
    if isinstance(loaded, str):
        return [{"dataset": name, "task": task, "skipped": loaded}]
    X, y, info = loaded
    out = []
    for split, (tr, te) in enumerate(splits(y, n_splits)):
        for seed, c in ((seed, c) for seed in seeds for c in contenders):
            kw, transfer = CONTENDERS[c]
            est = FixedSizeLSSVC(random_state=seed, **kw)
            wall, cpu = fit_one(est, transfer, X[tr], y[tr])
            rec = {"dataset": name, "task": task, "split": split, "random_state": seed, "contender": c,
                   "n_train": int(tr.size),
                   "n_test": int(te.size), "d": info["d"], "n_classes": int(np.unique(y).size),
                   "test_accuracy": round(float(np.mean(est.predict(X[te]) == y[te])), 4),
                   "fit_s": round(wall, 2), "fit_cpu_s": round(cpu, 2), **search_record(est)}
            out.append(rec)
            print(json.dumps(rec), flush=True)
    return out


def child(args: argparse.Namespace) -> dict[str, Any]:
    """One fit on the synthetic set (in a child process)."""
    n, d, m, task = args.large_rows, args.d, args.m, args.task
    path = os.path.join(args.workdir, f"scale_{n}x{d}.f64")
    X = np.array(np.memmap(path, dtype=np.float64, mode="r", shape=(n, d)))
    if task == "classification":
        y = np.array(np.memmap(path + ".y", dtype=np.int8, mode="r", shape=(n,)))
    else:
        y = regression_targets(path, n, d)
    Xt, yt_cls, yt_reg = held_out_rows(d)
    kw, transfer = CONTENDERS[args.contender]
    est = (FixedSizeLSSVC if task == "classification" else FixedSizeLSSVR)(n_prototypes=m, random_state=args.seed,
                                                                          **kw)
    wall, cpu = fit_one(est, transfer, X, y)
    rec: dict[str, Any] = {"dataset": f"synthetic {n}x{d}", "task": task, "random_state": args.seed,
                           "contender": args.contender,
                           "n_train": n, "n_test": N_TEST, "d": d, "m": m,
                           "fit_s": round(wall, 2), "fit_cpu_s": round(cpu, 2),
                           "peak_rss_mib": round(peak_rss_mib(), 1)}
    pred = est.predict(Xt)
    if task == "classification":
        rec["test_accuracy"] = round(float(np.mean(pred == yt_cls)), 4)
    else:
        rec["test_mse"] = round(float(np.mean((pred - yt_reg) ** 2)), 4)
    rec["timings"] = {k: round(v, 2) for k, v in est.timings_.items()}
    p = est.problems_[0]
    rec.update(gamma=float(p["gamma"]), sigma2=float(p["sigma2"]), sample_gamma=float(p["sample_gamma"]),
               tune_rows=int(p["tune_rows"]), n_evals=int(p["n_evals"]), n_passes=int(p["n_passes"]),
               stopped_early=bool(p["stopped_early"]))
    return rec


def large_case(args: argparse.Namespace, save: Any = None) -> list[dict[str, Any]]:
    """``default`` and ``transfer0`` on the synthetic set, each fit in a child process (``save`` called with the
    records so far after each)."""
    os.makedirs(args.workdir, exist_ok=True)
    make_data(os.path.join(args.workdir, f"scale_{args.large_rows}x{args.d}.f64"), args.large_rows, args.d)
    out = []
    for task, seed, c in ((t, s, c) for t in args.large_tasks for s in args.seeds for c in ("default", "transfer0")):
        cmd = ["--child", "--task", task, "--contender", c, "--seed", str(seed), "--large-rows", str(args.large_rows),
               "--d", str(args.d), "--m", str(args.m), "--workdir", args.workdir]
        r = run_child(__spec__.name, cmd, capture_output=True, text=True, check=False)
        if r.returncode != 0:
            rec = {"dataset": f"synthetic {args.large_rows}x{args.d}", "task": task, "random_state": seed,
                   "contender": c, "failed": r.stderr.strip().splitlines()[-1:] or ["?"]}
        else:
            rec = json.loads(r.stdout.strip().splitlines()[-1])
        out.append(rec)
        print(json.dumps(rec), flush=True)
        if save is not None:
            save(out)
    return out


def every_row_reference() -> dict[str, Any]:
    """The search on every row at 10^6 x 20, m = 500, as ``peers_fixed_size_path_1m.json`` recorded it."""
    path = RESULTS / "peers_fixed_size_path_1m.json"
    if not path.exists():
        return {"file": path.name, "missing": True}
    data = json.loads(path.read_text())
    runs = [r for r in data.get("runs", []) if "test_accuracy" in r]
    return {"file": f"benchmarks/results/{path.name}", "commit": data.get("commit"),
            "runs": [{k: r.get(k) for k in ("task", "contender", "rows", "m", "source", "test_accuracy", "fit_s",
                                             "fit_cpu_s", "gamma", "sigma2", "n_evals", "n_passes")}
                     for r in runs]}


def table(records: Sequence[dict[str, Any]]) -> str:
    """The records as a plain-text table."""
    lines = [f"{'data set':<22} {'task':<14} {'sp':>2} {'contender':<10} {'n_train':>8} {'score':>8} {'wall s':>8} "
             f"{'cpu s':>8}  gamma / sigma2"]
    for r in records:
        if "skipped" in r or "failed" in r:
            lines.append(f"{r['dataset']:<22} {r['task']:<14} {r.get('skipped') or r.get('failed')}")
            continue
        score = r.get("test_accuracy", r.get("test_mse"))
        g, s = r["gamma"], r["sigma2"]
        gs = f"{g:.4g} / {s:.4g}" if isinstance(g, float) else "per problem"
        lines.append(f"{r['dataset']:<22} {r['task']:<14} {r.get('split', ''):>2} {r['contender']:<10} "
                     f"{r['n_train']:>8} {score:>8.4f} {r['fit_s']:>8.2f} {r['fit_cpu_s']:>8.2f}  {gs}")
    return "\n".join(lines)


def main(argv: Sequence[str] | None = None) -> int:
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--datasets", nargs="*", default=list(DATASETS), help="binary tasks of the data store")
    p.add_argument("--multiclass", nargs="*", default=list(MULTICLASS), help="multi-class tasks of the data store")
    p.add_argument("--splits", type=int, default=1)
    p.add_argument("--contenders", nargs="+", default=list(CONTENDERS), choices=list(CONTENDERS))
    p.add_argument("--seeds", type=int, nargs="+", default=[0], help="random_state of every fit")
    p.add_argument("--append", action="store_true", help="add the records to those of --out")
    p.add_argument("--large-rows", type=int, default=1_000_000, help="rows of the synthetic set (0: skip it)")
    p.add_argument("--large-tasks", nargs="*", default=["classification", "regression"])
    p.add_argument("--d", type=int, default=20)
    p.add_argument("--m", type=int, default=500)
    p.add_argument("--workdir", default=os.path.join(tempfile.gettempdir(), "svmopt_scale"))
    p.add_argument("--out", default=str(DEFAULT_JSON))
    p.add_argument("--child", action="store_true", help=argparse.SUPPRESS)
    p.add_argument("--task", default=None, help=argparse.SUPPRESS)
    p.add_argument("--contender", default=None, help=argparse.SUPPRESS)
    p.add_argument("--seed", type=int, default=0, help=argparse.SUPPRESS)
    args = p.parse_args(argv)
    if args.child:
        print(json.dumps(child(args)))
        return 0
    t0, load0 = time.perf_counter(), os.getloadavg()
    args.prior = None
    if args.append and args.out and os.path.exists(args.out):
        with open(args.out) as f:
            args.prior = json.load(f)
        for r in args.prior["runs"]:
            r.setdefault("random_state", 0)  # the first runs' default
    records: list[dict[str, Any]] = []
    for name in args.datasets:
        records += small_case(name, "binary", args.splits, args.contenders, args.seeds)
        write(args, argv, records, t0, load0)
    for name in args.multiclass:
        records += small_case(name, "multiclass", args.splits, args.contenders, args.seeds)
        write(args, argv, records, t0, load0)
    if args.large_rows > 0 and args.large_tasks:
        records += large_case(args, lambda done: write(args, argv, records + done, t0, load0))
    write(args, argv, records, t0, load0, complete=True)
    print(table(records))
    return 0


def write(args: argparse.Namespace, argv: Sequence[str] | None, records: list[dict[str, Any]], t0: float,
          load0: tuple[float, float, float], complete: bool = False) -> None:
    """The JSON of the records so far (rewritten after each data set, so that a cut run keeps what it measured)."""
    meta = {"command": command_line(__spec__.name, argv), "git HEAD": git_head(), "uncommitted": uncommitted(),
            "date": time.strftime("%Y-%m-%d %H:%M:%S UTC", time.gmtime()), "cpus": os.cpu_count(),
            "platform": platform.platform(), "GAMMA_TRANSFER": fs_search.GAMMA_TRANSFER,
            "TUNE_ROWS": fs_search.TUNE_ROWS, "N_ITER_NO_CHANGE": fs_search.N_ITER_NO_CHANGE,
            "load average (1, 5, 15 min) before": [round(x, 2) for x in load0],
            "load average (1, 5, 15 min) after": [round(x, 2) for x in os.getloadavg()],
            "wall_s": round(time.perf_counter() - t0, 1), "complete": complete}
    result = {"meta": meta, "runs": records, "every_row_search_1e6": every_row_reference()}
    if args.prior is not None:  # --append: the first run's meta, this one's among the appended
        result = {"meta": args.prior["meta"], "appended": [*args.prior.get("appended", []), meta],
                  "runs": [*args.prior["runs"], *records], "every_row_search_1e6": every_row_reference()}
    if args.out:
        with open(args.out, "w") as f:
            f.write(json.dumps(result, indent=1) + "\n")


if __name__ == "__main__":
    sys.exit(main())
