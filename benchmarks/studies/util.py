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


def run_meta(module: str, argv: Sequence[str] | None, t0: float, load0: float, **extra: Any) -> dict[str, Any]:
    """The ``meta`` record of a study's results file: its command, commit and uncommitted changes, the machine's
    CPUs, thread settings and load average (``load0`` before the run, now after), versions and the run time since
    ``t0`` (a ``time.perf_counter()`` value); ``extra`` (e.g. the run's fixed hyperparameters) after the load."""
    import platform

    import numpy as np

    import svmopt

    meta: dict[str, Any] = {
        "command": command_line(module, argv), "git HEAD": git_head(), "uncommitted changes": uncommitted(),
        "date": time.strftime("%Y-%m-%d"), "cpus": os.cpu_count(),
        "OMP_NUM_THREADS / OPENBLAS_NUM_THREADS": [os.environ.get(v, "unset") for v in
                                                   ("OMP_NUM_THREADS", "OPENBLAS_NUM_THREADS")],
        "load average before / after": [round(load0, 2), round(os.getloadavg()[0], 2)]}
    meta.update(extra)
    meta.update({"svmopt": svmopt.__version__, "python / numpy": f"{platform.python_version()} / {np.__version__}",
                 "total run time": f"{time.perf_counter() - t0:.1f} s"})
    return meta


def write_results(out: dict[str, Any], path: Path) -> None:
    """``out`` as indented JSON at ``path`` (its folder made), and a line saying so."""
    import json

    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(json.dumps(out, indent=1) + "\n", encoding="utf-8")
    print(f"wrote {path}")


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
