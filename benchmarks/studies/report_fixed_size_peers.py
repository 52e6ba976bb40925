"""Markdown tables of ``peers_fixed_size.py`` and ``statistics_accuracy.py`` results (the figures of
``docs/performance.md#against-scikit-learn-and-the-flop-floor``), every ratio computed from the JSON files:

    python -m benchmarks.studies.report_fixed_size_peers benchmarks/results/peers_fixed_size_*.json \
        --accuracy benchmarks/results/statistics_accuracy.json > benchmarks/results/peers_fixed_size.md
"""

from __future__ import annotations

import argparse
import json
import sys


def score(r: dict) -> str:
    if "test_accuracy" in r:
        return f"{100 * r['test_accuracy']:.2f} %"
    if "test_mse" in r:
        return f"MSE {r['test_mse']:.4f}"
    return "-"


def fixed_table(files: list[dict]) -> list[str]:
    out = ["| task | n | m | source | svmopt (kernel statistics) | pass / floor | fit / floor | svmopt, features | "
           "scikit-learn Nystroem + Ridge | sklearn / svmopt | peak RSS svmopt / sklearn | test score svmopt / "
           "features / sklearn |",
           "|---|---|---|---|---|---|---|---|---|---|---|---|"]
    for f in files:
        runs = [r for r in f["runs"] if not r["contender"].endswith("tuned") and "tuned" not in r["contender"]]
        keys = sorted({(r["task"], r["rows"], r["m"], r.get("source", "numpy")) for r in runs
                       if r["contender"] == "svmopt" and "fit_s" in r})
        for task, n, m, source in keys:
            def pick(c, src="numpy", task=task, n=n, m=m, runs=runs):
                return next((r for r in runs if r["task"] == task and r["rows"] == n and r["m"] == m
                             and r["contender"] == c and r.get("source", "numpy") == src), None)

            ours = pick("svmopt", source)
            feats = pick("svmopt-features", source)
            skl = pick("sklearn")
            floor = f["floor"].get(f"{n}x{m}", {}).get("floor_s")
            tf = ours["timings"]["tuning_and_fit"]
            row = [task, f"{n:,}", str(m), source,
                   f"{ours['fit_s']:.1f} s ({ours['fit_cpu_s']:.1f} CPU-s)",
                   f"{tf / floor:.2f} ({tf:.1f} / {floor:.1f} s)" if floor else "-",
                   f"{ours['fit_s'] / floor:.2f}" if floor else "-",
                   f"{feats['fit_s']:.1f} s" if feats and "fit_s" in feats else "-"]
            if skl and "fit_s" in skl:
                row += [f"{skl['fit_s']:.1f} s ({skl['fit_cpu_s']:.1f} CPU-s)", f"{skl['fit_s'] / ours['fit_s']:.1f}x",
                        f"{ours['peak_rss_mib']:.0f} / {skl['peak_rss_mib']:.0f} MiB"]
            elif skl and "skipped" in skl:
                row += ["not run: " + skl["skipped"], "-", f"{ours['peak_rss_mib']:.0f} MiB / -"]
            else:
                row += ["-", "-", f"{ours['peak_rss_mib']:.0f} MiB / -"]
            row.append(" / ".join(score(r) if r else "-" for r in (ours, feats, skl if skl and "fit_s" in skl
                                                                         else None)))
            out.append("| " + " | ".join(row) + " |")
    return out


def floor_lines(files: list[dict]) -> list[str]:
    out = []
    for f in files:
        for key, fl in f["floor"].items():
            out.append(f"* floor {key}: dsyrk at {fl['dsyrk_gflops']} GFLOP/s -> {fl['floor_s']} s "
                       f"({fl['floor_cpu_s']} CPU-s)")
    return out


def tuned_table(files: list[dict]) -> list[str]:
    runs = [r for f in files for r in f["runs"] if "tuned" in r["contender"] and "fit_s" in r]
    if not runs:
        return []
    out = ["| task | n | m | contender | evaluations | passes | fit | gamma | sigma^2 | test score |",
           "|---|---|---|---|---|---|---|---|---|---|"]
    for r in runs:
        out.append(f"| {r['task']} | {r['rows']:,} | {r['m']} | {r['contender']} | {r.get('n_evals', '-')} | "
                   f"{r.get('n_passes', '-')} | {r['fit_s']:.1f} s ({r['fit_cpu_s']:.1f} CPU-s) | "
                   f"{r['gamma']:.3g} | {r['sigma2']:.3g} | {score(r)} |")
    return out


def extrapolated_lines(files: list[dict], rows: int) -> list[str]:
    """Where scikit-learn's pipeline did not run at ``rows`` (its features held in memory), its time there on the
    line a + b n through its runs of the same task and m at the two largest row counts below ``rows`` (the fastest
    run at each count; every step of the pipeline is linear in n but the Nystroem fit, the fixed part a). A task and
    m measured at one row count only take the fixed part a of another task's line at the same m. Against svmopt's
    fastest run at ``rows``."""
    runs = [r for f in files for r in f["runs"] if "fit_s" in r and r.get("source", "numpy") == "numpy"]
    skl = [r for r in runs if r["contender"] == "sklearn"]
    fastest: dict[tuple[str, int], dict[int, dict]] = {}
    for r in skl:
        if r["rows"] < rows:
            at = fastest.setdefault((r["task"], r["m"]), {})
            if r["rows"] not in at or r["fit_s"] < at[r["rows"]]["fit_s"]:
                at[r["rows"]] = r
    lines: dict[tuple[str, int], tuple[float, float, str, float]] = {}  # (a, b, how, memory at rows in MiB)
    for (task, m), at in fastest.items():
        if len(at) >= 2:
            (n1, r1), (n2, r2) = sorted(at.items())[-2:]
            b = (r2["fit_s"] - r1["fit_s"]) / (n2 - n1)
            a = r2["fit_s"] - b * n2
            mem = r1["peak_rss_mib"] + (r2["peak_rss_mib"] - r1["peak_rss_mib"]) / (n2 - n1) * (rows - n1)
            lines[(task, m)] = (a, b, f"line through {n1:,} rows ({r1['fit_s']:.2f} s) and {n2:,} "
                                      f"({r2['fit_s']:.2f} s): {a:.2f} s + {b * 1e6:.2f} s per 10^6 rows", mem)
    for (task, m), at in fastest.items():
        donors = [(t, line) for (t, mm), line in lines.items() if mm == m and t != task]
        if len(at) == 1 and donors:
            (n2, r2), = at.items()
            donor, (a, _, _, _) = donors[0]
            b = (r2["fit_s"] - a) / n2
            lines[(task, m)] = (a, b, f"{n2:,} rows ({r2['fit_s']:.2f} s) with the fixed part {a:.2f} s of the "
                                      f"{donor} line", r2["peak_rss_mib"] * rows / n2)
    out = []
    for (task, m), (a, b, how, mem) in sorted(lines.items()):
        if any(r["rows"] == rows for r in skl if r["task"] == task and r["m"] == m):
            continue  # measured there
        ours = [r for r in runs if r["contender"] == "svmopt" and r["task"] == task and r["m"] == m
                and r["rows"] == rows]
        if not ours:
            continue
        est = a + b * rows
        o = min(ours, key=lambda r: r["fit_s"])
        out.append(f"* {task}, m = {m}, {rows:,} rows: scikit-learn extrapolated {est:.1f} s ({how}; peak memory "
                   f"about {mem / 1024:.1f} GiB), svmopt measured {o['fit_s']:.2f} s ({o['fit_cpu_s']:.1f} CPU-s, "
                   f"{o['peak_rss_mib']:.0f} MiB): {est / o['fit_s']:.1f}x")
    return out


def accuracy_table(acc: dict) -> list[str]:
    out = ["| RBF sigma^2 | near-duplicate offset | m' / m | lambda_max / lambda'_min | gamma | features: error | "
           "kernel statistics: error | auto takes |",
           "|---|---|---|---|---|---|---|---|"]
    for r in acc["rows"]:
        def e(x):
            return "not positive definite" if x is None else f"{x:.1e}"

        out.append(f"| {r['sigma2']:g} | {r['near_duplicates'] if r['near_duplicates'] is not None else '-'} | "
                   f"{r['m_kept']} / {r['m']} | {r['cond']:.1e} | {r['gamma']:g} | {e(r['features'])} | "
                   f"{e(r['kernel'])} | {r['auto']} |")
    return out


def main(argv=None) -> int:
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("files", nargs="*")
    p.add_argument("--accuracy", default=None)
    p.add_argument("--extrapolate-to", type=int, default=None,
                   help="rows at which to extrapolate scikit-learn's time where it did not run (extrapolated_lines)")
    args = p.parse_args(argv)
    files = [json.load(open(f)) for f in args.files]
    commits = sorted({f["commit"][:10] for f in files})
    lines = [f"Commits: {', '.join(commits)}.", "", *fixed_table(files), "", *floor_lines(files)]
    if args.extrapolate_to:
        lines += ["", *extrapolated_lines(files, args.extrapolate_to)]
    t = tuned_table(files)
    if t:
        lines += ["", *t]
    if args.accuracy:
        acc = json.load(open(args.accuracy))
        lines += ["", f"Accuracy against long double (n = {acc['n']}, d = {acc['d']}, commit {acc['commit'][:10]}): "
                      "max |f - f_ref| / max |f_ref| on 500 test rows.", "", *accuracy_table(acc)]
    print("\n".join(lines))
    return 0


if __name__ == "__main__":
    sys.exit(main())
