"""Markdown report of ``defaults.py``'s JSON: each classifier at its defaults against its tuned scikit-learn peer.

Every figure is computed from the records of the JSON. The gap of a split is our test accuracy minus the peer's on
the same (data set, task, split), in percentage points; a data set's gap is its mean over the splits where both fits
succeeded; an estimator's mean gap is the mean of its data sets' gaps; its time ratio is the sum of its fits' wall
(CPU) seconds over the sum of its peer's grid searches' on the same splits. Each figure is given over the sets that
its own paper's tables do not use (the "other" sets, how well the defaults carry over) and over its paper's sets
apart. The targets, on the other sets: a mean gap of at least ``TARGET_MEAN_GAP`` points, no set below
``TARGET_SET_GAP`` points, a wall-time ratio of at most ``TARGET_TIME_RATIO``. ``--check`` exits 1 naming each
estimator that misses one (or has no other set with a gap)::

    python -m benchmarks.studies.report_defaults --json benchmarks/results/defaults.json \
        --out benchmarks/results/defaults.md

(those two paths are the defaults). A JSON of the first protocol (binary tasks only, no paper sets: its records
carry no ``task`` nor ``paper_set``) is read as such: every record a ``first_vs_rest`` task on an other set.
"""

from __future__ import annotations

import argparse
import json
import re
import sys
from collections import Counter
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any

import numpy as np

from benchmarks.studies.util import RESULTS

TARGET_MEAN_GAP = -1.0  # points: the mean gap over the other sets must not be below it
TARGET_SET_GAP = -3.0  # points: no other set's gap below it
TARGET_TIME_RATIO = 2.0  # total default fit wall time over the peer's total grid-search wall time, at most
ORDER = ("RobustSVC", "FixedSizeLSSVC", "RampLossSVC", "L1SVC", "FeatureBudgetSVC", "EllipsoidPSOClassifier")
#: The task of a record of the first protocol, which labelled every set by binary="first_vs_rest".
OLD_TASK = "first_vs_rest"
#: Which data sets a figure is over: those its paper's tables do not use, those they use, all.
SETS = ("other", "paper", "all")
_SHOWN = 3  # longer lists of selected values are shown by their length


# ------------------------------------------------------------------------------------------------- numbers
def _ok(r: Mapping[str, Any]) -> bool:
    return r.get("error") is None and r.get("accuracy") is not None


def task(r: Mapping[str, Any]) -> str:
    """The record's task (``OLD_TASK`` for a record of the first protocol)."""
    return r.get("task") or OLD_TASK


def paper_set(r: Mapping[str, Any]) -> bool:
    """Whether the record is on a set of its estimator's paper (never, in the first protocol: it skipped them)."""
    return bool(r.get("paper_set", False))


def estimators(records: Sequence[Mapping[str, Any]]) -> list[str]:
    """Our estimators present in the records, in the usual order (unknown names after it)."""
    names = {r["model"] for r in records if r["role"] == "ours"}
    return [n for n in ORDER if n in names] + sorted(names - set(ORDER))


def peer_of(records: Sequence[Mapping[str, Any]], est: str) -> str:
    return next(r["peer"] for r in records if r["role"] == "ours" and r["model"] == est)


def _in(sets: str, is_paper: bool) -> bool:
    if sets not in SETS:
        raise ValueError(f"sets must be one of {SETS}, got {sets!r}")
    return sets == "all" or (sets == "paper") == is_paper


def dataset_rows(records: Sequence[Mapping[str, Any]], est: str,
                 sets: str = "all") -> dict[tuple[str, str], dict[str, Any]]:
    """Per (data set, task) that ``est`` ran on (in record order), among ``sets``: its records, the peer's on the same
    splits, the gaps, the mean gap and whether it is a set of its paper."""
    peer = peer_of(records, est)
    peers = {(r["dataset"], task(r), r["split"]): r for r in records if r["role"] == "peer" and r["model"] == peer}
    out: dict[tuple[str, str], dict[str, Any]] = {}
    for r in records:
        if r["role"] != "ours" or r["model"] != est or not _in(sets, paper_set(r)):
            continue
        row = out.setdefault((r["dataset"], task(r)), {"dataset": r["dataset"], "task": task(r),
                                                       "paper_set": paper_set(r), "ours": [], "peer": [], "gaps": []})
        p = peers.get((r["dataset"], task(r), r["split"]))
        row["ours"].append(r)
        if p is not None:
            row["peer"].append(p)
            if _ok(r) and _ok(p):
                row["gaps"].append(100.0 * (r["accuracy"] - p["accuracy"]))
    for row in out.values():
        row["gap"] = float(np.mean(row["gaps"])) if row["gaps"] else None
    return out


def summary(records: Sequence[Mapping[str, Any]], est: str, sets: str = "other") -> dict[str, Any]:
    """Over ``sets``: the mean gap over the data sets, the worst one, the number below ``TARGET_SET_GAP``, the times
    (means per fit, totals) and the totals' ratios, the failed fits, and the targets missed (``missed``)."""
    rows = dataset_rows(records, est, sets)
    gaps = {key: row["gap"] for key, row in rows.items() if row["gap"] is not None}
    ours = [r for row in rows.values() for r in row["ours"]]
    peers = [r for row in rows.values() for r in row["peer"]]
    worst = min(gaps, key=gaps.__getitem__) if gaps else None

    def total(rs: Sequence[Mapping[str, Any]], k: str) -> float:
        return float(sum(r[k] for r in rs))

    def mean(rs: Sequence[Mapping[str, Any]], k: str) -> float | None:
        return float(np.mean([r[k] for r in rs])) if rs else None

    sm = {
        "sets": sets, "n_datasets": len(rows), "n_with_gap": len(gaps),
        "mean_gap": float(np.mean(list(gaps.values()))) if gaps else None,
        "worst": worst[0] if worst else None, "worst_task": worst[1] if worst else None,
        "worst_gap": gaps[worst] if worst else None,
        "n_below_set_target": sum(g < TARGET_SET_GAP for g in gaps.values()),
        "below_set_target": sorted(name for (name, _), g in gaps.items() if g < TARGET_SET_GAP),
        "mean_fit_s": mean(ours, "wall_s"), "mean_fit_cpu_s": mean(ours, "cpu_s"),
        "mean_peer_s": mean(peers, "wall_s"), "mean_peer_cpu_s": mean(peers, "cpu_s"),
        "total_fit_s": total(ours, "wall_s"), "total_fit_cpu_s": total(ours, "cpu_s"),
        "total_peer_s": total(peers, "wall_s"), "total_peer_cpu_s": total(peers, "cpu_s"),
        "wall_ratio": total(ours, "wall_s") / total(peers, "wall_s") if peers and total(peers, "wall_s") else None,
        "cpu_ratio": total(ours, "cpu_s") / total(peers, "cpu_s") if peers and total(peers, "cpu_s") else None,
        "n_failed": sum(not _ok(r) for r in ours), "n_fits": len(ours),
    }
    sm["missed"] = missed_targets(sm)
    return sm


def missed_targets(sm: Mapping[str, Any]) -> list[str]:
    """The targets that a summary misses, each with its figure (all three when no set has a gap)."""
    if sm["mean_gap"] is None:
        return ["no data set with a gap"]
    out = []
    if sm["mean_gap"] < TARGET_MEAN_GAP:
        out.append(f"mean gap {sm['mean_gap']:+.2f} points < {TARGET_MEAN_GAP:+g}")
    if sm["worst_gap"] < TARGET_SET_GAP:
        out.append(f"{sm['n_below_set_target']} set(s) below {TARGET_SET_GAP:+g} points (worst {sm['worst']} "
                   f"{sm['worst_gap']:+.2f}: {', '.join(sm['below_set_target'])})")
    if sm["wall_ratio"] is None or sm["wall_ratio"] > TARGET_TIME_RATIO:
        shown = "unknown" if sm["wall_ratio"] is None else f"{sm['wall_ratio']:.3g}"
        out.append(f"wall-time ratio {shown} > {TARGET_TIME_RATIO:g}")
    return out


def check(records: Sequence[Mapping[str, Any]]) -> list[str]:
    """Each estimator that misses a target on the other sets, with the targets it misses."""
    out = []
    for est in estimators(records):
        missed = summary(records, est, "other")["missed"]
        if missed:
            out.append(f"{est}: " + "; ".join(missed))
    return out


# ---------------------------------------------------------------------------------------------- formatting
def _ms(values: Sequence[float | None], scale: float = 1.0, digits: int = 2) -> str:
    v = [scale * x for x in values if x is not None]
    if not v:
        return "-"
    return f"{np.mean(v):.{digits}f} ± {np.std(v):.{digits}f}" if len(v) > 1 else f"{v[0]:.{digits}f}"


def _gap(g: float | None) -> str:
    return "-" if g is None else f"{round(g, 2) or 0.0:+.2f}"  # no "-0.00" from rounding errors


def _s(x: float | None) -> str:
    return "-" if x is None else f"{x:.3g}"


_DECIMAL = re.compile(r"-?\d+\.\d{4,}(?:[eE][-+]?\d+)?")


def _value(v: Any) -> str:
    """A value as the tables show it: numbers to 3 significant digits (also inside text), lists of more than
    ``_SHOWN`` items by their length."""
    if isinstance(v, float):
        return f"{v:.3g}"
    if isinstance(v, dict):
        return "{" + ", ".join(f"{k}: {_value(x)}" for k, x in v.items()) + "}"
    if isinstance(v, list):
        return "[" + ", ".join(_value(x) for x in v) + "]" if len(v) <= _SHOWN else f"[{len(v)} values]"
    return _DECIMAL.sub(lambda m: f"{float(m.group()):.3g}", str(v)).replace("|", "/")


def most_frequent(dicts: Sequence[Mapping[str, Any] | None]) -> str:
    """Per key, the most frequent value (as shown, 3 significant digits) and in how many of the records."""
    dicts = [d for d in dicts if d is not None]
    keys: list[str] = []
    for d in dicts:
        keys += [k for k in d if k not in keys]
    parts = []
    for k in keys:
        shown = [_value(d[k]) for d in dicts if k in d]
        v, c = Counter(shown).most_common(1)[0]
        parts.append(f"{k}={v} ({c}/{len(dicts)})")
    return "; ".join(parts) if parts else "-"


def _warnings(rs: Sequence[Mapping[str, Any]]) -> str:
    n = sum(r.get("n_warnings", 0) for r in rs)
    if not n:
        return "0"
    cats: Counter[str] = Counter()
    for r in rs:
        cats.update(r.get("warning_categories") or {})
    return f"{n} (" + ", ".join(f"{k} {v}" for k, v in cats.most_common()) + ")"


def _targets(sm: Mapping[str, Any]) -> str:
    return "met" if not sm["missed"] else "missed: " + "; ".join(sm["missed"])


def _ratio(sm: Mapping[str, Any]) -> str:
    return f"{_s(sm['wall_ratio'])} / {_s(sm['cpu_ratio'])}"


def protocol_paragraph(meta: Mapping[str, Any]) -> list[str]:
    p = meta["protocol"]
    runs = meta.get("runs", [])
    mach = meta.get("machine", {})
    version = p.get("protocol_version", 1)
    if version >= 2:
        tasks = ("Tasks: " + "; ".join(f"`{k}`: {v}" for k, v in p["tasks"].items())
                 + f" (multi-class estimators: {', '.join(p['multiclass_estimators'])}). Classes with fewer than "
                 f"{p['min_class_rows']} rows in the subsample are dropped (listed below).")
        papers = ("Every estimator runs on every set; the sets of its own paper's tables are flagged and reported "
                  "apart from the others.")
    else:
        tasks = f"Labels `binary=\"{p['binary']}\"` (+1: the catalog's positive class)."
        papers = "Each estimator skips the data sets of its own paper's tables."
    lines = [
        f"Each of svmopt's classifiers is constructed with no argument (only `random_state` = the split index where "
        f"it has one) and compared with a scikit-learn peer tuned by a grid search; every model is the last step of "
        f"`make_pipeline(StandardScaler(), model)`. Per data set: a stratified subsample of at most {p['max_rows']} "
        f"rows (seed {p['subsample_seed']}), then {p['splits']} stratified splits with {100 * p['test_size']:g} % "
        f"test rows (`StratifiedShuffleSplit`, seed {p['split_seed']}). {tasks} Fits run one after the other in one "
        "process; times are the fit's wall seconds and the process's CPU seconds. Gap = our test accuracy − the "
        "peer's on the same split, in points; a data set's gap is its mean over the splits, an estimator's mean gap "
        "the mean over its data sets; time ratio = our total fit seconds / the peer's total grid-search seconds on "
        "the same splits; a fit that raised is counted as failed and left out of the gaps. Selected values: the "
        "fitted attributes our estimator exposes (its chosen hyperparameters where it tunes them), each with the "
        f"number of successful fits that show its most frequent value. {papers} Targets (on the other sets): mean "
        f"gap ≥ {TARGET_MEAN_GAP:+g} point, no set below {TARGET_SET_GAP:+g} points, wall-time ratio ≤ "
        f"{TARGET_TIME_RATIO:g}.",
        "",
        "Peers:",
        "",
        *[f"- {k}: `{v}`" + (f" with {p['linear_svc_extra']}" if k.startswith("LinearSVC") and p.get(
            "linear_svc_extra") else "") for k, v in p["peers"].items()],
        "",
        "Its paper's data sets: " + "; ".join(
            f"{e}{' (' + p['estimator_paper'][e] + ')' if e in p.get('estimator_paper', {}) else ''} — "
            f"{', '.join(ds)}" for e, ds in p["paper_datasets"].items()) + ".",
        "",
        f"svmopt {meta.get('svmopt_version', '?')}, scikit-learn {mach.get('scikit-learn', '?')}, numpy "
        f"{mach.get('numpy', '?')}, Python {mach.get('python', '?')}; {mach.get('platform', '?')}, "
        f"{mach.get('cpus', '?')} CPUs, OMP_NUM_THREADS={mach.get('OMP_NUM_THREADS', '?')}.",
        "",
        "Runs:",
        "",
        *[f"- `{r['command']}` at {r['git_commit'][:10]}"
          + (f" ({len(r['uncommitted'])} files under python/ and cpp/ uncommitted, listed in the JSON)"
             if r.get("uncommitted") else "")
          + f", {r['started']}, {r['total_s']:.0f} s" for r in runs],
    ]
    dropped = [f"{name} ({t}): " + ", ".join(f"{k} ({c} rows)" for k, c in ti["dropped_classes"].items())
               for name, info in meta.get("datasets", {}).items() for t, ti in info.get("tasks", {}).items()
               if ti.get("dropped_classes")]
    if dropped:
        lines += ["", "Classes dropped (too few rows): " + "; ".join(dropped) + "."]
    if meta.get("skipped_datasets"):
        lines += ["", "Data sets not run: " + "; ".join(
            f"{k} ({str(v).split('.')[0][:160]})" for k, v in sorted(meta["skipped_datasets"].items())) + "."]
    return lines


_TABLE_HEAD = ["| data set | task | classes | positive class | n used (of original) | d | majority rate | "
               "our default accuracy | peer accuracy | gap (points) | our fit s (wall / CPU) | "
               "peer grid-search s (wall / CPU) | selected values (most frequent) | peer best params (most frequent) "
               "| warnings (ours / peer) | failed fits (ours / peer) |",
               "|---|---|---|---|---|---|---|---|---|---|---|---|---|---|---|---|"]


def _table_row(row: Mapping[str, Any]) -> str:
    o, p = row["ours"], row["peer"]
    r0 = o[0]
    return (f"| {row['dataset']} | {row['task']} | {r0.get('n_classes', 2)} | "
            f"{'-' if r0.get('positive') is None else r0['positive']} | {r0['n_used']} ({r0['n_original']}) "
            f"| {r0['d']} | {_ms([r['majority_rate'] for r in o], digits=3)} "
            f"| {_ms([r['accuracy'] for r in o], 100)} | {_ms([r['accuracy'] for r in p], 100)} "
            f"| {_gap(row['gap'])} "
            f"| {_s(np.mean([r['wall_s'] for r in o]))} / {_s(np.mean([r['cpu_s'] for r in o]))} "
            f"| {_s(np.mean([r['wall_s'] for r in p])) if p else '-'} / "
            f"{_s(np.mean([r['cpu_s'] for r in p])) if p else '-'} "
            f"| {most_frequent([r.get('selected') for r in o if _ok(r)])} "
            f"| {most_frequent([r.get('best_params') for r in p if _ok(r)])} "
            f"| {_warnings(o)} / {_warnings(p)} "
            f"| {sum(not _ok(r) for r in o)} / {sum(not _ok(r) for r in p)} |")


def _summary_lines(sm: Mapping[str, Any], label: str) -> list[str]:
    worst = f"{sm['worst']} ({sm['worst_task']}, {_gap(sm['worst_gap'])} points)" if sm["worst"] else "-"
    return [f"- {label}: {sm['n_with_gap']} data sets with a gap (of {sm['n_datasets']}); mean gap "
            f"{_gap(sm['mean_gap'])} points; worst {worst}; {sm['n_below_set_target']} below {TARGET_SET_GAP:+g} "
            f"points; total fit s {_s(sm['total_fit_s'])} wall / {_s(sm['total_fit_cpu_s'])} CPU against the peer's "
            f"{_s(sm['total_peer_s'])} / {_s(sm['total_peer_cpu_s'])}, ratio {_ratio(sm)} (wall / CPU); failed fits "
            f"{sm['n_failed']} of {sm['n_fits']}."]


def estimator_section(records: Sequence[Mapping[str, Any]], meta: Mapping[str, Any], est: str) -> list[str]:
    peer = peer_of(records, est)
    other, own = summary(records, est, "other"), summary(records, est, "paper")
    paper = meta["protocol"].get("estimator_paper", {}).get(est)
    lines = [f"## {est}", "", f"Peer: {peer}." + (f" Its paper: {paper}." if paper else ""), "",
             *_summary_lines(other, "Other sets"),
             f"- Targets on the other sets: {_targets(other)}.",
             *(_summary_lines(own, "Its paper's sets") if own["n_datasets"] else [])]
    for sets, title in (("other", "Other data sets"), ("paper", "Its paper's data sets")):
        rows = dataset_rows(records, est, sets)
        if rows:
            lines += ["", f"### {est}: {title.lower()}", "", *_TABLE_HEAD, *(_table_row(r) for r in rows.values())]
    lines += ["", "Accuracies in %, mean ± std over the splits."]
    rows = dataset_rows(records, est, "all")
    errors = [r for row in rows.values() for r in row["ours"] if not _ok(r)]
    if errors:
        lines += ["", "Errors:", ""]
        lines += [f"- {r['dataset']} ({task(r)}) split {r['split']}: {str(r['error']).splitlines()[0][:300]}"
                  for r in errors]
    first = [(r["dataset"], task(r), r["split"], r["first_warning"]) for row in rows.values() for r in row["ours"]
             if r.get("first_warning")]
    if first:
        lines += ["", "First warning of each fit that raised any:", ""]
        lines += [f"- {n} ({t}) split {s}: {str(w).splitlines()[0][:300]}" for n, t, s, w in first]
    defaults = meta.get("estimator_defaults", {}).get(est)
    if defaults:
        lines += ["", "Defaults benchmarked: " + ", ".join(f"`{k}={_value(v)}`" for k, v in defaults.items()) + "."]
    return lines


def markdown(data: Mapping[str, Any]) -> str:
    records, meta = data["records"], data["meta"]
    ests = estimators(records)
    lines = ["# Every classifier at its defaults against a tuned scikit-learn peer", "",
             "Generated by `benchmarks/studies/report_defaults.py` from the JSON of "
             "`benchmarks/studies/defaults.py`. Other sets: those its paper's tables do not use; targets there: mean "
             f"gap ≥ {TARGET_MEAN_GAP:+g}, no set below {TARGET_SET_GAP:+g} points, wall-time ratio ≤ "
             f"{TARGET_TIME_RATIO:g}.", "",
             "| estimator | peer | other sets | mean gap (points) | worst gap (data set) | sets below "
             f"{TARGET_SET_GAP:+g} | time ratio, wall / CPU | targets | its paper's sets | mean gap there | worst "
             "there | time ratio there | failed fits (all sets) |",
             "|---|---|---|---|---|---|---|---|---|---|---|---|---|"]
    for est in ests:
        o, p, a = (summary(records, est, s) for s in SETS)
        lines.append(f"| {est} | {peer_of(records, est)} | {o['n_with_gap']} | {_gap(o['mean_gap'])} "
                     f"| {_gap(o['worst_gap'])} ({o['worst'] or '-'}) | {o['n_below_set_target']} | {_ratio(o)} "
                     f"| {_targets(o)} | {p['n_with_gap']} | {_gap(p['mean_gap'])} "
                     f"| {_gap(p['worst_gap'])} ({p['worst'] or '-'}) | {_ratio(p)} "
                     f"| {a['n_failed']} of {a['n_fits']} |")
    lines += ["", "Data sets counted with a gap (both fits succeeded on a split at least).",
              "", "## Protocol", "", *protocol_paragraph(meta)]
    for est in ests:
        lines += ["", *estimator_section(records, meta, est)]
    return "\n".join(lines) + "\n"


def main(argv: Sequence[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--json", type=Path, default=RESULTS / "defaults.json")
    ap.add_argument("--out", type=Path, default=RESULTS / "defaults.md")
    ap.add_argument("--check", action="store_true",
                    help=f"exit 1 if an estimator misses a target on the other sets (mean gap < {TARGET_MEAN_GAP:+g}"
                         f", a set < {TARGET_SET_GAP:+g}, wall-time ratio > {TARGET_TIME_RATIO:g})")
    args = ap.parse_args(argv)
    data = json.loads(args.json.read_text())
    args.out.parent.mkdir(parents=True, exist_ok=True)
    args.out.write_text(markdown(data))
    print(f"wrote {args.out}")
    if args.check:
        bad = check(data["records"])
        for line in bad:
            print(f"target missed: {line}")
        return 1 if bad else 0
    return 0


if __name__ == "__main__":
    sys.exit(main())
