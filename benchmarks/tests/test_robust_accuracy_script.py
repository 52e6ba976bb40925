"""benchmarks/studies/robust_accuracy.py runs end to end on a small synthetic problem (no data files)."""

from __future__ import annotations

import json
import math

import numpy as np
import pytest

from benchmarks.studies import robust_accuracy


@pytest.fixture(scope="module")
def script():
    return robust_accuracy


def _blobs(n=240, d=3, seed=0):
    """Two well separated Gaussian blobs (labels +1 / -1, 60% / 40%)."""
    rng = np.random.default_rng(seed)
    y = np.where(rng.random(n) < 0.6, 1, -1)
    X = rng.normal(size=(n, d)) + 3.0 * y[:, None] * np.eye(d)[0]
    return X, y


def test_rbf_gradient_matches_the_decision_function(script):
    X, y = _blobs()
    m = script.make_robust(15, 1.0, 0).fit(X, y)
    f, g = script.rbf_decision_and_gradient(m, X[:20])
    np.testing.assert_allclose(f, m.decision_function(X[:20]), atol=1e-10)
    h = 1e-6
    fp, _ = script.rbf_decision_and_gradient(m, X[:20] + h * np.eye(X.shape[1])[1])
    np.testing.assert_allclose((fp - f) / h, g[:, 1], atol=1e-4)
    # an attack stays in the ball and never raises the margin of the linearised model
    eta = np.full(20, 0.3)
    Xa = script.adversarial_rows(m, X[:20], y[:20], eta, 10)
    assert np.all(np.linalg.norm(Xa - X[:20], axis=1) <= eta + 1e-12)


def test_run_study_on_separable_blobs(script, tmp_path):
    data = {"blobs": _blobs()}
    res = script.run_study(data, n_splits=2, max_train=160, max_test=80, n_landmarks=15, nu_grid=(0.1, 1.0),
                           alpha_factors=(1.0, 2.0), perturb=["blobs"], rhos=(0.05,),
                           fs_params={"n_csa": 6, "n_simplex": 4, "cv": 3}, retry_wait=None)
    ds = res["datasets"]["blobs"]
    assert ds["selection"]["nu"] in (0.1, 1.0)
    assert len(ds["splits"]) == 2
    for rec in ds["splits"]:
        assert rec["n_train"] == 160 and rec["n_test"] == 80
        for key in ("robust", "robust_default", "robust_alpha", "fixed_size"):
            acc = rec[key]["accuracy"]
            assert 0.0 <= acc <= 1.0
            assert acc > 0.9, (key, acc)  # easy problem: far above chance (majority class is 0.6)
            assert rec[key]["wall_s"] > 0 and rec[key]["cpu_s"] >= 0
            assert rec[key]["convergence_warnings"] >= 0
    pert = res["perturbation"]["blobs"]["splits"]
    assert len(pert) == 2
    for split in pert:
        entry = split["robust"]["0.05"]
        for model in ("deterministic", "robust"):
            assert set(entry[model]) == {"clean", "random", "fgm", "pgd"}
            assert all(0.0 <= a <= 1.0 for a in entry[model].values())
        # rows moved by a small eta: the deterministic model keeps most of its clean accuracy
        assert entry["deterministic"]["random"] > 0.8
    # the report and the JSON are built from these records
    md = script.markdown(res, {"note": "test"})
    assert "| blobs |" in md and "robust − deterministic" in md
    summ = script.summarize(res)
    assert sum(summ["datasets"]["blobs"]["robust"]["wins_ties_losses_vs_fixed_size"]) == 2
    saved = tmp_path / "robust_accuracy.json"
    saved.write_text(json.dumps({"meta": {"note": "test"}, "results": res, "summary": summ},
                                default=script.json_default))
    assert script.main(["--report-from", str(saved), "--out-dir", str(tmp_path / "out")]) == 0
    assert (tmp_path / "out" / "robust_accuracy.md").read_text() == md


def test_timed_fit_records_a_failure_and_uses_the_fallback(script):
    class Boom:
        def fit(self, X, y):
            raise RuntimeError("boom")

    class Fine:
        def fit(self, X, y):
            return self

    out = script.timed_fit(Boom, None, None, None)
    assert out["model"] is None and math.isnan(out["wall_s"]) and out["errors"] == ["RuntimeError: boom"]
    out = script.timed_fit(Boom, None, None, 0.0, fallback=Fine)
    assert isinstance(out["model"], Fine) and out["fallback_used"] and len(out["errors"]) == 2
