"""RampLossSVC's CCCP (a local method) against the exact MILP optimum of paper 001's Experiment 1.

What it measures
----------------
The committed Experiment 1 results of the paper-001 reproduction (``reproductions/results/ramp_exp1.csv``,
written by ``reproductions/ramp.py``) hold, per data set and ``C``, the exact method's (Algorithm 1 +
MILP by HiGHS) best objective, its wall time and final gap, and DAKS's objective and time, at the smallest budget ``B``
of the paper's Table 3, on the full data set preprocessed by the reproduction's ``make_preprocessor`` (drop constant
features, z-score) fitted on all rows, labels +1 for the loader's first class.

For each (data set, C) this script fits ``RampLossSVC(method="cccp", budget=B, C=C, random_state=0)`` (default
``n_init=3``) on the same preprocessed data and records its objective -- recomputed by
``svmopt.ramp.ramp_loss.ramp_loss_objective`` on that data, and checked against the estimator's ``objective_`` --
its wall (``time.perf_counter``) and CPU (``time.process_time``) seconds, and ``100 (cccp - exact) / exact``.

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

Subsamples (``--subsamples``, on by default; ``--only-subsamples`` runs only this part and merges it into the saved
JSON, keeping the first part's records): on the full data sets only two cases have a proved optimum, both with w = 0.
To see how close CCCP gets to a proved optimum with w != 0, this part draws, for each of ``--sub-datasets`` (SONAR,
IONO, Wdbc), ``--n-subsamples`` stratified random subsamples of ``--sub-rows`` rows (subsample ``k``:
``numpy.random.default_rng([--seed, k])``, per class ``round_half_up(n_rows * class share)`` rows drawn without
replacement), preprocesses each with ``make_preprocessor`` fitted on the subsample, uses B = the smallest budget of
Table 3 (``TABLE3``, i.e. ``budget_values``; capped at d) and, for C in ``--sub-C``, fits
``RampLossSVC(method="exact", budget=B, C=C, max_time=--sub-exact-time-limit, random_state=0)`` and
``RampLossSVC(method="cccp", budget=B, C=C, random_state=0)``; optionally (``--sub-daks``) DAKS
(``method="heuristic"``). Both objectives are recomputed by ``ramp_loss_objective`` on the same data. Only the cases
whose exact status is "optimal" enter the distribution of ``100 (cccp - opt) / opt``; the others are counted and
listed. A CCCP objective below a proved optimum by more than 1e-6 relative is flagged as a bug. Its records, meta and
summary are under the JSON key ``subsamples`` and its tables in the Markdown section "Subsamples".

Results: ``ramp_vs_milp.json`` (raw records) and ``ramp_vs_milp.md`` (tables and the distribution of the differences,
all computed from the JSON) in ``--out-dir``; ``--report-only`` rewrites the Markdown from the saved JSON::

    SVMOPT_DATA=/path/to/datasets python reproductions/ramp_vs_milp.py
"""

from __future__ import annotations

import argparse
import json
import math
import os
import platform
import sys
import time
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any

import numpy as np
import pandas as pd

import svmopt
from svmopt import RampLossSVC
from svmopt.ramp.ramp_loss import ramp_loss_objective

ROOT = Path(__file__).resolve().parents[1]
if str(ROOT) not in sys.path:  # the reproduction package and the benchmarks' helpers live at the repository root
    sys.path.insert(0, str(ROOT))

from benchmarks.studies.util import fit_timed, git_head  # noqa: E402

DEFAULT_CSV = ROOT / "reproductions" / "results" / "ramp_exp1.csv"
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
    from reproductions.ramp import TABLE3, load_paper_dataset, make_preprocessor

    X, y, _ = load_paper_dataset(label)
    X = make_preprocessor().fit_transform(X)
    return np.ascontiguousarray(X), y, min(min(TABLE3[label]), X.shape[1])


def timed(make: Callable[[], Any], X: np.ndarray, y: np.ndarray) -> tuple[Any, float, float, int]:
    """A new estimator fitted: it, wall / CPU seconds and the number of ConvergenceWarnings."""
    est = make()
    return (est, *fit_timed(est, X, y))


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
        from reproductions.ramp import make_model

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


# ------------------------------------------------------------------------------------------- subsamples
SUB_DATASETS = ("SONAR", "IONO", "Wdbc")
SUB_CS = (0.1, 1.0, 10.0)
#: a CCCP objective below a proved optimum by more than this relative amount is a bug
BELOW_OPT_TOL = 1e-6


def subsample_indices(y: np.ndarray, n_rows: int, rng: np.random.Generator) -> np.ndarray:
    """Sorted indices of a stratified random subsample: per class ``round_half_up(n_rows * share)`` rows (the last
    class takes the rest), drawn without replacement by ``rng``."""
    from reproductions.ramp import round_half_up

    classes = np.unique(y)
    idx, left = [], n_rows
    for i, c in enumerate(classes):
        members = np.flatnonzero(y == c)
        k = left if i == len(classes) - 1 else round_half_up(n_rows * members.size / y.size)
        idx.append(rng.choice(members, size=k, replace=False))
        left -= k
    return np.sort(np.concatenate(idx))


def _fit_record(est: Any, wall: float, cpu: float, nconv: int, X: np.ndarray, y: np.ndarray, C: float) -> dict:
    obj = ramp_loss_objective(X, y, est.coef_, float(np.ravel(est.intercept_)[0]), C)
    gap = float(getattr(est, "mip_gap_", np.nan))
    return {"objective": obj, "objective_attr": float(est.objective_), "wall_s": wall, "cpu_s": cpu,
            "status": str(est.status_), "gap": gap if math.isfinite(gap) else None,
            "n_selected": int(np.size(est.selected_features_)), "convergence_warnings": nconv}


def run_subsamples(datasets: Sequence[str], n_subsamples: int, n_rows: int, Cs: Sequence[float], seed: int,
                   exact_time_limit: float, daks_time_limit: float | None,
                   log: Callable[[str], None] = print,
                   checkpoint: Callable[[list[dict[str, Any]]], None] | None = None) -> list[dict[str, Any]]:
    """One record per (data set, subsample, C): exact, CCCP (and DAKS) on the same preprocessed subsample."""
    from reproductions.ramp import TABLE3, load_paper_dataset, make_preprocessor

    out: list[dict[str, Any]] = []
    for label in datasets:
        X_all, y_all, _ = load_paper_dataset(label)
        for k in range(n_subsamples):
            idx = subsample_indices(y_all, n_rows, np.random.default_rng([seed, k]))
            X = np.ascontiguousarray(make_preprocessor().fit_transform(X_all[idx]))
            y = y_all[idx]
            B = min(min(TABLE3[label]), X.shape[1])
            for C in Cs:
                rec: dict[str, Any] = {"dataset": label, "subsample": k, "seed": [seed, k], "C": float(C), "B": B,
                                       "n": int(X.shape[0]), "d": int(X.shape[1]), "n_pos": int(np.sum(y == 1))}
                rec["exact"] = _fit_record(*timed(lambda C=C, B=B: RampLossSVC(
                    method="exact", budget=B, C=C, max_time=exact_time_limit, random_state=0), X, y), X, y, C)
                rec["cccp"] = _fit_record(*timed(lambda C=C, B=B: RampLossSVC(
                    method="cccp", budget=B, C=C, random_state=0), X, y), X, y, C)
                if daks_time_limit:
                    rec["daks"] = _fit_record(*timed(lambda C=C, B=B: RampLossSVC(
                        method="heuristic", budget=B, C=C, max_time=daks_time_limit, random_state=0), X, y),
                        X, y, C)
                rec["proved"] = rec["exact"]["status"] == "optimal"
                eo = rec["exact"]["objective"]
                rec["diff_pct"] = rel_diff(rec["cccp"]["objective"], eo)
                rec["diff_daks_pct"] = rel_diff(rec["daks"]["objective"], eo) if "daks" in rec else None
                rec["speed_ratio"] = rec["exact"]["wall_s"] / rec["cccp"]["wall_s"]
                out.append(rec)
                msg = (f"{label} k={k} C={C:g} B={B} d={X.shape[1]}: exact {eo:.6g} ({rec['exact']['status']}) in "
                       f"{rec['exact']['wall_s']:.2f} s; cccp {rec['cccp']['objective']:.6g} in "
                       f"{rec['cccp']['wall_s']:.3f} s; diff {rec['diff_pct']:+.3f}%")
                if rec["proved"] and rec["diff_pct"] < -100 * BELOW_OPT_TOL:
                    msg += "  *** CCCP BELOW THE PROVED OPTIMUM: BUG ***"
                log(msg)
                if checkpoint is not None:
                    checkpoint(out)
    return out


def summarize_subsamples(records: Sequence[dict[str, Any]]) -> dict[str, Any]:
    proved = [r for r in records if r["proved"]]
    dist = distribution(r["diff_pct"] for r in proved)
    per_ds: dict[str, dict[str, int]] = {}
    for r in records:
        d = per_ds.setdefault(r["dataset"], {"cases": 0, "proved": 0})
        d["cases"] += 1
        d["proved"] += int(r["proved"])
    within2 = dist["within"][THRESHOLD_LABELS[2]] if dist["n"] else 0
    return {
        "cases": len(records), "proved": len(proved), "not_proved": len(records) - len(proved), "per_dataset": per_ds,
        "diff_vs_optimum": dist,
        "exactly_equal": sum(r["diff_pct"] <= 100 * BELOW_OPT_TOL for r in proved),
        "headline": f"CCCP within 2% of the proved optimum on {within2} of {len(proved)} proved cases",
        "speed_ratio": _ratio_summary(r["speed_ratio"] for r in proved),
        "speed_ratio_all": _ratio_summary(r["speed_ratio"] for r in records),
        "diff_daks_vs_optimum": distribution(r["diff_daks_pct"] for r in proved if r.get("diff_daks_pct") is not None),
        "not_proved_cases": [f"{r['dataset']} k={r['subsample']} C={r['C']:g} ({r['exact']['status']}, diff vs "
                             f"incumbent {r['diff_pct']:+.3f}%)" for r in records if not r["proved"]],
        "below_proved_optimum": [f"{r['dataset']} k={r['subsample']} C={r['C']:g}: {r['diff_pct']:+.6f}%"
                                 for r in proved if r["diff_pct"] < -100 * BELOW_OPT_TOL],
        "objective_attr_mismatch": [f"{r['dataset']} k={r['subsample']} C={r['C']:g} {m}" for r in records
                                    for m in ("exact", "cccp", "daks") if m in r
                                    and abs(r[m]["objective"] - r[m]["objective_attr"])
                                    > 1e-6 * max(1.0, abs(r[m]["objective"]))],
    }


def markdown_subsamples(sub: dict[str, Any]) -> list[str]:
    records, s, meta = sub["records"], sub["summary"], sub["meta"]
    L = ["", "## Subsamples: CCCP vs proved optima with w != 0", "",
         "Stratified random subsamples of the data sets (see the script's docstring), preprocessed on the subsample, "
         "B = the smallest budget of Table 3; the exact MILP and CCCP fit the same data, objectives recomputed by "
         "`ramp_loss_objective`. Differences `100 (cccp - exact) / exact`; only cases the exact method proved optimal "
         "enter the distribution. CCCP is a local method: its objective is never claimed optimal.", ""]
    L += [f"* {k}: {v}" for k, v in meta.items()]
    L += ["", f"Proved optimal: **{s['proved']} of {s['cases']}** cases ("
          + ", ".join(f"{k}: {v['proved']}/{v['cases']}" for k, v in s["per_dataset"].items()) + ").", ""]
    has_daks = any("daks" in r for r in records)
    head = ("| data set | subsample | C | B | n x d | exact status | exact obj. | exact wall s | exact CPU s | "
            "CCCP obj. | CCCP wall s | CCCP CPU s | diff % | speed ratio exact/CCCP | exact # features | "
            "CCCP # features |")
    sep = "|---|---:|---:|---:|---|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|"
    if has_daks:
        head += " DAKS obj. | DAKS s | DAKS diff % |"
        sep += "---:|---:|---:|"
    L += [head, sep]
    for r in records:
        e, c = r["exact"], r["cccp"]
        row = (f"| {r['dataset']} | {r['subsample']} | {r['C']:g} | {r['B']} | {r['n']} x {r['d']} | {e['status']} | "
               f"{_g(e['objective'])} | {e['wall_s']:.2f} | {e['cpu_s']:.2f} | {_g(c['objective'])} | "
               f"{c['wall_s']:.3f} | {c['cpu_s']:.3f} | {_pct(r['diff_pct'])} | {r['speed_ratio']:.3g} | "
               f"{e['n_selected']} | {c['n_selected']} |")
        if has_daks:
            dk = r.get("daks", {})
            row += f" {_g(dk.get('objective'))} | {_g(dk.get('wall_s'), '{:.2f}')} | {_pct(r.get('diff_daks_pct'))} |"
        L.append(row)
    L += ["", "Distribution over the proved cases:", ""]
    L += _dist_lines("CCCP vs the proved optimum", s["diff_vs_optimum"])
    L.append(f"* **{s['headline']}**; CCCP's objective equal to the optimum (within 1e-6 relative): "
             f"{s['exactly_equal']}/{s['proved']}.")
    L.append(_ratio_line("speed ratio exact wall / CCCP wall, proved cases", s["speed_ratio"]))
    L.append(_ratio_line("speed ratio exact wall / CCCP wall, all cases (time-limited exact runs included)",
                         s["speed_ratio_all"]))
    if has_daks:
        L += _dist_lines("DAKS vs the proved optimum", s["diff_daks_vs_optimum"])
    L += ["", f"Not proved within the time limit (excluded from the distribution; diff against the exact incumbent): "
          f"{'; '.join(s['not_proved_cases']) or 'none'}.", ""]
    below = s["below_proved_optimum"]
    L.append(f"* CCCP below a proved optimum by more than {BELOW_OPT_TOL:g} relative: "
             + (f"**YES -- A BUG: {'; '.join(below)}**" if below else "in no case") + ".")
    L.append(f"* `objective_` differs from `ramp_loss_objective` on the same data: "
             f"{', '.join(s['objective_attr_mismatch']) or 'in no case'}.")
    return L


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


def markdown(records: Sequence[dict[str, Any]], summary: dict[str, Any], meta: dict[str, Any],
             subsamples: dict[str, Any] | None = None) -> str:
    L = ["# RampLossSVC: CCCP vs the exact MILP (paper 001, Experiment 1 cases)", "",
         "Generated by `reproductions/ramp_vs_milp.py` from `ramp_vs_milp.json`; see the script's docstring for the "
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
    if subsamples:
        L += markdown_subsamples(subsamples)
    return "\n".join(L) + "\n"


# ------------------------------------------------------------------------------------------------- main
def select_cases(cases: Sequence[dict[str, Any]], scope: str, max_d: int, datasets: Sequence[str] | None,
                 only: Sequence[str] | None) -> list[dict[str, Any]]:
    """``only``: ``"label:C"`` strings; else the proved cases and (scope ``all``) the unproved ones of data sets
    with at most ``max_d`` features (from the reproduction's datasets CSV)."""
    if only:
        keys = {(s.split(":")[0], float(s.split(":")[1])) for s in only}
        return [c for c in cases if (c["dataset"], c["C"]) in keys]
    dims = {}
    ds_csv = ROOT / "reproductions" / "results" / "ramp_datasets.csv"
    if ds_csv.is_file():
        dims = {r.dataset: int(r.d) for r in pd.read_csv(ds_csv).itertuples()}
    out = []
    for c in cases:
        if datasets and c["dataset"] not in datasets:
            continue
        if c["proved"] or (scope == "all" and dims.get(c["dataset"], 10**9) <= max_d):
            out.append(c)
    return sorted(out, key=lambda c: (not c["proved"], c["dataset"], c["C"]))


def _write(out_dir: Path, payload: dict[str, Any]) -> None:
    out_dir.mkdir(parents=True, exist_ok=True)
    (out_dir / "ramp_vs_milp.json").write_text(json.dumps(payload, indent=1) + "\n")
    (out_dir / "ramp_vs_milp.md").write_text(markdown(payload["records"], payload["summary"], payload["meta"],
                                                      payload.get("subsamples")))


def _env_meta() -> dict[str, Any]:
    return {"OMP_NUM_THREADS": os.environ.get("OMP_NUM_THREADS", "unset"), "CPUs": os.cpu_count(),
            "svmopt": svmopt.__version__, "git HEAD": git_head(),
            "python / numpy": f"{platform.python_version()} / {np.__version__}", "machine": platform.machine()}


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
    sub = ap.add_argument_group("subsamples")
    sub.add_argument("--subsamples", action=argparse.BooleanOptionalAction, default=True,
                     help="run the subsample part (default: on)")
    sub.add_argument("--only-subsamples", action="store_true",
                     help="run only the subsample part and merge it into the saved --out-dir/ramp_vs_milp.json")
    sub.add_argument("--sub-datasets", nargs="+", default=list(SUB_DATASETS))
    sub.add_argument("--n-subsamples", type=int, default=4)
    sub.add_argument("--sub-rows", type=int, default=60)
    sub.add_argument("--sub-C", type=float, nargs="+", default=list(SUB_CS))
    sub.add_argument("--seed", type=int, default=0, help="subsample k uses numpy.random.default_rng([seed, k])")
    sub.add_argument("--sub-exact-time-limit", type=float, default=60.0)
    sub.add_argument("--sub-daks-time-limit", type=float, default=0.0, help="> 0: also fit DAKS with this limit")
    sub.add_argument("--sub-note", action="append", default=[], help="a line added to the subsample section")
    args = ap.parse_args(argv)
    if args.report_only:
        saved = json.loads((args.out_dir / "ramp_vs_milp.json").read_text())
        (args.out_dir / "ramp_vs_milp.md").write_text(markdown(saved["records"], saved["summary"], saved["meta"],
                                                               saved.get("subsamples")))
        return 0
    if not os.environ.get("SVMOPT_DATA"):
        print("warning: SVMOPT_DATA is unset; the loaders use their default data home", file=sys.stderr)
    command = "python " + " ".join([os.path.relpath(__file__), *(argv if argv is not None else sys.argv[1:])])
    t0 = time.perf_counter()

    def log(msg: str) -> None:
        print(f"[{time.perf_counter() - t0:7.1f} s] {msg}", flush=True)

    if args.only_subsamples:
        payload = json.loads((args.out_dir / "ramp_vs_milp.json").read_text())
    else:
        cases = select_cases(load_cases(args.csv), args.scope, args.max_d, args.datasets, args.cases)
        records = run_study(cases, args.rerun_exact, args.exact_time_limit, log=log)
        meta = {"command": command, "CSV": os.path.relpath(args.csv, ROOT), "scope": args.scope,
                "max d (unproved cases)": args.max_d,
                "exact rerun": f"{'yes' if args.rerun_exact else 'no'}, time limit {args.exact_time_limit:g} s",
                **_env_meta(), "total run time": f"{time.perf_counter() - t0:.1f} s"}
        for i, note in enumerate(args.note):
            meta[f"note {i + 1}"] = note
        payload = {"meta": meta, "records": records, "summary": summarize(records)}
        _write(args.out_dir, payload)
    if args.subsamples or args.only_subsamples:
        t1 = time.perf_counter()
        smeta = {"command": command, "data sets": ", ".join(args.sub_datasets), "subsamples per data set":
                 args.n_subsamples, "rows per subsample": args.sub_rows,
                 "C": ", ".join(f"{c:g}" for c in args.sub_C), "seed": f"default_rng([{args.seed}, k])",
                 "exact time limit": f"{args.sub_exact_time_limit:g} s",
                 "DAKS": f"time limit {args.sub_daks_time_limit:g} s" if args.sub_daks_time_limit else "not run",
                 **_env_meta()}
        for i, note in enumerate(args.sub_note):
            smeta[f"note {i + 1}"] = note

        def checkpoint(recs: list[dict[str, Any]], final: bool = False) -> None:
            m = dict(smeta, **{"total run time": f"{time.perf_counter() - t1:.1f} s" + ("" if final else
                                                                                         " (incomplete)")})
            payload["subsamples"] = {"meta": m, "records": recs, "summary": summarize_subsamples(recs)}
            _write(args.out_dir, payload)

        recs = run_subsamples(args.sub_datasets, args.n_subsamples, args.sub_rows, args.sub_C, args.seed,
                              args.sub_exact_time_limit, args.sub_daks_time_limit or None, log=log,
                              checkpoint=checkpoint)
        checkpoint(recs, final=True)
        s = payload["subsamples"]["summary"]
        log(f"subsamples: {s['headline']}; proved {s['proved']}/{s['cases']}; below optimum: "
            f"{s['below_proved_optimum'] or 'none'}")
    print(f"total {time.perf_counter() - t0:.1f} s; wrote {args.out_dir / 'ramp_vs_milp.md'}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
