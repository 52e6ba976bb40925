"""svmopt.plotting (the papers' figures) and the figure parts of the three experiment modules' command lines."""

from __future__ import annotations

import os
import sys

import numpy as np
import pandas as pd
import pytest

pytest.importorskip("matplotlib")

from matplotlib.image import imread

from svmopt import plotting
from svmopt.robust_svc import RobustSVC

MIN_BYTES = 5_000


def assert_png(path, min_bytes: int = MIN_BYTES):
    """The file exists, is a PNG of some size, and is not blank (pixel variance clearly above zero)."""
    assert path.exists(), path
    assert path.stat().st_size > min_bytes, (path, path.stat().st_size)
    with open(path, "rb") as fh:
        assert fh.read(8) == b"\x89PNG\r\n\x1a\n"
    img = imread(path)
    assert img.ndim == 3 and img.shape[0] > 100 and img.shape[1] > 100
    assert float(img[..., :3].var()) > 1e-3, "the image is (nearly) blank"


@pytest.fixture(scope="module")
def toy():
    rng = np.random.default_rng(3)
    A = rng.multivariate_normal([0, 0], [[0.45, 0.2], [0.2, 0.3]], 15)
    B = rng.multivariate_normal([1.6, 1.2], [[1.1, 0], [0, 1.1]], 15)
    return np.vstack([A, B]), np.repeat([1.0, -1.0], 15)


@pytest.fixture(scope="module")
def fitted(toy):
    X, y = toy
    return RobustSVC(kernel="inhom_poly", degree=2, c=0.3, nu=1.0, line_search="grid").fit(X, y)


# ------------------------------------------------------------------------------------------ the figure functions
@pytest.mark.parametrize("surfaces", ["paper", "corrected"])
def test_decision_surfaces_png(tmp_path, toy, fitted, surfaces):
    X, y = toy
    ax = plotting.plot_decision_surfaces(fitted, X, y, surfaces=surfaces, n_grid=60, title="toy")
    assert ax.get_title() == "toy"
    assert len(ax.collections) >= 4  # filled regions, at least S, the points, the support circles
    assert_png(plotting.save_figure(ax, tmp_path / f"surf_{surfaces}.png"))


def test_decision_surfaces_robust_and_given_axes(tmp_path, toy):
    X, y = toy
    est = RobustSVC(kernel="rbf", alpha=1.9, nu=1.0, p=np.inf, eta={1.0: 0.01, -1.0: 0.03}).fit(X, y)
    fig, axes = plotting.new_figure(1, 2)
    out = plotting.plot_decision_surfaces(est, X, y, ax=axes[0, 1], n_grid=40)
    assert out is axes[0, 1]
    assert_png(plotting.save_figure(fig, tmp_path / "robust"))  # suffix added
    assert (tmp_path / "robust.png").exists()


def test_shifted_levels_paper_and_corrected(toy, fitted):
    """The printed S_A, S_B are the mirror images about gamma of the corrected ones (spec I1); the corrected S_A
    passes through the class-A point with the largest xi, the corrected S_B through the B one."""
    X, y = toy
    g, b = fitted.gamma_[0], fitted.intercept_[0]
    wa, wb = fitted.omega_[0]
    lp = plotting.shifted_levels(fitted)
    lc = plotting.shifted_levels(fitted, "corrected")
    assert lp["S"] == lc["S"] == 0.0
    assert lp["S_A"] == pytest.approx(g - 1 + wa - b) and lp["S_B"] == pytest.approx(g + 1 - wb - b)
    assert lp["S_A"] + lc["S_A"] == pytest.approx(2 * (g - b))
    assert lp["S_B"] + lc["S_B"] == pytest.approx(2 * (g - b))
    d = fitted.decision_function(X)
    assert d[y > 0].min() == pytest.approx(lc["S_A"], abs=1e-7)
    assert d[y < 0].max() == pytest.approx(lc["S_B"], abs=1e-7)
    stars = plotting._omega_points(fitted, X, np.where(y > 0, 1.0, -1.0))
    assert wa > 0 and wb > 0 and stars.size == 2  # this toy set overlaps: both classes have a positive slack
    assert d[stars[0]] == pytest.approx(d[y > 0].min()) and d[stars[1]] == pytest.approx(d[y < 0].max())
    # separable data: omega = 0 for both classes, no point "fixes" them, no star
    Xs = np.r_[X[y > 0] - 5.0, X[y < 0] + 5.0]
    ys = np.r_[y[y > 0], y[y < 0]]
    sep = RobustSVC(kernel="linear", nu=1.0).fit(Xs, ys)
    assert np.all(sep.omega_ == 0.0)
    assert plotting._omega_points(sep, Xs, ys).size == 0


def test_decision_surfaces_bad_input(toy, fitted):
    X, y = toy
    with pytest.raises(ValueError, match="shape \\(n_samples, 2\\)"):
        plotting.plot_decision_surfaces(fitted, np.c_[X, X[:, :1]], y)
    with pytest.raises(ValueError, match="one label per row"):
        plotting.plot_decision_surfaces(fitted, X, y[:-1])
    with pytest.raises(TypeError, match="fitted"):
        plotting.plot_decision_surfaces(RobustSVC(), X, y)
    with pytest.raises(ValueError, match="surfaces"):
        plotting.plot_decision_surfaces(fitted, X, y, surfaces="mirror")
    with pytest.raises(ValueError, match="n_grid"):
        plotting.plot_decision_surfaces(fitted, X, y, n_grid=3)
    with pytest.raises(ValueError, match="not fitted on"):
        plotting.plot_decision_surfaces(fitted, X, np.where(y > 0, 5.0, -1.0))
    with pytest.raises(TypeError, match="ax must be"):
        plotting.plot_decision_surfaces(fitted, X, y, ax="axes")
    y3 = np.repeat([0, 1, 2], 10)
    est3 = RobustSVC(kernel="linear").fit(X, y3)
    with pytest.raises(ValueError, match="binary"):
        plotting.plot_decision_surfaces(est3, X, y3)


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
def test_error_vs_rho_png(tmp_path, by):
    ax = plotting.plot_error_vs_rho(_rho_frame(), by=by, p=np.inf)
    assert ax.get_xscale() == "log"
    # overall: 2 holdouts x (points + the deterministic line); class: 2 holdouts x (class A, class B)
    assert len(ax.get_lines()) == 4
    if by == "overall":
        assert sorted(np.unique(ln.get_ydata()).size for ln in ax.get_lines()) == [1, 1, 5, 5]
    assert_png(plotting.save_figure(ax, tmp_path / f"rho_{by}.png"))


def test_error_vs_rho_bad_input():
    df = _rho_frame()
    with pytest.raises(ValueError, match="several p"):
        plotting.plot_error_vs_rho(df)
    with pytest.raises(ValueError, match="p=3"):
        plotting.plot_error_vs_rho(df, p=3)
    with pytest.raises(ValueError, match="error_A"):
        plotting.plot_error_vs_rho(df.drop(columns=["error_A"]), by="class", p=2.0)
    with pytest.raises(ValueError, match="by must be"):
        plotting.plot_error_vs_rho(df, by="holdout")
    with pytest.raises(ValueError, match="no robust rows"):
        plotting.plot_error_vs_rho(df[df.model == "det"].drop(columns=["p"]))
    with pytest.raises(ValueError, match="empty"):
        plotting.plot_error_vs_rho(df.iloc[:0])


def test_cv_time_vs_folds_png(tmp_path):
    rows = [{"m": m, "v": v, "simple": 0.01 * m * v, "fast": 0.002 * m + 1e-4 * v} for m in (50, 100)
            for v in (5, 10, 20)]
    ref = [{"m": 50, "v": v, "simple": 0.02 * v, "fast": 0.01} for v in (5, 10, 20)]
    ax = plotting.plot_cv_time_vs_folds(rows, reference=ref, title="ccs")
    assert ax.get_yscale() == "log" and len(ax.get_lines()) == 6
    assert_png(plotting.save_figure(ax, tmp_path / "cv.png"))
    with pytest.raises(ValueError, match="must be > 0"):
        plotting.plot_cv_time_vs_folds([{"m": 5, "v": 5, "simple": 0.0, "fast": 1.0}])
    with pytest.raises(ValueError, match="lacks the column"):
        plotting.plot_cv_time_vs_folds([{"m": 5, "v": 5, "simple": 1.0}])


def test_performance_vs_prototypes_png(tmp_path):
    rows = [{"m": m, "score": 80 + np.log(m) + s} for m in (10, 50, 200) for s in (0.0, 0.5)]
    ax = plotting.plot_performance_vs_prototypes(rows, baseline=86.0, ylabel="accuracy (%)")
    assert ax.get_ylabel() == "accuracy (%)"
    assert any(np.allclose(ln.get_ydata(), 86.0) for ln in ax.get_lines())
    assert_png(plotting.save_figure(ax, tmp_path / "pv.png"))
    with pytest.raises(ValueError, match="baseline"):
        plotting.plot_performance_vs_prototypes(rows, baseline=float("nan"))
    with pytest.raises(ValueError, match="score"):
        plotting.plot_performance_vs_prototypes([{"m": 1}])
    with pytest.raises(TypeError, match="DataFrame"):
        plotting.plot_performance_vs_prototypes(3.0)


def test_pso_convergence_png(tmp_path):
    from svmopt.ellipsoid import pso_single_swarm

    hist = np.array([pso_single_swarm(np.ones(2), max_iter=30, random_state=s)["fitness_history"] for s in range(4)])
    curves = {"PSO runs": np.sqrt(2) + hist, "one run": np.sqrt(2) + hist[0]}
    ax = plotting.plot_pso_convergence(curves, log=True, ylabel="error")
    assert ax.get_yscale() == "log" and ax.get_xlabel() == "iteration"
    assert_png(plotting.save_figure(ax, tmp_path / "pso_log.png"))
    ax = plotting.plot_pso_convergence(-hist[0], optimum=np.sqrt(2))  # a single curve: f(x) = a^T x
    assert ax.get_lines()[0].get_ydata().size == 31
    assert_png(plotting.save_figure(ax, tmp_path / "pso.png"))
    with pytest.raises(ValueError, match="non-finite"):
        plotting.plot_pso_convergence([1.0, np.nan, 0.5])
    with pytest.raises(ValueError, match="empty"):
        plotting.plot_pso_convergence({})
    with pytest.raises(ValueError, match="one curve"):
        plotting.plot_pso_convergence(np.zeros((2, 2, 2)))
    with pytest.raises(ValueError, match="optimum"):
        plotting.plot_pso_convergence([1.0, 0.5], optimum=np.inf)


def test_hyperplanes_png(tmp_path):
    from sklearn.svm import SVC

    from svmopt.ellipsoid import EllipsoidPSOClassifier
    from svmopt.experiments.kumar_ramakrishnan import synthetic_data

    X, y = synthetic_data(0, 30)
    models = {"SVM": SVC(kernel="linear", C=1e6).fit(X, y),
              "ours": EllipsoidPSOClassifier(projection="none", random_state=0).fit(X, y),
              "vertical": (1.0, 0.0, -4.0)}
    ax = plotting.plot_hyperplanes(models, X, y, title="Figure 3")
    assert [t.get_text() for t in ax.get_legend().get_texts()][-3:] == ["SVM", "ours", "vertical"]
    assert_png(plotting.save_figure(ax, tmp_path / "hyp.png"))
    with pytest.raises(ValueError, match="non-empty mapping"):
        plotting.plot_hyperplanes({}, X, y)
    with pytest.raises(ValueError, match="w1, w2, w0"):
        plotting.plot_hyperplanes({"bad": (1.0, 2.0)}, X, y)
    with pytest.raises(ValueError, match="not all zero"):
        plotting.plot_hyperplanes({"zero": (0.0, 0.0, 1.0)}, X, y)
    with pytest.raises(ValueError, match="2-D models"):
        plotting.plot_hyperplanes({"3d": SVC(kernel="linear").fit(np.c_[X, X[:, 0]], y)}, X, y)


def test_save_figure_and_new_figure_errors(tmp_path):
    with pytest.raises(TypeError, match="Figure or Axes"):
        plotting.save_figure("figure", tmp_path / "x.png")
    with pytest.raises(ValueError, match="nrows"):
        plotting.new_figure(0, 1)


def test_missing_matplotlib_names_the_extra(monkeypatch):
    monkeypatch.setitem(sys.modules, "matplotlib", None)
    with pytest.raises(ImportError, match=r"svmopt\[plot\]"):
        plotting.new_figure()


def test_matplotlib_is_imported_lazily():
    import subprocess

    code = ("import sys, svmopt.plotting, svmopt.experiments.maggioni_spinelli, svmopt.experiments.de_brabanter, "
            "svmopt.experiments.kumar_ramakrishnan; print('matplotlib' in sys.modules)")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.strip() == "False"


def test_write_figures_section_keeps_the_rest(tmp_path):
    md = tmp_path / "r.md"
    md.write_text("# Title\n\n## Table\n\n| a |\n|---|\n| 1 |\n\n## Figures\n\nold\n\n## Discussion\n\ntext\n")
    sec = plotting.figures_markdown([("f.png", "Figure 1: x")], intro="new")
    assert "![m in (1, 2)](g.png)" in plotting.figures_markdown([("g.png", "m in [1, 2]")])
    plotting.write_figures_section(md, sec)
    text = md.read_text()
    assert "old" not in text and "![Figure 1: x](f.png)" in text and "| 1 |" in text
    assert text.index("## Figures") < text.index("## Discussion") and text.endswith("text\n")
    plotting.write_figures_section(md, sec)
    assert md.read_text() == text  # idempotent
    md2 = tmp_path / "s.md"
    md2.write_text("# Only a title\n")
    plotting.write_figures_section(md2, sec)
    assert md2.read_text().startswith("# Only a title\n\n## Figures")
    with pytest.raises(ValueError, match="heading"):
        plotting.write_figures_section(md2, "no heading")


# ------------------------------------------------------------------------------------------ experiment modules
def _pngs_in_report(out, name):
    import re

    text = (out / f"{name}.md").read_text()
    files = re.findall(r"!\[[^\]]*\]\(([^)]+\.png)\)", text)
    assert files, "the report embeds no figure"
    for f in files:
        assert_png(out / f)
    return text, files


def test_maggioni_spinelli_cli_smallest(tmp_path):
    from svmopt.experiments import maggioni_spinelli as ms

    rc = ms.main(["--quick", "--out", str(tmp_path), "--datasets", "Arrhythmia", "--reps", "1", "--no-honest",
                  "--fig-reps", "1", "--n-rho", "2", "--jobs", "1", "--seed", "1", "--dpi", "50"])
    assert rc == 0
    text, files = _pngs_in_report(tmp_path, "maggioni_spinelli")
    assert "| Arrhythmia |" in text and "## Figures" in text
    assert set(files) == {"maggioni_spinelli_figure1.png", "maggioni_spinelli_figure1_corrected.png",
                          "maggioni_spinelli_figure3.png", "maggioni_spinelli_figure5_p2.png"}


def test_maggioni_spinelli_rho_sensitivity_per_class():
    from svmopt.experiments.maggioni_spinelli import rho_sensitivity

    df = rho_sensitivity("Arrhythmia", holdouts=(75,), reps=1, n_rho=2, ps=(np.inf,))
    assert len(df) == 3 and set(df.model) == {"det", "rob"}
    # Arrhythmia's test split: 5 class-A (+1? minority) and 12 others; the overall error is the weighted mean
    row = df.iloc[0]
    from svmopt.datasets import load_dataset
    from svmopt.model_selection import split_seed, stratified_holdout_indices

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
    from svmopt.experiments import de_brabanter, kumar_ramakrishnan, maggioni_spinelli

    for mod in (maggioni_spinelli, de_brabanter, kumar_ramakrishnan):
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


def test_kumar_ramakrishnan_cli_smallest(tmp_path):
    from svmopt.experiments import kumar_ramakrishnan as kr

    rc = kr.main(["--quick", "--out", str(tmp_path), "--datasets", "iris", "--reps", "1", "--lp-runs", "3",
                  "--synthetic-seeds", "1", "--seed", "2", "--dpi", "50"])
    assert rc == 0
    text, files = _pngs_in_report(tmp_path, "kumar_ramakrishnan")
    assert set(files) == {"kumar_ramakrishnan_figure2.png", "kumar_ramakrishnan_figure3.png"}
    assert "| iris |" in text and "Mode: quick (R = 1)" in text


def test_figures_only_keeps_the_measured_tables(tmp_path):
    from svmopt.experiments import kumar_ramakrishnan as kr

    md = tmp_path / "kumar_ramakrishnan.md"
    md.write_text("# Report\n\n## Table 6\n\n| measured | 1.23 |\n\n## Discussion\n\nkept\n")
    assert kr.main(["--figures-only", "--out", str(tmp_path), "--lp-runs", "2", "--dpi", "50"]) == 0
    text, files = _pngs_in_report(tmp_path, "kumar_ramakrishnan")
    assert text.startswith("# Report\n\n## Table 6\n\n| measured | 1.23 |\n\n## Discussion\n\nkept\n\n## Figures")
    assert len(files) == 2
    assert kr.main(["--figures-only", "--out", str(tmp_path), "--lp-runs", "2", "--dpi", "50"]) == 0
    assert md.read_text().count("## Figures") == 1


def test_de_brabanter_cli_smallest(tmp_path):
    """Bundled pima only: CV timing at two small m, Figure 2 at two m plus the m = n LS-SVM, reduced budgets."""
    from svmopt.experiments import de_brabanter as db

    rc = db.main(["--quick", "--out", str(tmp_path), "--timing", "pima", "--timing-m", "10", "20",
                  "--datasets", "pima", "--no-svm", "--m", "20", "--fig2-data", "pima", "--fig2-m", "10", "30",
                  "--fig2-budget", "6", "4", "--dpi", "50"])
    assert rc == 0
    text, files = _pngs_in_report(tmp_path, "de_brabanter")
    assert set(files) == {"de_brabanter_cv_time_pima.png", "de_brabanter_figure2.png"}
    assert "| pima | 10 | 5 |" in text


def test_de_brabanter_performance_vs_prototypes_baseline():
    """The m = n model is the LS-SVM: with fixed hyperparameters it equals the dual LS-SVM solution (spec 1.2)."""
    from svmopt.experiments.de_brabanter import _split, performance_vs_prototypes
    from svmopt.fixed_size import FixedSizeLSSVC

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
    Xtr, ytr, _, _, _ = _split("pima", 0)
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
def test_de_brabanter_quick_full(tmp_path):
    from svmopt.experiments import de_brabanter as db

    assert db.main(["--quick", "--out", str(tmp_path), "--no-svm"]) == 0
    _pngs_in_report(tmp_path, "de_brabanter")


@pytest.mark.slow
def test_maggioni_spinelli_and_kumar_quick_full(tmp_path):
    from svmopt.experiments import kumar_ramakrishnan, maggioni_spinelli

    assert maggioni_spinelli.main(["--quick", "--out", str(tmp_path)]) == 0
    assert kumar_ramakrishnan.main(["--quick", "--out", str(tmp_path)]) == 0
    _pngs_in_report(tmp_path, "maggioni_spinelli")
    _pngs_in_report(tmp_path, "kumar_ramakrishnan")
