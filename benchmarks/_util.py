"""What the benchmark scripts share: the commit they ran at, and a fit timed in wall and CPU seconds."""

from __future__ import annotations

import subprocess
import time
import warnings
from pathlib import Path
from typing import Any

from sklearn.exceptions import ConvergenceWarning


def git_head() -> str:
    """The checkout's HEAD commit, or "unknown" outside a git checkout."""
    try:
        return subprocess.run(["git", "rev-parse", "HEAD"], capture_output=True, text=True, check=True,
                              cwd=Path(__file__).resolve().parent).stdout.strip()
    except (OSError, subprocess.CalledProcessError):
        return "unknown"


def fit_timed(est: Any, X: Any, y: Any) -> tuple[float, float, int]:
    """``est.fit(X, y)``: wall and CPU seconds, and the number of ConvergenceWarnings it issued."""
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always", ConvergenceWarning)
        wall0, cpu0 = time.perf_counter(), time.process_time()
        est.fit(X, y)
        wall, cpu = time.perf_counter() - wall0, time.process_time() - cpu0
    return wall, cpu, sum(issubclass(w.category, ConvergenceWarning) for w in caught)


def load_script(path: Path) -> Any:
    """A script (benchmarks/*.py, reproductions/*.py) imported as a module without running it, for its tests."""
    import importlib.util
    import sys

    spec = importlib.util.spec_from_file_location(f"{path.stem}_script", path)
    assert spec is not None and spec.loader is not None
    mod = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = mod
    try:
        spec.loader.exec_module(mod)  # importing runs nothing
        return mod
    finally:
        sys.modules.pop(spec.name, None)
