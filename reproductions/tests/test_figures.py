"""reproductions.figures (the figures of measured results, report sections) and the figure parts of the protocols'
command lines."""

from __future__ import annotations

import os
import subprocess
import sys

import numpy as np
import pandas as pd
import pytest

from reproductions import figures
from svmopt import plotting

pytest.importorskip("matplotlib")


def _rho_frame():
    rows = []
    rng = np.random.default_rng(0)
    for h in (75, 25):
        for rep in range(2):
            rows.append({"holdout": h, "rep": rep, "model": "det", "p": np.nan, "rho": np.nan,
                         "test_error": 0.15 + 0.01 * rep, "error_A": 0.05, "error_B": 0.4})
            for p in (2.0, np.inf):
                for rho in np.logspace(-7, -1, 5):
                    e = 0.15 + 0.1 * rho + 0.01 * rng.random()
                    rows.append({"holdout": h, "rep": rep, "model": "rob", "p": p, "rho": rho, "test_error": e,
                                 "error_A": e / 3, "error_B": 2 * e})
    return pd.DataFrame(rows)


@pytest.mark.parametrize("by", ["overall", "class"])
def test_error_vs_rho_png(tmp_path, by, assert_png):
    ax = figures.plot_error_vs_rho(_rho_frame(), by=by, p=np.inf)
    assert ax.get_xscale() == "log"
    # overall: 2 holdouts x (points + the deterministic line); class: 2 holdouts x (class A, class B)
    assert len(ax.get_lines()) == 4
    if by == "overall":
        assert sorted(np.unique(ln.get_ydata()).size for ln in ax.get_lines()) == [1, 1, 5, 5]
    assert_png(plotting.save_figure(ax, tmp_path / f"rho_{by}.png"))


def test_error_vs_rho_bad_input():
    df = _rho_frame()
    with pytest.raises(ValueError, match="several p"):
        figures.plot_error_vs_rho(df)
    with pytest.raises(ValueError, match="p=3"):
        figures.plot_error_vs_rho(df, p=3)
    with pytest.raises(ValueError, match="error_A"):
        figures.plot_error_vs_rho(df.drop(columns=["error_A"]), by="class", p=2.0)
    with pytest.raises(ValueError, match="by must be"):
        figures.plot_error_vs_rho(df, by="holdout")
    with pytest.raises(ValueError, match="no robust rows"):
        figures.plot_error_vs_rho(df[df.model == "det"].drop(columns=["p"]))
    with pytest.raises(ValueError, match="empty"):
        figures.plot_error_vs_rho(df.iloc[:0])


def test_cv_time_vs_folds_png(tmp_path, assert_png):
    rows = [{"m": m, "v": v, "simple": 0.01 * m * v, "fast": 0.002 * m + 1e-4 * v} for m in (50, 100)
            for v in (5, 10, 20)]
    ref = [{"m": 50, "v": v, "simple": 0.02 * v, "fast": 0.01} for v in (5, 10, 20)]
    ax = figures.plot_cv_time_vs_folds(rows, reference=ref, title="ccs")
    assert ax.get_yscale() == "log" and len(ax.get_lines()) == 6
    assert_png(plotting.save_figure(ax, tmp_path / "cv.png"))
    with pytest.raises(ValueError, match="must be > 0"):
        figures.plot_cv_time_vs_folds([{"m": 5, "v": 5, "simple": 0.0, "fast": 1.0}])
    with pytest.raises(ValueError, match="lacks the column"):
        figures.plot_cv_time_vs_folds([{"m": 5, "v": 5, "simple": 1.0}])


def test_performance_vs_prototypes_png(tmp_path, assert_png):
    rows = [{"m": m, "score": 80 + np.log(m) + s} for m in (10, 50, 200) for s in (0.0, 0.5)]
    ax = figures.plot_performance_vs_prototypes(rows, baseline=86.0, ylabel="accuracy (%)")
    assert ax.get_ylabel() == "accuracy (%)"
    assert any(np.allclose(ln.get_ydata(), 86.0) for ln in ax.get_lines())
    assert_png(plotting.save_figure(ax, tmp_path / "pv.png"))
    with pytest.raises(ValueError, match="baseline"):
        figures.plot_performance_vs_prototypes(rows, baseline=float("nan"))
    with pytest.raises(ValueError, match="score"):
        figures.plot_performance_vs_prototypes([{"m": 1}])
    with pytest.raises(TypeError, match="DataFrame"):
        figures.plot_performance_vs_prototypes(3.0)


def test_matplotlib_is_imported_lazily():

    code = ("import sys, reproductions.figures, reproductions.robust, reproductions.fixed_size, "
            "reproductions.ellipsoid; print('matplotlib' in sys.modules)")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.strip() == "False"


def test_write_figures_section_keeps_the_rest(tmp_path):
    md = tmp_path / "r.md"
    md.write_text("# Title\n\n## Table\n\n| a |\n|---|\n| 1 |\n\n## Figures\n\nold\n\n## Discussion\n\ntext\n")
    sec = figures.figures_markdown([("f.png", "Figure 1: x")], intro="new")
    assert "![m in (1, 2)](g.png)" in figures.figures_markdown([("g.png", "m in [1, 2]")])
    figures.write_figures_section(md, sec)
    text = md.read_text()
    assert "old" not in text and "![Figure 1: x](f.png)" in text and "| 1 |" in text
    assert text.index("## Figures") < text.index("## Discussion") and text.endswith("text\n")
    figures.write_figures_section(md, sec)
    assert md.read_text() == text  # idempotent
    md2 = tmp_path / "s.md"
    md2.write_text("# Only a title\n")
    figures.write_figures_section(md2, sec)
    assert md2.read_text().startswith("# Only a title\n\n## Figures")
    with pytest.raises(ValueError, match="heading"):
        figures.write_figures_section(md2, "no heading")


# ------------------------------------------------------------------------------------------ protocol command lines
def _pngs_in_report(out, name, assert_png):
    import re

    text = (out / f"{name}.md").read_text()
    files = re.findall(r"!\[[^\]]*\]\(([^)]+\.png)\)", text)
    assert files, "the report embeds no figure"
    for f in files:
        assert_png(out / f)
    return text, files


def test_robust_cli_smallest(tmp_path, assert_png):
    from reproductions import robust as rb

    rc = rb.main(["--quick", "--out", str(tmp_path), "--datasets", "Arrhythmia", "--reps", "1", "--no-honest",
                  "--fig-reps", "1", "--n-rho", "2", "--jobs", "1", "--seed", "1", "--dpi", "50"])
    assert rc == 0
    text, files = _pngs_in_report(tmp_path, "robust", assert_png)
    assert "| Arrhythmia |" in text and "## Figures" in text
    assert set(files) == {"robust_figure1.png", "robust_figure1_corrected.png",
                          "robust_figure3.png", "robust_figure5_p2.png"}


def test_robust_rho_sensitivity_per_class():
    from reproductions.robust import rho_sensitivity

    df = rho_sensitivity("Arrhythmia", holdouts=(75,), reps=1, n_rho=2, ps=(np.inf,))
    assert len(df) == 3 and set(df.model) == {"det", "rob"}
    # Arrhythmia's test split: 5 class-A (+1? minority) and 12 others; the overall error is the weighted mean
    row = df.iloc[0]
    from svmopt.datasets import load_dataset
    from svmopt.robust.protocol import split_seed, stratified_holdout_indices

    _, y = load_dataset("arrhythmia", binary="first_vs_rest")
    _, te = stratified_holdout_indices(np.asarray(y, float), 0.25, split_seed("Arrhythmia", 75, 0))
    na, nb = int(np.sum(y[te] > 0)), int(np.sum(y[te] < 0))
    assert row.test_error == pytest.approx((na * row.error_A + nb * row.error_B) / (na + nb))
    # rho = 1e-1 with p = inf collapses to the majority class (Table 9): one class all right, the other all wrong
    big = df[(df.model == "rob") & np.isclose(df.rho, 0.1)].iloc[0]
    assert {big.error_A, big.error_B} == {0.0, 1.0}
    with pytest.raises(ValueError, match="n_rho"):
        rho_sensitivity("Arrhythmia", n_rho=1)
    with pytest.raises(ValueError, match="dataset"):
        rho_sensitivity("Iris")


def test_cli_rejects_bad_options(tmp_path, capsys):
    from reproductions import ellipsoid, fixed_size, robust

    for mod in (robust, fixed_size, ellipsoid):
        with pytest.raises(SystemExit) as exc:
            mod.main(["--jobs", "0", "--out", str(tmp_path)])
        assert exc.value.code == 2
        with pytest.raises(SystemExit):
            mod.main(["--figures-only", "--no-figures", "--out", str(tmp_path)])
        with pytest.raises(SystemExit):  # the old file-valued option is gone
            mod.main(["--report", str(tmp_path / "x.md")])
        with pytest.raises(SystemExit) as exc:  # -1 (all cores, as `svmopt reproduce --jobs -1` passes) is valid
            mod.main(["--jobs", "-1", "--figures-only", "--no-figures"])
        assert exc.value.code == 2
    err = capsys.readouterr().err
    assert "--jobs must be >= 1, or -1 for all cores" in err
    assert err.count("--figures-only and --no-figures exclude each other") == 6


def test_ellipsoid_cli_smallest(tmp_path, assert_png):
    from reproductions import ellipsoid as el

    rc = el.main(["--quick", "--out", str(tmp_path), "--datasets", "iris", "--reps", "1", "--lp-runs", "3",
                  "--synthetic-seeds", "1", "--seed", "2", "--dpi", "50"])
    assert rc == 0
    text, files = _pngs_in_report(tmp_path, "ellipsoid", assert_png)
    assert set(files) == {"ellipsoid_figure2.png", "ellipsoid_figure3.png"}
    assert "| iris |" in text and "Mode: quick (R = 1," in text


def test_figures_only_keeps_the_measured_tables(tmp_path, assert_png):
    from reproductions import ellipsoid as el

    md = tmp_path / "ellipsoid.md"
    md.write_text("# Report\n\n## Table 6\n\n| measured | 1.23 |\n\n## Discussion\n\nkept\n")
    assert el.main(["--figures-only", "--out", str(tmp_path), "--lp-runs", "2", "--dpi", "50"]) == 0
    text, files = _pngs_in_report(tmp_path, "ellipsoid", assert_png)
    assert text.startswith("# Report\n\n## Table 6\n\n| measured | 1.23 |\n\n## Discussion\n\nkept\n\n## Figures")
    assert len(files) == 2
    assert el.main(["--figures-only", "--out", str(tmp_path), "--lp-runs", "2", "--dpi", "50"]) == 0
    assert md.read_text().count("## Figures") == 1


def test_fixed_size_cli_smallest(tmp_path, assert_png):
    """Bundled pima only: CV timing at two small m, Figure 2 at two m plus the m = n LS-SVM, reduced budgets."""
    from reproductions import fixed_size as fx

    rc = fx.main(["--quick", "--out", str(tmp_path), "--timing", "pima", "--timing-m", "10", "20",
                  "--datasets", "pima", "--no-svm", "--m", "20", "--fig2-data", "pima", "--fig2-m", "10", "30",
                  "--fig2-budget", "6", "4", "--dpi", "50"])
    assert rc == 0
    text, files = _pngs_in_report(tmp_path, "fixed_size", assert_png)
    assert set(files) == {"fixed_size_cv_time_pima.png", "fixed_size_figure2.png"}
    assert "| pima | 10 | 5 |" in text


def test_fixed_size_performance_vs_prototypes_baseline():
    """The m = n model is the LS-SVM: with fixed hyperparameters it equals the dual LS-SVM solution (paper 002,
    Section 2)."""
    from reproductions.fixed_size import paper_split, performance_vs_prototypes
    from svmopt.fixed_size.estimators import FixedSizeLSSVC

    rows, base = performance_vs_prototypes("pima", [8, 16], seed=0, n_csa=5, n_simplex=0)
    assert [r["m"] for r in rows] == [8, 16] and base["m"] == 512 and base["baseline"] and base["hyper"] == "tuned"
    assert all(0.0 <= r["score"] <= 100.0 for r in [*rows, base])
    rows, base = performance_vs_prototypes("pima", [8], seed=0, n_csa=5, n_simplex=0, baseline="fixed")
    assert (base["gamma"], base["sigma2"]) == (rows[0]["gamma"], rows[0]["sigma2"]) and base["m"] == 512
    assert performance_vs_prototypes("pima", [8], n_csa=5, n_simplex=0, baseline=None)[1] is None
    with pytest.raises(ValueError, match="baseline"):
        performance_vs_prototypes("pima", [8], baseline="exact")
    with pytest.raises(ValueError, match="ms must"):
        performance_vs_prototypes("pima", [0, 5])
    # dual check on a small subsample: H = Omega + I/gamma, [0 1^T; 1 H][b; a] = [0; y]
    Xtr, ytr, _, _, _ = paper_split("pima", 0)
    Xs, ys = Xtr[:80], np.where(ytr[:80] == np.unique(ytr)[1], 1.0, -1.0)
    gamma, sigma2 = 3.0, 8.0
    est = FixedSizeLSSVC(n_prototypes=80, gamma=gamma, sigma2=sigma2, regularize_bias=False, random_state=0)
    est.fit(Xs, ytr[:80])
    Z = (Xs - est.x_mean_) / est.x_scale_
    sq = ((Z[:, None, :] - Z[None, :, :]) ** 2).sum(-1)
    H = np.exp(-sq / sigma2) + np.eye(80) / gamma
    A = np.block([[np.zeros((1, 1)), np.ones((1, 80))], [np.ones((80, 1)), H]])
    sol = np.linalg.solve(A, np.r_[0.0, ys])
    f_dual = np.exp(-sq / sigma2) @ sol[1:] + sol[0]
    np.testing.assert_allclose(est.decision_function(Xs), f_dual, atol=1e-5)
    with pytest.raises(ValueError, match="name"):
        performance_vs_prototypes("iris", [5])


@pytest.mark.slow
@pytest.mark.skipif(not os.environ.get("SVMOPT_DATA"), reason="SVMOPT_DATA is unset: concrete and boston_housing "
                    "are not bundled")
def test_fixed_size_quick_full(tmp_path, assert_png):
    from reproductions import fixed_size as fx

    assert fx.main(["--quick", "--out", str(tmp_path), "--no-svm"]) == 0
    _pngs_in_report(tmp_path, "fixed_size", assert_png)


@pytest.mark.slow
def test_robust_and_ellipsoid_quick_full(tmp_path, assert_png):
    from reproductions import ellipsoid, robust

    assert robust.main(["--quick", "--out", str(tmp_path)]) == 0
    assert ellipsoid.main(["--quick", "--out", str(tmp_path)]) == 0
    _pngs_in_report(tmp_path, "robust", assert_png)
    _pngs_in_report(tmp_path, "ellipsoid", assert_png)
