"""Reproduction protocol of paper 002 (De Brabanter et al., 2010): FS-LSSVM against LIBSVM-style baselines.

Usage (the shared convention of ``svmopt reproduce``)::

    SVMOPT_DATA=<datasets dir> python -m svmopt.experiments.de_brabanter --quick [--out DIR] [--jobs N] [--seed S]
    SVMOPT_DATA=<datasets dir> python -m svmopt.experiments.de_brabanter --figures-only   # figures into the report

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

Independent fits (randomizations, values of m) run through :func:`svmopt.distributed.parallel_map` with
``--jobs``; the CV timings always run alone, one after the other.
"""

from __future__ import annotations

import argparse
import math
import time
from collections.abc import Sequence
from dataclasses import dataclass
from functools import partial
from pathlib import Path

import numpy as np

from svmopt.distributed import parallel_map
from svmopt.experiments._cli import add_figure_arguments, check_protocol_arguments, protocol_parser
from svmopt.fixed_size import FixedSizeLSSVC, FixedSizeLSSVR
from svmopt.tuning import CVEngine, csa_simplex, make_folds, simple_cv_cost

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


def cv_timing(name: str, ms, vs=(5, 10, 20, 50), reps: int = 3, seed: int = 0) -> list[dict]:
    """Tables 3–4: seconds of one CV evaluation, fast vs simple, best of ``reps``."""
    X, y = _load(name)
    X = (X - X.mean(0)) / np.where(X.std(0) > 0, X.std(0), 1)
    yy = (y - y.mean()) / y.std() if y.dtype.kind == "f" else np.where(y == np.unique(y)[1], 1.0, -1.0)
    task = "regression" if y.dtype.kind == "f" else "classification"
    rng = np.random.default_rng(seed)
    rows = []
    d = X.shape[1]
    for m in ms:
        PV = np.ascontiguousarray(X[rng.choice(X.shape[0], m, replace=False)])
        for v in vs:
            folds = make_folds(X.shape[0], v, rng)
            fast, simple = math.inf, math.inf
            for _ in range(reps):
                with Timer() as t:
                    eng = CVEngine(lambda: iter([(X, yy.reshape(-1, 1))]), folds, v, PV, _rbf, task, n_features=d)
                    a = eng.cost(1.0, float(d))
                fast = min(fast, t.wall)
            for _ in range(max(1, reps - 1)):
                with Timer() as t:
                    b = simple_cv_cost(X, yy, folds, PV, _rbf(float(d)), 1.0, task)
                simple = min(simple, t.wall)
            rows.append(dict(data=name, m=m, v=v, fast=fast, simple=simple, speedup=simple / fast,
                             agree=abs(a - b) <= 1e-9 * max(1.0, abs(a))))
    return rows


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
    from svmopt.plotting import new_figure, plot_cv_time_vs_folds, plot_performance_vs_prototypes, save_figure

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
        from svmopt.plotting import figures_markdown

        out += ["", figures_markdown(figures)]
    return "\n".join(out) + "\n"


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
    for opt in ("timing_m", "fig2_m", "fig2_budget"):
        vals = getattr(a, opt)
        if vals is not None and min(vals) < (0 if opt == "fig2_budget" else 1):
            ap.error(f"--{opt.replace('_', '-')} values must be positive")
    out_dir = Path(a.out)
    path = out_dir / f"{MODULE_NAME}.md"
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
        from svmopt.plotting import figures_markdown, write_figures_section

        intro = (f"Generated by `python -m svmopt.experiments.{MODULE_NAME} --figures-only` (timing data: "
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
