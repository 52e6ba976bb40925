"""Reproduction protocol of Baldomero-Naranjo, Martinez-Merino & Rodriguez-Chia (paper 001).

The paper proposes (RL-FS-M), a ramp-loss l1-SVM with a feature budget ``B`` solved exactly (Algorithm 1 big-M
tightening + MIP) or by the kernel-search heuristic DAKS (:class:`svmopt.ramp.ramp_loss.RampLossSVC`). Two experiments:

* **Experiment 1 (Table 4).** Exact method against DAKS on the full unperturbed data of every data set, the
  smallest ``B`` of Table 3 and every ``C`` of the grid: exact time ``t_e`` and final gap, heuristic time ``t_h``
  and ``%BS = 100 (BS_h - BS_e) / BS_e`` (BS = best objective found; negative = the heuristic did better).
* **Experiment 2 (Tables 5-13, 14).** Stratified 10-fold CV with two 5 % perturbations of the training folds
  (label noise, SVM outliers); models (RL-FS-M), (FS-SVM), (Fisher-SVM), (RFE-SVM), (RL-l1-M), (SVM-l1); for
  every model and ``B`` the best ``C`` by mean test ACC (then the paper's "AUC", then time); Table 14 = relative
  improvement of (RL-FS-M) over each model (best configuration per data set, mean and max over data sets).

Protocol decisions (each is a function below and is tested)
-----------------------------------------------------------
* Data (Section 4.1, Table 2): the loaders of :mod:`svmopt.datasets`; where the data as loaded differ from Table 2
  (Leukemia, DLBCL, Lepiota; Mfeat not available) the report's data table says so and why. Labels are coded +1
  for the loader's first class.
* Scaling: z-score with training-fold statistics after dropping the features that are constant in the training
  fold (``VarianceThreshold(0)`` then ``StandardScaler``, :func:`make_preprocessor`); Experiment 1 fits it on the
  full data set.
* B rule (Table 3): ``round_half_up(B_max * f)`` for ``f in {1, 2/3, 1/2, 1/3, 1/5}`` computed in exact
  rational arithmetic, with the paper's replacements of the two largest values for Arrhythmia (16, 8) and Mfeat
  (30, 10) -- :func:`budget_values`, which reproduces Table 3.
* Folds: ``StratifiedKFold(n_splits, shuffle=True, random_state=seed)``, the same folds for every model,
  ``B``, ``C`` and perturbation.
* Perturbations (Section 4.3), training folds only, one perturbed training set per fold shared by all models:
  label noise flips ``round_half_up(0.05 n_train)`` individuals drawn uniformly (not stratified) with
  ``numpy.random.default_rng([seed, fold])``; SVM outliers fit (SVM-l1) with ``C = 1`` on the training fold and
  flip, in each class, the ``round_half_up(0.05 n_class)`` individuals with the largest ``y_i f(x_i)`` (stable
  order, ties to the smaller index).
* Metrics: ``ACC = (TP + TN) / n`` and the paper's "AUC" ``= (TP/(TP+FN) + TN/(TN+FP)) / 2``, the balanced
  accuracy of the hard classifier (not ROC-AUC), averaged over the folds. If a test fold lacks a class only the
  defined rate is used (scikit-learn's ``balanced_accuracy_score`` does exactly that, with a warning).
* Best C: the highest mean ACC, then the higher mean AUC, then the smaller mean time (test-set selection, as in
  the paper; no nested CV). Av. F counts ``|w_k| > 1e-7``, or the selector's support for the pipelines.
* Table 14: per data set and model the configuration with the best ACC over all ``(B, C)`` (AUC breaks ties), the
  relative improvement ``100 (m_RLFSM - m_model) / m_model``, mean and max over the data sets.

Usage::

    python -m reproductions ramp --quick            # subsets, CI scale (about a minute)
    python -m reproductions ramp --experiments 1 --datasets Wdbc SONAR --exact-time-limit 60
    python -m reproductions ramp --experiments 1 --no-dominated-fixing --datasets Wdbc --jobs 1
    python -m reproductions ramp --report-only      # rebuild the report from the results store

Results go to the results store (:mod:`reproductions.store`; ``--results DIR``, by default the committed
``reproductions/results``, ``OUT/results`` with ``--quick``): ``ramp_exp1.csv`` (one row per run,
keyed by data set, C, method and ``dominated_fixing``), ``ramp_exp2.csv`` (one row per data set,
scenario, model, B and C, averaged over the folds) and ``ramp_datasets.csv`` (the data as loaded).
A run appends its rows (a rerun of the same key replaces its row) and then writes the report from the whole
store; ``--report-only`` writes it from the store alone. The paper's published tables are
``reproductions/tables/ramp_*.csv``, the report's prose ``reproductions/templates/ramp.md``.

Not in the paper: Algorithm 1 as implemented in svmopt also fixes ``z_i = 0`` where a tightened ``M_i < 2``
(``RampLossSVC(fix_dominated=...)``); ``--no-dominated-fixing`` runs Experiment 1 without it, and the report shows both.
"""

from __future__ import annotations

import argparse
import contextlib
import math
import os
import platform
import re
import time
import warnings
from collections.abc import Iterable, Sequence
from dataclasses import asdict, dataclass, replace
from fractions import Fraction
from pathlib import Path
from typing import Any

import numpy as np
import pandas as pd
from sklearn.exceptions import ConvergenceWarning
from sklearn.feature_selection import VarianceThreshold
from sklearn.metrics import accuracy_score, balanced_accuracy_score
from sklearn.model_selection import StratifiedKFold, train_test_split
from sklearn.pipeline import Pipeline
from sklearn.preprocessing import StandardScaler

from reproductions import ROOT, TABLES
from reproductions._cli import check_protocol_arguments, protocol_parser, results_dir
from reproductions._parallel import parallel_map
from reproductions.report import join_words, load_template, render, value_range
from reproductions.store import open_table
from svmopt.datasets import load_dataset
from svmopt.ramp.feature_selection import make_fisher_svm, make_rfe_svm, n_selected_features, rfe_step

__all__ = [
    "ACC_MARGIN",
    "B_MAX",
    "B_REPLACEMENTS",
    "C_GRID",
    "MODELS",
    "PAPER_DATASETS",
    "PAPER_SETUP",
    "SCENARIOS",
    "TABLE3",
    "TABLE4",
    "TABLE14",
    "TABLES_5_13",
    "Settings",
    "aggregate_folds",
    "budget_values",
    "experiment1",
    "experiment2",
    "flip_label_noise",
    "flip_svm_outliers",
    "improvement_table",
    "load_paper_dataset",
    "main",
    "make_model",
    "make_preprocessor",
    "paper_metrics",
    "published_best_frame",
    "ramp_objective",
    "record_datasets",
    "rfe_path_supports",
    "round_half_up",
    "select_best_c",
    "store_tables",
    "stratified_folds",
    "table4_frame",
    "write_report",
]

# ----------------------------------------------------------------------------------------------------------
# protocol constants and the published numbers (reproductions/tables)
# ----------------------------------------------------------------------------------------------------------
C_GRID = (0.01, 0.1, 1.0, 10.0, 100.0)
SCENARIOS = ("LN", "SO")  # 5 % label noise, 5 % SVM outliers
MODELS = ("RL-FS-M", "FS-SVM", "Fisher-SVM", "RFE-SVM", "RL-l1-M", "SVM-l1")
BUDGET_MODELS = ("RL-FS-M", "FS-SVM", "Fisher-SVM", "RFE-SVM")
FEATURE_TOL = 1e-7  # |w_k| above this counts as a selected feature


@dataclass(frozen=True)
class PaperDataset:
    """One row of the paper's Table 2 (``n``, ``d``, class split as printed, from the tables CSV) and how it is read
    here (loader of :mod:`svmopt.datasets` and its arguments). Why ours differ is said in the report template."""

    label: str
    loader: str
    kwargs: tuple[tuple[str, Any], ...]
    n: int
    d: int
    split: str  # class split as printed (%)


_LOADERS: dict[str, tuple[str, tuple[tuple[str, Any], ...]]] = {
    "Colon": ("colon", ()),
    "Leukemia": ("leukemia", ()),
    "DLBCL": ("dlbcl", ()),
    "SONAR": ("sonar", ()),
    "IONO": ("ionosphere", (("drop_constant", True),)),
    "Arrhythmia": ("arrhythmia", (("variant", "001"), ("drop_constant", True))),
    "Wdbc": ("wdbc", ()),
    "Mfeat": ("mfeat", (("binary", 0),)),
    "Lepiota": ("mushroom", (("drop_constant", True),)),
}

PAPER_DATASETS: dict[str, PaperDataset] = {
    r.dataset: PaperDataset(r.dataset, *_LOADERS[r.dataset], int(r.n), int(r.d), str(r.split))
    for r in pd.read_csv(TABLES / "ramp_table2.csv").itertuples()
}


def _paper_table(name: str) -> pd.DataFrame:
    """A published table of the paper, ``reproductions/tables/ramp_<name>.csv``."""
    return pd.read_csv(TABLES / f"ramp_{name}.csv")


def _load_published():
    t3 = _paper_table("table3")
    b_max = {r.dataset: int(r.B_max) for r in t3.itertuples()}
    repl = {r.dataset: tuple(int(v) for v in str(r.replacements).split()) for r in t3.itertuples()
            if isinstance(r.replacements, str) and r.replacements.strip()}
    table3 = {r.dataset: tuple(int(getattr(r, f"B{k}")) for k in range(1, 6)) for r in t3.itertuples()}
    table4 = tuple((r.dataset, float(r.C), float(r.t_e), float(r.gap), float(r.t_h), float(r.pct_BS))
                   for r in _paper_table("table4").itertuples())
    t513: dict[str, list] = {}
    for r in _paper_table("tables5_13").itertuples(index=False):
        rec = list(r)
        rec[2] = None if pd.isna(rec[2]) else int(rec[2])  # B; empty for the models without a budget
        t513.setdefault(rec[0], []).append(tuple(rec[1:]))
    table14: dict[str, dict[str, tuple]] = {}
    for r in _paper_table("table14").itertuples():
        table14.setdefault(r.model, {})[r.scenario] = (r.acc_mean, r.acc_max, r.auc_mean, r.auc_max)
    setup = dict(_paper_table("setup")[["name", "value"]].itertuples(index=False))
    return b_max, repl, table3, table4, {k: tuple(v) for k, v in t513.items()}, table14, setup


#: The paper's published tables (``reproductions/tables/ramp_*.csv``): B_max of its B-selection run
#: (Section 4.1) and the two largest B it replaced (Arrhythmia, Mfeat); Table 3 (which follows from them by
#: :func:`budget_values`); Table 4; Tables 5-13 per data set, rows (model, B, then LN and SO: C, time [s], Av. F,
#: ACC [%], AUC [%]); Table 14, model -> scenario -> (Av. ACC impr., Max. ACC impr., Av. AUC impr., Max. AUC
#: impr.) in %; and the paper's set-up (machine, solver, time limits, DAKS parameters; Sections 4, 4.2, 4.3).
B_MAX, B_REPLACEMENTS, TABLE3, TABLE4, TABLES_5_13, TABLE14, PAPER_SETUP = _load_published()
_B_FRACTIONS = (Fraction(1), Fraction(2, 3), Fraction(1, 2), Fraction(1, 3), Fraction(1, 5))

_T513_COLS = ("model", "B", "C_LN", "time_LN", "F_LN", "acc_LN", "auc_LN", "C_SO", "time_SO", "F_SO", "acc_SO",
              "auc_SO")


# ----------------------------------------------------------------------------------------------------------
# B rule, data, folds, perturbations, metrics
# ----------------------------------------------------------------------------------------------------------
def round_half_up(x) -> int:
    """Round to the nearest integer with halves going up (``floor(x + 1/2)``); exact for ``Fraction`` input.

    Python's ``round`` rounds halves to even and would give SONAR 28 instead of 29 (57/2 = 28.5).
    """
    return math.floor(Fraction(x) + Fraction(1, 2))


def budget_values(b_max: int, replacements: Sequence[int] = ()) -> tuple[int, ...]:
    """The five budgets of Table 3: ``round_half_up(b_max * f)``, ``f in (1, 2/3, 1/2, 1/3, 1/5)``, descending.

    ``replacements`` (the paper's exceptions, :data:`B_REPLACEMENTS`) replace the largest values: Arrhythmia
    ``(161, 107, 81, 54, 32) -> (81, 54, 32, 16, 8)``. The products are exact rationals, so no float rounding
    can move a half.
    """
    if isinstance(b_max, bool) or not isinstance(b_max, (int, np.integer)) or b_max < 1:
        raise ValueError(f"b_max: expected a positive integer, got {b_max!r}")
    vals = [round_half_up(Fraction(int(b_max)) * f) for f in _B_FRACTIONS]
    if replacements:
        vals = vals[len(replacements):] + [int(r) for r in replacements]
    return tuple(sorted(vals, reverse=True))


def load_paper_dataset(label: str, data_home: str | os.PathLike | None = None):
    """``(X, y, record)`` for a data set of Table 2: ``y`` in {-1, +1} (+1 = the loader's first class).

    ``record`` holds the obtained ``n``, ``d`` and class split beside the paper's. Raises ``FileNotFoundError``
    for data that are not available (Mfeat) and ``KeyError`` for an unknown label.
    """
    if label not in PAPER_DATASETS:
        raise KeyError(f"label: unknown data set {label!r}; expected one of {sorted(PAPER_DATASETS)}")
    spec = PAPER_DATASETS[label]
    kw = dict(spec.kwargs)
    kw.setdefault("binary", "first_vs_rest")
    X, y = load_dataset(spec.loader, data_home=data_home, **kw)
    X = np.ascontiguousarray(X, dtype=np.float64)
    y = np.where(np.asarray(y) == 1, 1, -1).astype(np.int64)
    n_pos = int(np.sum(y == 1))
    record = {"dataset": label, "n": X.shape[0], "d": X.shape[1], "n_pos": n_pos, "n_neg": X.shape[0] - n_pos,
              "paper_n": spec.n, "paper_d": spec.d, "paper_split": spec.split}
    return X, y, record


def subsample(X, y, n: int, seed: int):
    """A stratified random subset of ``n`` rows (used by the quick mode)."""
    if n >= X.shape[0]:
        return X, y
    idx, _ = train_test_split(np.arange(X.shape[0]), train_size=n, stratify=y, random_state=seed)
    idx = np.sort(idx)
    return X[idx], y[idx]


def make_preprocessor() -> Pipeline:
    """Drop the features constant on the training data, then z-score with the training statistics."""
    return Pipeline([("drop_constant", VarianceThreshold(0.0)), ("zscore", StandardScaler())])


def stratified_folds(y, n_splits: int = 10, seed: int = 0) -> list[tuple[np.ndarray, np.ndarray]]:
    """The ``(train, test)`` index pairs of stratified ``n_splits``-fold CV with a fixed seed."""
    skf = StratifiedKFold(n_splits=n_splits, shuffle=True, random_state=seed)
    return list(skf.split(np.zeros((len(y), 1)), y))


def _check_pm1(y) -> np.ndarray:
    y = np.asarray(y)
    if y.ndim != 1 or not np.all(np.isin(y, (-1, 1))):
        raise ValueError("y: expected a 1-D array of labels in {-1, +1}")
    return y.astype(np.int64)


def flip_label_noise(y, frac: float = 0.05, rng=None) -> tuple[np.ndarray, np.ndarray]:
    """5 % label noise (Section 4.3): flip ``round_half_up(frac n)`` labels chosen uniformly without replacement.

    Returns the perturbed copy and the sorted flipped indices. ``rng`` is a seed or ``numpy.random.Generator``.
    """
    y = _check_pm1(y)
    if not 0 <= frac <= 1:
        raise ValueError(f"frac: expected a fraction in [0, 1], got {frac!r}")
    rng = np.random.default_rng(rng)
    k = round_half_up(Fraction(frac).limit_denominator(10**6) * len(y))
    idx = np.sort(rng.choice(len(y), size=k, replace=False))
    out = y.copy()
    out[idx] = -out[idx]
    return out, idx


def flip_svm_outliers(X, y, frac: float = 0.05, estimator=None) -> tuple[np.ndarray, np.ndarray]:
    """5 % SVM outliers (Section 4.3): flip the most confidently correct ``frac`` of each class.

    Fits ``estimator`` (default ``L1SVC(C=1)``, the (SVM-l1) LP) on ``(X, y)``, sorts each class by
    ``y_i f(x_i)`` in non-increasing order (stable: ties keep the smaller index first) and flips the first
    ``round_half_up(frac n_class)`` of each class. Returns the perturbed copy and the sorted flipped indices.
    """
    y = _check_pm1(y)
    if not 0 <= frac <= 1:
        raise ValueError(f"frac: expected a fraction in [0, 1], got {frac!r}")
    if estimator is None:
        from svmopt.ramp.estimators import L1SVC

        estimator = L1SVC(C=1.0)
    estimator.fit(X, y)
    margin = y * np.asarray(estimator.decision_function(X), dtype=float).ravel()
    f = Fraction(frac).limit_denominator(10**6)
    flipped = []
    for cls in (-1, 1):
        members = np.flatnonzero(y == cls)
        k = round_half_up(f * len(members))
        order = members[np.argsort(-margin[members], kind="stable")]
        flipped.append(order[:k])
    idx = np.sort(np.concatenate(flipped))
    out = y.copy()
    out[idx] = -out[idx]
    return out, idx


def paper_metrics(y_true, y_pred) -> tuple[float, float]:
    """``(ACC, "AUC")``: accuracy and the paper's AUC, ``(TP/(TP+FN) + TN/(TN+FP)) / 2`` (balanced accuracy)."""
    y_true, y_pred = np.asarray(y_true), np.asarray(y_pred)
    with warnings.catch_warnings():
        warnings.filterwarnings("ignore", message=".*y_pred contains classes not in y_true.*")
        auc = balanced_accuracy_score(y_true, y_pred)
    return float(accuracy_score(y_true, y_pred)), float(auc)


def ramp_objective(coef, intercept, X, y, C: float) -> float:
    """``||w||_1 + C sum_i min(2, max(0, 1 - y_i (w.x_i + b)))``: the (RL-FS) objective of any ``(w, b)``.

    The ramp-loss form of (RL-FS) (Section 2): independent of the MIP variables, so exact and heuristic
    solutions are compared on the same footing.
    """
    w = np.asarray(coef, dtype=float).ravel()
    b = float(np.asarray(intercept, dtype=float).ravel()[0])
    t = np.asarray(y, dtype=float) * (np.asarray(X, dtype=float) @ w + b)
    return float(np.abs(w).sum() + C * np.clip(1.0 - t, 0.0, 2.0).sum())


# ----------------------------------------------------------------------------------------------------------
# models
# ----------------------------------------------------------------------------------------------------------
@dataclass
class Settings:
    """Scale of a run (the paper's values are 10 folds, the full C grid, 7200 s exact and 1800 s limits)."""

    datasets: tuple[str, ...] = ("Wdbc", "SONAR", "IONO", "Colon", "Leukemia", "DLBCL", "Arrhythmia", "Lepiota")
    models: tuple[str, ...] = MODELS
    scenarios: tuple[str, ...] = SCENARIOS
    c_grid: tuple[float, ...] = C_GRID
    budgets: str = "all"  # "all", "min", "max", "minmax" or comma-separated positions in Table 3 (0 = largest)
    n_folds: int = 10
    seed: int = 0
    n_sub: int | None = None  # stratified subsample size (quick mode)
    exact_time_limit: float = 60.0  # Experiment 1, exact (paper 7200 s)
    heuristic_time_limit: float = 60.0  # Experiment 1, DAKS total (paper: unlimited, about 1800 s)
    fit_time_limit: float = 10.0  # Experiment 2, every MIP-based fit (paper 1800 s)
    dominated_fixing: bool = True  # Experiment 1: Algorithm 1 fixes z_i = 0 where a tightened M_i < 2
    series: str = "table4"  # Experiment 1: "table4", or "fixing" for the paired runs with the fixing on and off
    jobs: int = 1
    data_home: str | None = None


_DAKS_FLOORS = {"t_limit": 2.0, "t_fea": 1.0, "t_inc": 1.0, "t_easy": 0.5}


def _daks_limits(total: float) -> dict[str, float]:
    """DAKS sub-problem limits scaled by ``total / 1800`` from the paper's (``t_limit``, ``t_fea``, ``t_inc``,
    ``t_Easy`` of Section 4.2 at the overall limit of Section 4.3), with the floors :data:`_DAKS_FLOORS`."""
    s = total / float(PAPER_SETUP["heuristic_time_limit"])
    return {k: max(floor, float(PAPER_SETUP[k]) * s) for k, floor in _DAKS_FLOORS.items()}


def make_model(model: str, C: float, budget: int | None, *, n_features: int, time_limit: float,
               seed: int = 0, method: str | None = None, fix_dominated: bool = True):
    """The estimator of one row of Tables 5-13 (Section 4.3).

    * ``"RL-FS-M"``: ``RampLossSVC(budget=B, method="heuristic")`` (DAKS; ``method="exact"`` in Experiment 1);
    * ``"FS-SVM"``: ``FeatureBudgetSVC(budget=B)`` (exact MIP, time limited);
    * ``"Fisher-SVM"`` / ``"RFE-SVM"``: :mod:`svmopt.ramp.feature_selection` pipelines (``k = min(B, d)``);
    * ``"RL-l1-M"``: ``RampLossSVC(budget=None, method="exact")``; ``"SVM-l1"``: ``L1SVC`` (an LP).

    ``fix_dominated`` is RampLossSVC's switch of the ``z_i = 0`` fixing where a tightened ``M_i < 2``: svmopt's
    extension of Algorithm 1, not the paper's; it changes the MILP (and the DAKS sub-problems) whose times, gaps
    and objectives Table 4 reports, so Experiment 1 runs both.
    """
    if model == "Fisher-SVM":
        return make_fisher_svm(min(budget, n_features), C)
    if model == "RFE-SVM":
        return make_rfe_svm(min(budget, n_features), C, n_features=n_features)
    from svmopt import ramp as ramp_svc

    if model == "SVM-l1":
        return ramp_svc.L1SVC(C=C)
    if model == "FS-SVM":
        return ramp_svc.FeatureBudgetSVC(C=C, budget=min(budget, n_features), max_time=time_limit,
                                         random_state=seed)
    if model == "RL-l1-M":
        return ramp_svc.RampLossSVC(C=C, budget=None, method="exact", max_time=time_limit, big_m="auto",
                                    random_state=seed)
    if model == "RL-FS-M":
        method = method or "heuristic"
        kw = _daks_limits(time_limit) if method == "heuristic" else {}
        return ramp_svc.RampLossSVC(C=C, budget=min(budget, n_features), method=method, max_time=time_limit,
                                    big_m="auto", random_state=seed, fix_dominated=fix_dominated, **kw)
    raise ValueError(f"model: unknown model {model!r}; expected one of {MODELS}")


def _fit_measure(est, X, y):
    """Fit and return ``(wall s, cpu s, status)``; status ``"limit"`` when a ConvergenceWarning was raised."""
    with warnings.catch_warnings(record=True) as rec:
        warnings.simplefilter("always", ConvergenceWarning)
        t0, c0 = time.perf_counter(), time.process_time()
        est.fit(X, y)
        wall, cpu = time.perf_counter() - t0, time.process_time() - c0
    limit = any(issubclass(w.category, ConvergenceWarning) for w in rec)
    return wall, cpu, ("limit" if limit else "ok")


# ----------------------------------------------------------------------------------------------------------
# Experiment 1 (Table 4)
# ----------------------------------------------------------------------------------------------------------
def _exp1_task(task):
    label, method, C, B, X, y, time_limit, seed, fixing, series = task
    row = {"dataset": label, "C": C, "B": B, "method": method, "dominated_fixing": "on" if fixing else "off",
           "series": series, "n": X.shape[0], "time_limit": time_limit}
    try:
        est = make_model("RL-FS-M", C, B, n_features=X.shape[1], time_limit=time_limit, seed=seed, method=method,
                         fix_dominated=fixing)
        wall, cpu, status = _fit_measure(est, X, y)
        row.update(time=wall, cpu=cpu, status=str(getattr(est, "status_", status)),
                   limit=status == "limit", objective=float(getattr(est, "objective_", np.nan)),
                   ramp_objective=ramp_objective(est.coef_, est.intercept_, X, y, C),
                   gap=float(getattr(est, "mip_gap_", np.nan)),
                   n_features=n_selected_features(est, FEATURE_TOL),
                   n_outliers=int(np.size(getattr(est, "outliers_", []))))
    except Exception as exc:  # recorded, reported under "failed runs"
        row.update(time=np.nan, cpu=np.nan, status=f"error: {type(exc).__name__}: {exc}"[:200], limit=False,
                   objective=np.nan, ramp_objective=np.nan, gap=np.nan, n_features=np.nan, n_outliers=np.nan)
    return row


def _available_data(settings: Settings):
    """``(label, X, y)`` of each data set of ``settings`` that is on disk (others skipped), subsampled to
    ``settings.n_sub`` rows when given."""
    for label in settings.datasets:
        try:
            X, y, _ = load_paper_dataset(label, settings.data_home)
        except FileNotFoundError:
            continue
        if settings.n_sub:
            X, y = subsample(X, y, settings.n_sub, settings.seed)
        yield label, X, y


def experiment1(settings: Settings, *, progress: bool = False, checkpoint=None) -> pd.DataFrame:
    """Exact vs DAKS on the full, unperturbed, z-scored data with the smallest B of Table 3 (Section 4.2).

    ``checkpoint(df)`` is called with the rows of each data set as soon as they are done.
    """
    all_rows = []
    for label, X, y in _available_data(settings):
        X = make_preprocessor().fit_transform(X)
        B = min(min(TABLE3[label]), X.shape[1])
        tasks = []
        for C in sorted(settings.c_grid, reverse=True):
            for method, limit in (("exact", settings.exact_time_limit),
                                  ("heuristic", settings.heuristic_time_limit)):
                tasks.append((label, method, C, B, X, y, limit, settings.seed, settings.dominated_fixing,
                              settings.series))
        rows = parallel_map(_exp1_task, tasks, n_jobs=settings.jobs, desc=f"Table 4 {label}" if progress else None)
        all_rows.extend(rows)
        if checkpoint is not None:
            checkpoint(pd.DataFrame(rows))
    return pd.DataFrame(all_rows)


def table4_frame(exp1: pd.DataFrame) -> pd.DataFrame:
    """Table 4 from Experiment-1 rows, beside the paper's numbers.

    ``%BS = 100 (BS_h - BS_e) / BS_e`` on the recomputed ramp objective of each solution.
    ``ratio_te`` = paper t_e / our t_e, only where both runs proved optimality (exact status optimal, paper GAP 0).
    """
    paper = {(d, C): (te, gap, th, bs) for d, C, te, gap, th, bs in TABLE4}
    out = []
    for (label, C), g in exp1.groupby(["dataset", "C"], sort=False):
        e = g[g.method == "exact"].iloc[-1] if (g.method == "exact").any() else None
        h = g[g.method == "heuristic"].iloc[-1] if (g.method == "heuristic").any() else None
        te, gap_p, th, bs_p = paper.get((label, float(C)), (np.nan,) * 4)
        r = {"dataset": label, "C": C, "B": g.B.iloc[0], "t_e": np.nan, "gap": np.nan, "exact_optimal": False,
             "t_h": np.nan, "BS_e": np.nan, "BS_h": np.nan, "pct_BS": np.nan, "time_limit_e": np.nan,
             "time_limit_h": np.nan, "cpu_e": np.nan, "cpu_h": np.nan, "paper_t_e": te, "paper_gap": gap_p,
             "paper_t_h": th, "paper_pct_BS": bs_p}
        if e is not None:
            r.update(t_e=e.time, gap=100 * e.gap if np.isfinite(e.gap) else np.nan, BS_e=e.ramp_objective,
                     nf_e=getattr(e, "n_features", np.nan),
                     exact_optimal=not bool(e.limit) and str(e.status).lower().startswith("optimal"),
                     time_limit_e=e.time_limit, cpu_e=e.cpu)
        if h is not None:
            r.update(t_h=h.time, BS_h=h.ramp_objective, time_limit_h=h.time_limit, cpu_h=h.cpu)
        if np.isfinite(r["BS_e"]) and np.isfinite(r["BS_h"]) and r["BS_e"] > 0:
            r["pct_BS"] = 100 * (r["BS_h"] - r["BS_e"]) / r["BS_e"]
        r["ratio_te"] = te / r["t_e"] if (r["exact_optimal"] and gap_p == 0 and r["t_e"] > 0) else np.nan
        out.append(r)
    return pd.DataFrame(out)


# ----------------------------------------------------------------------------------------------------------
# Experiment 2 (Tables 5-13, 14)
# ----------------------------------------------------------------------------------------------------------
def _budget_positions(spec: str) -> list[int]:
    named = {"all": [0, 1, 2, 3, 4], "min": [4], "max": [0], "minmax": [0, 4]}
    if spec in named:
        return named[spec]
    try:
        pos = sorted({int(s) for s in spec.split(",")})
    except ValueError:
        raise ValueError(f"budgets: expected all/min/max/minmax or positions like '0,4', got {spec!r}") from None
    if not pos or pos[0] < 0 or pos[-1] > 4:
        raise ValueError(f"budgets: positions must lie in 0..4, got {spec!r}")
    return pos


def _fold_data(X, y, train, test, scenario: str, seed: int, fold: int):
    """Preprocess on the training fold, perturb the training labels; the test fold is untouched."""
    prep = make_preprocessor().fit(X[train])
    Xtr, Xte = prep.transform(X[train]), prep.transform(X[test])
    if scenario == "LN":
        ytr, flipped = flip_label_noise(y[train], 0.05, rng=np.random.default_rng([seed, fold]))
    elif scenario == "SO":
        ytr, flipped = flip_svm_outliers(Xtr, y[train], 0.05)
    else:
        raise ValueError(f"scenario: expected 'LN' or 'SO', got {scenario!r}")
    return Xtr, ytr, Xte, y[test], train[flipped]


def _exp2_task(task):
    (label, scenario, fold, model, B, C, Xtr, ytr, Xte, yte, time_limit, seed) = task
    if model == "RFE-SVM" and isinstance(B, tuple):
        return _rfe_path_task(task)
    row = {"dataset": label, "scenario": scenario, "fold": fold, "model": model, "B": B, "C": C,
           "time_limit": time_limit}
    try:
        est = make_model(model, C, B, n_features=Xtr.shape[1], time_limit=time_limit, seed=seed)
        wall, cpu, status = _fit_measure(est, Xtr, ytr)
        acc, auc = paper_metrics(yte, est.predict(Xte))
        row.update(acc=acc, auc=auc, time=wall, cpu=cpu, n_features=n_selected_features(est, FEATURE_TOL),
                   status=status)
    except Exception as exc:
        row.update(acc=np.nan, auc=np.nan, time=np.nan, cpu=np.nan, n_features=np.nan,
                   status=f"error: {type(exc).__name__}: {exc}"[:200])
    return [row]


def rfe_path_supports(X, y, budgets: Sequence[int], C: float) -> tuple[dict[int, np.ndarray], float]:
    """Supports of RFE-SVM (step 1) for several budgets from **one** elimination path, and its wall time.

    With one feature removed per step the elimination order does not depend on the target, so the features
    that ``RFE(n_features_to_select=B, step=1)`` keeps are those with ``ranking_ <= B - B_min + 1`` of the run
    down to ``B_min = min(budgets)`` (tested against separate RFE fits). This saves the repeated path.
    """
    b_min = min(budgets)
    t0 = time.perf_counter()
    rfe = make_rfe_svm(b_min, C, step=1).fit(X, y)
    wall = time.perf_counter() - t0
    return {int(B): rfe.ranking_ <= B - b_min + 1 for B in budgets}, wall


def _rfe_path_task(task):
    (label, scenario, fold, model, budgets, C, Xtr, ytr, Xte, yte, time_limit, _seed) = task
    from sklearn.svm import SVC

    rows = []
    budgets = [min(B, Xtr.shape[1]) for B in budgets]
    c0 = time.process_time()
    supports, path_wall = rfe_path_supports(Xtr, ytr, budgets, C)
    path_cpu = time.process_time() - c0
    for B, mask in supports.items():
        t0, c0 = time.perf_counter(), time.process_time()
        svm = SVC(kernel="linear", C=C).fit(Xtr[:, mask], ytr)
        wall, cpu = time.perf_counter() - t0, time.process_time() - c0
        acc, auc = paper_metrics(yte, svm.predict(Xte[:, mask]))
        rows.append({"dataset": label, "scenario": scenario, "fold": fold, "model": model, "B": B, "C": C,
                     "time_limit": time_limit, "acc": acc, "auc": auc, "time": path_wall + wall,
                     "cpu": path_cpu + cpu, "n_features": int(mask.sum()), "status": "ok"})
    return rows


def experiment2(settings: Settings, *, progress: bool = False, checkpoint=None) -> pd.DataFrame:
    """Per-fold rows of the CV protocol (Section 4.3); ``checkpoint(df)`` is called after each data set.

    RFE-SVM with step 1 (``d <= 1000``) computes all budgets of a fold and C from one elimination path
    (:func:`rfe_path_supports`); its time column is then the whole path down to the smallest B plus the final fit.
    """
    positions = _budget_positions(settings.budgets)
    all_rows = []
    for label, X, y in _available_data(settings):
        folds = stratified_folds(y, settings.n_folds, settings.seed)
        budgets = [TABLE3[label][p] for p in positions]
        tasks = []
        for scenario in settings.scenarios:
            for fold, (train, test) in enumerate(folds):
                Xtr, ytr, Xte, yte, _ = _fold_data(X, y, train, test, scenario, settings.seed, fold)
                for model in settings.models:
                    if model not in BUDGET_MODELS:
                        model_budgets = [None]
                    elif model == "RFE-SVM" and rfe_step(Xtr.shape[1]) == 1:
                        model_budgets = [tuple(budgets)]
                    else:
                        model_budgets = budgets
                    for B in model_budgets:
                        for C in settings.c_grid:
                            tasks.append((label, scenario, fold, model, B, C, Xtr, ytr, Xte, yte,
                                          settings.fit_time_limit, settings.seed))
        rows = [r for rs in parallel_map(_exp2_task, tasks, n_jobs=settings.jobs, desc=label if progress else None)
                for r in rs]
        all_rows.extend(rows)
        if checkpoint is not None:
            checkpoint(pd.DataFrame(rows))
    return pd.DataFrame(all_rows)


_KEY2 = ["dataset", "scenario", "model", "B", "C"]


def aggregate_folds(folds: pd.DataFrame) -> pd.DataFrame:
    """Mean over the folds (the paper's ACC/AUC are means of per-fold values) per (data set, scenario, model, B, C)."""
    df = folds.copy()
    df["B"] = df["B"].astype("float")
    df["n_limit"] = (df["status"] == "limit").astype(int)
    df["n_error"] = df["status"].astype(str).str.startswith("error").astype(int)
    g = df.groupby(_KEY2, dropna=False, sort=False)
    agg = g.agg(acc=("acc", "mean"), auc=("auc", "mean"), time=("time", "mean"), cpu=("cpu", "mean"),
                n_features=("n_features", "mean"), n_folds=("fold", "size"), n_limit=("n_limit", "sum"),
                n_error=("n_error", "sum"), time_limit=("time_limit", "first")).reset_index()
    return agg


def select_best_c(agg: pd.DataFrame) -> pd.DataFrame:
    """Per (data set, scenario, model, B) the C with the highest ACC, then higher AUC, then smaller time."""
    df = agg.dropna(subset=["acc"]).copy()
    df["_acc"], df["_auc"] = df["acc"].round(12), df["auc"].round(12)
    df = df.sort_values(["_acc", "_auc", "time"], ascending=[False, False, True], kind="stable")
    best = df.groupby(["dataset", "scenario", "model", "B"], dropna=False, sort=False).head(1)
    return best.drop(columns=["_acc", "_auc"]).reset_index(drop=True)


def published_best_frame() -> pd.DataFrame:
    """Tables 5-13 in long form: one row per (data set, scenario, model, B) with C, time, Av. F, ACC, AUC (%)."""
    rows = []
    for label, table in TABLES_5_13.items():
        for r in table:
            rec = dict(zip(_T513_COLS, r, strict=True))
            for sc in SCENARIOS:
                rows.append({"dataset": label, "scenario": sc, "model": rec["model"],
                             "B": np.nan if rec["B"] is None else float(rec["B"]), "C": rec[f"C_{sc}"],
                             "time": rec[f"time_{sc}"], "n_features": rec[f"F_{sc}"], "acc": rec[f"acc_{sc}"],
                             "auc": rec[f"auc_{sc}"]})
    return pd.DataFrame(rows)


def improvement_table(best: pd.DataFrame, *, reference: str = "RL-FS-M") -> pd.DataFrame:
    """Table 14 from best-C rows (``acc``/``auc`` in any common unit).

    Per data set and model: the configuration with the best ACC over all B (AUC breaks ties); improvement
    ``100 (m_ref - m_model) / m_model``; mean and max over the data sets where both models were run.
    Returns one row per (model, scenario) with ``acc_mean, acc_max, auc_mean, auc_max, n_datasets``.
    """
    df = best.copy()
    df["_acc"], df["_auc"] = df["acc"].round(10), df["auc"].round(10)
    df = df.sort_values(["_acc", "_auc"], ascending=False, kind="stable")
    top = df.groupby(["dataset", "scenario", "model"], sort=False).head(1).set_index(["dataset", "scenario",
                                                                                      "model"])
    out = []
    for sc in SCENARIOS:
        for model in MODELS:
            if model == reference:
                continue
            imp_acc, imp_auc = [], []
            for label in dict.fromkeys(df["dataset"]):
                try:
                    ref, oth = top.loc[(label, sc, reference)], top.loc[(label, sc, model)]
                except KeyError:
                    continue
                imp_acc.append(100 * (ref.acc - oth.acc) / oth.acc)
                imp_auc.append(100 * (ref.auc - oth.auc) / oth.auc)
            if imp_acc:
                out.append({"model": model, "scenario": sc, "acc_mean": np.mean(imp_acc), "acc_max": np.max(imp_acc),
                            "auc_mean": np.mean(imp_auc), "auc_max": np.max(imp_auc), "n_datasets": len(imp_acc)})
    return pd.DataFrame(out)


# ----------------------------------------------------------------------------------------------------------
# the results store (reproductions.store) and the report (templates/ramp.md)
# ----------------------------------------------------------------------------------------------------------
_EXP1_KEY = ["dataset", "C", "method", "dominated_fixing", "series"]
TEMPLATE = "ramp"
ACC_MARGIN = 2.0  # ACC points below the paper from which a Tables 5-13 cell is listed under "Not reproduced"
LARGE_GAP = 50.0  # a final GAP above this (%) counts as large
ZERO_BS = 0.005  # |%BS| below this prints as 0.00 %: the two methods found the same objective


def store_tables(directory: str | os.PathLike) -> dict[str, Any]:
    """The three tables of this protocol in the results store ``directory``.

    ``exp1``: one row per Experiment-1 run, keyed by (data set, C, method, ``dominated_fixing``, ``series``: "table4"
    for Table 4, "fixing" for the runs with the fixing on and off back to back); ``exp2``: one row
    per (data set, scenario, model, B, C), averaged over the folds; ``datasets``: the data as loaded (n, d, classes).
    """
    return {"exp1": open_table(directory, "ramp_exp1", _EXP1_KEY, float_format="%.6g"),
            "exp2": open_table(directory, "ramp_exp2", _KEY2, float_format="%.6g"),
            "datasets": open_table(directory, "ramp_datasets", ["dataset"])}


def _run_columns(jobs: int) -> dict[str, Any]:
    """Where a row was measured: solver version, machine, logical CPUs and worker processes of the run."""
    import highspy

    return {"highs": highspy.Highs().version(), "machine": platform.machine(), "cpus": os.cpu_count(),
            "jobs": jobs}


def _sections() -> dict[str, str]:
    """The report template split at its ``<!-- section: NAME -->`` lines."""
    parts = re.split(r"^<!-- section: ([A-Za-z0-9_:-]+) -->[ \t]*\n", load_template(TEMPLATE), flags=re.M)
    return {parts[i]: parts[i + 1].strip("\n") for i in range(1, len(parts), 2)}


def _pct(x, digits: int = 2) -> str:
    if x is None or not np.isfinite(x):
        return "–"
    text = f"{x:.{digits}f}"
    return (text[1:] if text.startswith("-") and float(text) == 0 else text) + "%"


def _num(x, fmt: str = "{:.2f}") -> str:
    return "–" if x is None or (isinstance(x, float) and not np.isfinite(x)) else fmt.format(x)


def _c(x) -> str:
    return "–" if x is None or not np.isfinite(x) else f"{x:g}"


def _signed(x, digits: int = 2) -> str:
    return "–" if x is None or not np.isfinite(x) else f"{x:+.{digits}f}"


def _cset(values: Iterable[float]) -> str:
    return "{" + ", ".join(_c(v) for v in sorted(set(float(v) for v in values))) + "}"


def _values(values: Iterable[float]) -> str:
    """One value as itself (``8``), several as a set (``{8, 20}``)."""
    v = sorted(set(float(x) for x in values))
    return _c(v[0]) if len(v) == 1 else _cset(v)


def _cases(rows: pd.DataFrame) -> str:
    """``"Leukemia C = 0.1, 0.01 and Wdbc C = 10"``: the (data set, C) cases of ``rows`` grouped by data set."""
    return join_words(f"{d} C = {', '.join(_c(c) for c in g.C)}" for d, g in rows.groupby("dataset", sort=False))


def _in_paper_order(labels: Iterable[str]) -> list[str]:
    s = set(labels)
    return [d for d in PAPER_DATASETS if d in s]


def _cpu_share(df: pd.DataFrame | None) -> float:
    if df is None or df.empty or not {"cpu", "time"} <= set(df.columns):
        return np.nan
    k = df["n_folds"] if "n_folds" in df else 1
    w, c = np.nansum(df["time"] * k), np.nansum(df["cpu"] * k)
    return 100 * c / w if w > 0 else np.nan


def _versions(frames: dict[str, pd.DataFrame | None]) -> str:
    """``"HiGHS 1.15.1 (Experiment 2, ...)"`` from the ``highs`` column of the stored rows."""
    where: dict[str, list[str]] = {}
    for name, df in frames.items():
        if df is not None and not df.empty and "highs" in df:
            for v in dict.fromkeys(df["highs"].dropna().astype(str)):
                where.setdefault(v, []).append(name)
    return "; ".join(f"HiGHS {v} ({'; '.join(names)})" for v, names in where.items()) or "HiGHS (version not stored)"


def _split_exp1(exp1: pd.DataFrame | None) -> tuple[pd.DataFrame, pd.DataFrame, pd.DataFrame]:
    """``(Table 4 rows, fixing-on rows to compare, fixing-off rows)``.

    Table 4 = series "table4" with the fixing on. The off rows are compared with the "fixing" series' on rows
    (run back to back with them, under the same load) where there are any, else with the Table 4 rows.
    """
    if exp1 is None or exp1.empty:
        return pd.DataFrame(), pd.DataFrame(), pd.DataFrame()
    df = exp1.copy()
    if "dominated_fixing" not in df:
        df["dominated_fixing"] = "on"
    if "series" not in df:
        df["series"] = "table4"
    on = df[df.dominated_fixing == "on"]
    table4 = on[on.series == "table4"]
    paired = on[on.series == "fixing"]
    return table4, (paired if len(paired) else table4), df[df.dominated_fixing == "off"]


def _ordered_t4(rows: pd.DataFrame) -> pd.DataFrame:
    t4 = table4_frame(rows)
    order = {d: i for i, d in enumerate(PAPER_DATASETS)}
    return t4.assign(_o=t4["dataset"].map(order)).sort_values(["_o", "C"], ascending=[True, False])


def _dataset_table(datasets: pd.DataFrame | None, notes: dict[str, str]) -> list[str]:
    lines = ["| Data | paper n | paper d | paper split | ours n | ours d | ours +1/-1 | note |",
             "|---|---|---|---|---|---|---|---|"]
    recs = {} if datasets is None or datasets.empty else {r.dataset: r for r in datasets.itertuples()}
    for label, spec in PAPER_DATASETS.items():
        r = recs.get(label)
        ours = "not available | – | –" if r is None else f"{int(r.n)} | {int(r.d)} | {int(r.n_pos)}/{int(r.n_neg)}"
        lines.append(f"| {label} | {spec.n} | {spec.d} | {spec.split} | {ours} | {notes.get(label, '')} |")
    return lines


def _table3_lines() -> list[str]:
    lines = ["| Data | B_max | ours | paper | same |", "|---|---|---|---|---|"]
    for label, bmax in B_MAX.items():
        ours = budget_values(bmax, B_REPLACEMENTS.get(label, ()))
        lines.append(f"| {label} | {bmax} | {ours} | {TABLE3[label]} | {'yes' if ours == TABLE3[label] else 'NO'} |")
    return lines


def _table4_lines(t4: pd.DataFrame) -> list[str]:
    lines = ["| Data | C | B | limit e/h | t_e | cpu e/h | GAP | t_h | %BS | paper t_e | paper GAP | paper t_h "
             "| paper %BS | ratio |", "|---" * 14 + "|"]
    for _, r in t4.iterrows():
        lines.append(f"| {r.dataset} | {_c(r.C)} | {int(r.B)} | {_num(r.time_limit_e, '{:g}')}/"
                     f"{_num(r.time_limit_h, '{:g}')} | {_num(r.t_e)}{'' if r.exact_optimal else '*'} | "
                     f"{_num(r.cpu_e, '{:.1f}')}/{_num(r.cpu_h, '{:.1f}')} | {_pct(r.gap)} | {_num(r.t_h)} | "
                     f"{_pct(r.pct_BS)} | {_num(r.paper_t_e)} | {_pct(r.paper_gap)} | {_num(r.paper_t_h)} | "
                     f"{_pct(r.paper_pct_BS)} | {_num(r.ratio_te, '{:.1f}x')} |")
    return lines


def _case(r) -> str:
    return f"{r.dataset} C = {_c(r.C)}"


def _table4_values(t4: pd.DataFrame, on: pd.DataFrame) -> dict[str, str]:
    """The numbers the report states about Table 4, computed from our rows and the paper's."""
    limits = t4["time_limit_e"].dropna()
    main_limit = float(limits.mode().min()) if not limits.empty else np.nan
    longer = t4[t4.time_limit_e > main_limit]
    at_main = t4[t4.time_limit_e == main_limit]
    ex = on[on.method == "exact"]
    limited = ex[ex["limit"].astype(bool)]
    gaps = 100 * limited["gap"].astype(float)
    ok = t4.dropna(subset=["pct_BS"])
    zero = at_main.dropna(subset=["pct_BS"])
    neg = longer[longer.pct_BS < -ZERO_BS]
    pos = t4[t4.pct_BS > ZERO_BS]
    paper = pd.DataFrame(TABLE4, columns=["dataset", "C", "t_e", "gap", "t_h", "pct_BS"])
    optima = t4[t4.exact_optimal]
    same_paper = t4.dropna(subset=["paper_gap"])
    return {
        "t4_datasets": join_words(_in_paper_order(t4.dataset)), "t4_c": _cset(t4.C),
        "t4_limit": _c(main_limit), "t4_long_limit": _c(longer.time_limit_e.max()) if len(longer) else "–",
        "t4_median_cpu": _num(at_main.cpu_e.median(), "{:.1f}"),
        "t4_cpu_range": value_range(ex.cpu, "{:.1f}"),
        "t4_n_reruns": str(len(longer)),
        "t4_reruns": _cases(longer),
        "t4_reruns_paper_te": value_range(longer.paper_t_e, "{:.0f}"),
        "t4_reruns_paper_optimal": str(int((longer.paper_gap == 0).sum())),
        "t4_reruns_optimal": str(int(longer.exact_optimal.sum())),
        "t4_n_exact": str(len(ex)), "t4_n_limited": str(len(limited)),
        "t4_gap_range": value_range(gaps[np.isfinite(gaps)], "{:.0f}", " %"),
        "t4_n_nobound": str(int((~np.isfinite(gaps)).sum())),
        "t4_large_gap": _c(LARGE_GAP),
        "t4_paper_large_gap": join_words(_in_paper_order(paper[paper.gap > LARGE_GAP].dataset)),
        "t4_optima": join_words(f"{_case(r)} ({'w = 0' if r.nf_e == 0 else f'{int(r.nf_e)} features'})"
                          for r in optima.itertuples()),
        "t4_n_optimal": str(len(optima)), "t4_n_cases": str(len(t4)),
        "t4_paper_n_optimal": str(int((same_paper.paper_gap == 0).sum())),
        "t4_n_zero_bs": str(int((zero.pct_BS.abs() < ZERO_BS).sum())), "t4_n_main_pairs": str(len(zero)),
        "t4_negative": join_words(f"{_case(r)}: {_pct(r.pct_BS)}" for r in neg.itertuples()),
        "t4_negative_paper_te": value_range(neg.paper_t_e, "{:.0f}"),
        "t4_positive": join_words(f"{_case(r)} ({_pct(r.pct_BS)}: {r.BS_h:.6g} against {r.BS_e:.6g}, "
                            f"{_c(r.time_limit_e)} s)" for r in pos.itertuples()),
        "t4_mean_bs": _pct(ok.pct_BS.mean()), "t4_paper_mean_bs_same": _pct(ok.paper_pct_BS.mean()),
        "t4_n_bs": str(len(ok)),
        "paper_mean_bs": _pct(paper.pct_BS.mean()), "paper_n_cases": str(len(paper)),
    }


def _tightening_lines(on: pd.DataFrame, off: pd.DataFrame) -> tuple[list[str], dict[str, str]]:
    """Experiment 1 with Algorithm 1's dominated-z fixing off beside the same cases with it on (same limits)."""
    t_off = _ordered_t4(off)
    t_on = table4_frame(on).set_index(["dataset", "C"]) if not on.empty else pd.DataFrame()
    lines = ["| Data | C | B | limit | t_e on/off | cpu e on/off | GAP on/off | BS_e on/off | t_h on/off "
             "| BS_h on/off | %BS on/off |", "|---" * 11 + "|"]
    same_obj = same_bs = paired = opt_on = opt_off = zero_on = 0
    d_gap = []
    for r in t_off.itertuples():
        o = None
        if (r.dataset, r.C) in t_on.index:
            cand = t_on.loc[(r.dataset, r.C)]
            if cand.time_limit_e == r.time_limit_e and cand.time_limit_h == r.time_limit_h:
                o = cand

        def pair(col, fmt, o=o, r=r):
            left = "–" if o is None else fmt(getattr(o, col))
            return f"{left} / {fmt(getattr(r, col))}"

        def g6(x):
            return _num(x, "{:.6g}")

        def f1(x):
            return _num(x, "{:.1f}")

        lines.append(f"| {r.dataset} | {_c(r.C)} | {int(r.B)} | {_c(r.time_limit_e)} | {pair('t_e', _num)} | "
                     f"{pair('cpu_e', f1)} | {pair('gap', _pct)} | {pair('BS_e', g6)} | {pair('t_h', _num)} | "
                     f"{pair('BS_h', g6)} | {pair('pct_BS', _pct)} |")
        if o is not None:
            paired += 1
            same_obj += bool(abs(o.BS_e - r.BS_e) <= 1e-6 * max(1.0, abs(r.BS_e)))
            same_bs += bool(abs(o.BS_h - r.BS_h) <= 1e-6 * max(1.0, abs(r.BS_h)))
            opt_on += bool(o.exact_optimal)
            zero_on += bool(abs(o.pct_BS) < ZERO_BS)
            opt_off += bool(r.exact_optimal)
            if np.isfinite(o.gap) and np.isfinite(r.gap):
                d_gap.append(r.gap - o.gap)
    jobs = off["jobs"].dropna() if "jobs" in off else pd.Series(dtype=float)
    values = {
        "off_datasets": join_words(_in_paper_order(t_off.dataset)), "off_c": _cset(t_off.C),
        "off_limit_e": _values(t_off.time_limit_e), "off_limit_h": _values(t_off.time_limit_h),
        "off_b": join_words(f"{d} {int(b)}" for d, b in t_off.groupby("dataset", sort=False).B.first().items()),
        "off_jobs": join_words(str(int(j)) for j in sorted(set(jobs))) if len(jobs) else "not stored",
        "off_cpu": value_range(off.cpu, "{:.1f}"),
        "off_n": str(len(t_off)), "off_paired": str(paired), "off_same_exact": str(same_obj),
        "off_same_daks": str(same_bs), "off_optimal_on": str(opt_on), "off_optimal_off": str(opt_off),
        "off_gap_shift": _signed(np.mean(d_gap)) if d_gap else "–", "off_n_gap": str(len(d_gap)),
        "off_n_zero_bs": str(int((t_off.pct_BS.abs() < ZERO_BS).sum())), "off_n_zero_bs_on": str(zero_on),
    }
    return lines, values


def _tables5_13_lines(exp2: pd.DataFrame, best: pd.DataFrame, pub: pd.DataFrame) -> list[str]:
    lines: list[str] = []
    for label in [d for d in PAPER_DATASETS if d in set(best["dataset"])]:
        b = best[best.dataset == label]
        e2 = exp2[exp2.dataset == label]
        spec = PAPER_DATASETS[label]
        lines += [f"### {label} (paper n={spec.n}, d={spec.d})", "",
                  "| Model | B | folds/C/limit | LN C | LN time | LN Av.F | LN ACC | LN AUC | lim | SO C | SO time "
                  "| SO Av.F | SO ACC | SO AUC | lim |", "|---" * 15 + "|"]
        keys = b[["model", "B"]].drop_duplicates()
        keys["_m"] = keys["model"].map({m: i for i, m in enumerate(MODELS)})
        keys = keys.sort_values(["_m", "B"], ascending=[True, False])
        for _, k in keys.iterrows():
            same_b = (b.B == k.B) | (b.B.isna() & pd.isna(k.B))
            cells = []
            e2k = e2[(e2.model == k.model) & ((e2.B == k.B) | (e2.B.isna() & pd.isna(k.B)))]
            limit = _num(e2k.time_limit.iloc[0], '{:g}') if k.model not in ('Fisher-SVM', 'RFE-SVM') else '–'
            meta = f"{int(e2k.n_folds.max())}/{e2k.C.nunique()}/{limit}"
            for sc in SCENARIOS:
                r = b[(b.model == k.model) & same_b & (b.scenario == sc)]
                p = pub[(pub.dataset == label) & (pub.scenario == sc) & (pub.model == k.model)
                        & ((pub.B == k.B) | (pub.B.isna() & pd.isna(k.B)))]
                pc = p.iloc[0] if not p.empty else None
                if r.empty:
                    cells += ["–"] * 6
                    continue
                r = r.iloc[0]

                def paper(col, fmt="{:.2f}", pc=pc):
                    return "–" if pc is None else (_c(pc[col]) if col == "C" else _num(pc[col], fmt))

                cells += [f"{_c(r.C)} ({paper('C')})", f"{_num(r.time)} ({paper('time')})",
                          f"{_num(r.n_features, '{:.1f}')} ({paper('n_features', '{:.1f}')})",
                          f"{100 * r.acc:.2f} ({paper('acc')})", f"{100 * r.auc:.2f} ({paper('auc')})",
                          f"{int(r.n_limit)}/{int(r.n_folds)}"]
            bcell = "–" if pd.isna(k.B) else str(int(k.B))
            lines.append(f"| {k.model} | {bcell} | {meta} | " + " | ".join(cells) + " |")
        lines.append("")
    return lines


def _table14_lines(imp: pd.DataFrame) -> list[str]:
    lines = ["| Model | data sets | LN ACC | LN AUC | SO ACC | SO AUC |", "|---|---|---|---|---|---|"]
    for model in MODELS[1:]:
        cells, nds = [], "–"
        for sc in SCENARIOS:
            r = imp[(imp.model == model) & (imp.scenario == sc)] if not imp.empty else imp
            p = TABLE14[model][sc]
            if r.empty:
                cells += [f"– [{p[0]:.2f} ({p[1]:.2f})]", f"– [{p[2]:.2f} ({p[3]:.2f})]"]
            else:
                r = r.iloc[0]
                nds = str(int(r.n_datasets))
                cells += [f"{r.acc_mean:.2f} ({r.acc_max:.2f}) [{p[0]:.2f} ({p[1]:.2f})]",
                          f"{r.auc_mean:.2f} ({r.auc_max:.2f}) [{p[2]:.2f} ({p[3]:.2f})]"]
        lines.append(f"| {model} | {nds} | " + " | ".join(cells) + " |")
    return lines


def _compare(best: pd.DataFrame, pub: pd.DataFrame) -> pd.DataFrame:
    """Our best-C rows beside the paper's (same data set, scenario, model and B), in ACC / AUC points."""
    ours = best.assign(acc=100 * best.acc, auc=100 * best.auc, _B=best.B.fillna(-1.0))
    theirs = pub.assign(_B=pub.B.fillna(-1.0))
    return ours.merge(theirs, on=["dataset", "scenario", "model", "_B"], suffixes=("", "_paper")).assign(
        d_acc=lambda f: f.acc - f.acc_paper, d_auc=lambda f: f.auc - f.auc_paper)


def _exp2_values(exp2: pd.DataFrame, best: pd.DataFrame, cmp: pd.DataFrame, imp: pd.DataFrame) -> dict[str, str]:
    mip = exp2[exp2.model.isin(["RL-FS-M", "FS-SVM", "RL-l1-M"])]
    smallest = {d: float(min(TABLE3[d])) for d in TABLE3}
    rl = cmp[(cmp.model == "RL-FS-M") & (cmp.B == cmp.dataset.map(smallest))]
    rl_lines = []
    for d in _in_paper_order(rl.dataset):
        g = rl[rl.dataset == d].set_index("scenario").d_acc
        rl_lines.append(f"{d} {' / '.join(_signed(g.get(sc, np.nan), 1) for sc in SCENARIOS)}")
    l1 = cmp[cmp.model == "RL-l1-M"]
    l1_lines = [f"{r.dataset} {r.scenario} {r.n_features:.1f} ({r.n_features_paper:.1f})"
                for r in l1.sort_values("n_features", ascending=False).head(3).itertuples()]

    def mean_diff(model):
        g = cmp[cmp.model == model].groupby("dataset").d_acc.mean()
        return join_words(f"{d} {_signed(g[d], 1)}" for d in _in_paper_order(g.index))

    rfe_b = best[best.model == "RFE-SVM"]
    rfe_min_c = exp2[exp2.model == "RFE-SVM"].groupby("dataset").C.min()
    rfe_small = int((rfe_b.C == rfe_b.dataset.map(rfe_min_c)).sum())
    pub = published_best_frame()
    rfe_p = pub[(pub.model == "RFE-SVM") & pub.dataset.isin(set(rfe_b.dataset))]
    agree, reversed_ = [], []
    for r in imp.itertuples():
        p = TABLE14[r.model][r.scenario][0]
        text = f"{r.model} {r.scenario} {_signed(r.acc_mean)} % ({_signed(p)} %)"
        (agree if np.sign(r.acc_mean) == np.sign(p) else reversed_).append(text)
    return {
        "e2_mip_limited": str(int(mip.n_limit.sum())), "e2_mip_fits": str(int(mip.n_folds.sum())),
        "e2_mip_limit": _values(mip.time_limit.dropna()) if len(mip) else "–",
        "e2_rlfsm_diffs": join_words(rl_lines), "e2_rll1_features": join_words(l1_lines),
        "e2_fisher_diffs": mean_diff("Fisher-SVM"), "e2_rfe_diffs": mean_diff("RFE-SVM"),
        "e2_rfe_smallest_c": str(rfe_small), "e2_rfe_cells": str(len(rfe_b)),
        "e2_rfe_paper_smallest_c": str(int((rfe_p.C == min(C_GRID)).sum())), "e2_rfe_paper_cells": str(len(rfe_p)),
        "e2_rfe_paper_time": value_range(rfe_p.time, "{:.2f}"),
        "e2_rfe_time": value_range(rfe_b.time, "{:.2f}"),
        "t14_agree": join_words(agree), "t14_reversed": join_words(reversed_),
        "paper_fit_limit": str(PAPER_SETUP["heuristic_time_limit"]),
    }


def _scale_lines(exp2: pd.DataFrame) -> list[str]:
    """Per model: the data sets run, the number of budgets, the C values and the fit limit, grouped."""
    lines = []
    for model in MODELS:
        g = exp2[exp2.model == model]
        if g.empty:
            lines.append(f"* {model}: not run.")
            continue
        groups: dict[tuple, list[str]] = {}
        for d in _in_paper_order(g.dataset):
            gd = g[g.dataset == d]
            nb = gd.B.dropna().nunique()
            limit = ("" if model in ("Fisher-SVM", "RFE-SVM", "SVM-l1")
                     else f", {_values(gd.time_limit.dropna())} s per fit")
            what = f"{nb} of {len(_B_FRACTIONS)} B" if model in BUDGET_MODELS else "no B"
            groups.setdefault((what, _cset(gd.C), limit, int(gd.n_folds.max())), []).append(d)
        parts = [f"{join_words(ds)}: {what}, C in {cs}, {nf} folds{limit}"
                 for (what, cs, limit, nf), ds in groups.items()]
        lines.append(f"* {model}: " + "; ".join(parts) + ".")
    return lines


def _below_items(sec: dict[str, str], t4: pd.DataFrame, v4: dict[str, str], cmp: pd.DataFrame,
                 exp2: pd.DataFrame | None, datasets: pd.DataFrame | None, v2: dict[str, str] | None) -> list[str]:
    """The "Not reproduced / below the paper" list: one item per finding, prose from the template."""
    items = []
    missing = [d for d in PAPER_DATASETS if datasets is None or d not in set(datasets.dataset)]
    if missing:
        items.append(render(sec["below:data"], {"missing": join_words(missing), "n_missing": str(len(missing)),
                                                "n_paper": str(len(PAPER_DATASETS))}))
    if not t4.empty:
        items.append(render(sec["below:table4"], {
            "n_optimal": v4["t4_n_optimal"], "paper_n_optimal": v4["t4_paper_n_optimal"],
            "n_cases": v4["t4_n_cases"], "limit": v4["t4_limit"], "long_limit": v4["t4_long_limit"],
            "paper_limit": str(PAPER_SETUP["exact_time_limit"]), "n_reruns": v4["t4_n_reruns"],
            "reruns_optimal": v4["t4_reruns_optimal"], "median_cpu": v4["t4_median_cpu"]}))
    if cmp is not None and not cmp.empty:
        for model in MODELS:
            g = cmp[cmp.model == model]
            low = g[g.d_acc < -ACC_MARGIN].sort_values("d_acc")
            if low.empty:
                continue
            w = low.iloc[0]
            bcell = "" if pd.isna(w.B) else f" B = {int(w.B)}"
            e = exp2[exp2.model == model]
            values = {"count": str(len(low)), "n": str(len(g)), "margin": _c(ACC_MARGIN),
                      "datasets": join_words(_in_paper_order(low.dataset)),
                      "worst": f"{w.dataset} {w.scenario}{bcell}: {w.acc:.2f} against {w.acc_paper:.2f}",
                      "c_values": _cset(e.C) if len(e) else "–"}
            if model in ("RL-FS-M", "FS-SVM", "RL-l1-M"):  # the MIP-based fits: a time limit
                values.update(limit=_values(e.time_limit.dropna()) if len(e) else "–",
                              paper_limit=str(PAPER_SETUP["heuristic_time_limit"]))
            items.append(render(sec[f"below:{model}"], values))
    if exp2 is not None and not t4.empty:
        ours = exp2[["dataset", "model", "B"]].astype(str).drop_duplicates()
        pub = published_best_frame()[["dataset", "model", "B"]].astype(str).drop_duplicates()
        folds = sorted(set(int(f) for f in exp2.n_folds))
        items.append(render(sec["below:scale"], {
            "n_rows": str(len(ours)), "paper_rows": str(len(pub)), "n_cases": v4["t4_n_cases"],
            "paper_cases": v4["paper_n_cases"], "folds": join_words(str(f) for f in folds),
            "mip_limit": v2["e2_mip_limit"], "paper_limit": str(PAPER_SETUP["heuristic_time_limit"]),
            "limit": v4["t4_limit"], "paper_exact_limit": str(PAPER_SETUP["exact_time_limit"])}))
    if v2 is not None and v2["t14_reversed"] != "none":
        items.append(render(sec["below:table14"], {"reversed": v2["t14_reversed"]}))
    return items


def write_report(out_dir: str | os.PathLike, exp1: pd.DataFrame | None, exp2: pd.DataFrame | None,
                 datasets: pd.DataFrame | None = None, *, quick: bool = False,
                 store: str | os.PathLike | None = None) -> Path:
    """Write ``out_dir/ramp.md`` from the stored rows: our numbers beside Tables 2-4, 5-13 and 14.

    ``exp1``: Experiment-1 rows (one per run, with ``dominated_fixing`` on or off), ``exp2``: fold-averaged
    Experiment-2 rows, ``datasets``: the data as loaded; any may be ``None`` or empty. The prose is
    ``templates/ramp.md``; every number in it is computed here from these tables and the paper's.
    """
    out_dir = Path(out_dir)
    out_dir.mkdir(parents=True, exist_ok=True)
    path = out_dir / "ramp.md"
    sec = _sections()
    exp1 = None if exp1 is None or exp1.empty else exp1
    exp2 = None if exp2 is None or exp2.empty else exp2
    on, on_paired, off = _split_exp1(exp1)
    t4 = _ordered_t4(on) if not on.empty else pd.DataFrame()
    store_text = "–" if store is None else str(store)
    if store is not None:
        with contextlib.suppress(ValueError):
            store_text = str(Path(store).resolve().relative_to(ROOT.parent))
    cpus = sorted({int(c) for df in (exp1, exp2) if df is not None and "cpus" in df for c in df.cpus.dropna()})
    fixing_runs = None if exp1 is None or off.empty else exp1.drop(on.index, errors="ignore")
    share = {"Table 4": _cpu_share(on), "fixing on and off": _cpu_share(fixing_runs), "Experiment 2": _cpu_share(exp2)}
    out = [render(sec["header"], {
        "command": "python -m reproductions ramp" + (" --quick" if quick else ""),
        "store": store_text, "versions": _versions({
            "Table 4": on if len(on) else None,
            "fixing on and off": pd.concat([off, on_paired]) if len(off) and on_paired is not on else (
                off if len(off) else None),
            "Experiment 2": exp2}),
        "cpus": join_words(str(c) for c in cpus) if cpus else "–",
        "share": join_words(f"{k} {_num(v, '{:.0f}')} %" for k, v in share.items() if np.isfinite(v)),
        "paper_machine": str(PAPER_SETUP["machine"]), "paper_solver": str(PAPER_SETUP["solver"])})]
    if quick:
        out.append(sec["quick"])
    v4 = _table4_values(t4, on) if not t4.empty else None
    best = select_best_c(exp2) if exp2 is not None else None
    pub = published_best_frame()
    cmp = _compare(best, pub) if best is not None else None
    imp = improvement_table(best) if best is not None else pd.DataFrame()
    v2 = _exp2_values(exp2, best, cmp, imp) if exp2 is not None else None
    same3 = sum(budget_values(b, B_REPLACEMENTS.get(d, ())) == TABLE3[d] for d, b in B_MAX.items())
    dims = [] if datasets is None or datasets.empty else [
        f"{r.dataset} (ours {int(r.d)}, paper {PAPER_DATASETS[r.dataset].d})" for r in datasets.itertuples()
        if r.dataset in PAPER_DATASETS and int(r.d) != PAPER_DATASETS[r.dataset].d]
    n_data = 0 if datasets is None else len(datasets)
    if v4 is not None and v2 is not None:
        paper_daks = ", ".join(str(PAPER_SETUP[k]) for k in _DAKS_FLOORS)
        out.append(render(sec["scale"], {
            "n_data": str(n_data), "n_paper": str(len(PAPER_DATASETS)),
            "missing": join_words([d for d in PAPER_DATASETS if datasets is None or d not in set(datasets.dataset)]),
            "dims": join_words(dims), "t3_same": str(same3), "t3_n": str(len(B_MAX)),
            "paper_exact_limit": str(PAPER_SETUP["exact_time_limit"]),
            "paper_fit_limit": str(PAPER_SETUP["heuristic_time_limit"]),
            "paper_daks": paper_daks, "daks_floors": ", ".join(_c(v) for v in _DAKS_FLOORS.values()),
            "e2_scale": "\n".join(_scale_lines(exp2)),
            "e2_folds": join_words(str(int(f)) for f in sorted(set(exp2.n_folds))),
            **{k: v4[k] for k in ("t4_datasets", "t4_c", "t4_limit", "t4_long_limit", "t4_median_cpu",
                                  "t4_n_reruns", "t4_reruns", "t4_reruns_paper_te", "t4_reruns_paper_optimal")}}))
        gaps4 = ("t4_cpu_range", "t4_n_limited", "t4_n_exact", "t4_gap_range", "t4_n_nobound", "t4_large_gap",
                 "t4_paper_large_gap", "t4_optima", "t4_limit", "t4_n_zero_bs", "t4_n_main_pairs", "t4_long_limit",
                 "t4_negative", "t4_negative_paper_te", "t4_n_bs", "t4_mean_bs", "t4_paper_mean_bs_same",
                 "paper_n_cases", "paper_mean_bs", "t4_positive")
        out.append(render(sec["gaps"], {**{k: v4[k] for k in gaps4},
                                        **{k: v for k, v in v2.items() if k != "paper_fit_limit"},
                                        "paper_exact_limit": str(PAPER_SETUP["exact_time_limit"])}))
    items = _below_items(sec, t4, v4 or {}, cmp, exp2, datasets, v2) if (v4 or v2) else []
    out.append(render(sec["below"], {"margin": _c(ACC_MARGIN), "items": "\n".join(items) or "* none"}))
    notes = {k.split(":", 1)[1]: v.replace("\n", " ") for k, v in sec.items() if k.startswith("note:")}
    out.append(render(sec["data"], {"table": "\n".join(_dataset_table(datasets, notes))}))
    out.append(render(sec["table3"], {"table": "\n".join(_table3_lines())}))
    if not t4.empty:
        ok = t4.dropna(subset=["pct_BS"])
        paper_sub = t4.dropna(subset=["paper_pct_BS"])
        out.append(render(sec["table4"], {
            "table": "\n".join(_table4_lines(t4)), "paper_exact_limit": str(PAPER_SETUP["exact_time_limit"]),
            "paper_fit_limit": str(PAPER_SETUP["heuristic_time_limit"]), "n_bs": str(len(ok)),
            "mean_bs": _pct(ok.pct_BS.mean()), "paper_mean_bs_same": _pct(ok.paper_pct_BS.mean()),
            "paper_mean_bs": v4["paper_mean_bs"], "paper_n_cases": v4["paper_n_cases"],
            "n_optimal": str(int(t4.exact_optimal.sum())), "n_cases": str(len(t4)),
            "paper_n_optimal": str(int((paper_sub.paper_gap == 0).sum())), "paper_n_same": str(len(paper_sub)),
            "off_note": sec["table4:off"] if len(off) else sec["table4:no-off"]}))
        fails = on[on["status"].astype(str).str.startswith("error")]
        if not fails.empty:
            out.append("\n".join(["Failed Experiment-1 runs:", ""] + [
                f"* {r.dataset} C={r.C:g} {r.method}: {r.status}" for r in fails.itertuples()]))
    if len(off):
        lines, values = _tightening_lines(on_paired, off)
        source = sec["tightening:paired"] if on_paired is not on else sec["tightening:table4"]
        out.append(render(sec["tightening"], {"table": "\n".join(lines), "on_source": source, **values}))
    if exp2 is not None:
        out.append(render(sec["tables5_13"], {"tables": "\n".join(_tables5_13_lines(exp2, best, pub)).rstrip()}))
        out.append(render(sec["table14"], {"table": "\n".join(_table14_lines(imp))}))
        errs = exp2[exp2.n_error > 0] if "n_error" in exp2 else exp2.iloc[:0]
        if not errs.empty:
            out.append("\n".join(["Fits that failed (counted as missing):", ""] + [
                f"* {r.dataset} {r.scenario} {r.model} B={r.B} C={r.C:g}: {int(r.n_error)} of {int(r.n_folds)} folds"
                for r in errs.itertuples()]))
    path.write_text("\n\n".join(s.strip("\n") for s in out) + "\n")
    return path


# ----------------------------------------------------------------------------------------------------------
# command line
# ----------------------------------------------------------------------------------------------------------
QUICK = {"datasets": ("Wdbc", "SONAR"), "n_sub": 80, "n_folds": 3, "c_grid": (0.1, 1.0), "budgets": "minmax",
         "exact_time_limit": 5.0, "heuristic_time_limit": 5.0, "fit_time_limit": 2.0}


def build_parser() -> argparse.ArgumentParser:
    ap = protocol_parser("ramp", __doc__,
                         quick_help="CI scale: Wdbc and SONAR subsets, 3 folds, C in {0.1, 1}, 2-5 s limits",
                         seed_help="seed of the folds, the label noise and the subsets")
    ap.add_argument("--experiments", nargs="+", type=int, choices=(1, 2), default=[1, 2])
    ap.add_argument("--datasets", nargs="+", choices=list(PAPER_DATASETS), default=None)
    ap.add_argument("--models", nargs="+", choices=MODELS, default=None, help="Experiment-2 models")
    ap.add_argument("--scenarios", nargs="+", choices=SCENARIOS, default=None)
    ap.add_argument("--c-grid", nargs="+", type=float, default=None)
    ap.add_argument("--budgets", default=None, help="all | min | max | minmax | positions in Table 3, e.g. 0,4")
    ap.add_argument("--folds", type=int, default=None, help="CV folds (paper 10)")
    ap.add_argument("--n-sub", type=int, default=None, help="stratified subsample size per data set")
    ap.add_argument("--exact-time-limit", type=float, default=None, help="Experiment 1 exact, s (paper 7200)")
    ap.add_argument("--heuristic-time-limit", type=float, default=None, help="Experiment 1 DAKS, s")
    ap.add_argument("--fit-time-limit", type=float, default=None, help="Experiment 2 MIP fits, s (paper 1800)")
    ap.add_argument("--no-dominated-fixing", action="store_true",
                    help="Experiment 1 with Algorithm 1's fixing of z_i = 0 where a tightened M_i < 2 switched off")
    ap.add_argument("--series", choices=("table4", "fixing"), default="table4",
                    help="Experiment 1 rows for Table 4 (default) or for the comparison of the fixing on and off")
    ap.add_argument("--data-home", default=None, help="data directory (default: $SVMOPT_DATA)")
    ap.add_argument("--progress", action="store_true")
    return ap


def record_datasets(labels: Iterable[str], data_home=None) -> pd.DataFrame:
    """The data as loaded (n, d, class counts) for the store's ``datasets`` table; unavailable ones are skipped."""
    rows = []
    for label in labels:
        try:
            _, _, rec = load_paper_dataset(label, data_home)
        except FileNotFoundError:
            continue
        rows.append({k: rec[k] for k in ("dataset", "n", "d", "n_pos", "n_neg")})
    return pd.DataFrame(rows)


def main(argv: Sequence[str] | None = None) -> int:
    ap = build_parser()
    args = ap.parse_args(argv)
    check_protocol_arguments(ap, args)
    s = Settings(seed=args.seed, jobs=args.jobs, data_home=args.data_home,
                 dominated_fixing=not args.no_dominated_fixing, series=args.series)
    if args.quick:
        s = replace(s, **QUICK)
    over = {"datasets": args.datasets and tuple(args.datasets), "models": args.models and tuple(args.models),
            "scenarios": args.scenarios and tuple(args.scenarios), "c_grid": args.c_grid and tuple(args.c_grid),
            "budgets": args.budgets, "n_folds": args.folds, "n_sub": args.n_sub,
            "exact_time_limit": args.exact_time_limit, "heuristic_time_limit": args.heuristic_time_limit,
            "fit_time_limit": args.fit_time_limit}
    s = replace(s, **{k: v for k, v in over.items() if v is not None})
    try:
        _budget_positions(s.budgets)
    except ValueError as exc:
        ap.error(str(exc))
    store = results_dir(args)
    tables = store_tables(store)
    if not args.report_only:
        t0 = time.time()
        run = _run_columns(args.jobs)
        tables["datasets"].append(record_datasets(s.datasets, s.data_home))
        if 1 in args.experiments:
            experiment1(s, progress=args.progress, checkpoint=lambda df: tables["exp1"].append(df.assign(**run)))
        if 2 in args.experiments:
            experiment2(s, progress=args.progress,
                        checkpoint=lambda df: tables["exp2"].append(aggregate_folds(df).assign(**run)))
        print(f"ramp: runs done in {time.time() - t0:.0f} s ({asdict(s)})")
    path = write_report(args.out, tables["exp1"].read(), tables["exp2"].read(), tables["datasets"].read(),
                        quick=args.quick, store=store)
    print(f"ramp: report written to {path} (results store {store})")
    return 0


if __name__ == "__main__":  # pragma: no cover
    raise SystemExit(main())
