"""What the studies share: where the repository and its results are, the commit they ran at, the command line that
reran them, a fit timed in wall and CPU seconds, the memory of this process, and a study run in a child process."""

from __future__ import annotations

import os
import resource
import subprocess
import sys
import time
import warnings
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from sklearn.exceptions import ConvergenceWarning

#: the repository root, from which the studies run as ``python -m benchmarks.studies.NAME``
ROOT = Path(__file__).resolve().parents[2]
#: the committed JSON and Markdown of the studies
RESULTS = ROOT / "benchmarks" / "results"


def git_head() -> str:
    """The checkout's HEAD commit, or "unknown" outside a git checkout."""
    try:
        return subprocess.run(["git", "rev-parse", "HEAD"], capture_output=True, text=True, check=True,
                              cwd=Path(__file__).resolve().parent).stdout.strip()
    except (OSError, subprocess.CalledProcessError):
        return "unknown"


def uncommitted(paths: Sequence[str] = ("python", "cpp")) -> list[str]:
    """The files under ``paths`` (of the repository) that differ from HEAD, for a study's provenance: a run on a
    modified working tree names what it ran on."""
    try:
        out = subprocess.run(["git", "status", "--porcelain", "--untracked-files=no", "--", *paths],
                             capture_output=True, text=True, check=True, cwd=ROOT).stdout
    except (OSError, subprocess.CalledProcessError):
        return []
    return sorted(line[3:] for line in out.splitlines() if line.strip())


def command_line(module: str, argv: Sequence[str] | None) -> str:
    """The command that reruns study ``module`` with ``argv`` (the process's own arguments when None)."""
    return " ".join(["python -m", module, *(argv if argv is not None else sys.argv[1:])])


def fit_timed(est: Any, X: Any, y: Any) -> tuple[float, float, int]:
    """``est.fit(X, y)``: wall and CPU seconds, and the number of ConvergenceWarnings it issued."""
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always", ConvergenceWarning)
        wall0, cpu0 = time.perf_counter(), time.process_time()
        est.fit(X, y)
        wall, cpu = time.perf_counter() - wall0, time.process_time() - cpu0
    return wall, cpu, sum(issubclass(w.category, ConvergenceWarning) for w in caught)


def peak_rss_mib() -> float:
    """This process's peak resident set: VmHWM, not ``ru_maxrss``, which Linux carries over exec from the forked
    copy of the parent (a child would report the parent's peak when that is larger)."""
    try:
        with open("/proc/self/status") as f:
            for line in f:
                if line.startswith("VmHWM:"):
                    return int(line.split()[1]) / 1024.0
    except OSError:
        pass
    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024.0  # Linux reports KiB


def rss_mib() -> float:
    """This process's resident set now."""
    with open("/proc/self/statm") as f:
        return int(f.read().split()[1]) * os.sysconf("SC_PAGE_SIZE") / 2**20


def run_child(module: str, args: Sequence[str], **kwargs: Any) -> subprocess.CompletedProcess:
    """``python -m module args`` in a child process (``subprocess.run`` keywords in ``kwargs``), the repository root
    on its import path whatever the working directory."""
    env = dict(os.environ)
    env["PYTHONPATH"] = os.pathsep.join(p for p in (str(ROOT), env.get("PYTHONPATH")) if p)
    return subprocess.run([sys.executable, "-m", module, *args], env=env, **kwargs)
