"""benchmarks/report_fixed_size_peers.py: the extrapolation of scikit-learn's time where it could not run."""

from __future__ import annotations

import sys
from pathlib import Path

import pytest

SCRIPT = Path(__file__).resolve().parents[1] / "benchmarks" / "report_fixed_size_peers.py"


@pytest.fixture(scope="module")
def script():
    if not SCRIPT.is_file():
        pytest.skip("benchmarks/report_fixed_size_peers.py is not in this checkout")
    sys.path.insert(0, str(SCRIPT.parent))
    try:
        from _util import load_script

        yield load_script(SCRIPT)
    finally:
        sys.path.remove(str(SCRIPT.parent))


def _run(task, contender, rows, fit_s, m=2000, rss=1000.0):
    return {"task": task, "contender": contender, "rows": rows, "m": m, "fit_s": fit_s, "fit_cpu_s": 2 * fit_s,
            "peak_rss_mib": rss}


def test_extrapolation_fits_the_line_and_lends_its_fixed_part(script):
    """Time a + b n through the two largest row counts (the fastest run at each, duplicates allowed); a task
    measured at one count takes a from the other task's line at the same m; a task measured at the target is
    not extrapolated."""
    runs = [_run("regression", "sklearn", 250_000, 45.0, rss=8000.0), _run("regression", "sklearn", 250_000, 44.0),
            _run("regression", "sklearn", 500_000, 84.0, rss=16000.0), _run("regression", "sklearn", 100_000, 30.0),
            _run("classification", "sklearn", 250_000, 54.0),
            _run("regression", "svmopt", 1_000_000, 41.0), _run("regression", "svmopt", 1_000_000, 40.0),
            _run("classification", "svmopt", 1_000_000, 50.0),
            _run("regression", "sklearn", 1_000_000, 100.0, m=500),
            _run("regression", "svmopt", 1_000_000, 10.0, m=500),
            _run("regression", "sklearn", 250_000, 30.0, m=500), _run("regression", "sklearn", 500_000, 60.0, m=500)]
    lines = script.extrapolated_lines([{"runs": runs}], 1_000_000)
    assert len(lines) == 2  # m = 500 was measured at 10^6 rows
    reg = next(line for line in lines if line.startswith("* regression"))
    # b = (84 - 44) / 250,000 = 1.6e-4 s a row, a = 84 - 80 = 4 s: 164 s at 10^6 rows against svmopt's 40 s
    assert "extrapolated 164.0 s" in reg and "4.00 s + 160.00 s per 10^6 rows" in reg and reg.endswith("4.1x")
    assert "about 44.9 GiB" in reg  # memory on the line through the fastest runs' 1,000 and 16,000 MiB
    cls = next(line for line in lines if line.startswith("* classification"))
    # (54 - 4) / 250,000 a row and a = 4 s: 204 s against 50 s
    assert "extrapolated 204.0 s" in cls and "fixed part 4.00 s of the regression line" in cls and cls.endswith("4.1x")
    assert script.extrapolated_lines([{"runs": runs[4:8]}], 1_000_000) == []  # one count, no line to lend a
