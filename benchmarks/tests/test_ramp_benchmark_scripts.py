"""benchmarks/studies/ramp_noise.py runs end to end at tiny sizes, and its Markdown report
shows the numbers of its JSON file."""

from __future__ import annotations

import json

import numpy as np
import pytest

from benchmarks.studies import ramp_noise


@pytest.fixture(scope="module")
def noise():
    return ramp_noise


def test_noise_data_flips_only_far_points(noise):
    w, b = noise.true_rule()
    assert np.count_nonzero(w) == noise.N_TRUE and w.size == noise.D
    X, y, flipped = noise.make_data(1000, seed=0)
    assert flipped.size == 150
    margin = X @ w + b
    clean = np.where(margin >= 0, 1, -1)
    assert np.array_equal(np.flatnonzero(clean != y), flipped)
    # every flipped row is among the 50% farthest from the true boundary
    assert np.abs(margin[flipped]).min() >= np.quantile(np.abs(margin), 0.5) - 1e-12
    Xt, yt, none = noise.make_data(500, seed=1, flip=0.0)
    assert none.size == 0 and np.array_equal(yt, np.where(Xt @ w + b >= 0, 1, -1))


def test_noise_main_writes_json_markdown_and_figure(noise, tmp_path):
    pytest.importorskip("matplotlib", reason="the report's figure needs matplotlib (an optional dependency)")
    fig = tmp_path / "noise.png"
    assert noise.main(["--sizes", "400", "--n-test", "1000", "--out-dir", str(tmp_path), "--figure", str(fig)]) == 0
    saved = json.loads((tmp_path / "ramp_noise.json").read_text())
    md = (tmp_path / "ramp_noise.md").read_text()
    assert fig.is_file() and fig.stat().st_size > 0
    (run,) = saved["results"]["runs"]
    assert run["n"] == 400 and set(run["models"]) == set(noise.MODELS)
    row = next(line for line in md.splitlines() if line.startswith("| 400 | ") and line.count("|") == 6)
    cells = [c.strip() for c in row.strip("|").split("|")]
    assert cells[1:] == [f"{run['models'][m]['test_accuracy']:.4f}" for m in saved["results"]["models"]]
    for m, o in run["models"].items():
        assert 0.5 <= o["test_accuracy"] <= 1.0
        assert o["C"] in o["selection"]["grid"] and o["wall_s"] > 0
        assert f"| 400 | {m} | {o['C']:g} |" in md
        assert f"| {o['true_in_top5']}/5 |" in md
    ramp = run["models"]["RampLossSVC-cccp"]
    assert ramp["n_selected"] <= noise.BUDGET and ramp["status"] == "local"
    # --report-only rebuilds the same Markdown from the JSON
    (tmp_path / "ramp_noise.md").unlink()
    assert noise.main(["--report-only", "--out-dir", str(tmp_path), "--figure", "none"]) == 0
    assert (tmp_path / "ramp_noise.md").read_text() == md
