"""Markdown report of ``defaults.py``'s JSON: each estimator at its defaults against its tuned scikit-learn peer.

Every figure is computed from the records of the JSON. The gap of a split is our test accuracy minus the peer's on
the same split, in percentage points; a data set's gap is its mean over the splits where both fits succeeded; an
estimator's mean gap is the mean of its data sets' gaps. ``--check`` exits 1 when an estimator's mean gap is below
``-CHECK_POINTS`` (and names it)::

    python -m benchmarks.studies.report_defaults --json benchmarks/results/defaults.json \
        --out benchmarks/results/defaults.md

(those two paths are the defaults).
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

CHECK_POINTS = 1.0  # a mean gap below -CHECK_POINTS fails --check; data sets below it are counted in the report
ORDER = ("RobustSVC", "FixedSizeLSSVC", "RampLossSVC", "EllipsoidPSOClassifier")
_SHOWN = 3  # longer lists of selected values are shown by their length


# ------------------------------------------------------------------------------------------------- numbers
def _ok(r: Mapping[str, Any]) -> bool:
    return r.get("error") is None and r.get("accuracy") is not None


def estimators(records: Sequence[Mapping[str, Any]]) -> list[str]:
    """Our estimators present in the records, in the usual order (unknown names after it)."""
    names = {r["model"] for r in records if r["role"] == "ours"}
    return [n for n in ORDER if n in names] + sorted(names - set(ORDER))


def peer_of(records: Sequence[Mapping[str, Any]], est: str) -> str:
    return next(r["peer"] for r in records if r["role"] == "ours" and r["model"] == est)


def dataset_rows(records: Sequence[Mapping[str, Any]], est: str) -> dict[str, dict[str, Any]]:
    """Per data set that ``est`` ran on (in record order): its records, the peer's on the same splits, and the gap."""
    peer = peer_of(records, est)
    peers = {(r["dataset"], r["split"]): r for r in records if r["role"] == "peer" and r["model"] == peer}
    out: dict[str, dict[str, Any]] = {}
    for r in records:
        if r["role"] != "ours" or r["model"] != est:
            continue
        row = out.setdefault(r["dataset"], {"ours": [], "peer": [], "gaps": []})
        p = peers.get((r["dataset"], r["split"]))
        row["ours"].append(r)
        if p is not None:
            row["peer"].append(p)
            if _ok(r) and _ok(p):
                row["gaps"].append(100.0 * (r["accuracy"] - p["accuracy"]))
    for row in out.values():
        row["gap"] = float(np.mean(row["gaps"])) if row["gaps"] else None
    return out


def summary(records: Sequence[Mapping[str, Any]], est: str) -> dict[str, Any]:
    """Mean gap over the data sets, the worst data set, the number below -CHECK_POINTS, times and their ratio."""
    rows = dataset_rows(records, est)
    gaps = {n: row["gap"] for n, row in rows.items() if row["gap"] is not None}
    ours = [r for row in rows.values() for r in row["ours"]]
    peers = [r for row in rows.values() for r in row["peer"]]
    worst = min(gaps, key=gaps.__getitem__) if gaps else None

    def total(rs: Sequence[Mapping[str, Any]], k: str) -> float:
        return float(sum(r[k] for r in rs))

    return {
        "n_datasets": len(rows), "n_with_gap": len(gaps),
        "mean_gap": float(np.mean(list(gaps.values()))) if gaps else None,
        "worst": worst, "worst_gap": gaps[worst] if worst else None,
        "n_below": sum(g < -CHECK_POINTS for g in gaps.values()),
        "mean_fit_s": float(np.mean([r["wall_s"] for r in ours])) if ours else None,
        "mean_fit_cpu_s": float(np.mean([r["cpu_s"] for r in ours])) if ours else None,
        "mean_peer_s": float(np.mean([r["wall_s"] for r in peers])) if peers else None,
        "mean_peer_cpu_s": float(np.mean([r["cpu_s"] for r in peers])) if peers else None,
        "wall_ratio": total(ours, "wall_s") / total(peers, "wall_s") if peers and total(peers, "wall_s") else None,
        "cpu_ratio": total(ours, "cpu_s") / total(peers, "cpu_s") if peers and total(peers, "cpu_s") else None,
        "n_failed": sum(not _ok(r) for r in ours), "n_fits": len(ours),
    }


# ---------------------------------------------------------------------------------------------- formatting
def _ms(values: Sequence[float | None], scale: float = 1.0, digits: int = 2) -> str:
    v = [scale * x for x in values if x is not None]
    if not v:
        return "-"
    return f"{np.mean(v):.{digits}f} ± {np.std(v):.{digits}f}" if len(v) > 1 else f"{v[0]:.{digits}f}"


def _gap(g: float | None) -> str:
    return "-" if g is None else f"{g:+.2f}"


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


def protocol_paragraph(meta: Mapping[str, Any]) -> list[str]:
    p = meta["protocol"]
    runs = meta.get("runs", [])
    mach = meta.get("machine", {})
    lines = [
        f"Each of svmopt's estimators is constructed with no argument (only `random_state` = the split index where "
        f"it has one) and compared with a scikit-learn peer tuned by a grid search; every model is the last step of "
        f"`make_pipeline(StandardScaler(), model)`. Per data set: a stratified subsample of at most {p['max_rows']} "
        f"rows (seed {p['subsample_seed']}), then {p['splits']} stratified splits with {100 * p['test_size']:g} % "
        f"test rows (`StratifiedShuffleSplit`, seed {p['split_seed']}); labels `binary=\"{p['binary']}\"` (+1: the "
        "catalog's positive class). Fits run one after the other in one process; times are the fit's wall seconds "
        "and the process's CPU seconds. Gap = our test accuracy − the peer's on the same split, in points; a data "
        "set's gap is its mean over the splits, an estimator's mean gap the mean over its data sets; a fit that "
        "raised is counted as failed and left out of the gaps. Selected values: the fitted attributes our estimator "
        "exposes (its chosen hyperparameters where it tunes them), each with the number of successful fits that show "
        "its most frequent value. Each estimator skips the data sets of its own paper's tables.",
        "",
        "Peers:",
        "",
        *[f"- {k}: `{v}`" + (f" with {p['linear_svc_extra']}" if k.startswith("LinearSVC") and p.get(
            "linear_svc_extra") else "") for k, v in p["peers"].items()],
        "",
        "Skipped data sets (its paper's): " + "; ".join(
            f"{e} — {', '.join(ds)}" for e, ds in p["paper_datasets"].items()) + ".",
        "",
        f"svmopt {meta.get('svmopt_version', '?')}, scikit-learn {mach.get('scikit-learn', '?')}, numpy "
        f"{mach.get('numpy', '?')}, Python {mach.get('python', '?')}; {mach.get('platform', '?')}, "
        f"{mach.get('cpus', '?')} CPUs, OMP_NUM_THREADS={mach.get('OMP_NUM_THREADS', '?')}.",
        "",
        "Runs:",
        "",
        *[f"- `{r['command']}` at {r['git_commit'][:10]}, {r['started']}, {r['total_s']:.0f} s" for r in runs],
    ]
    if meta.get("skipped_datasets"):
        lines += ["", "Data sets not read (files missing): " + ", ".join(sorted(meta["skipped_datasets"])) + "."]
    return lines


def estimator_section(records: Sequence[Mapping[str, Any]], meta: Mapping[str, Any], est: str) -> list[str]:
    peer = peer_of(records, est)
    rows = dataset_rows(records, est)
    sm = summary(records, est)
    positives = {n: i.get("positive") for n, i in meta.get("datasets", {}).items()}
    lines = [f"## {est}", "", f"Peer: {peer}.", "",
             "| data set | positive class | n used (of original) | d | majority rate | our default accuracy | "
             "peer accuracy | gap (points) | our fit s (wall / CPU) | peer grid-search s (wall / CPU) | "
             "selected values (most frequent) | peer best params (most frequent) | warnings (ours / peer) | "
             "failed fits (ours / peer) |",
             "|---|---|---|---|---|---|---|---|---|---|---|---|---|---|"]
    for name, row in rows.items():
        o, p = row["ours"], row["peer"]
        r0 = o[0]
        lines.append(
            f"| {name} | {positives.get(name, r0.get('positive'))} | {r0['n_used']} ({r0['n_original']}) | {r0['d']} "
            f"| {_ms([r['majority_rate'] for r in o], digits=3)} "
            f"| {_ms([r['accuracy'] for r in o], 100)} | {_ms([r['accuracy'] for r in p], 100)} "
            f"| {_gap(row['gap'])} "
            f"| {_s(np.mean([r['wall_s'] for r in o]))} / {_s(np.mean([r['cpu_s'] for r in o]))} "
            f"| {_s(np.mean([r['wall_s'] for r in p])) if p else '-'} / "
            f"{_s(np.mean([r['cpu_s'] for r in p])) if p else '-'} "
            f"| {most_frequent([r.get('selected') for r in o if _ok(r)])} "
            f"| {most_frequent([r.get('best_params') for r in p if _ok(r)])} "
            f"| {_warnings(o)} / {_warnings(p)} "
            f"| {sum(not _ok(r) for r in o)} / {sum(not _ok(r) for r in p)} |")
    lines += ["", "Accuracies in %, mean ± std over the splits.", ""]
    lines += [f"- Mean gap over its {sm['n_with_gap']} data sets: {_gap(sm['mean_gap'])} points.",
              f"- Worst data set: {sm['worst'] or '-'} ({_gap(sm['worst_gap'])} points).",
              f"- Data sets with a gap below −{CHECK_POINTS:g} point: {sm['n_below']} of {sm['n_with_gap']}.",
              f"- Total time, ours / peer: {_s(sm['wall_ratio'])} (wall), {_s(sm['cpu_ratio'])} (CPU).",
              f"- Failed fits: {sm['n_failed']} of {sm['n_fits']}."]
    errors = [r for row in rows.values() for r in row["ours"] if not _ok(r)]
    if errors:
        lines += ["", "Errors:", ""]
        lines += [f"- {r['dataset']} split {r['split']}: {str(r['error']).splitlines()[0][:300]}" for r in errors]
    first = [(r["dataset"], r["split"], r["first_warning"]) for row in rows.values() for r in row["ours"]
             if r.get("first_warning")]
    if first:
        lines += ["", "First warning of each fit that raised any:", ""]
        lines += [f"- {n} split {s}: {str(w).splitlines()[0][:300]}" for n, s, w in first]
    defaults = meta.get("estimator_defaults", {}).get(est)
    if defaults:
        lines += ["", "Defaults benchmarked: " + ", ".join(f"`{k}={_value(v)}`" for k, v in defaults.items()) + "."]
    return lines


def markdown(data: Mapping[str, Any]) -> str:
    records, meta = data["records"], data["meta"]
    ests = estimators(records)
    lines = ["# Every estimator at its defaults against a tuned scikit-learn peer", "",
             "Generated by `benchmarks/studies/report_defaults.py` from the JSON of "
             "`benchmarks/studies/defaults.py`.", "",
             "| estimator | data sets | mean gap (points) | worst gap (data set) | mean fit s (wall / CPU) | "
             "mean peer grid s (wall / CPU) | failed fits |",
             "|---|---|---|---|---|---|---|"]
    for est in ests:
        sm = summary(records, est)
        n = str(sm["n_datasets"])
        if sm["n_with_gap"] != sm["n_datasets"]:
            n += f" ({sm['n_with_gap']} with a gap)"
        lines.append(f"| {est} | {n} | {_gap(sm['mean_gap'])} | {_gap(sm['worst_gap'])} "
                     f"({sm['worst'] or '-'}) | {_s(sm['mean_fit_s'])} / {_s(sm['mean_fit_cpu_s'])} | "
                     f"{_s(sm['mean_peer_s'])} / {_s(sm['mean_peer_cpu_s'])} | {sm['n_failed']} of {sm['n_fits']} |")
    lines += ["", "## Protocol", "", *protocol_paragraph(meta)]
    for est in ests:
        lines += ["", *estimator_section(records, meta, est)]
    return "\n".join(lines) + "\n"


def check(records: Sequence[Mapping[str, Any]]) -> list[str]:
    """The estimators whose mean gap is below -CHECK_POINTS, each with its gap."""
    out = []
    for est in estimators(records):
        g = summary(records, est)["mean_gap"]
        if g is not None and g < -CHECK_POINTS:
            out.append(f"{est}: mean gap {g:+.2f} points")
    return out


def main(argv: Sequence[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--json", type=Path, default=RESULTS / "defaults.json")
    ap.add_argument("--out", type=Path, default=RESULTS / "defaults.md")
    ap.add_argument("--check", action="store_true",
                    help=f"exit 1 if an estimator's mean gap is below -{CHECK_POINTS:g} point")
    args = ap.parse_args(argv)
    data = json.loads(args.json.read_text())
    args.out.parent.mkdir(parents=True, exist_ok=True)
    args.out.write_text(markdown(data))
    print(f"wrote {args.out}")
    if args.check:
        bad = check(data["records"])
        for line in bad:
            print(f"below -{CHECK_POINTS:g} point: {line}")
        return 1 if bad else 0
    return 0


if __name__ == "__main__":
    sys.exit(main())
