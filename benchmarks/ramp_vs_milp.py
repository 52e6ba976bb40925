"""RampLossSVC's CCCP (a local method) against the exact MILP optimum of paper 001's Experiment 1.

What it measures
----------------
The committed Experiment 1 results of the paper-001 reproduction (``reproductions/results/baldomero_naranjo_exp1.csv``,
written by ``reproductions/baldomero_naranjo.py``) hold, per data set and ``C``, the exact method's (Algorithm 1 +
MILP by HiGHS) best objective, its wall time and final gap, and DAKS's objective and time, at the smallest budget ``B``
of the paper's Table 3, on the full data set preprocessed by the reproduction's ``make_preprocessor`` (drop constant
features, z-score) fitted on all rows, labels +1 for the loader's first class.

For each (data set, C) this script fits ``RampLossSVC(method="cccp", budget=B, C=C, random_state=0)`` (default
``n_init=3``) on the same preprocessed data and records its objective -- recomputed by
``svmopt.ramp_svc.ramp_loss_objective`` on that data, and checked against the estimator's ``objective_`` -- its wall
(``time.perf_counter``) and CPU (``time.process_time``) seconds, and ``100 (cccp - exact) / exact``.

Two groups of cases:

* **proved**: every (data set, C) where an exact run of the CSV proved optimality (``status == "optimal"``, gap 0).
  The exact objective is then the optimum, so the difference measures how far CCCP's local solution is from it.
  With ``--rerun-exact`` (default) the exact method (the reproduction's own ``make_model("RL-FS-M",
  method="exact")``, ``--exact-time-limit`` seconds) is also rerun here on the same data, which (a) checks that the
  CSV's optimum is matched under this preprocessing and (b) gives an exact time measured on the same machine as the
  CCCP time, used for the speed ratio ``exact_time / cccp_time``.
* **unproved** (``--scope all``, the default): the other (data set, C) rows, on the data sets with at most
  ``--max-d`` features (CCCP takes one to several minutes per fit on the gene-expression sets, beyond this script's
  budget). The exact runs there stopped at their time limit with a positive gap, so their objective is only an
  incumbent; the difference is reported against that incumbent and against the best objective any run of the CSV
  found (exact or DAKS). A negative difference means CCCP found a lower objective than the time-limited runs. The
  exact time there is the CSV's (its time limit), from another run on another day.

Results: ``ramp_vs_milp.json`` (raw records) and ``ramp_vs_milp.md`` (tables and the distribution of the differences,
all computed from the JSON) in ``--out-dir``; ``--report-only`` rewrites the Markdown from the saved JSON::

    SVMOPT_DATA=/path/to/datasets python benchmarks/ramp_vs_milp.py
"""

from __future__ import annotations

import argparse
import json
import math
import os
import platform
import subprocess
import sys
import time
import warnings
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any

import numpy as np
import pandas as pd
from sklearn.exceptions import ConvergenceWarning

import svmopt
from svmopt import RampLossSVC
from svmopt.ramp_svc import ramp_loss_objective

ROOT = Path(__file__).resolve().parents[1]
if str(ROOT) not in sys.path:  # the reproduction package lives at the repository root
    sys.path.insert(0, str(ROOT))

DEFAULT_CSV = ROOT / "reproductions" / "results" / "baldomero_naranjo_exp1.csv"
#: thresholds (%) of the distribution: cases whose difference is at most this (equal or lower objective included);
#: "0%" is +0.001%, the precision of the CSV's 6 significant digits
THRESHOLDS = (0.001, 1.0, 2.0, 5.0)
THRESHOLD_LABELS = ("<= +0.001% (0%)", "<= +1%", "<= +2%", "<= +5%")


# ------------------------------------------------------------------------------------------------ cases
def _row_dict(r: pd.Series) -> dict[str, Any]:
    gap = float(r["gap"]) if pd.notna(r["gap"]) else None
    inf = gap is not None and math.isinf(gap)
    return {"objective": float(r["ramp_objective"]), "time_s": float(r["time"]), "status": str(r["status"]),
            "gap": None if inf else gap, "gap_inf": inf,
            "time_limit": float(r["time_limit"]), "series": str(r["series"]),
            "dominated_fixing": str(r["dominated_fixing"]), "highs": str(r["highs"])}


def load_cases(csv: Path) -> list[dict[str, Any]]:
    """One record per (data set, C) of the CSV: B, the reference exact run, the best DAKS run, the best known objective.

    Reference exact run: the fastest run with ``status == "optimal"`` when there is one (then ``proved``), otherwise
    the run with the lowest objective (then the smaller gap, then the shorter time). DAKS: the run with the lowest
    objective (then the shorter time).
    """
    df = pd.read_csv(csv)
    out = []
    for (label, C), g in df.groupby(["dataset", "C"], sort=False):
        ex, he = g[g["method"] == "exact"], g[g["method"] == "heuristic"]
        ex = ex[ex["ramp_objective"].notna()]
        if ex.empty:
            continue
        opt = ex[ex["status"] == "optimal"]
        if not opt.empty:
            ref = opt.sort_values("time").iloc[0]
        else:
            ref = ex.assign(_g=ex["gap"].fillna(np.inf)).sort_values(["ramp_objective", "_g", "time"]).iloc[0]
        daks = None
        he = he[he["ramp_objective"].notna()]
        if not he.empty:
            daks = _row_dict(he.sort_values(["ramp_objective", "time"]).iloc[0])
        out.append({"dataset": str(label), "C": float(C), "B": int(g["B"].iloc[0]), "n": int(g["n"].iloc[0]),
                    "proved": not opt.empty, "exact_csv": _row_dict(ref),
                    "exact_csv_runs": len(ex), "daks_csv": daks,
                    "best_known_csv": float(g["ramp_objective"].min())})
    return out


# ---------------------------------------------------------------------------------------------- fitting
def load_prepared(label: str) -> tuple[np.ndarray, np.ndarray, int]:
    """The reproduction's Experiment-1 data: ``make_preprocessor`` fitted on all rows, y in {-1, +1}; and B."""
    from reproductions.baldomero_naranjo import TABLE3, load_paper_dataset, make_preprocessor

    X, y, _ = load_paper_dataset(label)
    X = make_preprocessor().fit_transform(X)
    return np.ascontiguousarray(X), y, min(min(TABLE3[label]), X.shape[1])


def timed(make: Callable[[], Any], X: np.ndarray, y: np.ndarray) -> tuple[Any, float, float, int]:
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always", ConvergenceWarning)
        wall0, cpu0 = time.perf_counter(), time.process_time()
        est = make().fit(X, y)
        wall, cpu = time.perf_counter() - wall0, time.process_time() - cpu0
    return est, wall, cpu, sum(issubclass(w.category, ConvergenceWarning) for w in caught)


def rel_diff(value: float, ref: float) -> float:
    """``100 (value - ref) / ref`` (%)."""
    return 100.0 * (value - ref) / ref


def run_case(case: dict[str, Any], X: np.ndarray, y: np.ndarray, B: int, rerun_exact: bool,
             exact_time_limit: float) -> dict[str, Any]:
    C = case["C"]
    rec = dict(case)
    rec["B_here"] = B
    rec["d"] = int(X.shape[1])
    est, wall, cpu, nconv = timed(lambda: RampLossSVC(C=C, budget=B, method="cccp", random_state=0), X, y)
    obj = ramp_loss_objective(X, y, est.coef_, float(np.ravel(est.intercept_)[0]), C)
    rec["cccp"] = {"objective": obj, "objective_attr": float(est.objective_), "wall_s": wall, "cpu_s": cpu,
                   "status": str(est.status_), "n_iter": int(np.sum(est.n_iter_)),
                   "n_selected": int(np.size(est.selected_features_)), "n_outliers": int(np.size(est.outliers_)),
                   "convergence_warnings": nconv}
    rec["diff_vs_exact_pct"] = rel_diff(obj, case["exact_csv"]["objective"])
    rec["diff_vs_best_known_pct"] = rel_diff(obj, case["best_known_csv"])
    rec["diff_vs_daks_pct"] = rel_diff(obj, case["daks_csv"]["objective"]) if case["daks_csv"] else None
    if rerun_exact:
        from reproductions.baldomero_naranjo import make_model

        ex, ewall, ecpu, _ = timed(lambda: make_model("RL-FS-M", C, B, n_features=X.shape[1],
                                                      time_limit=exact_time_limit, seed=0, method="exact"), X, y)
        eobj = ramp_loss_objective(X, y, ex.coef_, float(np.ravel(ex.intercept_)[0]), C)
        gap = float(getattr(ex, "mip_gap_", np.nan))
        rec["exact_here"] = {"objective": eobj, "wall_s": ewall, "cpu_s": ecpu, "status": str(ex.status_),
                             "gap": gap if math.isfinite(gap) else None, "time_limit": exact_time_limit,
                             "matches_csv_pct": rel_diff(eobj, case["exact_csv"]["objective"])}
        if ex.status_ == "optimal":
            rec["diff_vs_exact_here_pct"] = rel_diff(obj, eobj)
    if rec.get("exact_here", {}).get("status") == "optimal":
        rec["speed_ratio"], rec["speed_ratio_source"] = rec["exact_here"]["wall_s"] / wall, "exact rerun here"
    else:
        rec["speed_ratio"], rec["speed_ratio_source"] = case["exact_csv"]["time_s"] / wall, "exact time of the CSV"
    return rec


def run_study(cases: Sequence[dict[str, Any]], rerun_exact: bool, exact_time_limit: float,
              log: Callable[[str], None] = print) -> list[dict[str, Any]]:
    data: dict[str, tuple[np.ndarray, np.ndarray, int]] = {}
    out = []
    for case in cases:
        if case["dataset"] not in data:
            data[case["dataset"]] = load_prepared(case["dataset"])
        X, y, B = data[case["dataset"]]
        rec = run_case(case, X, y, B, rerun_exact and case["proved"], exact_time_limit)
        out.append(rec)
        msg = (f"{rec['dataset']} C={rec['C']:g} B={B} ({'proved' if rec['proved'] else 'unproved'}): cccp "
               f"{rec['cccp']['objective']:.6g} in {rec['cccp']['wall_s']:.2f} s, exact(CSV) "
               f"{rec['exact_csv']['objective']:.6g}, diff {rec['diff_vs_exact_pct']:+.3f}%")
        if "exact_here" in rec:
            e = rec["exact_here"]
            msg += f"; exact here {e['objective']:.6g} ({e['status']}) in {e['wall_s']:.2f} s"
        log(msg)
    return out


# ---------------------------------------------------------------------------------------------- summary
def distribution(diffs: Sequence[float]) -> dict[str, Any]:
    d = np.asarray(list(diffs), dtype=float)
    if d.size == 0:
        return {"n": 0}
    return {"n": int(d.size), "within": {lab: int(np.sum(d <= t)) for lab, t in zip(THRESHOLD_LABELS, THRESHOLDS,
                                                                                      strict=True)},
            "better": int(np.sum(d < -THRESHOLDS[0])), "worst": float(d.max()), "median": float(np.median(d)),
            "best": float(d.min())}


def _ratio_summary(r: Sequence[float]) -> dict[str, Any]:
    a = np.asarray(list(r), dtype=float)
    if a.size == 0:
        return {"n": 0}
    return {"n": int(a.size), "median": float(np.median(a)), "min": float(a.min()), "max": float(a.max()),
            "geometric_mean": float(np.exp(np.mean(np.log(a))))}


def summarize(records: Sequence[dict[str, Any]]) -> dict[str, Any]:
    proved = [r for r in records if r["proved"]]
    unproved = [r for r in records if not r["proved"]]
    return {
        "proved": {"diff_vs_exact": distribution(r["diff_vs_exact_pct"] for r in proved),
                   "speed_ratio": _ratio_summary(r["speed_ratio"] for r in proved)},
        "unproved": {"diff_vs_exact_incumbent": distribution(r["diff_vs_exact_pct"] for r in unproved),
                     "diff_vs_best_known": distribution(r["diff_vs_best_known_pct"] for r in unproved),
                     "diff_vs_daks": distribution(r["diff_vs_daks_pct"] for r in unproved
                                                  if r["diff_vs_daks_pct"] is not None),
                     "speed_ratio": _ratio_summary(r["speed_ratio"] for r in unproved)},
        "objective_attr_mismatch": [f"{r['dataset']} C={r['C']:g}" for r in records
                                    if abs(r["cccp"]["objective"] - r["cccp"]["objective_attr"])
                                    > 1e-6 * max(1.0, abs(r["cccp"]["objective"]))],
        "below_proved_optimum": [f"{r['dataset']} C={r['C']:g}" for r in proved
                                 if r["diff_vs_exact_pct"] < -THRESHOLDS[0]],
    }


# ------------------------------------------------------------------------------------------------ report
def _g(x: float | None, fmt: str = "{:.6g}") -> str:
    return "–" if x is None or (isinstance(x, float) and math.isnan(x)) else fmt.format(x)


def _pct(x: float | None) -> str:
    return _g(x, "{:+.3f}")


def _gap(e: dict[str, Any]) -> str:
    return "inf" if e.get("gap_inf") else _g(e.get("gap"), "{:.4f}")


def _dist_lines(title: str, dist: dict[str, Any]) -> list[str]:
    if not dist.get("n"):
        return [f"* {title}: no cases."]
    within = ", ".join(f"{k}: {v}/{dist['n']}" for k, v in dist["within"].items())
    return [f"* {title} ({dist['n']} cases), cases with difference {within}; lower than the reference (< -0.001%): "
            f"{dist['better']}/{dist['n']}; median {dist['median']:+.3f}%, worst (largest) {dist['worst']:+.3f}%, "
            f"best (smallest) {dist['best']:+.3f}%."]


def _ratio_line(title: str, s: dict[str, Any]) -> str:
    if not s.get("n"):
        return f"* {title}: no cases."
    return (f"* {title} ({s['n']} cases): median {s['median']:.3g}x, geometric mean {s['geometric_mean']:.3g}x, "
            f"min {s['min']:.3g}x, max {s['max']:.3g}x.")


def markdown(records: Sequence[dict[str, Any]], summary: dict[str, Any], meta: dict[str, Any]) -> str:
    L = ["# RampLossSVC: CCCP vs the exact MILP (paper 001, Experiment 1 cases)", "",
         "Generated by `benchmarks/ramp_vs_milp.py` from `ramp_vs_milp.json`; see the script's docstring for the "
         "protocol. CCCP returns a local solution (`status_ = \"local\"`); nothing here claims it is optimal. "
         "Differences are `100 (cccp - reference) / reference` of the ramp-loss objective "
         "`||w||_1 + C sum_i min(2, max(0, 1 - y_i f(x_i)))` (lower is better; positive = CCCP worse).", ""]
    L += [f"* {k}: {v}" for k, v in meta.items()]
    proved = [r for r in records if r["proved"]]
    unproved = [r for r in records if not r["proved"]]
    L += ["", "## Cases where an exact run proved optimality", ""]
    if proved:
        L += ["The CSV's exact objective is the optimum. `exact here`: the exact method rerun by this script on the "
              "same data (a check that the CSV's optimum is matched under this preprocessing, and the time used for "
              "the speed ratio).", "",
              "| data set | C | B | n x d | exact obj. (CSV) | exact time CSV s | exact here obj. | status | "
              "exact here s | CCCP obj. | CCCP wall s | CCCP CPU s | diff vs optimum % | DAKS obj. (CSV) | "
              "DAKS s (CSV) | speed ratio exact/CCCP | CCCP # features | CCCP # outliers |",
              "|---|---:|---:|---|---:|---:|---:|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|"]
        for r in proved:
            e, c, dk, h = r["exact_csv"], r["cccp"], r["daks_csv"] or {}, r.get("exact_here", {})
            L.append(f"| {r['dataset']} | {r['C']:g} | {r['B']} | {r['n']} x {r['d']} | {_g(e['objective'])} | "
                     f"{e['time_s']:.2f} | {_g(h.get('objective'))} | {h.get('status', '–')} | "
                     f"{_g(h.get('wall_s'), '{:.2f}')} | {_g(c['objective'])} | {c['wall_s']:.2f} | {c['cpu_s']:.2f} | "
                     f"{_pct(r['diff_vs_exact_pct'])} | {_g(dk.get('objective'))} | {_g(dk.get('time_s'), '{:.2f}')} | "
                     f"{r['speed_ratio']:.3g} | {c['n_selected']} | {c['n_outliers']} |")
    else:
        L.append("No case of the CSV has a proved optimum.")
    sp = summary["proved"]
    L += ["", "Distribution over these cases:", ""]
    L += _dist_lines("CCCP vs the proved optimum", sp["diff_vs_exact"])
    L.append(_ratio_line("speed ratio exact time / CCCP wall time", sp["speed_ratio"]))
    if unproved:
        L += ["", "## Cases without a proved optimum (exact runs stopped at their time limit)", "",
              "Reference: the exact run's incumbent (lowest objective over the CSV's exact runs; its gap and time are "
              "listed) and the best objective of any CSV run (exact or DAKS). These are not optima: a negative "
              "difference means CCCP found a lower objective than the time-limited runs. The exact time is the CSV's "
              "(from another run, under its time limit).", "",
              "| data set | C | B | n x d | exact incumbent (CSV) | gap | exact time s | DAKS obj. (CSV) | DAKS s | "
              "best known (CSV) | CCCP obj. | CCCP wall s | CCCP CPU s | diff vs exact % | diff vs DAKS % | "
              "diff vs best known % | speed ratio exact/CCCP |",
              "|---|---:|---:|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|"]
        for r in unproved:
            e, c, dk = r["exact_csv"], r["cccp"], r["daks_csv"] or {}
            L.append(f"| {r['dataset']} | {r['C']:g} | {r['B']} | {r['n']} x {r['d']} | {_g(e['objective'])} | "
                     f"{_gap(e)} | {e['time_s']:.2f} | {_g(dk.get('objective'))} | {_g(dk.get('time_s'), '{:.2f}')} | "
                     f"{_g(r['best_known_csv'])} | {_g(c['objective'])} | {c['wall_s']:.2f} | {c['cpu_s']:.2f} | "
                     f"{_pct(r['diff_vs_exact_pct'])} | {_pct(r['diff_vs_daks_pct'])} | "
                     f"{_pct(r['diff_vs_best_known_pct'])} | {r['speed_ratio']:.3g} |")
        su = summary["unproved"]
        L += ["", "Distribution over these cases:", ""]
        L += _dist_lines("CCCP vs the exact incumbent", su["diff_vs_exact_incumbent"])
        L += _dist_lines("CCCP vs DAKS", su["diff_vs_daks"])
        L += _dist_lines("CCCP vs the best known objective", su["diff_vs_best_known"])
        L.append(_ratio_line("speed ratio exact time (time-limited, CSV) / CCCP wall time", su["speed_ratio"]))
    L += ["", "## Checks", ""]
    L.append(f"* CCCP's `objective_` differs from `ramp_loss_objective` on the same data: "
             f"{', '.join(summary['objective_attr_mismatch']) or 'in no case'}.")
    L.append(f"* CCCP below a proved optimum (would mean the data do not match the CSV's): "
             f"{', '.join(summary['below_proved_optimum']) or 'in no case'}.")
    for r in proved:
        if "exact_here" in r:
            h = r["exact_here"]
            L.append(f"* {r['dataset']} C={r['C']:g}: exact rerun here {_g(h['objective'])} ({h['status']}), "
                     f"{h['matches_csv_pct']:+.4f}% from the CSV's optimum.")
    return "\n".join(L) + "\n"


# ------------------------------------------------------------------------------------------------- main
def _git_head() -> str:
    try:
        return subprocess.run(["git", "rev-parse", "HEAD"], capture_output=True, text=True, check=True,
                              cwd=ROOT).stdout.strip()
    except (OSError, subprocess.CalledProcessError):
        return "unknown"


def select_cases(cases: Sequence[dict[str, Any]], scope: str, max_d: int, datasets: Sequence[str] | None,
                 only: Sequence[str] | None) -> list[dict[str, Any]]:
    """``only``: ``"label:C"`` strings; else the proved cases and (scope ``all``) the unproved ones of data sets
    with at most ``max_d`` features (from the reproduction's datasets CSV)."""
    if only:
        keys = {(s.split(":")[0], float(s.split(":")[1])) for s in only}
        return [c for c in cases if (c["dataset"], c["C"]) in keys]
    dims = {}
    ds_csv = ROOT / "reproductions" / "results" / "baldomero_naranjo_datasets.csv"
    if ds_csv.is_file():
        dims = {r.dataset: int(r.d) for r in pd.read_csv(ds_csv).itertuples()}
    out = []
    for c in cases:
        if datasets and c["dataset"] not in datasets:
            continue
        if c["proved"] or (scope == "all" and dims.get(c["dataset"], 10**9) <= max_d):
            out.append(c)
    return sorted(out, key=lambda c: (not c["proved"], c["dataset"], c["C"]))


def main(argv: Sequence[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0],
                                 formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--csv", type=Path, default=DEFAULT_CSV, help="Experiment 1 results of the reproduction")
    ap.add_argument("--scope", choices=("proved", "all"), default="all")
    ap.add_argument("--max-d", type=int, default=300, help="largest d of the unproved cases' data sets")
    ap.add_argument("--datasets", nargs="+", default=None)
    ap.add_argument("--cases", nargs="+", default=None, metavar="LABEL:C", help="only these cases, e.g. Colon:0.01")
    ap.add_argument("--no-rerun-exact", dest="rerun_exact", action="store_false",
                    help="do not rerun the exact method on the proved cases")
    ap.add_argument("--exact-time-limit", type=float, default=150.0)
    ap.add_argument("--out-dir", type=Path, default=ROOT / "benchmarks" / "results")
    ap.add_argument("--note", action="append", default=[], help="a line added to the report's header")
    ap.add_argument("--report-only", action="store_true",
                    help="rewrite ramp_vs_milp.md from --out-dir/ramp_vs_milp.json (no fits)")
    args = ap.parse_args(argv)
    if args.report_only:
        saved = json.loads((args.out_dir / "ramp_vs_milp.json").read_text())
        (args.out_dir / "ramp_vs_milp.md").write_text(markdown(saved["records"], saved["summary"], saved["meta"]))
        return 0
    if not os.environ.get("SVMOPT_DATA"):
        print("warning: SVMOPT_DATA is unset; the loaders use their default data home", file=sys.stderr)
    cases = select_cases(load_cases(args.csv), args.scope, args.max_d, args.datasets, args.cases)
    t0 = time.perf_counter()
    records = run_study(cases, args.rerun_exact, args.exact_time_limit,
                        log=lambda msg: print(f"[{time.perf_counter() - t0:7.1f} s] {msg}", flush=True))
    total = time.perf_counter() - t0
    meta = {
        "command": "python " + " ".join([os.path.relpath(__file__), *(argv if argv is not None else sys.argv[1:])]),
        "CSV": os.path.relpath(args.csv, ROOT), "scope": args.scope, "max d (unproved cases)": args.max_d,
        "exact rerun": f"{'yes' if args.rerun_exact else 'no'}, time limit {args.exact_time_limit:g} s",
        "OMP_NUM_THREADS": os.environ.get("OMP_NUM_THREADS", "unset"), "CPUs": os.cpu_count(),
        "svmopt": svmopt.__version__, "git HEAD": _git_head(),
        "python / numpy": f"{platform.python_version()} / {np.__version__}", "machine": platform.machine(),
        "total run time": f"{total:.1f} s",
    }
    for i, note in enumerate(args.note):
        meta[f"note {i + 1}"] = note
    summary = summarize(records)
    args.out_dir.mkdir(parents=True, exist_ok=True)
    (args.out_dir / "ramp_vs_milp.json").write_text(
        json.dumps({"meta": meta, "records": records, "summary": summary}, indent=1) + "\n")
    (args.out_dir / "ramp_vs_milp.md").write_text(markdown(records, summary, meta))
    print(f"total {total:.1f} s; wrote {args.out_dir / 'ramp_vs_milp.md'}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
