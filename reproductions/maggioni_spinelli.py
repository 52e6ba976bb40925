"""Reproduction protocol of Maggioni & Spinelli (paper 000), spec 000 section 4.

Repeated stratified holdout (spec 4.3 size rule, splits seeded by (dataset, holdout, rep): common random
numbers across kernels, transformations, p and rho), transformations fitted on the training split
((28) min-max, (29) standardisation, ddof = 1, denominator 1 for a constant feature: I11), kernel parameters
``c = alpha = max_j std_j`` of the transformed training split, the nu grid ``logspace(-3, 0, 5)`` selected by
(robust) training error, and the robust model with ``p in {1, 2, inf}`` and ``rho in {1e-7, ..., 1e-1}``
(``eta_class = rho * max_j std_{j,class}``). ``p = 1`` and ``p = 2`` are the same model (C = 1), so p = 2 is
computed once and reported for both (I12).

Paper mode (defaults): the grid line search of 10^4 points on the printed interval (I1, I5).

Selections (I14): the paper picks the best configuration and the best rho on the mean *test* error of the
same runs it reports (optimistic). We reproduce that, and add an honest variant that picks rho on an inner
stratified validation split (25 % of each training set, same size rule) and reports the test error of the
model refitted on the whole training set with that rho.

Figures (written as PNG beside the report and embedded in it; :mod:`svmopt.plotting`):

* Figure 1 -- the deterministic surfaces S, S_A, S_B on a 2-D toy set for the four kernels of Section 4.1
  (hom. linear, hom. quadratic, inhom. quadratic c = 0.3, RBF alpha = 1.9; nu = 1). The paper's toy data are not
  published (spec section 3, "Toy example"): :func:`toy_data` draws a compact class A (black) inside a wider,
  overlapping class B. S_A and S_B are drawn as printed, and in a second figure mirrored about gamma as spec I1
  corrects them (:func:`svmopt.plotting.shifted_levels`).
* Figure 3 -- the robust surfaces on the same data, inhom. quadratic and RBF, p = 2 and p = inf,
  eta = 0.01 on A and 0.03 on B.
* Figure 5 -- Parkinson (its Table 3 configuration), test error against rho on a log grid between 1e-7 and 1e-1
  (the paper: 60 values) for the three holdouts, overall with the deterministic error as a horizontal line, and
  per class. The paper does not state p (spec 4.7): we draw p = 2 (= p = 1) and, in full mode, p = inf too.
  Same splits as the tables (seeded by dataset, holdout, repetition).

Usage (the shared convention of ``svmopt reproduce``)::

    python -m reproductions maggioni-spinelli --quick --out DIR   # minutes: DIR/maggioni_spinelli.md + PNGs
    python -m reproductions maggioni-spinelli --reps 96 --jobs 2  # Table 3 with the paper's 96 reps
    python -m reproductions maggioni-spinelli --figures-only      # only the figures, into an existing report
    python -m reproductions maggioni-spinelli --mode deterministic --holdouts 75 50 25 --results det.csv.gz
    python -m reproductions maggioni-spinelli --mode robust --holdouts 50 25 --results rob.csv.gz
    python -m reproductions maggioni-spinelli --from-results docs/reproductions/maggioni_spinelli_*.csv.gz

Modes (:func:`run_protocol`): ``table3`` -- the Table 3 configuration of each dataset; ``robust`` -- per holdout the
configuration of Tables 9-14 (``ROBUST_CONFIGS``), deterministic + robust + honest; ``deterministic`` -- all 21
configurations, deterministic only (Tables 6-8). ``--from-results`` writes the report from saved raw results without
running anything (any mix of datasets, holdouts and modes; fits present in two files are counted once), keeps the
Figures section of the existing report and puts the hand-written findings (``data/maggioni_spinelli_findings.md``)
under "Findings". The paper's numbers (Table 3, Tables 6-14) are package data, ``data/maggioni_spinelli_paper.csv``
(:func:`paper_tables`), written by ``tools/extract_maggioni_tables.py`` from the spec; :func:`save_results` stores a
results frame as ``docs/reproductions/maggioni_spinelli_<name>.csv.gz``.

CPU time: process CPU seconds per configuration summed over the repetitions (Gram, LPs, line searches and
prediction; BLAS/OpenMP limited to one thread per worker). The paper's "CPU time" is wall-clock of a
96-run ``parfor`` on 8 M1 cores, so paper core-seconds ~ 8 x its number.
"""

from __future__ import annotations

import argparse
import functools
import io
import os
import time
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np
import pandas as pd

from reproductions import TABLES, TEMPLATES
from reproductions._cli import add_figure_arguments, check_protocol_arguments, protocol_parser
from reproductions._parallel import parallel_map
from svmopt.exceptions import SolverError
from svmopt.kernels import Kernel
from svmopt.model_selection import split_seed, stratified_holdout_indices
from svmopt.robust_svc import NU_GRID, eta_from_rho, fit_binary, robust_delta

__all__ = [
    "DATASETS",
    "KERNELS",
    "RHO_GRID",
    "ROBUST_CONFIGS",
    "TABLE3",
    "TABLES_9_10",
    "best_configurations",
    "deterministic_frame",
    "figure1",
    "figure3",
    "figure5",
    "findings_text",
    "load_results",
    "main",
    "paper_tables",
    "report_from_results",
    "rho_sensitivity",
    "robust_frame",
    "robust_summary",
    "run_protocol",
    "run_split",
    "save_results",
    "toy_data",
    "transform",
    "write_figures",
    "write_report",
]

MODULE_NAME = "maggioni_spinelli"

RHO_GRID = np.logspace(-7, -1, 7)
MAX_ABS_K = 1e15  # spec I13: a cell is "-" if max|K| exceeds this

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

# The paper's printed numbers (Table 3 and Appendix-B Tables 6-14), one row per cell, as package data written by
# tools/extract_maggioni_tables.py from the spec's transcription: table, holdout, dataset, transform, kernel,
# model (det/rob), p (1, 2, inf; NaN for det), rho (NaN for det and Table 3), error_pct, sd (a proportion, spec 4.8),
# cpu_s, marks ("B", "U", "B,U" or ""), printed (the raw cell text).
PAPER_CSV = "maggioni_spinelli_paper.csv"
FINDINGS_MD = "maggioni_spinelli_findings.md"
DET_TABLES = {75: 6, 50: 7, 25: 8}
ROBUST_TABLES = {75: (9, 10), 50: (11, 12), 25: (13, 14)}


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

    A zero denominator (constant feature in the training split) is replaced by 1 (spec I11).
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


def _kernel(name: str, X_train: np.ndarray) -> Kernel:
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
    flip_labels: bool = False  # ablation of I17: fit with the other class as A (+1), same splits


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
        kern = _kernel(kname, Xtr)
        try:
            K = kern.gram(Xtr)
            if not np.all(np.isfinite(K)) or np.abs(K).max() > MAX_ABS_K:
                raise SolverError(f"max|K| = {np.abs(K).max():.3g} > {MAX_ABS_K:g} (spec I13)", "Kernel overflow")
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
            itr, iva = stratified_holdout_indices(ytr, 0.25, inner_seed)
            Xitr, Xiva = Xtr[itr], Xtr[iva]
            kin = _kernel(kname, Xitr)  # c / alpha from the inner training data, as in the outer protocol
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
    from svmopt.robust_svc import RobustSVC

    return RobustSVC(nu=1.0, line_search="grid", **params).fit(X, y)


def figure1(X: np.ndarray, y: np.ndarray, surfaces: str = "paper"):
    """Figure 1: deterministic S, S_A, S_B for the four kernels of Section 4.1 (nu = 1, grid line search);
    ``surfaces="corrected"`` draws the mirrored S_A, S_B of spec I1 (:func:`svmopt.plotting.shifted_levels`)."""
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
    kern = _kernel(cfg["kernel"], Xtr)
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
    """Data of Figure 5 (spec 4.7): per (holdout, repetition), the deterministic model and the robust model for
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
                    "Figure 1 with the corrected surfaces of spec I1 (S_A: f = gamma + 1 - omega_A, S_B: f = gamma - 1 "
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


# ------------------------------------------------------------------------------------------ raw results files
RESULT_KEY = ["dataset", "holdout", "rep", "transform", "kernel", "model", "p", "rho"]
EXACT_COLUMNS = ("test_error", "train_error", "val_error")


def save_results(df: pd.DataFrame, name: str, directory: str | Path = "docs/reproductions") -> Path:
    """Write a results frame (``run_protocol``'s rows) as ``<directory>/maggioni_spinelli_<name>.csv.gz``: floats
    to 6 significant digits, except the error rates (``EXACT_COLUMNS``: ratios k/n, written exactly so that the
    report's means -- and their ties at the printed 2 decimals -- do not move), gzip without a time stamp (the
    same results give the same bytes). Read it back with :func:`load_results`."""
    path = Path(directory) / f"{MODULE_NAME}_{name}.csv.gz"
    path.parent.mkdir(parents=True, exist_ok=True)
    out = df.copy()
    for col in EXACT_COLUMNS:
        if col in out:
            vals = pd.to_numeric(out[col], errors="coerce").astype(float)
            out[col] = ["" if np.isnan(v) else repr(float(v)) for v in vals]
    out.to_csv(path, index=False, float_format="%.6g", compression={"method": "gzip", "mtime": 0})
    return path


def load_results(paths: str | Path | Sequence[str | Path]) -> pd.DataFrame:
    """Concatenate raw results CSVs (plain or ``.gz``; written by ``--results`` or :func:`save_results`)."""
    if isinstance(paths, (str, Path)):
        paths = [paths]
    frames = [pd.read_csv(p) for p in paths]
    if not frames:
        raise ValueError("no results files given")
    return pd.concat(frames, ignore_index=True, sort=False)


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
               "det_cpu": det.cpu.sum() * 96.0 / max(n_rep, 1), "det_cpu_paper": paper["cpu"][0]}
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
            row[col + "_cpu"] = rp[rp.rho == best_rho].cpu.sum() * 96.0 / max(n_rep, 1)
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
    error and sd (proportions; NaN -- a "-" cell -- if any repetition failed, spec I13), repetitions, failed fits,
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
                     "cpu96": g.cpu.sum() * 96.0 / max(reps, 1)})
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


def coverage_lines(df: pd.DataFrame) -> list[str]:
    """What the results contain, per holdout and dataset: deterministic configurations and repetitions, robust
    configurations, repetitions and whether the honest variant was computed."""
    df = _prepare(df)
    lines = ["| Holdout | Dataset | det. configurations | det. reps | robust configuration(s) | robust reps | honest |",
             "|---|---|---|---|---|---|---|"]
    for (h, name), g in _order(df).groupby(["holdout", "dataset"], sort=False):
        det, rob = g[g.model == "det"], g[g.model == "rob"]
        rc = sorted({f"{t} / {k}" for t, k in zip(rob["transform"], rob["kernel"], strict=True)})
        lines.append(f"| {_holdout_name(h)} | {name} | {len(det.groupby(['transform', 'kernel']))} | "
                     f"{det.rep.nunique()} | {'; '.join(rc) or '-'} | {rob.rep.nunique() if len(rob) else '-'} | "
                     f"{'yes' if rob.val_error.notna().any() else 'no'} |")
    return lines


def _summary_lines(df: pd.DataFrame, t3: pd.DataFrame, dt: pd.DataFrame, best: pd.DataFrame) -> list[str]:
    lines = ["## Summary", "",
             "Counted from the tables below (points = percentage points of mean test error; a cell compares our mean "
             "over the repetitions with the printed mean).", ""]
    if len(t3):
        d = (100 * t3.det.map(lambda v: v[0]) - t3.det_paper).abs()
        s = f"* **Table 3** (75 %-25 %, the paper's configuration): deterministic within 1 point of the paper on " \
            f"{int((d <= 1).sum())} of {len(t3)} datasets, within 2 points on {int((d <= 2).sum())}"
        parts = []
        for col, lab in (("p1", "p=1"), ("p2", "p=2"), ("pinf", "p=inf")):
            if col in t3:
                v = t3[col].map(lambda x: x[0] if isinstance(x, tuple) else np.nan)
                dd = (100 * v - t3[col + "_paper"]).abs()
                parts.append(f"{lab} {int((dd <= 1).sum())}/{int(dd.notna().sum())}")
        if parts:
            s += "; robust (test-selected rho) within 1 point: " + ", ".join(parts)
        lines += [s + ".", ""]
    holdouts = sorted(set(df.holdout), reverse=True)
    rows = []
    for h in holdouts:
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
        rows.append(
            f"| {_holdout_name(h)} | {det_cells} | "
            f"{f'{sp.median():.2f} ({sp.min():.2f} to {sp.max():.2f})' if len(sp) else '-'} | "
            f"{rob_cells} |")
    if rows:
        lines += ["Tables 6-8 (deterministic, every configuration run) and Tables 9-14 (robust, each rho; ours p=1,2 "
                  "against the paper's p=1 and p=2 columns, ours p=inf against p=inf):", "",
                  "| Holdout | datasets (Tables 6-8) | det. cells compared | within 1 point | within 2 points "
                  "| best configuration = paper's [B] | Spearman r of the configurations: median (range) "
                  "| robust cells compared | within 1 point | within 2 points |",
                  "|---|---|---|---|---|---|---|---|---|---|", *rows, ""]
    if len(best):
        dt = dt[dt.set_index(["holdout", "dataset"]).index.isin(list(zip(best.holdout, best.dataset, strict=True)))]
        both_dash = int((dt.paper_error.isna() & dt.error.isna()).sum())
        lines += [f"* \"-\" cells: {int(dt.paper_error.isna().sum())} in the paper's Tables 6-8 among the "
                  f"configurations we ran, {int(dt.error.isna().sum())} of ours (a failed fit in some repetition, "
                  f"see \"Failed fits\"), {both_dash} in both.", ""]
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
        lines.append(f"| {name} | {t} | {int(r.reps.max())} | {' | '.join(cells)} |")
    return lines


def _det_sections(dt: pd.DataFrame, best: pd.DataFrame) -> list[str]:
    lines = ["## Tables 6-8 (deterministic model, every configuration): mean test error, ours / paper", ""]
    if not len(best):
        return [*lines, "Not in these results (run `run_protocol(mode=\"deterministic\")`).", ""]
    lines += ["Cells: our mean % ± sd (a proportion, as the paper prints it) / the paper's mean %; **bold** = our best "
              "configuration of the dataset, [B] = the paper's (bold in Tables 6-8); \"-\" = a failed fit in some "
              "repetition (ours, see \"Failed fits\") or not reported (paper); n/a = not run. Both pick the best "
              "configuration on the mean test error of the reported runs (spec I14).", ""]
    for h in sorted(set(best.holdout), reverse=True):
        lines += [f"### Holdout {_holdout_name(h)} (Table {DET_TABLES.get(h, '?')})", ""]
        lines += [*_det_table_lines(dt, best, h), ""]
    lines += ["### Best configuration per dataset and holdout: ours vs the paper's [B]", "",
              "Spearman r: rank correlation of our and the paper's mean errors over the configurations both have a "
              "number for (n = compared cells).", "",
              "| Holdout | Dataset | reps | our best | ours | paper's best [B] | paper | same | ours at paper's best "
              "| paper at our best | Spearman r (n) | within 1 / 2 points |",
              "|---|---|---|---|---|---|---|---|---|---|---|---|"]
    for r in best.itertuples():
        sp = "-" if np.isnan(r.spearman) else f"{r.spearman:.2f}"
        lines.append(f"| {_holdout_name(r.holdout)} | {r.dataset} | {r.reps} | {_cfg(r.ours_best)} | "
                     f"{_pct(r.ours_error)} | {_cfg(r.paper_best)} | {_ppct(r.paper_error)} | "
                     f"{'yes' if r.match else 'no'} | {_pct(r.ours_at_paper_best)} | {_ppct(r.paper_at_ours_best)} | "
                     f"{sp} ({r.compared}) | {r.within1} / {r.within2} of {r.compared} |")
    lines += ["", "### CPU time of the deterministic cells: ours vs paper", "",
              "Ours: process CPU seconds of a configuration summed over its repetitions and scaled to 96 runs; paper: "
              "8 × the printed time (wall-clock of a 96-run parfor on 8 cores ≈ core-seconds). Ratio = paper / ours "
              "(> 1: we use less CPU), summarised over the configurations of the dataset that both have and where none "
              "of our fits failed.", "",
              "| Holdout | Dataset | configs | ours median (s) | paper ×8 median (s) | ratio median | ratio min-max |",
              "|---|---|---|---|---|---|---|"]
    for (h, name), g in dt[dt.set_index(["holdout", "dataset"]).index.isin(
            list(zip(best.holdout, best.dataset, strict=True)))].groupby(["holdout", "dataset"], sort=False):
        g = g[np.isfinite(g.paper_cpu) & (g.cpu96 > 0) & (g.failed == 0)]  # a failed fit stops early: not timed
        if g.empty:
            continue
        ratio = 8 * g.paper_cpu / g.cpu96
        lines.append(f"| {_holdout_name(h)} | {name} | {len(g)} | {g.cpu96.median():.2f} | "
                     f"{8 * g.paper_cpu.median():.1f} | {ratio.median():.1f} | {ratio.min():.1f}-{ratio.max():.1f} |")
    return [*lines, ""]


def _rob_sections(df: pd.DataFrame) -> list[str]:
    lines = ["## Tables 9-14 (robust model): mean test error per rho, ours vs paper", "",
             "Configuration per dataset and holdout as in the paper's Tables 9-14 (its best deterministic one of that "
             "holdout). Ours: p = 2 (identical to p = 1) and p = inf on the common splits; paper: p = 1 / p = 2 / "
             "p = inf. **Bold**: the best rho of each column (smallest mean test error, the paper's selection); \"-\": "
             "a failed fit in some repetition (ours) or not printed (paper).", ""]
    found = False
    for h in sorted(ROBUST_TABLES, reverse=True):
        rf = robust_frame(df, h)
        if rf.empty:
            continue
        found = True
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
        lines += ["", f"Best rho per column and the honest variant (holdout {_holdout_name(h)}): error (rho). Honest: "
                      "rho chosen per repetition on an inner validation split, test error of that choice.", "",
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
    if not found:
        lines += ["Not in these results (run `run_protocol(mode=\"robust\")`).", ""]
    return lines


def _failed_lines(df: pd.DataFrame) -> list[str]:
    status = df[(df.status != "ok") | ~np.isfinite(df.test_error.astype(float))]
    lines = ["## Failed fits", ""]
    if status.empty:
        return [*lines, "None."]
    lines += ["A deterministic failure makes its cell \"-\" in Tables 6-8 (spec I13); the robust fits of that "
              "repetition are then not attempted.", "",
              "| Holdout | Dataset | configuration | model | status | fits |", "|---|---|---|---|---|---|"]
    for (h, ds, t, k, m, st), g in _order(status).groupby(["holdout", "dataset", "transform", "kernel", "model",
                                                           "status"], sort=False):
        lines.append(f"| {_holdout_name(h)} | {ds} | {t} / {k} | {m} | `{st}` | {len(g)} |")
    return lines


def findings_text() -> str:
    """The hand-written findings of the committed report (package data ``FINDINGS_MD``)."""
    return _data_text(FINDINGS_MD)


def write_report(df: pd.DataFrame, path: str | Path, *, elapsed: float | None = None, note: str = "",
                 figures: Sequence[tuple[str, str]] = (), findings: str | None = None) -> Path:
    """Write the Markdown report (``<out>/maggioni_spinelli.md``) from the protocol's results, embedding
    ``figures`` = ``[(PNG file name relative to the report, caption)]`` in a "Figures" section.

    ``df`` may hold any subset of (dataset, holdout, mode) -- e.g. the Table 3 run, the deterministic run and the
    robust runs concatenated (:func:`load_results`); duplicate fits are kept once. ``findings``: Markdown put
    under "## Findings" (e.g. :func:`findings_text`)."""
    path = Path(path)
    path.parent.mkdir(parents=True, exist_ok=True)
    df = _prepare(df)
    t3 = table3_frame(df)
    dt = deterministic_frame(df)
    best = best_configurations(dt)
    lines = [
        "# Reproduction: Maggioni & Spinelli, robust nonlinear SVM (paper 000)",
        "",
        "Generated by `python -m reproductions maggioni-spinelli`. Protocol: spec 000 section 4 — stratified",
        "holdout by the spec's size rule with common random numbers (split r of a dataset/holdout is shared by every",
        "configuration, p and rho), transformations fitted on the training split, c = alpha = max feature std",
        "(ddof = 1) of the transformed training split, nu in logspace(-3, 0, 5) chosen by (robust) training error,",
        "rho in {1e-7, ..., 1e-1}, eta_class = rho * max_j std_{j,class}; paper mode: grid line search of 10^4",
        "points on the printed interval. p = 1 and p = 2 are the same model (C(n,1) = C(n,2) = 1): computed once",
        "and reported in both columns; the paper's p = 1 / p = 2 differences come from its unseeded splits.",
        "",
        "**Selection caveat (spec I14).** Like the paper, the robust columns take, per p, the rho with the smallest",
        "mean *test* error over the same runs (optimistic). The *honest* columns pick rho per repetition on an inner",
        "stratified validation split (25 % of the training set) and report the test error of that rho.",
        "",
        f"{note}",
        "",
    ]
    lines += _summary_lines(df, t3, dt, best)
    if findings:
        lines += ["## Findings", "", findings.strip(), ""]
    lines += ["## Contents of these results", "", *coverage_lines(df), ""]
    lines += [
        "## Table 3 (holdout 75 %-25 %): mean test error ± sd (sd as a proportion, as printed in the paper)",
        "",
        "| Dataset | config | reps | Det. ours | Det. paper | p=1 ours | p=1 paper | p=2 ours | p=2 paper "
        "| p=inf ours | p=inf paper | best rho (p=2 / inf) |",
        "|---|---|---|---|---|---|---|---|---|---|---|---|",
    ]
    for _, r in t3.iterrows():
        def cell(key, r=r):
            return _cell(r, key)
        lines.append(
            f"| {r.Dataset} | {r.config} | {r.reps} | {cell('det')} | {r.det_paper:.2f}% | {cell('p1')} | "
            f"{r.get('p1_paper', float('nan')):.2f}% | {cell('p2')} | {r.get('p2_paper', float('nan')):.2f}% | "
            f"{cell('pinf')} | {r.get('pinf_paper', float('nan')):.2f}% | "
            f"{r.get('p2_rho', float('nan')):.0e} / {r.get('pinf_rho', float('nan')):.0e} |")
    lines += ["", "### Honest variant: rho chosen on inner validation (per repetition)", "",
              "| Dataset | Det. ours | p=2 (= p=1) honest | p=inf honest | p=2 test-selected | p=inf test-selected |",
              "|---|---|---|---|---|---|"]
    for _, r in t3.iterrows():
        def cell(key, r=r):
            return _cell(r, key)
        lines.append(f"| {r.Dataset} | {cell('det')} | {cell('p2_honest')} | {cell('pinf_honest')} | {cell('p2')} "
                     f"| {cell('pinf')} |")
    lines += ["", "### CPU time per cell: ours (process CPU seconds, scaled to 96 runs) vs paper", "",
              "The paper's time is wall-clock of a 96-run parfor on 8 Apple M1 cores; paper core-seconds ≈ 8 × "
              "printed time. Ratio = paper core-seconds / our core-seconds (> 1: we are faster).", "",
              "| Dataset | Det. ours (s) | Det. paper ×8 (s) | ratio | p=inf ours (s, one rho) | p=inf paper ×8 (s) "
              "| ratio |", "|---|---|---|---|---|---|---|"]
    for _, r in t3.iterrows():
        pc = r.get("pinf_cpu", float("nan"))
        pp = 8 * r.get("pinf_cpu_paper", float("nan"))
        dp = 8 * r.det_cpu_paper
        lines.append(f"| {r.Dataset} | {r.det_cpu:.2f} | {dp:.1f} | {dp / r.det_cpu:.1f} | {pc:.2f} | {pp:.1f} "
                     f"| {pp / pc:.1f} |")
    lines += ["", *_det_sections(dt, best), *_rob_sections(df), *_failed_lines(df)]
    if elapsed is not None:
        lines += ["", f"Total wall time of this run: {elapsed:.0f} s."]
    if figures:
        from reproductions.figures import figures_markdown

        lines += ["", figures_markdown(figures)]
    path.write_text("\n".join(lines) + "\n")
    return path


def _figures_section(text: str) -> str | None:
    """The "## Figures" section of a report (up to the next level-2 heading), or None."""
    from reproductions.figures import FIGURES_HEADING

    lines = text.split("\n")
    start = next((i for i, ln in enumerate(lines) if ln.strip() == FIGURES_HEADING), None)
    if start is None:
        return None
    end = next((j for j in range(start + 1, len(lines)) if lines[j].startswith("## ")), len(lines))
    return "\n".join(lines[start:end]).rstrip("\n") + "\n"


def report_from_results(paths: Sequence[str | Path], report: str | Path, *, findings: str | None = None,
                        keep_figures: bool = True) -> Path:
    """Regenerate the report from saved raw results (concatenated); the "## Figures" section of an existing report
    at ``report`` is kept (the figures are not recomputed)."""
    from reproductions.figures import write_figures_section

    report = Path(report)
    old = _figures_section(report.read_text()) if keep_figures and report.exists() else None
    df = load_results(paths)
    note = "Regenerated from saved raw results: " + ", ".join(f"`{Path(p).name}`" for p in paths) + \
        f" ({len(df)} fits); the contents per holdout and dataset are listed below."
    write_report(df, report, note=note, findings=findings)
    if old:
        write_figures_section(report, old)
    return report


def build_parser() -> argparse.ArgumentParser:
    ap = protocol_parser(MODULE_NAME, __doc__,
                         quick_help="75-25 only, 2 repetitions, Table 3 configurations; Figure 5 with 3 reps x 13 rho",
                         seed_help="seed of the toy data of Figures 1 and 3 (the protocol's splits are seeded by "
                                   "dataset, holdout and repetition)",
                         jobs_help="worker processes (svmopt.distributed.parallel_map; -1 = all cores)")
    ap.add_argument("--reps", type=int, default=None, help="repetitions per cell (default 96, quick 2)")
    ap.add_argument("--holdouts", type=int, nargs="+", default=None, help="training percentages (default 75)")
    ap.add_argument("--datasets", nargs="+", default=None, help="paper names, e.g. Parkinson 'Heart Disease'")
    ap.add_argument("--mode", default="table3", choices=["table3", "robust", "deterministic"],
                    help="configurations to run (run_protocol): Table 3's (default), Tables 9-14's per holdout, "
                         "or all 21 deterministic ones (Tables 6-8)")
    ap.add_argument("--no-honest", action="store_true")
    ap.add_argument("--line-search", default="grid", choices=["grid", "exact", "exact_decision"])
    ap.add_argument("--from-results", nargs="+", default=None, metavar="CSV",
                    help="do not run: write the report from these raw results files (concatenated), keeping the "
                         "Figures section of an existing report in --out")
    ap.add_argument("--findings", default=None, metavar="MD",
                    help="Markdown file for the report's Findings section (default with --from-results: the "
                         "packaged findings of the committed report; none for a fresh run)")
    ap.add_argument("--no-findings", action="store_true", help="no Findings section")
    add_figure_arguments(ap)
    ap.add_argument("--fig-reps", type=int, default=None, help="Figure 5 repetitions per holdout (default 10, quick 3)")
    ap.add_argument("--n-rho", type=int, default=None, help="Figure 5 rho values (default 60 as the paper, quick 13)")
    return ap


def main(argv: Sequence[str] | None = None) -> int:
    ap = build_parser()
    args = ap.parse_args(argv)
    check_protocol_arguments(ap, args)
    for name in ("reps", "fig_reps"):
        v = getattr(args, name)
        if v is not None and v < 1:
            ap.error(f"--{name.replace('_', '-')} must be >= 1")
    if args.n_rho is not None and args.n_rho < 2:
        ap.error("--n-rho must be >= 2")
    if args.from_results and args.figures_only:
        ap.error("--from-results and --figures-only exclude each other")
    if args.findings and args.no_findings:
        ap.error("--findings and --no-findings exclude each other")
    out_dir = Path(args.out)
    report = out_dir / f"{MODULE_NAME}.md"
    findings = None
    if args.findings:
        findings = Path(args.findings).read_text(encoding="utf-8")
    elif args.from_results and not args.no_findings:
        findings = findings_text()
    if args.from_results:
        missing = [p for p in args.from_results if not Path(p).is_file()]
        if missing:
            ap.error(f"--from-results: no such file: {', '.join(missing)}")
        report_from_results(args.from_results, report, findings=findings)
        print(f"wrote {report} from {len(args.from_results)} results file(s)")
        return 0
    reps = args.reps or (2 if args.quick else 96)
    holdouts = args.holdouts or [75]
    fig_reps = args.fig_reps or (3 if args.quick else 10)
    n_rho = args.n_rho or (13 if args.quick else 60)
    ps = (2.0,) if args.quick else (2.0, np.inf)
    t0 = time.time()
    figures: list[tuple[str, str]] = []
    if not args.no_figures:
        figures = write_figures(out_dir, seed=args.seed, fig_reps=fig_reps, n_rho=n_rho, ps=ps, n_jobs=args.jobs,
                                verbose=True, dpi=args.dpi)
    if args.figures_only:
        from reproductions.figures import figures_markdown, write_figures_section

        write_figures_section(report, figures_markdown(
            figures, intro=f"Generated by `python -m reproductions.{MODULE_NAME} --figures-only "
                           f"--fig-reps {fig_reps} --n-rho {n_rho}`; the tables above are not recomputed."))
        print(f"wrote {len(figures)} figures into {report} ({time.time() - t0:.0f} s)")
        return 0
    try:
        df = run_protocol(datasets=args.datasets, holdouts=holdouts, reps=reps, mode=args.mode, n_jobs=args.jobs,
                          honest=not args.no_honest, line_search=args.line_search)
    except ValueError as exc:
        ap.error(str(exc))
    elapsed = time.time() - t0
    if args.results:
        save_results(df, args.mode, args.results)
    note = (f"This run: {reps} repetitions per cell, holdouts {holdouts}, mode '{args.mode}', line search "
            f"'{args.line_search}'.")
    write_report(df, report, elapsed=elapsed, note=note, figures=figures, findings=findings)
    print(f"wrote {report} ({elapsed:.0f} s)")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
