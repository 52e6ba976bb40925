"""The command-line convention every paper protocol shares (used by ``svmopt reproduce``).

``--quick``, ``--out DIR`` (writes ``DIR/<module>.md`` and its PNG figures), ``--jobs N`` (``parallel_map``;
-1 = all cores) and ``--seed S``; modules with figures add ``--figures-only``, ``--no-figures`` and ``--dpi``.
"""

from __future__ import annotations

import argparse

__all__ = ["add_figure_arguments", "check_protocol_arguments", "protocol_parser"]


def protocol_parser(module_name: str, doc: str, *, quick_help: str, seed_help: str,
                    jobs_help: str = "worker processes for independent fits (parallel_map; -1 = all cores)",
                    ) -> argparse.ArgumentParser:
    """A parser for ``python -m svmopt.experiments.<module_name>`` with the four shared options."""
    ap = argparse.ArgumentParser(prog=f"python -m svmopt.experiments.{module_name}", description=doc.split("\n")[0])
    ap.add_argument("--quick", action="store_true", help=quick_help)
    ap.add_argument("--out", default="docs/reproductions", metavar="DIR",
                    help=f"write DIR/{module_name}.md and its PNG figures (default docs/reproductions)")
    ap.add_argument("--jobs", type=int, default=1, help=jobs_help)
    ap.add_argument("--seed", type=int, default=0, help=seed_help)
    return ap


def add_figure_arguments(ap: argparse.ArgumentParser) -> None:
    ap.add_argument("--figures-only", action="store_true",
                    help="compute only the figures and put their section into DIR's existing report (tables kept)")
    ap.add_argument("--no-figures", action="store_true", help="tables only")
    ap.add_argument("--dpi", type=int, default=120, help="resolution of the PNG figures")


def check_protocol_arguments(ap: argparse.ArgumentParser, args: argparse.Namespace) -> None:
    """``ap.error`` (exit status 2) for a bad ``--jobs``, ``--dpi`` or both figure switches at once."""
    if args.jobs == 0 or args.jobs < -1:
        ap.error("--jobs must be >= 1, or -1 for all cores")
    if getattr(args, "dpi", 1) < 1:
        ap.error("--dpi must be >= 1")
    if getattr(args, "figures_only", False) and getattr(args, "no_figures", False):
        ap.error("--figures-only and --no-figures exclude each other")
