"""The command-line convention every paper protocol shares (``python -m reproductions NAME``).

``--quick``, ``--out DIR`` (writes ``DIR/NAME.md`` and its PNG figures), ``--results DIR`` (the results store:
by default the committed :data:`reproductions.RESULTS` for a full run, ``OUT/results`` for a quick one, so that a
quick run never mixes into the committed results), ``--report-only`` (write the report from the store, run
nothing), ``--jobs N`` (``parallel_map``; -1 = all cores) and ``--seed S``; modules with figures add
``--figures-only``, ``--no-figures`` and ``--dpi``.
"""

from __future__ import annotations

import argparse
import tempfile
from pathlib import Path

from reproductions import DOCS, RESULTS

QUICK_OUT = Path(tempfile.gettempdir()) / "svmopt-reproductions"

__all__ = ["QUICK_OUT", "add_figure_arguments", "check_protocol_arguments", "default_out", "protocol_parser",
           "results_dir"]


def protocol_parser(module_name: str, doc: str, *, quick_help: str, seed_help: str,
                    jobs_help: str = "worker processes for independent fits (parallel_map; -1 = all cores)",
                    ) -> argparse.ArgumentParser:
    """A parser for ``python -m reproductions.<module_name>`` with the four shared options."""
    ap = argparse.ArgumentParser(prog=f"python -m reproductions {module_name}",
                                 description=doc.split("\n")[0])
    ap.add_argument("--quick", action="store_true", help=quick_help)
    ap.add_argument("--out", default=None, metavar="DIR",
                    help=f"write DIR/{module_name}.md and its PNG figures (default: docs/reproductions, the "
                         f"committed reports; with --quick a scratch folder, {QUICK_OUT})")
    ap.add_argument("--results", default=None, metavar="DIR",
                    help="the results store to append to and report from (default: reproductions/results for a "
                         "full run, OUT/results with --quick)")
    ap.add_argument("--report-only", action="store_true",
                    help="run nothing: write the report from the results store (figures section kept)")
    ap.add_argument("--jobs", type=int, default=1, help=jobs_help)
    ap.add_argument("--seed", type=int, default=0, help=seed_help)
    return ap


def default_out(quick: bool) -> Path:
    """Where a report goes without ``--out``: the committed reports, or for a quick run a scratch folder (a quick
    run never overwrites a committed report)."""
    return QUICK_OUT if quick else DOCS


def results_dir(args: argparse.Namespace) -> Path:
    """The results store of this run: ``--results``, else ``OUT/results`` with ``--quick``, else the committed one."""
    if args.results is not None:
        return Path(args.results)
    if args.quick:
        return Path(args.out) / "results"
    return RESULTS


def add_figure_arguments(ap: argparse.ArgumentParser) -> None:
    ap.add_argument("--figures-only", action="store_true",
                    help="compute only the figures and put their section into DIR's existing report (tables kept)")
    ap.add_argument("--no-figures", action="store_true", help="tables only")
    ap.add_argument("--dpi", type=int, default=120, help="resolution of the PNG figures")


def check_protocol_arguments(ap: argparse.ArgumentParser, args: argparse.Namespace) -> None:
    """``ap.error`` (exit status 2) for a bad ``--jobs``, ``--dpi`` or both figure switches at once; fills in the
    default ``--out`` (:func:`default_out`)."""
    if getattr(args, "out", "") is None:
        args.out = str(default_out(bool(getattr(args, "quick", False))))
    if args.jobs == 0 or args.jobs < -1:
        ap.error("--jobs must be >= 1, or -1 for all cores")
    if getattr(args, "dpi", 1) < 1:
        ap.error("--dpi must be >= 1")
    if getattr(args, "figures_only", False) and getattr(args, "no_figures", False):
        ap.error("--figures-only and --no-figures exclude each other")
