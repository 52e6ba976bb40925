"""reproductions/ramp_vs_milp.py runs end to end at tiny sizes, and its Markdown report shows the numbers of its
JSON file."""

from __future__ import annotations

import json
import os
from pathlib import Path

import numpy as np
import pytest

from reproductions import ramp_vs_milp

BENCH = Path(__file__).resolve().parents[2] / "benchmarks"


@pytest.fixture(scope="module")
def milp():
    return ramp_vs_milp



def test_milp_cases_from_the_committed_csv(milp):
    cases = milp.load_cases(milp.DEFAULT_CSV)
    proved = {(c["dataset"], c["C"]) for c in cases if c["proved"]}
    assert proved, "the committed Experiment 1 results hold at least one proved optimum"
    for c in cases:
        if c["proved"]:
            assert c["exact_csv"]["status"] == "optimal" and c["exact_csv"]["gap"] == 0.0
        assert c["best_known_csv"] <= c["exact_csv"]["objective"]
    dist = milp.distribution([0.0, 0.5, 1.5, 4.0, 10.0, -2.0])
    assert dist["within"] == dict(zip(milp.THRESHOLD_LABELS, [2, 3, 4, 5], strict=True))
    assert dist["worst"] == 10.0 and dist["median"] == 1.0 and dist["better"] == 1


def test_milp_main_on_one_proved_case(milp, tmp_path):
    if not os.environ.get("SVMOPT_DATA"):
        pytest.skip("SVMOPT_DATA is unset: the Colon data set is needed")
    try:
        milp.load_prepared("Colon")
    except FileNotFoundError as exc:
        pytest.skip(f"Colon data set not available: {exc}")
    assert milp.main(["--cases", "Colon:0.01", "--no-rerun-exact", "--no-subsamples", "--out-dir", str(tmp_path)]) == 0
    saved = json.loads((tmp_path / "ramp_vs_milp.json").read_text())
    md = (tmp_path / "ramp_vs_milp.md").read_text()
    (rec,) = saved["records"]
    assert rec["proved"] and rec["cccp"]["status"] == "local"
    assert rec["cccp"]["objective"] == pytest.approx(rec["cccp"]["objective_attr"], rel=1e-9)
    # a local solution cannot beat the proved optimum on the same data (6 significant digits in the CSV)
    assert rec["diff_vs_exact_pct"] >= -1e-3
    row = next(line for line in md.splitlines() if line.startswith("| Colon | 0.01 |"))
    cells = [c.strip() for c in row.strip("|").split("|")]
    assert cells[9] == f"{rec['cccp']['objective']:.6g}"
    assert cells[10] == f"{rec['cccp']['wall_s']:.2f}"
    assert cells[12] == f"{rec['diff_vs_exact_pct']:+.3f}"
    assert cells[15] == f"{rec['speed_ratio']:.3g}"
    assert f"median {saved['summary']['proved']['diff_vs_exact']['median']:+.3f}%" in md
    (tmp_path / "ramp_vs_milp.md").unlink()
    assert milp.main(["--report-only", "--out-dir", str(tmp_path)]) == 0
    assert (tmp_path / "ramp_vs_milp.md").read_text() == md


def test_milp_subsample_indices_are_stratified_and_seeded(milp):
    y = np.array([1] * 70 + [-1] * 30)
    idx = milp.subsample_indices(y, 20, np.random.default_rng([0, 1]))
    assert idx.size == 20 and np.unique(idx).size == 20 and np.all(np.diff(idx) > 0)
    assert np.sum(y[idx] == 1) == 14
    assert np.array_equal(idx, milp.subsample_indices(y, 20, np.random.default_rng([0, 1])))
    assert not np.array_equal(idx, milp.subsample_indices(y, 20, np.random.default_rng([0, 2])))


def test_milp_only_subsamples_merges_into_the_saved_json(milp, tmp_path, monkeypatch):
    try:
        from reproductions.ramp import load_paper_dataset

        load_paper_dataset("Wdbc")
    except (ImportError, FileNotFoundError) as exc:
        pytest.skip(f"Wdbc data set not available: {exc}")
    committed = BENCH / "results" / "ramp_vs_milp.json"
    if not committed.is_file():
        pytest.skip("no committed ramp_vs_milp.json")
    old = json.loads(committed.read_text())
    old.pop("subsamples", None)
    (tmp_path / "ramp_vs_milp.json").write_text(json.dumps(old))
    monkeypatch.setattr(milp, "SUB_DATASETS", ("Wdbc",))
    monkeypatch.setattr(milp, "SUB_CS", (10.0,))
    assert milp.main(["--only-subsamples", "--n-subsamples", "1", "--out-dir", str(tmp_path)]) == 0
    saved = json.loads((tmp_path / "ramp_vs_milp.json").read_text())
    md = (tmp_path / "ramp_vs_milp.md").read_text()
    # the first part is kept as it was
    assert saved["records"] == old["records"] and saved["meta"] == old["meta"]
    sub = saved["subsamples"]
    (rec,) = sub["records"]
    assert (rec["dataset"], rec["subsample"], rec["C"], rec["n"]) == ("Wdbc", 0, 10.0, 60)
    assert rec["cccp"]["status"] == "local" and rec["exact"]["status"] == "optimal" and rec["proved"]
    for m in ("exact", "cccp"):
        assert rec[m]["objective"] == pytest.approx(rec[m]["objective_attr"], rel=1e-6)
    # a local solution never beats a proved optimum on the same data
    assert rec["diff_pct"] >= -1e-4 and not sub["summary"]["below_proved_optimum"]
    assert sub["summary"]["proved"] == 1 and sub["summary"]["cases"] == 1
    row = next(line for line in md.splitlines() if line.startswith("| Wdbc | 0 | 10 |"))
    cells = [c.strip() for c in row.strip("|").split("|")]
    assert cells[6] == f"{rec['exact']['objective']:.6g}" and cells[9] == f"{rec['cccp']['objective']:.6g}"
    assert cells[12] == f"{rec['diff_pct']:+.3f}" and cells[13] == f"{rec['speed_ratio']:.3g}"
    assert sub["summary"]["headline"] in md and "## Cases where an exact run proved optimality" in md
    (tmp_path / "ramp_vs_milp.md").unlink()
    assert milp.main(["--report-only", "--out-dir", str(tmp_path)]) == 0
    assert (tmp_path / "ramp_vs_milp.md").read_text() == md
