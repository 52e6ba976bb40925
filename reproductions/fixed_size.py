"""Reproduction protocol of paper 002 (De Brabanter et al., 2010): FS-LSSVM against LIBSVM-style baselines.

Usage (the shared convention of ``python -m reproductions``)::

    SVMOPT_DATA=<datasets dir> python -m reproductions fixed_size --quick [--out DIR] [--jobs N] [--seed S]
    SVMOPT_DATA=<datasets dir> python -m reproductions fixed_size --figures-only   # figures into the report
    python -m reproductions fixed_size --report-only [--results DIR]             # the report from the store

Every run appends its rows to the results store (:mod:`reproductions.store`; ``--results DIR``, by default the
committed ``reproductions/results`` for a full run and ``OUT/results`` with ``--quick``), then writes
``DIR/fixed_size.md`` from the whole store: the paper's tables come from ``reproductions/tables/fixed_size_*.csv``
and the fixed prose from ``reproductions/templates/fixed_size*.md``; this module only computes values and tables.

* ``cv_timing`` -- Tables 3–4: one CV evaluation at fixed (gamma = 1, sigma^2 = d), fast (Algorithm 3) vs the
  simple one (each fold's system solved anew), for the m and v of the tables.
* the quick run: the CV timings, then per data set RBF FS-LSSVM (the paper's m, full CSA + simplex tuning), the
  majority rule and one SVM baseline tuned with 20 CSA + 10 simplex evaluations of 5-fold CV (time extrapolated to
  the full 160 x 10).

Figures (PNG beside the report; :mod:`reproductions.figures`; without matplotlib the report says so):

* Figure 2 -- ``performance_vs_prototypes``: test performance against m on the paper's split sizes, each m tuned
  by the full CSA + simplex, with the full LS-SVM as the horizontal line. Decision: the LS-SVM baseline is the
  same estimator with every training point as a prototype (m = n) and the bias not penalized
  (``regularize_bias=False``): with m = n the Nyström map is exact (Phi Phi^T = Omega), so the primal ridge is the
  LS-SVM system of Section 2, tuned by the same CSA + simplex, or for large n (``--fig2-baseline fixed``) fitted
  once with the (gamma, sigma^2) of the largest-m model.
* Figures 3-4 -- ``cv_timing`` rows with the paper's Tables 3-4 drawn pale for comparison.

Full protocol (``--tables``; every finished fit is appended at once to the store, jobs already there are skipped,
so an interrupted run resumes)::

    python -m reproductions fixed_size --tables 1 3 8 10 12 ftc ftc1e6 flops [--datasets ...] [--seeds N]
        [--methods ...] [--m M] [--fs-budget 90 70] [--svm-budget 20 10 5] [--tune-subsample N] [--svm-cpu-cap S]

* ``1`` -- Table 1: boston_housing, 30 splits, ``prototype_selection`` "entropy" vs "random".
* ``8`` / ``12`` / ``10`` -- Tables 8-13: RBF and Lin FS-LSSVM (``fs_lssvm_run``; 1vs1 and MOC on the multi-class
  sets), majority rule, and the sklearn baselines (``baseline_run``) tuned by the same ``csa_simplex``.
* ``ftc`` / ``ftc1e6`` -- the covertype stand-in (``synthetic_covertype``, np.memmap) and a 10^6-row set of the
  same generator at fixed hyperparameters (``ftc_run``).
* ``3`` / ``flops`` -- the CV timings of Tables 3-4 and the flop throughput of one CV evaluation.

The report's "What was run" section derives each command from the stored rows.
"""

from __future__ import annotations

import argparse
import functools
import math
import re
import time
import warnings
from collections.abc import Sequence
from dataclasses import dataclass
from functools import partial
from pathlib import Path

import numpy as np
import pandas as pd

from reproductions import TABLES
from reproductions._cli import add_figure_arguments, check_protocol_arguments, protocol_parser, results_dir
from reproductions._parallel import parallel_map
from reproductions.figures import figures_section
from reproductions.report import join_words, load_items, load_template, render
from reproductions.store import open_table
from svmopt._shared.splits import random_folds
from svmopt.fixed_size.cv_engine import CVEngine, holdout_cheaper, simple_cv_cost
from svmopt.fixed_size.estimators import FixedSizeLSSVC, FixedSizeLSSVR
from svmopt.fixed_size.tuning import csa_simplex

MODULE_NAME = "fixed_size"

PAPER_FOLDS = (5, 10, 20, 30, 40, 50)
"""The fold counts of the paper's Tables 3-4 (also those of ``--tables 3``)."""


@functools.cache
def paper_table(name: str) -> pd.DataFrame:
    """The paper's published table ``reproductions/tables/fixed_size_<name>.csv``: ``datasets`` (Tables 5-7:
    n_CV, n_test, m), ``scores`` (Tables 1, 8, 10, 12: mean and sd per data set, method and measure), ``times``
    (Tables 9, 11, 13), ``nsv`` (# PV / # SV), ``tables3_4`` (one CV evaluation, simple and fast) and ``setup``
    (the paper's machine, Section 7.2)."""
    return pd.read_csv(TABLES / f"{MODULE_NAME}_{name}.csv")


def _sd(x) -> float | None:
    return None if x != x else float(x)


@dataclass
class Paper:
    """The paper's tables in the shapes the report uses (read from ``reproductions/tables``)."""

    info: dict  # data -> n_cv, n_test, m, task, short
    t1: dict  # method -> (mean, sd)
    acc: dict  # table ("8", "10") -> method -> data -> (mean, sd); "12": ... -> ((l2), (l1), (linf))
    time: dict  # table ("9", "11", "13") -> method -> data -> (mean, sd)
    nsv: dict  # method -> data -> # PV / # SV
    t34: dict  # data -> m -> (simple per fold count, fast per fold count)
    setup: dict  # name -> value

    def of_task(self, task: str) -> tuple[str, ...]:
        return tuple(d for d, v in self.info.items() if v["task"] == task)

    @property
    def cores(self) -> int:
        return int(self.setup["cores"])


@functools.cache
def paper() -> Paper:
    """The paper's tables, read once from ``reproductions/tables``."""
    ds = paper_table("datasets")
    info = {r.data: dict(n_cv=int(r.n_cv), n_test=int(r.n_test), m=int(r.m), task=r.task, short=r.short)
            for r in ds.itertuples()}
    sc = paper_table("scores")
    acc: dict = {}
    t1 = {}
    for r in sc.itertuples():
        cell = (float(r.mean), _sd(r.sd))
        if int(r.table) == 1:
            t1[r.method] = cell
        elif int(r.table) == 12:
            acc.setdefault("12", {}).setdefault(r.method, {}).setdefault(r.data, {})[r.measure] = cell
        else:
            acc.setdefault(str(int(r.table)), {}).setdefault(r.method, {})[r.data] = cell
    for dd in acc.get("12", {}).values():
        for d, ms in dd.items():
            dd[d] = tuple(ms[k] for k in ("l2", "l1", "linf"))
    time_: dict = {}
    for r in paper_table("times").itertuples():
        time_.setdefault(str(int(r.table)), {}).setdefault(r.method, {})[r.data] = (float(r.seconds), _sd(r.sd))
    nsv: dict = {}
    for r in paper_table("nsv").itertuples():
        nsv.setdefault(r.method, {})[r.data] = int(r.n)
    t34: dict = {}
    for (d, m), g in paper_table("tables3_4").groupby(["data", "m"], sort=False):
        g = g.set_index("v").reindex(PAPER_FOLDS)
        t34.setdefault(d, {})[int(m)] = (tuple(g["simple"]), tuple(g["fast"]))
    setup = dict(zip(paper_table("setup")["name"], paper_table("setup")["value"], strict=True))
    return Paper(info, t1, acc, time_, nsv, t34, setup)


def _paper_ftc_s() -> float:
    """The paper's Table 9 seconds of RBF FS-LSSVM on covertype."""
    return paper().time["9"]["RBF FS-LSSVM"]["ftc"][0]


def _short(name: str) -> str:
    return paper().info.get(name, {}).get("short", name)


def paper_timing_rows(data: str) -> list[dict]:
    """The paper's Table 3 (concrete) or 4 (magic) as ``cv_timing``-like rows (m, v, simple, fast)."""
    return [dict(m=m, v=v, simple=s, fast=f) for m, (simple, fast) in paper().t34[data].items()
            for v, s, f in zip(PAPER_FOLDS, simple, fast, strict=True)]


def _timing_figure_label(data: str) -> str:
    t = paper_table("tables3_4")
    tab = t.loc[t["data"] == data, "table"]
    return f"Figure {int(tab.iloc[0])}" if len(tab) else "Figure 3-4 style"


@dataclass
class Timer:
    wall: float = 0.0
    cpu: float = 0.0

    def __enter__(self):
        self._w, self._c = time.perf_counter(), time.process_time()
        return self

    def __exit__(self, *exc):
        self.wall = time.perf_counter() - self._w
        self.cpu = time.process_time() - self._c


def _load(name):
    from svmopt.datasets import load_dataset

    if name == "adult":
        return load_dataset(name, categorical="codes")
    return load_dataset(name)


def _rbf(sigma2):
    from svmopt import _core

    return _core.kernels.KernelParams(_core.kernels.KernelKind.rbf, alpha=math.sqrt(sigma2 / 2))


def _cv_problem(X, y):
    """The timing protocols' CV problem: standardized columns (C order), the target standardized (regression) or
    coded +-1 (the larger of two labels +1), and the task."""
    X = np.ascontiguousarray((X - X.mean(0)) / np.where(X.std(0) > 0, X.std(0), 1))
    if y.dtype.kind == "f":
        return X, (y - y.mean()) / y.std(), "regression"
    return X, np.where(y == np.unique(y)[1], 1.0, -1.0), "classification"


def cv_timing(name: str, ms, vs=(5, 10, 20, 50), reps: int = 3, seed: int = 0, min_seconds: float = 2.0,
              max_reps: int = 40, threads: int = 1) -> list[dict]:
    """Tables 3–4: wall seconds of one CV evaluation, fast vs simple, best of at least ``reps`` (fast) and
    ``max(1, reps // 2)`` (simple) repetitions, interleaved so that a change of the machine's load hits both; cells
    whose repetitions take less than ``min_seconds`` repeat further (up to ``max_reps`` pairs), so that the
    millisecond cells get as many chances at an undisturbed run as the long ones (a best-of-5 of a 1 ms evaluation
    on a loaded machine varied by 10%). One untimed warm-up evaluation per m. Both variants run on ``threads``
    threads (the core's OpenMP loops and the BLAS; default one core, whatever the environment says: with two, the
    fast variant's v fold factorizations run in parallel while the simple one's single solve per fold cannot)."""
    from threadpoolctl import threadpool_limits

    with threadpool_limits(threads, user_api="blas"):
        return _cv_timing(name, ms, vs, reps, seed, min_seconds, max_reps, threads)


def _cv_timing(name, ms, vs, reps, seed, min_seconds, max_reps, threads) -> list[dict]:
    X, yy, task = _cv_problem(*_load(name))
    rng = np.random.default_rng(seed)
    rows = []
    d = X.shape[1]
    for m in ms:
        PV = np.ascontiguousarray(X[rng.choice(X.shape[0], m, replace=False)])
        warm = random_folds(X.shape[0], vs[0], rng)
        CVEngine(lambda: iter([(X, yy.reshape(-1, 1))]), warm, vs[0], PV, _rbf, task, n_features=d,
                 n_threads=threads).cost(1.0, d)
        for v in vs:
            folds = random_folds(X.shape[0], v, rng)
            fast, simple = math.inf, math.inf
            n_fast = n_simple = 0
            spent = 0.0
            while n_fast < reps or n_simple < max(1, reps // 2) or (spent < min_seconds and n_fast < max_reps):
                with Timer() as t:
                    eng = CVEngine(lambda: iter([(X, yy.reshape(-1, 1))]), folds, v, PV, _rbf, task, n_features=d,
                                   n_threads=threads)
                    a = eng.cost(1.0, float(d))
                fast, n_fast, spent = min(fast, t.wall), n_fast + 1, spent + t.wall
                if n_simple < max(1, reps // 2) or spent < min_seconds:
                    with Timer() as t:
                        b = simple_cv_cost(X, yy, folds, PV, _rbf(float(d)), 1.0, task, n_threads=threads)
                    simple, n_simple, spent = min(simple, t.wall), n_simple + 1, spent + t.wall
            rows.append(dict(data=name, m=m, v=v, fast=fast, simple=simple, speedup=simple / fast,
                             agree=abs(a - b) <= 1e-9 * max(1.0, abs(a))))
    return rows


def paper_flop_ratio(n: int, m: int, v: int) -> float:
    """The paper's own operation counts (Section 7.1): simple / proposed = ((4/3) v m^3 + (2v - 2) n m^2) /
    ((v/3 + 1) m^3 + 2 n m^2), the speed-up an implementation with equal efficiency in both variants reaches."""
    return (4 / 3 * v * m**3 + (2 * v - 2) * n * m**2) / ((v / 3 + 1) * m**3 + 2 * n * m**2)


def cv_flops(n: int, m: int, m_eff: int, d: int, v: int, k: int = 1) -> dict:
    """Floating-point operations (a multiply and an add count two) of one fast CV evaluation at a new sigma^2 with
    the v-Cholesky realization: RBF kernel n m (3d), Nyström features 2 n m m', per-fold Gram (syrk) n p (p + 1)
    with p = m' + 1, eigendecomposition of Omega_mm at LAPACK's reduction + back-transformation count
    4/3 m^3 + 2 m^2 m' (the divide-and-conquer step, data dependent, not counted), v Cholesky p^3/3 with 2 p^2 k
    for the solves, and the fold predictions 2 n p k."""
    p = m_eff + 1
    parts = dict(kernel=3.0 * n * m * d, features=2.0 * n * m * m_eff, gram=float(n) * p * (p + 1),
                 eig=4 / 3 * m**3 + 2.0 * m * m * m_eff, solves=v * (p**3 / 3 + 2.0 * p * p * k),
                 predict=2.0 * n * p * k)
    parts["total"] = sum(parts.values())
    return parts


def dgemm_gflops(size: int = 2000, threads: int | None = 1, reps: int = 3) -> float:
    """This machine's dgemm throughput (numpy's BLAS, ``size`` x ``size``, best of ``reps``) in GFLOP/s, on
    ``threads`` BLAS threads (None: the BLAS default)."""
    from threadpoolctl import threadpool_limits

    rng = np.random.default_rng(0)
    A, B = rng.standard_normal((size, size)), rng.standard_normal((size, size))
    best = math.inf
    with threadpool_limits(threads, user_api="blas"):
        for _ in range(reps):
            with Timer() as t:
                A @ B
            best = min(best, t.wall)
    return 2.0 * size**3 / best / 1e9


def cv_throughput(name: str, m: int | None = None, v: int = 10, reps: int = 3, seed: int = 0) -> dict:
    """One fast CV evaluation at a new sigma^2 on the training part of ``name``'s split (the cost the tuning pays
    at almost every CSA / simplex step: the sigma^2 cache rarely hits), its flop count (:func:`cv_flops`) and the
    GFLOP/s it reaches, beside numpy's dgemm on one core in the same process. CPU seconds, best of ``reps`` (each
    repetition a different sigma^2)."""
    Xtr, ytr, _, _, _ = paper_split(name, seed)
    m = int(m or paper().info[name]["m"])
    X, yy, task = _cv_problem(Xtr, ytr)
    rng = np.random.default_rng(seed)
    PV = np.ascontiguousarray(X[rng.choice(X.shape[0], m, replace=False)])
    folds = random_folds(X.shape[0], v, rng)
    d = X.shape[1]
    best, m_eff, holdout = math.inf, m, False
    for r in range(reps):
        eng = CVEngine(lambda: iter([(X, yy.reshape(-1, 1))]), folds, v, PV, _rbf, task, n_features=d, n_threads=1)
        sigma2 = float(d) * 2.0**r
        with Timer() as t:
            eng.cost(1.0, sigma2)
        best = min(best, t.cpu)
        s = eng.stats(sigma2)
        m_eff, holdout = s["P"].shape[1], bool(s["holdout"])
    f = cv_flops(X.shape[0], m, m_eff, d, v)
    g1 = dgemm_gflops(threads=1)
    return dict(data=name, n=X.shape[0], d=d, m=m, m_eff=m_eff, v=v, holdout=holdout, cpu=best,
                gflop=f["total"] / 1e9, gflops=f["total"] / best / 1e9, dgemm_1core=g1,
                **{f"gflop_{k}": x / 1e9 for k, x in f.items() if k != "total"})


# ------------------------------------------------------------------------------------------ Figure 2
def paper_split(name: str, seed: int, n_test: int | None = None):
    """The paper's split of ``name`` (n_CV training rows, n_test test rows of one random permutation)."""
    info = paper().info[name]
    X, y = _load(name)
    n_cv = info["n_cv"]
    n_test = info["n_test"] if n_test is None else n_test
    if n_cv + n_test > X.shape[0]:
        n_cv = X.shape[0] - n_test
    perm = np.random.default_rng(seed).permutation(X.shape[0])
    tr, te = perm[:n_cv], perm[n_cv:n_cv + n_test]
    return X[tr], y[tr], X[te], y[te], ("regression" if y.dtype.kind == "f" else "classification")


def _score(task: str, pred, yte, ytr) -> float:
    """Accuracy (%) for classification; MSE on the training target's standardized scale for regression."""
    if task == "regression":
        return float(np.mean(((pred - yte) / ytr.std(ddof=1)) ** 2))
    return 100.0 * float(np.mean(pred == yte))


def _fit_score(name: str, seed: int, job: tuple[int, bool], n_csa: int = 90, n_simplex: int = 70,
               hyper: tuple[float, float] | None = None) -> dict:
    m, baseline = job
    Xtr, ytr, Xte, yte, task = paper_split(name, seed)
    cls = FixedSizeLSSVR if task == "regression" else FixedSizeLSSVC
    m = min(int(m), Xtr.shape[0])
    gamma, sigma2 = hyper if hyper is not None else (None, None)
    est = cls(n_prototypes=m, random_state=seed, regularize_bias=not baseline, n_csa=n_csa, n_simplex=n_simplex,
              gamma=gamma, sigma2=sigma2, gamma_search="csa")
    t0 = time.perf_counter()
    est.fit(Xtr, ytr)
    score = _score(task, est.predict(Xte), yte, ytr)
    return dict(data=name, seed=seed, m=est.n_prototypes_, baseline=baseline, score=score,
                gamma=float(est.gamma_), sigma2=float(est.sigma2_), wall=time.perf_counter() - t0)


def performance_vs_prototypes(name: str, ms: Sequence[int], *, seed: int = 0, baseline: str | None = "auto",
                              n_jobs: int = 1, n_csa: int = 90, n_simplex: int = 70) -> tuple[list[dict], dict | None]:
    """Data of Figure 2: the test score of FS-LSSVM for each m in ``ms`` on the paper's split of ``name``, and
    the full LS-SVM's (m = n, bias not penalized; see the module docstring).

    Every FS-LSSVM is tuned by CSA (``n_csa``) + simplex (``n_simplex``) on its own fast 10-fold CV. The LS-SVM
    baseline: ``"tuned"`` -- tuned the same way (its CV costs O(n^3) per evaluation); ``"fixed"`` -- with the
    (gamma, sigma^2) of the largest-m model, one fit (for large n); ``"auto"`` -- tuned up to n_CV = 1000, else
    fixed; ``None`` -- none. The fits are independent
    and run through :func:`svmopt.fixed_size.dask_engine.parallel_map` (``n_jobs``).
    Returns ``(rows, baseline_row)``; rows have ``m`` and ``score`` (accuracy % or MSE), the baseline row also
    ``hyper`` ("tuned" / "fixed").
    """
    if name not in paper().info or name == "ftc":
        raise ValueError(f"name must be one of {sorted(set(paper().info) - {'ftc'})}, got {name!r}")
    if baseline not in ("auto", "tuned", "fixed", None):
        raise ValueError(f"baseline must be 'auto', 'tuned', 'fixed' or None, got {baseline!r}")
    ms = sorted({int(m) for m in ms})
    if not ms or ms[0] < 1:
        raise ValueError(f"ms must hold integers >= 1, got {ms!r}")
    n = paper().info[name]["n_cv"]
    if baseline == "auto":
        baseline = "tuned" if n <= 1000 else "fixed"
    jobs = [(m, False) for m in ms] + ([(n, True)] if baseline == "tuned" else [])
    res = parallel_map(partial(_fit_score, name, seed, n_csa=n_csa, n_simplex=n_simplex), jobs, n_jobs=n_jobs,
                       desc=f"Figure 2 ({name})")
    rows = [r for r in res if not r["baseline"]]
    base = next((r for r in res if r["baseline"]), None)
    if baseline == "fixed":
        big = rows[-1]
        base = _fit_score(name, seed, (n, True), hyper=(big["gamma"], big["sigma2"]))
    if base is not None:
        base["hyper"] = baseline
    return rows, base


FIG2_M = {"spambase": (10, 25, 50, 100, 200, 400), "boston_housing": (10, 25, 50, 100, 200, 338),
          "pima": (10, 25, 50, 150, 300), "concrete": (10, 25, 60, 120, 300)}
FIG2_M_QUICK = {"spambase": (25, 100, 200), "boston_housing": (10, 25, 50, 100, 200),
                "pima": (10, 50, 150), "concrete": (10, 50, 120)}


def write_figures(out_dir: str | Path, *, timing_rows: Sequence[dict], fig2_data: Sequence[str] = ("boston_housing",),
                  fig2_m: Sequence[int] | None = None, quick: bool = False, seed: int = 0, n_jobs: int = 1,
                  fig2_budget: tuple[int, int] = (90, 70), fig2_baseline: str | None = "auto",
                  dpi: int = 120) -> list[tuple[str, str]]:
    """Write Figures 2-4 as PNG files in ``out_dir``; returns ``[(file name, caption)]``.

    ``timing_rows``: ``cv_timing`` rows (one figure per data set; concrete and magic get the paper's Table 3 / 4
    drawn pale beside them). ``fig2_data``: the data sets of Figure 2 (the paper: spambase and boston_housing).
    """
    from reproductions.figures import plot_cv_time_vs_folds, plot_performance_vs_prototypes
    from svmopt.plotting import new_figure, save_figure

    out_dir = Path(out_dir)
    figures = []
    by_data: dict[str, list[dict]] = {}
    for r in timing_rows:
        by_data.setdefault(r["data"], []).append(r)
    for name, rows in by_data.items():
        table = name in paper().t34
        label = _timing_figure_label(name)
        fig, axes = new_figure(1, 1, figsize=(8.2, 4.8))
        ref = paper_timing_rows(name) if table else None
        plot_cv_time_vs_folds(rows, ax=axes[0, 0], reference=ref, title=f"{label}: one CV evaluation, {name}")
        fname = f"{MODULE_NAME}_cv_time_{name}.png"
        save_figure(fig, out_dir / fname, dpi=dpi)
        figures.append((fname, f"{label}: seconds of one CV evaluation against the number of folds on {name}, "
                               "simple (full) and fast Algorithm 3 (dashed), this machine"
                               + ("; the paper's table pale" if table else "")))
    if fig2_data:
        fig, axes = new_figure(1, len(fig2_data), figsize=(5.6 * len(fig2_data), 4.4))
        notes = []
        for ax, name in zip(axes.ravel(), fig2_data, strict=True):
            ms = fig2_m or (FIG2_M_QUICK if quick else FIG2_M).get(name, (10, 50, 100))
            t0 = time.perf_counter()
            rows, base = performance_vs_prototypes(name, ms, seed=seed, n_jobs=n_jobs, n_csa=fig2_budget[0],
                                                   n_simplex=fig2_budget[1], baseline=fig2_baseline)
            if base is not None:
                base_note = f"LS-SVM {base['hyper']}"
            else:
                base_note = "no LS-SVM"
            task = "regression" if paper().info[name]["task"] == "regression" else "classification"
            plot_performance_vs_prototypes(
                rows, ax=ax, baseline=None if base is None else base["score"],
                baseline_label=(f"LS-SVM (m = n = {base['m']}" + (", tuned)" if base["hyper"] == "tuned" else
                                                                  ", hyperparameters of the largest m)"))
                if base else "LS-SVM",
                ylabel="test MSE (standardized target)" if task == "regression" else "test accuracy (%)",
                title=f"Figure 2: {name}, n_CV = {paper().info[name]['n_cv']}, "
                      f"n_test = {paper().info[name]['n_test']}")
            notes.append(f"{name}: m in {list(ms)}, {base_note} ({time.perf_counter() - t0:.0f} s)")
        fname = f"{MODULE_NAME}_figure2.png"
        save_figure(fig, out_dir / fname, dpi=dpi)
        figures.append((fname, "Figure 2: test performance against the number of prototype vectors, each model "
                               f"tuned by CSA + simplex ({fig2_budget[0]} + {fig2_budget[1]} evaluations), seed "
                               f"{seed}; " + "; ".join(notes)))
    return figures

# ------------------------------------------------------------------------------ the results store
RESULT_FIELDS = ("table", "data", "method", "seed", "m", "n_train", "n_test", "score", "l1", "linf", "n_sv", "wall",
                 "cpu", "tune_cpu", "fit_cpu", "cpu_full_est", "budget", "params", "phases", "peak_rss_mb", "note")
TIMING_FIELDS = ("data", "m", "v", "simple", "fast", "speedup", "agree")
THROUGHPUT_FIELDS = ("data", "n", "d", "m", "m_eff", "v", "holdout", "cpu", "gflop", "gflops", "dgemm_1core",
                     "gflop_kernel", "gflop_features", "gflop_gram", "gflop_eig", "gflop_solves", "gflop_predict")
_FIT_KEY = ("table", "data", "method", "seed", "m", "budget")
STORE = {"table1": (RESULT_FIELDS, _FIT_KEY), "binary": (RESULT_FIELDS, _FIT_KEY),
         "multiclass": (RESULT_FIELDS, _FIT_KEY), "ftc": (RESULT_FIELDS, _FIT_KEY),
         "cvtiming": (TIMING_FIELDS, ("data", "m", "v")), "throughput": (THROUGHPUT_FIELDS, ("data",))}
"""The store's tables ``fixed_size_<group>.csv``: (columns, key). A fit's row replaces a stored one with the same
table, data set, method, seed, m and budget (a rerun of that job); a timing cell replaces the same (data, m, v)."""
RESULT_FILES = {"1": "table1", "8": "binary", "12": "binary", "10": "multiclass", "ftc": "ftc", "3": "cvtiming"}
_TEXT = ("table", "data", "method", "budget", "params", "phases", "note", "agree", "holdout")
FS_METHODS = ("RBF FS-LSSVM", "Lin FS-LSSVM", "RBF FS-LSSVM (MOC)", "RBF FS-LSSVM (1vs1)", "Lin FS-LSSVM (1vs1)",
              "Lin FS-LSSVM (MOC)")
SVM_METHODS = ("RBF C-SVC", "Lin C-SVC", "RBF nu-SVC", "eps-SVR", "nu-SVR", "Nystroem+Ridge")


def results_table(results: str | Path, group: str):
    """The store's table of ``group`` (a key of :data:`STORE`) in the directory ``results``."""
    return open_table(results, f"{MODULE_NAME}_{group}", key=list(STORE[group][1]))


def store_rows(results: str | Path, group: str, rows: Sequence[dict]) -> None:
    """Append ``rows`` (their :data:`STORE` columns; missing ones empty) to the store's table of ``group``."""
    if not rows:
        return
    fields = STORE[group][0]
    frame = pd.DataFrame([{k: r.get(k) for k in fields} for r in rows], columns=list(fields))
    results_table(results, group).append(frame)


def read_group(results: str | Path, group: str) -> list[dict]:
    """The rows of one table of the store: numbers as floats (missing: NaN), the text columns as text ("" when
    empty), ``agree`` / ``holdout`` as "True" / "False"."""
    df = results_table(results, group).read()
    out = []
    for rec in df.to_dict("records"):
        row = {}
        for k, v in rec.items():
            if k in _TEXT:
                row[k] = "" if v is None or (isinstance(v, float) and v != v) else str(v)
            else:
                row[k] = math.nan if v is None or v is pd.NA else float(v)
        out.append(row)
    return out


def _peak_rss_mb() -> float:
    import resource

    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024.0


def _task(y) -> str:
    return "regression" if np.asarray(y).dtype.kind == "f" else "classification"


def _scores(task: str, pred, yte, sd: float = 1.0) -> dict:
    """Accuracy (%) or the L2 / L1 / Linf test errors on the target's standardized scale (``sd``: the training
    target's sample sd)."""
    if task == "regression":
        e = (pred - yte) / sd
        return dict(score=float(np.mean(e ** 2)), l1=float(np.mean(np.abs(e))), linf=float(np.max(np.abs(e))))
    return dict(score=100.0 * float(np.mean(pred == yte)))


def fs_lssvm_run(name: str, seed: int, *, kernel: str = "rbf", multiclass: str = "ovo", m: int | None = None,
                 n_csa: int = 90, n_simplex: int = 70, prototype_selection: str = "entropy", table: str = "8",
                 split=None) -> dict:
    """One FS-LSSVM randomization on the paper's split of ``name``: fit (bandwidths, PV, tuning, final fit) and
    test, timed in wall and process CPU seconds, with the estimator's per-phase wall times."""
    Xtr, ytr, Xte, yte, task = split if split is not None else paper_split(name, seed)
    m = int(m or paper().info[name]["m"])
    cls = FixedSizeLSSVR if task == "regression" else FixedSizeLSSVC
    kw = dict(multiclass=multiclass) if task != "regression" else {}
    est = cls(n_prototypes=m, kernel=kernel, random_state=seed, n_csa=n_csa, n_simplex=n_simplex,
              prototype_selection=prototype_selection, gamma_search="csa", **kw)
    with Timer() as t:
        est.fit(Xtr, ytr)
        pred = est.predict(Xte)
    g, s2 = np.atleast_1d(est.gamma_), np.atleast_1d(est.sigma2_)
    lin = kernel == "linear"
    method = ("Lin" if lin else "RBF") + " FS-LSSVM"
    if task == "classification" and np.unique(ytr).size > 2:
        method += " (1vs1)" if multiclass == "ovo" else " (MOC)"
    if table == "1":
        method = prototype_selection
    return dict(table=table, data=name, method=method, seed=seed, m=0 if lin else est.n_prototypes_,
                n_train=len(ytr), n_test=len(yte), n_sv=0 if lin else est.n_prototypes_, wall=t.wall, cpu=t.cpu,
                budget=f"{n_csa}+{n_simplex}, 10-fold fast CV",
                params=f"gamma {np.median(g):.3g}" + ("" if lin else f", sigma2 {np.median(s2):.3g}")
                + (f" (median of {g.size} problems)" if g.size > 1 else ""),
                phases=" ".join(f"{k}={v:.2f}" for k, v in est.timings_.items()), peak_rss_mb=_peak_rss_mb(),
                **_scores(task, pred, yte, float(np.std(ytr, ddof=1)) if task == "regression" else 1.0))


def majority_run(name: str, seed: int, table: str = "8", split=None) -> dict:
    _, ytr, _, yte, _ = split if split is not None else paper_split(name, seed)
    return dict(table=table, data=name, method="Maj. rule", seed=seed, m=0, n_train=len(ytr), n_test=len(yte),
                score=100.0 * float(np.mean(yte == _mode(ytr))), wall=0.0, cpu=0.0, budget="-")


def _baseline_space(method: str, task: str, d: int, m: int, seed: int):
    """(make(x) -> sklearn estimator, lower, upper, initial box lower, upper) of a baseline."""
    from sklearn.kernel_approximation import Nystroem
    from sklearn.linear_model import Ridge, RidgeClassifier
    from sklearn.multiclass import OneVsOneClassifier
    from sklearn.pipeline import make_pipeline
    from sklearn.svm import SVC, SVR, LinearSVC, NuSVC, NuSVR

    lg = -math.log(d)
    svm = dict(cache_size=1000, tol=1e-3, shrinking=True)

    def nu(u):
        return 0.8 / (1.0 + math.exp(-u))

    if method == "RBF C-SVC":
        return (lambda x: SVC(C=math.exp(x[0]), gamma=math.exp(x[1]), **svm)), [-5, lg - 10], [10, lg + 10], \
            [0, lg - 3], [5, lg + 3]
    if method == "Lin C-SVC":  # LIBSVM's linear C-SVC; log C boxed to [-5, 5] (its time explodes with C)
        return (lambda x: SVC(kernel="linear", C=math.exp(x[0]), **svm)), [-5], [5], [-3], [2]
    if method == "Lin C-SVC (liblinear)":  # LinearSVC where LIBSVM's linear kernel is hopeless; 1vs1 as LIBSVM
        return (lambda x: OneVsOneClassifier(LinearSVC(C=math.exp(x[0]), tol=1e-3, max_iter=5000,
                                                       random_state=seed))), [-10], [10], [-5], [2]
    if method == "RBF nu-SVC":
        return (lambda x: NuSVC(nu=nu(x[0]), gamma=math.exp(x[1]), **svm)), [-7, lg - 10], [7, lg + 10], \
            [-3, lg - 3], [3, lg + 3]
    if method == "eps-SVR":
        return (lambda x: SVR(C=math.exp(x[0]), gamma=math.exp(x[1]), epsilon=0.1, **svm)), [-5, lg - 10], \
            [10, lg + 10], [0, lg - 3], [5, lg + 3]
    if method == "nu-SVR":
        return (lambda x: NuSVR(C=math.exp(x[0]), nu=nu(x[1]), gamma=math.exp(x[2]), **svm)), [-5, -7, lg - 10], \
            [10, 7, lg + 10], [0, -3, lg - 3], [5, 3, lg + 3]
    if method == "Nystroem+Ridge":
        ridge = Ridge if task == "regression" else RidgeClassifier
        return (lambda x: make_pipeline(Nystroem(gamma=math.exp(x[1]), n_components=m, random_state=seed),
                                        ridge(alpha=math.exp(x[0])))), [-15, lg - 10], [10, lg + 10], \
            [-6, lg - 3], [2, lg + 3]
    raise ValueError(f"unknown baseline method {method!r}; expected one of {SVM_METHODS}")


def _n_sv(model) -> int:
    if hasattr(model, "support_"):
        return int(model.support_.size)
    if hasattr(model, "steps"):
        return int(model.steps[0][1].n_components)
    return 0


def baseline_run(method: str, name: str, seed: int, *, n_csa: int = 20, n_simplex: int = 10, folds: int = 5,
                 m: int | None = None, tune_subsample: int | None = None, fixed: Sequence[float] | None = None,
                 fit_subsample: int | None = None, table: str = "8", split=None,
                 cpu_cap: float | None = None) -> dict:
    """A sklearn baseline tuned by the same CSA + simplex (``n_csa`` + ``n_simplex`` evaluations of ``folds``-fold
    sklearn CV) on the standardized inputs (and target), then fitted on the training part and tested.

    ``cpu_cap``: stop the tuning once it has used this many process CPU seconds, keep the best point evaluated so
    far, and mark the row ``capped``. Its ``tune_cpu`` is then a *lower bound* on the full tuning's time (the
    full budget would have taken longer), which is how the ">= 10x less time than SVC tuned the same way" claim is
    measured on magic and adult without running SVC's 1,600 fits to the end; ``cpu_full_est`` extrapolates.

    ``tune_subsample``: tune on the first rows of the (random) training part only; ``fixed``: no tuning, these
    parameters (in the search space's coordinates); ``fit_subsample``: the final fit too on a subsample (ftc *).
    ``cpu_full_est`` extrapolates the tuning CPU time linearly to the paper's 160 evaluations x 10 folds (only when
    the tuning ran on the whole training part)."""
    from sklearn.exceptions import ConvergenceWarning
    from sklearn.model_selection import KFold, StratifiedKFold, cross_val_score
    from sklearn.preprocessing import StandardScaler

    Xtr, ytr, Xte, yte, task = split if split is not None else paper_split(name, seed)
    m = int(m or paper().info.get(name, {}).get("m", 200))
    with Timer() as tt:
        sc = StandardScaler().fit(Xtr)
        Xs, Xt = sc.transform(Xtr), sc.transform(Xte)
        ys, yt = ytr, yte
        if task == "regression":
            mu, sd = ytr.mean(), ytr.std(ddof=1)
            ys, yt = (ytr - mu) / sd, (yte - mu) / sd
        make, lo, hi, ilo, ihi = _baseline_space(method, task, Xs.shape[1], m, seed)
        n_tune = Xs.shape[0] if tune_subsample is None else min(int(tune_subsample), Xs.shape[0])
        Xu, yu = Xs[:n_tune], ys[:n_tune]
        cv = (KFold(folds, shuffle=True, random_state=seed) if task == "regression"
              else StratifiedKFold(folds, shuffle=True, random_state=seed))
        bad = math.inf if task == "regression" else 1.0

        def cost(x):
            try:
                with warnings.catch_warnings():
                    warnings.simplefilter("ignore", ConvergenceWarning)
                    s = cross_val_score(make(x), Xu, yu, cv=cv, error_score="raise",
                                        scoring="neg_mean_squared_error" if task == "regression" else "accuracy")
            except ValueError:  # an infeasible nu
                return bad
            return float(-s.mean()) if task == "regression" else 1.0 - float(s.mean())

        capped = False
        if fixed is not None:
            x, n_evals = np.asarray(fixed, float), 0
        else:
            q = max(1, min(5, n_csa))
            x0 = np.random.default_rng(seed).uniform(ilo, ihi, (q, len(lo)))
            seen = _BestSoFar(cost, cpu_cap)
            try:
                r = csa_simplex(seen, x0, lo, hi, n_csa=n_csa, n_simplex=n_simplex, seed=seed)
                x, n_evals = r.x, r.history.shape[0]
            except _CapReached:
                if seen.x is None:
                    raise
                x, n_evals, capped = seen.x, seen.n, True
    n_fit = Xs.shape[0] if fit_subsample is None else min(int(fit_subsample), Xs.shape[0])
    with Timer() as tf:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", ConvergenceWarning)
            model = make(x).fit(Xs[:n_fit], ys[:n_fit])
        pred = model.predict(Xt)
    full = n_tune == Xs.shape[0] and fixed is None
    factor = (160 * 10) / (max(n_evals, 1) * folds)
    if fixed is not None:
        budget = "fixed hyperparameters *"
    else:
        budget = f"{n_csa}+{n_simplex}, {folds}-fold" + ("" if full else f", tuned on {n_tune} rows")
    if capped:
        budget += f", stopped at the {cpu_cap:g} CPU-s cap after {n_evals} evaluations"
    if n_fit < Xs.shape[0]:
        budget += f", fit on {n_fit} rows *"
    sc_ = _scores(task, pred, yt)  # regression: yt is on the training target's standardized scale already
    return dict(table=table, data=name, method=method, seed=seed, m=m if method == "Nystroem+Ridge" else 0,
                n_train=len(ytr), n_test=len(yte), n_sv=_n_sv(model), wall=tt.wall + tf.wall, cpu=tt.cpu + tf.cpu,
                tune_cpu=tt.cpu, fit_cpu=tf.cpu, cpu_full_est=(tt.cpu * factor + tf.cpu) if full else math.nan,
                budget=budget, params=" ".join(f"{v:.3g}" for v in x), peak_rss_mb=_peak_rss_mb(),
                n_evals=n_evals, capped=capped, **sc_)


class _CapReached(Exception):
    """Raised inside the tuning's cost when the CPU cap of :func:`baseline_run` is used up."""


class _BestSoFar:
    """Wraps a tuning cost: counts evaluations, keeps the best point, raises :class:`_CapReached` once ``cap`` process
    CPU seconds have passed since construction. The cap is checked before each evaluation but the first, so at least
    one point is always evaluated and the last evaluation may overshoot the cap."""

    def __init__(self, cost, cap: float | None):
        self.cost, self.cap, self.t0 = cost, cap, time.process_time()
        self.n, self.x, self.fun = 0, None, math.inf

    def __call__(self, x):
        if self.n and self.cap is not None and time.process_time() - self.t0 >= self.cap:
            raise _CapReached
        e = self.cost(x)
        self.n += 1
        if e < self.fun:
            self.fun, self.x = e, np.array(x, dtype=float)
        return e


# ------------------------------------------------------------------------------ covertype stand-in (synthetic)
N_COVERTYPE = 581_012


def synthetic_covertype(n: int = N_COVERTYPE, seed: int = 0, *, directory: str | Path | None = None,
                        block: int = 65_536) -> tuple[np.ndarray, np.ndarray]:
    """A synthetic stand-in for Forest Covertype (class 2 vs rest): ``n`` x 54 float32 rows written block by block
    to an ``np.memmap`` in ``directory`` (a new temporary directory by default), and int64 labels in {0, 1}.

    Columns: 10 correlated numeric (Gaussian through a fixed mixing matrix), then 4 "wilderness" and 40 "soil"
    one-hot columns (one category each, non-uniform frequencies). Label: ``f(x) + 0.3 noise > 0`` with
    f = 1.2 sin(1.5 z0) + 0.8 z1 z2 - 0.5 (z3^2 - 1) + 0.6 tanh(z4 + z5) + a wilderness and a soil effect
    (centred), then 5% of the labels flipped: nonlinear, roughly balanced, Bayes rate about 90%. Deterministic in
    (n, seed, block): block b draws from ``default_rng([seed, b])``, the fixed structure from
    ``default_rng([seed, 2**31])``."""
    import tempfile

    if n < 1 or block < 1:
        raise ValueError(f"n and block must be >= 1, got n={n!r}, block={block!r}")
    directory = Path(tempfile.mkdtemp(prefix="svmopt_covtype_")) if directory is None else Path(directory)
    directory.mkdir(parents=True, exist_ok=True)
    X = np.memmap(directory / f"covertype_synth_{n}_{seed}.f32", dtype=np.float32, mode="w+", shape=(n, 54))
    y = np.empty(n, dtype=np.int64)
    g = np.random.default_rng([seed, 2**31])
    A = np.eye(10) + 0.3 * g.standard_normal((10, 10)) / math.sqrt(10)
    p_wild = np.array([0.45, 0.05, 0.44, 0.06])
    p_soil = g.dirichlet(np.full(40, 0.7))
    w_wild = g.normal(0, 0.8, 4)
    w_wild -= p_wild @ w_wild
    w_soil = g.normal(0, 0.8, 40)
    w_soil -= p_soil @ w_soil
    for b, s in enumerate(range(0, n, block)):
        nb = min(block, n - s)
        r = np.random.default_rng([seed, b])
        Z = r.standard_normal((nb, 10))
        num = Z @ A
        wild = r.choice(4, nb, p=p_wild)
        soil = r.choice(40, nb, p=p_soil)
        f = (1.2 * np.sin(1.5 * Z[:, 0]) + 0.8 * Z[:, 1] * Z[:, 2] - 0.5 * (Z[:, 3] ** 2 - 1)
             + 0.6 * np.tanh(Z[:, 4] + Z[:, 5]) + w_wild[wild] + w_soil[soil])
        lab = (f + 0.3 * r.standard_normal(nb) > 0)
        lab ^= r.random(nb) < 0.05
        out = np.zeros((nb, 54), dtype=np.float32)
        out[:, :10] = num
        out[np.arange(nb), 10 + wild] = 1.0
        out[np.arange(nb), 14 + soil] = 1.0
        X[s:s + nb] = out
        y[s:s + nb] = lab
    X.flush()
    return X, y


def ftc_svc_run(Xtr, ytr, Xte, yte, seed: int, *, svc_rows: int = 20_000, tune_rows: int = 2_000,
                svm_budget=(20, 10, 3)) -> dict:
    """The ftc RBF C-SVC (*): (C, g) tuned by CSA + simplex on the first ``tune_rows`` rows, then one fit on the
    first ``svc_rows`` training rows (not all: LIBSVM's O(n^2)-O(n^3) training is the paper's reason for the *)."""
    sub = (np.asarray(Xtr[:svc_rows], dtype=np.float64), ytr[:svc_rows], Xte, yte, "classification")
    r = baseline_run("RBF C-SVC", "ftc", seed, n_csa=svm_budget[0], n_simplex=svm_budget[1], folds=svm_budget[2],
                     tune_subsample=tune_rows, split=sub, table="ftc")
    r.update(n_train=len(ytr), budget=r["budget"] + f", fit on {min(svc_rows, len(ytr))} of {len(ytr)} rows *")
    return r


def ftc_run(seed: int = 0, *, n_train: int = 531_012, n_test: int = 50_000, m: int = 500, tune_rows: int = 20_000,
            svc_rows: int = 20_000, n_csa: int = 90, n_simplex: int = 70, directory=None, hyper=None,
            data: str = "ftc", with_baselines: bool = True, svm_budget=(20, 10, 3)) -> list[dict]:
    """The covertype stand-in protocol: (gamma, sigma^2) tuned by CSA + simplex on the first ``tune_rows``
    training rows (or ``hyper`` given: no tuning), then the final FS-LSSVM fit streamed from the memmap over all
    ``n_train`` rows, tested on ``n_test`` rows; Lin FS-LSSVM tuned on all rows; RBF C-SVC with (C, g) tuned on
    2,000 rows and fitted on ``svc_rows`` rows (:func:`ftc_svc_run`) and LinearSVC at C = 1 on all rows (the
    paper's * entries)."""
    import shutil
    import tempfile

    rows = []
    own_dir = directory is None  # a temporary directory of ours: removed at the end
    if own_dir:
        directory = tempfile.mkdtemp(prefix="svmopt_covtype_")
    with Timer() as tg:
        X, y = synthetic_covertype(n_train + n_test, seed, directory=directory)
    Xtr, ytr = X[:n_train], y[:n_train]
    Xte, yte = np.asarray(X[n_train:], dtype=np.float64), y[n_train:]
    note = f"synthetic covertype stand-in, data generation {tg.wall:.1f} s wall"
    base = dict(table="ftc", data=data, seed=seed, n_train=n_train, n_test=n_test)
    maj = 100.0 * float(np.mean(yte == _mode(ytr)))
    rows.append(dict(base, method="Maj. rule", m=0, score=maj, wall=0.0, cpu=0.0, budget="-", note=note))
    all_rows = hyper is None and tune_rows >= n_train  # the paper's protocol: tuned on every training row
    est = None
    with Timer() as tt:
        if all_rows:  # streamed from the memmap: each new sigma^2 is one pass (two: the CV predictions)
            est = FixedSizeLSSVC(n_prototypes=m, random_state=seed, n_csa=n_csa, n_simplex=n_simplex,
                                 gamma_search="csa")
            est.fit(Xtr, ytr)
            hyper = (float(est.gamma_), float(est.sigma2_))
            tune_phases = "tuned and fitted on all rows:"
            budget = f"{n_csa}+{n_simplex} on all {n_train} rows (streamed), the tuned fit"
        elif hyper is None:
            sub = FixedSizeLSSVC(n_prototypes=m, random_state=seed, n_csa=n_csa, n_simplex=n_simplex,
                                 gamma_search="csa")
            sub.fit(np.asarray(Xtr[:tune_rows], dtype=np.float64), ytr[:tune_rows])
            hyper = (float(sub.gamma_), float(sub.sigma2_))
            tune_phases = " ".join(f"tune_{k}={v:.2f}" for k, v in sub.timings_.items())
            budget = f"{n_csa}+{n_simplex} on {tune_rows} rows, final fit streamed over {n_train}"
        else:
            tune_phases = "hyperparameters given"
            budget = f"fixed (gamma, sigma2), fit streamed over {n_train}"
    tune_cpu = tt.cpu
    with Timer() as tf:
        if est is None:
            est = FixedSizeLSSVC(n_prototypes=m, random_state=seed, gamma=hyper[0], sigma2=hyper[1])
            est.fit(Xtr, ytr)
    with Timer() as tp:
        pred = est.predict(Xte)
    rows.append(dict(base, method="RBF FS-LSSVM [tuned on all rows]" if all_rows else "RBF FS-LSSVM",
                     m=est.n_prototypes_, n_sv=est.n_prototypes_,
                     score=100.0 * float(np.mean(pred == yte)), wall=tt.wall + tf.wall + tp.wall,
                     cpu=tt.cpu + tf.cpu + tp.cpu, tune_cpu=tune_cpu, fit_cpu=tf.cpu, budget=budget,
                     params=f"gamma {hyper[0]:.3g}, sigma2 {hyper[1]:.3g}",
                     phases=tune_phases + " " + " ".join(f"{k}={v:.2f}" for k, v in est.timings_.items())
                     + f" predict={tp.wall:.2f}", peak_rss_mb=_peak_rss_mb(), note=note))
    if with_baselines:
        from sklearn.svm import LinearSVC

        lin = FixedSizeLSSVC(kernel="linear", random_state=seed, n_csa=n_csa, n_simplex=n_simplex)
        with Timer() as tl:
            lin.fit(Xtr, ytr)
            pl = lin.predict(Xte)
        rows.append(dict(base, method="Lin FS-LSSVM", m=0, score=100.0 * float(np.mean(pl == yte)), wall=tl.wall,
                         cpu=tl.cpu, budget=f"{n_csa}+{n_simplex} on all {n_train} rows",
                         params=f"gamma {lin.gamma_:.3g}", peak_rss_mb=_peak_rss_mb(), note=note))
        mu, sd = est.x_mean_, est.x_scale_
        svc = ftc_svc_run(Xtr, ytr, Xte, yte, seed, svc_rows=svc_rows, tune_rows=min(2_000, svc_rows),
                          svm_budget=svm_budget)
        rows.append(dict(svc, data=data, n_test=n_test, note=note))
        with Timer() as tl2:
            Xall = (np.asarray(Xtr, dtype=np.float64) - mu) / sd
            with warnings.catch_warnings():
                warnings.simplefilter("ignore")
                lsvc = LinearSVC(C=1.0, tol=1e-3, max_iter=2000, random_state=seed).fit(Xall, ytr)
            pl2 = lsvc.predict((Xte - mu) / sd)
            del Xall
        rows.append(dict(base, method="Lin C-SVC (liblinear)", m=0, score=100.0 * float(np.mean(pl2 == yte)),
                         wall=tl2.wall, cpu=tl2.cpu, fit_cpu=tl2.cpu,
                         budget=f"fixed C = 1 *, fit on all {n_train} rows",
                         params="1", peak_rss_mb=_peak_rss_mb(), note=note))
    del X, Xtr
    if own_dir:
        shutil.rmtree(directory, ignore_errors=True)
    return rows


# ------------------------------------------------------------------------------ table drivers
DEFAULT_METHODS = {
    "1": ("entropy", "random"),
    "8": ("RBF FS-LSSVM", "Lin FS-LSSVM", "Maj. rule", "RBF C-SVC", "Lin C-SVC", "RBF nu-SVC", "Nystroem+Ridge"),
    "12": ("RBF FS-LSSVM", "eps-SVR", "nu-SVR", "Nystroem+Ridge"),
    "10": ("RBF FS-LSSVM (1vs1)", "RBF FS-LSSVM (MOC)", "Lin FS-LSSVM (1vs1)", "Lin FS-LSSVM (MOC)", "Maj. rule",
           "RBF C-SVC", "Lin C-SVC", "Nystroem+Ridge"),
}


def run_table(table: str, datasets: Sequence[str], seeds: Sequence[int], results: str | Path, *,
              methods: Sequence[str] | None = None, m: int | None = None, fs_budget=(90, 70), svm_budget=(20, 10, 5),
              tune_subsample: int | None = None, svm_cpu_cap: float | None = None, force: bool = False,
              log=print) -> list[dict]:
    """Run the jobs of ``table`` ("1", "8", "12" or "10") for every data set and seed, appending each finished
    row to the results store ``results`` at once; jobs already there (same data, method, seed, m, and for a
    baseline the same kind of budget) are skipped unless ``force``. A failing job is logged and skipped."""
    group = RESULT_FILES[table]
    methods = tuple(methods or DEFAULT_METHODS[table])
    # Done jobs: same data, method, seed, m, and for the SVM baselines the same kind of budget (the paper's whole
    # budget, _full_budget, or a reduced one).
    done = set() if force else {(r["data"], r["method"], int(r["seed"]), int(r["m"]), _full_budget(r))
                                for r in read_group(results, group)}
    full = tuple(svm_budget) == (90, 70, 10) and not tune_subsample
    out = []
    for name in datasets:
        m_req = int(m or paper().info[name]["m"])
        for seed in seeds:
            split = None
            for meth in methods:
                uses_m = meth in ("entropy", "random", "Nystroem+Ridge") or meth.startswith("RBF FS-LSSVM")
                baseline = meth != "Maj. rule" and "FS-LSSVM" not in meth and table != "1"
                if (name, meth, seed, m_req if uses_m else 0, baseline and full) in done:
                    continue
                split = split or paper_split(name, seed)
                t0 = time.perf_counter()
                try:
                    if table == "1":
                        row = fs_lssvm_run(name, seed, m=m_req, n_csa=fs_budget[0], n_simplex=fs_budget[1],
                                           prototype_selection=meth, table="1", split=split)
                    elif meth == "Maj. rule":
                        row = majority_run(name, seed, table=table, split=split)
                    elif "FS-LSSVM" in meth:
                        row = fs_lssvm_run(name, seed, kernel="linear" if meth.startswith("Lin") else "rbf",
                                           multiclass="moc" if "MOC" in meth else "ovo", m=m_req, n_csa=fs_budget[0],
                                           n_simplex=fs_budget[1], table=table, split=split)
                        row["method"] = meth
                    else:
                        n_csa, n_simplex, folds = svm_budget
                        row = baseline_run(meth, name, seed, n_csa=n_csa, n_simplex=n_simplex, folds=folds, m=m_req,
                                           tune_subsample=tune_subsample, table=table, split=split,
                                           cpu_cap=svm_cpu_cap)
                except Exception as exc:  # one failed job must not lose the batch
                    log(f"FAILED {table} {name} {meth} seed {seed}: {type(exc).__name__}: {exc}")
                    continue
                store_rows(results, group, [row])
                out.append(row)
                log(f"[{table}] {name} {meth} seed {seed}: score {row['score']:.4g} cpu {row['cpu']:.1f} s "
                    f"({time.perf_counter() - t0:.1f} s wall)")
    return out


def _mode(y):
    vals, counts = np.unique(y, return_counts=True)
    return vals[np.argmax(counts)]


# ------------------------------------------------------------------------------ report from the results CSVs
def _mean_sd(vals) -> tuple[float, float, int]:
    v = np.asarray([x for x in vals if x == x], dtype=float)
    if v.size == 0:
        return math.nan, math.nan, 0
    return float(v.mean()), (float(v.std(ddof=1)) if v.size > 1 else math.nan), int(v.size)


def _fmt_ms(mean: float, sd: float, digits: int = 2) -> str:
    if mean != mean:
        return "–"
    return f"{mean:.{digits}f}" + (f" ({sd:.{digits}f})" if sd == sd else "")


def _fmt_paper(p, digits: int = 2) -> str:
    if p is None:
        return "–"
    mean, sd = p
    return f"{mean:g}" + (" (*)" if sd is None else f" ({sd:g})")


def _fmt_s(x: float) -> str:
    if x != x:
        return "–"
    return f"{x:,.0f}" if x >= 100 else (f"{x:.1f}" if x >= 1 else f"{x:.2f}")


def _fmt_ratio(x: float) -> str:
    """A time ratio: two decimals from 0.1 up, "1/k" below (k rounded)."""
    if x != x or x <= 0:
        return "–"
    return f"{x:.2f}" if x >= 0.1 else f"1/{1 / x:,.0f}"


def _groups(rows: Sequence[dict]) -> dict[tuple[str, str], list[dict]]:
    """Rows by (data, method); FS-LSSVM rows at an m other than the paper's get their own "[m = ...]" method."""
    g: dict[tuple[str, str], list[dict]] = {}
    for r in rows:
        meth = r["method"]
        m = r.get("m")
        if "FS-LSSVM" in meth and m == m and m and int(m) != paper().info.get(r["data"], {}).get("m", int(m)):
            meth = f"{meth} [m = {int(m)}]"
        elif _full_budget(r):
            meth = f"{meth} {FULL_BUDGET}"
        g.setdefault((r["data"], meth), []).append(r)
    return g


FULL_BUDGET = "[90+70 × 10-fold]"


def _full_budget(r: dict) -> bool:
    """A baseline row (an SVM or Nystroem+Ridge) tuned with the paper's whole budget (CSA 90 + simplex 70, 10-fold
    CV, all training rows), possibly stopped at a CPU cap. FS-LSSVM rows, the majority rule, Table 1's selections
    ("entropy" / "random", whose budget is FS-LSSVM's) and rows tuned on a subsample are not."""
    b = r.get("budget") or ""
    return (_base(r["method"]) in SVM_METHODS and str(r.get("table", "")) != "1" and b.startswith("90+70, 10-fold")
            and "tuned on" not in b)


def _base(method: str) -> str:
    """The paper's name of one of our method labels (without "[m = ...]", "[90+70 ...]" and " (liblinear)")."""
    return method.split(" [")[0].replace(" (liblinear)", "")


def _methods(g, paper: dict) -> list[str]:
    """Paper methods first (in the paper's order), each followed by its variants (other m, liblinear), then ours."""
    ours = list(dict.fromkeys(k[1] for k in g))
    order = list(paper)
    return sorted(dict.fromkeys(order + ours), key=lambda k: (order.index(_base(k)) if _base(k) in order
                                                               else len(order), k != _base(k), k))


def _budget_text(rs: Sequence[dict]) -> str:
    b = sorted({r.get("budget") or "" for r in rs})
    ms = sorted({int(r["m"]) for r in rs if r.get("m") == r.get("m") and r.get("m")})
    return "; ".join(x for x in b if x) + (f"; m = {', '.join(map(str, ms))}" if len(ms) > 1 else "")


def _time_cell(rs: Sequence[dict]) -> tuple[float, float, float]:
    """(mean CPU s, sd, mean full-protocol estimate (NaN when none))."""
    c = _mean_sd([r["cpu"] for r in rs])
    e = _mean_sd([r.get("cpu_full_est", math.nan) for r in rs])
    return c[0], c[1], e[0]


# ------------------------------------------------------------------------------ the report's tables
N_CSA, N_SIMPLEX, FOLDS = 90, 70, 10
"""The paper's tuning budget (CSA evaluations, simplex evaluations, CV folds): FS-LSSVM's, and the "full" one."""
CSA_PROCESSES = 5
TIMING_REPS, TIMING_MIN_SECONDS, TIMING_MAX_REPS, AGREE_TOL = 5, 2.0, 40, 1e-9
DGEMM_SIZE, FLOPS_REPS = 2000, 3
BOX_RBF_C, BOX_LIN_C, BOX_NU = (-5, 10), (-5, 5), (-7, 7)
COV_NUMERIC, COV_WILD, COV_SOIL, COV_FLIP = 10, 4, 40, 0.05


def _pipe(header: Sequence[str], rows: Sequence[Sequence]) -> str:
    return "\n".join(["| " + " | ".join(header) + " |", "|" + "---|" * len(header)]
                     + ["| " + " | ".join(str(c) for c in r) + " |" for r in rows])


def _bounds(ours: float, paper_wall: float) -> str:
    from reproductions.report import bounds_text

    return bounds_text(ours, paper_wall, paper().cores) if ours == ours and paper_wall == paper_wall else "–"


def _protocol(meth: str, rs: Sequence[dict]) -> str:
    """How far a row group's tuning is from the paper's (CSA 90 + simplex 70, 10-fold CV of all training rows)."""
    if meth == "Maj. rule":
        return "–"
    tags = []
    for b in sorted({r.get("budget") or "" for r in rs}):
        mb = re.match(r"(\d+)\+(\d+)(?:, (\d+)-fold)?", b)
        if "fixed" in b:
            tags.append("fixed hyperparameters *")
        else:
            if mb and (int(mb.group(1)), int(mb.group(2))) != (N_CSA, N_SIMPLEX):
                tags.append(f"reduced: {mb.group(1)} + {mb.group(2)} evaluations")
            if mb and mb.group(3) and int(mb.group(3)) != FOLDS:
                tags.append(f"reduced: {mb.group(3)}-fold")
        if "tuned on" in b or re.search(r"on (\d+) rows, final fit", b):
            tags.append("reduced: tuned on a subsample")
        if "stopped at" in b:
            tags.append("reduced: CPU cap")
        if re.search(r"fit on \d+ (of \d+ )?rows \*", b):
            tags.append("fit on a subsample *")
    tags = list(dict.fromkeys(tags))
    return "; ".join(tags) if tags else "full"


def table1_table(rows: Sequence[dict]) -> str:
    g = _groups(rows)
    out = []
    for meth in ("entropy", "random"):
        rs = g.get(("boston_housing", meth), [])
        mean, sd, n = _mean_sd([r["score"] for r in rs])
        pm, ps = paper().t1[meth]
        out.append([meth, n, _fmt_ms(mean, sd, 4), f"{pm:g} ({ps:g})", _fmt_s(_mean_sd([r["cpu"] for r in rs])[0])])
    return _pipe(["selection", "runs", "test MSE mean (sd), ours", "paper", "CPU s per fit, mean"], out)


def _timing_cells(rows: Sequence[dict]) -> list[tuple]:
    """(data, m, v, ours, paper, flop ratio, row) of the cells of Tables 3-4, in the paper's order."""
    order = {d: i for i, d in enumerate(paper().t34)}
    cells = []
    for r in sorted(rows, key=lambda r: (order.get(r["data"], 99), r["data"], int(r["m"]), int(r["v"]))):
        ref = paper().t34.get(r["data"], {}).get(int(r["m"]))
        n = _timing_n(r["data"])
        flop = paper_flop_ratio(n, int(r["m"]), int(r["v"])) if n else math.nan
        p = math.nan
        if ref and int(r["v"]) in PAPER_FOLDS:
            k = PAPER_FOLDS.index(int(r["v"]))
            p = ref[0][k] / ref[1][k]
        cells.append((r["data"], int(r["m"]), int(r["v"]), r["simple"] / r["fast"], p, flop, r))
    return cells


def _timing_n(data: str) -> int | None:
    t = paper_table("tables3_4")
    n = t.loc[t["data"] == data, "n"]
    return int(n.iloc[0]) if len(n) else None


def timing_table(rows: Sequence[dict]) -> str:
    out = []
    for data, m, v, ours, p, flop, r in _timing_cells(rows):
        ref = paper().t34.get(data, {}).get(m)
        cell = f"{ref[0][PAPER_FOLDS.index(v)]:g} / {ref[1][PAPER_FOLDS.index(v)]:g}" if p == p else "–"
        n = _timing_n(data)
        solve = ("holdout" if holdout_cheaper(n, m + 1, v) else "v Cholesky") if n else "–"
        out.append([data, m, v, f"{r['simple']:.3f}", f"{r['fast']:.4f}", f"{ours:.1f}x", cell,
                    f"{p:.1f}x" if p == p else "–", f"{flop:.1f}x" if flop == flop else "–", solve, r["agree"]])
    return _pipe(["data", "m", "v", "simple [s]", "fast [s]", "speedup", "paper simple / fast [s]", "paper speedup",
                  "paper flop ratio", "fold solve", "same score"], out) if out else "No timing cells in the store."


def timing_text(rows: Sequence[dict]) -> str:
    cells = [c for c in _timing_cells(rows) if c[4] == c[4]]
    if not cells:
        return ""
    n_ok = sum(o >= p for _, _, _, o, p, _, _ in cells)
    n_80 = sum(o >= 0.8 * p for _, _, _, o, p, _, _ in cells)
    text = (f"Our speed-up reaches the paper's in {n_ok} of {len(cells)} cells and 80% of it in {n_80}. A simple "
            "CV as efficient per flop as the fast one gives about the paper's own flop ratio (Section 7.1);")
    for name in dict.fromkeys(c[0] for c in cells):
        cs = [c for c in cells if c[0] == name and c[5] == c[5]]
        if cs:
            above = sum(p > f for *_, p, f, _ in [(c[3], c[4], c[5], c[6]) for c in cs])
            top = max(c[4] / c[5] for c in cs)
            mid = float(np.median([c[3] / c[5] for c in cs]))
            text += (f" on {name} the paper's measured speed-up exceeds that ratio in {above} of {len(cs)} cells (by "
                     f"up to {top:.1f}x), ours reaches {mid:.0%} of it in the median cell;")
    return text.rstrip(";") + "."


def throughput_table(rows: Sequence[dict]) -> str:
    out = [[_short(r["data"]), f"{int(r['n']):,}", f"{int(r['m'])} ({int(r['m_eff'])})",
            f"{r['gflop']:.1f} ({r['gflop_features']:.1f} / {r['gflop_gram']:.1f} / {r['gflop_eig']:.1f} / "
            f"{r['gflop_solves']:.1f})", f"{r['cpu']:.2f}", f"{r['gflops']:.1f}", f"{r['dgemm_1core']:.1f}",
            f"{r['gflops'] / r['dgemm_1core']:.0%}", f"{(N_CSA + N_SIMPLEX) * r['gflop']:,.0f}"] for r in rows]
    return _pipe(["data", "n", "m (m')", "GFLOP per evaluation (features / Gram / eig / solves)", "CPU s", "GFLOP/s",
                  "dgemm GFLOP/s (1 core)", "fraction of dgemm", f"{N_CSA + N_SIMPLEX} evaluations [GFLOP]"],
                 out) if out else "No throughput measurements in the store."


def _svc_ref(g, name: str) -> float:
    """Our RBF C-SVC's (or eps-SVR's) full-protocol CPU seconds for ``name`` (measured with the whole budget, else
    the extrapolated estimate); NaN when it was tuned on a subsample or not tuned (no comparable figure)."""
    for meth in (f"RBF C-SVC {FULL_BUDGET}", "RBF C-SVC", f"eps-SVR {FULL_BUDGET}", "eps-SVR"):
        rs = g.get((name, meth))
        if rs and _time_cell(rs)[2] == _time_cell(rs)[2]:
            return _time_cell(rs)[2]
    return math.nan


def _full_budget_rows(rows: Sequence[dict]) -> list[dict]:
    """Per (data, method, seed) of a whole-budget baseline: the SVM row, the FS-LSSVM row of the same seed, the
    evaluations done (None: all) and the ratio / score difference."""
    g = _groups(rows)
    out = []
    for name, meth in sorted(k for k in g if k[1].endswith(FULL_BUDGET)):
        fs = {int(r["seed"]): r for r in g.get((name, "RBF FS-LSSVM"), [])}
        for r in sorted(g[(name, meth)], key=lambda r: int(r["seed"])):
            f = fs.get(int(r["seed"]))
            n_ev = re.search(r"after (\d+) evaluations", r.get("budget") or "")
            out.append(dict(data=name, method=_base(meth), seed=int(r["seed"]), svm=r, fs=f,
                            done=int(n_ev.group(1)) if n_ev else None,
                            ratio=r["cpu"] / f["cpu"] if f else math.nan,
                            diff=f["score"] - r["score"] if f else math.nan))
    return out


def full_budget_table(rows: Sequence[dict]) -> str:
    out = []
    for x in _full_budget_rows(rows):
        r, f, reg = x["svm"], x["fs"], paper().info.get(x["data"], {}).get("task") == "regression"
        prec = 4 if reg else 2
        capped = x["done"] is not None
        out.append([_short(x["data"]), x["method"], x["seed"],
                    f"{x['done']} of {N_CSA + N_SIMPLEX} (cap)" if capped else N_CSA + N_SIMPLEX,
                    _fmt_s(r["cpu"]), _fmt_s(r.get("cpu_full_est", math.nan)) if capped else _fmt_s(r["cpu"]),
                    f"{r['score']:.{prec}f}", _fmt_s(f["cpu"]) if f else "–", f"{f['score']:.{prec}f}" if f else "–",
                    f"{'≥ ' if capped else ''}{x['ratio']:.1f}x" if f else "–",
                    f"{x['diff']:+.{prec}f}" if f else "–"])
    return _pipe(["data", "method", "seed", "SVM evaluations done", "SVM CPU s", "SVM full est. [CPU s]", "SVM score",
                  "FS-LSSVM CPU s (same seed)", "FS-LSSVM score", "SVM / FS-LSSVM time", "score FS − SVM"],
                 out) if out else "No baseline was tuned with the whole budget."


def _full_budget_summary(rows: Sequence[dict]) -> list[tuple]:
    """(data, method, ratios, diffs, capped) per whole-budget baseline with an FS-LSSVM row on the same seeds."""
    by: dict = {}
    for x in _full_budget_rows(rows):
        if x["fs"] is not None:
            by.setdefault((x["data"], x["method"]), []).append(x)
    return [(d, m, [x["ratio"] for x in xs], [x["diff"] for x in xs], any(x["done"] is not None for x in xs))
            for (d, m), xs in by.items()]


def full_budget_text(rows: Sequence[dict]) -> str:
    parts = []
    for d, m, ratios, diffs, _capped in _full_budget_summary(rows):
        if len(ratios) < 2:
            continue
        reg = paper().info.get(d, {}).get("task") == "regression"
        what = (f"test MSE {float(np.mean(diffs)):+.4f} on average" if reg else
                f"accuracy {float(np.mean(diffs)):+.2f} points on average")
        parts.append(f"{_short(d)} {m}: time ratio {min(ratios):.1f}–{max(ratios):.1f}x (median "
                     f"{float(np.median(ratios)):.1f}x) over {len(ratios)} splits, FS-LSSVM − SVM {what}")
    return ("Over the splits: " + "; ".join(parts) + ".") if parts else ""


def _full_budget_sets(rows: Sequence[dict]) -> str:
    s = _full_budget_summary(rows)
    done = sorted({_short(d) for d, _, _, _, c in s if not c})
    cap = sorted({_short(d) for d, _, _, _, c in s if c})
    out = []
    if done:
        out.append(f"The tuning ran to the end ({N_CSA + N_SIMPLEX} evaluations) on {', '.join(done)}.")
    if cap:
        out.append(f"On {', '.join(cap)}, running the {(N_CSA + N_SIMPLEX) * FOLDS:,} fits to the end would take "
                   "hours per split on this machine, so the tuning stopped at a CPU cap.")
    return " ".join(out)


def accuracy_table(rows: Sequence[dict], data: Sequence[str], table: str, regression: bool = False) -> str:
    g = _groups(rows)
    paper_acc = paper().acc[table]
    methods = _methods(g, paper_acc)
    out = []
    for name in data:
        for meth in methods:
            rs = g.get((name, meth), [])
            pa = paper_acc.get(_base(meth), {}).get(name)
            variants = [k for k in g if k[0] == name and k[1] != meth and _base(k[1]) == meth]
            if not rs and (pa is None or meth not in paper_acc or variants):
                continue
            if regression:
                ours = " / ".join(_fmt_ms(*_mean_sd([r[f] for r in rs])[:2], 3 if f != "linf" else 2)
                                  for f in ("score", "l1", "linf")) if rs else "not run"
                pap = " / ".join(_fmt_paper(p) for p in pa) if pa else "–"
            else:
                ours = _fmt_ms(*_mean_sd([r["score"] for r in rs])[:2], 2) if rs else "not run"
                pap = _fmt_paper(pa)
            nsv = _mean_sd([r.get("n_sv", math.nan) for r in rs])[0]
            base = _base(meth).replace(" (1vs1)", "").replace(" (MOC)", "")
            pn = paper().nsv.get(base, {}).get(name)
            if meth == "Maj. rule" or base.startswith("Lin"):
                nsv_txt, pn_txt = "–", "–"
            else:
                nsv_txt, pn_txt = (f"{nsv:,.0f}" if nsv == nsv else "–"), (f"{pn:,}" if pn else "–")
            out.append([_short(name), meth, len(rs), ours, pap, nsv_txt, pn_txt, _budget_text(rs) if rs else ""])
    return _pipe(["data", "method", "runs", "ours", "paper", "# PV / # SV ours", "paper", "budget of our run"], out)


def time_table(rows: Sequence[dict], data: Sequence[str], acc_table: str, table: str,
               regression: bool = False) -> str:
    g = _groups(rows)
    paper_time = paper().time[table]
    methods = _methods(g, paper().acc[acc_table])
    svm_name = "eps-SVR" if regression else "RBF C-SVC"
    out = []
    for name in data:
        ref = _svc_ref(g, name)
        for meth in methods:
            rs = g.get((name, meth), [])
            pt = paper_time.get(_base(meth), {}).get(name)
            variants = [k for k in g if k[0] == name and k[1] != meth and _base(k[1]) == meth]
            if meth == "Maj. rule" or (not rs and (pt is None or meth not in paper_time or variants)):
                continue
            c, sd, e = _time_cell(rs) if rs else (math.nan, math.nan, math.nan)
            ours = e if e == e else c
            psv = paper_time.get(svm_name, {}).get(name)
            out.append([_short(name), meth, _protocol(meth, rs) if rs else "–", len(rs),
                        _fmt_ms(c, sd, 1 if c >= 1 else 3) if rs else "not run", _fmt_s(e), _fmt_paper(pt),
                        _bounds(ours, pt[0]) if pt else "–", _fmt_ratio(ours / ref) if ref == ref else "–",
                        f"{pt[0] / psv[0]:.2f}" if pt and psv else "–"])
    return _pipe(["data", "method", "protocol", "runs", "CPU s ours, mean (sd)", "full est. [CPU s]", "paper [s] (sd)",
                  f"paper / ours core-s (×1–×{paper().cores})", "ours / our RBF SVM", "paper: method / RBF SVM"], out)


def ftc_table(rows: Sequence[dict]) -> str:
    out = []
    for r in rows:
        pt = paper().time["9"].get(_base(r["method"]), {}).get("ftc") if r["data"] == "ftc" else None
        pa = paper().acc["8"].get(_base(r["method"]), {}).get("ftc") if r["data"] == "ftc" else None
        nsv = r.get("n_sv", math.nan)
        out.append([f"{r['data']} (seed {int(r['seed'])})", r["method"],
                    f"{r['score']:.2f}" + (f" (paper {_fmt_paper(pa)})" if pa else ""),
                    f"{nsv:,.0f}" if nsv == nsv else "–", r.get("budget", ""), _fmt_s(r["cpu"]), _fmt_s(r["wall"]),
                    f"{pt[0]:,g}" if pt else "–", _bounds(r["cpu"], pt[0]) if pt else "–", r.get("phases", ""),
                    _fmt_s(r.get("peak_rss_mb", math.nan))])
    return _pipe(["data", "method", "score (%)", "# PV / # SV", "budget", "CPU s", "wall s", "paper [s]",
                  f"paper / ours core-s (×1–×{paper().cores})", "phases (wall s)", "peak RSS [MB]"],
                 out) if out else "No covertype stand-in runs in the store."


# ------------------------------------------------------------------------------ the report's prose values
def _fs_cells(res: dict) -> list[dict]:
    """Every FS-LSSVM cell of Tables 8, 10, 12 at the paper's m on a real data set with a paper sd: ours, the
    paper's, and the distance in paper sds (positive: better than the paper; for regression lower is better)."""
    out = []
    for rows, table in ((res.get("binary", []), "8"), (res.get("binary", []), "12"), (res.get("multiclass", []), "10")):
        g = _groups(rows)
        for (data, meth), rs in g.items():
            reg = paper().info.get(data, {}).get("task") == "regression"
            if meth not in FS_METHODS or data == "ftc" or reg != (table == "12"):
                continue
            pa = paper().acc[table].get(meth, {}).get(data)
            if pa is None:
                continue
            mean, sd, n = _mean_sd([r["score"] for r in rs])
            pm, psd = pa[0] if reg else pa
            if psd is None or not psd:
                continue
            z = (pm - mean) / psd if reg else (mean - pm) / psd
            digits = 3 if reg else 2
            out.append(dict(table=table, data=data, method=meth, ours=_fmt_ms(mean, sd, digits),
                            paper=f"{pm:g} ({psd:g})", z=z, mean=mean, runs=n, reg=reg,
                            text=f"{_short(data)} {meth}: {mean:.{digits}f} vs {pm:g} ({z:+.1f})"))
    return out


def _mean_of(g, data: str, meth: str, field: str = "score") -> float:
    return _mean_sd([r[field] for r in g.get((data, meth), [])])[0]


def _below_item(c: dict, g: dict, it: dict) -> str:
    vals = dict(table=c["table"], data=_short(c["data"]), method=c["method"], ours=c["ours"], paper=c["paper"],
                n_sd=f"{abs(c['z']):.1f}", runs=c["runs"])
    d, m = c["data"], c["method"]
    if d == "spambase" and m == "RBF FS-LSSVM" and (d, "RBF C-SVC") in g:
        return render(it["nr_below_spambase_rbf"], dict(vals, svc=f"{_mean_of(g, d, 'RBF C-SVC'):.2f}"))
    if d == "spambase" and m == "Lin FS-LSSVM" and (d, "Lin C-SVC") in g:
        return render(it["nr_below_spambase_lin"], dict(vals, svc=f"{_mean_of(g, d, 'Lin C-SVC'):.2f}"))
    if d == "adult" and (d, "Maj. rule") in g:
        return render(it["nr_below_adult"], dict(vals, maj=f"{_mean_of(g, d, 'Maj. rule'):.2f}",
                                                  paper_maj=f"{paper().acc['8']['Maj. rule'][d][0]:g}"))
    if m == "RBF FS-LSSVM (MOC)" and d == "letter":
        small = [k for k in g if k[0] == d and k[1].startswith(f"{m} [m =")]
        if small:
            rs = g[small[0]]
            mean, sd, n = _mean_sd([r["score"] for r in rs])
            return render(it["nr_below_moc_letter"], dict(
                vals, cpu=_fmt_s(_mean_of(g, d, m, "cpu")), runs_small=n,
                ours_small=f"{_fmt_ms(mean, sd, 2)} at m = {int(rs[0]['m'])}"))
    if m == "RBF FS-LSSVM (MOC)":
        return render(it["nr_below_moc"], vals)
    if m == "Lin FS-LSSVM (1vs1)" and (d, "Lin C-SVC (liblinear)") in g:
        return render(it["nr_below_lin_1vs1"], dict(vals, svc=f"{_mean_of(g, d, 'Lin C-SVC (liblinear)'):.2f}",
                                                     paper_svc=_fmt_paper(paper().acc["10"]["Lin C-SVC"][d])))
    return render(it["nr_below"], dict(vals, direction="below"))


def _not_reproduced(res: dict, it: dict) -> list[str]:
    items = []
    g_bin, g_mc = _groups(res.get("binary", [])), _groups(res.get("multiclass", []))
    for c in sorted(_fs_cells(res), key=lambda c: (int(c["table"]), c["z"])):
        if c["z"] < -1:
            items.append(_below_item(c, g_mc if c["table"] == "10" else g_bin, it))
    fs = {int(r["seed"]): r for r in g_bin.get(("concrete", "RBF FS-LSSVM"), [])}
    svr = {int(r["seed"]): r for r in g_bin.get(("concrete", f"eps-SVR {FULL_BUDGET}"), [])}
    common = sorted(set(fs) & set(svr))
    if common and np.mean([svr[s]["score"] for s in common]) < np.mean([fs[s]["score"] for s in common]):
        ratios = [svr[s]["cpu"] / fs[s]["cpu"] for s in common]
        items.append(render(it["nr_ccs_svr"], dict(
            svr=f"{np.mean([svr[s]['score'] for s in common]):.3f}",
            fs=f"{np.mean([fs[s]['score'] for s in common]):.3f}",
            wins=sum(svr[s]["score"] < fs[s]["score"] for s in common), n=len(common),
            diff=f"{np.mean([fs[s]['score'] - svr[s]['score'] for s in common]):.4f}",
            ratio_lo=f"{min(ratios):.0f}", ratio_hi=f"{max(ratios):.0f}",
            svr_nsv=f"{_mean_of(g_bin, 'concrete', 'eps-SVR', 'n_sv'):.0f}",
            n_cv=paper().info["concrete"]["n_cv"], m=paper().info["concrete"]["m"])))
    cells = [c for c in _timing_cells(res.get("cvtiming", [])) if c[4] == c[4]]
    if cells:
        n_ok = sum(c[3] >= c[4] for c in cells)
        if n_ok < len(cells):
            reach = [c for c in cells if c[4] <= c[5]]
            items.append(render(it["nr_timing"], dict(
                n_ok=n_ok, n_cells=len(cells), n_80=sum(c[3] >= 0.8 * c[4] for c in cells), pct80="80",
                n_above=sum(c[4] > c[5] for c in cells), n_reach=len(reach),
                r_ok=sum(c[3] >= c[4] for c in reach))))
    for rows, table, data in ((res.get("binary", []) + [r for r in res.get("ftc", []) if r["data"] == "ftc"], "8",
                               paper().of_task("binary")), (res.get("multiclass", []), "10",
                                                            paper().of_task("multiclass"))):
        g = _groups(rows)
        for meth, dd in paper().acc[table].items():
            for d in data:
                has = any(k[0] == d and _base(k[1]) == meth for k in g)
                if d in dd and not has and meth != "Maj. rule":
                    why = {("shuttle", "RBF nu-SVC"): "why_nu_shuttle", ("ftc", "RBF nu-SVC"): "why_nu_ftc"}
                    if meth == "RBF FS-LSSVM (1vs1)" and d == "letter":
                        small = [k for k in g if k[0] == d and k[1].startswith(f"{meth} [m =")]
                        if small:
                            rs = g[small[0]]
                            items.append(render(it["nr_letter_1vs1"], dict(
                                paper_m=paper().info[d]["m"], m=int(rs[0]["m"]), budget=rs[0]["budget"],
                                runs=len(rs), ours=_fmt_ms(*_mean_sd([r["score"] for r in rs])[:2], 2),
                                paper=_fmt_paper(dd[d]),
                                pairs=(re.search(r"median of (\d+)", rs[0]["params"]) or [None, "?"])[1])))
                            continue
                    items.append(render(it["nr_not_run"], dict(
                        table=table, data=_short(d), method=meth, paper=_fmt_paper(dd[d]),
                        why=it[why.get((d, meth), "why_generic")])))
    if res.get("ftc"):
        items.append(it["nr_covertype"])
    return items


def _summary(res: dict, it: dict, n_nr: int) -> list[str]:
    out = []
    g1 = _groups(res.get("table1", []))
    e = {int(r["seed"]): r["score"] for r in g1.get(("boston_housing", "entropy"), [])}
    rnd = {int(r["seed"]): r["score"] for r in g1.get(("boston_housing", "random"), [])}
    common = sorted(set(e) & set(rnd))
    if len(common) >= 2:
        diff = np.array([rnd[s] - e[s] for s in common])
        se = diff.std(ddof=1) / math.sqrt(len(common))
        out.append(render(it["summary_table1"], dict(
            entropy=_fmt_ms(*_mean_sd(e.values())[:2], 4), random=_fmt_ms(*_mean_sd(rnd.values())[:2], 4),
            n=len(common), paper_entropy=_fmt_paper(paper().t1["entropy"]),
            paper_random=_fmt_paper(paper().t1["random"]), wins=int((diff > 0).sum()), diff=f"{diff.mean():.4f}",
            se=f"{se:.4f}", n_se=f"{diff.mean() / se:.1f}")))
    tc = _timing_cells(res.get("cvtiming", []))
    if tc:
        pc = [c for c in tc if c[4] == c[4]]
        out.append(render(it["summary_timing"], dict(
            lo=f"{min(c[3] for c in tc):.1f}", hi=f"{max(c[3] for c in tc):.1f}",
            n_agree=sum(str(c[6]["agree"]) == "True" for c in tc), n_rows=len(tc),
            n_ok=sum(c[3] >= c[4] for c in pc), n_cells=len(pc))))
    cells = _fs_cells(res)
    if cells:
        out.append(render(it["summary_accuracy"], dict(
            n_cells=len(cells), n_within=sum(abs(c["z"]) <= 1 for c in cells),
            n_better=sum(c["z"] > 1 for c in cells), n_below=sum(c["z"] < -1 for c in cells))))
    tb = _fs_time_cells(res)
    if tb:
        lo, hi = min(tb, key=lambda t: t[2]), max(tb, key=lambda t: t[2])
        out.append(render(it["summary_time"], dict(
            min_bounds=_bounds(lo[1], lo[2] * lo[1]), min_cell=lo[0], max_bounds=_bounds(hi[1], hi[2] * hi[1]),
            max_cell=hi[0], n_lo_above=sum(t[2] > 1 for t in tb), n_cells=len(tb), bound_lo="×1")))
    s = _full_budget_summary(res.get("binary", []))
    done = [(d, m, float(np.median(r))) for d, m, r, _, c in s if not c]
    cap = [(d, m, min(r)) for d, m, r, _, c in s if c]
    if done:
        out.append(render(it["summary_svm"], dict(
            sets=join_words(f"{_short(d)} {m}" for d, m, _ in done), lo=f"{min(x[2] for x in done):.1f}",
            hi=f"{max(x[2] for x in done):.1f}", capped=join_words(f"{_short(d)} {m}" for d, m, _ in cap) or "none",
            cap_lo=f"{min(x[2] for x in cap):.1f}" if cap else "–")))
    allrows = [r for r in res.get("ftc", []) if r["method"] == "RBF FS-LSSVM [tuned on all rows]"]
    if allrows:
        r = allrows[-1]
        out.append(render(it["summary_ftc"], dict(n_train=f"{int(r['n_train']):,}", cpu=_fmt_s(r["cpu"]),
                                                  bounds=_bounds(r["cpu"], _paper_ftc_s()))))
    out.append(render(it["summary_not_reproduced"], dict(n=n_nr)))
    return out


def _fs_time_cells(res: dict) -> list[tuple[str, float, float]]:
    """(label, our CPU s, paper wall s / ours) of FS-LSSVM at the paper's m and full budget, real data sets."""
    out = []
    for rows, table in ((res.get("binary", []), "9"), (res.get("binary", []), "13"), (res.get("multiclass", []), "11")):
        for (data, meth), rs in _groups(rows).items():
            pt = paper().time[table].get(meth, {}).get(data)
            if meth in FS_METHODS and meth.startswith("RBF") and pt and data != "ftc":
                c = _mean_sd([r["cpu"] for r in rs])[0]
                out.append((f"{_short(data)} {meth}", c, pt[0] / c))
    return sorted(set(out))


def _discussion(res: dict, it: dict) -> list[str]:
    out = []
    cells = _fs_cells(res)
    if cells:
        key = lambda c: (int(c["table"]), c["data"], c["method"])  # noqa: E731
        out.append(render(it["disc_accuracy"], dict(
            within=join_words(c["text"] for c in sorted(cells, key=key) if abs(c["z"]) <= 1),
            better=join_words(c["text"] for c in sorted(cells, key=key) if c["z"] > 1),
            below=join_words(c["text"] for c in sorted(cells, key=key) if c["z"] < -1))))
    g1 = _groups(res.get("table1", []))
    if g1.get(("boston_housing", "entropy")) and g1.get(("boston_housing", "random")):
        rs_e, rs_r = g1[("boston_housing", "entropy")], g1[("boston_housing", "random")]
        out.append(render(it["disc_table1"], dict(
            sd_e=f"{_mean_sd([r['score'] for r in rs_e])[1]:.4f}",
            sd_r=f"{_mean_sd([r['score'] for r in rs_r])[1]:.4f}",
            paper_sd_e=f"{paper().t1['entropy'][1]:g}", paper_sd_r=f"{paper().t1['random'][1]:g}",
            linf=f"{_mean_sd([r['linf'] for r in rs_e])[0]:.1f}")))
    g = _groups(res.get("binary", []) + res.get("multiclass", []))
    sp = []
    for d in paper().info:
        fs = [k for k in g if k[0] == d and k[1] in ("RBF FS-LSSVM", "RBF FS-LSSVM (1vs1)")]
        sv = "eps-SVR" if paper().info[d]["task"] == "regression" else "RBF C-SVC"
        if fs and (d, sv) in g:
            sp.append((d, paper().info[d]["m"], _mean_of(g, d, sv, "n_sv"), paper().nsv.get(sv, {}).get(d)))
    if sp:
        out.append(render(it["disc_sparsity"], dict(
            n_below=sum(m < n for _, m, n, _ in sp), n=len(sp),
            list=", ".join(f"{_short(d)} {m} vs {n:,.0f}" for d, m, n, _ in sp),
            sv_vs_paper=", ".join(f"{_short(d)} {n:,.0f} vs {p:,}" for d, _, n, p in sp if p))))
    tb = _fs_time_cells(res)
    lin = [(d, _mean_of(g, d, meth, "cpu"), pt[0]) for table in ("9", "11") for meth in ("Lin FS-LSSVM",
           "Lin FS-LSSVM (1vs1)") for d, pt in paper().time[table].get(meth, {}).items() if (d, meth) in g]
    if tb and lin:
        out.append(render(it["disc_time"], dict(
            cores=paper().cores, bound_lo="×1", fs_list=", ".join(f"{lab} {_bounds(c, c * q)}" for lab, c, q in tb),
            lin_lo=_fmt_s(min(x[1] for x in lin)), lin_hi=_fmt_s(max(x[1] for x in lin)),
            lin_paper_lo=f"{min(x[2] for x in lin):,g}", lin_paper_hi=f"{max(x[2] for x in lin):,g}")))
    gm = _groups(res.get("multiclass", []))
    mc = []
    for d in paper().of_task("multiclass"):
        svc = gm.get((d, f"RBF C-SVC {FULL_BUDGET}"))
        if svc:
            c = _mean_sd([r["cpu"] for r in svc])[0]
            parts = [f"{meth} {_mean_of(gm, d, meth, 'cpu') / c:.2f}x"
                     for meth in ("RBF FS-LSSVM (1vs1)", "RBF FS-LSSVM (MOC)") if (d, meth) in gm]
            mc.append((d, c, parts))
    if mc:
        pt = paper().time["11"]
        out.append(render(it["disc_time_multiclass"], dict(
            list="; ".join(f"{_short(d)}: RBF C-SVC {_fmt_s(c)} CPU-s at seed 0, FS-LSSVM / C-SVC " + ", ".join(p)
                           for d, c, p in mc),
            paper_list="; ".join(f"{_short(d)} " + ", ".join(
                f"{meth} {pt[meth][d][0] / pt['RBF C-SVC'][d][0]:.2f}x" for meth in ("RBF FS-LSSVM (1vs1)",
                                                                                  "RBF FS-LSSVM (MOC)"))
                for d, _, _ in mc))))
    ext = []
    for rows in (res.get("binary", []), res.get("multiclass", [])):
        gg = _groups(rows)
        for (d, meth), rs in sorted(gg.items()):
            if meth.endswith(FULL_BUDGET) and (d, _base(meth)) in gg and not any("stopped" in r["budget"] for r in rs):
                full = {int(r["seed"]): r["cpu"] for r in rs}
                red = {int(r["seed"]): r["cpu_full_est"] for r in gg[(d, _base(meth))]}
                common = sorted(s for s in set(full) & set(red) if red[s] == red[s])
                if common:
                    ext.append(f"{_short(d)} {_base(meth)} {np.mean([full[s] for s in common]):,.1f} vs "
                               f"{np.mean([red[s] for s in common]):,.1f} CPU-s ({len(common)} splits)")
    if ext:
        out.append(render(it["disc_extrapolation"], dict(list="; ".join(ext))))
    capped = [x for x in _full_budget_rows(res.get("binary", [])) if x["done"] is not None and x["fs"]]
    if capped:
        pt = paper().time["9"]
        out.append(render(it["disc_capped"], dict(
            list="; ".join(f"{_short(x['data'])} (seed {x['seed']}): {_fmt_s(x['svm']['cpu'])} CPU-s after "
                           f"{x['done']} of {N_CSA + N_SIMPLEX} evaluations, ≥ {x['ratio']:.1f}x FS-LSSVM's "
                           f"{_fmt_s(x['fs']['cpu'])} (about {x['svm']['cpu_full_est'] / x['fs']['cpu']:.0f}x "
                           f"extrapolated), {x['svm']['score']:.2f} % against FS-LSSVM's {x['fs']['score']:.2f} %"
                           for x in capped),
            paper_list=", ".join(f"{_short(x['data'])} "
                                 f"{pt['RBF C-SVC'][x['data']][0] / pt['RBF FS-LSSVM'][x['data']][0]:.1f}x"
                                 for x in capped))))
    ftc = {r["method"]: r for r in res.get("ftc", []) if r["data"] == "ftc"}
    big = [r for r in res.get("ftc", []) if r["data"] != "ftc" and r["method"] == "RBF FS-LSSVM"]
    need = ("RBF FS-LSSVM", "RBF FS-LSSVM [tuned on all rows]", "RBF C-SVC")
    if all(k in ftc for k in need) and big:
        r, a, s = ftc[need[0]], ftc[need[1]], ftc[need[2]]
        ph = dict(re.findall(r"(\w+)=([0-9.]+)", r["phases"]))
        tune_rows = re.search(r"on (\d+) rows", r["budget"])
        svc_rows = re.search(r"fit on (\d+) of", s["budget"])
        out.append(render(it["disc_ftc"], dict(
            tune_rows=f"{int(tune_rows[1]):,}" if tune_rows else "?",
            tune_s=f"{float(ph.get('tune_total', 'nan')):.0f}",
            n_train=f"{int(r['n_train']):,}", fit_s=f"{float(ph.get('total', 'nan')):.0f}",
            n_test=f"{int(r['n_test']):,}", predict_s=ph.get("predict", "?"), rss=_fmt_s(r["peak_rss_mb"]),
            all_cpu=_fmt_s(a["cpu"]), all_bounds=_bounds(a["cpu"], _paper_ftc_s()),
            all_rss=_fmt_s(a["peak_rss_mb"]), all_score=f"{a['score']:.2f}", score=f"{r['score']:.2f}",
            all_params=a["params"], params=r["params"], big_n=f"{int(big[-1]['n_train']):,}",
            big_cpu=_fmt_s(big[-1]["cpu"]), big_rss=_fmt_s(big[-1]["peak_rss_mb"]),
            svc_rows=f"{int(svc_rows[1]):,}" if svc_rows else "?", svc_fit=_fmt_s(s["fit_cpu"]),
            svc_nsv=f"{s['n_sv']:,.0f}", svc_score=f"{s['score']:.2f}",
            data_factor=f"{r['n_train'] / int(svc_rows[1]):.0f}" if svc_rows else "?")))
    return out


def _run_notes(res: dict, it: dict) -> list[str]:
    out = []
    g = _groups(res.get("binary", []) + res.get("multiclass", []))
    lin = sorted({d for d, m in g if m == "Lin C-SVC"}, key=list(paper().info).index)
    ovr = [(d, _mean_of(g, d, "Lin C-SVC (liblinear, OvR)"), _mean_of(g, d, "Lin C-SVC (liblinear)"))
           for d, m in g if m == "Lin C-SVC (liblinear, OvR)"]
    if lin:
        out.append(render(it["note_lin_csvc"], dict(
            lin_sets=", ".join(_short(d) for d in lin), box_lin_c=f"[{BOX_LIN_C[0]}, {BOX_LIN_C[1]}]",
            ovr=join_words(f"{_short(d)} {a:.2f} % against {b:.2f} % with 1vs1" for d, a, b in ovr))))
    out.append(it["note_not_in_store"])
    return out


def _command(group: str, data: str, rs: Sequence[dict], methods: Sequence[str]) -> str:
    """The ``--tables`` command that produces the rows ``rs`` (one budget, one m) of ``methods`` on ``data``."""
    seeds = sorted({int(r["seed"]) for r in rs})
    seed = "" if seeds[0] == 0 else f" --seed {seeds[0]}"
    span = "" if seeds == list(range(seeds[0], seeds[0] + len(seeds))) else f" (seeds {', '.join(map(str, seeds))})"
    b = rs[0]["budget"]
    if group == "ftc":
        if any("(C = 1" in m for m in methods):
            return "a one-off run at fixed hyperparameters (no command of the current protocol)"
        if data != "ftc":
            return f"`M --tables ftc1e6 --seeds {len(seeds)}{seed}`"
        m = re.search(r"on all (\d+) rows \(streamed\)", b)
        if m:
            return f"`M --tables ftc --seeds {len(seeds)}{seed} --ftc-rows {m[1]} 20000 {m[1]} --no-svm`"
        return f"`M --tables ftc --seeds {len(seeds)}{seed}`"
    table = str(rs[0]["table"])
    opts = f"--tables {table} --datasets {data} --seeds {len(seeds)}{seed}"
    if table != "1":
        opts += " --methods " + " ".join(f'"{m}"' for m in methods)
    mb = re.match(r"(\d+)\+(\d+), (\d+)-fold", b)
    fs = any("FS-LSSVM" in m for m in methods) or table == "1"
    if mb and fs and (int(mb[1]), int(mb[2])) != (N_CSA, N_SIMPLEX):
        opts += f" --fs-budget {mb[1]} {mb[2]}"
    elif mb and not fs and (int(mb[1]), int(mb[2]), int(mb[3])) != (20, 10, 5):
        opts += f" --svm-budget {mb[1]} {mb[2]} {mb[3]}"
    sub = re.search(r"tuned on (\d+) rows", b)
    if sub:
        opts += f" --tune-subsample {sub[1]}"
    cap = re.search(r"stopped at the ([0-9.]+) CPU-s cap", b)
    if cap:
        opts += f" --svm-cpu-cap {cap[1]} --force"
    ms = {int(r["m"]) for r in rs if r["m"] == r["m"] and r["m"]}
    if ms and ms != {paper().info.get(data, {}).get("m")} and any("RBF" in m or m in ("entropy", "random",
                                                                                       "Nystroem+Ridge")
                                                                   for m in methods):
        opts += f" --m {min(ms)}"
    if not mb and not fs and "fixed" in b:
        return "a one-off run at fixed hyperparameters (no command of the current protocol)"
    return f"`M {opts}`{span}"


def what_was_run(res: dict) -> str:
    rows = []
    for group in ("table1", "binary", "multiclass", "ftc"):
        by: dict = {}
        for r in res.get(group, []):
            seeds = tuple(sorted({int(x["seed"]) for x in res[group] if x["data"] == r["data"]
                                  and x["method"] == r["method"] and x["budget"] == r["budget"] and x["m"] == r["m"]}))
            kind = "fs" if ("FS-LSSVM" in r["method"] or r["method"] in ("entropy", "random", "Maj. rule")) else "svm"
            key = (r["data"], r["budget"] if r["method"] != "Maj. rule" else None, kind,
                   r["m"] if kind == "fs" and r["method"] != "Maj. rule" else None, seeds)
            by.setdefault(key, []).append(r)
        merged: dict = {}
        for (data, budget, kind, m, seeds), rs in by.items():  # the majority rule runs with FS-LSSVM's job
            merged.setdefault((data, kind, seeds, budget, m), []).extend(rs)
        for (data, kind, seeds, budget, _m), rs in merged.items():
            if budget is None:
                continue
            extra = merged.get((data, kind, seeds, None, None), []) if kind == "fs" else []
            methods = list(dict.fromkeys(r["method"] for r in rs + extra))
            table = "ftc" if group == "ftc" else str(rs[0]["table"])
            rows.append([table, _short(data), ", ".join(methods), budget, len(seeds),
                         _command(group, data, rs + extra, methods)])
    return _pipe(["table", "data", "methods", "budget", "splits", "command"], rows) if rows else "Nothing run yet."


def report_values(res: dict, *, mode: str = "full", command: str | None = None) -> dict:
    """The template's values computed from the store's rows ``res`` (:func:`load_results`)."""
    it = load_items(f"{MODULE_NAME}_items")
    nr = _not_reproduced(res, it)
    binary_rows = [r for r in res.get("binary", []) if r["data"] in paper().of_task("binary")]
    binary_rows += [dict(r) for r in res.get("ftc", []) if r["data"] == "ftc"]
    reg_rows = [r for r in res.get("binary", []) if r["data"] in paper().of_task("regression")]
    t34 = paper_table("tables3_4").drop_duplicates("data")
    bh = paper().info["boston_housing"]
    return {
        "mode": f"Mode: {mode}" + (" (a quick run: one randomization, reduced budgets; not the paper's protocol)."
                                   if mode == "quick" else " (the committed results of every run below)."),
        "command": command or "python -m reproductions fixed_size --report-only",
        "store": "reproductions/results/fixed_size_*.csv" if mode != "quick" else "OUT/results/fixed_size_*.csv",
        "cores_here": "the project's build machine, shared with other runs",
        "paper_machine": paper().setup["machine"], "paper_cores": paper().cores, "bound_lo": "×1",
        "summary": "\n".join("* " + s.replace("\n", "\n  ") for s in _summary(res, it, len(nr))),
        "not_reproduced": "\n".join("* " + s.replace("\n", "\n  ") for s in nr) if nr else "Nothing.",
        "csa_processes": CSA_PROCESSES, "n_csa": N_CSA, "n_simplex": N_SIMPLEX, "folds": FOLDS,
        "n_evals": N_CSA + N_SIMPLEX,
        "box_rbf_c": f"[{BOX_RBF_C[0]}, {BOX_RBF_C[1]}]", "box_lin_c": f"[{BOX_LIN_C[0]}, {BOX_LIN_C[1]}]",
        "box_nu": f"[{BOX_NU[0]}, {BOX_NU[1]}]",
        "t1_m": bh["m"], "t1_n_cv": bh["n_cv"], "t1_n_test": bh["n_test"],
        "t1_paper_runs": paper().setup["table1_runs"],
        "table1": table1_table(res.get("table1", [])),
        "timing_sets": "; ".join(f"{r.data} n = {int(r.n):,}, d = {int(r.d)}" for r in t34.itertuples()),
        "timing_reps": TIMING_REPS, "timing_reps_simple": max(1, TIMING_REPS // 2),
        "timing_min_s": f"{TIMING_MIN_SECONDS:g}",
        "timing_max_reps": TIMING_MAX_REPS, "agree_tol": f"{AGREE_TOL:g}",
        "timing_table": timing_table(res.get("cvtiming", [])), "timing_text": timing_text(res.get("cvtiming", [])),
        "split_seed": 0, "flops_reps": FLOPS_REPS, "dgemm_size": DGEMM_SIZE,
        "throughput_table": throughput_table(res.get("throughput", [])),
        "time_intro": ("CPU = process CPU seconds on one core; \"full est.\" = a baseline tuned with a reduced "
                       f"budget, its tuning time extrapolated linearly to {N_CSA + N_SIMPLEX} evaluations × {FOLDS} "
                       "folds (used for the ratios when present). \"protocol\": how the run's tuning departs from "
                       "the paper's."),
        "table8": accuracy_table(binary_rows, paper().of_task("binary"), "8"),
        "table9": time_table(binary_rows, paper().of_task("binary"), "8", "9"),
        "table12": accuracy_table(reg_rows, paper().of_task("regression"), "12", regression=True),
        "table13": time_table(reg_rows, paper().of_task("regression"), "12", "13", regression=True),
        "table10": accuracy_table(res.get("multiclass", []), paper().of_task("multiclass"), "10"),
        "table11": time_table(res.get("multiclass", []), paper().of_task("multiclass"), "10", "11"),
        "full_budget_sets": _full_budget_sets(res.get("binary", [])),
        "full_budget_table": full_budget_table(res.get("binary", [])),
        "full_budget_text": full_budget_text(res.get("binary", [])),
        "cov_numeric": COV_NUMERIC, "cov_wild": COV_WILD, "cov_soil": COV_SOIL, "cov_flip": f"{100 * COV_FLIP:g}",
        "ftc_split": f"{paper().info['ftc']['n_cv']:,} / {paper().info['ftc']['n_test']:,}",
        "ftc_table": ftc_table(res.get("ftc", [])),
        "discussion": "\n\n".join(_discussion(res, it)) or "No results in the store to discuss.",
        "what_was_run": what_was_run(res),
        "run_notes": "\n\n".join(_run_notes(res, it)),
    }


def build_report(res: dict, *, figures_section: str | None = None, mode: str = "full",
                 command: str | None = None) -> str:
    """The Markdown report from the store's rows ``res`` (:func:`load_results`); ``figures_section`` (starting
    with "## Figures") is appended as given."""
    text = render(load_template(MODULE_NAME), report_values(res, mode=mode, command=command))
    text = re.sub(r"\n{3,}", "\n\n", text).rstrip("\n") + "\n"
    if figures_section:
        text += "\n" + figures_section.strip("\n") + "\n"
    return text


def load_results(results: str | Path) -> dict[str, list[dict]]:
    """Every table of the store in the directory ``results`` (a missing table: no rows)."""
    return {group: read_group(results, group) for group in STORE}


FIGURES_KEEP = "keep"


def write_report(results: str | Path, out_dir: str | Path, *, figures=FIGURES_KEEP, intro: str = "",
                 mode: str = "full", command: str | None = None) -> Path:
    """Write ``out_dir/fixed_size.md`` from the store ``results``. ``figures``: ``"keep"`` (the existing file's
    Figures section, none if there is none), ``None`` (no matplotlib: the one-line note) or ``[(file, caption)]``."""
    from reproductions.figures import figures_markdown

    path = Path(out_dir) / f"{MODULE_NAME}.md"
    if isinstance(figures, str) and figures == FIGURES_KEEP:
        section = figures_section(path.read_text()) if path.exists() else None
    else:
        section = figures_markdown(figures, intro=intro)
    text = build_report(load_results(results), figures_section=section, mode=mode, command=command)
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(text)
    return path


def run_tables(a, results: Path, out_dir: Path) -> int:
    """``--tables``: run the requested tables' jobs (each row appended to the store ``results`` as it finishes),
    then write the report from the whole store."""
    seeds = tuple(range(a.seed, a.seed + (a.seeds or (1 if a.quick else 10))))
    for table in a.tables:
        if table == "3":  # Tables 3-4: the store's (data, m, v) cells are replaced by the new measurement
            names = a.timing or ["concrete", "magic"]
            for name in names:
                ms = a.timing_m or tuple(paper().t34.get(name, {50: None}))
                store_rows(results, "cvtiming", cv_timing(name, ms, vs=PAPER_FOLDS, reps=a.timing_reps, seed=a.seed,
                                                          min_seconds=a.timing_min_seconds))
            continue
        if table == "flops":
            rows = [cv_throughput(name, a.m, seed=a.seed) for name in (a.datasets or ["magic", "adult"])]
            for r in rows:
                print(f"[flops] {r['data']}: {r['gflop']:.1f} GFLOP in {r['cpu']:.2f} CPU-s = {r['gflops']:.1f} "
                      f"GFLOP/s (dgemm {r['dgemm_1core']:.1f} GFLOP/s on one core)", flush=True)
            store_rows(results, "throughput", rows)
            continue
        if table in ("ftc", "ftc1e6"):
            tune_rows, svc_rows, n_train = a.ftc_rows
            hyper = None
            if table == "ftc1e6":  # fixed hyperparameters: those tuned on the stand-in, else (gamma, sigma2) = (10, d)
                prev = [r for r in read_group(results, "ftc") if r["data"] == "ftc" and r["method"] == "RBF FS-LSSVM"]
                hyper = (10.0, 54.0)
                if prev:
                    p = prev[-1]["params"].replace(",", "").split()
                    hyper = (float(p[1]), float(p[3]))
            for seed in seeds:
                rows = ftc_run(seed, n_train=n_train if table == "ftc" else 1_000_000, tune_rows=tune_rows,
                               svc_rows=svc_rows, n_csa=a.fs_budget[0], n_simplex=a.fs_budget[1], hyper=hyper,
                               data="ftc" if table == "ftc" else "synthetic 1e6",
                               with_baselines=table == "ftc" and not a.no_svm)
                store_rows(results, "ftc", rows)
                for r in rows:
                    print(f"[{table}] {r['method']}: {r['score']:.2f}% cpu {r['cpu']:.1f} s", flush=True)
            continue
        default = {"1": ["boston_housing"], "8": ["pima", "spambase"], "12": list(paper().of_task("regression")),
                   "10": list(paper().of_task("multiclass"))}[table]
        table_seeds = seeds if table != "1" else tuple(range(a.seed, a.seed + (a.seeds or
                                                                               int(paper().setup["table1_runs"]))))
        run_table(table, a.datasets or default, table_seeds, results, methods=a.methods, m=a.m,
                  fs_budget=tuple(a.fs_budget), svm_budget=tuple(a.svm_budget), tune_subsample=a.tune_subsample,
                  svm_cpu_cap=a.svm_cpu_cap, force=a.force, log=lambda msg: print(msg, flush=True))
    write_report(results, out_dir, mode="quick" if a.quick else "full", command=_command_line(a))
    return 0


def _command_line(a) -> str:
    return "python -m reproductions fixed_size " + ("--quick ..." if a.quick else "--tables ... (What was run)")


def build_parser() -> argparse.ArgumentParser:
    ap = protocol_parser(MODULE_NAME, __doc__,
                         quick_help="1 randomization, reduced SVM budget, Figure 2 on boston_housing with 5 values "
                                    "of m",
                         seed_help="first randomization seed (quick: 1 seed, full: 10)")
    ap.add_argument("--datasets", nargs="*", default=None,
                    help="Tables 8/12 data sets (default pima boston_housing concrete, full mode also spambase)")
    ap.add_argument("--timing", nargs="*", default=["concrete"], help="data sets of the CV timings (Tables 3-4)")
    ap.add_argument("--timing-m", type=int, nargs="+", default=None, help="override the m of the CV timings")
    ap.add_argument("--no-svm", action="store_true")
    ap.add_argument("--m", type=int, default=None, help="override the paper's m (all data sets)")
    ap.add_argument("--timing-reps", type=int, default=TIMING_REPS,
                    help="--tables 3: repetitions per cell (best of; the simple CV gets max(1, reps // 2))")
    ap.add_argument("--timing-min-seconds", type=float, default=TIMING_MIN_SECONDS,
                    help="--tables 3: cells faster than this repeat further (up to 40 pairs)")
    ap.add_argument("--tables", nargs="+", default=None,
                    choices=["1", "3", "8", "10", "12", "ftc", "ftc1e6", "flops"],
                    help="run these tables' jobs (rows appended to the results store as they finish, finished jobs "
                         "skipped), then write the report from the whole store")
    ap.add_argument("--seeds", type=int, default=None, help="randomizations per data set for --tables (from --seed)")
    ap.add_argument("--methods", nargs="+", default=None, help="methods to run for --tables (default: all)")
    ap.add_argument("--fs-budget", type=int, nargs=2, default=(90, 70), metavar=("N_CSA", "N_SIMPLEX"),
                    help="FS-LSSVM tuning budget for --tables (default the paper's 90 70)")
    ap.add_argument("--svm-budget", type=int, nargs=3, default=(20, 10, 5), metavar=("N_CSA", "N_SIMPLEX", "FOLDS"),
                    help="baselines' tuning budget for --tables (default 20 10 5; time extrapolated to 160 x 10)")
    ap.add_argument("--tune-subsample", type=int, default=None,
                    help="baselines: tune on this many training rows (final fit on all)")
    ap.add_argument("--ftc-rows", type=int, nargs=3, default=(20_000, 20_000, 531_012),
                    metavar=("TUNE", "SVC", "TRAIN"), help="ftc: tuning subsample, SVC subsample, training rows")
    ap.add_argument("--svm-cpu-cap", type=float, default=None, metavar="SECONDS",
                    help="--tables: stop each SVM baseline's tuning after this many CPU seconds and keep its best "
                         "point so far (the row is marked capped; its time is a lower bound of the full tuning)")
    ap.add_argument("--force", action="store_true", help="--tables: rerun jobs already in the results store")
    add_figure_arguments(ap)
    ap.add_argument("--fig2-data", nargs="*", default=None,
                    help="data sets of Figure 2 (default boston_housing; full mode spambase boston_housing)")
    ap.add_argument("--fig2-m", type=int, nargs="+", default=None, help="values of m of Figure 2")
    ap.add_argument("--fig2-budget", type=int, nargs=2, default=None, metavar=("N_CSA", "N_SIMPLEX"),
                    help="tuning budget of each Figure 2 model (default 90 70, the paper's)")
    ap.add_argument("--fig2-baseline", choices=["auto", "tuned", "fixed", "none"], default="auto",
                    help="Figure 2's LS-SVM line: tuned like the models, with the largest m's hyperparameters "
                         "(one fit, for large n), or none; auto: tuned up to n = 1000, else fixed")
    return ap


def main(argv: Sequence[str] | None = None) -> int:
    ap = build_parser()
    a = ap.parse_args(argv)
    check_protocol_arguments(ap, a)
    out_dir = Path(a.out)
    results = results_dir(a)
    if a.report_only:
        path = write_report(results, out_dir)
        print(f"wrote {path} from {results}")
        return 0
    for opt in ("timing_m", "fig2_m", "fig2_budget"):
        vals = getattr(a, opt)
        if vals is not None and min(vals) < (0 if opt == "fig2_budget" else 1):
            ap.error(f"--{opt.replace('_', '-')} values must be positive")
    path = out_dir / f"{MODULE_NAME}.md"
    if a.tables:
        return run_tables(a, results, out_dir)
    datasets = a.datasets if a.datasets is not None else (
        ["pima", "boston_housing", "concrete"] + ([] if a.quick else ["spambase"]))
    fig2_data = a.fig2_data if a.fig2_data is not None else (
        ["boston_housing"] if a.quick else ["spambase", "boston_housing"])
    seeds = (a.seed,) if a.quick else tuple(range(a.seed, a.seed + 10))
    trows = []
    for name in a.timing:
        ms = a.timing_m or tuple(paper().t34.get(name, {50: None, 100: None}))
        if a.figures_only:
            vs = PAPER_FOLDS
        else:
            vs = PAPER_FOLDS if not a.quick else ((5, 10, 20, 50) if name == "concrete" else (5, 10))
        trows += cv_timing(name, ms, vs=vs, reps=3 if (a.quick or a.figures_only) else 100, seed=a.seed)
    from reproductions.figures import figures_markdown, have_matplotlib, write_figures_section

    figures = None
    if not a.no_figures and have_matplotlib():
        figures = write_figures(out_dir, timing_rows=trows, fig2_data=fig2_data, fig2_m=a.fig2_m, quick=a.quick,
                                seed=a.seed, n_jobs=a.jobs, fig2_budget=tuple(a.fig2_budget or (N_CSA, N_SIMPLEX)),
                                fig2_baseline=None if a.fig2_baseline == "none" else a.fig2_baseline, dpi=a.dpi)
    flag = "--figures-only" if a.figures_only else "--quick" if a.quick else ""
    intro = (f"Generated by `python -m reproductions fixed_size {flag}` "
             f"(timing data: {', '.join(a.timing) or 'none'}; "
             f"Figure 2: {', '.join(fig2_data) or 'none'}).")
    if a.figures_only:
        write_figures_section(path, figures_markdown(figures, intro=intro + " The tables above are not recomputed, "
                                                     "so the CV times drawn here come from a fresh run."))
        print(f"wrote the figures into {path}")
        return 0
    store_rows(results, "cvtiming", trows)
    svm = {"classification": "RBF C-SVC", "regression": "eps-SVR"}
    for name in datasets:
        task = "regression" if paper().info[name]["task"] == "regression" else "classification"
        table = "12" if task == "regression" else ("10" if paper().info[name]["task"] == "multiclass" else "8")
        fs = "RBF FS-LSSVM (1vs1)" if table == "10" else "RBF FS-LSSVM"
        methods = [fs] + (["Maj. rule"] if task == "classification" else []) + ([] if a.no_svm else [svm[task]])
        run_table(table, [name], seeds, results, methods=methods, m=a.m,
                  svm_budget=(20, 10, 5) if a.quick else (N_CSA, N_SIMPLEX, FOLDS),
                  log=lambda msg: print(msg, flush=True))
    write_report(results, out_dir, figures=FIGURES_KEEP if a.no_figures else figures,
                 intro=intro, mode="quick" if a.quick else "full", command=_command_line(a))
    print(f"wrote {path}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
