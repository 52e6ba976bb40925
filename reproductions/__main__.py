"""``python -m reproductions NAME [--quick] [--out DIR] [--jobs N] [--seed S] [module options]``.

Runs the protocol of one paper (or ``all`` four, in paper order) by calling the ``main(argv)`` of its module with
the shared flags; each writes ``DIR/NAME.md`` and its figures (default ``DIR``: ``docs/reproductions`` of this
checkout). Options this command does not know are passed on to the module of a single protocol (e.g.
``--datasets iris``); ``python -m reproductions NAME --help`` lists them. A table of the runs (status, wall time,
report) is printed at the end; the exit status is 1 when any protocol failed.
"""

from __future__ import annotations

import argparse
import sys
import time
from collections.abc import Sequence
from pathlib import Path

from reproductions import PROTOCOLS
from reproductions._cli import QUICK_OUT, default_out
from svmopt.cli import CLIError, print_table  # `svmopt run`'s usage error and table printer


def reproduction_argv(args: argparse.Namespace, extra: Sequence[str] = ()) -> list[str]:
    """A module's ``main`` argv: the shared flags ``--quick``, ``--out``, ``--jobs``, ``--seed``, then ``extra``.

    ``--jobs`` and ``--seed`` are passed only when given, so that each module keeps its own defaults.
    """
    argv = ["--quick"] if args.quick else []
    argv += ["--out", str(args.out)]
    if args.jobs is not None:
        argv += ["--jobs", str(args.jobs)]
    if args.seed is not None:
        argv += ["--seed", str(args.seed)]
    return argv + list(extra)


def run_reproduction(name: str, argv: Sequence[str]) -> str | None:
    """Run one paper's protocol: ``reproductions.<module>.main(argv)``.

    Returns ``None`` on success, otherwise a one-line reason: the module is not in this version, an optional
    dependency or a data set is missing, the module rejected its arguments or exited non-zero, or it raised.
    """
    import importlib

    module_name = f"reproductions.{PROTOCOLS[name][0]}"
    try:
        module = importlib.import_module(module_name)
    except ModuleNotFoundError as exc:
        if exc.name == module_name:
            return f"{module_name} does not exist in this checkout"
        return f"cannot import {module_name}: missing package {exc.name!r} (pip install -e '.[repro]' has them all)"
    try:
        status = module.main(list(argv))
    except SystemExit as exc:  # argparse errors and explicit exits inside the module
        status = exc.code
        if isinstance(status, str):
            return status
    except FileNotFoundError as exc:
        return f"missing data: {exc}"
    except ImportError as exc:
        return f"missing optional dependency: {exc} (pip install -e '.[repro]' installs them all)"
    except Exception as exc:  # a failed protocol is reported, and `all` goes on with the next one
        return f"{type(exc).__name__}: {exc}"
    if status not in (None, 0):
        return f"{module_name}.main exited with status {status}"
    return None


def run(args: argparse.Namespace, extra: Sequence[str] = (), out=None) -> int:
    out = sys.stdout if out is None else out
    names = list(PROTOCOLS) if args.name == "all" else [args.name]
    if extra and len(names) > 1:
        raise CLIError(f"options {' '.join(extra)} are for a single reproduction, not 'all'")
    outdir = Path(args.out)
    if outdir.exists() and not outdir.is_dir():
        raise CLIError(f"--out {outdir}: exists and is not a directory")
    try:
        outdir.mkdir(parents=True, exist_ok=True)
    except OSError as exc:
        raise CLIError(f"--out {outdir}: cannot create it: {exc}") from exc
    results = []
    for k, name in enumerate(names, 1):
        module, what = PROTOCOLS[name]
        print(f"[{k}/{len(names)}] python -m reproductions {name} ({what}){' --quick' if args.quick else ''}", file=out,
              flush=True)
        t0, started = time.perf_counter(), time.time()
        reason = run_reproduction(name, reproduction_argv(args, extra))
        wall = time.perf_counter() - t0
        report = outdir / f"{module}.md"
        if reason is None and (not report.is_file() or report.stat().st_mtime < started - 1.0):
            reason = f"finished but wrote no report at {report}"
        if reason is not None:
            print(f"reproductions: error: {name} failed: {reason}", file=sys.stderr, flush=True)
        results.append({"name": name, "status": "ok" if reason is None else "FAILED", "wall_s": wall,
                        "report": str(report) if reason is None else reason[:100]})
    print("\nReproductions:", file=out)
    print_table(results, [("name", "paper", "{}"), ("status", "status", "{}"), ("wall_s", "wall [s]", "{:.1f}"),
                           ("report", "report / reason", "{}")], out)
    failed = [r["name"] for r in results if r["status"] != "ok"]
    if failed:
        print(f"reproductions: {len(failed)} of {len(results)} protocol(s) failed: {', '.join(failed)}",
              file=sys.stderr)
        return 1
    return 0


def build_parser() -> argparse.ArgumentParser:
    ap = argparse.ArgumentParser(
        prog="python -m reproductions",
        description="Run the reproduction protocol of one paper (or all four) and write DIR/NAME.md with its "
        "figures. Options not listed here are passed on to the module of a single protocol "
        "(python -m reproductions NAME --help lists them).", add_help=True)
    ap.add_argument("name", choices=[*PROTOCOLS, "all"], help="which paper's protocol ('all' runs the four)")
    ap.add_argument("--quick", action="store_true", help="the module's quick mode (a subset, minutes)")
    ap.add_argument("--out", default=None, help="directory for the reports (default: docs/reproductions; with --quick "
                    f"a scratch folder, {QUICK_OUT}, so that a quick run never overwrites a committed report)")
    ap.add_argument("--jobs", type=int, default=None, help="parallel workers, -1 = all cores (default: the module's)")
    ap.add_argument("--seed", type=int, default=None, help="random seed (default: the module's)")
    return ap


def main(argv: Sequence[str] | None = None) -> int:
    argv = list(sys.argv[1:] if argv is None else argv)
    if len(argv) >= 2 and argv[0] in PROTOCOLS and argv[1] in ("-h", "--help"):
        import importlib

        return importlib.import_module(f"reproductions.{PROTOCOLS[argv[0]][0]}").main(["--help"])
    ap = build_parser()
    args, extra = ap.parse_known_args(argv)
    if args.jobs is not None and (args.jobs == 0 or args.jobs < -1):
        ap.error("--jobs must be >= 1, or -1 for all cores")
    if args.out is None:
        args.out = str(default_out(args.quick))
    try:
        return run(args, extra)
    except CLIError as exc:
        print(f"reproductions: error: {exc}", file=sys.stderr)
        return 2


if __name__ == "__main__":
    sys.exit(main())
