"""The figures that the docs quote in their prose (outside the generated tables of ``report_performance``), each
recomputed from the committed JSON in ``benchmarks/results`` or from the library constant it names.

Every :class:`Figure` is a passage of a page as the page prints it, with ``{name}`` fields; its ``values`` compute
the fields from the results at the precision printed. The passage, filled in, must appear in the page (runs of
white space count as one space, so line breaks do not matter): a figure edited by hand, or a result file rerun
without the page following it, no longer matches. From the repository root::

    python -m benchmarks.studies.doc_figures           # each passage as the results give it, and where it is
    python -m benchmarks.studies.doc_figures --check   # exit 1 where a page does not quote its results
"""

from __future__ import annotations

import argparse
import json
import math
import re
import statistics
import sys
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from benchmarks.studies import report_fixed_size_peers
from benchmarks.studies.util import RESULTS, ROOT


@dataclass(frozen=True)
class Figure:
    """A passage of ``doc`` (relative to the repository root) whose ``{fields}`` ``values(results)`` fills in."""

    doc: str
    text: str
    values: Callable[[Path], dict[str, str]]
    source: str

    def expected(self, results: Path = RESULTS) -> str:
        return self.text.format(**self.values(results))


def load(name: str, results: Path) -> Any:
    return json.loads((results / name).read_text(encoding="utf-8"))


def f1(x: float) -> str:
    return f"{x:.1f}"


def span(values: Sequence[float], fmt: str = ".1f", sep: str = "-") -> str:
    lo, hi = format(min(values), fmt), format(max(values), fmt)
    return lo if lo == hi else f"{lo}{sep}{hi}"


def sci(x: float) -> str:
    """``1.7e-7``: two significant figures, the exponent without a sign or zeros it does not need."""
    mant, exp = f"{x:.1e}".split("e")
    return f"{mant}e{int(exp)}"


def gib(mib: float) -> str:
    return f"{mib / 1024:.1f}"


# ------------------------------------------------------------------------------------ fixed size against sklearn
def _runs(f: dict[str, Any], task: str, contender: str, m: int | None = None, rows: int | None = None,
          source: str = "numpy") -> list[dict[str, Any]]:
    return [r for r in f["runs"] if "fit_s" in r and r["task"] == task and r["contender"] == contender
            and (m is None or r["m"] == m) and (rows is None or r["rows"] == rows)
            and r.get("source", "numpy") == source]


def _one(f: dict[str, Any], *args: Any, **kwargs: Any) -> dict[str, Any]:
    (r,) = _runs(f, *args, **kwargs)
    return r


def _median_fit(runs: list[dict[str, Any]]) -> float:
    return statistics.median(r["fit_s"] for r in runs)


def peers_against_sklearn(results: Path) -> dict[str, str]:
    """docs/performance.md, "Against scikit-learn": the ratios sklearn / svmopt of the fit, and the peak memory."""
    m500 = load("peers_fixed_size_1e6_m500.json", results)
    c = {t: (_one(m500, t, "svmopt"), _one(m500, t, "sklearn")) for t in ("classification", "regression")}
    m1000 = load("peers_fixed_size_1m_m1000_sklearn.json", results)
    ours, skl = _one(m1000, "classification", "svmopt"), _one(m1000, "classification", "sklearn")
    inter = load("peers_fixed_size_1m_m1000_regression_interleaved.json", results)
    rerun = load("peers_fixed_size_1m_m1000_regression_rerun.json", results)
    rerun_skl = _median_fit(_runs(rerun, "regression", "sklearn"))
    m2000 = [load(n, results) for n in ("peers_fixed_size_1m_m2000_svmopt.json",
                                        "peers_fixed_size_m2000_regression_sklearn_rows.json",
                                        "peers_fixed_size_250k_m2000_classification_sklearn.json")]
    extrapolated = {line.split(",")[0].removeprefix("* "): re.search(r": ([\d.]+)x$", line)[1]  # type: ignore[index]
                    for line in report_fixed_size_peers.extrapolated_lines(m2000, 1_000_000)}
    small = []
    for name in ("peers_fixed_size_250k.json", "peers_fixed_size_250k_rerun.json",
                 "peers_fixed_size_250k_regression_cvskip.json"):
        f = load(name, results)
        for task in ("classification", "regression"):
            for m in sorted({r["m"] for r in f["runs"]}):
                o, s = _runs(f, task, "svmopt", m, 250_000), _runs(f, task, "sklearn", m, 250_000)
                if o and s:
                    small.append(_median_fit(s) / _median_fit(o))
    return {
        "m500_cls": f1(c["classification"][1]["fit_s"] / c["classification"][0]["fit_s"]),
        "m500_reg": f1(c["regression"][1]["fit_s"] / c["regression"][0]["fit_s"]),
        "m500_mem_cls": f"{100 * c['classification'][0]['peak_rss_mib'] / c['classification'][1]['peak_rss_mib']:.0f}",
        "m500_mem_reg": f"{100 * c['regression'][0]['peak_rss_mib'] / c['regression'][1]['peak_rss_mib']:.0f}",
        "m1000_cls": f1(skl["fit_s"] / ours["fit_s"]), "m1000_skl_gib": gib(skl["peak_rss_mib"]),
        "m1000_ours_mib": f"{ours['peak_rss_mib']:.0f}",
        "interleaved": f1(_median_fit(_runs(inter, "regression", "sklearn"))
                          / _median_fit(_runs(inter, "regression", "svmopt"))),
        "single": f1(_one(m1000, "regression", "sklearn")["fit_s"] / _one(m1000, "regression", "svmopt")["fit_s"]),
        "rerun": span([rerun_skl / r["fit_s"] for r in _runs(rerun, "regression", "svmopt")]),
        "m2000_cls": extrapolated["classification"], "m2000_reg": extrapolated["regression"],
        "rows250k": span(small),
    }


def peers_accuracy(results: Path) -> dict[str, str]:
    """docs/performance.md, "Accuracy, same (σ², γ)": test scores at 10^6 (m = 500) and 2.5·10^5 rows."""
    m500, k250 = load("peers_fixed_size_1e6_m500.json", results), load("peers_fixed_size_250k.json", results)

    def acc(f: dict[str, Any], c: str, m: int) -> str:
        return f"{100 * _one(f, 'classification', c, m)['test_accuracy']:.2f}"

    def mse(f: dict[str, Any], c: str, m: int) -> str:
        return f"{_one(f, 'regression', c, m)['test_mse']:.3f}"

    return {"a500": acc(m500, "svmopt", 500), "a500s": acc(m500, "sklearn", 500),
            "e500": mse(m500, "svmopt", 500), "e500s": mse(m500, "sklearn", 500),
            "a1000": acc(k250, "svmopt", 1000), "a1000s": acc(k250, "sklearn", 1000),
            "a2000": acc(k250, "svmopt", 2000), "a2000s": acc(k250, "sklearn", 2000),
            "e1000": mse(k250, "svmopt", 1000), "e2000": mse(k250, "svmopt", 2000),
            "e1000s": mse(k250, "sklearn", 1000), "e2000s": mse(k250, "sklearn", 2000)}


def peers_random_prototypes(results: Path) -> dict[str, str]:
    """docs/performance.md: the uniformly drawn prototypes at 10^6 rows against the entropy ones and the pipeline."""
    rnd = load("peers_fixed_size_1m_random_prototypes.json", results)
    ent1000 = load("peers_fixed_size_1m_m1000_sklearn.json", results)
    ent2000 = load("peers_fixed_size_1m_m2000_svmopt.json", results)
    r1000, r2000 = (_one(rnd, "classification", "svmopt-random", m) for m in (1000, 2000))
    return {"r1000": f"{100 * r1000['test_accuracy']:.2f}", "r2000": f"{100 * r2000['test_accuracy']:.2f}",
            "e1000": f"{100 * _one(ent1000, 'classification', 'svmopt', 1000)['test_accuracy']:.2f}",
            "e2000": f"{100 * _one(ent2000, 'classification', 'svmopt', 2000)['test_accuracy']:.2f}",
            "s1000": f"{100 * _one(ent1000, 'classification', 'sklearn', 1000)['test_accuracy']:.2f}",
            "t1000": f1(r1000["fit_s"]), "t2000": f1(r2000["fit_s"])}


def guide_scale(results: Path) -> dict[str, str]:
    """docs/guide/fixed_size.md, "Reproduction": 10^6 rows from a memmap against the pipeline in memory."""
    src, m500 = load("peers_fixed_size_1e6_sources.json", results), load("peers_fixed_size_1e6_m500.json", results)
    mm = _one(src, "classification", "svmopt", 500, source="memmap")
    ratios = [_one(m500, t, "sklearn")["fit_s"] / _one(m500, t, "svmopt")["fit_s"] for t in ("regression",
                                                                                           "classification")]
    return {"wall": f1(mm["fit_s"]), "cpu": f1(mm["fit_cpu_s"]), "rss": f"{mm['peak_rss_mib']:.0f}",
            "ratios": span(ratios), "skl_gib": span([_one(m500, t, "sklearn")["peak_rss_mib"] / 1024
                                                     for t in ("regression", "classification")])}


# --------------------------------------------------------------------------------- fixed size: option costs
def _costs(results: Path) -> dict[str, Any]:
    return load("fixed_size_costs.json", results)


def _cpu(runs: Sequence[dict[str, Any]]) -> str:
    """The CPU seconds of the runs, as a range at one decimal."""
    return span([r["cpu_s"] for r in runs])


def _cpu_ratio(a: Sequence[dict[str, Any]], b: Sequence[dict[str, Any]]) -> str:
    return f"{statistics.median(r['cpu_s'] for r in a) / statistics.median(r['cpu_s'] for r in b):.2f}"


def _load(meta: dict[str, Any]) -> str:
    return span(meta["load average before / after"])


def guide_weights(results: Path) -> dict[str, str]:
    """docs/guide/fixed_size.md: a weighted fit against an unweighted one, CPU seconds over the rounds."""
    costs = _costs(results)
    w, runs = costs["weights"], costs["weights"]["runs"]
    return {"rows": f"{w['rows']:,}", "m": str(w["m"]), "rounds": str(len(runs["classifier weighted"])),
            "cw": _cpu(runs["classifier weighted"]), "cu": _cpu(runs["classifier unweighted"]),
            "rw": _cpu(runs["regressor weighted"]), "ru": _cpu(runs["regressor unweighted"]),
            "cr": _cpu_ratio(runs["classifier weighted"], runs["classifier unweighted"]),
            "rr": _cpu_ratio(runs["regressor weighted"], runs["regressor unweighted"]),
            "wall": span([r["wall_s"] for v in runs.values() for r in v], ".0f"), "load": _load(costs["meta"])}


def guide_cv_score(results: Path) -> dict[str, str]:
    costs = _costs(results)
    c, runs = costs["cv_score"], costs["cv_score"]["runs"]
    return {"rows": f"{c['rows']:,}", "m": str(c["m"]), "skip": _cpu(runs["cv=None (score skipped)"]),
            "score": _cpu(runs["cv=10 (score computed)"])}


def guide_partial_fit(results: Path) -> dict[str, str]:
    p = _costs(results)["partial_fit"]
    runs = p["runs"]
    return {"rows": f"{p['rows']:,}", "chunks": str(p["chunks"]), "m": str(p["m"]),
            "partial": _cpu(runs["partial_fit"]), "fit": _cpu(runs["fit"])}


def _scale_runs(results: Path) -> list[dict[str, Any]]:
    from benchmarks.studies.report_performance import SCALE_FIXED

    return [r for name in SCALE_FIXED for r in load(name, results)["runs"]]


def _scale_pick(runs: Sequence[dict[str, Any]], rows: int, source: str, workers: bool = False) -> dict[str, Any]:
    (r,) = [r for r in runs if r["rows"] == rows and r["source"] == source and bool(r.get("dask_workers")) == workers]
    return r


def scale_fixed_size(results: Path) -> dict[str, str]:
    """docs/scale.md, "Measured single-machine limits": the prose under the table."""
    runs = _scale_runs(results)
    passive = load("scale_fixed_size_omp_passive.json", results)["runs"]
    big, small = 5_000_000, 1_000_000
    c5, c1 = _scale_pick(runs, big, "dask", True), _scale_pick(runs, small, "dask", True)
    t5, t1 = _scale_pick(runs, big, "dask"), _scale_pick(runs, small, "dask")
    m5, m1 = _scale_pick(runs, big, "memmap"), _scale_pick(runs, small, "memmap")
    p1, p5 = (_scale_pick(passive, n, "memmap") for n in (small, big))
    inproc = [_scale_pick(runs, big, s)["timings"]["tuning_and_fit"] for s in ("memmap", "dask", "numpy")]
    d_rows = big - small
    per_row = (t5["model_mib"]["per_row_vectors"] - t1["model_mib"]["per_row_vectors"]) * 2**20 / d_rows
    pages = d_rows * m5["d"] * 8 / 2**20
    setup = max(sum(r["timings"][k] for k in ("standardize", "bandwidth", "prototypes")) for r in runs)
    return {
        "drv_cpu": f1(c5["fit_cpu_s_this_process"]), "drv_wall": f1(c5["fit_s"]),
        "workers": span(c5["worker_peak_rss_mib"], ".0f"), "c1": f1(c1["fit_s"]), "t1": f1(t1["fit_s"]),
        "c5": f1(c5["fit_s"]), "t5": f1(t5["fit_s"]), "inproc": span(inproc, ".0f"),
        "p1": f1(p1["fit_s"]), "p5": f1(p5["fit_s"]), "m1": f1(m1["fit_s"]), "m5": f1(m5["fit_s"]),
        "full": gib(m5["model_mib"]["full_features_never_built"]),
        "maxpeak": gib(max(r["peak_rss_mib"] for r in runs if r["rows"] == big and not r.get("dask_workers"))),
        "dd": f"{t5['peak_rss_mib'] - t1['peak_rss_mib']:.0f}",
        "dbr": f"{(t5['peak_rss_mib'] - t1['peak_rss_mib']) * 2**20 / d_rows:.0f}", "est": f"{per_row:.0f}",
        "md": f"{m5['peak_rss_mib'] - m1['peak_rss_mib']:.0f}", "pages": f"{pages:.0f}",
        "mrest": f"{m5['peak_rss_mib'] - m1['peak_rss_mib'] - pages:.0f}",
        "arr": f"{big * m5['d'] * 8 / 2**20:.0f}", "blk": f"{m5['model_mib']['input_block_x3']:.0f}",
        "chk": f"{c5['model_mib']['input_block_x3']:.0f}", "core": f"{m5['model_mib']['core_feature_chunk']:.0f}",
        "folds": f"{m5['model_mib']['fold_sums']:.0f}", "cand": f"{m5['model_mib']['candidates']:.0f}",
        "pass_cpu": f1((t5["fit_cpu_s_this_process"] - t1["fit_cpu_s_this_process"]) * 1e6 / d_rows),
        "setup": f"{math.ceil(setup)}", "tenm": f"{per_row * 1e7 / 2**30:.1f}",
    }


# ------------------------------------------------------------------------------------------------- robust
def _vs_highs(results: Path) -> dict[str, Any]:
    return load("robust_ipm_vs_highs.json", results)


def robust_vs_highs_summary(results: Path) -> dict[str, str]:
    """docs/performance.md, "The reduced model: interior point": the two tables in a sentence."""
    d = _vs_highs(results)
    a, b = d["scale_data_d20_alpha4"], d["asv_reduced_model_data_d8"]
    both = a + b
    gap = max(abs(r["ipm"]["obj"] - r["highs"]["obj"]) / abs(r["highs"]["obj"]) for r in both)
    other = {(r["n"], r["L"]): r for r in b}
    return {"gap": sci(gap),
            "first": span([r["highs"]["wall"] / r["ipm"]["wall"] for r in a], sep="-"),
            "second": span([r["highs"]["wall"] / r["ipm"]["wall"] for r in b], sep="-"),
            "iters": span([r["ipm"]["iters"] for r in b], ".0f"),
            "highs_between": span([max(r["highs"]["wall"], other[(r["n"], r["L"])]["highs"]["wall"])
                                   / min(r["highs"]["wall"], other[(r["n"], r["L"])]["highs"]["wall"])
                                   for r in a])}


def robust_vs_highs_grid(results: Path) -> dict[str, str]:
    """docs/performance.md, "HiGHS or the interior point": what a nu grid costs against one nu = 1."""
    d = _vs_highs(results)
    sets = (("first", d["scale_data_d20_alpha4"]), ("second", d["asv_reduced_model_data_d8"]))
    both = [r for _, recs in sets for r in recs]
    faster = [f"at {r['n']:,} × {r['L']} on the {name} data ({r['cp_grid']['wall']:.2f} s against "
              f"{r['ipm_grid']['wall']:.2f} s)" for name, recs in sets for r in recs
              if r["cp_grid"]["wall"] < r["ipm_grid"]["wall"]]
    clause = ("the cutting planes' grid is the faster " + "; ".join(faster) if faster
              else "the interior point's grid is the faster at every size")
    return {"ipm": span([r["ipm_grid"]["wall"] / r["ipm"]["wall"] for r in both]),
            "cp": span([r["cp_grid"]["wall"] / r["cp"]["wall"] for r in both]), "faster": clause}


def constants_robust(results: Path) -> dict[str, str]:
    from svmopt.robust.plan import AUTO_LANDMARKS, AUTO_LANDMARKS_MAX, AUTO_MAX_ROWS, AUTO_ROWS_PER_LANDMARK

    return {"max_rows": f"{AUTO_MAX_ROWS:,}", "lo": f"{AUTO_LANDMARKS:,}", "hi": f"{AUTO_LANDMARKS_MAX:,}",
            "per": f"{AUTO_ROWS_PER_LANDMARK:,}"}


def constants_lp(results: Path) -> dict[str, str]:
    from svmopt.robust.fit import DENSE_LP_MAX_M
    from svmopt.robust.plan import DIRECT_LP_MAX_CELLS, STALL_LP_MAX_CELLS

    mant, exp = f"{STALL_LP_MAX_CELLS:.0e}".split("e")
    sup = str.maketrans("0123456789-", "⁰¹²³⁴⁵⁶⁷⁸⁹⁻")
    return {"direct": f"{DIRECT_LP_MAX_CELLS:,}", "stall": f"{mant}·10{str(int(exp)).translate(sup)}",
            "dense": str(DENSE_LP_MAX_M)}


def constants_ramp(results: Path) -> dict[str, str]:
    from svmopt.ramp.ramp_loss import AUTO_CCCP_ROWS

    return {"cccp": str(AUTO_CCCP_ROWS)}


def constants_fixed_size(results: Path) -> dict[str, str]:
    from svmopt.fixed_size.search import PATH_MIN_ROWS
    from svmopt.fixed_size.selection import AUTO_PROTOTYPES

    return {"m": str(AUTO_PROTOTYPES), "path": f"{PATH_MIN_ROWS:,}"}


def robust_scale_memory(results: Path) -> dict[str, str]:
    """docs/guide/scaling.md: the 10^6-row interior-point fit of docs/scale.md."""
    runs = [r for r in load("scale_robust_ipm.json", results) if not isinstance(r["nu"], list)]  # one nu each
    r = next(r for r in runs if r["rows"] == 1_000_000 and r.get("p") is None)
    return {"wall": f"{r['wall_s']:.0f}", "gib": gib(r["peak_rss_mib"]),
            "iters": span([len(r["history"]) for r in runs], ".0f")}


#: every figure quoted in prose, by page
FIGURES: tuple[Figure, ...] = (
    Figure("docs/performance.md",
           "for m = 500 ({m500_cls}x and {m500_reg}x, at {m500_mem_cls} % and {m500_mem_reg} % of its peak memory), "
           "for the classifier at m = 1000 ({m1000_cls}x, at {m1000_skl_gib} GiB for the pipeline against "
           "{m1000_ours_mib} MiB), for the regressor at m = 1000 in the medians of three interleaved rounds "
           "({interleaved}x; {single}x and {rerun}x in single runs before)",
           peers_against_sklearn, "peers_fixed_size_*.json"),
    Figure("docs/performance.md", "exceed this machine's 24 GiB ({m2000_cls}x and {m2000_reg}x). Not at 2.5·10⁵ rows "
           "({rows250k}x)", peers_against_sklearn, "peers_fixed_size_*.json"),
    Figure("docs/performance.md",
           "{a500} % against {a500s} % and MSE {e500} against {e500s} at 10⁶, m = 500; at 2.5·10⁵ rows, {a1000} % "
           "against {a1000s} % (m = 1000), {a2000} % against {a2000s} % (m = 2000), and MSE {e1000} / {e2000} "
           "against {e1000s} / {e2000s}", peers_accuracy, "peers_fixed_size_1e6_m500.json, peers_fixed_size_250k.json"),
    Figure("docs/performance.md",
           "10⁶ rows scores {r1000} % (m = 1000) and {r2000} % (m = 2000) against {e1000} % and {e2000} % with the "
           "entropy prototypes and {s1000} % (m = 1000) for scikit-learn's pipeline, in {t1000} s and {t2000} s",
           peers_random_prototypes, "peers_fixed_size_1m_random_prototypes.json"),
    Figure("docs/guide/fixed_size.md",
           "10⁶ × 20 rows from an `np.memmap` at m = 500 in {wall} s wall ({cpu} s CPU) and {rss} MiB peak memory",
           guide_scale, "peers_fixed_size_1e6_sources.json"),
    Figure("docs/guide/fixed_size.md", "{ratios}x less time than scikit-learn's `Nystroem` + "
           "`RidgeClassifier`/`Ridge` in memory (which peaked at {skl_gib} GiB", guide_scale,
           "peers_fixed_size_1e6_m500.json"),
    Figure("docs/guide/fixed_size.md",
           "at {rows} × 20 rows, m = {m}, fixed (σ², γ), {cw} CPU-s weighted against {cu} CPU-s unweighted for the "
           "classifier and {rw} against {ru} CPU-s for the regressor (over {rounds} interleaved rounds; medians {cr}× "
           "and {rr}× the unweighted fit's; `python -m benchmarks.studies.fixed_size_costs`, "
           "`benchmarks/results/fixed_size_costs.json`, on this 2-core machine while it was shared, load average "
           "{load}, the fits' wall times {wall} s)", guide_weights, "fixed_size_costs.json"),
    Figure("docs/guide/fixed_size.md", "At {rows} × 20 rows, m = {m}, the regressor's fit with given prototypes took "
           "{skip} CPU-s without the score against {score} CPU-s with it", guide_cv_score, "fixed_size_costs.json"),
    Figure("docs/guide/fixed_size.md", "({rows} × 20 rows in {chunks} chunks, m = {m}: {partial} CPU-s over the calls, "
           "against {fit} CPU-s for one `fit` of the same rows", guide_partial_fit, "fixed_size_costs.json"),
    Figure("docs/scale.md", "With the `LocalCluster` the driver process did {drv_cpu} s of the {drv_wall} s of the "
           "5·10⁶-row fit in CPU: the features and sums were computed in the worker processes (one thread each), whose "
           "peak memory stayed at {workers} MiB. Here the cluster was the fastest source: {c1} s against {t1} s for "
           "the threaded scheduler at 10⁶ rows, {c5} s against {t5} s at 5·10⁶, where the in-process fits spent "
           "{inproc} s in their pass (`timings_`). With `OMP_WAIT_POLICY=passive` "
           "(`benchmarks/results/scale_fixed_size_omp_passive.json`) the memmap fits took {p1} s and {p5} s, against "
           "{m1} s and {m5} s without it", scale_fixed_size, "scale_fixed_size*.json"),
    Figure("docs/scale.md", "At 5·10⁶ rows the full feature matrix would be n·(m+1)·8 B = {full} GiB; the fits peaked "
           "at {maxpeak} GiB at most (the numpy fit, its array included). The memory that grows with n is only the "
           "per-row vectors: from 10⁶ to 5·10⁶ rows the dask fit's peak grew by {dd} MiB, i.e. {dbr} bytes per extra "
           "row (labels, ±1 targets, class codes and fold ids held by the driver; the script's estimate is {est} "
           "B/row). The memmap fit grew by {md} MiB: {pages} MiB of the file's pages", scale_fixed_size,
           "scale_fixed_size*.json"),
    Figure("docs/scale.md", "and {mrest} MiB more. The numpy rows add the {arr} MiB array itself. What does not grow "
           "with n: the block/chunk buffers (three copies of a 65 536-row block: {blk} MiB; of a 250 000-row dask "
           "chunk: {chk} MiB, two chunks in flight with the threaded scheduler), the core's feature chunk (≤ {core} "
           "MiB), the fold sums 2·v·(m+1)²·8 B = {folds} MiB, and the 200 000 candidate rows ({cand} MiB).",
           scale_fixed_size, "scale_fixed_size*.json"),
    Figure("docs/scale.md", "({pass_cpu} CPU-seconds per 10⁶ rows on the threaded dask path here, between 10⁶ and "
           "5·10⁶ rows); standardization, bandwidths and prototypes together took under {setup} s at every size",
           scale_fixed_size, "scale_fixed_size*.json"),
    Figure("docs/scale.md", "(10⁷ rows would need ~{tenm} GiB of per-row vectors", scale_fixed_size,
           "scale_fixed_size*.json"),
    Figure("docs/guide/fixed_size.md", "`\"auto\"` = {m}, or every row when there are fewer", constants_fixed_size,
           "svmopt.fixed_size.selection.AUTO_PROTOTYPES"),
    Figure("docs/guide/fixed_size.md", "`\"auto\"`: `\"csa\"` below {path} tuning rows", constants_fixed_size,
           "svmopt.fixed_size.search.PATH_MIN_ROWS"),
    Figure("docs/performance.md", "All reach the same optimum (IPM objectives within {gap} of HiGHS's)",
           robust_vs_highs_summary, "robust_ipm_vs_highs.json"),
    Figure("docs/performance.md", "where the IPM needs {iters} iterations", robust_vs_highs_summary,
           "robust_ipm_vs_highs.json"),
    Figure("docs/performance.md", "So at 2,000-5,000 rows the IPM is {first}× faster than HiGHS on the first data "
           "and {second}× on the second", robust_vs_highs_summary, "robust_ipm_vs_highs.json"),
    Figure("docs/performance.md", "(HiGHS's own time differs {highs_between}× between them at the same size)",
           robust_vs_highs_summary, "robust_ipm_vs_highs.json"),
    Figure("docs/performance.md", "the grid costs {ipm}× a single ν = 1 (smaller ν converge in fewer iterations), "
           "where the cutting planes, whose cuts stay valid across ν, cost {cp}× theirs; {faster}.",
           robust_vs_highs_grid, "robust_ipm_vs_highs.json"),
    Figure("docs/performance.md", "`n_landmarks=\"auto\"` keeps the paper's model up to {max_rows} training rows and "
           "takes n / {per} landmarks above (at least {lo}, at most {hi};", constants_robust,
           "svmopt.robust.plan.AUTO_MAX_ROWS, AUTO_LANDMARKS, AUTO_LANDMARKS_MAX, AUTO_ROWS_PER_LANDMARK"),
    Figure("docs/guide/robust.md", "`\"auto\"`: the paper's model up to {max_rows} rows, n/{per} landmarks above "
           "(at least {lo}, at most {hi})", constants_robust, "svmopt.robust.plan.AUTO_MAX_ROWS, ..."),
    Figure("docs/performance.md", "passes the reduced LP to HiGHS only up to {direct} kernel values n × L",
           constants_lp, "svmopt.robust.plan.DIRECT_LP_MAX_CELLS"),
    Figure("docs/performance.md", "when its kernel rows are in memory and at most {stall}", constants_lp,
           "svmopt.robust.plan.STALL_LP_MAX_CELLS"),
    Figure("docs/performance.md", "LPs with m ≤ `DENSE_LP_MAX_M` = {dense}", constants_lp,
           "svmopt.robust.fit.DENSE_LP_MAX_M"),
    Figure("docs/scale.md", "Above {direct} kernel values n × L", constants_lp,
           "svmopt.robust.plan.DIRECT_LP_MAX_CELLS"),
    Figure("docs/scale.md", "picks it above `AUTO_CCCP_ROWS` = {cccp} rows", constants_ramp,
           "svmopt.ramp.ramp_loss.AUTO_CCCP_ROWS"),
    Figure("docs/guide/scaling.md", "{iters} iterations to a certified 1e-6 gap; 10⁶ × 20 rows, 500 landmarks: "
           "{wall} s and {gib} GiB on 2 cores", robust_scale_memory,
           "scale_robust_ipm.json"),
)


def normalized(text: str) -> str:
    return re.sub(r"\s+", " ", text)


def check(results: Path = RESULTS, root: Path = ROOT,
          figures: Sequence[Figure] = FIGURES) -> list[str]:
    """One message per figure whose passage, filled in from ``results``, is not in its page."""
    pages: dict[str, str] = {}
    failures = []
    for fig in figures:
        page = pages.setdefault(fig.doc, normalized((root / fig.doc).read_text(encoding="utf-8")))
        want = normalized(fig.expected(results))
        if want not in page:
            failures.append(f"{fig.doc} does not quote {fig.source} as: {want!r}")
    return failures


def main(argv: Sequence[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--results", type=Path, default=RESULTS)
    ap.add_argument("--check", action="store_true", help="exit 1 where a page does not quote its results")
    args = ap.parse_args(argv)
    failures = check(args.results)
    if args.check:
        for f in failures:
            print(f, file=sys.stderr)
        return 1 if failures else 0
    for fig in FIGURES:
        print(f"{fig.doc} ({fig.source}): {fig.expected(args.results)}")
    print(f"{len(FIGURES) - len(failures)} of {len(FIGURES)} passages found", file=sys.stderr)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
