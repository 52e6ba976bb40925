"""Reproduction protocol of Maggioni & Spinelli (paper 000), Section 6 (computational results).

Repeated stratified holdout (Section 6: the class balance kept in both parts; the training part of each class is the
floor of its share plus a random draw of the leftover points), splits seeded by (dataset, holdout, rep), so that
split r of a dataset and holdout is shared by every kernel, transformation, p and rho (common random numbers; the
paper's splits are unseeded and independent). Transformations fitted on the training split ((28) min-max, (29)
standardisation, ddof = 1; a feature constant on the training split gets the denominator 1), kernel parameters
``c = alpha = max_j std_j`` of the transformed training split, the nu grid ``logspace(-3, 0, 5)`` selected by
(robust) training error, and the robust model with ``p in {1, 2, inf}`` and ``rho in {1e-7, ..., 1e-1}``
(``eta_class = rho * max_j std_{j,class}``, Section 6). Lemma 1 gives the same constant C(n, p) for p = 1 and p = 2 in
(16), so the two are the same model: p = 2 is computed once and reported for both.

Paper mode (defaults): the grid line search of 10^4 points on the interval printed in (10) and (27).

Selections: the paper picks the best configuration and the best rho on the mean *test* error of the same runs it
reports (optimistic). We reproduce that, and add an honest variant that picks rho on an inner stratified validation
split (25 % of each training set, same size rule) and reports the test error of the model refitted on the whole
training set with that rho.

Figures (written as PNG beside the report and embedded in it; :mod:`svmopt.plotting`):

* Figure 1 -- the deterministic surfaces S, S_A, S_B on a 2-D toy set for the four kernels of Section 4.1
  (hom. linear, hom. quadratic, inhom. quadratic c = 0.3, RBF alpha = 1.9; nu = 1). The paper's toy data are not
  published: :func:`toy_data` draws a compact class A (black) inside a wider, overlapping class B. S_A and S_B are
  drawn as printed, and in a second figure mirrored about gamma (:func:`svmopt.plotting.shifted_levels`): the
  printed H_A and H_B of Section 4 are the mirror images of the half-spaces that contain every A (B) point.
* Figure 3 -- the robust surfaces on the same data, inhom. quadratic and RBF, p = 2 and p = inf,
  eta = 0.01 on A and 0.03 on B.
* Figure 5 -- Parkinson (its Table 3 configuration), test error against rho on a log grid between 1e-7 and 1e-1
  (the paper: 60 values) for the three holdouts, overall with the deterministic error as a horizontal line, and
  per class. The paper does not state p for Figure 5: we draw p = 2 (= p = 1) and, in full mode, p = inf too.
  Same splits as the tables (seeded by dataset, holdout, repetition).

Usage (``python -m reproductions robust [options]``)::

    python -m reproductions robust --quick --out DIR   # minutes: DIR/robust.md + PNGs
    python -m reproductions robust --reps 96 --jobs 2  # Table 3 with the paper's 96 reps
    python -m reproductions robust --figures-only      # only the figures, into an existing report
    python -m reproductions robust --mode deterministic --holdouts 75 50 25 --no-figures
    python -m reproductions robust --mode robust --holdouts 50 25 --no-figures
    python -m reproductions robust --mode ablation --no-figures   # line search / class A ablation
    python -m reproductions robust --report-only       # the report from the committed results

Modes (:func:`run_protocol`, :func:`run_ablation`): ``table3`` -- the Table 3 configuration of each dataset;
``robust`` -- per holdout the configuration of Tables 9-14 (``ROBUST_CONFIGS``), deterministic + robust + honest;
``deterministic`` -- all 21 configurations, deterministic only (Tables 6-8); ``ablation`` -- the deterministic model
of Table 3 with the exact line search, the corrected and the unbounded interval, and the other class as A.

Results: every run appends its rows (one per fit) to the results store (:mod:`reproductions.store`; ``--results
DIR``, by default the committed ``reproductions/results`` for a full run and ``OUT/results`` for a quick one), one
table per mode, ``robust_<mode>.csv.gz``, keyed by the fit (:data:`RESULT_KEY`, :data:`ABLATION_KEY`),
then writes the report from the whole store. ``--report-only`` writes the report from the store without running
anything (fits present in two tables are counted once) and keeps the Figures section of the existing report. The
report's prose is in ``reproductions/templates/robust*.md``; every number in it is computed from the
store and the paper's numbers (Table 3, Tables 6-14: ``reproductions/tables/robust_paper.csv``,
:func:`paper_tables`; the paper's setup of Section 6: ``robust_setup.csv``).

CPU time: process CPU seconds per configuration summed over the repetitions (Gram, LPs, line searches and
prediction; BLAS/OpenMP limited to one thread per worker), scaled to the paper's 96 runs. The paper's "CPU time" is
the wall-clock time of the 96 runs spread over the 8 cores of an Apple M1 (Section 6), so its core-seconds lie
between its number (one core busy) and 8 times it (every core busy); every ratio is given as both bounds.
"""

from __future__ import annotations

import argparse
import functools
import io
import os
import re
import time
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np
import pandas as pd

from reproductions import RESULTS, ROOT, TABLES, TEMPLATES
from reproductions._cli import add_figure_arguments, check_protocol_arguments, protocol_parser, results_dir
from reproductions._parallel import parallel_map
from reproductions.figures import figures_section
from reproductions.report import bounds_text, join_words, load_items, load_template, render, value_range
from reproductions.store import ResultsTable, open_table
from svmopt.exceptions import SolverError
from svmopt.kernels import Kernel
from svmopt.robust.fit import NU_GRID, fit_binary
from svmopt.robust.model import eta_from_rho, robust_delta
from svmopt.robust.protocol import split_seed, stratified_holdout_indices

__all__ = [
    "DATASETS",
    "KERNELS",
    "RHO_GRID",
    "ROBUST_CONFIGS",
    "TABLE3",
    "TABLES_9_10",
    "best_configurations",
    "build_report",
    "coverage_frame",
    "deterministic_frame",
    "figure1",
    "figure3",
    "figure5",
    "main",
    "paper_setup",
    "paper_tables",
    "read_ablation",
    "read_results",
    "report_values",
    "results_table",
    "rho_sensitivity",
    "robust_frame",
    "robust_summary",
    "run_ablation",
    "run_protocol",
    "run_split",
    "store_results",
    "toy_data",
    "transform",
    "write_figures",
    "write_report",
]

MODULE_NAME = "robust"

RHO_GRID = np.logspace(-7, -1, 7)
INNER_FRACTION = 0.25  # the honest variant's validation share of each training split
MAX_ABS_K = 1e15  # decision: a cell is "-" if max|K| exceeds this in some repetition (the paper leaves such cells out)

# paper name -> (svmopt.datasets name, m x n as printed)
DATASETS: dict[str, tuple[str, str]] = {
    "Arrhythmia": ("arrhythmia", "68 x 279"),
    "Parkinson": ("parkinsons", "195 x 22"),
    "Heart Disease": ("heart_cleveland", "297 x 13"),
    "Dermatology": ("dermatology", "358 x 34"),
    "Climate Model Crashes": ("climate_crashes", "540 x 18"),
    "Breast Cancer Diagnostic": ("wdbc", "569 x 30"),
    "Breast Cancer": ("breast_cancer_wisconsin", "683 x 9"),
    "Blood Transfusion": ("blood_transfusion", "748 x 4"),
    "Mammographic Mass": ("mammographic", "830 x 5"),
}

# Table 2 / Tables 6-8 columns: name -> (svmopt kernel name, degree)
KERNELS: dict[str, tuple[str, int]] = {
    "Hom. linear": ("poly", 1),
    "Hom. quadratic": ("poly", 2),
    "Hom. cubic": ("poly", 3),
    "Inhom. linear": ("inhom_poly", 1),
    "Inhom. quadratic": ("inhom_poly", 2),
    "Inhom. cubic": ("inhom_poly", 3),
    "Gaussian RBF": ("rbf", 1),
}
TRANSFORMS = ("-", "Min-max normalization", "Standardization")

# The paper's printed numbers (Table 3 and Appendix-B Tables 6-14), one row per cell, written by
# tools/extract_maggioni_tables.py from a transcription of the tables: table, holdout, dataset, transform, kernel,
# model (det/rob), p (1, 2, inf; NaN for det), rho (NaN for det and Table 3), error_pct, sd (a proportion, Section 6),
# cpu_s, marks ("B", "U", "B,U" or ""), printed (the raw cell text).
PAPER_CSV = "robust_paper.csv"
SETUP_CSV = "robust_setup.csv"
DET_TABLES = {75: 6, 50: 7, 25: 8}
ROBUST_TABLES = {75: (9, 10), 50: (11, 12), 25: (13, 14)}
# the ablation's variants: (line search, interval, the other class as A); the first is paper mode
ABLATION_VARIANTS: tuple[tuple[str, str, bool], ...] = (
    ("grid", "paper", False), ("exact", "paper", False), ("exact", "corrected", False), ("exact", "unbounded", False),
    ("grid", "paper", True))


def _data_text(name: str) -> str:
    """A file of ``tables/`` (the paper's numbers) or ``templates/`` (the report's prose)."""
    for directory in (TABLES, TEMPLATES):
        if (directory / name).is_file():
            return (directory / name).read_text(encoding="utf-8")
    raise FileNotFoundError(f"{name} is in neither {TABLES} nor {TEMPLATES}")


@functools.lru_cache(maxsize=1)
def _paper_cached() -> pd.DataFrame:
    df = pd.read_csv(io.StringIO(_data_text(PAPER_CSV)), dtype={"p": str, "marks": str, "printed": str},
                     keep_default_na=False, na_values={c: [""] for c in ("rho", "error_pct", "sd", "cpu_s")})
    df["p"] = df["p"].map({"": np.nan, "1": 1.0, "2": 2.0, "inf": np.inf}).astype(float)
    df["rho"] = df["rho"].astype(float)
    return df


def paper_tables() -> pd.DataFrame:
    """The paper's Table 3 and Tables 6-14 as a tidy frame (a copy; see ``PAPER_CSV``)."""
    return _paper_cached().copy()


def _table3_from_paper() -> dict[str, dict[str, Any]]:
    t = _paper_cached()
    t = t[t.table == 3]
    out: dict[str, dict[str, Any]] = {}
    for name in DATASETS:
        r = t[t.dataset == name]
        out[name] = {"transform": r["transform"].iloc[0], "kernel": r["kernel"].iloc[0],
                     "error": tuple(float(v) for v in r["error_pct"]), "sd": tuple(float(v) for v in r["sd"]),
                     "cpu": tuple(float(v) for v in r["cpu_s"])}
    return out


def _robust_from_paper(holdout: int) -> dict[str, dict[float, tuple[float, float, float]]]:
    t = _paper_cached()
    t = t[t.table.isin(ROBUST_TABLES[holdout])]
    out: dict[str, dict[float, tuple[float, float, float]]] = {}
    for name in DATASETS:
        r = t[t.dataset == name]
        out[name] = {float(rho): tuple(float(g.loc[g.p == p, "error_pct"].iloc[0]) for p in (1.0, 2.0, np.inf))
                     for rho, g in r.groupby("rho", sort=True)}
    return out


def _robust_configs() -> dict[int, dict[str, tuple[str, str]]]:
    t = _paper_cached()
    out: dict[int, dict[str, tuple[str, str]]] = {}
    for h, tables in ROBUST_TABLES.items():
        r = t[t.table.isin(tables)].drop_duplicates("dataset").set_index("dataset")
        out[h] = {name: (r.loc[name, "transform"], r.loc[name, "kernel"]) for name in DATASETS}
    return out


# Table 3 (holdout 75-25): best configuration, mean test error % (det, p=1, p=2, p=inf), sd and CPU time (s).
TABLE3: dict[str, dict[str, Any]] = _table3_from_paper()
# Tables 9-10 (robust, holdout 75-25): mean test error % per rho for (p=1, p=2, p=inf), as printed.
TABLES_9_10: dict[str, dict[float, tuple[float, float, float]]] = _robust_from_paper(75)
# Tables 9-14: the configuration (transformation, kernel) of the robust experiment per holdout and dataset (the paper's
# best deterministic configuration of that holdout, Tables 6-8).
ROBUST_CONFIGS: dict[int, dict[str, tuple[str, str]]] = _robust_configs()

# ------------------------------------------------------------------------------------------ one split
def transform(name: str, X_train: np.ndarray, X_test: np.ndarray) -> tuple[np.ndarray, np.ndarray, int]:
    """Apply (28) / (29) with training statistics; returns (train, test, number of constant features).

    A zero denominator (constant feature in the training split) is replaced by 1 (decision: the paper drops the
    transformations of Arrhythmia instead, which has constant features).
    """
    if name == "-":
        return X_train, X_test, 0
    if name == "Min-max normalization":
        shift = X_train.min(axis=0)
        scale = X_train.max(axis=0) - shift
    elif name == "Standardization":
        shift = X_train.mean(axis=0)
        scale = X_train.std(axis=0, ddof=1)
    else:
        raise ValueError(f"unknown transformation {name!r}; use one of {TRANSFORMS}")
    const = scale == 0
    scale = np.where(const, 1.0, scale)
    return (X_train - shift) / scale, (X_test - shift) / scale, int(const.sum())


def paper_kernel(name: str, X_train: np.ndarray) -> Kernel:
    kname, degree = KERNELS[name]
    stds = np.std(X_train, axis=0, ddof=1)
    scale = float(np.max(stds)) if np.isfinite(stds).all() and stds.max() > 0 else 1.0
    if kname == "rbf":
        return Kernel("rbf", alpha=scale)
    if kname == "inhom_poly":
        return Kernel("inhom_poly", degree=degree, c=scale)
    return Kernel("poly", degree=degree)


def _test_error(fit, kern: Kernel, Xtr, ytr, Xte, yte) -> float:
    sv = np.flatnonzero(fit.u != 0.0)
    if sv.size:
        f = kern.matvec(Xte, Xtr[sv], ytr[sv] * fit.u[sv])
    else:
        f = np.zeros(Xte.shape[0])
    pred = np.where(f - fit.b > 0, 1.0, -1.0)
    return float(np.mean(pred != yte))


@dataclass
class SplitTask:
    dataset: str
    holdout: int  # training percentage: 75, 50, 25
    rep: int
    configs: Sequence[tuple[str, str]]  # (transformation, kernel)
    robust: bool = True
    honest: bool = True
    line_search: str = "grid"
    interval: str = "paper"
    flip_labels: bool = False  # ablation: fit with the other class as A (+1), same splits


def run_split(task: SplitTask, X: np.ndarray | None = None, y: np.ndarray | None = None) -> list[dict]:
    """All fits of one repetition: deterministic for each config; robust (p in {2, inf} x RHO_GRID) and the
    honest inner-validation rho choice for each config when ``task.robust``."""
    from svmopt.datasets import load_dataset

    if X is None or y is None:
        X, y = load_dataset(DATASETS[task.dataset][0], binary="first_vs_rest")
        y = np.asarray(y, dtype=np.float64)
    tr, te = stratified_holdout_indices(y, 1.0 - task.holdout / 100.0, split_seed(task.dataset, task.holdout, task.rep))
    if task.flip_labels:
        y = -y
    out: list[dict] = []
    base = {"dataset": task.dataset, "holdout": task.holdout, "rep": task.rep}
    opts = {"line_search": task.line_search, "interval": task.interval, "n_grid": 10_000}
    for tname, kname in task.configs:
        rec0 = {**base, "transform": tname, "kernel": kname}
        t0 = time.process_time()
        Xtr, Xte, n_const = transform(tname, X[tr], X[te])
        ytr, yte = y[tr], y[te]
        kern = paper_kernel(kname, Xtr)
        try:
            K = kern.gram(Xtr)
            if not np.all(np.isfinite(K)) or np.abs(K).max() > MAX_ABS_K:
                raise SolverError(f"max|K| = {np.abs(K).max():.3g} > {MAX_ABS_K:g} ", "Kernel overflow")
            t_gram = time.process_time() - t0
            t1 = time.process_time()
            det = fit_binary(K, ytr, nus=NU_GRID, **opts)
            err = _test_error(det, kern, Xtr, ytr, Xte, yte)
            out.append({**rec0, "model": "det", "p": None, "rho": None, "test_error": err,
                        "train_error": det.training_count / len(ytr), "nu": det.nu, "n_const": n_const,
                        "cpu": t_gram + time.process_time() - t1, "status": "ok"})
        except (SolverError, ValueError) as exc:
            out.append({**rec0, "model": "det", "p": None, "rho": None, "test_error": np.nan, "train_error": np.nan,
                        "nu": np.nan, "n_const": n_const, "cpu": time.process_time() - t0,
                        "status": getattr(exc, "status", None) or str(exc)[:80]})
            continue
        if not task.robust:
            continue
        if task.honest:  # inner stratified validation split of the training set (same size rule)
            inner_seed = split_seed(task.dataset + "/inner", task.holdout, task.rep)
            itr, iva = stratified_holdout_indices(ytr, INNER_FRACTION, inner_seed)
            Xitr, Xiva = Xtr[itr], Xtr[iva]
            kin = paper_kernel(kname, Xitr)  # c / alpha from the inner training data, as in the outer protocol
            Kin = kin.gram(Xitr)
        for p in (2.0, np.inf):
            for rho in RHO_GRID:
                t1 = time.process_time()
                try:
                    delta = robust_delta(kern, Xtr, eta_from_rho(Xtr, ytr, rho), p)
                    rob = fit_binary(K, ytr, delta=delta, nus=NU_GRID, **opts)
                    err = _test_error(rob, kern, Xtr, ytr, Xte, yte)
                    status, tr_err, nu = "ok", rob.training_count / len(ytr), rob.nu
                except SolverError as exc:
                    err, status, tr_err, nu = np.nan, exc.status, np.nan, np.nan
                # the cell's time is the fit the paper times; the honest variant's inner fit is extra, kept apart
                cpu = t_gram + time.process_time() - t1
                t2 = time.process_time()
                val_err = np.nan
                if task.honest:
                    try:
                        din = robust_delta(kin, Xitr, eta_from_rho(Xitr, ytr[itr], rho), p)
                        fin = fit_binary(Kin, ytr[itr], delta=din, nus=NU_GRID, **opts)
                        val_err = _test_error(fin, kin, Xitr, ytr[itr], Xiva, ytr[iva])
                    except SolverError:
                        pass
                out.append({**rec0, "model": "rob", "p": p, "rho": rho, "test_error": err, "train_error": tr_err,
                            "nu": nu, "n_const": n_const, "cpu": cpu, "cpu_honest": time.process_time() - t2,
                            "status": status, "val_error": val_err})
    return out


def _limit_threads() -> None:
    for var in ("OMP_NUM_THREADS", "OPENBLAS_NUM_THREADS", "MKL_NUM_THREADS"):
        os.environ.setdefault(var, "1")
    try:
        from threadpoolctl import threadpool_limits

        threadpool_limits(1)
    except ImportError:  # pragma: no cover
        pass


def _worker(task: SplitTask) -> list[dict]:
    _limit_threads()
    return run_split(task)


def run_protocol(*, datasets: Sequence[str] | None = None, holdouts: Sequence[int] = (75,), reps: int = 96,
                 mode: str = "table3", robust: bool = True, honest: bool = True, n_jobs: int = 1,
                 line_search: str = "grid", interval: str = "paper", verbose: bool = True) -> pd.DataFrame:
    """Run the protocol; one row per (dataset, holdout, rep, config, model, p, rho).

    ``mode="table3"``: the paper's best configuration of Table 3 for each dataset (holdout 75-25 configs) at every
    holdout; ``mode="robust"``: for each holdout the configuration of Tables 9-14 for that holdout
    (``ROBUST_CONFIGS``; holdouts 75, 50, 25 only), deterministic + robust p in {2, inf} x RHO_GRID + honest;
    ``mode="deterministic"``: all 3 transformations x 7 kernels (Tables 6-8; Arrhythmia raw data only),
    deterministic model only.
    """
    if mode not in ("table3", "robust", "deterministic"):
        raise ValueError(f"mode must be 'table3', 'robust' or 'deterministic', got {mode!r}")
    if mode == "robust" and not set(int(h) for h in holdouts) <= set(ROBUST_CONFIGS):
        raise ValueError(f"mode='robust' needs holdouts in {sorted(ROBUST_CONFIGS)}, got {list(holdouts)}")
    names = list(datasets) if datasets else list(DATASETS)
    tasks = []
    for name in names:
        for h in holdouts:
            if mode == "table3":
                configs = [(TABLE3[name]["transform"], TABLE3[name]["kernel"])]
                rob = robust
            elif mode == "robust":
                configs = [ROBUST_CONFIGS[int(h)][name]]
                rob = robust
            else:
                tr = ("-",) if name == "Arrhythmia" else TRANSFORMS
                configs = [(t, k) for t in tr for k in KERNELS]
                rob = False
            for r in range(reps):
                tasks.append(SplitTask(name, int(h), r, configs, rob, honest and rob, line_search, interval))
    results = parallel_map(_worker, tasks, n_jobs=n_jobs, desc=MODULE_NAME if verbose else None)
    rows = [row for res in results for row in res]
    return pd.DataFrame(rows)


def run_ablation(*, datasets: Sequence[str] | None = None, reps: int = 96, holdout: int = 75,
                 variants: Sequence[tuple[str, str, bool]] = ABLATION_VARIANTS, n_jobs: int = 1,
                 verbose: bool = True) -> pd.DataFrame:
    """The line-search and orientation ablation: the deterministic model of each dataset's Table 3 configuration on
    the protocol's splits, once per ``(line_search, interval, flip)`` of ``variants`` (``flip``: the other class as
    A). One row per fit, with the variant's three columns."""
    names = list(datasets) if datasets else list(DATASETS)
    tasks = [SplitTask(name, int(holdout), r, [(TABLE3[name]["transform"], TABLE3[name]["kernel"])], robust=False,
                       honest=False, line_search=ls, interval=iv, flip_labels=fl)
             for name in names for ls, iv, fl in variants for r in range(reps)]
    results = parallel_map(_worker, tasks, n_jobs=n_jobs, desc=f"{MODULE_NAME} ablation" if verbose else None)
    rows = [{**row, "line_search": t.line_search, "interval": t.interval, "flip": t.flip_labels}
            for t, res in zip(tasks, results, strict=True) for row in res]
    return pd.DataFrame(rows)


# ------------------------------------------------------------------------------------------ figures
def toy_data(seed: int = 0, n_per_class: int = 25) -> tuple[np.ndarray, np.ndarray]:
    """A 2-D toy set in the spirit of Section 4.1 (the paper's points are not published).

    Class A (+1): a compact correlated Gaussian at the origin; class B (-1): a wider Gaussian centred at
    (1.6, 1.2) that overlaps it, so that every kernel of Figure 1 leaves a few training errors.
    """
    rng = np.random.default_rng(seed)
    A = rng.multivariate_normal([0.0, 0.0], [[0.45, 0.2], [0.2, 0.3]], n_per_class)
    B = rng.multivariate_normal([1.6, 1.2], [[1.1, 0.0], [0.0, 1.1]], n_per_class)
    return np.vstack([A, B]), np.repeat([1.0, -1.0], n_per_class)


TOY_KERNELS = (
    ("(a) linear kernel", {"kernel": "poly", "degree": 1}),
    ("(b) quadratic kernel", {"kernel": "poly", "degree": 2}),
    ("(c) inhom. quadratic (c = 0.3)", {"kernel": "inhom_poly", "degree": 2, "c": 0.3}),
    ("(d) Gaussian RBF (alpha = 1.9)", {"kernel": "rbf", "alpha": 1.9}),
)


def _toy_fit(X, y, **params):
    from svmopt.robust.estimator import RobustSVC

    return RobustSVC(nu=1.0, line_search="grid", n_landmarks=None, selection="training_error", **params).fit(X, y)


def figure1(X: np.ndarray, y: np.ndarray, surfaces: str = "paper"):
    """Figure 1: deterministic S, S_A, S_B for the four kernels of Section 4.1 (nu = 1, grid line search);
    ``surfaces="corrected"`` draws S_A, S_B mirrored about gamma (:func:`svmopt.plotting.shifted_levels`)."""
    from svmopt.plotting import new_figure, plot_decision_surfaces

    fig, axes = new_figure(2, 2, figsize=(10.0, 8.6))
    for ax, (title, params) in zip(axes.ravel(), TOY_KERNELS, strict=True):
        est = _toy_fit(X, y, **params)
        errors = round(float(est.training_error_[0]) * len(y))
        plot_decision_surfaces(est, X, y, ax=ax, surfaces=surfaces, title=f"{title}: {errors} training errors")
    return fig


def figure3(X: np.ndarray, y: np.ndarray, eta_a: float = 0.01, eta_b: float = 0.03):
    """Figure 3: robust surfaces, inhom. quadratic (c = 0.3) and RBF (alpha = 1.9), p = 2 and p = inf,
    ``eta = eta_a`` on class A (+1) and ``eta_b`` on class B (-1), as in Section 5."""
    from svmopt.plotting import new_figure, plot_decision_surfaces

    fig, axes = new_figure(2, 2, figsize=(10.0, 8.6))
    for i, (title, params) in enumerate(TOY_KERNELS[2:]):
        for j, p in enumerate((2.0, np.inf)):
            est = _toy_fit(X, y, p=p, eta={1.0: eta_a, -1.0: eta_b}, **params)
            errors = round(float(est.training_error_[0]) * len(y))
            name = "inf" if np.isinf(p) else "2"
            plot_decision_surfaces(est, X, y, ax=axes[i, j],
                                   title=f"{title[4:]}, p = {name}: {errors} robust errors")
    return fig


@dataclass
class _RhoTask:
    dataset: str
    holdout: int
    rep: int
    rhos: Sequence[float]
    ps: Sequence[float]
    line_search: str = "grid"


def _class_errors(fit, kern: Kernel, Xtr, ytr, Xte, yte) -> tuple[float, float, float]:
    sv = np.flatnonzero(fit.u != 0.0)
    f = kern.matvec(Xte, Xtr[sv], ytr[sv] * fit.u[sv]) if sv.size else np.zeros(Xte.shape[0])
    wrong = np.where(f - fit.b > 0, 1.0, -1.0) != yte
    a, b = yte > 0, yte < 0
    return float(wrong.mean()), float(wrong[a].mean()) if a.any() else np.nan, float(wrong[b].mean()) if b.any() \
        else np.nan


def _rho_worker(task: _RhoTask) -> list[dict]:
    from svmopt.datasets import load_dataset

    _limit_threads()
    X, y = load_dataset(DATASETS[task.dataset][0], binary="first_vs_rest")
    y = np.asarray(y, dtype=np.float64)
    tr, te = stratified_holdout_indices(y, 1.0 - task.holdout / 100.0, split_seed(task.dataset, task.holdout, task.rep))
    cfg = TABLE3[task.dataset]
    Xtr, Xte, _ = transform(cfg["transform"], X[tr], X[te])
    ytr, yte = y[tr], y[te]
    kern = paper_kernel(cfg["kernel"], Xtr)
    K = kern.gram(Xtr)
    opts = {"line_search": task.line_search, "interval": "paper", "n_grid": 10_000, "nus": NU_GRID}
    base = {"dataset": task.dataset, "holdout": task.holdout, "rep": task.rep}
    out = []
    det = fit_binary(K, ytr, **opts)
    e, ea, eb = _class_errors(det, kern, Xtr, ytr, Xte, yte)
    out.append({**base, "model": "det", "p": np.nan, "rho": np.nan, "test_error": e, "error_A": ea, "error_B": eb})
    for p in task.ps:
        for rho in task.rhos:
            try:
                rob = fit_binary(K, ytr, delta=robust_delta(kern, Xtr, eta_from_rho(Xtr, ytr, rho), p), **opts)
                e, ea, eb = _class_errors(rob, kern, Xtr, ytr, Xte, yte)
            except SolverError:
                e = ea = eb = np.nan
            out.append({**base, "model": "rob", "p": float(p), "rho": float(rho), "test_error": e, "error_A": ea,
                        "error_B": eb})
    return out


def rho_sensitivity(dataset: str = "Parkinson", *, holdouts: Sequence[int] = (75, 50, 25), reps: int = 10,
                    n_rho: int = 60, ps: Sequence[float] = (2.0,), n_jobs: int = 1, line_search: str = "grid",
                    verbose: bool = False) -> pd.DataFrame:
    """Data of Figure 5 (Section 6): per (holdout, repetition), the deterministic model and the robust model for
    ``n_rho`` log-spaced rho in [1e-7, 1e-1] and each p, on ``dataset``'s Table 3 configuration; overall test
    error and the test error within class A (+1) and class B (-1). One row per fit."""
    if dataset not in TABLE3:
        raise ValueError(f"dataset must be one of {list(TABLE3)}, got {dataset!r}")
    if isinstance(n_rho, bool) or not isinstance(n_rho, int) or n_rho < 2:
        raise ValueError(f"n_rho must be an integer >= 2, got {n_rho!r}")
    if isinstance(reps, bool) or not isinstance(reps, int) or reps < 1:
        raise ValueError(f"reps must be an integer >= 1, got {reps!r}")
    rhos = np.logspace(-7, -1, n_rho)
    tasks = [_RhoTask(dataset, int(h), r, rhos, tuple(float(p) for p in ps), line_search)
             for h in holdouts for r in range(reps)]
    res = parallel_map(_rho_worker, tasks, n_jobs=n_jobs, desc="Figure 5" if verbose else None)
    return pd.DataFrame([row for rows in res for row in rows])


def figure5(df: pd.DataFrame, p: float = 2.0, dataset: str = "Parkinson"):
    """Figure 5: (a) overall test error against rho with the deterministic error per holdout; (b) per class."""
    from reproductions.figures import plot_error_vs_rho
    from svmopt.plotting import new_figure

    fig, axes = new_figure(1, 2, figsize=(11.0, 4.4))
    pname = "inf" if np.isinf(p) else f"{p:g}"
    plot_error_vs_rho(df, ax=axes[0, 0], by="overall", p=p, title=f"(a) {dataset}, p = {pname}: overall")
    plot_error_vs_rho(df, ax=axes[0, 1], by="class", p=p, title=f"(b) {dataset}, p = {pname}: per class")
    return fig


def write_figures(out_dir: str | Path, *, seed: int = 0, fig_reps: int = 10, n_rho: int = 60,
                  ps: Sequence[float] = (2.0,), n_jobs: int = 1, verbose: bool = False,
                  dpi: int = 120) -> list[tuple[str, str]]:
    """Compute and write Figures 1, 3 and 5 as PNG files in ``out_dir``; returns ``[(file name, caption)]``."""
    from svmopt.plotting import save_figure

    out_dir = Path(out_dir)
    X, y = toy_data(seed)
    figures = []
    save_figure(figure1(X, y), out_dir / f"{MODULE_NAME}_figure1.png", dpi=dpi)
    figures.append((f"{MODULE_NAME}_figure1.png",
                    f"Figure 1: deterministic surfaces S (solid), S_A (dotted), S_B (dashed) on a 2-D toy set (seed "
                    f"{seed}), as printed in the paper; support (u_j != 0) circled, the points fixing omega_A / "
                    "omega_B as stars"))
    save_figure(figure1(X, y, surfaces="corrected"), out_dir / f"{MODULE_NAME}_figure1_corrected.png", dpi=dpi)
    figures.append((f"{MODULE_NAME}_figure1_corrected.png",
                    "Figure 1 with the corrected surfaces (S_A: f = gamma + 1 - omega_A, S_B: f = gamma - 1 "
                    "+ omega_B): the mirror images about gamma of the printed ones, which pass through the starred "
                    "points and leave every A point on or inside S_A and every B point on or outside S_B"))
    save_figure(figure3(X, y), out_dir / f"{MODULE_NAME}_figure3.png", dpi=dpi)
    figures.append((f"{MODULE_NAME}_figure3.png",
                    "Figure 3: robust surfaces on the same data, eta = 0.01 (class A) and 0.03 (class B)"))
    t0 = time.time()
    df = rho_sensitivity("Parkinson", reps=fig_reps, n_rho=n_rho, ps=ps, n_jobs=n_jobs, verbose=verbose)
    secs = time.time() - t0
    for p in ps:
        tag = "inf" if np.isinf(p) else f"{p:g}"
        fname = f"{MODULE_NAME}_figure5_p{tag}.png"
        save_figure(figure5(df, p=p), out_dir / fname, dpi=dpi)
        figures.append((fname, f"Figure 5: Parkinson ({TABLE3['Parkinson']['transform']} / "
                               f"{TABLE3['Parkinson']['kernel']}), p = {tag}, mean over {fig_reps} repetitions per "
                               f"holdout, {n_rho} values of rho ({secs:.0f} s)"))
    return figures


# ------------------------------------------------------------------------------------------ results store
RESULT_KEY = ["dataset", "holdout", "rep", "transform", "kernel", "model", "p", "rho"]
ABLATION_KEY = ["dataset", "holdout", "rep", "transform", "kernel", "line_search", "interval", "flip"]
EXACT_COLUMNS = ("test_error", "train_error", "val_error")
MODES = ("table3", "deterministic", "robust")


def results_table(results: str | Path, group: str) -> ResultsTable:
    """The store table of ``group`` (a mode of :func:`run_protocol`, or ``"ablation"``) in the store ``results``."""
    if group not in (*MODES, "ablation"):
        raise ValueError(f"group must be one of {[*MODES, 'ablation']}, got {group!r}")
    return open_table(results, f"{MODULE_NAME}_{group}", key=ABLATION_KEY if group == "ablation" else RESULT_KEY,
                      compress=True)


def _for_store(df: pd.DataFrame) -> pd.DataFrame:
    """Rows as stored: p and rho numeric, measured floats to 6 significant digits except the error rates
    (``EXACT_COLUMNS``: ratios k/n, kept exact so that the report's means -- and their ties at the printed two
    decimals -- do not move)."""
    out = df.copy()
    for col in ("p", "rho"):
        if col in out:
            out[col] = pd.to_numeric(out[col], errors="coerce").astype(float)
    for col in out.columns:
        if col in EXACT_COLUMNS or not pd.api.types.is_float_dtype(out[col]):
            continue
        out[col] = [float(f"{v:.6g}") if np.isfinite(v) else v for v in out[col]]
    return out


def store_results(df: pd.DataFrame, group: str, results: str | Path) -> ResultsTable:
    """Append a run's rows to the store table of ``group``; a fit already stored (same key) is replaced."""
    table = results_table(results, group)
    if len(df):
        table.append(_for_store(df))
    return table


def read_results(results: str | Path) -> pd.DataFrame:
    """The protocol's rows of every mode in the store ``results`` (concatenated; see :func:`_prepare` for the
    de-duplication), an empty frame when there are none."""
    frames = [results_table(results, g).read() for g in MODES]
    frames = [f for f in frames if len(f)]
    if not frames:
        return pd.DataFrame(columns=RESULT_KEY)
    return pd.concat(frames, ignore_index=True, sort=False)


def read_ablation(results: str | Path) -> pd.DataFrame:
    """The ablation's rows in the store ``results`` (:func:`run_ablation`)."""
    return results_table(results, "ablation").read()


def _prepare(df: pd.DataFrame) -> pd.DataFrame:
    """Normalise a results frame for the report: missing optional columns added, rho rounded to 6 significant
    digits (as in the saved files), p numeric, and duplicate fits (the same split and cell from two runs, e.g. the
    Table 3 run and the deterministic run; same seeds, so the same fit) kept once."""
    df = df.copy()
    for col, default in (("p", np.nan), ("rho", np.nan), ("val_error", np.nan), ("status", "ok"), ("cpu", np.nan),
                         ("test_error", np.nan)):
        if col not in df:
            df[col] = default
    df["p"] = pd.to_numeric(df["p"], errors="coerce").astype(float)
    rho = pd.to_numeric(df["rho"], errors="coerce").astype(float)
    df["rho"] = [float(f"{r:.6g}") if np.isfinite(r) else np.nan for r in rho]
    df["holdout"] = df["holdout"].astype(int)
    df["status"] = df["status"].fillna("ok").astype(str)
    return df.drop_duplicates(RESULT_KEY, keep="first").reset_index(drop=True)


# ------------------------------------------------------------------------------------------ report
def _cell(row: pd.Series, key: str) -> str:
    v = row.get(key)
    return _fmt(*v) if isinstance(v, tuple) else "-"


def _fmt(mean: float, sd: float) -> str:
    if not np.isfinite(mean):
        return "-"
    return f"{100 * mean:.2f}% ± {sd:.2f}"


def _holdout_name(h: int) -> str:
    return f"{h} %-{100 - h} %"


def _order(df: pd.DataFrame) -> pd.DataFrame:
    """Rows in the paper's order: holdout 75, 50, 25; datasets as Table 3; transformations; kernels as Table 2."""
    key = pd.DataFrame({
        "h": -df["holdout"].astype(int),
        "d": df["dataset"].map({n: i for i, n in enumerate(DATASETS)}).fillna(len(DATASETS)),
        "t": df["transform"].map({n: i for i, n in enumerate(TRANSFORMS)}).fillna(len(TRANSFORMS)),
        "k": df["kernel"].map({n: i for i, n in enumerate(KERNELS)}).fillna(len(KERNELS)),
    }, index=df.index)
    return df.loc[key.sort_values(["h", "d", "t", "k"], kind="stable").index]


def table3_frame(df: pd.DataFrame, holdout: int = 75) -> pd.DataFrame:
    """Our Table 3 beside the paper's: det and, per p, the best rho on mean test error (paper selection) and
    the honest rho choice on inner validation."""
    rows = []
    for name, paper in TABLE3.items():
        d = df[(df["dataset"] == name) & (df["holdout"] == holdout) & (df["transform"] == paper["transform"])
               & (df["kernel"] == paper["kernel"])]
        if d.empty:
            continue
        n_rep = d.rep.nunique()
        det = d[d.model == "det"]
        row = {"Dataset": name, "reps": n_rep, "config": f"{paper['transform']} / {paper['kernel']}",
               "det": (det.test_error.mean(), det.test_error.std(ddof=1)), "det_paper": paper["error"][0],
               "det_cpu": det.cpu.sum() * _runs() / max(det.rep.nunique(), 1), "det_cpu_paper": paper["cpu"][0]}
        rob = d[d.model == "rob"]
        for col, p, j in (("p1", 2.0, 1), ("p2", 2.0, 2), ("pinf", np.inf, 3)):
            rp = rob[rob.p == p]
            if rp.empty:
                continue
            g = rp.groupby("rho").test_error.agg(["mean", "std"])
            best_rho = g["mean"].idxmin()
            row[col] = (g.loc[best_rho, "mean"], g.loc[best_rho, "std"])
            row[col + "_rho"] = best_rho
            row[col + "_paper"] = paper["error"][j]
            row[col + "_cpu"] = rp[rp.rho == best_rho].cpu.sum() * _runs() / max(rp.rep.nunique(), 1)
            row[col + "_cpu_paper"] = paper["cpu"][j]
            # honest: per rep, rho with the smallest validation error (smallest rho on ties)
            if "val_error" in rp and rp.val_error.notna().any():
                pick = rp.sort_values(["rep", "val_error", "rho"]).groupby("rep").head(1)
                row[col + "_honest"] = (pick.test_error.mean(), pick.test_error.std(ddof=1))
        rows.append(row)
    return pd.DataFrame(rows)


DET_COLUMNS = ["holdout", "dataset", "transform", "kernel", "reps", "failed", "status", "error", "sd", "cpu96",
               "paper_error", "paper_sd", "paper_cpu", "paper_marks"]


def deterministic_frame(df: pd.DataFrame) -> pd.DataFrame:
    """Deterministic cells (Tables 6-8): per (holdout, dataset, transformation, kernel) of the results, our mean test
    error and sd (proportions; NaN -- a "-" cell -- if any repetition failed), repetitions, failed fits,
    process CPU seconds scaled to 96 runs, beside the paper's error (%), sd, CPU time (s) and marks."""
    df = _prepare(df)
    det = df[df.model == "det"]
    rows = []
    for (h, name, t, k), g in det.groupby(["holdout", "dataset", "transform", "kernel"], sort=False):
        ok = g[(g.status == "ok") & np.isfinite(g.test_error)]
        failed = len(g) - len(ok)
        reps = int(g.rep.nunique())
        rows.append({"holdout": int(h), "dataset": name, "transform": t, "kernel": k, "reps": reps, "failed": failed,
                     "status": "; ".join(sorted(set(g.status) - {"ok"})),
                     "error": ok.test_error.mean() if failed == 0 else np.nan,
                     "sd": ok.test_error.std(ddof=1) if failed == 0 else np.nan,
                     "cpu96": g.cpu.sum() * _runs() / max(reps, 1)})
    ours = pd.DataFrame(rows, columns=DET_COLUMNS[:10])
    paper = _paper_cached()
    cols = ["holdout", "dataset", "transform", "kernel", "error_pct", "sd", "cpu_s", "marks"]
    paper = paper.loc[paper.table.isin(list(DET_TABLES.values())), cols]
    paper.columns = ["holdout", "dataset", "transform", "kernel", "paper_error", "paper_sd", "paper_cpu", "paper_marks"]
    return _order(ours.merge(paper, on=["holdout", "dataset", "transform", "kernel"], how="left")).reset_index(
        drop=True)


def _spearman(a: np.ndarray, b: np.ndarray) -> float:
    import warnings

    from scipy.stats import spearmanr

    if len(a) < 3:
        return np.nan
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        return float(spearmanr(a, b)[0])


def best_configurations(dt: pd.DataFrame) -> pd.DataFrame:
    """Per (holdout, dataset) of a :func:`deterministic_frame` with at least 2 configurations: our best
    configuration (smallest mean test error) against the paper's bold one, the error of each at the other's best,
    agreement counts and the Spearman rank correlation of the configurations both have a number for."""
    paper = _paper_cached()
    rows = []
    for (h, name), g in dt.groupby(["holdout", "dataset"], sort=False):
        if len(g) < 2:
            continue
        fin = g[np.isfinite(g.error)]
        pd_ = paper[paper.table.isin(list(DET_TABLES.values())) & (paper.holdout == h) & (paper.dataset == name)]
        pb = pd_[pd_.marks.str.contains("B")]
        pb = pb if len(pb) else pd_[pd_.error_pct == pd_.error_pct.min()]
        row = {"holdout": h, "dataset": name, "configs": len(g), "reps": int(g.reps.max()), "ours_best": None,
               "ours_error": np.nan, "paper_best": None, "paper_error": np.nan, "ours_at_paper_best": np.nan,
               "paper_at_ours_best": np.nan}
        if len(pb):
            pbr = pb.iloc[0]
            row["paper_best"] = (pbr["transform"], pbr["kernel"])
            row["paper_error"] = float(pbr["error_pct"])
            m = g[(g["transform"] == pbr["transform"]) & (g["kernel"] == pbr["kernel"])]
            row["ours_at_paper_best"] = float(m.error.iloc[0]) if len(m) else np.nan
        if len(fin):
            ob = fin.loc[fin.error.idxmin()]
            row["ours_best"] = (ob["transform"], ob["kernel"])
            row["ours_error"] = float(ob.error)
            row["paper_at_ours_best"] = float(ob.paper_error)
        row["match"] = row["ours_best"] is not None and row["ours_best"] == row["paper_best"]
        both = g[np.isfinite(g.error) & g.paper_error.notna()]
        diff = (100 * both.error - both.paper_error).abs()
        row.update({"compared": len(both), "within1": int((diff <= 1.0).sum()), "within2": int((diff <= 2.0).sum()),
                    "spearman": _spearman(both.error.to_numpy(), both.paper_error.to_numpy())})
        rows.append(row)
    return pd.DataFrame(rows)


def robust_frame(df: pd.DataFrame, holdout: int) -> pd.DataFrame:
    """Tables 9-14 at ``holdout``: per dataset (in the configuration of ``ROBUST_CONFIGS[holdout]``) and rho, our mean
    test error and sd for p = 2 (= p = 1) and p = inf (NaN if any repetition failed) beside the paper's p = 1, 2,
    inf (%, with marks)."""
    df = _prepare(df)
    paper = _paper_cached()
    paper = paper[paper.table.isin(ROBUST_TABLES[holdout])]
    rows = []
    for name in DATASETS:
        t, k = ROBUST_CONFIGS[holdout][name]
        d = df[(df.dataset == name) & (df.holdout == holdout) & (df.model == "rob") & (df["transform"] == t)
               & (df["kernel"] == k)]
        if d.empty:
            continue
        pn = paper[paper.dataset == name]
        for rho in sorted(set(d.rho.dropna()) | set(pn.rho)):
            row = {"dataset": name, "transform": t, "kernel": k, "rho": rho, "reps": int(d.rep.nunique())}
            for col, p in (("p2", 2.0), ("pinf", np.inf)):
                g = d[(d.p == p) & (d.rho == rho)]
                bad = (g.status != "ok") | ~np.isfinite(g.test_error)
                row[col] = g.test_error.mean() if len(g) and not bad.any() else np.nan
                row[col + "_sd"] = g.test_error.std(ddof=1) if len(g) and not bad.any() else np.nan
            for col, p in (("paper_p1", 1.0), ("paper_p2", 2.0), ("paper_pinf", np.inf)):
                c = pn[(pn.p == p) & (pn.rho == rho)]
                row[col] = float(c.error_pct.iloc[0]) if len(c) else np.nan
                row[col + "_marks"] = c.marks.iloc[0] if len(c) else ""
            rows.append(row)
    return pd.DataFrame(rows)


def robust_summary(df: pd.DataFrame, holdout: int) -> pd.DataFrame:
    """Per dataset at ``holdout`` (configuration of Tables 9-14): deterministic error (ours, and the paper's Tables 6-8
    cell of that configuration), best rho and its error per column (ours p = 2 / inf on mean test error; paper p = 1 /
    2 / inf), and the honest variant (rho chosen per repetition on inner validation)."""
    df = _prepare(df)
    rf = robust_frame(df, holdout)
    paper = _paper_cached()
    rows = []
    for name, r in (rf.groupby("dataset", sort=False) if len(rf) else []):
        t, k = ROBUST_CONFIGS[holdout][name]
        d = df[(df.dataset == name) & (df.holdout == holdout) & (df["transform"] == t) & (df["kernel"] == k)]
        det = d[d.model == "det"]
        pdet = paper[paper.table.isin(list(DET_TABLES.values())) & (paper.holdout == holdout) & (paper.dataset == name)
                     & (paper["transform"] == t) & (paper["kernel"] == k)]
        row = {"dataset": name, "config": f"{t} / {k}", "reps": int(d.rep.nunique()),
               "det": (det.test_error.mean(), det.test_error.std(ddof=1)) if len(det) else (np.nan, np.nan),
               "det_paper": float(pdet.error_pct.iloc[0]) if len(pdet) else np.nan}
        for col in ("p2", "pinf", "paper_p1", "paper_p2", "paper_pinf"):
            fin = r[np.isfinite(r[col])]
            if len(fin):
                b = fin.loc[fin[col].idxmin()]
                row[col + "_best"] = (float(b[col]), float(b.rho))
            else:
                row[col + "_best"] = (np.nan, np.nan)
        rob = d[d.model == "rob"]
        for col, p in (("p2", 2.0), ("pinf", np.inf)):
            rp = rob[rob.p == p]
            row[col + "_honest"] = (np.nan, np.nan)
            if len(rp) and rp.val_error.notna().any():
                pick = rp.sort_values(["rep", "val_error", "rho"]).groupby("rep").head(1)
                row[col + "_honest"] = (pick.test_error.mean(), pick.test_error.std(ddof=1))
        rows.append(row)
    return pd.DataFrame(rows)


def _pct(x: float, nd: int = 2) -> str:
    return f"{100 * x:.{nd}f}%" if np.isfinite(x) else "-"


def _ppct(x: float) -> str:
    return f"{x:.2f}%" if x is not None and np.isfinite(x) else "-"


def _cfg(c) -> str:
    return f"{c[0]} / {c[1]}" if c else "-"


def _reps_text(counts: pd.Series) -> str:
    """Repetitions per configuration (``counts``: configuration label -> repetitions): the most common count, then
    the configurations with another count."""
    if counts.empty:
        return "-"
    common = int(counts.value_counts().sort_index().idxmax())  # on a tie, the smaller count
    others = counts[counts != common]
    text = str(common)
    for n, g in others.groupby(others, sort=False):
        text += f"; {int(n)} for " + ", ".join(g.index)
    return text


def coverage_frame(df: pd.DataFrame) -> pd.DataFrame:
    """What the results hold after de-duplication, per holdout and dataset: deterministic configurations and the
    repetitions of each, robust configuration(s) and their repetitions, and whether the honest variant was run."""
    df = _prepare(df)
    rows = []
    for (h, name), g in _order(df).groupby(["holdout", "dataset"], sort=False):
        det, rob = g[g.model == "det"], g[g.model == "rob"]
        det_reps = det.groupby(["transform", "kernel"], sort=False).rep.nunique()
        det_reps.index = [f"{t} / {k}" for t, k in det_reps.index]
        rob_reps = rob.groupby(["transform", "kernel"], sort=False).rep.nunique()
        rob_reps.index = [f"{t} / {k}" for t, k in rob_reps.index]
        rows.append({"holdout": int(h), "dataset": name, "det_configs": len(det_reps), "det_reps": det_reps,
                     "rob_configs": list(rob_reps.index), "rob_reps": rob_reps,
                     "honest": bool(rob.val_error.notna().any()) if len(rob) else False})
    return pd.DataFrame(rows)


def coverage_lines(df: pd.DataFrame) -> list[str]:
    """The "Contents of these results" table (:func:`coverage_frame`)."""
    lines = ["| Holdout | Dataset | det. configurations | det. reps per configuration | robust configuration(s) "
             "| robust reps | honest |", "|---|---|---|---|---|---|---|"]
    for r in coverage_frame(df).itertuples():
        rob_reps = _reps_text(r.rob_reps) if len(r.rob_reps) > 1 else (str(int(r.rob_reps.iloc[0])) if len(r.rob_reps)
                                                                          else "-")
        lines.append(f"| {_holdout_name(r.holdout)} | {r.dataset} | {r.det_configs} | {_reps_text(r.det_reps)} | "
                     f"{'; '.join(r.rob_configs) or '-'} | {rob_reps} | {'yes' if r.honest else 'no'} |")
    return lines


# ------------------------------------------------------------------------------------------ report values
def paper_setup() -> dict[str, str]:
    """The paper's setup of Section 6 (``tables/robust_setup.csv``): machine, cores, runs, grid points."""
    t = pd.read_csv(io.StringIO(_data_text(SETUP_CSV)), dtype=str)
    return dict(zip(t["key"], t["value"], strict=True))


def _cores() -> int:
    return int(paper_setup()["cores"])


def _runs() -> int:
    return int(paper_setup()["runs"])


def _e(x: float) -> str:
    """Our error (a proportion) as a percentage in prose."""
    return f"{100 * x:.2f} %" if np.isfinite(x) else "-"


def _pe(x: float) -> str:
    """The paper's error (a percentage) in prose."""
    return f"{x:.2f} %" if x is not None and np.isfinite(x) else "-"


_range = functools.partial(value_range, empty="-")  # this report prints "-" for an empty range


def _r2(x: float) -> float:
    """A percentage as printed (two decimals): comparisons of means are made on the printed values."""
    return round(float(x), 2)


def _best_of(v) -> float:
    return v[0] if isinstance(v, tuple) else np.nan


def _ablation_frame(abl: pd.DataFrame) -> pd.DataFrame:
    """Mean test error per dataset (Table 3 order) and ablation variant."""
    if abl is None or abl.empty:
        return pd.DataFrame()
    a = abl.copy()
    a["flip"] = a["flip"].astype(str).str.lower().isin(["true", "1"])
    a = a[a["status"].fillna("ok") == "ok"]
    g = a.groupby(["dataset", "line_search", "interval", "flip"]).test_error.agg(["mean", "size"]).reset_index()
    g["d"] = g["dataset"].map({n: i for i, n in enumerate(DATASETS)})
    return g.sort_values("d", kind="stable")


def _ablation_values(abl: pd.DataFrame, it: dict) -> dict | None:
    g = _ablation_frame(abl)
    if g.empty:
        return None
    a = abl.copy()
    a["flip"] = a["flip"].astype(str).str.lower().isin(["true", "1"])

    def mean(name, ls, iv, fl):
        m = g[(g.dataset == name) & (g.line_search == ls) & (g.interval == iv) & (g.flip == fl)]
        return float(m["mean"].iloc[0]) if len(m) else np.nan

    names = list(dict.fromkeys(g.dataset))
    parts = []
    for name in names:
        vals = [mean(name, *v) for v in ABLATION_VARIANTS]
        parts.append(f"{name} " + " / ".join(f"{100 * v:.2f}" if np.isfinite(v) else "-" for v in vals) + " %")
    # exact vs grid on the paper interval, per split: training errors and test means
    key = ["dataset", "rep"]
    grid = a[(a.line_search == "grid") & (a.interval == "paper") & ~a.flip].set_index(key)
    exact = a[(a.line_search == "exact") & (a.interval == "paper") & ~a.flip].set_index(key)
    both = grid.add_suffix("_g").join(exact.add_suffix("_x"), how="inner")
    n_le = int((both.train_error_x <= both.train_error_g + 1e-12).sum())
    higher = [n for n in names
              if _r2(100 * mean(n, "exact", "paper", False)) > _r2(100 * mean(n, "grid", "paper", False))]
    flips = [(n, 100 * (mean(n, "grid", "paper", True) - mean(n, "grid", "paper", False))) for n in names]
    changed = [(n, d) for n, d in flips if np.isfinite(d) and _r2(abs(d)) > 0]
    worst = max(changed, key=lambda t: abs(t[1])) if changed else None
    reps = int(a.groupby("dataset").rep.nunique().min())
    return {"reps": reps, "list": "; ".join(parts), "n_le": n_le, "n_pairs": len(both),
            "n_test_le": len(names) - len(higher), "n": len(names), "higher": join_words(higher),
            "n_flip": len(changed), "flip_max": f"{abs(worst[1]):.2f}" if worst else "0.00",
            "flip_where": f"{worst[0]}, {_pe(100 * mean(worst[0], 'grid', 'paper', True))} against "
                          f"{_pe(100 * mean(worst[0], 'grid', 'paper', False))}" if worst else "none"}


def _ablation_range(abl: pd.DataFrame, name: str) -> tuple[float, float] | None:
    g = _ablation_frame(abl)
    if g.empty or name not in set(g.dataset):
        return None
    v = 100 * g[g.dataset == name]["mean"]
    return float(v.min()), float(v.max())


def _train_points(name: str, holdout: int) -> int:
    m = int(DATASETS[name][1].split(" x ")[0])
    return round(m * holdout / 100)


def _honest_paired(df: pd.DataFrame, name: str, holdout: int, t: str, k: str, p: float) -> tuple[float, float, int]:
    """Mean and standard error of (honest robust - deterministic) test error, paired over the splits, in points."""
    d = df[(df.dataset == name) & (df.holdout == holdout) & (df["transform"] == t) & (df.kernel == k)]
    det = d[d.model == "det"].set_index("rep").test_error
    rp = d[(d.model == "rob") & (d.p == p)]
    if rp.empty or not rp.val_error.notna().any():
        return np.nan, np.nan, 0
    pick = rp.sort_values(["rep", "val_error", "rho"]).groupby("rep").head(1).set_index("rep").test_error
    diff = 100 * (pick - det).dropna()
    if len(diff) < 2:
        return np.nan, np.nan, len(diff)
    return float(diff.mean()), float(diff.std(ddof=1) / np.sqrt(len(diff))), len(diff)


def _table3_items(df, t3, abl, it) -> list[str]:
    """The findings on Table 3 (holdout 75 %-25 %)."""
    out: list[str] = []
    if t3.empty:
        return out
    n = len(t3)
    det = np.array([100 * v[0] for v in t3.det])
    diff = det - t3.det_paper.to_numpy()
    se = [100 * v[1] / np.sqrt(r) for v, r in zip(t3.det, t3.reps, strict=True)]
    out.append(render(it["f_det_table3"], {
        "n1": int((np.abs(diff) <= 1).sum()), "n2": int((np.abs(diff) <= 2).sum()), "n": n,
        "n_lower": int((np.round(det, 2) < np.round(t3.det_paper.to_numpy(), 2)).sum()),
        "reps": _range(t3.reps, "{:.0f}"), "se": _range(se)}))
    # robust, paper's selection
    best = np.array([min(_best_of(r.p2) if "p2" in t3 else np.nan, _best_of(r.pinf) if "pinf" in t3 else np.nan)
                     for r in t3.itertuples()])
    if np.isfinite(best).any():
        gain = np.round(det, 2) - np.round(100 * best, 2)
        pbest = np.array([min(TABLE3[nm]["error"][1:]) for nm in t3.Dataset])
        pgain = np.round(t3.det_paper.to_numpy(), 2) - np.round(pbest, 2)
        # smallest rho against the deterministic fit, split by split
        rho0 = float(RHO_GRID.min())
        same = total = 0
        where = []
        for name in t3.Dataset:
            t, k = TABLE3[name]["transform"], TABLE3[name]["kernel"]
            d = df[(df.dataset == name) & (df.holdout == 75) & (df["transform"] == t) & (df.kernel == k)]
            dd = d[d.model == "det"].set_index("rep").test_error
            r0 = d[(d.model == "rob") & np.isclose(d.rho, rho0)]
            if r0.empty:
                continue
            diffs = r0.groupby("rep").test_error.apply(lambda s: bool(np.any(s.to_numpy() != s.iloc[0])))
            ok = [(rep, not diffs.loc[rep] and r0[r0.rep == rep].test_error.iloc[0] == dd.get(rep, np.nan))
                  for rep in diffs.index]
            bad = sum(1 for _, o in ok if not o)
            same += len(ok) - bad
            total += len(ok)
            if bad:
                where.append(f"{bad} of {len(ok)} {name} splits")
        paper = _paper_cached()
        p3 = paper[paper.table == 3]
        p12_t3 = max(abs(float(g.loc[g.p == 1.0, "error_pct"].iloc[0]) - float(g.loc[g.p == 2.0, "error_pct"].iloc[0]))
                     for _, g in p3[p3.model == "rob"].groupby("dataset"))
        rob = paper[paper.table.isin([t for ts in ROBUST_TABLES.values() for t in ts])]
        piv = rob.pivot_table(index=["table", "dataset", "rho"], columns="p", values="error_pct")
        d12 = (piv[1.0] - piv[2.0]).abs()
        i12 = d12.idxmax()
        detp = paper[paper.table.isin(list(DET_TABLES.values()))]
        worst = (0.0, "")
        for h in ROBUST_TABLES:
            for name in DATASETS:
                t, k = ROBUST_CONFIGS[h][name]
                c = detp[(detp.holdout == h) & (detp.dataset == name) & (detp["transform"] == t) & (detp.kernel == k)]
                r = rob[(rob.holdout == h) & (rob.dataset == name) & np.isclose(rob.rho, rho0)]
                if c.empty or r.empty:
                    continue
                dd_ = (r.error_pct - float(c.error_pct.iloc[0])).abs()
                j = dd_.idxmax()
                if dd_.loc[j] > worst[0]:
                    worst = (float(dd_.loc[j]), f"Table {int(r.loc[j, 'table'])} {name}: "
                                                f"{_pe(r.loc[j, 'error_pct'])} against {_pe(c.error_pct.iloc[0])}")
        out.append(render(it["f_robust_selection"], {
            "n_gain": int((gain > 0).sum()), "n": n, "gain": _range(gain[gain > 0]),
            "pn_gain": int((pgain > 0).sum()), "pgain": _range(pgain[pgain > 0]),
            "rho_min": f"{rho0:.0e}", "n_same": same, "n_splits": total,
            "diff_where": " (the others: " + join_words(where) + ")" if where else "",
            "p12_t3": f"{p12_t3:.2f}", "p12_max": f"{d12.max():.2f}",
            "p12_where": f"Table {int(i12[0])} {i12[1]}, rho = {i12[2]:.0e}",
            "det_rho_max": f"{worst[0]:.2f}", "det_rho_where": worst[1]}))
        no_gain = [i for i in range(n) if gain[i] <= 0]
        if no_gain:
            rhos = [f"{t3.Dataset.iloc[i]} {t3.p2_rho.iloc[i]:.0e} / {t3.pinf_rho.iloc[i]:.0e}" for i in no_gain]
            below = [f"{nm} ({_e(v[0])} against {_pe(min(TABLE3[nm]['error'][1:]))})" for nm, v in zip(t3.Dataset,
                     t3.det, strict=True) if _r2(100 * v[0]) < _r2(min(TABLE3[nm]["error"][1:]))]
            out.append(render(it["f_no_gain"], {"names": join_words([t3.Dataset.iloc[i] for i in no_gain]),
                                                 "best_rhos": "; ".join(rhos), "below": join_words(below)}))
    # honest variant, paired over the splits
    rows = []
    for name in t3.Dataset:
        t, k = TABLE3[name]["transform"], TABLE3[name]["kernel"]
        rows.append((name, *_honest_paired(df, name, 75, t, k, 2.0)))
    rows = [r for r in rows if np.isfinite(r[1])]
    if rows:
        within = [r for r in rows if abs(r[1]) <= 2 * r[2]]
        lower = [f"{r[0]} ({r[1]:+.2f} points)" for r in rows if r[1] < -2 * r[2]]
        higher = [f"{r[0]} ({r[1]:+.2f} points)" for r in rows if r[1] > 2 * r[2]]
        sel = [i for i in range(n) if "p2" in t3 and _r2(100 * _best_of(t3.p2.iloc[i])) < _r2(det[i])]
        out.append(render(it["f_honest"], {"n_within": len(within), "n": len(rows), "lower": join_words(lower),
                                            "higher": join_words(higher), "n_sel": len(sel)}))
    av = _ablation_values(abl, it)
    if av is not None:
        out.append(render(it["f_ablation"], av))
    out.append(it["f_degenerate"])
    return out


def _mammographic_item(df, it) -> str | None:
    """The inhomogeneous-kernel robust cells of Mammographic at 75 %-25 % where the paper collapses."""
    rf = robust_frame(df, 75)
    r = rf[rf.dataset == "Mammographic Mass"] if len(rf) else rf
    if r.empty or "inhom" not in r.kernel.iloc[0].lower():
        return None
    bad = r[(r.paper_p2 - 100 * r.p2) > 10]
    if bad.empty:
        return None
    paper_vals = pd.concat([bad.paper_p1, bad.paper_p2, bad.paper_pinf])
    return render(it["f_mammographic"], {
        "config": f"{r['transform'].iloc[0]} / {r.kernel.iloc[0]}", "paper": _range(paper_vals) + " %",
        "rhos": join_words([f"{x:.0e}" for x in bad.rho]), "ours_p2": " / ".join(_e(x) for x in bad.p2),
        "ours_pinf": " / ".join(_e(x) for x in bad.pinf)})


def _collapse_item(df, it) -> str | None:
    paper_worse, ours_worse = [], []
    for h in sorted(ROBUST_TABLES, reverse=True):
        rf = robust_frame(df, h)
        if rf.empty:
            continue
        for name, g in rf.groupby("dataset", sort=False):
            n_p = n_o = 0
            for ours, pap in (("p2", "paper_p1"), ("p2", "paper_p2"), ("pinf", "paper_pinf")):
                x = (g[pap] - 100 * g[ours]).to_numpy()
                n_p += int((x > 10).sum())
                n_o += int((x < -10).sum())
            if n_p:
                paper_worse.append((f"{name} at {_holdout_name(h)}", n_p))
            if n_o:
                ours_worse.append((f"{name} at {_holdout_name(h)}", n_o))
    if not paper_worse and not ours_worse:
        return None
    return render(it["f_collapse"], {
        "n_paper": sum(n for _, n in paper_worse), "paper_where": join_words([f"{w} ({n})" for w, n in paper_worse]),
        "n_ours": sum(n for _, n in ours_worse), "ours_where": join_words([f"{w} ({n})" for w, n in ours_worse])})


def _all_items(df, dt, best, it) -> list[str]:
    """The findings on Tables 6-14."""
    out: list[str] = []
    if len(best):
        per_h = []
        for h, b in best.groupby("holdout", sort=False):
            per_h.append((h, b))
        w1 = [100 * b.within1.sum() / b.compared.sum() for _, b in per_h if b.compared.sum()]
        w2 = [100 * b.within2.sum() / b.compared.sum() for _, b in per_h if b.compared.sum()]
        matches = join_words([f"{int(b.match.sum())} of {len(b)} at {_holdout_name(h)}" for h, b in per_h])
        sp = [b.spearman.dropna().median() for _, b in per_h if b.spearman.notna().any()]
        paper = _paper_cached()
        pd_ = paper[paper.table.isin(list(DET_TABLES.values()))].dropna(subset=["error_pct"])
        close = total = 0
        for (h, name), g in pd_.groupby(["holdout", "dataset"]):
            if (h, name) not in set(zip(best.holdout, best.dataset, strict=True)) or len(g) < 2:
                continue
            g = g.sort_values("error_pct")
            se = float(g.sd.iloc[0]) * 100 / np.sqrt(_runs())
            total += 1
            close += int(g.error_pct.iloc[1] - g.error_pct.iloc[0] <= se)
        rob = []
        for h in sorted(ROBUST_TABLES, reverse=True):
            rf = robust_frame(df, h)
            if rf.empty:
                continue
            x = pd.concat([(100 * rf[o] - rf[p]).abs() for o, p in (("p2", "paper_p1"), ("p2", "paper_p2"),
                                                                     ("pinf", "paper_pinf"))])
            x = x[np.isfinite(x)]
            rob.append(f"{int((x <= 1).sum())} of {len(x)} at {_holdout_name(h)}")
        out.append(render(it["g_agreement"], {
            "w1": _range(w1, "{:.0f}") + " %", "w2": _range(w2, "{:.0f}") + " %", "matches": matches,
            "n_close": close, "n_pairs": total, "spearman": _range(sp),
            "rob_w1": join_words(rob) if rob else "none run"}))
        both = dt[np.isfinite(dt.error) & dt.paper_error.notna()].copy()
        both["d"] = both.paper_error - 100 * both.error
        big = both[both.d.abs() > 2]
        pw = big[big.d > 0]
        top = pw.sort_values("d", ascending=False).head(3)
        ex = [f"{r.dataset} {r.transform} / {r.kernel} at {_holdout_name(r.holdout)}: {_e(r.error)} against "
              f"{_pe(r.paper_error)}" for r in top.itertuples()]
        out.append(render(it["g_paper_worse"], {"n_pw": len(pw), "n_diff": len(big), "examples": "; ".join(ex),
                                                 "n_raw": int((pw["transform"] == "-").sum())}))
        # Hom. linear against Inhom. linear, split by split
        det = df[(df.model == "det") & df.kernel.isin(["Hom. linear", "Inhom. linear"]) & (df.status == "ok")]
        piv = det.pivot_table(index=["holdout", "dataset", "transform", "rep"], columns="kernel", values="test_error")
        if {"Hom. linear", "Inhom. linear"} <= set(piv.columns):
            piv = piv.dropna()
            same = int((piv["Hom. linear"] == piv["Inhom. linear"]).sum())
            pl = pd_[pd_.kernel.isin(["Hom. linear", "Inhom. linear"])].pivot_table(
                index=["table", "dataset", "transform"], columns="kernel", values="error_pct").dropna()
            dd = (pl["Hom. linear"] - pl["Inhom. linear"]).abs()
            j = dd.idxmax()
            out.append(render(it["g_linear"], {
                "n_same": f"{same:,}", "n_pairs": f"{len(piv):,}", "max_diff": f"{dd.max():.2f}",
                "where": f"Table {int(j[0])}, {j[1]} {j[2]}: {_pe(pl.loc[j, 'Hom. linear'])} against "
                         f"{_pe(pl.loc[j, 'Inhom. linear'])}"}))
        failed = dt[dt.failed > 0]
        if len(failed):
            over = failed[failed.status.str.contains("Kernel overflow")]
            solver = failed[~failed.status.str.contains("Kernel overflow")]

            def kinds(g):
                return join_words([f"{t} / {k} ({len(x)})" for (t, k), x in _order(g).groupby(["transform", "kernel"],
                                                                                         sort=False)])

            statuses = sorted({s for st in solver.status for s in st.split("; ") if s != "Kernel overflow"})
            out.append(render(it["g_failed"], {
                "max_k": f"{MAX_ABS_K:.0e}", "n_overflow": len(over), "overflow_where": kinds(over) if len(over)
                else "none", "n_solver": len(solver), "solver_where": kinds(solver) if len(solver) else "none",
                "statuses": join_words([f'"{s}"' for s in statuses]), "n_failed": len(failed),
                "n_both": int(failed.paper_error.isna().sum()), "n_paper_num": int(failed.paper_error.notna().sum())}))
        cells = dt[dt.set_index(["holdout", "dataset"]).index.isin(list(zip(best.holdout, best.dataset, strict=True)))]
        cells = cells[np.isfinite(cells.paper_cpu) & (cells.cpu96 > 0) & (cells.failed == 0)]
        if len(cells):
            med = cells.assign(r=cells.paper_cpu / cells.cpu96).groupby(["holdout", "dataset"], sort=False).r.median()
            lo, hi = med.idxmin(), med.idxmax()
            low3 = cells.assign(r=cells.paper_cpu / cells.cpu96).sort_values("r").head(3)
            c = _cores()
            out.append(render(it["g_cpu"], {
                "lo": f"{med.min():.1f}–{c * med.min():.1f}×", "lo_where": f"{lo[1]} at {_holdout_name(lo[0])}",
                "hi": f"{med.max():.1f}–{c * med.max():.1f}×", "hi_where": f"{hi[1]} at {_holdout_name(hi[0])}",
                "lowest": "; ".join(f"{r.dataset} {r.transform} / {r.kernel} at {_holdout_name(r.holdout)} "
                                    f"{bounds_text(r.cpu96, r.paper_cpu, c)}" for r in low3.itertuples())}))
    for item in (_mammographic_item(df, it), _collapse_item(df, it)):
        if item:
            out.append(item)
    return out


def _n_se(diff_points: float, sd: float, reps: int) -> str:
    """``diff_points`` in standard errors of a mean of ``reps`` values with standard deviation ``sd`` (a proportion)."""
    se = 100 * sd / np.sqrt(reps) if reps > 1 else np.nan
    return f"{diff_points / se:.1f}" if np.isfinite(se) and se > 0 else "-"


def _not_reproduced(df, t3, dt, best, abl, it) -> list[str]:
    out: list[str] = []
    for r in t3.itertuples():
        d = 100 * r.det[0] - r.det_paper
        if d > 1:
            ar = _ablation_range(abl, r.Dataset)
            tried = it["tried_none"]
            if ar:
                tried = render(it["tried_ablation"], {"lo": f"{ar[0]:.2f}", "hi": f"{ar[1]:.2f} %",
                                                      "paper": _pe(r.det_paper)})
            out.append(render(it["nr_table3_det"], {
                "dataset": r.Dataset, "ours": _e(r.det[0]), "paper": _pe(r.det_paper), "diff": f"{d:.2f}",
                "n_se": _n_se(d, r.det[1], r.reps), "reps": r.reps, "tried": tried}))
        ours = min(_best_of(getattr(r, "p2", np.nan)), _best_of(getattr(r, "pinf", np.nan)))
        pbest = min(TABLE3[r.Dataset]["error"][1:])
        if np.isfinite(ours) and 100 * ours - pbest > 1:
            out.append(render(it["nr_table3_rob"], {"dataset": r.Dataset, "ours": _e(ours), "paper": _pe(pbest),
                                                     "diff": f"{100 * ours - pbest:.2f}"}))
    for h in sorted(ROBUST_CONFIGS, reverse=True):
        for name, (t, k) in ROBUST_CONFIGS[h].items():
            if h == 75 and name in set(t3.Dataset):
                continue  # the Table 3 cell above
            c = dt[(dt.holdout == h) & (dt.dataset == name) & (dt["transform"] == t) & (dt.kernel == k)]
            if c.empty or not np.isfinite(c.error.iloc[0]):
                continue
            c = c.iloc[0]
            d = 100 * c.error - c.paper_error
            if d > 1:
                out.append(render(it["nr_bold"], {
                    "table": DET_TABLES[h], "dataset": name, "config": f"{t} / {k}", "holdout": _holdout_name(h),
                    "ours": _e(c.error), "paper": _pe(c.paper_error), "diff": f"{d:.2f}",
                    "n_se": _n_se(d, c.sd, c.reps), "reps": int(c.reps),
                    "m_train": _train_points(name, h)}))
    if len(t3) and "p2" in t3:
        det = np.array([_r2(100 * v[0]) for v in t3.det])
        best_r = np.array([_r2(100 * min(_best_of(a), _best_of(b))) for a, b in zip(t3.p2, t3.pinf, strict=True)])
        fail = [nm for nm, dv, bv in zip(t3.Dataset, det, best_r, strict=True) if not bv < dv]
        pgain = sum(1 for nm in t3.Dataset if _r2(min(TABLE3[nm]["error"][1:])) < _r2(TABLE3[nm]["error"][0]))
        if fail:
            out.append(render(it["nr_robust_gain"], {"n_fail": len(fail), "n": len(t3), "names": join_words(fail),
                                                      "pn_gain": pgain}))
    if len(best):
        matches = join_words([f"{int(b.match.sum())} of {len(b)} at {_holdout_name(h)}"
                         for h, b in best.groupby("holdout", sort=False)])
        if int(best.match.sum()) < len(best):
            out.append(render(it["nr_best_config"], {"matches": matches}))
    return out


def _summary(df, t3, dt, best, it, n_nr: int) -> list[str]:
    out: list[str] = []
    c = _cores()
    if len(t3):
        d = (100 * t3.det.map(lambda v: v[0]) - t3.det_paper).abs()
        parts = []
        for col, lab in (("p1", "p = 1"), ("p2", "p = 2"), ("pinf", "p = inf")):
            if col in t3:
                v = t3[col].map(_best_of)
                dd = (100 * v - t3[col + "_paper"]).abs()
                parts.append(f"{lab} {int((dd <= 1).sum())} of {int(dd.notna().sum())}")
        out.append(render(it["summary_table3"], {"n1": int((d <= 1).sum()), "n": len(t3), "n2": int((d <= 2).sum()),
                                                  "robust": join_words(parts) if parts else "not run"}))
        cells = [(f"{r.Dataset} deterministic", r.det_cpu, r.det_cpu_paper) for r in t3.itertuples()]
        if "pinf_cpu" in t3:
            cells += [(f"{r.Dataset} p = inf", r.pinf_cpu, r.pinf_cpu_paper) for r in t3.itertuples()
                      if np.isfinite(r.pinf_cpu)]
        cells = [x for x in cells if x[1] > 0 and np.isfinite(x[2])]
        if cells:
            lo = min(cells, key=lambda x: x[2] / x[1])
            hi = max(cells, key=lambda x: x[2] / x[1])
            out.append(render(it["summary_time"], {
                "bound_lo": "×1", "min": bounds_text(lo[1], lo[2], c), "min_cell": lo[0],
                "max": bounds_text(hi[1], hi[2], c), "max_cell": hi[0], "n": len(cells),
                "n_lo": sum(1 for x in cells if x[2] > x[1]), "n_hi": sum(1 for x in cells if c * x[2] > x[1])}))
    out.append(render(it["summary_not_reproduced"], {"n": n_nr}) if n_nr else it["summary_all_reproduced"])
    return out


def _summary_table(df: pd.DataFrame, best: pd.DataFrame) -> list[str]:
    rows = []
    for h in sorted(set(df.holdout), reverse=True):
        b = best[best.holdout == h] if len(best) else best
        rf = robust_frame(df, h) if h in ROBUST_TABLES else pd.DataFrame()
        rd = []
        if len(rf):
            for ours, pap in (("p2", "paper_p1"), ("p2", "paper_p2"), ("pinf", "paper_pinf")):
                x = (100 * rf[ours] - rf[pap]).abs()
                rd.append(x[np.isfinite(x)])
        rdiff = pd.concat(rd) if rd else pd.Series(dtype=float)
        if not len(b) and not len(rdiff):
            continue
        n = int(b.compared.sum()) if len(b) else 0
        sp = b.spearman.dropna() if len(b) else pd.Series(dtype=float)
        det_cells = (f"{len(b)} | {n} | {int(b.within1.sum())} | {int(b.within2.sum())} | {int(b.match.sum())} / "
                     f"{len(b)}" if len(b) else "0 | - | - | - | -")
        rob_cells = (f"{len(rdiff)} | {int((rdiff <= 1).sum())} | {int((rdiff <= 2).sum())}" if len(rdiff)
                     else "0 | - | -")
        rows.append(f"| {_holdout_name(h)} | {det_cells} | "
                    f"{f'{sp.median():.2f} ({sp.min():.2f} to {sp.max():.2f})' if len(sp) else '-'} | {rob_cells} |")
    if not rows:
        return []
    return ["| Holdout | datasets (Tables 6-8) | det. cells compared | within 1 point | within 2 points "
            "| best configuration = paper's [B] | Spearman r of the configurations: median (range) "
            "| robust cells compared | within 1 point | within 2 points |",
            "|---|---|---|---|---|---|---|---|---|---|", *rows]


def _dash_counts(dt: pd.DataFrame, best: pd.DataFrame) -> dict | None:
    if not len(best):
        return None
    dt = dt[dt.set_index(["holdout", "dataset"]).index.isin(list(zip(best.holdout, best.dataset, strict=True)))]
    return {"n_paper": int(dt.paper_error.isna().sum()), "n_ours": int(dt.error.isna().sum()),
            "n_both": int((dt.paper_error.isna() & dt.error.isna()).sum())}


# ------------------------------------------------------------------------------------------ report tables
def table3_lines(t3: pd.DataFrame) -> list[str]:
    lines = ["| Dataset | config | reps | Det. ours | Det. paper | p=1 ours | p=1 paper | p=2 ours | p=2 paper "
             "| p=inf ours | p=inf paper | best rho (p=2 / inf) |", "|---|---|---|---|---|---|---|---|---|---|---|---|"]
    for _, r in t3.iterrows():
        def cell(key, r=r):
            return _cell(r, key)
        lines.append(
            f"| {r.Dataset} | {r.config} | {r.reps} | {cell('det')} | {r.det_paper:.2f}% | {cell('p1')} | "
            f"{r.get('p1_paper', float('nan')):.2f}% | {cell('p2')} | {r.get('p2_paper', float('nan')):.2f}% | "
            f"{cell('pinf')} | {r.get('pinf_paper', float('nan')):.2f}% | "
            f"{r.get('p2_rho', float('nan')):.0e} / {r.get('pinf_rho', float('nan')):.0e} |")
    return lines


def honest_lines(t3: pd.DataFrame) -> list[str]:
    lines = ["| Dataset | Det. ours | p=2 (= p=1) honest | p=inf honest | p=2 test-selected | p=inf test-selected |",
             "|---|---|---|---|---|---|"]
    for _, r in t3.iterrows():
        def cell(key, r=r):
            return _cell(r, key)
        lines.append(f"| {r.Dataset} | {cell('det')} | {cell('p2_honest')} | {cell('pinf_honest')} | {cell('p2')} "
                     f"| {cell('pinf')} |")
    return lines


def cpu_lines(t3: pd.DataFrame) -> list[str]:
    c = _cores()
    lines = ["| Dataset | Det. ours (s) | Det. paper (s) | paper / ours, ×1–×8 | p=inf ours (s, one rho) "
             "| p=inf paper (s) | paper / ours, ×1–×8 |", "|---|---|---|---|---|---|---|"]
    if c != 8:
        lines[0] = lines[0].replace("×8", f"×{c}")
    for _, r in t3.iterrows():
        pc = r.get("pinf_cpu", float("nan"))
        pp = r.get("pinf_cpu_paper", float("nan"))
        dr = bounds_text(r.det_cpu, r.det_cpu_paper, c)
        lines.append(f"| {r.Dataset} | {r.det_cpu:.2f} | {r.det_cpu_paper:.3f} | {dr} "
                     f"| {pc:.2f} | {pp:.3f} | {bounds_text(pc, pp, c) if np.isfinite(pc) else '-'} |")
    return lines


def _det_table_lines(dt: pd.DataFrame, best: pd.DataFrame, h: int) -> list[str]:
    g = dt[dt.holdout == h]
    names = list(best[best.holdout == h].dataset)
    g = g[g.dataset.isin(names)]
    ob = {r.dataset: r.ours_best for r in best[best.holdout == h].itertuples()}
    lines = [f"| Dataset | Transformation | reps | {' | '.join(KERNELS)} |", "|---|---|---|" + "---|" * len(KERNELS)]
    paper = _paper_cached()
    paper = paper[paper.table.isin(list(DET_TABLES.values())) & (paper.holdout == h)]
    for (name, t), r in g.groupby(["dataset", "transform"], sort=False):
        cells = []
        for k in KERNELS:
            m = r[r.kernel == k]
            pc = paper[(paper.dataset == name) & (paper["transform"] == t) & (paper.kernel == k)]
            pe = float(pc.error_pct.iloc[0]) if len(pc) else np.nan
            ps = "-" if not np.isfinite(pe) else f"{pe:.2f}" + (" [B]" if "B" in pc.marks.iloc[0] else "")
            if m.empty:
                os_ = "n/a"
            else:
                x = m.iloc[0]
                if not np.isfinite(x.error):
                    os_ = "-"
                else:
                    mean = f"{100 * x.error:.2f}"
                    mean = f"**{mean}**" if ob.get(name) == (t, k) else mean
                    os_ = mean + (f" ± {x.sd:.2f}" if np.isfinite(x.sd) else "")
            cells.append(f"{os_} / {ps}")
        reps = sorted(set(int(x) for x in r.reps))
        reps_s = str(reps[0]) if len(reps) == 1 else f"{reps[0]}–{reps[-1]}"
        lines.append(f"| {name} | {t} | {reps_s} | {' | '.join(cells)} |")
    return lines


def det_tables_lines(dt: pd.DataFrame, best: pd.DataFrame) -> list[str]:
    lines: list[str] = []
    for h in sorted(set(best.holdout), reverse=True):
        lines += [f"### Holdout {_holdout_name(h)} (Table {DET_TABLES.get(h, '?')})", "",
                  *_det_table_lines(dt, best, h), ""]
    return lines


def best_lines(best: pd.DataFrame) -> list[str]:
    lines = ["| Holdout | Dataset | reps | our best | ours | paper's best [B] | paper | same | ours at paper's best "
             "| paper at our best | Spearman r (n) | within 1 / 2 points |",
             "|---|---|---|---|---|---|---|---|---|---|---|---|"]
    for r in best.itertuples():
        sp = "-" if np.isnan(r.spearman) else f"{r.spearman:.2f}"
        lines.append(f"| {_holdout_name(r.holdout)} | {r.dataset} | {r.reps} | {_cfg(r.ours_best)} | "
                     f"{_pct(r.ours_error)} | {_cfg(r.paper_best)} | {_ppct(r.paper_error)} | "
                     f"{'yes' if r.match else 'no'} | {_pct(r.ours_at_paper_best)} | {_ppct(r.paper_at_ours_best)} | "
                     f"{sp} ({r.compared}) | {r.within1} / {r.within2} of {r.compared} |")
    return lines


def det_cpu_lines(dt: pd.DataFrame, best: pd.DataFrame) -> list[str]:
    c = _cores()
    lines = [f"| Holdout | Dataset | configs | ours median (s) | paper median (s) | paper / ours median, ×1–×{c} "
             f"| paper / ours range at ×1 | paper / ours range at ×{c} |", "|---|---|---|---|---|---|---|---|"]
    for (h, name), g in dt[dt.set_index(["holdout", "dataset"]).index.isin(
            list(zip(best.holdout, best.dataset, strict=True)))].groupby(["holdout", "dataset"], sort=False):
        g = g[np.isfinite(g.paper_cpu) & (g.cpu96 > 0) & (g.failed == 0)]  # a failed fit stops early: not timed
        if g.empty:
            continue
        ratio = g.paper_cpu / g.cpu96
        lines.append(f"| {_holdout_name(h)} | {name} | {len(g)} | {g.cpu96.median():.2f} | "
                     f"{g.paper_cpu.median():.3f} | {ratio.median():.1f}–{c * ratio.median():.1f}× | "
                     f"{ratio.min():.1f}–{ratio.max():.1f}× | {c * ratio.min():.1f}–{c * ratio.max():.1f}× |")
    return lines


def rob_tables_lines(df: pd.DataFrame, it: dict) -> list[str]:
    lines: list[str] = []
    for h in sorted(ROBUST_TABLES, reverse=True):
        rf = robust_frame(df, h)
        if rf.empty:
            continue
        t1, t2 = ROBUST_TABLES[h]
        lines += [f"### Holdout {_holdout_name(h)} (Tables {t1}-{t2})", "",
                  "| Dataset | rho | ours p=1,2 | ours p=inf | paper p=1 | paper p=2 | paper p=inf |",
                  "|---|---|---|---|---|---|---|"]
        for name, r in rf.groupby("dataset", sort=False):
            bests = {c: (r[c].idxmin() if np.isfinite(r[c]).any() else None)
                     for c in ("p2", "pinf", "paper_p1", "paper_p2", "paper_pinf")}
            for i, x in r.iterrows():
                cells = []
                for c in ("p2", "pinf", "paper_p1", "paper_p2", "paper_pinf"):
                    s = _pct(x[c]) if c in ("p2", "pinf") else _ppct(x[c])
                    cells.append(f"**{s}**" if bests[c] == i and s != "-" else s)
                lines.append(f"| {name} | {x.rho:.0e} | {' | '.join(cells)} |")
        rs = robust_summary(df, h)
        lines += ["", render(it["rob_summary_caption"], {"holdout": _holdout_name(h)}), "",
                  "| Dataset | config | reps | det. ours | det. paper | ours p=1,2 | ours p=inf | paper p=1 "
                  "| paper p=2 | paper p=inf | honest p=1,2 | honest p=inf |",
                  "|---|---|---|---|---|---|---|---|---|---|---|---|"]

        def best_cell(v, paper=False):
            if not np.isfinite(v[0]):
                return "-"
            return f"{_ppct(v[0]) if paper else _pct(v[0])} ({v[1]:.0e})"

        for r in rs.itertuples():
            lines.append(f"| {r.dataset} | {r.config} | {r.reps} | {_fmt(*r.det)} | {_ppct(r.det_paper)} | "
                         f"{best_cell(r.p2_best)} | {best_cell(r.pinf_best)} | {best_cell(r.paper_p1_best, True)} | "
                         f"{best_cell(r.paper_p2_best, True)} | {best_cell(r.paper_pinf_best, True)} | "
                         f"{_fmt(*r.p2_honest)} | {_fmt(*r.pinf_honest)} |")
        lines.append("")
    return lines


def failed_lines(df: pd.DataFrame) -> list[str]:
    status = df[(df.status != "ok") | ~np.isfinite(df.test_error.astype(float))]
    if status.empty:
        return []
    lines = ["| Holdout | Dataset | configuration | model | status | fits |", "|---|---|---|---|---|---|"]
    for (h, ds, t, k, m, st), g in _order(status).groupby(["holdout", "dataset", "transform", "kernel", "model",
                                                           "status"], sort=False):
        lines.append(f"| {_holdout_name(h)} | {ds} | {t} / {k} | {m} | `{st}` | {len(g)} |")
    return lines


# ------------------------------------------------------------------------------------------ the report
def _bullets(items: Sequence[str]) -> str:
    return "\n".join("* " + x.replace("\n", "\n  ") for x in items)


def report_values(df: pd.DataFrame, abl: pd.DataFrame | None = None, *, command: str, store: str,
                  run_note: str = "") -> dict[str, str]:
    """Every value of the report template: computed from the results ``df`` (:func:`read_results`), the ablation
    ``abl`` (:func:`read_ablation`) and the paper's tables."""
    it = load_items(f"{MODULE_NAME}_items")
    df = _prepare(df) if len(df) else _prepare(pd.DataFrame(columns=[*RESULT_KEY, "test_error"]))
    abl = abl if abl is not None else pd.DataFrame()
    setup = paper_setup()
    c = int(setup["cores"])
    t3 = table3_frame(df) if len(df) else pd.DataFrame()
    dt = deterministic_frame(df) if len(df) else pd.DataFrame(columns=DET_COLUMNS)
    best = best_configurations(dt) if len(dt) else pd.DataFrame()
    missing = it["not_in_results"]
    nr = _not_reproduced(df, t3, dt, best, abl, it) if len(df) else []
    summary = _summary(df, t3, dt, best, it, len(nr)) if len(df) else [missing]
    table = _summary_table(df, best) if len(df) else []
    dash = _dash_counts(dt, best) if len(best) else None
    summary_text = _bullets(summary)
    if table:
        summary_text += "\n\n" + it["summary_holdouts"] + "\n\n" + "\n".join(table)
    if dash:
        summary_text += "\n\n" + _bullets([render(it["summary_dash"], dash)])
    f3 = _table3_items(df, t3, abl, it) if len(t3) else []
    fall = _all_items(df, dt, best, it) if len(df) else []
    nus = np.asarray(NU_GRID, dtype=float)
    fails = failed_lines(df) if len(df) else []
    return {
        "run_note": run_note, "command": command, "store": store,
        "regen": (it["regen_committed"] if store == _store_name(RESULTS)
                  else render(it["regen_other"], {"store": store})),
        "n_nu": len(nus), "nu_min": f"{nus.min():.0e}", "nu_max": f"{nus.max():.0e}", "n_rho": len(RHO_GRID),
        "rho_min": f"{RHO_GRID.min():.0e}", "rho_max": f"{RHO_GRID.max():.0e}",
        "grid_points": f"{int(setup['grid_points']):,}", "inner_pct": f"{100 * INNER_FRACTION:g} %",
        "max_k": f"{MAX_ABS_K:.0e}",
        "paper_runs": setup["runs"], "paper_cores": c, "bound_lo": "×1", "paper_machine": setup["machine"],
        "efficiency_cores": setup["efficiency_cores"], "n_fits": f"{len(df):,}",
        "summary": summary_text,
        "not_reproduced": _bullets(nr) if nr else it["nothing_below"],
        "findings_table3": _bullets(f3) if f3 else missing,
        "findings_all": _bullets(fall) if fall else missing,
        "contents": "\n".join(coverage_lines(df)) if len(df) else missing,
        "table3": "\n".join(table3_lines(t3)) if len(t3) else missing,
        "honest_table": "\n".join(honest_lines(t3)) if len(t3) else missing,
        "cpu_table": "\n".join(cpu_lines(t3)) if len(t3) else missing,
        "det_tables": "\n".join(det_tables_lines(dt, best)).rstrip() if len(best) else missing,
        "best_table": "\n".join(best_lines(best)) if len(best) else missing,
        "det_cpu_table": "\n".join(det_cpu_lines(dt, best)) if len(best) else missing,
        "rob_tables": "\n".join(rob_tables_lines(df, it)).rstrip() or missing,
        "failed": "\n".join(fails) if fails else it["no_failures"],
    }


def build_report(df: pd.DataFrame, abl: pd.DataFrame | None = None, *, command: str, store: str,
                 run_note: str = "", figures_section: str | None = None) -> str:
    """The Markdown report (template ``templates/robust.md``); ``figures_section`` (starting with
    "## Figures") is appended as given."""
    text = render(load_template(MODULE_NAME), report_values(df, abl, command=command, store=store,
                                                            run_note=run_note))
    text = re.sub(r"\n{3,}", "\n\n", text).rstrip("\n") + "\n"
    if figures_section:
        text += "\n" + figures_section.strip("\n") + "\n"
    return text


FIGURES_KEEP = "keep"


def _store_name(results: Path) -> str:
    try:
        return str(Path(results).resolve().relative_to(ROOT.parent))
    except ValueError:
        return str(results)


def write_report(results: str | Path, out_dir: str | Path, *, figures: Any = FIGURES_KEEP, intro: str = "",
                 command: str = f"python -m reproductions {MODULE_NAME} --report-only",
                 run_note: str = "") -> Path:
    """Write ``out_dir/robust.md`` from the whole store ``results``. ``figures``: ``"keep"`` (the existing
    report's Figures section, none if it has none), ``None`` (no matplotlib: the one-line note) or ``[(file,
    caption)]``."""
    from reproductions.figures import figures_markdown

    path = Path(out_dir) / f"{MODULE_NAME}.md"
    if isinstance(figures, str) and figures == FIGURES_KEEP:
        section = figures_section(path.read_text()) if path.exists() else None
    else:
        section = figures_markdown(figures, intro=intro)
    text = build_report(read_results(results), read_ablation(results), command=command,
                        store=_store_name(Path(results)), run_note=run_note, figures_section=section)
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(text)
    return path


def build_parser() -> argparse.ArgumentParser:
    ap = protocol_parser(MODULE_NAME, __doc__,
                         quick_help="75-25 only, 2 repetitions, Table 3 configurations; Figure 5 with 3 reps x 13 rho",
                         seed_help="seed of the toy data of Figures 1 and 3 (the protocol's splits are seeded by "
                                   "dataset, holdout and repetition)",
                         jobs_help="worker processes (parallel_map; -1 = all cores)")
    ap.add_argument("--reps", type=int, default=None, help="repetitions per cell (default 96, quick 2)")
    ap.add_argument("--holdouts", type=int, nargs="+", default=None, help="training percentages (default 75)")
    ap.add_argument("--datasets", nargs="+", default=None, help="paper names, e.g. Parkinson 'Heart Disease'")
    ap.add_argument("--mode", default="table3", choices=[*MODES, "ablation"],
                    help="what to run: Table 3's configurations (default), Tables 9-14's per holdout, all 21 "
                         "deterministic ones (Tables 6-8), or the line-search / class-orientation ablation")
    ap.add_argument("--no-honest", action="store_true")
    ap.add_argument("--line-search", default="grid", choices=["grid", "exact", "exact_decision"])
    add_figure_arguments(ap)
    ap.add_argument("--fig-reps", type=int, default=None, help="Figure 5 repetitions per holdout (default 10, quick 3)")
    ap.add_argument("--n-rho", type=int, default=None, help="Figure 5 rho values (default 60 as the paper, quick 13)")
    return ap


def main(argv: Sequence[str] | None = None) -> int:
    from reproductions.figures import figures_markdown, have_matplotlib, write_figures_section

    ap = build_parser()
    args = ap.parse_args(argv)
    check_protocol_arguments(ap, args)
    out_dir = Path(args.out)
    results = results_dir(args)
    if args.report_only:
        if args.figures_only:
            ap.error("--report-only and --figures-only exclude each other")
        path = write_report(results, out_dir)
        print(f"wrote {path} from {results}")
        return 0
    for name in ("reps", "fig_reps"):
        v = getattr(args, name)
        if v is not None and v < 1:
            ap.error(f"--{name.replace('_', '-')} must be >= 1")
    if args.n_rho is not None and args.n_rho < 2:
        ap.error("--n-rho must be >= 2")
    report = out_dir / f"{MODULE_NAME}.md"
    reps = args.reps or (2 if args.quick else 96)
    holdouts = args.holdouts or [75]
    fig_reps = args.fig_reps or (3 if args.quick else 10)
    n_rho = args.n_rho or (13 if args.quick else 60)
    ps = (2.0,) if args.quick else (2.0, np.inf)
    t0 = time.time()
    figures: Any = FIGURES_KEEP
    if not args.no_figures:
        if have_matplotlib():
            figures = write_figures(out_dir, seed=args.seed, fig_reps=fig_reps, n_rho=n_rho, ps=ps,
                                    n_jobs=args.jobs, verbose=True, dpi=args.dpi)
        else:
            figures = None
    flag = "--quick" if args.quick else "--figures-only" if args.figures_only else f"--mode {args.mode}"
    intro = f"Generated by `python -m reproductions {MODULE_NAME} {flag} --fig-reps {fig_reps} --n-rho {n_rho}`."
    if args.figures_only:
        write_figures_section(report, figures_markdown(None if figures is None else figures,
                                                       intro=intro + " The tables above are not recomputed."))
        print(f"wrote the figures into {report} ({time.time() - t0:.0f} s)")
        return 0
    try:
        if args.mode == "ablation":
            df = run_ablation(datasets=args.datasets, reps=reps, n_jobs=args.jobs)
        else:
            df = run_protocol(datasets=args.datasets, holdouts=holdouts, reps=reps, mode=args.mode, n_jobs=args.jobs,
                              honest=not args.no_honest, line_search=args.line_search)
    except ValueError as exc:
        ap.error(str(exc))
    table = store_results(df, args.mode, results)
    note = "" if not args.quick else (
        f"Quick run: {reps} repetitions per cell, holdouts {', '.join(map(str, holdouts))}, mode {args.mode}; "
        "the report covers the whole results store of this run.")
    command = f"python -m reproductions {name}" + (" --quick" if args.quick else "") + f" --mode {args.mode}"
    write_report(results, out_dir, figures=figures, intro=intro, command=command, run_note=note)
    print(f"appended {len(df)} rows to {table.path}; wrote {report} ({time.time() - t0:.0f} s)")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
