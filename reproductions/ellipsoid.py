"""Reproduction protocol of Kumar & Ramakrishnan (paper 003): the LP, the synthetic data and the UCI data sets.

* LP with a quadratic constraint (paper Section 4.1, eq. (11), Tables 2-3): ``max x1 + x2 s.t. x1^2 + x2^2 <= 1`` by
  one swarm of eq. (7) (fitness ``-a^T x``, attractor ``a = [1, 1]``, uniform start in the disc, 50 iterations),
  ``runs`` seeds for each c4 of Table 3, errors ``sqrt(2) - a^T gbest`` after every iteration; Khachiyan's
  central-cut ellipsoid method (H_0 = I) and an interior step standing in for the paper's Karmarkar variant
  (which the paper does not describe). The heavy tail of the swarm's error is checked against an independent
  numpy implementation of the same swarm (:func:`numpy_lp`, numpy's PCG64 stream) over many more runs.
* Synthetic 2-D data (Section 4.2, Table 4): two Gaussians, means [8, 0] and [0, 8], covariance [[2, 1], [1, 2]],
  100 per class; our hyperplane (no projection) against hard-margin and C = 1 linear SVC and two perceptrons
  (100 epochs), one row per draw.
* Real data (Sections 4.3.1-4.3.6, Table 6): Iris, Wine, Pima, Thyroid; R repetitions of stratified 10-fold CV;
  ours (PSO and exact solver, and the PSO with the paper's own projection) against linear and RBF SVC (C = 1,
  standardized), a single-layer perceptron (100 epochs, raw and standardized) and a multilayer perceptron
  (``mlp``). For every PSO fit the distance found is compared with the exact distance of the same ellipsoids.

Decided: the data projection. Section 4.3.5 whitens the data set once (all classes) and projects each binary
problem onto ``mu_1 - mu_2`` and the top eigenvector of the pair's covariance. After whitening, that covariance is
nearly isotropic and its top eigenvector is round-off, so the estimator's default (``ours_pso``, ``ours_exact``)
whitens each class pair's training samples and takes the second direction from the difference of the two class
covariances (``projection="pair", p2_mode="covdiff"``). This is not the paper's procedure; the column
``ours_pso_paper_projection`` runs the paper's (``projection="dataset", p2_mode="literal"``: whitening on the
training folds of every class, the paper whitens the whole data set) so that the report shows both.

Decided: the paper's NN on the real data. The paper names "a neural network" for Table 6 without an architecture
(its Section 4.2 network is a single-layer perceptron: the ``perceptron_*`` columns). The ``mlp`` column is the
usual reading of "a neural network": ``MLPClassifier`` with one hidden layer of 10 units (the default size of
MATLAB's ``feedforwardnet``/``patternnet``; the paper's code was MATLAB), ReLU, L2 penalty 1e-4, full-batch L-BFGS
for at most 1000 iterations, after ``StandardScaler`` in a Pipeline (fitted on the training folds only),
``random_state = 1000 r + f`` for repetition r and fold f. A fit that stops at the iteration cap is counted
(``not_converged``) instead of warning.

Results go to the store (:mod:`reproductions.store`, tables ``ellipsoid_*`` in ``--results``): the LP
error curves, the independent-swarm tail check, the synthetic fits, one row per Table 6 fit (data set x method x
repetition x fold), one row per PSO pair fit (PSO against exact), the data sets' sizes and the wall time per part.
The report is always written from the store (the paper's numbers from ``tables/ellipsoid_table*.csv``,
the prose from ``templates/ellipsoid*.md``), so ``--report-only`` regenerates it exactly.

Figures (PNG beside the report, embedded in it; :mod:`svmopt.plotting`; matplotlib optional):

* Figure 2 -- f(x) of the LP (11) against the iteration for the typical run (first seed) of each swarm, Khachiyan's
  ellipsoid method and the Karmarkar stand-in, as in the paper; a second panel shows the error on a log scale
  with the median and range over all runs of each swarm.
* Figure 3 -- the synthetic data of the first seed with the lines of the hard-margin linear SVM, ours (PSO and
  exact solver) and the two perceptrons.

Usage::

    python -m reproductions ellipsoid --quick --out DIR   # R = 2, 10 LP runs, 3 synthetic seeds
    python -m reproductions ellipsoid --jobs 2            # the full protocol (R = 10, 50 runs, 10 seeds)
    python -m reproductions ellipsoid --report-only       # the report from the committed store
    python -m reproductions ellipsoid --figures-only      # only the figures, into an existing report
    python -m reproductions ellipsoid --merge --methods mlp  # (re)run Table 6 columns only

``--methods`` runs a subset of the Table 6 models; with ``--merge`` only those are computed (no LP, synthetic data
or figures), their rows replace the store's (same R and ``--seed`` as the stored rows), and the report is written
from the store.
"""

from __future__ import annotations

import argparse
import time
import warnings
from collections.abc import Sequence
from pathlib import Path

import numpy as np
import pandas as pd
from sklearn.exceptions import ConvergenceWarning
from sklearn.linear_model import Perceptron
from sklearn.model_selection import StratifiedKFold
from sklearn.neural_network import MLPClassifier
from sklearn.pipeline import make_pipeline
from sklearn.preprocessing import StandardScaler
from sklearn.svm import SVC

from reproductions import TABLES
from reproductions._cli import add_figure_arguments, check_protocol_arguments, protocol_parser, results_dir
from reproductions._parallel import parallel_map
from reproductions.figures import figures_section
from reproductions.report import join_words, load_items, load_template, render
from reproductions.store import open_table
from svmopt.datasets import load_dataset
from svmopt.ellipsoid.estimator import EllipsoidPSOClassifier
from svmopt.ellipsoid.geometry import ellipsoid_closest_points
from svmopt.ellipsoid.swarms import pso_single_swarm

MODULE_NAME = "ellipsoid"
COMMAND = "python -m reproductions ellipsoid"

__all__ = [
    "TABLE2",
    "TABLE3",
    "TABLE4",
    "TABLE6",
    "cv_protocol",
    "figure2",
    "figure3",
    "karmarkar_step",
    "khachiyan_lp",
    "load_results",
    "lp_experiment",
    "lp_tail_experiment",
    "main",
    "not_reproduced",
    "numpy_lp",
    "paper_table",
    "per_repetition",
    "report_text",
    "store_results",
    "synthetic_experiment",
    "synthetic_fits",
    "write_figures",
    "write_report",
]


def paper_table(n: int) -> pd.DataFrame:
    """The paper's Table ``n`` (2, 3, 4 or 6) as printed, from ``tables/ellipsoid_table<n>.csv``."""
    return pd.read_csv(TABLES / f"{MODULE_NAME}_table{n}.csv")


def _param_key(v) -> str:
    return "" if pd.isna(v) else f"{float(v):.2f}"


TABLE2 = {(r.algorithm if r.algorithm == "ellipsoid" else f"{r.algorithm}_{_param_key(r.param)}"): float(r.error_25)
          for r in paper_table(2).itertuples()}
TABLE3 = {round(float(r.c4), 2): (float(r.min), float(r.mean), float(r.max), float(r.sd))
          for r in paper_table(3).itertuples()}
TABLE4 = {r.method: (float(r.w1), float(r.w2), float(r.w0)) for r in paper_table(4).itertuples()}
TABLE6 = {r.dataset: (float(r.ours), float(r.svm_linear), float(r.nn), float(r.svm_rbf_16), float(r.gsvm_16))
          for r in paper_table(6).itertuples()}  # ours, SVM linear, NN, SVM RBF [16], GSVM [16]
SQRT2 = float(np.sqrt(2.0))


# ------------------------------------------------------------------------------------------ LP (Tables 2-3)
def khachiyan_lp(T: int = 50, a=(1.0, 1.0), H0: float = 1.0) -> np.ndarray:
    """Central-cut ellipsoid method for max a^T x on the unit disc (paper eq. (11)); error after each iteration."""
    a = np.asarray(a, dtype=float)
    n = a.size
    c, H = np.zeros(n), H0 * np.eye(n)
    best = -np.inf
    errs = np.empty(T + 1)
    errs[0] = SQRT2 - 0.0
    for j in range(1, T + 1):
        if c @ c > 1.0:
            h = 2.0 * c
        else:
            h = -a
            best = max(best, a @ c)
        hHh = h @ H @ h
        if not hHh > 1e-300:  # the ellipsoid has collapsed to the optimum within round-off: nothing left to cut
            errs[j:] = SQRT2 - best
            break
        ht = h / np.sqrt(hHh)
        Hh = H @ ht
        c = c - Hh / (n + 1)
        H = n**2 / (n**2 - 1.0) * (H - 2.0 / (n + 1) * np.outer(Hh, Hh))
        errs[j] = SQRT2 - best
    return errs


def karmarkar_step(T: int = 50, delta: float = 0.05) -> np.ndarray:
    """An interior step standing in for the paper's Karmarkar variant (not described in the paper):
    ``x <- x + delta tau(x) a/||a||``."""
    e = np.ones(2) / SQRT2
    x = np.zeros(2)
    errs = np.empty(T + 1)
    errs[0] = SQRT2
    for j in range(1, T + 1):
        b = x @ e
        tau = -b + np.sqrt(b * b - (x @ x - 1.0))  # distance to the unit circle along e
        x = x + delta * tau * e
        errs[j] = SQRT2 - np.ones(2) @ x
    return errs


def lp_experiment(runs: int = 50, T: int = 50, c4s: Sequence[float] = (0.05, 0.20), seed: int = 0) -> dict:
    """Tables 2-3: PSO errors (per iteration) over ``runs`` seeds ``seed, seed + 1, ...``, plus the baselines.

    ``out["pso"][c4]`` is ``runs x (T + 1)``; the typical run of Table 2 / Figure 2 is the first seed's.
    """
    out: dict = {"pso": {}, "typical": {}}
    for c4 in c4s:
        hist = np.array(
            [
                SQRT2
                + pso_single_swarm(np.ones(2), fitness="linear", max_iter=T, c4=c4, s_init=1.0, random_state=s)[
                    "fitness_history"
                ]
                for s in range(seed, seed + runs)
            ]
        )
        out["pso"][c4] = hist
        out["typical"][c4] = hist[0]
    out["ellipsoid"] = khachiyan_lp(T)
    out["karmarkar"] = {d: karmarkar_step(T, d) for d in (0.05, 0.50)}
    return out


def numpy_lp(seed: int, c4: float, k: int = 10, T: int = 50, w: float = 0.05) -> np.ndarray:
    """The LP swarm of eq. (7) written independently in numpy (PCG64 stream): ``e_j = sqrt(2) - a^T gbest`` after
    j moves, j = 0..T (the same algorithm as the C++ core's :func:`pso_single_swarm`, another random stream)."""
    rng = np.random.default_rng(seed)
    a = np.ones(2)
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
        errs[j] = SQRT2 - a @ GB
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


def lp_tail_experiment(runs: int = 2000, c4s: Sequence[float] = (0.05, 0.20), at: int = 25,
                       seed: int = 0) -> pd.DataFrame:
    """The error after ``at`` iterations of ``runs`` runs of the C++ swarm and of :func:`numpy_lp` for each c4:
    one row per (implementation, c4, run), columns ``implementation, c4, run, iteration, error``."""
    rows = []
    for c4 in c4s:
        for s in range(seed, seed + runs):
            core = SQRT2 + pso_single_swarm(np.ones(2), fitness="linear", max_iter=at, c4=c4, s_init=1.0,
                                            random_state=s)["fitness_history"][at]
            rows.append({"implementation": "core", "c4": c4, "run": s, "iteration": at, "error": float(core)})
            rows.append({"implementation": "numpy", "c4": c4, "run": s, "iteration": at,
                         "error": float(numpy_lp(s, c4, T=at)[at])})
    return pd.DataFrame(rows)


# ------------------------------------------------------------------------------------------ synthetic (Table 4)
def synthetic_data(seed: int, n_per_class: int = 100):
    rng = np.random.default_rng(seed)
    C = np.array([[2.0, 1.0], [1.0, 2.0]])
    X = np.vstack([rng.multivariate_normal([8, 0], C, n_per_class), rng.multivariate_normal([0, 8], C, n_per_class)])
    return X, np.repeat([1, 2], n_per_class)


def _angle(u, v) -> float:
    u, v = np.asarray(u) / np.linalg.norm(u), np.asarray(v) / np.linalg.norm(v)
    return float(np.degrees(np.arccos(np.clip(u @ v, -1.0, 1.0))))


def synthetic_fits(seed: int, n_per_class: int = 100) -> tuple[np.ndarray, np.ndarray, dict, dict]:
    """``(X, y, fits, info)`` for one seed: ``fits[name] = (w, w0)`` oriented towards class 1 for ours (PSO and
    exact solver), the hard-margin (C = 1e6) and C = 1 linear SVC and the two perceptrons (100 epochs)."""
    X, y = synthetic_data(seed, n_per_class)
    ours = EllipsoidPSOClassifier(projection="none", random_state=seed, **PAPER_ELLIPSOIDS).fit(X, y)
    exact = EllipsoidPSOClassifier(projection="none", solver="exact", **PAPER_ELLIPSOIDS).fit(X, y)
    info = {
        "train_acc_ours": ours.score(X, y),
        "shrunk": ours.n_shrunk_,
        "gap_rel": float((ours.distances_[0] - exact.distances_[0]) / exact.distances_[0]),
    }
    fits = {"ours": (ours.coef_[0], ours.intercept_[0]), "exact": (exact.coef_[0], exact.intercept_[0])}
    for name, C in (("SVM", 1e6), ("SVM_C1", 1.0)):
        s = SVC(kernel="linear", C=C).fit(X, y)
        fits[name] = (-s.coef_[0], -s.intercept_[0])  # sklearn's positive side is class 2
    for k, name in enumerate(("NN-1", "NN-2")):
        p = Perceptron(max_iter=100, tol=None, shuffle=True, random_state=seed * 10 + k).fit(X, y)
        fits[name] = (-p.coef_[0], -p.intercept_[0])
    return X, y, fits, info


def _synthetic_row(seed: int, n_per_class: int) -> dict:
    _, _, fits, info = synthetic_fits(seed, n_per_class)
    rec = {"seed": seed, "n_per_class": n_per_class, **info}
    for name, (w, b) in fits.items():
        rec[f"{name}_w1"], rec[f"{name}_w2"], rec[f"{name}_w0"] = float(w[0]), float(w[1]), float(b)
        rec[f"{name}_angle_svm"] = _angle(w, fits["SVM"][0])
    return rec


def synthetic_experiment(seeds: Sequence[int] = range(10), n_per_class: int = 100, n_jobs: int = 1) -> pd.DataFrame:
    """Per seed: (w1, w2, w0) of ours and of the baselines, oriented towards class 1 (z >= 0 on mu_1 = [8, 0]).

    The seeds are independent and run through ``parallel_map`` (``n_jobs``)."""
    from functools import partial

    rows = parallel_map(partial(_synthetic_row, n_per_class=n_per_class), list(seeds), n_jobs=n_jobs)
    return pd.DataFrame(rows)


# ------------------------------------------------------------------------------------------ real data (Table 6)
METHODS = ("ours_pso", "ours_exact", "ours_pso_paper_projection", "svm_linear", "svm_rbf", "mlp", "perceptron_raw",
           "perceptron_std")
DATASETS = ("iris", "wine", "pima", "new_thyroid")
MLP_PARAMS = {"hidden_layer_sizes": (10,), "solver": "lbfgs", "max_iter": 1000}
PAPER_PROJECTION = {"projection": "dataset", "p2_mode": "literal"}
"""The estimator's switches closest to the paper's Section 4.3.5 projection (module docstring)."""
PAPER_ELLIPSOIDS = {"ratio": 1.0, "shrinkage": 0.0}
"""The paper's class ellipsoids (Section 4.2) and whitening, without the estimator's cross-validated selection."""
# Table 6 of the report, in order: (header, a column of tables/ellipsoid_table6.csv or a method of METHODS)
TABLE6_COLUMNS = (
    ("paper: ours", "paper:ours"),
    ("ours PSO", "ours_pso"),
    ("ours exact", "ours_exact"),
    ("ours PSO, paper's projection", "ours_pso_paper_projection"),
    ("paper: SVM linear", "paper:svm_linear"),
    ("SVM linear (std.)", "svm_linear"),
    ("SVM RBF (std.)", "svm_rbf"),
    ("paper: NN", "paper:nn"),
    ("MLP 10 hidden (std.)", "mlp"),
    ("perceptron raw", "perceptron_raw"),
    ("perceptron std.", "perceptron_std"),
    ("paper: SVM RBF [16]", "paper:svm_rbf_16"),
    ("paper: GSVM [16]", "paper:gsvm_16"),
)
PSO_METHODS = ("ours_pso", "ours_pso_paper_projection")


def _model(name: str, seed: int):
    if name == "ours_pso":
        return EllipsoidPSOClassifier(random_state=seed, **PAPER_ELLIPSOIDS)
    if name == "ours_exact":
        return EllipsoidPSOClassifier(solver="exact", **PAPER_ELLIPSOIDS)
    if name == "ours_pso_paper_projection":
        return EllipsoidPSOClassifier(random_state=seed, **PAPER_PROJECTION, **PAPER_ELLIPSOIDS)
    if name == "svm_linear":
        return make_pipeline(StandardScaler(), SVC(kernel="linear", C=1.0))
    if name == "svm_rbf":
        return make_pipeline(StandardScaler(), SVC(kernel="rbf", C=1.0))
    if name == "mlp":
        return make_pipeline(StandardScaler(), MLPClassifier(**MLP_PARAMS, random_state=seed))
    if name == "perceptron_raw":
        return Perceptron(max_iter=100, tol=None, random_state=seed)
    if name == "perceptron_std":
        return make_pipeline(StandardScaler(), Perceptron(max_iter=100, tol=None, random_state=seed))
    raise ValueError(name)


def cv_protocol(
    datasets: Sequence[str] = DATASETS,
    reps: int = 10,
    folds: int = 10,
    methods: Sequence[str] = METHODS,
    n_jobs: int = 1,
    seed: int = 0,
) -> tuple[pd.DataFrame, pd.DataFrame]:
    """R x stratified k-fold CV (paper Section 4.3.6): one row per (dataset, method, rep, fold), and the
    PSO-vs-exact gap per pair fit of ``ours_pso``.

    Fold rows: ``n_test``, ``errors`` (wrong test predictions), ``error_pct``, ``seconds`` (fit + predict),
    ``shrunk`` (pair fits that needed the shrink fallback; PSO methods), ``not_converged`` (1 when the MLP
    stopped at the iteration cap). Repetition r shuffles its folds with ``random_state = seed + r`` and the model of
    fold f is seeded with ``1000 r + f``, so a subset of ``methods`` gives the same numbers as the full run (what
    ``--merge`` relies on). The (dataset, repetition) units run through ``parallel_map`` (``n_jobs``)."""
    from functools import partial

    unknown = [m for m in methods if m not in METHODS]
    if unknown or not methods:
        raise ValueError(f"methods must be a non-empty subset of {METHODS}, got {list(methods)}")
    units = [(ds, r) for ds in datasets for r in range(reps)]
    res = parallel_map(partial(_cv_unit, folds=folds, methods=tuple(methods), seed=seed), units, n_jobs=n_jobs)
    rows = [row for unit_rows, _ in res for row in unit_rows]
    gaps = [g for _, unit_gaps in res for g in unit_gaps]
    return pd.DataFrame(rows), pd.DataFrame(gaps)


def _cv_unit(unit: tuple[str, int], *, folds: int, methods: tuple[str, ...], seed: int) -> tuple[list, list]:
    ds, r = unit
    rows, gaps = [], []
    X, y = load_dataset(ds)
    skf = StratifiedKFold(n_splits=folds, shuffle=True, random_state=seed + r)
    for f, (tr, te) in enumerate(skf.split(X, y)):
        for mth in methods:
            t0 = time.perf_counter()
            with warnings.catch_warnings():
                warnings.simplefilter("ignore", ConvergenceWarning)  # counted below instead
                mdl = _model(mth, 1000 * r + f).fit(X[tr], y[tr])
            wrong = int(np.sum(mdl.predict(X[te]) != y[te]))
            secs = time.perf_counter() - t0
            rows.append({"dataset": ds, "method": mth, "rep": r, "fold": f, "seed": seed, "n_test": int(te.size),
                         "errors": wrong, "error_pct": 100.0 * wrong / te.size, "seconds": secs,
                         "shrunk": mdl.n_shrunk_ if mth in PSO_METHODS else np.nan,
                         "not_converged": int(mdl[-1].n_iter_ >= mdl[-1].max_iter) if mth == "mlp" else np.nan})
            if mth == "ours_pso":
                for k, m in enumerate(mdl.models_):
                    ex = ellipsoid_closest_points(m["mu1"], m["P1"], m["mu2"], m["P2"])
                    gaps.append({"dataset": ds, "rep": r, "fold": f, "pair": k, "D_pso": m["distance"],
                                 "D_exact": ex.distance, "rel_gap": (m["distance"] - ex.distance) / ex.distance,
                                 "certificate_gap": m["gap"], "shrink": m["s"]})
    return rows, gaps


def per_repetition(cv: pd.DataFrame) -> pd.DataFrame:
    """Fold rows -> one row per (dataset, method, rep): % error over the whole repetition, summed seconds, shrunk
    pair fits and MLP fits at the cap."""
    g = cv.groupby(["dataset", "method", "rep"], sort=False)
    out = g[["errors", "n_test", "seconds", "shrunk", "not_converged"]].sum(min_count=1).reset_index()
    out["error_pct"] = 100.0 * out["errors"] / out["n_test"]
    return out


def dataset_facts(datasets: Sequence[str]) -> pd.DataFrame:
    """Per data set: samples, features, classes, the majority class's share (the error of always answering it)
    and the largest absolute attribute value (the scale an unstandardized network sees)."""
    rows = []
    for ds in datasets:
        X, y = load_dataset(ds)
        _, counts = np.unique(y, return_counts=True)
        rows.append({"dataset": ds, "n": int(y.size), "d": int(X.shape[1]), "classes": int(counts.size),
                     "majority_error_pct": 100.0 * (1.0 - counts.max() / y.size),
                     "max_abs_attribute": float(np.abs(X).max())})
    return pd.DataFrame(rows)


# ------------------------------------------------------------------------------------------ figures
def figure2(lp: dict):
    """Figure 2: (a) f(x) = a^T x of the typical run against the iteration for every algorithm, as in the paper;
    (b) the error sqrt(2) - f(x) on a log scale, median and range over all runs of each swarm."""
    from svmopt.plotting import new_figure, plot_pso_convergence

    fig, axes = new_figure(1, 2, figsize=(11.0, 4.4))
    curves = {"ellipsoid (Khachiyan)": SQRT2 - lp["ellipsoid"]}
    for d, errs in lp["karmarkar"].items():
        curves[f"Karmarkar stand-in, δ = {d:.2f}"] = SQRT2 - errs
    for c4, typical in lp["typical"].items():
        curves[f"ours (PSO), c4 = {c4:.2f}"] = SQRT2 - typical
    plot_pso_convergence(curves, ax=axes[0, 0], optimum=SQRT2, ylabel="f(x) = x1 + x2 of the best point",
                         title="(a) LP (11): typical run")
    axes[0, 0].set_ylim(0.0, 1.55)
    runs = {"ellipsoid (Khachiyan)": lp["ellipsoid"]}
    for d, errs in lp["karmarkar"].items():
        runs[f"Karmarkar stand-in, δ = {d:.2f}"] = errs
    for c4, hist in lp["pso"].items():
        runs[f"ours (PSO), c4 = {c4:.2f}"] = hist
    plot_pso_convergence(runs, ax=axes[0, 1], log=True, ylabel="error √2 − f(x)",
                         title=f"(b) error, {next(iter(lp['pso'].values())).shape[0]} runs per swarm")
    return fig


def figure3(X: np.ndarray, y: np.ndarray, fits: dict, seed: int):
    """Figure 3: the synthetic data with the hyperplanes of the SVM, ours and the perceptrons."""
    from svmopt.plotting import new_figure, plot_hyperplanes

    fig, axes = new_figure(1, 1, figsize=(6.6, 5.6))
    labels = {"SVM": "SVM (linear, hard margin)", "ours": "our method (PSO)", "exact": "our method (exact solver)",
              "NN-1": "NN-1 (perceptron)", "NN-2": "NN-2 (perceptron)"}
    models = {label: (float(fits[k][0][0]), float(fits[k][0][1]), float(fits[k][1])) for k, label in labels.items()}
    plot_hyperplanes(models, X, y, ax=axes[0, 0], title=f"Figure 3: synthetic data, seed {seed}, 100 per class")
    return fig


def write_figures(out_dir: str | Path, lp: dict, *, seed: int = 0, dpi: int = 120) -> list[tuple[str, str]]:
    """Write Figures 2 and 3 as PNG files in ``out_dir`` from ``lp_experiment``'s output and the synthetic data of
    ``seed``; returns ``[(file name, caption)]``."""
    from svmopt.plotting import save_figure

    out_dir = Path(out_dir)
    runs = next(iter(lp["pso"].values())).shape[0]
    save_figure(figure2(lp), out_dir / f"{MODULE_NAME}_figure2.png", dpi=dpi)
    X, y, fits, _ = synthetic_fits(seed)
    save_figure(figure3(X, y, fits, seed), out_dir / f"{MODULE_NAME}_figure3.png", dpi=dpi)
    return [
        (f"{MODULE_NAME}_figure2.png",
         f"Figure 2: the LP with a quadratic constraint, f(x) against the iteration (typical run = seed {seed}) and "
         f"the error over {runs} runs"),
        (f"{MODULE_NAME}_figure3.png",
         f"Figure 3: hyperplanes on the synthetic 2-D data (seed {seed})"),
    ]


# ------------------------------------------------------------------------------------------ results store
TABLE_KEYS = {
    "lp": ["algorithm", "param", "run"],
    "lp_tail": ["implementation", "c4", "run"],
    "synthetic": ["seed"],
    "table6": ["dataset", "method", "rep", "fold"],
    "gaps": ["dataset", "rep", "fold", "pair"],
    "datasets": ["dataset"],
    "runs": ["part"],
}
"""The store's tables ``ellipsoid_<name>.csv`` and their keys."""
_FLOAT_FORMAT = {"lp": "%.6g", "lp_tail": "%.6g", "gaps": "%.6g", "table6": "%.6g", "runs": "%.4g"}


def _table(results: str | Path, name: str):
    return open_table(results, f"{MODULE_NAME}_{name}", key=TABLE_KEYS[name], float_format=_FLOAT_FORMAT.get(name))


def _lp_rows(lp: dict, seed: int) -> pd.DataFrame:
    rows = []

    def add(algorithm, param, run, errs):
        rows.append({"algorithm": algorithm, "param": param, "run": run,
                     **{f"e{j}": float(v) for j, v in enumerate(errs)}})

    for c4, hist in lp["pso"].items():
        for k, errs in enumerate(hist):
            add("pso", c4, seed + k, errs)
    add("ellipsoid", np.nan, 0, lp["ellipsoid"])
    for d, errs in lp["karmarkar"].items():
        add("karmarkar", d, 0, errs)
    return pd.DataFrame(rows)


def lp_from_store(frame: pd.DataFrame) -> dict:
    """The stored LP curves back in :func:`lp_experiment`'s form (``typical``: the first seed's run)."""
    ecols = sorted((c for c in frame.columns if c.startswith("e") and c[1:].isdigit()), key=lambda c: int(c[1:]))
    out: dict = {"pso": {}, "typical": {}, "karmarkar": {}}
    for c4, g in frame[frame["algorithm"] == "pso"].groupby("param", sort=True):
        hist = g.sort_values("run")[ecols].to_numpy(dtype=float)
        out["pso"][float(c4)], out["typical"][float(c4)] = hist, hist[0]
    out["seed"] = int(frame.loc[frame["algorithm"] == "pso", "run"].min())
    out["ellipsoid"] = frame.loc[frame["algorithm"] == "ellipsoid", ecols].to_numpy(dtype=float)[0]
    for d, g in frame[frame["algorithm"] == "karmarkar"].groupby("param", sort=True):
        out["karmarkar"][float(d)] = g[ecols].to_numpy(dtype=float)[0]
    return out


def store_results(results: str | Path, *, lp: dict | None = None, seed: int = 0, tail: pd.DataFrame | None = None,
                  syn: pd.DataFrame | None = None, cv: pd.DataFrame | None = None, gaps: pd.DataFrame | None = None,
                  facts: pd.DataFrame | None = None, runs: Sequence[dict] = (), new_run: bool = False) -> None:
    """Put a run's results into the store ``results``.

    The LP curves, the tail check and the synthetic fits are computed whole and replace their tables. The Table 6
    rows replace the stored rows of the same data sets and methods (and the gap rows of those data sets when
    ``ours_pso`` ran), so a run with fewer repetitions never leaves stale ones behind. ``runs`` (``part``,
    ``wall_s``, ...) replaces the wall-time table for a ``new_run``, else is added to it (``--merge``)."""
    if lp is not None:
        _table(results, "lp").replace(_lp_rows(lp, seed))
    if tail is not None:
        _table(results, "lp_tail").replace(tail)
    if syn is not None:
        _table(results, "synthetic").replace(syn)
    if cv is not None and not cv.empty:
        t = _table(results, "table6")
        old = t.read()
        if not old.empty:
            old = old[~(old["dataset"].isin(cv["dataset"].unique()) & old["method"].isin(cv["method"].unique()))]
        t.replace(pd.concat([old, cv], ignore_index=True) if not old.empty else cv)
        if "ours_pso" in set(cv["method"]) and gaps is not None:
            g = _table(results, "gaps")
            old = g.read()
            if not old.empty:
                old = old[~old["dataset"].isin(cv["dataset"].unique())]
            g.replace(pd.concat([old, gaps], ignore_index=True) if not old.empty else gaps)
    if facts is not None:
        _table(results, "datasets").append(facts)
    if runs:
        t = _table(results, "runs")
        if new_run:
            t.replace(pd.DataFrame(list(runs)))
        else:
            t.append(list(runs))


def load_results(results: str | Path) -> dict[str, pd.DataFrame]:
    """Every table of the store ``results`` (``FileNotFoundError`` naming the first one missing; the PSO gaps and
    the LP tail check may be absent: a run without ``ours_pso`` or with ``--merge`` only)."""
    out = {}
    for name in TABLE_KEYS:
        t = _table(results, name)
        if not t.exists() and name in ("gaps", "lp_tail"):
            out[name] = pd.DataFrame()
            continue
        if not t.exists():
            raise FileNotFoundError(f"the results store {results} has no table {t.path.name}: run the protocol first")
        out[name] = t.read()
    return out


# ------------------------------------------------------------------------------------------ report
NOT_REPRODUCED_SDS = 2.0
"""A baseline cell of Table 6 counts as not reproduced when our mean is this many SD (over repetitions) away from
the paper's number; a cell of our method is listed whenever it is worse than the paper's."""
GSVM_REF = "[16]"
TAIL_QUANTILE = 0.99
FIGURES_KEEP = "keep"


def _pipe_table(header: Sequence[str], rows: Sequence[Sequence[str]]) -> str:
    return "\n".join(["| " + " | ".join(header) + " |", "|" + "---|" * len(header)] + [
        "| " + " | ".join(str(c) for c in r) + " |" for r in rows])


def _e(x: float) -> str:
    """An LP error as the tables print it: four decimals, or two significant digits below 1e-3."""
    return f"{x:.4f}" if x >= 1e-3 else f"{x:.2e}"


def _f(x: float, digits: int = 2) -> str:
    return f"{x:.{digits}f}"


def _ordered(values, order: Sequence[str]) -> list[str]:
    values = list(dict.fromkeys(values))
    return [v for v in order if v in values] + [v for v in values if v not in order]


def _cells(reps: pd.DataFrame) -> pd.DataFrame:
    """(dataset, method) -> mean and SD of the % error over repetitions, and their count."""
    return reps.groupby(["dataset", "method"])["error_pct"].agg(["mean", "std", "count"])


def _settings() -> str:
    p = EllipsoidPSOClassifier().get_params()
    return (f"k = {p['n_particles']} particles, w = {p['w']}, c1 = {p['c1']}, c2 = {p['c2']}, c3 = {p['c3']}, "
            f"c4 = {p['c4']}, T = {p['max_iter']} iterations, initial swarm scale {p['s_init']}; class ellipsoids "
            f"reading {p['reading']} with metric `{p['metric']}` (Sigma^-1), fallback `{p['fallback']}` "
            f"(gamma = {p['gamma']}), projection `{p['projection']}` with `p2_mode=\"{p['p2_mode']}\"`, "
            f"multiclass `{p['multiclass']}`")


def _lp_values(lp: dict, tail: pd.DataFrame, it: dict) -> dict:
    at = 25
    seed = lp["seed"]
    runs = next(iter(lp["pso"].values())).shape[0]
    T = next(iter(lp["pso"].values())).shape[1] - 1
    rows = [["ellipsoid (Khachiyan, H0 = I)", f"{TABLE2['ellipsoid']}", f"{lp['ellipsoid'][at]:.2e}"]]
    for d, errs in lp["karmarkar"].items():
        rows.append([f"Karmarkar delta = {d:.2f} (stand-in)", f"{TABLE2.get(f'karmarkar_{d:.2f}', '-')}",
                     _e(errs[at])])
    for c4 in lp["pso"]:
        rows.append([f"PSO c4 = {c4:.2f}", f"{TABLE2.get(f'ours_{c4:.2f}', '-')}", f"{lp['typical'][c4][at]:.4f}"])
    t3 = []
    for c4, hist in lp["pso"].items():
        e = hist[:, at]
        p = TABLE3.get(round(c4, 2), (np.nan,) * 4)
        t3.append([f"{c4:.2f}", " / ".join(f"{v:.4f}" for v in p),
                   f"{e.min():.4f} / {e.mean():.4f} / {e.max():.4f} / {e.std(ddof=1) if runs > 1 else np.nan:.4f}",
                   f"{hist[:, -1].mean():.4f}"])
    c4s = sorted(lp["pso"])
    means = {c4: lp["pso"][c4][:, at].mean() for c4 in c4s}
    lo, hi = c4s[0], c4s[-1]
    se = float(np.sqrt(sum(lp["pso"][c][:, at].var(ddof=1) / runs for c in (lo, hi)))) if runs > 1 else np.nan
    paper_better_hi = TABLE3[round(hi, 2)][1] < TABLE3[round(lo, 2)][1]
    ours_better_hi = means[hi] < means[lo]
    # not reproduced: the typical run, the maximum of Table 3, Karmarkar
    items = []
    for c4 in c4s:
        ours, paper = lp["typical"][c4][at], TABLE2.get(f"ours_{c4:.2f}", np.nan)
        if ours > paper:
            e = lp["pso"][c4][:, at]
            items.append(render(it["lp_typical"], {
                "c4": f"{c4:.2f}", "ours": f"{ours:.4f}", "paper": f"{paper}", "seed": seed, "at": at, "runs": runs,
                "ours_pct": f"{100.0 * np.mean(e <= ours):.0f}", "paper_pct": f"{100.0 * np.mean(e <= paper):.0f}"}))
    for c4 in c4s:
        e = lp["pso"][c4][:, at]
        pmax = TABLE3[round(c4, 2)][2]
        if e.max() <= pmax:
            continue
        vals = {"c4": f"{c4:.2f}", "ours": f"{e.max():.4f}", "paper": f"{pmax:.4f}", "at": at, "runs": runs}
        t = tail[np.isclose(tail["c4"], c4)] if not tail.empty else tail
        if t.empty:
            items.append(render(it["lp_max_untried"], vals))
            continue
        core = t.loc[t["implementation"] == "core", "error"].to_numpy()
        nump = t.loc[t["implementation"] == "numpy", "error"].to_numpy()
        p_core, p_np = np.mean(core > pmax), np.mean(nump > pmax)
        vals.update({"tail_runs": core.size, "np_mean": f"{nump.mean():.4f}", "core_mean": f"{core.mean():.4f}",
                     "q": f"{TAIL_QUANTILE:g}", "np_q": f"{np.quantile(nump, TAIL_QUANTILE):.3f}",
                     "core_q": f"{np.quantile(core, TAIL_QUANTILE):.3f}", "thr": f"{pmax:.4f}",
                     "np_p": f"{100 * p_np:.1f}", "core_p": f"{100 * p_core:.1f}",
                     "np_pmax": f"{100 * (1 - (1 - p_np) ** runs):.0f}",
                     "core_pmax": f"{100 * (1 - (1 - p_core) ** runs):.0f}"})
        items.append(render(it["lp_max"], vals))
    kd = sorted(lp["karmarkar"])
    items.append(render(it["karmarkar"], {
        "at": at, "deltas": join_words([f"{d:.2f}" for d in kd]),
        "ours": join_words([_e(lp["karmarkar"][d][at]) for d in kd]),
        "paper": join_words([f"{TABLE2.get(f'karmarkar_{d:.2f}', np.nan)}" for d in kd])}))
    values = {
        "lp_at": at, "lp_seed": seed, "lp_runs": runs, "lp_T": T,
        "table2": _pipe_table(["algorithm", "paper (Table 2)", "ours"], rows),
        "table3": _pipe_table(["c4", "paper min / mean / max / sd", "ours min / mean / max / sd",
                               f"ours mean at {T}"], t3),
        "lp_means": join_words([f"{means[c]:.4f} (c4 = {c:.2f})" for c in c4s]),
        "paper_lp_means": join_words([f"{TABLE3[round(c, 2)][1]:.4f}" for c in c4s]),
        "lp_ordering": ("agrees with ours" if paper_better_hi == ours_better_hi else "is not ours"),
        "lp_mean_diff": f"{abs(means[hi] - means[lo]):.4f}",
        "lp_diff_se": f"{abs(means[hi] - means[lo]) / se:.1f}" if se > 0 else "-",
        "lp_c4_hi": f"{hi:.2f}", "lp_c4_lo": f"{lo:.2f}",
        "kh_ours": _e(lp["ellipsoid"][at]), "kh_paper": f"{TABLE2['ellipsoid']}",
        "kh_verdict": "reproduces" if round(lp["ellipsoid"][at], 4) == TABLE2["ellipsoid"] else "does not reproduce",
        "lp_noise": ("within run-to-run noise" if se > 0 and abs(means[hi] - means[lo]) < 2 * se
                     else "beyond run-to-run noise" if se > 0 else "no spread to judge by"),
    }
    return values, items


def _synthetic_values(syn: pd.DataFrame, it: dict) -> tuple[dict, list[str]]:
    s0 = syn.sort_values("seed").iloc[0]
    rows = []
    for name, key in (("SVM", "SVM"), ("Our method", "ours"), ("NN-1", "NN-1"), ("NN-2", "NN-2")):
        pw = np.array(TABLE4[key])
        ow = np.array([s0[f"{key}_w1"], s0[f"{key}_w2"], s0[f"{key}_w0"]])
        rows.append([name, ", ".join(f"{v:.4f}" for v in pw),
                     ", ".join(f"{v:.4f}" for v in pw[:2] / np.linalg.norm(pw[:2])),
                     ", ".join(f"{v:.4f}" for v in ow),
                     ", ".join(f"{v:.4f}" for v in ow[:2] / np.linalg.norm(ow[:2]))])
    paper_angle = _angle(TABLE4["ours"][:2], TABLE4["SVM"][:2])
    a = syn["ours_angle_svm"]
    values = {
        "syn_seed": int(s0["seed"]), "syn_per_class": int(s0.get("n_per_class", 100)), "syn_pos_class": 1,
        "table4": _pipe_table(["method", "paper w1, w2, w0", "paper normalized", "ours w1, w2, w0", "ours normalized"],
                              rows),
        "syn_n": len(syn), "syn_train_acc": f"{syn['train_acc_ours'].mean() * 100:.1f}",
        "syn_n_sep": int((syn["train_acc_ours"] == 1.0).sum()),
        "syn_n_shrunk": int((syn["shrunk"] > 0).sum()), "syn_angle_min": f"{a.min():.1f}",
        "syn_angle_max": f"{a.max():.1f}", "syn_angle_mean": f"{a.mean():.1f}",
        "syn_angle_exact_mean": f"{syn['exact_angle_svm'].mean():.1f}",
        "syn_gap_median": f"{syn['gap_rel'].median():.1e}", "syn_paper_angle": f"{paper_angle:.2f}",
    }
    items = [render(it["table4_angle"], {k: values[k] for k in (
        "syn_angle_mean", "syn_angle_min", "syn_angle_max", "syn_n", "syn_paper_angle", "syn_angle_exact_mean")})]
    return values, items


def _table6_values(cv: pd.DataFrame, gaps: pd.DataFrame, facts: pd.DataFrame, it: dict) -> tuple[dict, list[str]]:
    reps = per_repetition(cv)
    cells = _cells(reps)
    datasets = _ordered(cv["dataset"], DATASETS)
    methods = set(cv["method"])
    facts = facts.set_index("dataset")
    R, folds = int(cv["rep"].nunique()), int(cv["fold"].nunique())
    paper = paper_table(6).set_index("dataset")

    def has(ds, m):
        return (ds, m) in cells.index

    def mean(ds, m):
        return float(cells.loc[(ds, m), "mean"])

    def sd(ds, m):
        return float(cells.loc[(ds, m), "std"])

    header = ["data set"] + [h for h, k in TABLE6_COLUMNS if k.startswith("paper:") or k in methods]
    rows = []
    for ds in datasets:
        row = [ds]
        for _, k in TABLE6_COLUMNS:
            if k.startswith("paper:"):
                row.append(f"{paper.loc[ds, k[6:]]:.2f}" if ds in paper.index else "-")
            elif k in methods:
                row.append(f"{mean(ds, k):.2f}" + (f" ({sd(ds, k):.2f})" if has(ds, k) and np.isfinite(sd(ds, k))
                                                  else "") if has(ds, k) else "-")
        rows.append(row)
    v: dict = {"reps": R, "folds": folds, "table6": _pipe_table(header, rows), "gsvm_ref": GSVM_REF}
    # data sets
    v["datasets_table"] = _pipe_table(
        ["data set", "samples", "features", "classes", "majority-class error %", "largest absolute attribute"],
        [[ds, int(facts.loc[ds, "n"]), int(facts.loc[ds, "d"]), int(facts.loc[ds, "classes"]),
          _f(facts.loc[ds, "majority_error_pct"]), f"{facts.loc[ds, 'max_abs_attribute']:g}"] for ds in datasets])
    # MLP cap
    if "mlp" in methods:
        m = cv[cv["method"] == "mlp"].groupby("dataset")["not_converged"].agg(["sum", "size"])
        v["mlp_cap"] = ", ".join(f"{ds} {int(m.loc[ds, 'sum'])} of {int(m.loc[ds, 'size'])}" for ds in datasets)
    else:
        v["mlp_cap"] = "none (the MLP was not run)"
    # the paper's projection
    pp = "ours_pso_paper_projection"
    both = [ds for ds in datasets if has(ds, pp) and has(ds, "ours_pso")]
    pp_worse = [ds for ds in both if mean(ds, pp) > mean(ds, "ours_pso")]
    v["n_pp_compared"] = len(both)
    v["n_pp_worse"] = len(pp_worse)
    v["pp_list"] = join_words([f"{ds} {_f(mean(ds, pp))} % against {_f(mean(ds, 'ours_pso'))} %" for ds in both])
    # summary / discussion numbers
    pso = [ds for ds in datasets if has(ds, "ours_pso")]
    better = [ds for ds in pso if mean(ds, "ours_pso") < paper.loc[ds, "ours"]]
    worse = [ds for ds in pso if mean(ds, "ours_pso") > paper.loc[ds, "ours"]]
    v.update({"n_pso": len(pso), "n_pso_better": len(better), "pso_better": join_words(better),
              "n_pso_worse": len(worse), "pso_worse": join_words(worse)})
    ex = [ds for ds in pso if has(ds, "ours_exact")]
    ex_le = [ds for ds in ex if mean(ds, "ours_exact") <= mean(ds, "ours_pso")]
    v.update({"n_exact": len(ex), "n_exact_le": len(ex_le),
              "exact_gain": join_words([f"{ds} {_f(mean(ds, 'ours_pso') - mean(ds, 'ours_exact'))}" for ds in ex])})
    v["pso_max_abs_diff"] = _f(max((abs(mean(ds, "ours_pso") - paper.loc[ds, "ours"]) for ds in pso), default=np.nan))
    svm = [ds for ds in pso if has(ds, "svm_linear") and has(ds, "svm_rbf")]
    v["pso_svm_gap"] = join_words([
        f"{ds} {mean(ds, 'ours_pso') - min(mean(ds, 'svm_linear'), mean(ds, 'svm_rbf')):+.2f}" for ds in svm])
    pr = [ds for ds in pso if has(ds, "perceptron_raw")]
    v["n_perc"] = len(pr)
    v["n_perc_worse"] = sum(mean(ds, "perceptron_raw") > mean(ds, "ours_pso") for ds in pr)
    v["perc_list"] = join_words([f"{ds} {_f(mean(ds, 'perceptron_raw'))} %" for ds in pr])
    # the NN column
    mlp = [ds for ds in datasets if has(ds, "mlp")]
    v["mlp_list"] = join_words([f"{ds} {_f(mean(ds, 'mlp'))} % (SD {_f(sd(ds, 'mlp'))})" for ds in mlp])
    v["paper_nn_list"] = join_words([f"{_f(paper.loc[ds, 'nn'])} %" for ds in mlp])
    nn_bad = [ds for ds in mlp if paper.loc[ds, "nn"] > mean(ds, "mlp") + NOT_REPRODUCED_SDS * sd(ds, "mlp")]
    v["nn_bad"] = join_words(nn_bad)
    v["nn_bad_facts"] = "; ".join(
        f"{ds}: the paper's {_f(paper.loc[ds, 'nn'])} %, always answering the majority class "
        f"{_f(facts.loc[ds, 'majority_error_pct'])} %, our raw-input perceptron "
        + (f"{_f(mean(ds, 'perceptron_raw'))} %" if has(ds, "perceptron_raw") else "-")
        for ds in nn_bad) or "none"
    v["nn_bad_attr"] = join_words([f"{ds} up to {facts.loc[ds, 'max_abs_attribute']:g}" for ds in nn_bad])
    vs = [ds for ds in mlp if has(ds, "ours_pso")]
    diff = {ds: mean(ds, "ours_pso") - mean(ds, "mlp") for ds in vs}
    tol = {ds: max(sd(ds, "ours_pso"), sd(ds, "mlp")) for ds in vs}
    v["mlp_better"] = join_words([ds for ds in vs if diff[ds] < -tol[ds]])
    v["mlp_level"] = join_words([ds for ds in vs if abs(diff[ds]) <= tol[ds]])
    v["mlp_worse"] = join_words([ds for ds in vs if diff[ds] > tol[ds]])
    # gaps, shrink
    if gaps.empty:
        v["gap_table"] = "(The PSO was not run: no PSO-against-exact table.)"
        v.update({"shrunk_list": "-", "abs_gap_median": "-", "dstar_list": "-", "cert_median": "-"})
    else:
        grows = []
        for ds in _ordered(gaps["dataset"], DATASETS):
            g = gaps[gaps["dataset"] == ds]
            ab = g["D_pso"] - g["D_exact"]
            grows.append([ds, len(g), int((g["shrink"] < 1).sum()), f"{g['D_exact'].median():.3f}",
                          f"{ab.median():.2e}", f"{ab.quantile(0.95):.2e}", f"{g['rel_gap'].median():.2e}",
                          f"{g['rel_gap'].quantile(0.95):.2e}", f"{g['rel_gap'].max():.2e}",
                          f"{g['certificate_gap'].median():.2e}"])
        v["gap_table"] = _pipe_table(["data set", "pair fits", "shrunk (fallback)", "D* median", "abs. gap median",
                                      "abs. gap p95", "rel. gap median", "rel. gap p95", "rel. gap max",
                                      "certificate gap median"], grows)
        sh = gaps.groupby("dataset")["shrink"].apply(lambda s: 100.0 * float((s < 1).mean()))
        v["shrunk_list"] = join_words([f"{ds} {sh[ds]:.0f} %" for ds in _ordered(gaps["dataset"], DATASETS)])
        v["abs_gap_median"] = f"{(gaps['D_pso'] - gaps['D_exact']).median():.1e}"
        dstar = gaps.groupby("dataset")["D_exact"].median()
        v["dstar_list"] = join_words([f"{ds} {dstar[ds]:.3f}" for ds in _ordered(gaps["dataset"], DATASETS)])
        v["cert_median"] = f"{gaps['certificate_gap'].median():.1e}"
    # time table
    secs = cv.groupby(["dataset", "method"])["seconds"].sum().unstack()
    mcols = _ordered(secs.columns, METHODS)
    v["time_table"] = _pipe_table(["data set", *mcols], [
        [ds] + ["" if pd.isna(secs.loc[ds, m]) else f"{secs.loc[ds, m]:.2f}" for m in mcols] for ds in datasets])
    v["time_total"] = f"{float(np.nansum(secs.to_numpy())):.1f}"
    v["time_methods"] = ", ".join(mcols)
    # not reproduced
    items = []
    for ds in worse:
        vals = {"dataset": ds, "ours": _f(mean(ds, "ours_pso")), "sd": _f(sd(ds, "ours_pso")),
                "paper": _f(paper.loc[ds, "ours"]), "diff": _f(mean(ds, "ours_pso") - paper.loc[ds, "ours"]),
                "exact": _f(mean(ds, "ours_exact")) if has(ds, "ours_exact") else "-",
                "exact_vs": ("not run" if not has(ds, "ours_exact") else
                             "below" if mean(ds, "ours_exact") < paper.loc[ds, "ours"] else
                             "equal to" if mean(ds, "ours_exact") == paper.loc[ds, "ours"] else "above"),
                "paper_projection": _f(mean(ds, pp)) if has(ds, pp) else "-", "reps": R}
        items.append(render(it["table6_ours"], vals))
    for col, method, name in (("svm_linear", "svm_linear", "table6_svm_linear"), ("nn", "mlp", "table6_nn")):
        for ds in datasets:
            if not has(ds, method) or not sd(ds, method) > 0:  # one repetition, or no spread: no yardstick
                continue
            d = mean(ds, method) - paper.loc[ds, col]
            if abs(d) > NOT_REPRODUCED_SDS * sd(ds, method):
                vals = {"dataset": ds, "ours": _f(mean(ds, method)), "sd": _f(sd(ds, method)),
                        "paper": _f(paper.loc[ds, col]), "k_sd": f"{NOT_REPRODUCED_SDS:g}",
                        "n_sd": f"{abs(d) / sd(ds, method):.0f}"}
                if name == "table6_svm_linear":
                    vals["rbf"] = _f(mean(ds, "svm_rbf")) if has(ds, "svm_rbf") else "-"
                else:
                    vals["majority"] = _f(facts.loc[ds, "majority_error_pct"])
                    vals["perceptron_raw"] = _f(mean(ds, "perceptron_raw")) if has(ds, "perceptron_raw") else "-"
                items.append(render(it[name], vals))
    return v, items


def _report_values(res: dict[str, pd.DataFrame]) -> tuple[dict, list[str]]:
    it = load_items(f"{MODULE_NAME}_items")
    lp = lp_from_store(res["lp"])
    lpv, lp_items = _lp_values(lp, res["lp_tail"], it)
    synv, syn_items = _synthetic_values(res["synthetic"], it)
    t6v, t6_items = _table6_values(res["table6"], res["gaps"], res["datasets"], it)
    runs = res["runs"]
    mode = runs["mode"].iloc[0] if not runs.empty else "unknown"
    items = t6_items + lp_items + syn_items
    values = {
        **lpv, **synv, **t6v,
        "mode": f"Mode: {mode} (R = {t6v['reps']}, {lpv['lp_runs']} LP runs per c4, {synv['syn_n']} synthetic "
                f"draw{'s' if synv['syn_n'] != 1 else ''}).",
        "command": COMMAND + (" --quick" if mode == "quick" else ""),
        "settings": _settings(),
        "wall_times": ", ".join(f"{r.part} {r.wall_s:.1f}" for r in runs.itertuples()),
        "n_not_reproduced": len(items),
        "k_sd": f"{NOT_REPRODUCED_SDS:g}",
        "not_reproduced": "\n".join("* " + s.replace("\n", "\n  ") for s in items),
    }
    return values, items


def not_reproduced(res: dict[str, pd.DataFrame]) -> list[str]:
    """The entries of the report's "Not reproduced / below the paper" list, computed from the store's tables."""
    return _report_values(res)[1]


def report_text(res: dict[str, pd.DataFrame]) -> str:
    """The report (without its Figures section) from the store's tables ``res`` (:func:`load_results`)."""
    return render(load_template(MODULE_NAME), _report_values(res)[0])


def write_report(res: dict[str, pd.DataFrame], path: str | Path, *, figures=FIGURES_KEEP, intro: str = "") -> Path:
    """Write the report from the store's tables ``res`` to ``path``.

    ``figures``: ``[(PNG file name, caption)]`` for a new Figures section, ``None`` when they could not be drawn
    (no matplotlib: the section is the one-line note), or ``"keep"``: the Figures section of the existing file at
    ``path`` is kept as it is (none if there is none)."""
    from reproductions.figures import figures_markdown

    path = Path(path)
    text = report_text(res).rstrip("\n") + "\n"
    if isinstance(figures, str) and figures == FIGURES_KEEP:
        section = figures_section(path.read_text()) if path.is_file() else None
    else:
        section = figures_markdown(figures, intro=intro)
    if section is not None:
        text += "\n" + section.rstrip("\n") + "\n"
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(text)
    return path


# ------------------------------------------------------------------------------------------ command line
def build_parser() -> argparse.ArgumentParser:
    ap = protocol_parser(MODULE_NAME, __doc__, quick_help="R = 2, 10 LP runs, 3 synthetic seeds",
                         seed_help="first seed of the LP runs, synthetic draws and CV shuffles (the typical run / "
                                   "Figure 3 use it)")
    ap.add_argument("--reps", type=int, default=None, help="CV repetitions (default 10, quick 2)")
    ap.add_argument("--lp-runs", type=int, default=None, help="LP runs per c4 (default 50, quick 10)")
    ap.add_argument("--tail-runs", type=int, default=None,
                    help="runs of the LP tail check, C++ swarm against numpy (default 2000, quick 100)")
    ap.add_argument("--synthetic-seeds", type=int, default=None, help="synthetic draws (default 10, quick 3)")
    ap.add_argument("--datasets", nargs="*", default=list(DATASETS))
    ap.add_argument("--methods", nargs="+", choices=METHODS, default=list(METHODS), metavar="METHOD",
                    help=f"Table 6 models to run (default all: {' '.join(METHODS)})")
    ap.add_argument("--merge", action="store_true",
                    help="run only Table 6 for --methods, replace their rows in the results store (same R and "
                         "--seed as the stored rows) and write the report from the store; nothing else is recomputed")
    add_figure_arguments(ap)
    return ap


def _figures(out_dir: Path, lp: dict, seed: int, dpi: int):
    """``[(file, caption)]``, or ``None`` without matplotlib (the report then says so)."""
    from reproductions.figures import have_matplotlib

    if not have_matplotlib():
        return None
    return write_figures(out_dir, lp, seed=seed, dpi=dpi)


def main(argv: Sequence[str] | None = None) -> int:
    ap = build_parser()
    args = ap.parse_args(argv)
    check_protocol_arguments(ap, args)
    for name in ("reps", "lp_runs", "synthetic_seeds", "tail_runs"):
        v = getattr(args, name)
        if v is not None and v < 1:
            ap.error(f"--{name.replace('_', '-')} must be >= 1")
    if args.merge and (args.figures_only or args.report_only):
        ap.error("--merge excludes --figures-only and --report-only")
    out_dir = Path(args.out)
    path = out_dir / f"{MODULE_NAME}.md"
    results = results_dir(args)
    reps = args.reps or (2 if args.quick else 10)
    if args.report_only:
        try:
            write_report(load_results(results), path)
        except FileNotFoundError as exc:
            ap.error(f"--report-only: {exc}")
        print(f"wrote {path} from {results}")
        return 0
    if args.merge:
        stored = _table(results, "table6").read()
        stored = stored[stored["dataset"].isin(args.datasets)] if not stored.empty else stored
        if stored.empty:
            ap.error(f"--merge needs stored Table 6 rows of {' '.join(args.datasets)} in {results}")
        if stored["rep"].nunique() != reps or set(stored["seed"]) != {args.seed}:
            ap.error(f"--merge: {reps} repetitions with seed {args.seed}, the stored rows have "
                     f"{stored['rep'].nunique()} with seed {sorted(set(stored['seed']))}")
        t = time.perf_counter()
        cv, gaps = cv_protocol(args.datasets, reps=reps, methods=args.methods, n_jobs=args.jobs, seed=args.seed)
        part = {"part": f"Table 6 ({'+'.join(args.methods)})", "wall_s": time.perf_counter() - t,
                "mode": "quick" if args.quick else "full", "seed": args.seed}
        store_results(results, cv=cv, gaps=gaps, runs=[part])
        write_report(load_results(results), path)
        print(f"wrote {path} from {results}")
        return 0
    runs = args.lp_runs or (10 if args.quick else 50)
    n_syn = args.synthetic_seeds or (3 if args.quick else 10)
    n_tail = args.tail_runs or (100 if args.quick else 2000)
    mode = "quick" if args.quick else "full"
    parts = []

    def part(name, t):
        parts.append({"part": name, "wall_s": time.perf_counter() - t, "mode": mode, "seed": args.seed})

    t = time.perf_counter()
    lp = lp_experiment(runs=runs, seed=args.seed)
    part("LP", t)
    if args.figures_only:
        from reproductions.figures import figures_markdown, write_figures_section

        figures = _figures(out_dir, lp, args.seed, args.dpi)
        write_figures_section(path, figures_markdown(
            figures, intro=f"Generated by `{COMMAND} --figures-only` ({runs} LP runs per c4); the tables above are "
                           "not recomputed."))
        print(f"wrote the figures section into {path}")
        return 0
    t = time.perf_counter()
    tail = lp_tail_experiment(runs=n_tail, seed=args.seed)
    part("LP tail check", t)
    t = time.perf_counter()
    syn = synthetic_experiment(range(args.seed, args.seed + n_syn), n_jobs=args.jobs)
    part("synthetic", t)
    t = time.perf_counter()
    cv, gaps = cv_protocol(args.datasets, reps=reps, methods=args.methods, n_jobs=args.jobs, seed=args.seed)
    part(f"Table 6 ({'+'.join(args.methods)})", t)
    store_results(results, lp=lp, seed=args.seed, tail=tail, syn=syn, cv=cv, gaps=gaps,
                  facts=dataset_facts(args.datasets), runs=parts, new_run=True)
    res = load_results(results)
    figures = FIGURES_KEEP if args.no_figures else _figures(out_dir, lp_from_store(res["lp"]), args.seed, args.dpi)
    write_report(res, path, figures=figures)
    print(f"wrote {path} from {results}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
