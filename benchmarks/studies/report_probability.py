"""The Markdown of ``probability.py``'s results: one row per data set and classifier, every figure computed from the
JSON. From the repository root::

    python -m benchmarks.studies.report_probability > benchmarks/results/probability.md
    python -m benchmarks.studies.report_probability --summary     # the summary alone (docs/performance.md)

Each row sets a classifier's own ``probability=True`` beside ``CalibratedClassifierCV`` of it: for svmopt's
classifiers ``ours`` and ``ccv-ours``, for scikit-learn's ``SVC`` its LIBSVM Platt scaling (``svc-libsvm``) and
``ccv-svc``. The extra fit time is (fit with probabilities) / (plain fit of the same classifier), in wall and in CPU
seconds of the same run.
"""

from __future__ import annotations

import argparse
import json
import sys
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import numpy as np

from benchmarks.studies.util import RESULTS

JSON = RESULTS / "probability.json"
#: per classifier: (its own probabilities, CalibratedClassifierCV of it)
PAIRS = {"SVC": ("svc-libsvm", "ccv-svc")}
OWN, CCV = "ours", "ccv-ours"


def pair_names(estimator: str) -> tuple[str, str]:
    return PAIRS.get(estimator, (OWN, CCV))


def index(records: list[dict[str, Any]]) -> dict[tuple[str, str, str], dict[str, Any]]:
    return {(r["dataset"], r["estimator"], r["model"]): r for r in records}


def ok(r: dict[str, Any] | None) -> bool:
    return r is not None and "error" not in r and "log_loss" in r


def fmt(x: float | None, spec: str = ".3f") -> str:
    return "-" if x is None or not np.isfinite(x) else format(x, spec)


def pct(x: float | None) -> str:
    return "-" if x is None else f"{100 * x:.1f} %"


def both(a: dict[str, Any] | None, b: dict[str, Any] | None, key: str, f=fmt) -> str:
    return " / ".join(f(r.get(key)) if ok(r) else ("error" if r is not None else "-") for r in (a, b))


def table(data: dict[str, Any]) -> list[str]:
    recs = data["records"]
    idx = index(recs)
    sets = list(dict.fromkeys(r["dataset"] for r in recs))
    ests = list(dict.fromkeys(["SVC", *(r["estimator"] for r in recs)]))
    out = ["| data set (train rows, d, classes) | classifier | log-loss own / CCV | Brier own / CCV | "
           "accuracy plain / own / CCV | argmax != predict own / CCV | extra fit wall own / CCV | "
           "extra fit CPU own / CCV |",
           "|---|---|---|---|---|---|---|---|"]
    for ds in sets:
        first = next(r for r in recs if r["dataset"] == ds)
        label = f"{ds} ({first['n_train']}, {first['d']}, {first['n_classes']})"
        for est in ests:
            own_name, ccv_name = pair_names(est)
            a, b = idx.get((ds, est, own_name)), idx.get((ds, est, ccv_name))
            if a is None and b is None:
                continue
            plain = next((r for r in (a, b) if r is not None and "plain_accuracy" in r), None)
            acc = " / ".join([pct(plain["plain_accuracy"]) if plain else "-",
                              *(pct(r.get("accuracy")) if ok(r) else "-" for r in (a, b))])
            name = est if est != "SVC" else "SVC (LIBSVM Platt / CCV)"
            out.append("| " + " | ".join([label, name, both(a, b, "log_loss"), both(a, b, "brier"), acc,
                                          both(a, b, "argmax_disagreement", pct),
                                          both(a, b, "extra_fit_wall", lambda x: fmt(x, ".2f") + "x"),
                                          both(a, b, "extra_fit_cpu", lambda x: fmt(x, ".2f") + "x")]) + " |")
            label = ""
    return out


def summary(data: dict[str, Any]) -> dict[str, Any]:
    """The headline figures: how often and by how much ``ours`` beats ``ccv-ours`` and SVC's LIBSVM probabilities on
    log-loss and Brier, the argmax mismatch shares, and the extra fit times (medians and ranges)."""
    recs = data["records"]
    idx = index(recs)
    pairs = sorted({(r["dataset"], r["estimator"]) for r in recs if r["estimator"] != "SVC"})
    s: dict[str, Any] = {"pairs": len(pairs), "sets": len({d for d, _ in pairs}),
                         "errors": sorted(f"{r['dataset']}/{r['estimator']}/{r['model']}" for r in recs
                                          if "error" in r)}
    for metric in ("log_loss", "brier"):
        wins, ratios, vs_libsvm, vs_ccv_svc = 0, [], 0, 0
        n = n_peer = 0
        for ds, est in pairs:
            a, b = idx.get((ds, est, OWN)), idx.get((ds, est, CCV))
            lib, csv = idx.get((ds, "SVC", "svc-libsvm")), idx.get((ds, "SVC", "ccv-svc"))
            if ok(a) and ok(b):
                n += 1
                wins += a[metric] < b[metric]
                ratios.append(a[metric] / b[metric])
            if ok(a) and ok(lib) and ok(csv):
                n_peer += 1
                vs_libsvm += a[metric] < lib[metric]
                vs_ccv_svc += a[metric] < csv[metric]
        s[metric] = {"compared": n, "ours_below_ccv_ours": wins,
                     "median_ratio_ours_to_ccv_ours": float(np.median(ratios)) if ratios else None,
                     "ratio_range": [float(min(ratios)), float(max(ratios))] if ratios else None,
                     "compared_to_svc": n_peer, "ours_below_svc_libsvm": vs_libsvm, "ours_below_ccv_svc": vs_ccv_svc}
    best = []
    for ds in sorted({d for d, _ in pairs}):
        ours = [idx[(ds, e, OWN)]["log_loss"] for d, e in pairs if d == ds and ok(idx.get((ds, e, OWN)))]
        lib = idx.get((ds, "SVC", "svc-libsvm"))
        if ours and ok(lib):
            best.append((ds, min(ours), lib["log_loss"]))
    s["best_ours_below_svc_libsvm"] = [sum(b < lb for _, b, lb in best), len(best)]
    for model in (OWN, CCV, "svc-libsvm", "ccv-svc"):
        shares = [r["argmax_disagreement"] for r in recs if r["model"] == model and ok(r)]
        s[f"argmax_{model}"] = {"fits": len(shares), "max": max(shares) if shares else None,
                                "mean": float(np.mean(shares)) if shares else None,
                                "fits_above_zero": sum(x > 0 for x in shares)}
        for unit in ("wall", "cpu"):
            xs = [r[f"extra_fit_{unit}"] for r in recs if r["model"] == model and r.get(f"extra_fit_{unit}")]
            s[f"extra_{unit}_{model}"] = ({"median": float(np.median(xs)), "min": float(min(xs)), "max": float(max(xs))}
                                          if xs else None)
    acc = [(r["accuracy"] - r["plain_accuracy"]) for r in recs if r["model"] == OWN and ok(r) and "plain_accuracy" in r]
    s["ours_accuracy_minus_plain_points"] = ({"max_abs": 100 * float(np.max(np.abs(acc))), "fits": len(acc)}
                                            if acc else None)
    acc = [(r["accuracy"] - r["plain_accuracy"]) for r in recs if r["model"] == CCV and ok(r) and "plain_accuracy" in r]
    s["ccv_accuracy_minus_plain_points"] = ({"mean": 100 * float(np.mean(acc)), "min": 100 * float(np.min(acc)),
                                             "max": 100 * float(np.max(acc)), "fits": len(acc)} if acc else None)
    return s


def rng(d: dict[str, float] | None, spec: str = ".2f") -> str:
    return "-" if d is None else f"{d['median']:{spec}}x (range {d['min']:{spec}}-{d['max']:{spec}}x)"


def summary_lines(data: dict[str, Any]) -> list[str]:
    s, meta = summary(data), data["meta"]
    ll, br = s["log_loss"], s["brier"]
    lines = [
        f"Over {s['pairs']} (data set, svmopt classifier) pairs on {s['sets']} data sets (at most "
        f"{meta['max_rows']} rows each; commit {meta['git HEAD'][:10]}):",
        "",
        f"* log-loss: `probability=True` below `CalibratedClassifierCV` of the same classifier on "
        f"{ll['ours_below_ccv_ours']} of {ll['compared']} pairs, median ratio "
        f"{fmt(ll['median_ratio_ours_to_ccv_ours'])} (range {fmt(ll['ratio_range'][0])}-"
        f"{fmt(ll['ratio_range'][1])}); below SVC's LIBSVM probabilities on "
        f"{ll['ours_below_svc_libsvm']} of {ll['compared_to_svc']}, below `CalibratedClassifierCV(SVC())` on "
        f"{ll['ours_below_ccv_svc']}; the best svmopt classifier of a set below LIBSVM's on "
        f"{s['best_ours_below_svc_libsvm'][0]} of {s['best_ours_below_svc_libsvm'][1]} sets.",
        f"* Brier: below `CalibratedClassifierCV` of the same classifier on {br['ours_below_ccv_ours']} of "
        f"{br['compared']} pairs, median ratio {fmt(br['median_ratio_ours_to_ccv_ours'])} (range "
        f"{fmt(br['ratio_range'][0])}-{fmt(br['ratio_range'][1])}); below LIBSVM's on {br['ours_below_svc_libsvm']} of "
        f"{br['compared_to_svc']}, below `CalibratedClassifierCV(SVC())` on {br['ours_below_ccv_svc']}.",
    ]
    am = [s[f"argmax_{m}"] for m in (OWN, CCV, "svc-libsvm", "ccv-svc")]
    lines.append(
        f"* argmax(predict_proba) != predict: `probability=True` {pct(am[0]['max'])} of the test rows at most "
        f"({am[0]['fits_above_zero']} of {am[0]['fits']} fits above 0); `CalibratedClassifierCV` "
        f"{pct(am[1]['max'])} ({am[1]['fits_above_zero']} of {am[1]['fits']}; its predict is its argmax); "
        f"`SVC(probability=True)` up to {pct(am[2]['max'])}, mean {pct(am[2]['mean'])} ({am[2]['fits_above_zero']} of "
        f"{am[2]['fits']} sets above 0).")
    if s["ours_accuracy_minus_plain_points"]:
        acc = s["ours_accuracy_minus_plain_points"]
        ccv = s["ccv_accuracy_minus_plain_points"]
        lines.append(f"* accuracy: `probability=True` leaves `predict` as the plain fit's (largest difference "
                     f"{acc['max_abs']:.1f} points over {acc['fits']} fits); `CalibratedClassifierCV`'s predict (the "
                     f"argmax of 5 fold models' averaged probabilities) differs from the plain fit by "
                     f"{ccv['mean']:+.1f} points on average ({ccv['min']:+.1f} to {ccv['max']:+.1f}).")
    lines.append(
        f"* extra fit time (fit with probabilities / plain fit, median and range): `probability=True` "
        f"{rng(s['extra_wall_ours'])} wall, {rng(s['extra_cpu_ours'])} CPU; `CalibratedClassifierCV` of it "
        f"{rng(s['extra_wall_ccv-ours'])} wall, {rng(s['extra_cpu_ccv-ours'])} CPU; for SVC, LIBSVM's "
        f"{rng(s['extra_wall_svc-libsvm'])} wall and `CalibratedClassifierCV` {rng(s['extra_wall_ccv-svc'])} wall.")
    if s["errors"]:
        lines.append(f"* failed fits: {', '.join(s['errors'])}.")
    return lines


def report(data: dict[str, Any]) -> list[str]:
    meta = data["meta"]
    load = meta["load average before / after"]
    return [
        "# Probabilities: `probability=True` against scikit-learn's calibrations",
        "",
        f"Generated by `python -m benchmarks.studies.report_probability` from `benchmarks/results/probability.json` "
        f"(`{meta['command']}`; commit {meta['git HEAD'][:10]}"
        + (f", uncommitted changes in {len(meta['uncommitted changes'])} files of python/ and cpp/"
           if meta["uncommitted changes"] else "") + f"; {meta['date']}; {meta['total run time']}).",
        "",
        f"Machine: {meta['cpus']} CPUs shared with other jobs (load average {load[0]} before, {load[1]} after the "
        "run). The absolute seconds are of a loaded machine and are not recorded here; the ratios set two fits of "
        "the same run side by side (a fit under 1 s is the least of up to 3), and still carry the load's noise of "
        "some 10-30 % where a fit is a few hundredths of a second.",
        "",
        "Protocol (`benchmarks/studies/probability.py`): a stratified subsample of at most "
        f"{meta['max_rows']} rows, one stratified 70/30 split (seed 0), a StandardScaler, each classifier at its "
        "defaults with `random_state=0`. *own*: the classifier's `probability=True` (svmopt: held-out decision "
        "values of 5 seeded folds, a sigmoid through the decision threshold or a softmax temperature; SVC: LIBSVM's "
        "Platt scaling); *CCV*: `CalibratedClassifierCV(<classifier>, method=\"sigmoid\", cv=5)`. Brier as "
        "`sklearn.metrics.brier_score_loss` (two classes: in [0, 1]; more: the summed squared error, in [0, 2]). "
        "Extra fit time: (fit with probabilities) / (the plain fit of the same classifier).",
        "",
        "## Summary",
        "",
        *summary_lines(data),
        "",
        "## Per data set",
        "",
        *table(data),
        "",
    ]


def main(argv: Sequence[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("json", nargs="?", default=str(JSON))
    ap.add_argument("--summary", action="store_true", help="print the summary lines alone")
    args = ap.parse_args(argv)
    data = json.loads(Path(args.json).read_text(encoding="utf-8"))
    print("\n".join(summary_lines(data) if args.summary else report(data)))
    return 0


if __name__ == "__main__":
    sys.exit(main())
