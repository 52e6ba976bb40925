"""benchmarks/peers_fixed_size.py and statistics_accuracy.py run end to end at tiny sizes, and
report_fixed_size_peers.py renders what their JSON files hold."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from benchmarks._util import load_script

BENCH = Path(__file__).resolve().parents[1] / "benchmarks"



def test_peers_script_runs_and_reports(tmp_path, capsys):
    pytest.importorskip("sklearn")
    peers, report = load_script(BENCH / "peers_fixed_size.py"), load_script(BENCH / "report_fixed_size_peers.py")
    out = tmp_path / "peers.json"
    assert peers.main(["--rows", "3000", "--m", "20", "--tasks", "classification", "--contenders", "svmopt",
                       "svmopt-features", "sklearn", "--floor-rows", "2000", "--workdir", str(tmp_path),
                       "--out", str(out)]) == 0
    res = json.loads(out.read_text())
    runs = {r["contender"]: r for r in res["runs"]}
    assert set(runs) == {"svmopt", "svmopt-features", "sklearn"}
    assert all("fit_s" in r for r in runs.values()), runs
    assert runs["svmopt"]["statistics"] == "kernel" and runs["svmopt-features"]["statistics"] == "features"
    # the same model by either statistics: the same test accuracy
    assert runs["svmopt"]["test_accuracy"] == runs["svmopt-features"]["test_accuracy"]
    assert 0.5 < runs["svmopt"]["test_accuracy"] <= 1.0 and 0.5 < runs["sklearn"]["test_accuracy"] <= 1.0
    assert res["floor"]["3000x20"]["dsyrk_gflops"] > 0
    capsys.readouterr()
    assert report.main([str(out)]) == 0
    md = capsys.readouterr().out
    ratio = runs["sklearn"]["fit_s"] / runs["svmopt"]["fit_s"]
    assert f"{ratio:.1f}x" in md
    assert f"{100 * runs['svmopt']['test_accuracy']:.2f} %" in md


def test_accuracy_script_case_and_report(capsys):
    acc, report = load_script(BENCH / "statistics_accuracy.py"), load_script(BENCH / "report_fixed_size_peers.py")
    well = acc.case(400, 3, 20, 1.0, None, (10.0,))[0]
    assert well["auto"] == "kernel" and well["cond"] < 1e5
    assert well["features"] < 1e-11 and well["kernel"] < 1e-11
    ill = acc.case(400, 3, 20, 1.0, 1e-5, (10.0,))[0]  # near-duplicate prototypes
    assert ill["auto"] == "features" and ill["cond"] > 1e5
    assert ill["kernel"] is None or ill["kernel"] > 10 * ill["features"]
    lines = report.accuracy_table({"rows": [well, ill]})
    assert len(lines) == 4 and "| kernel |" in lines[2] and "| features |" in lines[3]


def test_pass_floor_script_interleaves_floor_and_passes(tmp_path):
    """benchmarks/fixed_size_pass_floor.py: each round has its floor and both passes, the ratios within the round."""
    path = Path(__file__).resolve().parents[1] / "benchmarks" / "fixed_size_pass_floor.py"
    mod = load_script(path)
    assert mod.main(["--rows", "3000", "--m", "20", "--rounds", "2", "--out-dir", str(tmp_path)]) == 0
    res = json.loads((tmp_path / "fixed_size_pass_floor.json").read_text())
    assert len(res["rounds"]) == 2
    for rec in res["rounds"]:
        for name in ("classifier", "regressor"):
            assert rec[name]["pass_over_floor"] == pytest.approx(rec[name]["pass_s"] / rec["floor_s"])
    assert res["summary"]["classifier"]["min"] <= res["summary"]["classifier"]["median"]
