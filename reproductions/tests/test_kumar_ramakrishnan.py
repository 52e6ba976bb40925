"""The Table 6 protocol of the paper-003 reproduction: the MLP baseline, model subsets and ``--merge``."""

from __future__ import annotations

import numpy as np
import pytest
from sklearn.neural_network import MLPClassifier
from sklearn.preprocessing import StandardScaler

from reproductions import kumar_ramakrishnan as kr


def test_mlp_model_is_the_documented_network():
    """Decided ambiguity: one hidden layer of 10 units, L-BFGS, <= 1000 iterations, standardized, seeded per fold."""
    mdl = kr._model("mlp", 1003)
    assert isinstance(mdl[0], StandardScaler) and isinstance(mdl[-1], MLPClassifier)
    p = mdl[-1].get_params()
    assert p["hidden_layer_sizes"] == (10,) and p["solver"] == "lbfgs" and p["max_iter"] == 1000
    assert p["random_state"] == 1003 and p["activation"] == "relu"


def test_subset_of_methods_gives_the_full_runs_numbers():
    """Every model is seeded by (repetition, fold) only, so a subset reproduces the full run's columns (--merge)."""
    both, _ = kr.cv_protocol(["iris"], reps=2, folds=3, methods=("svm_linear", "mlp"), seed=5)
    alone, gaps = kr.cv_protocol(["iris"], reps=2, folds=3, methods=("mlp",), seed=5)
    assert gaps.empty and set(alone["method"]) == {"mlp"}
    a = both[both["method"] == "mlp"]["error_pct"].to_numpy()
    np.testing.assert_array_equal(a, alone["error_pct"].to_numpy())
    assert alone["not_converged"].between(0, 3).all()
    assert (alone["error_pct"] < 20).all()  # a working network on Iris
    with pytest.raises(ValueError, match="methods must be"):
        kr.cv_protocol(["iris"], reps=1, methods=("nn",))
    with pytest.raises(ValueError, match="methods must be"):
        kr.cv_protocol(["iris"], reps=1, methods=())


def _table6(text: str) -> dict[str, dict[str, str]]:
    lines = text.split("\n")
    start = next(i for i, line in enumerate(lines) if line.startswith("| data set |"))
    header, rows, _ = kr._read_pipe_table(lines, start)
    return {r[0]: dict(zip(header, r, strict=True)) for r in rows}


def test_merge_adds_the_mlp_column_and_keeps_every_other_number(tmp_path, capsys):
    base = ["--quick", "--out", str(tmp_path), "--datasets", "iris", "--reps", "1", "--lp-runs", "3",
            "--synthetic-seeds", "1", "--no-figures"]
    assert kr.main([*base, "--methods", "svm_linear", "perceptron_raw"]) == 0
    md = tmp_path / "kumar_ramakrishnan.md"
    before = md.read_text()
    t6 = _table6(before)
    assert "MLP 10 hidden (std.)" not in t6["iris"] and "SVM linear (std.)" in t6["iris"]
    assert "Whole Table 6 protocol (perceptron_raw, svm_linear;" in before

    assert kr.main(["--out", str(tmp_path), "--datasets", "iris", "--reps", "1", "--merge", "--methods", "mlp"]) == 0
    after = md.read_text()
    new = _table6(after)["iris"]
    for header, cell in t6["iris"].items():
        assert new[header] == cell  # the existing cells are kept as printed
    ref, _ = kr.cv_protocol(["iris"], reps=1, methods=("mlp",))
    assert new["MLP 10 hidden (std.)"] == f"{ref['error_pct'].iloc[0]:.2f}"
    headers = list(new)
    assert headers.index("paper: NN") + 1 == headers.index("MLP 10 hidden (std.)")  # beside the paper's NN
    assert "MLP fits that stopped at the 1000-iteration cap: iris" in after
    assert "Whole Table 6 protocol (mlp, perceptron_raw, svm_linear;" in after
    wall = next(line for line in after.split("\n") if line.startswith("Wall time per part"))
    assert "Table 6 merged mlp " in wall and "LP " in wall
    parts = dict(q.rsplit(" ", 1) for q in wall.split(": ", 1)[1].split("; ")[0].split(", "))
    whole = float(parts["Table 6 protocol"]) + float(parts["Table 6 merged mlp"])
    assert wall.endswith(f"; whole Table 6 protocol {whole:.1f} (the sum of its parts)")
    assert after.count("## Discussion") == 1 and after.count("## Real data (Table 6)") == 1
    # LP and synthetic sections are untouched
    sec = "## Synthetic 2-D data"
    assert before[before.index("## LP"):before.index(sec)] == after[after.index("## LP"):after.index(sec)]

    # merging the same column again replaces it (one MLP column, one merged wall-time entry)
    assert kr.main(["--out", str(tmp_path), "--datasets", "iris", "--reps", "1", "--merge", "--methods", "mlp"]) == 0
    again = md.read_text()
    assert _table6(again) == _table6(after) and again.count("merged mlp") == 1
    capsys.readouterr()

    # a different R than the report's is refused, and so is a missing report
    with pytest.raises(SystemExit):
        kr.main(["--out", str(tmp_path), "--datasets", "iris", "--reps", "2", "--merge", "--methods", "mlp"])
    assert "2 repetitions, the report's Table 6 has 1" in capsys.readouterr().err
    assert md.read_text() == again
    with pytest.raises(SystemExit):
        kr.main(["--out", str(tmp_path / "none"), "--merge", "--methods", "mlp"])
    assert "--merge needs an existing report" in capsys.readouterr().err
    with pytest.raises(SystemExit):
        kr.main(["--out", str(tmp_path), "--merge", "--figures-only"])
    with pytest.raises(SystemExit):
        kr.main(["--out", str(tmp_path), "--methods", "nn"])


def _numpy_lp(seed: int, c4: float, k: int = 10, T: int = 50) -> np.ndarray:
    """Spec 2.2-2.3 LP swarm written independently in numpy (PCG64): e_j = sqrt(2) - a^T GB after j moves."""
    rng = np.random.default_rng(seed)
    a, w = np.ones(2), 0.05
    g = rng.standard_normal((k, 2))
    X = g / np.linalg.norm(g, axis=1, keepdims=True) * np.sqrt(rng.random((k, 1)))  # uniform in the disc
    V, PB = np.zeros((k, 2)), X.copy()
    errs = np.empty(T + 1)

    def evaluate():
        better = X @ a > PB @ a
        PB[better] = X[better]
        return PB[np.argmax(PB @ a)].copy()

    for j in range(T + 1):
        GB = evaluate()
        errs[j] = np.sqrt(2.0) - a @ GB
        if j == T:
            break
        r = rng.random((4, k, 1))
        g = rng.standard_normal((k, 2))
        V = w * V + w * r[0] * (PB - X) + w * r[1] * (GB - X) + w * r[2] * (a - X)
        V += c4 * r[3] * g / np.linalg.norm(g, axis=1, keepdims=True)
        Xn = X + V
        ok = np.einsum("ij,ij->i", Xn, Xn) <= 1.0
        X[ok] = Xn[ok]
    return errs


def test_lp_error_distribution_matches_an_independent_numpy_swarm():
    """Table 3's heavy tail (max e_25 above the spec's 0.2 in our 50 runs) is the algorithm's, not a bug: the C++
    swarm and a numpy re-implementation of spec 2.2-2.3 have the same e_25 distribution over 400 runs."""
    lp = kr.lp_experiment(runs=400, T=50, c4s=(0.05,))
    core = lp["pso"][0.05][:, 25]
    ref = np.array([_numpy_lp(s, 0.05)[25] for s in range(400)])
    assert core.mean() == pytest.approx(ref.mean(), rel=0.2)
    for q in (0.5, 0.9, 0.99):
        assert np.quantile(core, q) == pytest.approx(np.quantile(ref, q), rel=0.3)
    assert ref.max() > 0.2 and core.max() > 0.2  # both have runs above the spec's 0.2


# ------------------------------------------------------------------------------------------ reproduction protocol
def test_lp_baselines_and_short_pso_runs():
    """T20 (short): Khachiyan's method reaches e_25 < 5e-4; the Karmarkar stand-in gives the spec's numbers."""
    from reproductions.kumar_ramakrishnan import karmarkar_step, khachiyan_lp, lp_experiment

    assert khachiyan_lp(50)[25] < 5e-4
    assert karmarkar_step(25, 0.05)[25] == pytest.approx(0.392, abs=1e-3)
    assert karmarkar_step(25, 0.50)[25] < 1e-7
    lp = lp_experiment(runs=5, T=50)
    for hist in lp["pso"].values():
        assert hist.shape == (5, 51) and np.all(hist >= 0) and np.all(np.diff(hist, axis=1) <= 1e-15)


@pytest.mark.slow
def test_lp_table3_ranges():
    """T20: 50 runs, e_25 mean in [0.005, 0.05], e_50 mean < 0.015 (max at 25 reported, not gated: see report)."""
    from reproductions.kumar_ramakrishnan import lp_experiment

    lp = lp_experiment(runs=50, T=50)
    for hist in lp["pso"].values():
        assert 0.005 <= hist[:, 25].mean() <= 0.05
        assert hist[:, 50].mean() < 0.015


@pytest.mark.slow
@pytest.mark.parametrize(
    ("name", "lo", "hi"), [("iris", 0.5, 5.0), ("wine", 0.0, 4.5), ("pima", 22.0, 28.0), ("new_thyroid", 1.0, 7.0)]
)
def test_table6_cv_ranges(name, lo, hi):
    """T22 with R = 2 and each range widened by 1 point (spec 6.4)."""
    from reproductions.kumar_ramakrishnan import cv_protocol

    cv, gaps = cv_protocol([name], reps=2, methods=("ours_pso",))
    assert lo <= cv["error_pct"].mean() <= hi
    assert np.all(gaps["D_pso"] >= gaps["D_exact"] - 1e-12)
