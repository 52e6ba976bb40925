"""benchmarks/studies/peers_fixed_size.py and statistics_accuracy.py run end to end at tiny sizes, and
report_fixed_size_peers.py renders what their JSON files hold."""

from __future__ import annotations

import json

import pytest

from benchmarks.studies import fixed_size_pass_floor, peers_fixed_size, report_fixed_size_peers, statistics_accuracy


def test_peers_script_runs_and_reports(tmp_path, capsys):
    pytest.importorskip("sklearn")
    peers, report = peers_fixed_size, report_fixed_size_peers
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
    acc, report = statistics_accuracy, report_fixed_size_peers
    well = acc.case(400, 3, 20, 1.0, None, (10.0,))[0]
    assert well["auto"] == "kernel" and well["cond"] < 1e5
    assert well["features"] < 1e-11 and well["kernel"] < 1e-11
    ill = acc.case(400, 3, 20, 1.0, 1e-5, (10.0,))[0]  # near-duplicate prototypes
    assert ill["auto"] == "features" and ill["cond"] > 1e5
    assert ill["kernel"] is None or ill["kernel"] > 10 * ill["features"]
    lines = report.accuracy_table({"rows": [well, ill]})
    assert len(lines) == 4 and "| kernel |" in lines[2] and "| features |" in lines[3]


def test_pass_floor_script_interleaves_floor_and_passes(tmp_path):
    """benchmarks/studies/fixed_size_pass_floor.py: each round has its floor and both passes, the ratios within the
    round."""
    mod = fixed_size_pass_floor
    assert mod.main(["--rows", "3000", "--m", "20", "--rounds", "2", "--out-dir", str(tmp_path)]) == 0
    res = json.loads((tmp_path / "fixed_size_pass_floor.json").read_text())
    assert len(res["rounds"]) == 2
    for rec in res["rounds"]:
        for name in ("classifier", "regressor"):
            assert rec[name]["pass_over_floor"] == pytest.approx(rec[name]["pass_s"] / rec["floor_s"])
    assert res["summary"]["classifier"]["min"] <= res["summary"]["classifier"]["median"]


def _run(task, contender, rows, fit_s, m=2000, rss=1000.0):
    return {"task": task, "contender": contender, "rows": rows, "m": m, "fit_s": fit_s, "fit_cpu_s": 2 * fit_s,
            "peak_rss_mib": rss}


def test_report_extrapolates_the_peer_where_it_did_not_run():
    """Time a + b n through the two largest row counts (the fastest run at each, duplicates allowed); a task
    measured at one count takes a from the other task's line at the same m; a task measured at the target is
    not extrapolated."""
    script = report_fixed_size_peers
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
