"""Figures of fitted models (matplotlib, optional: ``pip install svmopt[plot]``).

One public function per figure; each draws on ``ax`` when given, otherwise on a new
:class:`matplotlib.figure.Figure` made without :mod:`matplotlib.pyplot` (no global state, nothing is ever shown),
and returns the :class:`~matplotlib.axes.Axes` it drew on (``ax.figure`` is the figure). :func:`save_figure` writes
a figure (or the figure of an axes) to a file with the Agg renderer.

* :func:`plot_decision_surfaces` -- paper 000, Figures 1 and 3: the separating surface ``S`` (f(x) = b, solid) and
  the shifted surfaces ``S_A`` (f(x) = gamma - 1 + omega_A, dotted) and ``S_B`` (f(x) = gamma + 1 - omega_B,
  dashed) of a fitted binary :class:`svmopt.RobustSVC` on 2-D data (eq. (8) with the right-hand sides of step 5 of
  Pseudocode 1), the support (``u_j != 0``) circled and the points that fix ``omega_A`` / ``omega_B`` (9) drawn
  as stars, as in the paper. Decision: the printed S_A, S_B are the mirror images about gamma of the
  surfaces with the properties (P1)-(P2) the paper states for its figure; ``surfaces="paper"`` (default, the
  interval the line search uses) draws them as printed, ``surfaces="corrected"`` the mirrored ones, which pass
  through the starred points.
* :func:`plot_pso_convergence` -- paper 003, Figure 2: f(x) (or the error to the optimum) against the iteration.
* :func:`plot_hyperplanes` -- paper 003, Figure 3: the lines ``w1 x1 + w2 x2 + w0 = 0`` of several linear
  classifiers over the 2-D data.
"""

from __future__ import annotations

from collections.abc import Mapping
from pathlib import Path
from typing import Any

import numpy as np

__all__ = [
    "new_figure",
    "plot_decision_surfaces",
    "plot_hyperplanes",
    "plot_pso_convergence",
    "save_figure",
    "shifted_levels",
]

_MISSING = ("svmopt.plotting needs matplotlib, which is not installed; install the plot extra with "
            "`pip install svmopt[plot]` (or `pip install matplotlib`)")


def _mpl():
    """Import matplotlib lazily; ImportError naming the ``svmopt[plot]`` extra when it is missing."""
    try:
        import matplotlib
        import matplotlib.figure
    except ImportError as exc:  # tested by hiding matplotlib from sys.modules
        raise ImportError(_MISSING) from exc
    return matplotlib


def new_axes(ax, figsize=(6.0, 4.5)):
    """``ax`` unchanged, or the axes of a new pyplot-free Figure with an Agg canvas."""
    _mpl()
    if ax is not None:
        if not hasattr(ax, "plot") or not hasattr(ax, "figure"):
            raise TypeError(f"ax must be a matplotlib Axes or None, got {type(ax).__name__}")
        return ax
    from matplotlib.backends.backend_agg import FigureCanvasAgg
    from matplotlib.figure import Figure

    fig = Figure(figsize=figsize, layout="constrained")
    FigureCanvasAgg(fig)
    return fig.add_subplot()


def set_labels(ax, xlabel: str, ylabel: str, title: str | None) -> None:
    """Axis labels, and the title when one is given (an existing title of a caller's ``ax`` is kept otherwise)."""
    ax.set_xlabel(xlabel)
    ax.set_ylabel(ylabel)
    if title:
        ax.set_title(title)


def new_figure(nrows: int = 1, ncols: int = 1, *, figsize: tuple[float, float] | None = None):
    """``(fig, axes)``: a pyplot-free Figure with an Agg canvas and an ``nrows x ncols`` array of axes.

    Use it to compose several of this module's panels into one figure (as the reports do).
    """
    _mpl()
    from matplotlib.backends.backend_agg import FigureCanvasAgg
    from matplotlib.figure import Figure

    for name, v in (("nrows", nrows), ("ncols", ncols)):
        if isinstance(v, bool) or not isinstance(v, (int, np.integer)) or v < 1:
            raise ValueError(f"{name} must be an integer >= 1, got {v!r}")
    fig = Figure(figsize=figsize or (5.0 * ncols, 4.2 * nrows), layout="constrained")
    FigureCanvasAgg(fig)
    axes = fig.subplots(nrows, ncols, squeeze=False)
    return fig, axes


def save_figure(fig, path: str | Path, *, dpi: int = 120) -> Path:
    """Write ``fig`` (a Figure, or an Axes whose figure is written) to ``path`` with the Agg renderer.

    The format follows the suffix (PNG when there is none); parent folders are created. Returns the path.
    """
    _mpl()
    from matplotlib.backends.backend_agg import FigureCanvasAgg
    from matplotlib.figure import Figure

    if hasattr(fig, "figure") and not isinstance(fig, Figure):
        fig = fig.figure
    if not isinstance(fig, Figure):
        raise TypeError(f"fig must be a matplotlib Figure or Axes, got {type(fig).__name__}")
    path = Path(path)
    if not path.suffix:
        path = path.with_suffix(".png")
    path.parent.mkdir(parents=True, exist_ok=True)
    if type(fig.canvas).__name__ == "FigureCanvasBase":  # a Figure made without pyplot and without a canvas
        FigureCanvasAgg(fig)
    fig.savefig(path, dpi=dpi, bbox_inches="tight", pad_inches=0.08)
    return path


# ------------------------------------------------------------------------------------------ paper 000
def _check_2d(X, y, name: str = "X"):
    X = np.asarray(X, dtype=np.float64)
    if X.ndim != 2 or X.shape[1] != 2:
        raise ValueError(f"{name} must be 2-D data of shape (n_samples, 2) for this figure, got shape {X.shape}")
    if X.shape[0] == 0 or not np.all(np.isfinite(X)):
        raise ValueError(f"{name} must be non-empty and finite")
    y = np.asarray(y)
    if y.shape != (X.shape[0],):
        raise ValueError(f"y must have one label per row of {name}: shape ({X.shape[0]},), got {y.shape}")
    return X, y


def _grid(X: np.ndarray, n: int, pad: float = 0.15):
    lo, hi = X.min(axis=0), X.max(axis=0)
    span = np.where(hi > lo, hi - lo, 1.0)
    g0 = np.linspace(lo[0] - pad * span[0], hi[0] + pad * span[0], n)
    g1 = np.linspace(lo[1] - pad * span[1], hi[1] + pad * span[1], n)
    return np.meshgrid(g0, g1)


SURFACES = ("paper", "corrected")


def shifted_levels(est, surfaces: str = "paper") -> dict[str, float]:
    """Levels of ``decision_function`` (= f(x) - b) of the surfaces S, S_A and S_B of a fitted binary RobustSVC.

    ``S``: 0. ``surfaces="paper"``: as printed (Pseudocode 1, step 5; the ends of the interval of (10)/(27)),
    ``S_A``: ``gamma - 1 + omega_A - b``, ``S_B``: ``gamma + 1 - omega_B - b``. ``surfaces="corrected"`` (the
    orientation discussed in :mod:`svmopt.robust.estimator`): their mirror images about gamma,
    ``S_A``: ``gamma + 1 - omega_A - b`` (the lowest class-A score when some xi_A > 0) and ``S_B``:
    ``gamma - 1 + omega_B - b`` (the highest class-B score), the surfaces that satisfy the paper's
    properties (P1)-(P2): every A point on or above S_A, every B point on or below S_B.
    The two agree when omega_A = omega_B = 1.
    """
    if surfaces not in SURFACES:
        raise ValueError(f"surfaces must be one of {SURFACES}, got {surfaces!r}")
    for attr in ("gamma_", "omega_", "intercept_", "classes_"):
        if not hasattr(est, attr):
            raise TypeError(f"est must be a fitted svmopt.RobustSVC (missing {attr}); call fit first")
    if len(est.classes_) != 2:
        raise ValueError(f"est must be a binary RobustSVC; it has {len(est.classes_)} classes (one-vs-rest has one "
                         "set of surfaces per class)")
    gamma, b = float(est.gamma_[0]), float(est.intercept_[0])
    omega_a, omega_b = (float(v) for v in est.omega_[0])
    if surfaces == "corrected":
        return {"S": 0.0, "S_A": gamma + 1.0 - omega_a - b, "S_B": gamma - 1.0 + omega_b - b}
    return {"S": 0.0, "S_A": gamma - 1.0 + omega_a - b, "S_B": gamma + 1.0 - omega_b - b}


def _omega_points(est, X: np.ndarray, yb: np.ndarray) -> np.ndarray:
    """Indices of the training points with the largest positive hinge xi in each class (A first): they fix
    omega_A / omega_B (9). A class with omega = 0 (every point beyond its margin) has no such point."""
    f = est.decision_function(X) + float(est.intercept_[0])
    s = f
    delta = getattr(est, "delta_", None)
    if delta is not None and delta.shape[1] == X.shape[0] and np.any(delta[0] != 0) and est.support_.size:
        sv = est.support_vectors_
        kdiag = np.array([float(est.kernel_.gram(sv[i : i + 1])[0, 0]) for i in range(sv.shape[0])])
        S = float(np.sqrt(np.clip(kdiag, 0.0, None)) @ np.abs(est.dual_coef_[0]))
        s = f - yb * delta[0] * S  # robust shifted scores (Section 5.2, (23) and (27))
    xi = np.maximum(0.0, 1.0 - yb * (s - float(est.gamma_[0])))
    out = []
    for cls, omega in zip((1.0, -1.0), est.omega_[0], strict=True):  # the fitted omega decides (no re-rounding)
        idx = np.flatnonzero(yb == cls)
        if idx.size and omega > 0:
            out.append(idx[np.argmax(xi[idx])])
    return np.array(out, dtype=int)


def plot_decision_surfaces(est, X, y, ax=None, *, surfaces: str = "paper", n_grid: int = 200,
                           title: str | None = None):
    """Figures 1 and 3 of paper 000: S (solid black), S_A (dotted blue), S_B (dashed red) of a binary RobustSVC.

    ``surfaces``: ``"paper"`` draws S_A and S_B as printed, ``"corrected"`` their mirror images about gamma (see
    :func:`shifted_levels`). The surfaces are level sets of the nominal f(x); for a robust model the
    omegas come from the robust shifted scores s_i = f_i - y_i delta_i S (Section 5.2, (23) and (27)).

    ``X, y`` are 2-D points and their labels (normally the training data). Class A (``est.classes_[1]``) is
    drawn black, class B white, as in the paper; the support ``u_j != 0`` (``est.support_``) is circled when
    ``X`` is the training set (same number of rows), and the points realizing ``omega_A``, ``omega_B`` of (9) --
    the paper's "support vectors", through which S_A and S_B pass -- are drawn as stars. A surface whose level is
    outside the range of the decision function over the plotted box is not drawn (it is noted in the legend).
    """
    levels = shifted_levels(est, surfaces)
    X, y = _check_2d(X, y)
    if getattr(est, "n_features_in_", 2) != 2:
        raise ValueError(f"est was fitted on {est.n_features_in_} features; this figure needs 2")
    if isinstance(n_grid, bool) or not isinstance(n_grid, (int, np.integer)) or n_grid < 10:
        raise ValueError(f"n_grid must be an integer >= 10, got {n_grid!r}")
    unknown = set(np.unique(y).tolist()) - set(est.classes_.tolist())
    if unknown:
        raise ValueError(f"y has labels {sorted(unknown)} that est was not fitted on ({est.classes_.tolist()})")
    ax = new_axes(ax)
    from matplotlib.lines import Line2D

    G0, G1 = _grid(X, int(n_grid))
    Z = est.decision_function(np.column_stack([G0.ravel(), G1.ravel()])).reshape(G0.shape)
    ax.contourf(G0, G1, Z, levels=[-np.inf, 0.0, np.inf], colors=["#dde6f5", "#f7e3d4"], alpha=0.6)
    sa, sb = ("γ − 1 + ω_A", "γ + 1 − ω_B") if surfaces == "paper" else ("γ + 1 − ω_A", "γ − 1 + ω_B")
    styles = {"S": ("-", 2.2, "k", "S: f(x) = b"), "S_A": (":", 2.0, "tab:blue", f"S_A: f(x) = {sa}"),
              "S_B": ("--", 1.6, "tab:red", f"S_B: f(x) = {sb}")}
    handles = []
    zmin, zmax = float(Z.min()), float(Z.max())
    for key, (ls, lw, color, label) in styles.items():
        lev = levels[key]
        visible = zmin < lev < zmax
        if visible:
            ax.contour(G0, G1, Z, levels=[lev], colors=color, linestyles=ls, linewidths=lw)
        handles.append(Line2D([], [], color=color, ls=ls, lw=lw, label=label if visible else label + " (off-plot)"))
    is_a = y == est.classes_[1]
    ax.scatter(X[is_a, 0], X[is_a, 1], c="k", s=22, edgecolors="k", zorder=3)
    ax.scatter(X[~is_a, 0], X[~is_a, 1], c="w", s=22, edgecolors="k", zorder=3)
    handles += [Line2D([], [], marker="o", ls="", color="k", label=f"class A ({est.classes_[1]})"),
                Line2D([], [], marker="o", ls="", mfc="w", mec="k", label=f"class B ({est.classes_[0]})")]
    delta = getattr(est, "delta_", None)
    on_training_set = delta is not None and delta.shape[1] == X.shape[0]
    if on_training_set and est.support_.size:
        sv = X[est.support_]
        ax.scatter(sv[:, 0], sv[:, 1], s=110, facecolors="none", edgecolors="tab:red", linewidths=1.3, zorder=4)
        handles.append(Line2D([], [], marker="o", ls="", mfc="none", mec="tab:red", ms=9,
                              label=f"support, u_j ≠ 0 ({est.support_.size})"))
        stars = _omega_points(est, X, np.where(is_a, 1.0, -1.0))
        if stars.size:
            ax.scatter(X[stars, 0], X[stars, 1], marker="*", s=190, c="gold", edgecolors="k", linewidths=0.8,
                       zorder=5)
            handles.append(Line2D([], [], marker="*", ls="", mfc="gold", mec="k", ms=12,
                                  label="points fixing ω_A, ω_B"))
    ax.set_xlim(G0.min(), G0.max())
    ax.set_ylim(G1.min(), G1.max())
    set_labels(ax, "x1", "x2", title)
    ax.legend(handles=handles, fontsize=7, loc="best", framealpha=0.85)
    return ax


# ------------------------------------------------------------------------------------------ paper 003
def _as_curves(history) -> dict[str, np.ndarray]:
    if isinstance(history, Mapping):
        items = list(history.items())
    else:
        items = [("PSO", history)]
    if not items:
        raise ValueError("history is empty: nothing to plot")
    out = {}
    for label, h in items:
        arr = np.asarray(h, dtype=np.float64)
        if arr.ndim not in (1, 2) or arr.shape[-1] < 2:
            raise ValueError(f"history[{label!r}] must be one curve (T+1,) or runs x (T+1), got shape {arr.shape}")
        if not np.all(np.isfinite(arr)):
            raise ValueError(f"history[{label!r}] has non-finite values")
        out[str(label)] = arr
    return out


def plot_pso_convergence(history, ax=None, *, optimum: float | None = None, log: bool = False,
                         ylabel: str = "f(x)", title: str | None = None):
    """Figure 2 of paper 003: f(x) of the best point against the iteration (0 = the initial swarm).

    ``history``: one curve (array ``(T+1,)``, e.g. ``pso_single_swarm(...)["fitness_history"]`` negated), a
    ``runs x (T+1)`` array (median drawn, min-max shaded), or a mapping label -> either (several algorithms, as in
    the paper). ``optimum`` draws the optimal value as a thin line; ``log=True`` uses a log y axis (for errors
    to the optimum; values <= 0 are clipped to the smallest positive value for display only).
    """
    curves = _as_curves(history)
    if optimum is not None and not np.isfinite(optimum):
        raise ValueError(f"optimum must be a finite number or None, got {optimum!r}")
    ax = new_axes(ax)
    styles = ["-", "--", "-.", ":"]
    for k, (label, arr) in enumerate(curves.items()):
        if arr.ndim == 2:
            mid, lo, hi = np.median(arr, axis=0), arr.min(axis=0), arr.max(axis=0)
        else:
            mid = lo = hi = arr
        if log:
            pos = np.concatenate([v[v > 0] for v in (mid, lo, hi)])
            floor = pos.min() if pos.size else 1e-16
            mid, lo, hi = (np.maximum(v, floor) for v in (mid, lo, hi))
        it = np.arange(mid.size)
        line = ax.plot(it, mid, styles[k % len(styles)], lw=1.6,
                       label=label + (f" (median of {arr.shape[0]})" if arr.ndim == 2 else ""))[0]
        if arr.ndim == 2:
            ax.fill_between(it, lo, hi, color=line.get_color(), alpha=0.15, lw=0)
    if optimum is not None:
        ax.axhline(optimum, color="k", lw=0.8, label=f"optimum {optimum:.4g}")
    if log:
        ax.set_yscale("log")
    set_labels(ax, "iteration", ylabel, title)
    ax.grid(True, alpha=0.3)
    ax.legend(fontsize=8)
    return ax


def _line_params(model: Any, name: str) -> tuple[float, float, float]:
    if hasattr(model, "coef_") and hasattr(model, "intercept_"):
        coef = np.asarray(model.coef_, dtype=np.float64)
        icpt = np.atleast_1d(np.asarray(model.intercept_, dtype=np.float64))
        if coef.ndim == 2 and coef.shape[0] != 1:
            raise ValueError(f"models[{name!r}] has {coef.shape[0]} hyperplanes; only binary models are drawn")
        w = coef.reshape(-1)
        w0 = float(icpt[0])
    else:
        arr = np.asarray(model, dtype=np.float64).reshape(-1)
        if arr.size != 3:
            raise ValueError(f"models[{name!r}] must be a fitted linear model (coef_, intercept_) or (w1, w2, w0), "
                             f"got {model!r}")
        w, w0 = arr[:2], float(arr[2])
    if w.size != 2:
        raise ValueError(f"models[{name!r}] has {w.size} weights; this figure needs 2-D models")
    if not (np.all(np.isfinite(w)) and np.isfinite(w0)) or not np.any(w != 0):
        raise ValueError(f"models[{name!r}]: weights must be finite and not all zero")
    return float(w[0]), float(w[1]), w0


def plot_hyperplanes(models, X, y, ax=None, *, title: str | None = None):
    """Figure 3 of paper 003: the lines ``w1 x1 + w2 x2 + w0 = 0`` of several linear classifiers over 2-D data.

    ``models``: mapping label -> a fitted binary linear model with ``coef_`` and ``intercept_`` (e.g.
    :class:`svmopt.EllipsoidPSOClassifier`, ``sklearn.svm.SVC(kernel="linear")``, ``Perceptron``) or a triple
    ``(w1, w2, w0)``. The points are coloured by label.
    """
    X, y = _check_2d(X, y)
    if not isinstance(models, Mapping) or not models:
        raise ValueError("models must be a non-empty mapping label -> fitted model or (w1, w2, w0)")
    lines = {str(k): _line_params(v, str(k)) for k, v in models.items()}
    ax = new_axes(ax)
    labels = np.unique(y)
    markers = ["o", "s", "^", "D"]
    for k, lab in enumerate(labels):
        pts = X[y == lab]
        ax.scatter(pts[:, 0], pts[:, 1], s=14, marker=markers[k % len(markers)], alpha=0.7, label=f"class {lab}")
    G0, G1 = _grid(X, 2, pad=0.1)
    x0 = np.array([G0.min(), G0.max()])
    y_lim = (G1.min(), G1.max())
    styles = ["-", "--", "-.", ":", (0, (5, 1, 1, 1))]
    for k, (label, (w1, w2, w0)) in enumerate(lines.items()):
        ls = styles[k % len(styles)]
        if abs(w2) > 1e-12 * abs(w1):
            ax.plot(x0, -(w0 + w1 * x0) / w2, ls=ls, lw=1.6, label=label)
        else:
            ax.axvline(-w0 / w1, ls=ls, lw=1.6, label=label)
    ax.set_xlim(x0)
    ax.set_ylim(y_lim)
    set_labels(ax, "x1", "x2", title)
    ax.legend(fontsize=8)
    return ax
