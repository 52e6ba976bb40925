"""The asv history's table in ``docs/development.md``, computed from the committed results of machine ``vm``.

For every commit of ``benchmarks/results/asv/history_commits.txt`` (oldest first): its build time as asv recorded
it, the Gram assembly at m = 4000 (linear, d = 10: svmopt, scikit-learn and the bandwidth floor; RBF, d = 100:
svmopt and scikit-learn), and the line search at m = 10^4 (the exact one against the naive grid on one thread), in
milliseconds, with the ratios to the same run's baseline that are what to compare on a loaded machine. A commit
whose benchmark did not run (it did not build, or lacked the API) shows a blank. From the repository root::

    python -m benchmarks.studies.asv_history           # rewrite the table in docs/development.md
    python -m benchmarks.studies.asv_history --check   # exit 1 where the page's table is not the results'
"""

from __future__ import annotations

import argparse
import json
import math
import re
import statistics
import sys
from pathlib import Path
from typing import Any

from benchmarks.studies.util import RESULTS, ROOT

HISTORY = RESULTS / "asv" / "history_commits.txt"
MACHINE = RESULTS / "asv" / "vm"
PAGE = ROOT / "docs" / "development.md"
START, END = "<!-- asv-history: start (python -m benchmarks.studies.asv_history) -->", "<!-- asv-history: end -->"


def history(path: Path = HISTORY) -> list[tuple[str, str, str]]:
    """``(hash, date, why)`` of each commit of the history file, oldest first."""
    rows = []
    for line in path.read_text(encoding="utf-8").splitlines():
        m = re.match(r"([0-9a-f]{40}) (\S+) \S+ (.*)", line)
        if m:
            rows.append((m.group(1), m.group(2), m.group(3)))
    return rows


def result_file(commit: str, machine: Path = MACHINE) -> dict[str, Any] | None:
    files = sorted(machine.glob(f"{commit[:8]}-*.json"))
    return json.loads(files[0].read_text(encoding="utf-8")) if files else None


def value(res: dict[str, Any], bench: str, params: dict[str, str]) -> float:
    """The median time of ``bench`` at ``params`` (asv's quoted parameter values), NaN where absent or failed."""
    entry = res.get("results", {}).get(bench)
    if entry is None:
        return math.nan
    values, grid = entry[0], entry[1]
    names = _param_names(bench)
    idx, stride = 0, 1
    for name, choices in reversed(list(zip(names, grid, strict=True))):
        want = params[name]
        if want not in choices:
            return math.nan
        idx += choices.index(want) * stride
        stride *= len(choices)
    v = values[idx] if isinstance(values, list) else values
    return math.nan if v is None else float(v)


def _param_names(bench: str) -> list[str]:
    spec = json.loads((RESULTS / "asv" / "benchmarks.json").read_text(encoding="utf-8"))
    return list(spec[bench]["param_names"])


GRAM = "bench_kernels.GramAssembly.time_gram"
EXACT = "bench_robust.LineSearch.time_exact"
NAIVE = "bench_robust.LineSearch.time_grid_1e4_naive_one_thread"


def ms(x: float) -> str:
    return "" if math.isnan(x) else (f"{x * 1e3:.0f}" if x >= 0.0995 else f"{x * 1e3:.3g}")


def ratio(a: float, b: float) -> str:
    return "" if math.isnan(a) or math.isnan(b) else f"{a / b:.2f}"


def rows() -> list[dict[str, Any]]:
    out = []
    for commit, date, why in history():
        res = result_file(commit) or {}
        gram = {impl: value(res, GRAM, {"kernel": "'linear'", "m": "4000", "d": "10", "impl": f"'{impl}'"})
                for impl in ("svmopt", "sklearn", "floor")}
        rbf = {impl: value(res, GRAM, {"kernel": "'rbf'", "m": "4000", "d": "100", "impl": f"'{impl}'"})
               for impl in ("svmopt", "sklearn")}
        line = (value(res, EXACT, {"m": "10000"}), value(res, NAIVE, {"m": "10000"}))
        build = res.get("durations", {}).get("<build>")
        out.append({"commit": commit, "date": date, "why": why, "build": build, "gram": gram, "rbf": rbf,
                    "line": line})
    return out


def table(data: list[dict[str, Any]] | None = None) -> str:
    data = rows() if data is None else data
    lines = ["| commit | date | why in the history | build (min) | Gram linear 4000x10, ms: svmopt / sklearn / floor "
             "| svmopt / sklearn | Gram rbf 4000x100, ms: svmopt / sklearn | svmopt / sklearn | LineSearch m = 10^4, "
             "ms: exact / naive grid (1 thread) |",
             "|---|---|---|---|---|---|---|---|---|"]
    for r in data:
        g, b, (ex, nv) = r["gram"], r["rbf"], r["line"]
        gram = "" if math.isnan(g["svmopt"]) else f"{ms(g['svmopt'])} / {ms(g['sklearn'])} / {ms(g['floor'])}"
        rbf = "" if math.isnan(b["svmopt"]) else f"{ms(b['svmopt'])} / {ms(b['sklearn'])}"
        line = "" if math.isnan(ex) else f"{ms(ex)} / {ms(nv)}"
        build = "" if r["build"] is None else f"{r['build'] / 60:.1f}"
        if not gram and not line:
            build = "failed" + (f" after {build}" if build else "")
        why = r["why"].replace("|", "/")
        lines.append(f"| `{r['commit'][:7]}` | {r['date'][5:]} | {why} | {build} | {gram} | "
                     f"{ratio(g['svmopt'], g['sklearn'])} | {rbf} | {ratio(b['svmopt'], b['sklearn'])} | {line} |")
    return "\n".join(lines)


def summary(data: list[dict[str, Any]] | None = None) -> str:
    """The sentence under the table: the spread of the ratios over the built commits."""
    data = rows() if data is None else data
    lin = [r["gram"]["svmopt"] / r["gram"]["sklearn"] for r in data if not math.isnan(r["gram"]["svmopt"])]
    flo = [r["gram"]["svmopt"] / r["gram"]["floor"] for r in data if not math.isnan(r["gram"]["floor"])]
    rbf = [r["rbf"]["svmopt"] / r["rbf"]["sklearn"] for r in data if not math.isnan(r["rbf"]["svmopt"])]
    builds = [r["build"] / 60 for r in data if r["build"] is not None]
    return (f"Over the {len(lin)} commits with a Gram point, svmopt's linear Gram took {min(lin):.2f}-{max(lin):.2f}x "
            f"scikit-learn's time (median {statistics.median(lin):.2f}) and {min(flo):.1f}-{max(flo):.1f}x the "
            f"bandwidth floor, the RBF Gram at d = 100 {min(rbf):.2f}-{max(rbf):.2f}x scikit-learn's (median "
            f"{statistics.median(rbf):.2f}); the {len(builds)} recorded builds took {min(builds):.1f}-"
            f"{max(builds):.1f} minutes each. A blank cell: the benchmark failed at that commit (its module imports "
            "a path the commit lacks, e.g. svmopt.robust before the redesign, or the commit did not build).")


def block() -> str:
    data = rows()
    return f"{START}\n{table(data)}\n\n{summary(data)}\n{END}"


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--check", action="store_true", help="exit 1 where docs/development.md differs")
    args = ap.parse_args(argv)
    page = PAGE.read_text(encoding="utf-8")
    if START not in page or END not in page:
        print(f"{PAGE}: no table markers", file=sys.stderr)
        return 1
    new = page[:page.index(START)] + block() + page[page.index(END) + len(END):]
    if args.check:
        if new != page:
            print("docs/development.md: the asv history table is not what the results give; run "
                  "python -m benchmarks.studies.asv_history", file=sys.stderr)
            return 1
        return 0
    PAGE.write_text(new, encoding="utf-8")
    print(table())
    return 0


if __name__ == "__main__":
    sys.exit(main())
