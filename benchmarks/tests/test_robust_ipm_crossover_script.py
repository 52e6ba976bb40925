"""benchmarks/studies/robust_ipm_crossover.py runs end to end on small synthetic problems (no data files)."""

from __future__ import annotations

import numpy as np

from benchmarks.studies import robust_ipm_crossover


def _blobs(n=200, d=3, seed=0):
    rng = np.random.default_rng(seed)
    y = np.where(rng.random(n) < 0.6, 1, -1)
    X = rng.normal(size=(n, d)) + 3.0 * y[:, None] * np.eye(d)[0]
    return X, y


def test_ipm_crossover_script_compares_both_solvers():
    """benchmarks/studies/robust_ipm_crossover.py: both solvers on the same reduced LP, the same optimum."""
    mod = robust_ipm_crossover
    X, y = _blobs(200)
    recs = mod.crossover(X, y, rows=(60, 150), landmarks=(5, 80), nus=(1.0,), repeat=1)
    assert [(r["n"], r["L"]) for r in recs] == [(60, 5), (150, 5), (150, 80)]  # L < n only
    for r in recs:
        assert r["ipm_s"] > 0 and r["highs_s"] > 0 and r["ipm_gap"] <= 1e-6
        assert abs(r["objective_rel_diff"]) <= 1e-6
    assert "| 150 | 80 |" in mod.markdown(recs)
    share = mod.pass_share(300, 20, repeat=1)
    assert 0 < share["passes_s"] < share["ipm_s"] and share["iterations"] < share["passes"] <= 3 * share["iterations"]
    assert share["highs_s"] > 0
