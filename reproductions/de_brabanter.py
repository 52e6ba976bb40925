"""Reproduction protocol of paper 002 (De Brabanter et al., 2010): FS-LSSVM against LIBSVM-style baselines.

Usage (the shared convention of ``svmopt reproduce``)::

    SVMOPT_DATA=<datasets dir> python -m reproductions de-brabanter --quick [--out DIR] [--jobs N] [--seed S]
    SVMOPT_DATA=<datasets dir> python -m reproductions de-brabanter --figures-only   # figures into the report

writes ``DIR/de_brabanter.md`` (default ``docs/reproductions``) and its PNG figures.

* ``cv_timing`` -- Tables 3–4: one CV evaluation at fixed (gamma = 1, sigma^2 = d) (spec A31), fast (Algorithm 3)
  vs simple (A32), on ccs (n = 1030) and mgt (n = 19,020), for m and v as in the tables.
* ``accuracy`` -- Tables 8 and 12: split n_CV / n_test as in Tables 5–7, FS-LSSVM with the paper's m (tuned by CSA
  90 + simplex 70 on the fast 10-fold CV) against sklearn ``SVC``/``SVR`` tuned by the same CSA + simplex on
  (log C, log g) with sklearn CV. Quick mode: 1 randomization, and the SVC/SVR tuning budget reduced to 20 CSA + 10
  simplex evaluations of 5-fold CV; its full-protocol time is also given extrapolated x (160 * 10) / (30 * 5).
Times are wall seconds and process CPU seconds (core-seconds) on this machine, per phase.

Figures (PNG beside the report, embedded in it; :mod:`svmopt.plotting`):

* Figure 2 -- ``performance_vs_prototypes``: test performance against m on the paper's split sizes (Spambase:
  accuracy, Boston Housing: MSE on the standardized target), each m tuned by the full CSA + simplex, with the
  full LS-SVM as the horizontal line. Decision: the LS-SVM baseline is the same estimator with every training
  point as a prototype (m = n) and the bias not penalized (``regularize_bias=False``): with m = n the Nyström map
  is exact (Phi Phi^T = Omega), so the primal ridge is the LS-SVM system of spec 1.2 (up to the eigenpairs
  dropped below m eps lambda_max), tuned by the same CSA + simplex, or for large n (``--fig2-baseline fixed``)
  fitted once with the (gamma, sigma^2) of the largest-m model. Quick mode: Boston Housing only, 5 values of m.
* Figures 3-4 -- ``cv_timing`` rows (seconds of one CV evaluation against the folds, simple vs fast, per m) with
  the paper's Tables 3-4 drawn pale for comparison (``PAPER_TABLE3``, ``PAPER_TABLE4``).

Full protocol (``--tables``; every finished fit is appended at once as a CSV row to ``DIR/de_brabanter_<group>.csv``,
jobs already there are skipped, so an interrupted run resumes; the report is rebuilt from the CSVs at the end, or
alone with ``--from-results DIR``)::

    python -m reproductions de-brabanter --tables 1 12 8 10 ftc ftc1e6 [--datasets ...] [--seeds N]
        [--methods ...] [--m M] [--fs-budget 90 70] [--svm-budget 20 10 5] [--tune-subsample N] --out DIR

* ``1`` -- Table 1: boston_housing, m = 200, 30 splits 338/168, ``prototype_selection`` "entropy" vs "random".
* ``8`` / ``12`` -- Tables 8-9 / 12-13: RBF and Lin FS-LSSVM (``fs_lssvm_run``), majority rule, and the sklearn
  baselines of spec 3.5 (``baseline_run``: RBF / Lin C-SVC, RBF nu-SVC, eps-SVR, nu-SVR, ``Nystroem`` + ridge)
  tuned by the same ``csa_simplex`` at ``--svm-budget`` (tuning CPU time extrapolated to 160 evaluations x 10 folds),
  optionally on a ``--tune-subsample`` of the training rows.
* ``10`` -- Tables 10-11: the multi-class sets with RBF / Lin FS-LSSVM, 1vs1 and MOC, and the baselines (1vs1).
* ``ftc`` / ``ftc1e6`` -- the covertype stand-in (``synthetic_covertype``: 581,012 x 54, np.memmap; tuned on a
  subsample, the final fit streamed over 531,012 rows; SVMs at fixed hyperparameters, the paper's *) and a
  10^6-row set of the same generator at fixed hyperparameters (``ftc_run``).

Independent fits (randomizations, values of m) run through :func:`svmopt.distributed.parallel_map` with
``--jobs``; the CV timings always run alone, one after the other.
"""

from __future__ import annotations

import argparse
import math
import re
import time
import warnings
from collections.abc import Sequence
from dataclasses import dataclass
from functools import partial
from pathlib import Path

import numpy as np

from reproductions._cli import add_figure_arguments, check_protocol_arguments, protocol_parser
from reproductions._parallel import parallel_map
from svmopt.fixed_size import FixedSizeLSSVC, FixedSizeLSSVR
from svmopt.tuning import CVEngine, csa_simplex, holdout_cheaper, make_folds, simple_cv_cost

MODULE_NAME = "de_brabanter"

# Paper Tables 5, 7, 8, 9, 12, 13: n_CV, n_test, m, accuracy (or L2), total time (s)
PAPER = {
    "pima": dict(n_cv=512, n_test=256, m=150, acc=76.7, acc_sd=3.43, time=30.1, svc_acc=75.1, svc_time=24.8),
    "spambase": dict(n_cv=3068, n_test=1533, m=200, acc=92.5, acc_sd=0.67, time=249, svc_acc=92.6, svc_time=1010),
    "magic": dict(n_cv=13000, n_test=6020, m=1000, acc=86.6, acc_sd=0.51, time=9985, svc_acc=85.6, svc_time=20603),
    "adult": dict(n_cv=33000, n_test=12222, m=500, acc=85.21, acc_sd=0.21, time=7344, svc_acc=84.81,
                  svc_time=139730),
    "boston_housing": dict(n_cv=338, n_test=168, m=200, l2=0.13, l2_sd=0.02, time=74, svr_l2=0.16, svr_time=63),
    "concrete": dict(n_cv=687, n_test=343, m=120, l2=0.17, l2_sd=0.02, time=94, svr_l2=0.23, svr_time=168),
}
# Multi-class sets (Tables 6, 10, 11): n_CV, n_test, m
PAPER.update({
    "optdigits": dict(n_cv=3750, n_test=1870, m=420), "landsat": dict(n_cv=4435, n_test=2000, m=330),
    "pendigits": dict(n_cv=7328, n_test=3664, m=250), "letter": dict(n_cv=13667, n_test=6333, m=1500),
    "shuttle": dict(n_cv=43500, n_test=14500, m=175),
})
BINARY = ("pima", "spambase", "magic", "adult", "ftc")
REGRESSION = ("boston_housing", "concrete")
MULTICLASS = ("optdigits", "landsat", "pendigits", "letter", "shuttle")
SHORT = {"pima": "pid", "spambase": "spa", "magic": "mgt", "adult": "adu", "ftc": "ftc (synthetic)",
         "boston_housing": "bho", "concrete": "ccs", "optdigits": "opt", "landsat": "lan", "pendigits": "pen",
         "letter": "let", "shuttle": "shu"}
# The paper's Tables 1, 8-13: {data: {method: (mean, sd)}}; "nsv": # PV / # SV per method
PAPER_T1 = {"entropy": (0.1293, 0.0246), "random": (0.1433, 0.0323)}
PAPER_T8 = {
    "RBF FS-LSSVM": dict(pima=(76.7, 3.43), spambase=(92.5, 0.67), magic=(86.6, 0.51), adult=(85.21, 0.21),
                         ftc=(81.8, 0.52)),
    "Lin FS-LSSVM": dict(pima=(77.6, 0.78), spambase=(90.9, 0.75), magic=(77.8, 0.23), adult=(83.9, 0.17),
                         ftc=(75.61, 0.35)),
    "RBF C-SVC": dict(pima=(75.1, 3.31), spambase=(92.6, 0.76), magic=(85.6, 1.46), adult=(84.81, 0.20),
                      ftc=(81.5, None)),
    "Lin C-SVC": dict(pima=(76.1, 1.76), spambase=(91.9, 0.82), magic=(77.3, 0.53), adult=(83.5, 0.28),
                      ftc=(75.24, None)),
    "RBF nu-SVC": dict(pima=(75.8, 3.34), spambase=(88.7, 0.73), magic=(84.2, 1.42), adult=(83.9, 0.23),
                       ftc=(81.6, None)),
    "Maj. rule": dict(pima=(64.8, 1.46), spambase=(60.6, 0.58), magic=(65.8, 0.28), adult=(83.4, 0.1),
                      ftc=(51.23, 0.20)),
}
PAPER_T9 = {
    "RBF FS-LSSVM": dict(pima=(30.1, 1.9), spambase=(249, 16), magic=(9985, 112), adult=(7344, 295),
                         ftc=(122290, 989)),
    "Lin FS-LSSVM": dict(pima=(19.8, 0.5), spambase=(72, 3.8), magic=(1298, 13), adult=(1404, 47), ftc=(5615, 72)),
    "RBF C-SVC": dict(pima=(24.8, 3.1), spambase=(1010, 53), magic=(20603, 396), adult=(139730, 5556),
                      ftc=(58962, None)),
    "Lin C-SVC": dict(pima=(18, 0.65), spambase=(785, 22), magic=(13901, 189), adult=(130590, 4771),
                      ftc=(53478, None)),
    "RBF nu-SVC": dict(pima=(30.3, 2.3), spambase=(1372, 43), magic=(35299, 357), adult=(139927, 3578),
                       ftc=(55178, None)),
}
PAPER_NSV = {  # # PV (FS-LSSVM) / # SV (SVMs)
    "RBF FS-LSSVM": dict(pima=150, spambase=200, magic=1000, adult=500, ftc=500, boston_housing=200, concrete=120,
                         optdigits=420, landsat=330, pendigits=250, letter=1500, shuttle=175),
    "RBF C-SVC": dict(pima=290, spambase=800, magic=7000, adult=11085, ftc=185000, optdigits=3750, landsat=1876,
                      pendigits=1178, letter=8830, shuttle=559),
    "RBF nu-SVC": dict(pima=331, spambase=1525, magic=7252, adult=12205, ftc=165205, optdigits=2810, landsat=2518,
                       pendigits=4051, letter=11359, shuttle=521),
    "eps-SVR": dict(boston_housing=226, concrete=670), "nu-SVR": dict(boston_housing=195, concrete=330),
}
PAPER_T10 = {
    "RBF FS-LSSVM (MOC)": (96.87, 0.70, 91.83, 0.43, 99.44, 0.17, 89.14, 0.22, 99.87, 0.03),
    "RBF FS-LSSVM (1vs1)": (98.14, 0.10, 91.93, 0.3, 99.57, 0.10, 95.65, 0.17, 99.84, 0.03),
    "Lin FS-LSSVM (1vs1)": (97.18, 0.35, 85.71, 0.77, 96.67, 0.35, 84.87, 0.49, 96.82, 0.18),
    "Lin FS-LSSVM (MOC)": (78.62, 0.32, 74.35, 0.26, 68.21, 0.36, 18.20, 0.46, 84.78, 0.33),
    "RBF C-SVC": (97.73, 0.14, 92.14, 0.45, 99.51, 0.13, 95.67, 0.19, 99.86, 0.03),
    "Lin C-SVC": (97.21, 0.26, 86.12, 0.79, 97.52, 0.62, 84.96, 0.56, 97.02, 0.19),
    "RBF nu-SVC": (95.3, 0.12, 88.3, 0.31, 95.96, 0.16, 93.18, 0.21, 99.34, 0.03),
    "Maj. rule": (10.45, 0.12, 23.61, 0.16, 10.53, 0.07, 4.10, 0.14, 78.81, 0.04),
}
PAPER_T11 = {
    "RBF FS-LSSVM (MOC)": (4892, 162, 2159, 83, 2221, 110, 105930, 2132, 5908, 272),
    "RBF FS-LSSVM (1vs1)": (623, 36, 739, 17, 514, 42, 10380, 897, 2734, 82),
    "Lin FS-LSSVM (1vs1)": (282, 19, 153, 6, 156, 4, 2792, 11, 501, 8),
    "Lin FS-LSSVM (MOC)": (942, 6, 409, 13, 279, 10, 44457, 1503, 645, 31),
    "RBF C-SVC": (11371, 573, 6612, 347, 11215, 520, 59102, 2412, 52724, 3619),
    "Lin C-SVC": (474, 1, 1739, 48, 880, 16, 11203, 467, 50174, 2954),
    "RBF nu-SVC": (7963, 178, 8229, 304, 16589, 453, 79040, 2354, 50478, 2879),
}
PAPER_T10 = {k: {d: (v[2 * i], v[2 * i + 1]) for i, d in enumerate(MULTICLASS)} for k, v in PAPER_T10.items()}
PAPER_T11 = {k: {d: (v[2 * i], v[2 * i + 1]) for i, d in enumerate(MULTICLASS)} for k, v in PAPER_T11.items()}
PAPER_T12 = {  # L2, L1, Linf: (mean, sd)
    "RBF FS-LSSVM": dict(boston_housing=((0.13, 0.02), (0.24, 0.02), (1.90, 0.50)),
                         concrete=((0.17, 0.02), (0.30, 0.03), (1.22, 0.42))),
    "eps-SVR": dict(boston_housing=((0.16, 0.05), (0.24, 0.03), (2.20, 0.54)),
                    concrete=((0.23, 0.02), (0.33, 0.02), (1.63, 0.58))),
    "nu-SVR": dict(boston_housing=((0.16, 0.04), (0.26, 0.03), (1.97, 0.58)),
                   concrete=((0.22, 0.02), (0.34, 0.03), (1.72, 0.52))),
}
PAPER_T13 = {"RBF FS-LSSVM": dict(boston_housing=(74, 2), concrete=(94, 3)),
             "eps-SVR": dict(boston_housing=(63, 1), concrete=(168, 3)),
             "nu-SVR": dict(boston_housing=(61, 1), concrete=(131, 2))}
TABLE3 = {50: (0.14, 0.012), 100: (0.38, 0.033), 400: (7.27, 0.45)}  # ccs, v = 10: simple, optimized (s)
TABLE4 = {50: (1.51, 0.16), 300: (12.80, 1.57), 700: (58.56, 6.06)}  # mgt, v = 10
PAPER_FOLDS = (5, 10, 20, 30, 40, 50)
# Tables 3-4 in full (mean seconds over 100 runs): m -> (simple per fold count, optimized per fold count)
PAPER_TABLE3 = {
    50: ((0.066, 0.14, 0.29, 0.44, 0.57, 0.71), (0.009, 0.012, 0.015, 0.018, 0.019, 0.021)),
    100: ((0.19, 0.38, 0.75, 1.15, 1.49, 1.86), (0.031, 0.033, 0.035, 0.039, 0.052, 0.058)),
    400: ((3.60, 7.27, 14.51, 21.62, 31.07, 39.12), (0.40, 0.45, 0.53, 0.57, 0.65, 0.76)),
}
PAPER_TABLE4 = {
    50: ((0.71, 1.51, 2.98, 4.47, 6.05, 7.60), (0.15, 0.16, 0.16, 0.17, 0.19, 0.19)),
    300: ((6.27, 12.80, 25.49, 38.08, 50.94, 64.43), (1.52, 1.57, 1.60, 1.64, 1.66, 1.83)),
    700: ((29.01, 58.56, 117.12, 179.44, 231.59, 290.36), (5.95, 6.06, 6.34, 6.60, 6.94, 7.11)),
}
TIMING_FIGURES = {"concrete": ("Figure 3", PAPER_TABLE3), "magic": ("Figure 4", PAPER_TABLE4)}


def paper_timing_rows(table: dict) -> list[dict]:
    """The paper's Table 3 or 4 as ``cv_timing``-like rows (m, v, simple, fast)."""
    return [dict(m=m, v=v, simple=s, fast=f) for m, (simple, fast) in table.items()
            for v, s, f in zip(PAPER_FOLDS, simple, fast, strict=True)]


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

    return _core.KernelParams(_core.KernelKind.rbf, alpha=math.sqrt(sigma2 / 2))


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
        warm = make_folds(X.shape[0], vs[0], rng)
        CVEngine(lambda: iter([(X, yy.reshape(-1, 1))]), warm, vs[0], PV, _rbf, task, n_features=d,
                 n_threads=threads).cost(1.0, d)
        for v in vs:
            folds = make_folds(X.shape[0], v, rng)
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
    Xtr, ytr, _, _, _ = _split(name, seed)
    m = int(m or PAPER[name]["m"])
    X, yy, task = _cv_problem(Xtr, ytr)
    rng = np.random.default_rng(seed)
    PV = np.ascontiguousarray(X[rng.choice(X.shape[0], m, replace=False)])
    folds = make_folds(X.shape[0], v, rng)
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


def _svm_tuned(name, Xtr, ytr, Xte, yte, task, n_csa, n_simplex, folds, seed):
    """sklearn SVC/SVR tuned by CSA + simplex over (log C, log g) with sklearn CV (spec 3.5)."""
    from sklearn.model_selection import KFold, cross_val_score
    from sklearn.preprocessing import StandardScaler
    from sklearn.svm import SVC, SVR

    sc = StandardScaler().fit(Xtr)
    Xtr, Xte = sc.transform(Xtr), sc.transform(Xte)
    if task == "regression":
        mu, sd = ytr.mean(), ytr.std(ddof=1)
        ytr, yte = (ytr - mu) / sd, (yte - mu) / sd
    kf = KFold(folds, shuffle=True, random_state=seed)
    d = Xtr.shape[1]

    def make(x):
        C, g = math.exp(x[0]), math.exp(x[1])
        return (SVR(C=C, gamma=g, epsilon=0.1, cache_size=1000, tol=1e-3) if task == "regression"
                else SVC(C=C, gamma=g, cache_size=1000, tol=1e-3))

    def cost(x):
        scoring = "neg_mean_squared_error" if task == "regression" else "accuracy"
        s = cross_val_score(make(x), Xtr, ytr, cv=kf, scoring=scoring).mean()
        return -s if task == "regression" else 1 - s

    rng = np.random.default_rng(seed)
    # log C is boxed to [-5, 10]: LIBSVM's solver time explodes for C >> 1e4 on noisy data
    x0 = rng.uniform([0, -math.log(d) - 3], [5, -math.log(d) + 3], (5, 2))
    with Timer() as tt:
        r = csa_simplex(cost, x0, [-5, -math.log(d) - 10], [10, -math.log(d) + 10], n_csa=n_csa,
                        n_simplex=n_simplex, seed=seed)
    with Timer() as tf:
        model = make(r.x).fit(Xtr, ytr)
        pred = model.predict(Xte)
    score = float(np.mean((pred - yte) ** 2)) if task == "regression" else 100 * float(np.mean(pred == yte))
    return dict(score=score, n_sv=int(model.support_.size), tune_wall=tt.wall, tune_cpu=tt.cpu,
                wall=tt.wall + tf.wall, cpu=tt.cpu + tf.cpu, n_evals=r.history.shape[0])


def accuracy(name: str, seeds=(0,), m: int | None = None, svm_budget=(20, 10, 5), with_svm: bool = True,
             n_jobs: int = 1) -> list[dict]:
    """Tables 8 / 12 protocol for one data set (binary classification or regression); one row per seed.

    The randomizations are independent and run through :func:`svmopt.distributed.parallel_map` (``n_jobs``).
    """
    job = partial(_accuracy_one, name, m=m, svm_budget=svm_budget, with_svm=with_svm)
    return parallel_map(job, list(seeds), n_jobs=n_jobs)


def _accuracy_one(name: str, seed: int, *, m: int | None, svm_budget, with_svm: bool) -> dict:
    info = PAPER[name]
    X, y = _load(name)
    task = "regression" if y.dtype.kind == "f" else "classification"
    m = m or info["m"]
    rng = np.random.default_rng(seed)
    perm = rng.permutation(X.shape[0])
    tr, te = perm[:info["n_cv"]], perm[info["n_cv"]:info["n_cv"] + info["n_test"]]
    Xtr, ytr, Xte, yte = X[tr], y[tr], X[te], y[te]
    est = (FixedSizeLSSVR if task == "regression" else FixedSizeLSSVC)(n_prototypes=m, random_state=seed)
    with Timer() as t:
        est.fit(Xtr, ytr)
        pred = est.predict(Xte)
    if task == "regression":
        mu, sd = ytr.mean(), ytr.std(ddof=1)
        e = (pred - yte) / sd
        score = dict(l2=float(np.mean(e**2)), l1=float(np.mean(np.abs(e))), linf=float(np.max(np.abs(e))))
        _ = mu
    else:
        score = dict(acc=100 * float(np.mean(pred == yte)),
                     majority=100 * float(np.mean(yte == _mode(ytr))))
    row = dict(data=name, seed=seed, m=est.n_prototypes_, wall=t.wall, cpu=t.cpu, gamma=est.gamma_,
               sigma2=est.sigma2_, phases={k: round(v, 3) for k, v in est.timings_.items()}, **score)
    if with_svm:
        n_csa, n_simplex, folds = svm_budget
        s = _svm_tuned(name, Xtr, ytr, Xte, yte, task, n_csa, n_simplex, folds, seed)
        factor = (160 * 10) / ((n_csa + n_simplex) * folds)
        row.update(svm_score=s["score"], svm_n_sv=s["n_sv"], svm_wall=s["wall"], svm_cpu=s["cpu"],
                   svm_full_wall_est=s["tune_wall"] * factor + (s["wall"] - s["tune_wall"]),
                   svm_full_cpu_est=s["tune_cpu"] * factor + (s["cpu"] - s["tune_cpu"]))
    return row


# ------------------------------------------------------------------------------------------ Figure 2
def _split(name: str, seed: int, n_test: int | None = None):
    """The paper's split of ``name`` (n_CV training rows, n_test test rows of one random permutation)."""
    info = PAPER[name]
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
    Xtr, ytr, Xte, yte, task = _split(name, seed)
    cls = FixedSizeLSSVR if task == "regression" else FixedSizeLSSVC
    m = min(int(m), Xtr.shape[0])
    gamma, sigma2 = hyper if hyper is not None else (None, None)
    est = cls(n_prototypes=m, random_state=seed, regularize_bias=not baseline, n_csa=n_csa, n_simplex=n_simplex,
              gamma=gamma, sigma2=sigma2)
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
    and run through :func:`svmopt.distributed.parallel_map` (``n_jobs``).
    Returns ``(rows, baseline_row)``; rows have ``m`` and ``score`` (accuracy % or MSE), the baseline row also
    ``hyper`` ("tuned" / "fixed").
    """
    if name not in PAPER:
        raise ValueError(f"name must be one of {sorted(PAPER)}, got {name!r}")
    if baseline not in ("auto", "tuned", "fixed", None):
        raise ValueError(f"baseline must be 'auto', 'tuned', 'fixed' or None, got {baseline!r}")
    ms = sorted({int(m) for m in ms})
    if not ms or ms[0] < 1:
        raise ValueError(f"ms must hold integers >= 1, got {ms!r}")
    n = PAPER[name]["n_cv"]
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
        label, table = TIMING_FIGURES.get(name, ("Figure 3-4 style", None))
        fig, axes = new_figure(1, 1, figsize=(8.2, 4.8))
        ref = paper_timing_rows(table) if table else None
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
            task = "regression" if "l2" in PAPER[name] else "classification"
            plot_performance_vs_prototypes(
                rows, ax=ax, baseline=None if base is None else base["score"],
                baseline_label=(f"LS-SVM (m = n = {base['m']}" + (", tuned)" if base["hyper"] == "tuned" else
                                                                  ", hyperparameters of the largest m)"))
                if base else "LS-SVM",
                ylabel="test MSE (standardized target)" if task == "regression" else "test accuracy (%)",
                title=f"Figure 2: {name}, n_CV = {PAPER[name]['n_cv']}, n_test = {PAPER[name]['n_test']}")
            notes.append(f"{name}: m in {list(ms)}, {base_note} ({time.perf_counter() - t0:.0f} s)")
        fname = f"{MODULE_NAME}_figure2.png"
        save_figure(fig, out_dir / fname, dpi=dpi)
        figures.append((fname, "Figure 2: test performance against the number of prototype vectors, each model "
                               f"tuned by CSA + simplex ({fig2_budget[0]} + {fig2_budget[1]} evaluations), seed "
                               f"{seed}; " + "; ".join(notes)))
    return figures

# ------------------------------------------------------------------------------ results files (CSV, incremental)
RESULT_FIELDS = ("table", "data", "method", "seed", "m", "n_train", "n_test", "score", "l1", "linf", "n_sv", "wall",
                 "cpu", "tune_cpu", "fit_cpu", "cpu_full_est", "budget", "params", "phases", "peak_rss_mb", "note")
RESULT_FILES = {"1": "table1", "8": "binary", "12": "binary", "10": "multiclass", "ftc": "ftc", "3": "cvtiming"}
FS_METHODS = ("RBF FS-LSSVM", "Lin FS-LSSVM", "RBF FS-LSSVM (MOC)", "RBF FS-LSSVM (1vs1)", "Lin FS-LSSVM (1vs1)",
              "Lin FS-LSSVM (MOC)")
SVM_METHODS = ("RBF C-SVC", "Lin C-SVC", "RBF nu-SVC", "eps-SVR", "nu-SVR", "Nystroem+Ridge")


def results_path(out_dir: str | Path, group: str) -> Path:
    return Path(out_dir) / f"{MODULE_NAME}_{group}.csv"


def append_rows(path: str | Path, rows: Sequence[dict]) -> None:
    """Append ``rows`` to the CSV ``path`` (header written when the file is new); flushed at once, so a crash
    loses at most the run in progress."""
    import csv

    path = Path(path)
    path.parent.mkdir(parents=True, exist_ok=True)
    new = not path.exists() or path.stat().st_size == 0
    with path.open("a", newline="") as fh:
        w = csv.DictWriter(fh, fieldnames=RESULT_FIELDS, extrasaction="ignore")
        if new:
            w.writeheader()
        for r in rows:
            w.writerow({k: ("" if r.get(k) is None else r.get(k)) for k in RESULT_FIELDS})


def read_rows(path: str | Path) -> list[dict]:
    """Rows of a results CSV with the numeric fields as floats (missing: NaN)."""
    import csv

    path = Path(path)
    if not path.exists():
        return []
    text = ("table", "data", "method", "budget", "params", "phases", "note")
    out = []
    with path.open(newline="") as fh:
        for r in csv.DictReader(fh):
            out.append({k: (v if k in text else (float(v) if v not in ("", None) else math.nan))
                        for k, v in r.items()})
    return out


def _peak_rss_mb() -> float:
    import resource

    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024.0


def _task(y) -> str:
    return "regression" if np.asarray(y).dtype.kind == "f" else "classification"


def _scores(task: str, pred, yte, sd: float = 1.0) -> dict:
    """Accuracy (%) or the L2 / L1 / Linf test errors on the target's standardized scale (``sd``: the training
    target's sample sd; spec A25)."""
    if task == "regression":
        e = (pred - yte) / sd
        return dict(score=float(np.mean(e ** 2)), l1=float(np.mean(np.abs(e))), linf=float(np.max(np.abs(e))))
    return dict(score=100.0 * float(np.mean(pred == yte)))


def fs_lssvm_run(name: str, seed: int, *, kernel: str = "rbf", multiclass: str = "ovo", m: int | None = None,
                 n_csa: int = 90, n_simplex: int = 70, prototype_selection: str = "entropy", table: str = "8",
                 split=None) -> dict:
    """One FS-LSSVM randomization on the paper's split of ``name``: fit (bandwidths, PV, tuning, final fit) and
    test, timed in wall and process CPU seconds, with the estimator's per-phase wall times."""
    Xtr, ytr, Xte, yte, task = split if split is not None else _split(name, seed)
    m = int(m or PAPER[name]["m"])
    cls = FixedSizeLSSVR if task == "regression" else FixedSizeLSSVC
    kw = dict(multiclass=multiclass) if task != "regression" else {}
    est = cls(n_prototypes=m, kernel=kernel, random_state=seed, n_csa=n_csa, n_simplex=n_simplex,
              prototype_selection=prototype_selection, **kw)
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
    _, ytr, _, yte, _ = split if split is not None else _split(name, seed)
    return dict(table=table, data=name, method="Maj. rule", seed=seed, m=0, n_train=len(ytr), n_test=len(yte),
                score=100.0 * float(np.mean(yte == _mode(ytr))), wall=0.0, cpu=0.0, budget="-")


def _baseline_space(method: str, task: str, d: int, m: int, seed: int):
    """(make(x) -> sklearn estimator, lower, upper, initial box lower, upper) of a baseline (spec 3.5)."""
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

    Xtr, ytr, Xte, yte, task = split if split is not None else _split(name, seed)
    m = int(m or PAPER.get(name, {}).get("m", 200))
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
            est = FixedSizeLSSVC(n_prototypes=m, random_state=seed, n_csa=n_csa, n_simplex=n_simplex)
            est.fit(Xtr, ytr)
            hyper = (float(est.gamma_), float(est.sigma2_))
            tune_phases = "tuned and fitted on all rows:"
            budget = f"{n_csa}+{n_simplex} on all {n_train} rows (streamed), the tuned fit"
        elif hyper is None:
            sub = FixedSizeLSSVC(n_prototypes=m, random_state=seed, n_csa=n_csa, n_simplex=n_simplex)
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


def run_table(table: str, datasets: Sequence[str], seeds: Sequence[int], out_dir: str | Path, *,
              methods: Sequence[str] | None = None, m: int | None = None, fs_budget=(90, 70), svm_budget=(20, 10, 5),
              tune_subsample: int | None = None, svm_cpu_cap: float | None = None, force: bool = False,
              log=print) -> list[dict]:
    """Run the jobs of ``table`` ("1", "8", "12" or "10") for every data set and seed, appending each finished
    row to its CSV at once; jobs already in the CSV (same data, method, seed, m) are skipped unless ``force``.
    A failing job is logged and skipped."""
    path = results_path(out_dir, RESULT_FILES[table])
    methods = tuple(methods or DEFAULT_METHODS[table])
    # Done jobs: same data, method, seed, m, and for the SVM baselines the same kind of budget (the paper's whole
    # budget, _full_budget, or a reduced one).
    done = set() if force else {(r["data"], r["method"], int(r["seed"]), int(r["m"]), _full_budget(r))
                                for r in read_rows(path)}
    full = tuple(svm_budget) == (90, 70, 10) and not tune_subsample
    out = []
    for name in datasets:
        m_req = int(m or PAPER[name]["m"]) if table != "1" else int(m or 200)
        for seed in seeds:
            split = None
            for meth in methods:
                uses_m = meth in ("entropy", "random", "Nystroem+Ridge") or meth.startswith("RBF FS-LSSVM")
                baseline = meth != "Maj. rule" and "FS-LSSVM" not in meth and table != "1"
                if (name, meth, seed, m_req if uses_m else 0, baseline and full) in done:
                    continue
                split = split or _split(name, seed)
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
                append_rows(path, [row])
                out.append(row)
                log(f"[{table}] {name} {meth} seed {seed}: score {row['score']:.4g} cpu {row['cpu']:.1f} s "
                    f"({time.perf_counter() - t0:.1f} s wall)")
    return out


def _mode(y):
    vals, counts = np.unique(y, return_counts=True)
    return vals[np.argmax(counts)]


def report(timing_rows, acc_rows, figures: Sequence[tuple[str, str]] = ()) -> str:
    """The Markdown report; ``figures`` = ``[(PNG file name, caption)]`` go into a "Figures" section."""
    out = ["# Reproduction: optimized fixed-size LS-SVM (De Brabanter et al., 2010) — quick mode", ""]
    if timing_rows:
        out += ["## Tables 3–4: one CV evaluation, fast vs simple (seconds, best of repeats)", "",
                "| data | m | v | simple [s] | fast [s] | speedup | paper speedup (v=10) | same score |",
                "|---|---|---|---|---|---|---|---|"]
        for r in timing_rows:
            ref = (TABLE3 if r["data"] == "concrete" else TABLE4).get(r["m"])
            ps = f"{ref[0] / ref[1]:.1f}x" if ref and r["v"] == 10 else ""
            out.append(f"| {r['data']} | {r['m']} | {r['v']} | {r['simple']:.4f} | {r['fast']:.4f} | "
                       f"{r['speedup']:.1f}x | {ps} | {r['agree']} |")
        out.append("")
    if acc_rows:
        out += ["## Tables 8 / 12 / 9 / 13 (quick: 1 randomization)", "",
                "| data | m | FS-LSSVM score | paper | FS wall [s] | FS CPU [s] | paper time [s] (x4 core-s) | "
                "SVM score | SVM #SV | SVM wall (reduced budget) [s] | SVM full-protocol est. [s] |",
                "|---|---|---|---|---|---|---|---|---|---|---|"]
        for r in acc_rows:
            p = PAPER[r["data"]]
            if "acc" in r:
                sc, ps, ss = f"{r['acc']:.2f}%", f"{p['acc']}% ({p['acc_sd']})", r.get("svm_score")
                ss = f"{ss:.2f}%" if ss is not None else "-"
            else:
                sc, ps = f"L2 {r['l2']:.3f} / L1 {r['l1']:.3f} / Linf {r['linf']:.2f}", f"L2 {p['l2']} ({p['l2_sd']})"
                ss = f"L2 {r['svm_score']:.3f}" if "svm_score" in r else "-"
            out.append(f"| {r['data']} | {r['m']} | {sc} | {ps} | {r['wall']:.1f} | {r['cpu']:.1f} | "
                       f"{p['time']} ({4 * p['time']}) | {ss} | {r.get('svm_n_sv', '-')} | "
                       f"{r.get('svm_wall', float('nan')):.1f} | {r.get('svm_full_wall_est', float('nan')):.0f} |")
        out.append("")
        out.append("Phases (s): " + "; ".join(f"{r['data']}: {r['phases']}" for r in acc_rows))
    if figures:
        from reproductions.figures import figures_markdown

        out += ["", figures_markdown(figures)]
    return "\n".join(out) + "\n"


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
        if "FS-LSSVM" in meth and m == m and m and int(m) != PAPER.get(r["data"], {}).get("m", int(m)):
            meth = f"{meth} [m = {int(m)}]"
        elif _full_budget(r):
            meth = f"{meth} {FULL_BUDGET}"
        g.setdefault((r["data"], meth), []).append(r)
    return g


FULL_BUDGET = "[90+70 × 10-fold]"


def _full_budget(r: dict) -> bool:
    """A baseline row tuned with the paper's whole budget (CSA 90 + simplex 70, 10-fold CV, all training rows),
    possibly stopped at a CPU cap; FS-LSSVM rows and rows tuned on a subsample are not."""
    b = r.get("budget") or ""
    return "FS-LSSVM" not in r["method"] and b.startswith("90+70, 10-fold") and "tuned on" not in b


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


def table1_section(rows: Sequence[dict]) -> list[str]:
    out = ["## Table 1: Boston Housing, m = 200, entropy vs random prototype selection", "",
           "Each randomization: 338 training / 168 test rows, FS-LSSVM (RBF) tuned by CSA 90 + simplex 70 on the "
           "fast 10-fold CV, test MSE on the training target's standardized scale; both selections see the same "
           "splits (seeds).", "",
           "| selection | runs | test MSE mean (sd), ours | paper (30 runs) | CPU s per fit, mean |",
           "|---|---|---|---|---|"]
    g = _groups(rows)
    for meth in ("entropy", "random"):
        rs = g.get(("boston_housing", meth), [])
        mean, sd, n = _mean_sd([r["score"] for r in rs])
        pm, ps = PAPER_T1[meth]
        out.append(f"| {meth} | {n} | {_fmt_ms(mean, sd, 4)} | {pm} ({ps}) | "
                   f"{_fmt_s(_mean_sd([r['cpu'] for r in rs])[0])} |")
    e = {int(r["seed"]): r["score"] for r in g.get(("boston_housing", "entropy"), [])}
    rnd = {int(r["seed"]): r["score"] for r in g.get(("boston_housing", "random"), [])}
    common = sorted(set(e) & set(rnd))
    if len(common) >= 2:
        diff = np.array([rnd[s] - e[s] for s in common])
        wins = int((diff > 0).sum())
        out += ["", f"Paired over the {len(common)} common splits: random − entropy MSE = {diff.mean():.4f} "
                f"(sd {diff.std(ddof=1):.4f}, standard error {diff.std(ddof=1) / math.sqrt(len(common)):.4f}); "
                f"entropy has the lower MSE on {wins} of {len(common)} splits."]
    return [*out, ""]


TIMING_N = {"concrete": 1030, "magic": 19020}


def timing_section(rows: Sequence[dict]) -> list[str]:
    if not rows:
        return []
    out = ["## Tables 3–4: one CV evaluation, fast (Algorithm 3) vs simple (spec A32)", "",
           "All rows of the data set (concrete n = 1030, d = 8; magic n = 19,020, d = 10), gamma = 1, sigma^2 = d "
           "(spec A31), m random rows as PV, wall seconds of one CV evaluation, best of repeats (at least 5 fast and 2 "
           "simple, interleaved; cells under 2 s repeated up to 40 times), both variants on one thread whatever the "
           "environment says (`--tables 3`, `de_brabanter_cvtiming.csv`; with two threads the fast variant's fold "
           "factorizations run in parallel: magic m = 300, v = 50 gave 37.9x against 33.4x on one). Both variants "
           "use the same C++ core and agree to 1e-9 in every cell (column \"same score\"). The fast variant solves "
           "the folds by v Cholesky factorizations, or, "
           "where `tuning.holdout_cheaper` says it is cheaper (many small folds next to p = m' + 1), by the holdout "
           "identity from one factorization (`fast_cv_holdout`); column \"fold solve\". \"paper flop ratio\" is "
           "the speed-up the paper's own operation counts (Section 7.1) predict for equally efficient variants.", "",
           "| data | m | v | simple [s] | fast [s] | speedup | paper simple / fast [s] | paper speedup | "
           "paper flop ratio | fold solve | same score |",
           "|---|---|---|---|---|---|---|---|---|---|---|"]
    cells = []  # (data, ours, paper, flop ratio)
    for r in rows:
        table = PAPER_TABLE3 if r["data"] == "concrete" else PAPER_TABLE4
        ref = table.get(int(r["m"]))
        cell, sp = "–", "–"
        ours = r["simple"] / r["fast"]
        n = TIMING_N.get(r["data"])
        flop = paper_flop_ratio(n, int(r["m"]), int(r["v"])) if n else math.nan
        if ref and int(r["v"]) in PAPER_FOLDS:
            k = PAPER_FOLDS.index(int(r["v"]))
            paper = ref[0][k] / ref[1][k]
            cell, sp = f"{ref[0][k]} / {ref[1][k]}", f"{paper:.1f}x"
            cells.append((r["data"], ours, paper, flop))
        fr = f"{flop:.1f}x" if n else "–"
        solve = ("holdout" if holdout_cheaper(n, int(r["m"]) + 1, int(r["v"])) else "v Cholesky") if n else "–"
        out.append(f"| {r['data']} | {int(r['m'])} | {int(r['v'])} | {r['simple']:.3f} | {r['fast']:.4f} | "
                   f"{ours:.1f}x | {cell} | {sp} | {fr} | {solve} | {r['agree']} |")
    if cells:
        n_ok = sum(o >= p for _, o, p, _ in cells)
        n_80 = sum(o >= 0.8 * p for _, o, p, _ in cells)
        text = (f"Our speed-up reaches the paper's in {n_ok} of {len(cells)} cells and 80% of it in {n_80}. A simple "
                "CV as efficient per flop as the fast one gives about the paper's own flop ratio (Section 7.1);")
        for name in dict.fromkeys(c[0] for c in cells):
            cs = [c for c in cells if c[0] == name and c[3] == c[3]]
            if not cs:
                continue
            above = sum(p > f for _, _, p, f in cs)
            top = max(p / f for _, _, p, f in cs)
            mid = float(np.median([o / f for _, o, _, f in cs]))
            text += (f" on {name} the paper's measured speed-up exceeds that ratio in {above} of {len(cs)} cells (by "
                     f"up to {top:.1f}x), ours reaches {mid:.0%} of it in the median cell;")
        reach = [c for c in cells if c[2] <= c[3]]  # the paper's speed-up within its own flop ratio
        if reach:
            r_ok = sum(o >= p for _, o, p, _ in reach)
            r_90 = sum(o >= 0.9 * p for _, o, p, _ in reach)
            text += (f" in the {len(reach)} cells where the paper's measured speed-up is within its flop ratio (where "
                     f"variants equally efficient per flop can match it without doing fewer flops than Algorithm 3), "
                     f"ours reaches it in {r_ok} and 90% of it in {r_90};")
        out += ["", text.rstrip(";") + ". Beyond the flop ratio, a speed-up measures the simple variant's "
                "per-fold overheads (the paper's MATLAB) or, for ours, the holdout identity, which does fewer flops "
                "than the paper's fast variant."]
    return [*out, ""]


def throughput_section(rows: Sequence[dict]) -> list[str]:
    if not rows:
        return []
    out = ["## Flops per CV evaluation and throughput (issue target: state them beside this machine's dgemm)", "",
           "One fast 10-fold CV evaluation at a new sigma^2 (what almost every tuning step costs; `--tables flops`, "
           "`de_brabanter_throughput.csv`) on the training part of split 0 at the paper's m, one core, CPU "
           "seconds (best of 3), flops by `cv_flops` (the eigendecomposition's divide-and-conquer step not "
           "counted, so the rates are lower bounds). dgemm: numpy's BLAS, 2000 x 2000, one thread, same process.",
           "", "| data | n | m (m') | GFLOP per evaluation (features / Gram / eig / solves) | CPU s | GFLOP/s | "
           "dgemm GFLOP/s (1 core) | fraction of dgemm | 160 evaluations [GFLOP] |",
           "|---|---|---|---|---|---|---|---|---|"]
    for r in rows:
        out.append(f"| {SHORT.get(r['data'], r['data'])} | {int(r['n']):,} | {int(r['m'])} ({int(r['m_eff'])}) | "
                   f"{r['gflop']:.1f} ({r['gflop_features']:.1f} / {r['gflop_gram']:.1f} / {r['gflop_eig']:.1f} / "
                   f"{r['gflop_solves']:.1f}) | {r['cpu']:.2f} | {r['gflops']:.1f} | {r['dgemm_1core']:.1f} | "
                   f"{r['gflops'] / r['dgemm_1core']:.0%} | {160 * r['gflop']:,.0f} |")
    return [*out, ""]


def _svc_ref(g, name: str) -> float:
    """Our RBF C-SVC's (or eps-SVR's) full-protocol CPU seconds for ``name`` (the extrapolated estimate); NaN when
    it was tuned on a subsample or not tuned (no comparable figure)."""
    for meth in (f"RBF C-SVC {FULL_BUDGET}", "RBF C-SVC", f"eps-SVR {FULL_BUDGET}", "eps-SVR"):
        rs = g.get((name, meth))
        if rs and _time_cell(rs)[2] == _time_cell(rs)[2]:
            return _time_cell(rs)[2]
    return math.nan


def svm_full_budget_section(rows: Sequence[dict]) -> list[str]:
    """RBF SVMs tuned exactly as FS-LSSVM (CSA 90 + simplex 70 on 10-fold CV of all training rows), on the large
    sets stopped at a CPU cap: their CPU time so far is then a lower bound of the full tuning, so ours / theirs is an
    upper bound."""
    g = _groups(rows)
    keys = [k for k in g if k[1].endswith(FULL_BUDGET)]
    if not keys:
        return []
    out = ["## RBF SVM tuned the same way as FS-LSSVM (issue target: >= 10x less time, accuracy within 1 point)", "",
           "sklearn `SVC` / `NuSVC` (LIBSVM, `cache_size` 1000 MB, `tol` 1e-3) tuned by the same CSA 90 + simplex 70 "
           "over (log C or nu, log g) on stratified 10-fold CV of all n_CV training rows, then fitted on them and "
           "tested on the same split as FS-LSSVM. On pid and spa the tuning ran to the end (160 evaluations). "
           "On mgt and adu, running SVC's 1,600 fits to the end would take hours per split on this "
           "machine, so each tuning stops at a CPU cap and keeps the best point evaluated so far: its CPU seconds "
           "are a measured **lower bound** of the full tuning (\"full est.\" extrapolates linearly over the "
           "evaluations, \"≥\" marks the ratio), its accuracy that of a partially tuned SVC. On the regression sets "
           "(`SVR` / `NuSVR`, plain 10-fold CV) the score is the test MSE on the standardized target (Table 12's "
           "L2; lower is better, so a negative FS − SVM favours FS-LSSVM); elsewhere test accuracy (%).", "",
           "| data | method | seed | SVM evaluations done | SVM CPU s | SVM full est. [CPU s] | SVM score | "
           "FS-LSSVM CPU s (same seed) | FS-LSSVM score | SVM / FS-LSSVM time | score FS − SVM |",
           "|---|---|---|---|---|---|---|---|---|---|---|"]
    summary = []
    for name, meth in sorted(keys):
        fs = {int(r["seed"]): r for r in g.get((name, "RBF FS-LSSVM"), [])}
        ratios, diffs = [], []
        for r in sorted(g[(name, meth)], key=lambda r: int(r["seed"])):
            f = fs.get(int(r["seed"]))
            n_ev = re.search(r"after (\d+) evaluations", r.get("budget") or "")
            done = f"{n_ev.group(1)} of 160 (cap)" if n_ev else "160"
            mark = "≥ " if n_ev else ""
            ratio = f"{mark}{r['cpu'] / f['cpu']:.1f}x" if f else "–"
            fs_cpu, fs_acc = (_fmt_s(f["cpu"]), f"{f['score']:.{4 if name in REGRESSION else 2}f}") if f else ("–", "–")
            prec = 4 if name in REGRESSION else 2
            diff = f"{f['score'] - r['score']:+.{prec}f}" if f else "–"
            est = _fmt_s(r.get("cpu_full_est", math.nan)) if n_ev else _fmt_s(r["cpu"])
            if f:
                ratios.append(r["cpu"] / f["cpu"])
                diffs.append(f["score"] - r["score"])
            out.append(f"| {SHORT.get(name, name)} | {_base(meth)} | {int(r['seed'])} | {done} | {_fmt_s(r['cpu'])} | "
                       f"{est} | {r['score']:.{prec}f} | {fs_cpu} | {fs_acc} | {ratio} | {diff} |")
        if len(ratios) > 1:
            what = (f"test MSE {float(np.mean(diffs)):+.4f} on average" if name in REGRESSION else
                    f"accuracy {float(np.mean(diffs)):+.2f} points on average")
            summary.append(f"{SHORT.get(name, name)} {_base(meth)}: time ratio {min(ratios):.1f}–{max(ratios):.1f}x "
                           f"(median {float(np.median(ratios)):.1f}x) over {len(ratios)} splits, FS-LSSVM − SVM "
                           f"{what}")
    if summary:
        out += ["", "Over the splits: " + "; ".join(summary) + "."]
    return [*out, ""]


def accuracy_sections(rows: Sequence[dict], data: Sequence[str], acc_table: str, time_table: str,
                      paper_acc: dict, paper_time: dict, regression: bool = False) -> list[str]:
    g = _groups(rows)
    methods = _methods(g, paper_acc)
    unit = "test L2 / L1 / Linf (standardized target)" if regression else "test accuracy (%)"
    out = [f"## Table {acc_table}: {unit}, mean (sd) over the randomizations; # PV / # SV", "",
           "| data | method | runs | ours | paper | # PV / # SV ours | paper | budget of our run |",
           "|---|---|---|---|---|---|---|---|"]
    for name in data:
        for meth in methods:
            rs = g.get((name, meth), [])
            pa = paper_acc.get(_base(meth), {}).get(name)
            variants = [k for k in g if k[0] == name and k[1] != meth and _base(k[1]) == meth]
            if not rs and (pa is None or meth not in paper_acc or variants):
                continue
            n = len(rs)
            if regression:
                ours = " / ".join(_fmt_ms(*_mean_sd([r[f] for r in rs])[:2], 3 if f != "linf" else 2)
                                  for f in ("score", "l1", "linf")) if rs else "not run"
                paper = " / ".join(_fmt_paper(p) for p in pa) if pa else "–"
            else:
                ours = _fmt_ms(*_mean_sd([r["score"] for r in rs])[:2], 2) if rs else "not run"
                paper = _fmt_paper(pa)
            nsv = _mean_sd([r.get("n_sv", math.nan) for r in rs])[0]
            base = _base(meth).replace(" (1vs1)", "").replace(" (MOC)", "")
            pn = PAPER_NSV.get(base, {}).get(name)
            if meth == "Maj. rule" or base.startswith("Lin"):
                nsv_txt, pn_txt = "–", "–"
            else:
                nsv_txt, pn_txt = (f"{nsv:,.0f}" if nsv == nsv else "–"), (f"{pn:,}" if pn else "–")
            out.append(f"| {SHORT.get(name, name)} | {meth} | {n} | {ours} | {paper} | {nsv_txt} | {pn_txt} | "
                       f"{_budget_text(rs) if rs else ''} |")
    out += ["", f"## Table {time_table}: computation time per randomization (fit with tuning + test)", "",
            "CPU = process CPU seconds on one core (`OMP_NUM_THREADS=1`); \"full est.\" = a baseline tuned with a "
            "reduced budget, its tuning time extrapolated linearly to the paper's 160 evaluations × 10 folds. Paper "
            "core-s = paper seconds × 4 (Q6600, 4 cores; an upper bound on the cores it used).", "",
            "| data | method | runs | CPU s ours, mean (sd) | full est. [CPU s] | paper [s] (sd) | paper core-s | "
            "ours / paper core-s | ours / our RBF SVM | paper: method / RBF SVM |",
            "|---|---|---|---|---|---|---|---|---|---|"]
    svm_name = "eps-SVR" if regression else "RBF C-SVC"
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
            pcs = 4 * pt[0] if pt else math.nan
            psv = paper_time.get(svm_name, {}).get(name)
            cpu_txt = _fmt_ms(c, sd, 1 if c >= 1 else 3) if rs else "not run"
            out.append(f"| {SHORT.get(name, name)} | {meth} | {len(rs)} | {cpu_txt} | "
                       f"{_fmt_s(e)} | {_fmt_paper(pt)} | {_fmt_s(pcs)} | "
                       f"{_fmt_ratio(ours / pcs) if pcs == pcs else '–'} | "
                       f"{_fmt_ratio(ours / ref) if ref == ref else '–'} | "
                       f"{(f'{pt[0] / psv[0]:.2f}' if pt and psv else '–')} |")
    return [*out, ""]


def ftc_section(rows: Sequence[dict]) -> list[str]:
    if not rows:
        return []
    out = ["## Covertype stand-in (synthetic, Tables 8–9 column ftc) and a 10^6-row set", "",
           "The real covertype is not available here. `synthetic_covertype(n, seed)` writes a 54-column set (10 "
           "correlated numeric columns, 4 + 40 one-hot columns, a nonlinear rule with 5% label noise; balanced) "
           "block by block to an `np.memmap`. Split 531,012 / 50,000 as the paper. FS-LSSVM: m = 500; (gamma, "
           "sigma^2) tuned by CSA 90 + simplex 70 on the fast 10-fold CV of a training subsample, then the final "
           "fit streamed over all training rows from the memmap (one pass: Nyström features and the blockwise "
           "Phi^T Phi); row \"[tuned on all rows]\": the paper's protocol, the fast CV of all training rows "
           "streamed from the memmap at every new sigma^2 (`--ftc-rows 531012 20000 531012`), its tuned model "
           "the final fit. SVMs at fixed hyperparameters are marked * as in the paper. The accuracies are NOT "
           "comparable with the paper's (a different data set); the times are.", "",
           "| data | method | score (%) | # PV / # SV | budget | CPU s | wall s | paper [s] (core-s) | "
           "phases (wall s) | peak RSS [MB] |", "|---|---|---|---|---|---|---|---|---|---|"]
    for r in rows:
        pt = PAPER_T9.get(_base(r["method"]), {}).get("ftc") if r["data"] == "ftc" else None
        pa = PAPER_T8.get(_base(r["method"]), {}).get("ftc") if r["data"] == "ftc" else None
        nsv = r.get("n_sv", math.nan)
        out.append(f"| {r['data']} (seed {int(r['seed'])}) | {r['method']} | {r['score']:.2f}"
                   f"{f' (paper {_fmt_paper(pa)})' if pa else ''} | {f'{nsv:,.0f}' if nsv == nsv else '–'} | "
                   f"{r.get('budget', '')} | {_fmt_s(r['cpu'])} | {_fmt_s(r['wall'])} | "
                   f"{f'{pt[0]:,} ({4 * pt[0]:,})' if pt else '–'} | {r.get('phases', '')} | "
                   f"{_fmt_s(r.get('peak_rss_mb', math.nan))} |")
    return [*out, ""]


TIMING_FIELDS = ("data", "m", "v", "simple", "fast", "speedup", "agree")
THROUGHPUT_FIELDS = ("data", "n", "d", "m", "m_eff", "v", "holdout", "cpu", "gflop", "gflops", "dgemm_1core",
                     "gflop_kernel", "gflop_features", "gflop_gram", "gflop_eig", "gflop_solves", "gflop_predict")


def _write_csv(path: Path, rows: Sequence[dict], fields: Sequence[str]) -> None:
    import csv

    path.parent.mkdir(parents=True, exist_ok=True)
    with path.open("w", newline="") as fh:
        w = csv.DictWriter(fh, fieldnames=list(fields), extrasaction="ignore")
        w.writeheader()
        w.writerows(rows)


def _read_csv(path: Path) -> list[dict]:
    """A small results CSV: numbers as floats, everything else as text."""
    import csv

    if not path.exists():
        return []

    def conv(x):
        try:
            return float(x)
        except ValueError:
            return x

    with path.open(newline="") as fh:
        return [{k: conv(v) for k, v in r.items()} for r in csv.DictReader(fh)]


REPORT_HEAD = """# Reproduction: optimized fixed-size LS-SVM (De Brabanter, De Brabanter, Suykens & De Moor, 2010)

Generated from the raw results `de_brabanter_*.csv` beside this file by
`python -m reproductions de-brabanter --from-results docs/reproductions --out docs/reproductions`; the runs
that produced them (`--tables 1 8 10 12 ftc ftc1e6`, options per table below) append one CSV row per finished fit.

Machine: the project's 2-core build machine, shared with another engineer's experiments on the other core. Every
run here used one core (`OMP_NUM_THREADS=OPENBLAS_NUM_THREADS=MKL_NUM_THREADS=1`, `--jobs 1`), so the CPU (process)
seconds quoted are single-core seconds. The paper's times are wall seconds on a 4-core Q6600 (MATLAB, LIBSVM); we
compare with paper seconds × 4 (\"paper core-s\"), which favours the paper if it did not use all four cores.

## Protocol as implemented (spec Sections 2–3)

* Inputs standardized with training statistics inside the estimator; regression targets standardized, errors
  reported on that scale (spec A25). Adult: categorical attributes as integer codes (d = 14).
* Entropy bandwidths: two-stage solve-the-equation plug-in per dimension. Prototype vectors: quadratic Rényi
  entropy, O(m d) log-domain swaps, stratified by class, the spec's stopping rule (Table 1 compares
  `prototype_selection="random"`: m distinct rows uniformly, stratified likewise).
* Tuning: CSA-MwVC (5 coupled processes, 90 evaluations) then Nelder–Mead (70) over (log gamma, log sigma^2) (RBF)
  or log gamma (linear kernel) on the fast 10-fold CV misclassification rate / MSE. Multi-class: one PV set for all
  binary problems, each problem tuned separately (1vs1: M(M−1)/2 problems, MOC: ceil(log2 M)).
* Final model: ridge (7) with the bias penalized as printed.
* Baselines (spec 3.5), sklearn on the standardized inputs (and target), tuned by the **same** `csa_simplex` code
  with sklearn k-fold CV (stratified for classification): RBF C-SVC (log C in [−5, 10], log g), Lin C-SVC
  (`SVC(kernel="linear")`, log C in [−5, 5]), RBF nu-SVC (nu = 0.8/(1+exp(−u)), u in [−7, 7]), eps-SVR
  (epsilon = 0.1), nu-SVR (C, nu, g), and `Nystroem(n_components=m) + RidgeClassifier/Ridge` (log alpha, log g)
  as sklearn's approximate-kernel counterpart of FS-LSSVM (random landmarks, no entropy selection, no fast CV).
  LIBSVM settings: cache 1000 MB, tol 1e-3, shrinking. Budgets are below each table; a reduced budget's tuning
  time is extrapolated linearly to 160 evaluations × 10 folds (\"full est.\").
"""


def build_report(results: dict[str, list[dict]], *, figures_section: str | None = None,
                 notes: str | None = None) -> str:
    """The Markdown report from result rows: ``results`` maps "table1", "binary", "multiclass", "ftc" (rows as in
    the CSVs) and "cvtiming" (Tables 3-4 rows) to lists of dicts; ``figures_section`` (starting with "## Figures")
    and ``notes`` (a Markdown discussion) are appended as given."""
    out = [REPORT_HEAD]
    if results.get("table1"):
        out += table1_section(results["table1"])
    out += timing_section(results.get("cvtiming", []))
    out += throughput_section(results.get("throughput", []))
    binary = [r for r in results.get("binary", []) if r["data"] in BINARY]
    reg = [r for r in results.get("binary", []) if r["data"] in REGRESSION]
    if binary or results.get("ftc"):
        ftc_like = [dict(r) for r in results.get("ftc", []) if r["data"] == "ftc"]
        out += accuracy_sections(binary + ftc_like, BINARY, "8", "9", PAPER_T8, PAPER_T9)
    if reg:
        out += accuracy_sections(reg, REGRESSION, "12", "13", PAPER_T12, PAPER_T13, regression=True)
    if results.get("multiclass"):
        out += accuracy_sections(results["multiclass"], MULTICLASS, "10", "11", PAPER_T10, PAPER_T11)
    out += svm_full_budget_section(results.get("binary", []))
    out += ftc_section(results.get("ftc", []))
    if notes:
        out += [notes.strip(), ""]
    if figures_section:
        out += [figures_section.strip(), ""]
    return "\n".join(out).rstrip("\n") + "\n"


def load_results(results_dir: str | Path) -> dict[str, list[dict]]:
    d = Path(results_dir)
    res = {g: read_rows(results_path(d, g)) for g in ("table1", "binary", "multiclass", "ftc")}
    res["cvtiming"] = _read_csv(results_path(d, "cvtiming"))
    res["throughput"] = _read_csv(results_path(d, "throughput"))
    return res


def _existing_section(path: Path, heading: str) -> str | None:
    if not path.exists():
        return None
    lines = path.read_text().split("\n")
    start = next((i for i, ln in enumerate(lines) if ln.strip() == heading), None)
    if start is None:
        return None
    end = next((j for j in range(start + 1, len(lines)) if lines[j].startswith("## ")), len(lines))
    return "\n".join(lines[start:end])


def write_report_from_results(results_dir, out_dir) -> Path:
    """Rebuild ``out_dir/de_brabanter.md`` from the CSVs in ``results_dir``, keeping the report's existing
    "## Figures" section and inserting ``results_dir/de_brabanter_notes.md`` (the discussion) when present."""
    from reproductions.figures import FIGURES_HEADING

    path = Path(out_dir) / f"{MODULE_NAME}.md"
    notes_path = Path(results_dir) / f"{MODULE_NAME}_notes.md"
    text = build_report(load_results(results_dir), figures_section=_existing_section(path, FIGURES_HEADING),
                        notes=notes_path.read_text() if notes_path.exists() else None)
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(text)
    return path


def run_tables(a, out_dir: Path) -> int:
    """``--tables``: run the requested tables' jobs (incrementally saved), then rebuild the report."""
    seeds = tuple(range(a.seed, a.seed + (a.seeds or (1 if a.quick else 10))))
    for table in a.tables:
        if table == "3":  # Tables 3-4: the (data set, m) rows in the timing CSV are replaced by the new measurement
            names = a.timing or ["concrete", "magic"]
            path = results_path(out_dir, "cvtiming")
            plan = {name: a.timing_m or ((50, 100, 400) if name == "concrete" else (50, 300, 700)) for name in names}
            keep = [r for r in _read_csv(path) if int(r["m"]) not in plan.get(r["data"], ())]
            rows = []
            for name, ms in plan.items():
                rows += cv_timing(name, ms, vs=PAPER_FOLDS, reps=a.timing_reps, seed=a.seed,
                                  min_seconds=a.timing_min_seconds)
                print(report(rows, []), flush=True)
            order = {(d, m): i for i, (d, m) in enumerate((d, m) for d in ("concrete", "magic") for m in
                                                          (50, 100, 300, 400, 700))}
            merged = sorted(keep + rows, key=lambda r: (order.get((r["data"], int(r["m"])), 99), r["data"],
                                                        int(r["m"]), int(r["v"])))
            _write_csv(path, merged, TIMING_FIELDS)
            continue
        if table == "flops":
            path = results_path(out_dir, "throughput")
            names = a.datasets or ["magic", "adult"]
            keep = [r for r in _read_csv(path) if r["data"] not in names]
            rows = [cv_throughput(name, a.m, seed=a.seed) for name in names]
            for r in rows:
                print(f"[flops] {r['data']}: {r['gflop']:.1f} GFLOP in {r['cpu']:.2f} CPU-s = {r['gflops']:.1f} "
                      f"GFLOP/s (dgemm {r['dgemm_1core']:.1f} GFLOP/s on one core)", flush=True)
            _write_csv(path, keep + rows, THROUGHPUT_FIELDS)
            continue
        if table in ("ftc", "ftc1e6"):
            tune_rows, svc_rows, n_train = a.ftc_rows
            hyper = None
            if table == "ftc1e6":  # fixed hyperparameters: those tuned on the stand-in, else (gamma, sigma2) = (10, d)
                prev = [r for r in read_rows(results_path(out_dir, "ftc"))
                        if r["data"] == "ftc" and r["method"] == "RBF FS-LSSVM"]
                hyper = (10.0, 54.0)
                if prev:
                    p = prev[-1]["params"].replace(",", "").split()
                    hyper = (float(p[1]), float(p[3]))
            for seed in seeds:
                rows = ftc_run(seed, n_train=n_train if table == "ftc" else 1_000_000, tune_rows=tune_rows,
                               svc_rows=svc_rows, n_csa=a.fs_budget[0], n_simplex=a.fs_budget[1], hyper=hyper,
                               data="ftc" if table == "ftc" else "synthetic 1e6",
                               with_baselines=table == "ftc" and not a.no_svm)
                append_rows(results_path(out_dir, "ftc"), rows)
                for r in rows:
                    print(f"[{table}] {r['method']}: {r['score']:.2f}% cpu {r['cpu']:.1f} s", flush=True)
            continue
        default = {"1": ["boston_housing"], "8": ["pima", "spambase"], "12": list(REGRESSION),
                   "10": list(MULTICLASS)}[table]
        table_seeds = seeds if table != "1" else tuple(range(a.seed, a.seed + (a.seeds or 30)))
        run_table(table, a.datasets or default, table_seeds, out_dir, methods=a.methods, m=a.m,
                  fs_budget=tuple(a.fs_budget), svm_budget=tuple(a.svm_budget), tune_subsample=a.tune_subsample,
                  svm_cpu_cap=a.svm_cpu_cap, force=a.force, log=lambda msg: print(msg, flush=True))
    write_report_from_results(out_dir, out_dir)
    return 0


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
    ap.add_argument("--timing-reps", type=int, default=5,
                    help="--tables 3: repetitions per cell (best of; the simple CV gets max(1, reps // 2))")
    ap.add_argument("--timing-min-seconds", type=float, default=2.0,
                    help="--tables 3: cells faster than this repeat further (up to 40 pairs)")
    ap.add_argument("--tables", nargs="+", default=None,
                    choices=["1", "3", "8", "10", "12", "ftc", "ftc1e6", "flops"],
                    help="run these tables' jobs (rows appended to DIR/de_brabanter_<group>.csv as they finish, "
                         "finished jobs skipped), then rebuild the report from the CSVs")
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
    ap.add_argument("--force", action="store_true", help="--tables: rerun jobs already in the CSVs")
    ap.add_argument("--from-results", default=None, metavar="DIR",
                    help="only rebuild the report from the CSVs in DIR (no runs)")
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
    if a.from_results:
        path = write_report_from_results(a.from_results, a.out)
        print(f"wrote {path}")
        return 0
    check_protocol_arguments(ap, a)
    for opt in ("timing_m", "fig2_m", "fig2_budget"):
        vals = getattr(a, opt)
        if vals is not None and min(vals) < (0 if opt == "fig2_budget" else 1):
            ap.error(f"--{opt.replace('_', '-')} values must be positive")
    out_dir = Path(a.out)
    path = out_dir / f"{MODULE_NAME}.md"
    if a.tables:
        return run_tables(a, out_dir)
    datasets = a.datasets if a.datasets is not None else (
        ["pima", "boston_housing", "concrete"] + ([] if a.quick else ["spambase"]))
    fig2_data = a.fig2_data if a.fig2_data is not None else (
        ["boston_housing"] if a.quick else ["spambase", "boston_housing"])
    seeds = (a.seed,) if a.quick else tuple(range(a.seed, a.seed + 10))
    trows = []
    for name in a.timing:
        ms = a.timing_m or ((50, 100, 400) if name == "concrete" else (50, 300, 700))
        if a.figures_only:
            vs = PAPER_FOLDS
        else:
            vs = PAPER_FOLDS if not a.quick else ((5, 10, 20, 50) if name == "concrete" else (5, 10))
        trows += cv_timing(name, ms, vs=vs, reps=3 if (a.quick or a.figures_only) else 100, seed=a.seed)
        if not a.figures_only:
            print(report(trows, []), flush=True)
    figures: list[tuple[str, str]] = []
    if not a.no_figures:
        figures = write_figures(out_dir, timing_rows=trows, fig2_data=fig2_data, fig2_m=a.fig2_m, quick=a.quick,
                                seed=a.seed, n_jobs=a.jobs, fig2_budget=tuple(a.fig2_budget or (90, 70)),
                                fig2_baseline=None if a.fig2_baseline == "none" else a.fig2_baseline, dpi=a.dpi)
    if a.figures_only:
        from reproductions.figures import figures_markdown, write_figures_section

        intro = (f"Generated by `python -m reproductions.{MODULE_NAME} --figures-only` (timing data: "
                 f"{', '.join(a.timing) or 'none'}; Figure 2: ")
        write_figures_section(path, figures_markdown(
            figures, intro=intro +
                           f"{', '.join(fig2_data) or 'none'}); the tables above are not recomputed, so the CV "
                           "times drawn here come from a fresh run (best of 3) and differ from the table's within "
                           "the machine's noise."))
        print(f"wrote {len(figures)} figures into {path}")
        return 0
    arows = []
    for name in datasets:
        budget = (20, 10, 5) if a.quick else (90, 70, 10)
        arows += accuracy(name, seeds=seeds, m=a.m, svm_budget=budget, with_svm=not a.no_svm, n_jobs=a.jobs)
        print(arows[-1], flush=True)
    text = report(trows, arows, figures)
    out_dir.mkdir(parents=True, exist_ok=True)
    path.write_text(text)
    print(text)
    print(f"wrote {path}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
