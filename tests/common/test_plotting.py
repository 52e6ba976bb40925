"""svmopt.plotting: figures of fitted models (paper 000 Figures 1 and 3, paper 003 Figures 2 and 3)."""

from __future__ import annotations

import sys

import numpy as np
import pytest

pytest.importorskip("matplotlib")

from svmopt import plotting
from svmopt.robust.estimator import RobustSVC


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
def test_decision_surfaces_png(tmp_path, toy, fitted, surfaces, assert_png):
    X, y = toy
    ax = plotting.plot_decision_surfaces(fitted, X, y, surfaces=surfaces, n_grid=60, title="toy")
    assert ax.get_title() == "toy"
    assert len(ax.collections) >= 4  # filled regions, at least S, the points, the support circles
    assert_png(plotting.save_figure(ax, tmp_path / f"surf_{surfaces}.png"))


def test_decision_surfaces_robust_and_given_axes(tmp_path, toy, assert_png):
    X, y = toy
    est = RobustSVC(kernel="rbf", alpha=1.9, nu=1.0, p=np.inf, eta={1.0: 0.01, -1.0: 0.03}).fit(X, y)
    fig, axes = plotting.new_figure(1, 2)
    out = plotting.plot_decision_surfaces(est, X, y, ax=axes[0, 1], n_grid=40)
    assert out is axes[0, 1]
    assert_png(plotting.save_figure(fig, tmp_path / "robust"))  # suffix added
    assert (tmp_path / "robust.png").exists()


def test_shifted_levels_paper_and_corrected(toy, fitted):
    """The printed S_A, S_B are the mirror images about gamma of the corrected ones (the interval of paper 000's
    (10)/(27) uses omega_B where omega_A belongs); the corrected S_A passes through the class-A point with the largest
    xi, the corrected S_B through the B one."""
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


def test_pso_convergence_png(tmp_path, assert_png):
    from svmopt.ellipsoid.swarms import pso_single_swarm

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


def test_hyperplanes_png(tmp_path, assert_png):
    from sklearn.svm import SVC

    from svmopt.ellipsoid.estimator import EllipsoidPSOClassifier
    rng = np.random.default_rng(0)
    X = np.vstack([rng.normal([0.0, 0.0], 0.5, size=(30, 2)), rng.normal([3.0, 3.0], 0.5, size=(30, 2))])
    y = np.repeat([1, -1], 30)
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

    code = "import sys, svmopt, svmopt.plotting; print('matplotlib' in sys.modules)"
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.strip() == "False"
