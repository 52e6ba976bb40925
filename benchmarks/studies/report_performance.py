"""The generated tables of ``docs/performance.md`` and ``docs/scale.md``, each computed from the committed JSON in
``benchmarks/results``.

A table sits between ``<!-- generated: NAME -->`` and ``<!-- end generated -->``; the text between the markers is
what ``TABLES[NAME]`` (performance.md) or ``SCALE_TABLES[NAME]`` (scale.md) returns, so a table can only say what its
JSON says. From the repository root::

    python -m benchmarks.studies.report_performance           # rewrite the tables of both pages
    python -m benchmarks.studies.report_performance --check   # exit 1 where a table differs from its JSON

The figures the pages quote in their prose are checked by ``benchmarks.studies.doc_figures``.

Nothing here measures: rerun the study that wrote a JSON file (named under each table) to measure again.
"""

from __future__ import annotations

import argparse
import itertools
import json
import math
import re
import statistics
import sys
from collections.abc import Callable, Iterable, Sequence
from functools import partial
from pathlib import Path
from typing import Any

from benchmarks.studies import report_defaults, report_fixed_size_peers
from benchmarks.studies.util import RESULTS, ROOT

DOC = ROOT / "docs" / "performance.md"
SCALE_DOC = ROOT / "docs" / "scale.md"
MARKER = re.compile(r"(<!-- generated: (?P<name>[a-z0-9-]+) -->\n)(?P<body>.*?)(<!-- end generated -->)", re.S)


def load(name: str, results: Path) -> Any:
    return json.loads((results / name).read_text(encoding="utf-8"))


def source(*names: str, note: str = "") -> str:
    """The caption naming the JSON files a table comes from."""
    files = ", ".join(f"`benchmarks/results/{n}`" for n in names)
    return f"Generated from {files}{note}."


def row(cells: Iterable[object]) -> str:
    return "| " + " | ".join(str(c) for c in cells) + " |"


def header(*cells: str) -> list[str]:
    return [row(cells), "|" + "---|" * len(cells)]


def minus(text: str) -> str:
    """A signed figure with a typographic minus."""
    return text.replace("-", "−")


def span(values: Sequence[float], fmt: str = ".1f", unit: str = "") -> str:
    """``a-b`` over the values at ``fmt`` (one figure where both ends round alike)."""
    lo, hi = format(min(values), fmt), format(max(values), fmt)
    return f"{lo}{unit}" if lo == hi else f"{lo}-{hi}{unit}"


def thousands(n: int) -> str:
    return f"{n:,}"


def g3(x: float) -> str:
    """Three significant figures; integers with thousands separators from 1,000."""
    return f"{x:,.0f}" if abs(x) >= 1000 else f"{x:.3g}"


def commit(d: dict[str, Any]) -> str:
    return str(d.get("commit") or d.get("meta", {}).get("git HEAD") or "?")[:7]


def run_commit(meta: dict[str, Any]) -> str:
    """The commit a study ran at, and whether the library's files then differed from it."""
    dirty = meta.get("uncommitted changes")
    return f"commit {meta['git HEAD'][:7]}" + (f" with {len(dirty)} library files modified" if dirty else "")


# --------------------------------------------------------------------------------------------- kernels, core
def gram_one_thread(results: Path, m: int = 10_000) -> list[str]:
    data = load("gram_floor.json", results)
    recs = [r for r in data["records"] if r["part"] == "1 thread, CPU s" and r["m"] == m and "d" in r]
    out = [source("gram_floor.json", note=f" ({data['meta']['date']}, core variant {data['meta']['isa']}, minimum "
                                          f"over {data['meta']['rounds']} rounds)"), "",
           *header("m", "d", "kernel", "svmopt", "sklearn", "speed-up", "dsyrk", "map (NumPy)", "compute floor",
                   "svmopt / write floor", "svmopt / compute floor")]
    for r in recs:
        out.append(row([r["m"], r["d"], r["kernel"], f"{r['svmopt']:.3f} s", f"{r['sklearn']:.3f} s",
                        f"{r['sklearn'] / r['svmopt']:.1f}x", f"{r['dsyrk']:.3f} s", f"{r['map_numpy']:.3f} s",
                        f"{r['compute_floor']:.3f} s", f"{r['svmopt'] / r['write_floor']:.1f}",
                        f"{r['svmopt'] / r['compute_floor']:.2f}"]))
    floor = recs[0]["write_floor"]
    out.append(row([m, "-", "write floor (allocate + write m x m once)", f"{floor:.3f} s", "", "", "", "", "", "1.0",
                    ""]))
    return out


def gram_two_threads(results: Path) -> list[str]:
    data = load("gram_floor.json", results)
    out = [source("gram_floor.json", note=f" ({data['meta']['date']})"), "",
           *header("m", "d", "svmopt", "sklearn", "speed-up", "dsyrk", "exp (NumPy)", "write floor", "compute floor",
                   "svmopt / write floor", "svmopt / compute floor")]
    for r in (r for r in data["records"] if r["part"] == "2 threads, wall s"):
        def w(key: str, r: dict[str, Any] = r) -> str:
            return f"{r[key]['wall']:.3f} s ({r[key]['cpu'] / r[key]['wall']:.1f})"

        ours, write = r["svmopt"]["wall"], r["write"]["wall"]
        out.append(row([r["m"], r["d"], w("svmopt"), w("sklearn"), f"{r['sklearn']['wall'] / ours:.1f}x", w("dsyrk"),
                        w("exp"), w("write"), f"{r['compute_floor']:.3f} s", f"{ours / write:.1f}",
                        f"{ours / r['compute_floor']:.2f}"]))
    return out


def asv_history(results: Path, benchmarks: Sequence[str]) -> list[str]:
    """Every measured cell of the named asv benchmarks in the committed history, one column a commit (oldest first),
    milliseconds of wall time (asv's median of its samples)."""
    asv = results / "asv"
    names = json.loads((asv / "benchmarks.json").read_text(encoding="utf-8"))
    runs = sorted((json.loads(p.read_text(encoding="utf-8")) for p in asv.glob("*/*-*.json")), key=lambda r: r["date"])
    cells: dict[tuple[str, tuple[str, ...]], dict[str, float]] = {}
    for run in runs:
        for bench, res in run["results"].items():
            if bench.split(".", 1)[1] not in benchmarks or res[0] is None:
                continue
            for params, value in zip(itertools.product(*res[1]), res[0], strict=True):
                if value is not None and not math.isnan(value):
                    cells.setdefault((bench, params), {})[run["commit_hash"][:7]] = value
    measured = {c for by_commit in cells.values() for c in by_commit}
    commits = [r["commit_hash"][:7] for r in runs if r["commit_hash"][:7] in measured]
    order = {b: i for i, b in enumerate(benchmarks)}
    out = [source("asv/", note=" (the results of `asv run`, one file a commit; `asv.conf.json`'s `results_dir`)"), "",
           *header("benchmark", "parameters", *(f"{c} (ms)" for c in commits))]
    for (bench, params), by_commit in sorted(cells.items(), key=lambda kv: (order[kv[0][0].split(".", 1)[1]], kv[0])):
        labels = ", ".join(f"{k}={v.strip(chr(39))}" for k, v in zip(names[bench]["param_names"], params, strict=True))
        out.append(row([f"`{bench}`", labels, *(f"{1e3 * by_commit[c]:.3g}" if c in by_commit else "-"
                                               for c in commits)]))
    return out


# ------------------------------------------------------------------------------------------------- defaults
def defaults_row(results: Path, estimator: str) -> list[str]:
    data = load("defaults.json", results)
    sm = report_defaults.summary(data["records"], estimator)
    peer = report_defaults.peer_of(data["records"], estimator)
    worst = minus(f"{sm['worst_gap']:+.2f}")
    return [source("defaults.json", note=f" (commit {data['meta']['git_commit'][:7]}; the peer: {peer})"), "",
            *header("estimator (defaults)", "data sets", "mean gap to the peer (points)", "worst data set",
                    "mean fit, wall / CPU s", "peer's grid search, wall / CPU s", "failed fits"),
            row([estimator, sm["n_datasets"], minus(f"{sm['mean_gap']:+.2f}"),
                 f"{worst} ({sm['worst']})",
                 f"{sm['mean_fit_s']:.2f} / {sm['mean_fit_cpu_s']:.2f}",
                 f"{sm['mean_peer_s']:.2f} / {sm['mean_peer_cpu_s']:.2f}", f"{sm['n_failed']} of {sm['n_fits']}"])]


# --------------------------------------------------------------------------------------------------- robust
def robust_ipm_vs_highs(results: Path, key: str) -> list[str]:
    data = load("robust_ipm_vs_highs.json", results)
    meta = data.get("meta", {})
    threads = dict(zip(("OMP_NUM_THREADS", "OPENBLAS_NUM_THREADS"),
                       meta.get("OMP_NUM_THREADS / OPENBLAS_NUM_THREADS", ["unset", "unset"]), strict=True))
    when = (f"{meta['date']}, {run_commit(meta)}, load average {span(meta['load average before / after'])}"
            f" on the {meta['cpus']} cores, " if meta else "")
    one = ("one thread (" + ", ".join(f"{k}={v}" for k, v in threads.items()) + "), "
           if set(threads.values()) == {"1"} else "")
    out = [source("robust_ipm_vs_highs.json", note=f" ({when}{one}one process, back to back, kernel rows cached; ν = 1,"
                                                   " and the 5-value grid logspace(-3, 0, 5); "
                                                   "`python -m benchmarks.studies.robust_ipm_vs_highs`)"), "",
           *header("n, L", "IPM iterations (passes)", "IPM", "cutting planes", "HiGHS", "HiGHS / IPM",
                   "ν grid: IPM / cutting planes / HiGHS")]
    for r in data[key]:
        out.append(row([f"{r['n']:,}, {r['L']}", f"{r['ipm']['iters']} ({r['ipm']['passes']})",
                        f"{r['ipm']['wall']:.3f} s", f"{r['cp']['wall']:.2f} s", f"{r['highs']['wall']:.2f} s",
                        f"**{r['highs']['wall'] / r['ipm']['wall']:.1f}×**",
                        " / ".join(f"{r[k]['wall']:.2f} s" for k in ("ipm_grid", "cp_grid", "highs_grid"))]))
    return out


def robust_ipm_overhead(results: Path) -> list[str]:
    data = load("robust_ipm_overhead.json", results)
    meta = data["meta"]
    out = [source("robust_ipm_overhead.json", note=f" ({meta['date']}, commit {meta['old']} against {meta['new']})"),
           "", *header("n, L", f"before ({meta['old']})", f"after ({meta['new']})", "HiGHS (median)",
                       "HiGHS / IPM after (per round)")]
    for shape, s in data["summary"].items():
        n, L = (int(v) for v in shape.split("x"))
        out.append(row([f"{n:,}, {L}", f"{s['old_ipm_ms_median']:.1f} ms ({s['old_ipm_cpu_ms_median']:.1f} CPU-ms)",
                        f"{s['new_ipm_ms_median']:.1f} ms ({s['new_ipm_cpu_ms_median']:.1f})",
                        f"{s['highs_ms_median']:,.1f} ms",
                        f"**{s['highs_over_new']:.2f}×** ({span(s['new_ratio_per_round'], '.2f')})"]))
    return out


def robust_crossover(results: Path) -> list[str]:
    files = ("robust_ipm_crossover.json", "robust_ipm_crossover_L300.json")
    recs = [r for f in files for r in load(f, results)["records"]]
    rows, Ls = sorted({r["n"] for r in recs}), sorted({r["L"] for r in recs})
    out = [source(*files, note=" (magic; HiGHS's time over the interior point's, at ν = 1 and ν = 100)"), "",
           *header("n", *(f"L = {L}" for L in Ls))]
    for n in rows:
        cells = []
        for L in Ls:
            v = [r["highs_over_ipm"] for r in recs if r["n"] == n and r["L"] == L]
            cells.append(span(v, unit="×") if v else "—")
        out.append(row([thousands(n), *cells]))
    return out


def robust_crossover_sets(results: Path) -> list[str]:
    sets = ("adult", "shuttle", "letter")
    files = [f"robust_ipm_crossover_{s}.json" for s in sets]
    data = {s: load(f, results)["records"] for s, f in zip(sets, files, strict=True)}
    Ls = sorted({r["L"] for recs in data.values() for r in recs})
    out = [source(*files, note=" (HiGHS's time over the interior point's, at ν = 1 and ν = 100)"), "",
           *header("data set", "n", *(f"L = {L}" for L in Ls))]
    for s, recs in data.items():
        for n in sorted({r["n"] for r in recs}):
            out.append(row([s, thousands(n), *(span([r["highs_over_ipm"] for r in recs if r["n"] == n
                                                     and r["L"] == L], unit="×") for L in Ls)]))
    return out


# ----------------------------------------------------------------------------------------------- fixed size
PEERS_5390B7D = ("peers_fixed_size_1e6_m500.json", "peers_fixed_size_1e6_m1000_2000.json",
                 "peers_fixed_size_1e6_sources.json", "peers_fixed_size_1e5_memmap.json", "peers_fixed_size_250k.json")
PEERS_LATER = ("peers_fixed_size_500_rerun.json", "peers_fixed_size_1m_m1000_sklearn.json",
               "peers_fixed_size_1m_m1000_regression_rerun.json",
               "peers_fixed_size_1m_m1000_regression_interleaved.json",
               "peers_fixed_size_1m_m2000_svmopt.json", "peers_fixed_size_1m_random_prototypes.json",
               "peers_fixed_size_250k_rerun.json", "peers_fixed_size_250k_regression_cvskip.json",
               "peers_fixed_size_m2000_regression_sklearn_rows.json",
               "peers_fixed_size_250k_m2000_classification_sklearn.json")
PEERS_M2000 = ("peers_fixed_size_1m_m2000_svmopt.json", "peers_fixed_size_m2000_regression_sklearn_rows.json",
               "peers_fixed_size_250k_m2000_classification_sklearn.json")


def fixed_size_peers(results: Path) -> list[str]:
    files = [load(f, results) for f in PEERS_5390B7D]
    commits = sorted({commit(f) for f in files})
    return [source(*PEERS_5390B7D, note=f" (commit {', '.join(commits)}; "
                                        "`benchmarks.studies.report_fixed_size_peers.fixed_table`)"), "",
            *report_fixed_size_peers.fixed_table(files)]


def fixed_size_peers_later(results: Path) -> list[str]:
    """One row per results file, task, rows, m and contender: the median fit over the runs (their range), the pass
    over the file's floor, and the median fit against svmopt's median in the same file, task, rows and m."""
    out = [source("peers_fixed_size_*.json", note=" (the files named in the first column)"), "",
           *header("results file", "commit", "task", "rows", "m", "contender", "fit (median, range, runs)",
                   "CPU s (median)", "pass / floor", "against svmopt", "peak RSS", "test score")]
    for name in PEERS_LATER:
        f = load(name, results)
        groups: dict[tuple[str, int, int, str], list[dict[str, Any]]] = {}
        for r in f["runs"]:
            if "fit_s" in r:
                groups.setdefault((r["task"], r["rows"], r["m"], r["contender"]), []).append(r)
        for (task, n, m, who), runs in groups.items():
            fit = statistics.median(r["fit_s"] for r in runs)
            ours = groups.get((task, n, m, "svmopt"))
            floor = f["floor"].get(f"{n}x{m}", {})
            passes = [r["timings"]["tuning_and_fit"] for r in runs if "timings" in r]
            vs = (f"{fit / statistics.median(r['fit_s'] for r in ours):.1f}x" if ours and who != "svmopt" else "-")
            out.append(row([f"`{name.removeprefix('peers_fixed_size_').removesuffix('.json')}`", commit(f), task,
                            thousands(n), m, who,
                            f"{fit:.2f} s" + (f" ({span([r['fit_s'] for r in runs], '.2f', ' s')}, {len(runs)})"
                                              if len(runs) > 1 else ""),
                            f"{statistics.median(r['fit_cpu_s'] for r in runs):.1f}",
                            f"{statistics.median(passes) / floor['floor_s']:.2f} (dsyrk {floor['dsyrk_gflops']} "
                            "GFLOP/s)" if passes and floor else "-", vs,
                            f"{max(r['peak_rss_mib'] for r in runs):,.0f} MiB",
                            report_fixed_size_peers.score(runs[0])]))
    files = [load(f, results) for f in PEERS_M2000]
    return [*out, "", "Extrapolated where scikit-learn's pipeline did not run (`report_fixed_size_peers."
                      "extrapolated_lines` over " + ", ".join(f"`{n}`" for n in PEERS_M2000) + "):", "",
            *report_fixed_size_peers.extrapolated_lines(files, 1_000_000)]


def fixed_size_pass_floor(results: Path) -> list[str]:
    names = ("fixed_size_pass_floor.json", "fixed_size_pass_floor_m1000.json")
    out = [source(*names), "", *header("n, m", "round", "dsyrk", "floor", "classifier pass", "/ floor",
                                       "regressor pass", "/ floor")]
    for name in names:
        d = load(name, results)
        for i, r in enumerate(d["rounds"], 1):
            out.append(row([f"{d['n']:,}, {d['m']}", i, f"{r['dsyrk_gflops']:.1f} GFLOP/s", f"{r['floor_s']:.2f} s",
                            f"{r['classifier']['pass_s']:.2f} s", f"{r['classifier']['pass_over_floor']:.2f}",
                            f"{r['regressor']['pass_s']:.2f} s", f"{r['regressor']['pass_over_floor']:.2f}"]))
        med = {k: f"**{s['median']:.2f}** ({s['min']:.2f}-{s['max']:.2f})" for k, s in d["summary"].items()}
        out.append(row([f"{d['n']:,}, {d['m']}", "median (min-max)", "", "", "", med["classifier"], "",
                        med["regressor"]]))
    return out


CONTENDERS = {"svmopt-tuned": 'svmopt, statistics="auto"', "svmopt-tuned-features": 'svmopt, statistics="features"',
              "sklearn-tuned": "scikit-learn `Nystroem` + `RidgeClassifierCV`",
              "svmopt-path": 'svmopt, `gamma_search="path"`'}


def fixed_size_tuned(results: Path) -> list[str]:
    d = load("peers_fixed_size_tuned_5e4.json", results)
    out = [source("peers_fixed_size_tuned_5e4.json", note=f" (commit {commit(d)}, {d['runs'][0]['rows']:,} rows, "
                                                          f"m = {d['runs'][0]['m']})"), "",
           *header("contender", "evaluations", "fit", "peak RSS", "chosen γ, σ²", "test accuracy")]
    for r in d["runs"]:
        evals = f"{r['n_evals']} ({r['n_passes']} passes)" if "n_passes" in r else str(r["n_evals"])
        out.append(row([CONTENDERS[r["contender"]], evals, f"{r['fit_s']:.1f} s ({r['fit_cpu_s']:.1f} CPU-s)",
                        f"{r['peak_rss_mib']:,.0f} MiB", f"{g3(r['gamma'])}, {g3(r['sigma2'])}",
                        f"{100 * r['test_accuracy']:.2f} %"]))
    return out


def fixed_size_path(results: Path) -> list[str]:
    names = ("peers_fixed_size_path_50k.json", "peers_fixed_size_path_1m.json", "peers_fixed_size_path_1m_sources.json",
             "peers_fixed_size_path_1e5_memmap.json")
    out = [source(*names), "", *header("rows", "source", "contender", "commit", "(γ, σ²) evaluations",
                                       "passes over the data", "fit", "peak RSS", "chosen γ, σ²", "test accuracy")]
    for name in names:
        d = load(name, results)
        for r in d["runs"]:
            evals = f"{r['n_evals'] * 31} ({r['n_evals']} σ² × 31 γ)" if r["contender"] == "svmopt-path" \
                else str(r["n_evals"])
            out.append(row([thousands(r["rows"]), r.get("source", "numpy"), CONTENDERS[r["contender"]], commit(d),
                            evals, r.get("n_passes", "-"), f"{r['fit_s']:.1f} s ({r['fit_cpu_s']:.1f} CPU-s)",
                            f"{r['peak_rss_mib']:,.0f} MiB", f"{g3(r['gamma'])}, {g3(r['sigma2'])}",
                            f"{100 * r['test_accuracy']:.2f} %"]))
    return out


def fixed_size_statistics(results: Path, gamma: float = 1000.0) -> list[str]:
    d = load("statistics_accuracy.json", results)
    rows = [r for r in d["rows"] if r["gamma"] == gamma]
    return [source("statistics_accuracy.json", note=f" (commit {commit(d)}, n = {d['n']}, d = {d['d']}, the rows at "
                                                    f"γ = {gamma:g}; max |f - f_ref| / max |f_ref| on 500 test rows)"),
            "", *report_fixed_size_peers.accuracy_table({"rows": rows})]


#: the runs of ``scale_fixed_size.py`` behind docs/scale.md's table (one command each, named in their meta)
SCALE_FIXED = ("scale_fixed_size.json", "scale_fixed_size_cluster.json", "scale_fixed_size_5e6.json",
               "scale_fixed_size_5e6_numpy.json", "scale_fixed_size_5e6_cluster.json")
SOURCE_ORDER = {"memmap": 0, "dask": 1, "numpy": 2}


def fixed_size_scale_source(r: dict[str, Any]) -> str:
    if r["source"] == "memmap":
        return "`np.memmap`"
    if r["source"] == "numpy":
        return "numpy in memory"
    if r.get("dask_workers"):
        return f"dask array, `LocalCluster` of {r['dask_workers']} worker processes"
    return "dask array, threaded scheduler"


def fixed_size_scale(results: Path) -> list[str]:
    """docs/scale.md's single-machine table: every fit of ``scale_fixed_size.py`` in the files of SCALE_FIXED."""
    files = [load(f, results) for f in SCALE_FIXED]
    runs = sorted((r for f in files for r in f["runs"]),
                  key=lambda r: (r["rows"], r.get("dask_workers", 0) > 0, SOURCE_ORDER[r["source"]]))
    r0, meta = runs[0], files[0]["meta"]
    loads = [v for f in files for v in f["meta"]["load average (1 min) before / after"]]
    out = [source(*SCALE_FIXED, note=f" ({meta['date']}, {run_commit(meta)}; d = {r0['d']}, m = {r0['m']}, "
                                     f"load average {span(loads)} on the {meta['cpus']} cores)"), "",
           *header("rows", "source", "fit wall (s)", "fit CPU (s)", "peak RSS (MiB)", "RSS before fit (MiB)",
                   "training accuracy")]
    for r in runs:
        workers = r.get("worker_peak_rss_mib")
        out.append(row([thousands(r["rows"]), fixed_size_scale_source(r), f"{r['fit_s']:.1f}",
                        f"{r['fit_cpu_s_this_process']:.1f}" + (" (driver)" if workers else ""),
                        (f"driver {r['peak_rss_mib']:,.0f}, workers " + " + ".join(f"{w:,.0f}" for w in workers))
                        if workers else f"{r['peak_rss_mib']:,.0f}",
                        f"{r['rss_before_fit_mib']:,.0f}", f"{r['train_acc_first_20000']:.3f}"]))
    return out


# ----------------------------------------------------------------------------------------------------- ramp
def ramp_vs_milp(results: Path) -> list[str]:
    d = load("ramp_vs_milp.json", results)
    s, sub = d["summary"], d["subsamples"]["summary"]
    out = [source("ramp_vs_milp.json", note=f" (commit {commit(d)}; written by `reproductions/ramp_vs_milp.py`, "
                                            "tables in `benchmarks/results/ramp_vs_milp.md`)"), "",
           *header("cases", "reference", "n", "CCCP at or below (≤ +0.001 %)", "within +2 %",
                   "median difference", "worst", "speed ratio exact / CCCP (median, geometric mean)")]
    groups = [("Experiment 1, proved optimum", "the optimum", s["proved"]["diff_vs_exact"], s["proved"]["speed_ratio"]),
              ("Experiment 1, time limit reached", "the exact incumbent", s["unproved"]["diff_vs_exact_incumbent"],
               s["unproved"]["speed_ratio"]),
              ("Experiment 1, time limit reached", "the best exact or DAKS objective",
               s["unproved"]["diff_vs_best_known"], None),
              ("60-row subsamples, proved optimum", "the optimum", sub["diff_vs_optimum"], sub["speed_ratio"])]
    for label, ref, diff, speed in groups:
        out.append(row([label, ref, diff["n"], diff["within"]["<= +0.001% (0%)"], diff["within"]["<= +2%"],
                        minus(f"{diff['median']:+.2f} %"), minus(f"{diff['worst']:+.1f} %"),
                        f"{speed['median']:.1f}x, {speed['geometric_mean']:.1f}x" if speed else "-"]))
    return out


def daks_improvements(runs: Sequence[dict[str, Any]], rtol: float = 1e-9) -> dict[int, tuple[float, float]]:
    """By rows: how much DAKS took off its starting point, Algorithm 1's solution (the first entry of its upper-bound
    history ``ub_history``), absolute and relative, where that exceeds ``rtol`` of it (rounding aside)."""
    out = {}
    for r in runs:
        start, end = r["heuristic"]["ub_history"][0], r["heuristic"]["objective"]
        if start - end > rtol * abs(start):
            out[r["rows"]] = (start - end, (start - end) / start)
    return out


def _join(items: Sequence[str]) -> str:
    return items[0] if len(items) == 1 else ", ".join(items[:-1]) + " and " + items[-1]


def daks_sentence(runs: Sequence[dict[str, Any]]) -> str:
    """What the upper-bound histories of ``scale_ramp_daks.json`` show, in words."""
    imp = daks_improvements(runs)
    if not imp:
        return "DAKS never improved on Algorithm 1's initial solution."
    kept = [thousands(r["rows"]) for r in runs if r["rows"] not in imp]
    text = (f"DAKS improved on Algorithm 1's initial solution at {_join([thousands(n) for n in imp])} rows, by "
            f"{_join([f'{a:.3g}' for a, _ in imp.values()])} "
            f"({_join([f'{100 * q:.2g} %' for _, q in imp.values()])} of the objective)")
    return text + (f", and not at all at {_join(kept)} rows." if kept else ".")


def ramp_daks(results: Path) -> list[str]:
    runs = load("scale_ramp_daks.json", results)
    imp = daks_improvements(runs)
    out = [source("scale_ramp_daks.json", note=f" (d = {runs[0]['d']}, B = {runs[0]['budget']}, C = {runs[0]['C']:g}, "
                                               f"DAKS limit {runs[0]['daks_time_limit']:g} s)"), "",
           *header("rows", "CCCP objective", "CCCP wall", "DAKS objective", "DAKS status", "DAKS / CCCP objective",
                   "DAKS / CCCP time", "DAKS's start (Algorithm 1)", "DAKS's improvement on it")]
    for r in runs:
        a, q = imp.get(r["rows"], (0.0, 0.0))
        out.append(row([thousands(r["rows"]), f"{r['cccp']['objective']:,.1f}", f"{r['cccp']['wall_s']:.2f} s",
                        f"{r['heuristic']['objective']:,.1f}", r["heuristic"]["status"],
                        f"{r['objective_ratio_daks_over_cccp']:.2f}", f"{r['time_ratio_daks_over_cccp']:.0f}×",
                        f"{r['heuristic']['ub_history'][0]:,.3f}", f"{a:.3g} ({100 * q:.2g} %)" if a else "none"]))
    return [*out, "", daks_sentence(runs)]


def ramp_noise(results: Path) -> list[str]:
    d = load("ramp_noise.json", results)
    models = list(d["results"]["models"])
    out = [source("ramp_noise.json", note=f" (commit {commit(d)}; test accuracy on {d['results']['n_test']:,} clean "
                                          "rows, fit wall seconds, features selected)"), "",
           *header("rows", *models)]
    for run in d["results"]["runs"]:
        out.append(row([thousands(run["n"]), *(f"{o['test_accuracy']:.4f} ({o['wall_s']:.1f} s, {o['n_selected']})"
                                               for o in (run["models"][m] for m in models))]))
    return out


def ramp_scale(results: Path) -> list[str]:
    runs = load("scale_ramp_scale.json", results)
    out = [source("scale_ramp_scale.json", note=f" (d = {runs[0]['d']}, B = {runs[0]['budget']}, "
                                                f"C = {runs[0]['C']:g}, from a memmap)"), "",
           *header("rows", "wall", "CPU", "peak RSS", "data", "passes (3 starts)", "CCCP steps per start",
                   "outliers found")]
    for r in runs:
        out.append(row([thousands(r["rows"]), f"{r['wall_s']:.1f} s", f"{r['cpu_s']:.1f} s",
                        f"{r['peak_rss_mib']:,.0f} MiB", f"{r['data_mib']:.0f} MiB", thousands(r["passes"]),
                        ", ".join(map(str, r["steps"])), thousands(r["outliers"])]))
    return out


#: every generated table of docs/performance.md, by the name its markers carry
TABLES: dict[str, Callable[[Path], list[str]]] = {
    "gram-one-thread": gram_one_thread,
    "gram-two-threads": gram_two_threads,
    "asv-kernels": partial(asv_history, benchmarks=("GramAssembly.time_gram", "KernelMatvec.time_matvec")),
    "defaults-robust": partial(defaults_row, estimator="RobustSVC"),
    "asv-robust": partial(asv_history, benchmarks=(
        "LineSearch.time_exact", "LineSearch.time_grid_1e4", "LineSearch.time_grid_1e4_naive",
        "LineSearch.time_grid_1e4_naive_one_thread", "DenseLP.time_dense", "DenseLP.time_highs")),
    "robust-ipm-vs-highs-scale": partial(robust_ipm_vs_highs, key="scale_data_d20_alpha4"),
    "robust-ipm-vs-highs-asv": partial(robust_ipm_vs_highs, key="asv_reduced_model_data_d8"),
    "robust-ipm-overhead": robust_ipm_overhead,
    "robust-crossover": robust_crossover,
    "robust-crossover-sets": robust_crossover_sets,
    "defaults-ramp": partial(defaults_row, estimator="RampLossSVC"),
    "ramp-vs-milp": ramp_vs_milp,
    "ramp-daks": ramp_daks,
    "ramp-noise": ramp_noise,
    "ramp-scale": ramp_scale,
    "defaults-fixed-size": partial(defaults_row, estimator="FixedSizeLSSVC"),
    "fixed-size-peers": fixed_size_peers,
    "fixed-size-peers-later": fixed_size_peers_later,
    "fixed-size-pass-floor": fixed_size_pass_floor,
    "fixed-size-tuned": fixed_size_tuned,
    "fixed-size-path": fixed_size_path,
    "fixed-size-statistics": fixed_size_statistics,
    "defaults-ellipsoid": partial(defaults_row, estimator="EllipsoidPSOClassifier"),
}


#: the generated tables of docs/scale.md
SCALE_TABLES: dict[str, Callable[[Path], list[str]]] = {
    "fixed-size-scale": fixed_size_scale,
    "ramp-daks": ramp_daks,
}
#: each page with its tables
PAGES: dict[Path, dict[str, Callable[[Path], list[str]]]] = {DOC: TABLES, SCALE_DOC: SCALE_TABLES}


def render(text: str, results: Path = RESULTS, tables: dict[str, Callable[[Path], list[str]]] | None = None) -> str:
    """``text`` with every generated table recomputed from the JSON in ``results`` (``tables``: those a page may
    name; by default every table of either page)."""
    known = {**SCALE_TABLES, **TABLES} if tables is None else tables

    def table(m: re.Match[str]) -> str:
        if m["name"] not in known:
            raise KeyError(f"the page names an unknown table {m['name']!r}")
        return m.group(1) + "\n".join(known[m["name"]](results)) + "\n" + m.group(4)

    return MARKER.sub(table, text)


def table_names(text: str) -> list[str]:
    """The names of the generated tables in ``text``, in order."""
    return [m["name"] for m in MARKER.finditer(text)]


def main(argv: Sequence[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--doc", type=Path, action="append", default=None,
                    help="the page to rewrite or check (repeatable; default: docs/performance.md and docs/scale.md)")
    ap.add_argument("--results", type=Path, default=RESULTS)
    ap.add_argument("--check", action="store_true", help="exit 1 where a table differs from its JSON; write nothing")
    args = ap.parse_args(argv)
    stale = 0
    for doc in args.doc or list(PAGES):
        text = doc.read_text(encoding="utf-8")
        new = render(text, args.results, PAGES.get(doc.resolve()))
        if args.check:
            if new != text:
                print(f"{doc}: a generated table differs from its JSON; rerun without --check", file=sys.stderr)
                stale += 1
            continue
        doc.write_text(new, encoding="utf-8")
        print(f"wrote {len(table_names(new))} tables into {doc}")
    return 1 if stale else 0


if __name__ == "__main__":
    raise SystemExit(main())
