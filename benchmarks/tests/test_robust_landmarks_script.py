"""benchmarks/studies/robust_landmarks.py runs end to end on a small synthetic problem (no data files)."""

from __future__ import annotations

import json

import numpy as np
import pytest

from benchmarks.studies import robust_landmarks


@pytest.fixture(scope="module")
def script():
    return robust_landmarks


def _blobs(n=300, d=3, seed=0):
    rng = np.random.default_rng(seed)
    y = np.where(rng.random(n) < 0.6, 1, -1)
    X = rng.normal(size=(n, d)) + 3.0 * y[:, None] * np.eye(d)[0]
    return X, y


def test_curve_records_both_models_at_every_size(script, tmp_path):
    res = script.run_curve({"blobs": _blobs()}, n_splits=2, landmarks=(5, 12), max_train=200, max_test=90)
    recs = res["datasets"]["blobs"]["records"]
    assert sorted((r["split"], r["L"]) for r in recs) == [(0, 5), (0, 12), (1, 5), (1, 12)]
    for r in recs:
        assert r["n_train"] == 200 and r["n_test"] == 90
        assert 0 < r["robust"]["n_support"] <= r["L"]
        for model in ("robust", "fixed_size"):
            assert r[model]["accuracy"] > 0.9, (model, r)  # separable blobs, majority class 0.6
            assert r[model]["wall_s"] > 0 and r[model]["cpu_s"] >= 0
    rows = script.table_rows(res)
    assert [(row["dataset"], row["L"]) for row in rows] == [("blobs", 5), ("blobs", 12)]
    for row in rows:
        ra = [r["robust"]["accuracy"] for r in recs if r["L"] == row["L"]]
        fa = [r["fixed_size"]["accuracy"] for r in recs if r["L"] == row["L"]]
        assert row["difference_mean"] == pytest.approx(np.mean(ra) - np.mean(fa))
        assert sum(row["wins"]) == 2
    md = script.markdown(res, {"splits": 2})
    assert "| blobs | 12 |" in md and "(data set, L) cells" in md and "at most one point below" in md
    # the saved JSON rewrites the same report without fitting
    (tmp_path / "r.json").write_text(json.dumps({"meta": {"splits": 2}, "results": res}))
    assert script.main(["--report-from", str(tmp_path / "r.json"), "--out-dir", str(tmp_path)]) == 0
    assert (tmp_path / "robust_landmarks.md").read_text() == md

