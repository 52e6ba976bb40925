"""benchmarks/studies/defaults.py runs end to end on two bundled data sets at tiny settings, and report_defaults.py
renders what its JSON holds (every mean gap recomputed here from the records)."""

from __future__ import annotations

import json

import numpy as np
import pytest

from benchmarks.studies import defaults, report_defaults

DATASETS = ("sonar", "ionosphere")  # bundled with the package: no SVMOPT_DATA needed
SPLITS = 2


@pytest.fixture(scope="module")
def scripts():
    pytest.importorskip("sklearn")
    return defaults, report_defaults


def test_defaults_script_runs_and_reports(scripts, tmp_path, monkeypatch, capsys):
    bench, report = scripts
    monkeypatch.delenv("SVMOPT_DATA", raising=False)
    out = tmp_path / "defaults.json"
    # spambase is not bundled: with SVMOPT_DATA unset it is skipped with a message, not an error
    assert bench.main(["--datasets", *DATASETS, "spambase", "--splits", str(SPLITS), "--max-rows", "150",
                       "--estimators", *bench.ESTIMATORS, "--json", str(out)]) == 0
    printed = capsys.readouterr().out
    res = json.loads(out.read_text())
    recs, meta = res["records"], res["meta"]

    # the exclusions: each estimator skips its paper's data sets (RampLossSVC's include sonar and ionosphere)
    assert "RampLossSVC" not in {r["model"] for r in recs}
    for r in recs:
        if r["role"] == "ours":
            assert r["dataset"] not in bench.PAPER_DATASETS[r["model"]]
    expected = 0
    for name in DATASETS:
        ours = [e for e in bench.ESTIMATORS if name not in bench.PAPER_DATASETS[e]]
        peers = {bench.ESTIMATORS[e][1] for e in ours}
        assert {r["model"] for r in recs if r["dataset"] == name} == {*ours, *peers}
        expected += SPLITS * (len(ours) + len(peers))
    assert len(recs) == expected == 20
    assert sum(" split " in line for line in printed.splitlines()) == len(recs)  # one line per fit
    assert "spambase" in meta["skipped_datasets"] and "spambase: skipped" in printed

    for r in recs:
        assert r["n_used"] == 150 and r["n_original"] > 150 and r["n_train"] + r["n_test"] == 150
        assert r["split"] in range(SPLITS) and r["wall_s"] >= 0 and r["cpu_s"] >= 0
        assert 0.5 <= r["majority_rate"] <= 1
        assert r["n_warnings"] == sum(r["warning_categories"].values())
        if r["error"] is None:
            assert 0.0 <= r["accuracy"] <= 1.0
            assert isinstance(r["best_params"] if r["role"] == "peer" else r["selected"], dict)
        else:
            assert r["accuracy"] is None
    assert all(r["error"] is None for r in recs if r["role"] == "peer")
    assert {meta["datasets"][n]["positive"] for n in DATASETS} == {"M", "b"}
    assert meta["protocol"]["splits"] == SPLITS and meta["protocol"]["max_rows"] == 150
    assert meta["svmopt_version"] and meta["git_commit"] and "--max-rows 150" in meta["command"]

    md_path = tmp_path / "defaults.md"
    assert report.main(["--json", str(out), "--out", str(md_path)]) == 0
    md = md_path.read_text()
    failing = []
    for est, (_, peer) in bench.ESTIMATORS.items():
        ran = sorted({r["dataset"] for r in recs if r["model"] == est})
        if not ran:
            assert f"## {est}" not in md
            continue
        assert f"## {est}" in md and f"Peer: {peer}." in md
        pacc = {(r["dataset"], r["split"]): r["accuracy"] for r in recs if r["model"] == peer}
        per_set = []
        for name in ran:
            gaps = [100 * (r["accuracy"] - pacc[name, r["split"]]) for r in recs
                    if r["model"] == est and r["dataset"] == name and r["accuracy"] is not None]
            if gaps:
                per_set.append(float(np.mean(gaps)))
        if per_set:
            gap = float(np.mean(per_set))
            assert f"Mean gap over its {len(per_set)} data sets: {gap:+.2f} points." in md
            if gap < -1:
                failing.append(est)
    capsys.readouterr()
    assert report.main(["--json", str(out), "--out", str(md_path), "--check"]) == (1 if failing else 0)
    checked = capsys.readouterr().out
    assert all(f"{est}: mean gap" in checked for est in failing)

    # --append: a second run for one estimator reuses the peers recorded above and replaces only its own records
    before = {(r["dataset"], r["split"], r["model"]): r for r in recs}
    assert bench.main(["--datasets", "sonar", "--splits", str(SPLITS), "--max-rows", "150", "--estimators",
                       "RobustSVC", "--json", str(out), "--append", "--quiet"]) == 0
    merged = json.loads(out.read_text())
    assert len(merged["records"]) == len(recs) and len(merged["meta"]["runs"]) == 2
    for r in merged["records"]:
        if r["role"] == "peer":
            assert r == before[r["dataset"], r["split"], r["model"]]
    # another protocol is not merged
    assert bench.main(["--datasets", "sonar", "--splits", "1", "--max-rows", "150", "--estimators", "RobustSVC",
                       "--json", str(out), "--append", "--quiet"]) == 2


def test_selected_values_records_what_exists(scripts):
    bench, _ = scripts

    class Kernel:
        def __repr__(self):
            return "Kernel('rbf', alpha=2.0)"

    class Fitted:
        def __init__(self):
            self.nu_ = np.array([0.5])
            self.kernel_ = Kernel()
            self.C_ = np.float64(10.0)
            self.budget_ = np.arange(100)  # too long: left out
            self.alpha_ = None
            self.cv_results_ = {"mean_test_score": np.array([0.5, 0.9]), "params": [{"C": 1}, {"C": 10}]}

        @property
        def rho_(self):
            raise AttributeError("not fitted with rho")

    got = bench.selected_values(Fitted())
    assert got == {"nu_": 0.5, "kernel_": "Kernel('rbf', alpha=2.0)", "C_": 10.0,
                   "cv_results_": {"n_candidates": 2, "best_mean_test_score": 0.9, "best_params": {"C": 10}}}
    json.dumps(got)
