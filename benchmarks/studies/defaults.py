"""Every classifier at its DEFAULTS against a tuned scikit-learn peer, on every classification set of the data store.

What it measures
----------------
How far each svmopt classifier, constructed with no argument at all (only ``random_state``, where it has one, set to
the split index), stands from what a scikit-learn user gets by a small grid search:

* ``RobustSVC()`` and ``FixedSizeLSSVC()`` (RBF models) against ``GridSearchCV(SVC(kernel="rbf"), C in {0.1, 1, 10,
  100} x gamma in g * {0.1, 0.3, 1, 3}, cv=5)``, ``g = 1 / (n_features * X_train.var())`` on the standardized
  training rows, i.e. a 4 x 4 grid around scikit-learn's ``gamma="scale"``;
* ``RampLossSVC()``, ``L1SVC()``, ``FeatureBudgetSVC()`` and ``EllipsoidPSOClassifier()`` (linear models) against
  ``GridSearchCV(LinearSVC(max_iter=10000), C in logspace(-3, 2, 6), cv=5)`` (``dual="auto"`` where the installed
  scikit-learn accepts it; one-vs-rest on more than two classes).

Every model, ours and the peers, is the last step of ``make_pipeline(StandardScaler(), model)``; the grid searches run
with ``n_jobs=1``. The script never sets any other parameter of our estimators: it benchmarks whatever their defaults
are at the commit it runs on (the defaults are recorded in the JSON, ``meta["estimator_defaults"]``).

The data sets and the tasks
---------------------------
The pool (``POOL``) is every set of the catalog ``svmopt.datasets.DATASETS`` whose task is "binary" or "multiclass"
(a set added to the catalog joins it); a set whose files are missing (``SVMOPT_DATA`` unset and the set not bundled)
is skipped with the loader's reason. A binary set is one task, ``"binary"``: ``binary="first_vs_rest"`` of
``load_dataset`` (+1 for the catalog's positive class, -1 for the other). A multi-class set is two tasks: the
estimators that take several classes (``MULTICLASS``: RobustSVC, FixedSizeLSSVC, EllipsoidPSOClassifier) and their
peers get ``"multiclass"``, all its classes with their original labels; the binary-only ones (RampLossSVC, L1SVC,
FeatureBudgetSVC) and their peer get ``"first_vs_rest"``, the catalog's positive class against the others. adult and
mushroom's categorical columns are one-hot encoded.

Every estimator runs on every set, its own paper's included: the records of the sets that its paper's tables use
(``PAPER_DATASETS``, from the catalog's ``papers`` of each set) carry ``paper_set: true``. Those are the sets its
defaults may have been chosen on, so the report gives the other sets' figures (how well the defaults carry over)
apart from them.

Protocol
--------
Per (data set, task): the rows of the classes with a single row are dropped (no stratified split can hold them), then
a stratified subsample of at most ``--max-rows`` rows (seed 0; the original number of rows is recorded), then the
classes with fewer than ``MIN_CLASS_ROWS`` rows in it are dropped too (fewer than 5 training rows would leave folds of
a 5-fold search without them; the dropped classes and their counts are recorded, and a task left with fewer than two
classes is skipped with the reason), then ``--splits`` stratified 70/30 splits (``StratifiedShuffleSplit(n_splits,
test_size=0.3, random_state=0)``). Per
(data set, task, split), each peer that an estimator of that task needs is fit once (a peer is shared by the
estimators that use it), then each estimator. Every fit runs in this process, one after the other; per fit the record
holds the task, whether the set is the estimator's paper's, the test accuracy, the fit's wall seconds
(``time.perf_counter``) and CPU seconds (``time.process_time`` of the process), the warnings it raised (their number,
categories and first message), the peer's best parameters or the values our estimator selected (whichever of
``SELECTED_ATTRS`` it exposes), and the majority-class rate of the test rows. A fit that raises is recorded with its
error (a failure) and the run goes on.

``--append`` merges the records into an existing JSON of the same protocol (``protocol_version`` included, so a JSON
of an earlier protocol is never merged; a run can be split by estimator or data set); the peers already recorded there
for a (data set, task, split) are reused rather than refit. ``report_defaults.py`` writes the Markdown report from the
JSON::

    SVMOPT_DATA=/path/to/datasets python -m benchmarks.studies.defaults --estimators RobustSVC FixedSizeLSSVC
    SVMOPT_DATA=/path/to/datasets python -m benchmarks.studies.defaults --estimators RampLossSVC --append
    python -m benchmarks.studies.report_defaults --check
"""

from __future__ import annotations

import argparse
import json
import math
import os
import platform
import sys
import time
import warnings
from collections import Counter
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np
import sklearn
from sklearn.model_selection import GridSearchCV, StratifiedShuffleSplit, train_test_split
from sklearn.pipeline import make_pipeline
from sklearn.preprocessing import StandardScaler
from sklearn.svm import SVC, LinearSVC

import svmopt
from benchmarks.studies.util import RESULTS, command_line, git_head, uncommitted
from svmopt import L1SVC, EllipsoidPSOClassifier, FeatureBudgetSVC, FixedSizeLSSVC, RampLossSVC, RobustSVC
from svmopt.datasets import DATASETS, load_dataset

DEFAULT_JSON = RESULTS / "defaults.json"
#: Raised whenever what the records mean changes; a JSON of another version is never merged by --append.
#: 1 (implicit): binary tasks only, each estimator skipping its paper's sets. 2: the catalog's classification sets,
#: multi-class tasks, the paper sets flagged, L1SVC and FeatureBudgetSVC.
PROTOCOL_VERSION = 2
TEST_SIZE = 0.3
SUBSAMPLE_SEED = 0
SPLIT_SEED = 0
#: A class with fewer rows in the subsample is dropped from the task: with 8, a 70/30 split leaves it at least 5
#: training rows, one per fold of the peers' 5-fold search.
MIN_CLASS_ROWS = 8
#: The catalog's tasks that the pool takes.
CLASSIFICATION = ("binary", "multiclass")


def classification_sets() -> tuple[str, ...]:
    """Every set of the catalog whose task is binary or multi-class, in the catalog's order."""
    return tuple(name for name, info in DATASETS.items() if info.task in CLASSIFICATION)


#: The data sets of the pool.
POOL = classification_sets()

#: Extra keyword arguments of load_dataset per data set (the categorical columns one-hot encoded).
LOAD_KWARGS: dict[str, dict[str, Any]] = {"adult": {"categorical": "onehot"}, "mushroom": {"categorical": "onehot"}}

#: estimator -> its paper (the catalog's ``papers`` of a set name the papers whose tables use it).
PAPER: dict[str, str] = {
    "RobustSVC": "000",  # robust nonlinear SVM
    "RampLossSVC": "001",  # ramp-loss SVM with a feature budget
    "L1SVC": "001",  # its (SVM-l1)
    "FeatureBudgetSVC": "001",  # its comparison model (FS-SVM)
    "FixedSizeLSSVC": "002",  # fixed-size LS-SVM
    "EllipsoidPSOClassifier": "003",  # QCQP / PSO hyperplane
}


def paper_datasets() -> dict[str, tuple[str, ...]]:
    """estimator -> the catalog's sets that its paper's tables use (its defaults may have been chosen on them)."""
    return {est: tuple(sorted(n for n, info in DATASETS.items() if paper in info.papers))
            for est, paper in PAPER.items()}


PAPER_DATASETS: dict[str, tuple[str, ...]] = paper_datasets()

#: Fitted attributes (and parameters) recorded as "the values our estimator selected", where they exist.
SELECTED_ATTRS = ("nu_", "kernel_", "alpha_", "rho_", "C_", "c_", "budget_", "gamma_", "sigma2_",
                  "gamma", "sigma2", "n_prototypes_", "n_landmarks_", "method_", "model_", "ratios_", "shrinkages_",
                  "n_selected_features_", "solver_", "status_", "best_params_", "best_score_", "cv_score_",
                  "cv_results_")
#: The values each estimator selects (RobustSVC's ``gamma_`` is its LP offset, not a kernel parameter).
SELECTED_BY_ESTIMATOR = {
    "RobustSVC": ("kernel_", "nu_", "rho_", "model_"),
    "FixedSizeLSSVC": ("gamma_", "sigma2_", "n_prototypes_"),
    "RampLossSVC": ("C_", "budget_", "method_", "n_selected_features_"),
    "L1SVC": ("C_", "solver_", "status_", "n_selected_features_"),
    "FeatureBudgetSVC": ("C_", "budget_", "solver_", "status_", "n_selected_features_"),
    "EllipsoidPSOClassifier": ("ratios_", "shrinkages_"),
}
#: Attributes recorded by their text when they are not plain JSON values.
_AS_TEXT = frozenset({"kernel_", "selection_", "method_", "model_", "shrinkages_"})
_MAX_LIST = 16  # arrays / lists longer than this are not recorded


# ------------------------------------------------------------------------------------------------------- peers
def _linear_svc_dual() -> dict[str, Any]:
    """``{"dual": "auto"}`` where the installed scikit-learn accepts it (1.3 and later), else nothing (its default)."""
    try:
        LinearSVC(dual="auto", max_iter=5).fit(np.array([[0.0], [1.0], [2.0], [3.0]]), np.array([0, 0, 1, 1]))
    except Exception:
        return {}
    return {"dual": "auto"}


def rbf_gamma_scale(X_train: np.ndarray) -> float:
    """scikit-learn's ``gamma="scale"``, ``1 / (n_features * X.var())``, of the standardized training rows."""
    Xs = StandardScaler().fit_transform(X_train)
    var = float(Xs.var())
    return 1.0 / (Xs.shape[1] * var) if var > 0 else 1.0


def svc_grid(X_train: np.ndarray) -> GridSearchCV:
    g = rbf_gamma_scale(X_train)
    grid = {"C": [0.1, 1.0, 10.0, 100.0], "gamma": [g * f for f in (0.1, 0.3, 1.0, 3.0)]}
    return GridSearchCV(SVC(kernel="rbf"), grid, cv=5, n_jobs=1)


def linear_svc_grid(X_train: np.ndarray) -> GridSearchCV:
    grid = {"C": [float(c) for c in np.logspace(-3, 2, 6)]}
    return GridSearchCV(LinearSVC(max_iter=10000, **_linear_svc_dual()), grid, cv=5, n_jobs=1)


@dataclass(frozen=True)
class Peer:
    make: Callable[[np.ndarray], Any]  # the training rows -> the unfitted GridSearchCV
    description: str


PEERS: dict[str, Peer] = {
    "SVC-rbf-grid": Peer(svc_grid, "GridSearchCV(SVC(kernel='rbf'), C in [0.1, 1, 10, 100] x gamma in g * [0.1, 0.3, "
                                   "1, 3], g = 1 / (n_features * X_train.var()), cv=5)"),
    "LinearSVC-grid": Peer(linear_svc_grid, "GridSearchCV(LinearSVC(max_iter=10000), C in logspace(-3, 2, 6), cv=5)"),
}

#: our estimator -> (its class, the name of its peer in PEERS).
ESTIMATORS: dict[str, tuple[type, str]] = {
    "RobustSVC": (RobustSVC, "SVC-rbf-grid"),
    "FixedSizeLSSVC": (FixedSizeLSSVC, "SVC-rbf-grid"),
    "RampLossSVC": (RampLossSVC, "LinearSVC-grid"),
    "L1SVC": (L1SVC, "LinearSVC-grid"),
    "FeatureBudgetSVC": (FeatureBudgetSVC, "LinearSVC-grid"),
    "EllipsoidPSOClassifier": (EllipsoidPSOClassifier, "LinearSVC-grid"),
}
#: The estimators that take more than two classes (the others are fit on first_vs_rest of a multi-class set).
MULTICLASS = frozenset({"RobustSVC", "FixedSizeLSSVC", "EllipsoidPSOClassifier"})
#: The tasks: a binary set's, and a multi-class set's for the multi-class and for the binary-only estimators.
TASKS = ("binary", "multiclass", "first_vs_rest")


def task_of(estimator: str, catalog_task: str) -> str:
    """The task ``estimator`` gets on a set of the catalog's task ``catalog_task`` ("binary" or "multiclass")."""
    if catalog_task == "binary":
        return "binary"
    return "multiclass" if estimator in MULTICLASS else "first_vs_rest"


def is_paper_set(estimator: str, dataset: str) -> bool:
    """Whether ``dataset`` is one of the sets of ``estimator``'s paper's tables."""
    return dataset in PAPER_DATASETS[estimator]


def make_ours(name: str, split: int) -> Any:
    """Our estimator at its defaults, ``random_state=split`` where it has one, after a StandardScaler."""
    est = ESTIMATORS[name][0]()
    if "random_state" in est.get_params():
        est.set_params(random_state=split)
    return make_pipeline(StandardScaler(), est)


# -------------------------------------------------------------------------------------------------------- data
def load_task(name: str, task: str) -> tuple[np.ndarray, np.ndarray, dict[str, Any]] | str:
    """``(X, y, info)`` of one task of data set ``name`` (y in {-1, +1} but for "multiclass": the original labels),
    or the reason it cannot be read (files missing)."""
    kwargs = {"binary": None if task == "multiclass" else "first_vs_rest", **LOAD_KWARGS.get(name, {})}
    try:
        ds = load_dataset(name, return_X_y=False, **kwargs)
    except FileNotFoundError as exc:
        return str(exc)
    X = np.ascontiguousarray(ds.X, dtype=np.float64)
    y = np.asarray(ds.y) if task == "multiclass" else np.where(np.asarray(ds.y) == 1, 1, -1)
    info = {"positive": None if task == "multiclass" else _jsonable(ds.positive), "n_original": int(X.shape[0]),
            "d": int(X.shape[1]), "load_kwargs": dict(kwargs)}
    return X, y, info


def _counts(y: np.ndarray) -> dict[Any, int]:
    labels, counts = np.unique(y, return_counts=True)
    return {_jsonable(k): int(c) for k, c in zip(labels, counts, strict=True)}


def prepare(y: np.ndarray, max_rows: int) -> tuple[np.ndarray, dict[str, Any]] | str:
    """The rows of a task that the study uses (sorted indices) and what was dropped, or why no task is left.

    The classes with one row are dropped, then a stratified subsample of at most ``max_rows`` rows is drawn (seed 0),
    then the classes with fewer than ``MIN_CLASS_ROWS`` rows in it are dropped."""
    labels, counts = np.unique(y, return_counts=True)
    dropped = {_jsonable(k): int(c) for k, c in zip(labels, counts, strict=True) if c < 2}
    idx = np.flatnonzero(np.isin(y, labels[counts >= 2]))
    if idx.size > max_rows and np.unique(y[idx]).size > 1:
        idx, _ = train_test_split(idx, train_size=max_rows, stratify=y[idx], random_state=SUBSAMPLE_SEED)
        idx = np.sort(idx)
    sub_labels, sub_counts = np.unique(y[idx], return_counts=True)
    small = sub_labels[sub_counts < MIN_CLASS_ROWS]
    for k, c in zip(sub_labels, sub_counts, strict=True):
        if c < MIN_CLASS_ROWS:
            dropped[_jsonable(k)] = int(c)
    idx = idx[~np.isin(y[idx], small)]
    kept = _counts(y[idx])
    if len(kept) < 2:
        return (f"fewer than two classes with at least {MIN_CLASS_ROWS} rows in the subsample of {max_rows} "
                f"(class counts {_counts(y)})")
    return idx, {"n_used": int(idx.size), "n_classes": len(kept), "class_counts": kept,
                 "dropped_classes": dropped}


def splits(y: np.ndarray, n_splits: int) -> list[tuple[np.ndarray, np.ndarray]]:
    sss = StratifiedShuffleSplit(n_splits=n_splits, test_size=TEST_SIZE, random_state=SPLIT_SEED)
    return list(sss.split(np.zeros((y.shape[0], 1)), y))


def majority_rate(y: np.ndarray) -> float:
    """The share of the largest class of ``y``."""
    return float(np.unique(y, return_counts=True)[1].max() / y.shape[0])


# ------------------------------------------------------------------------------------------------- recording
def _jsonable(v: Any) -> Any:
    """``v`` as plain JSON values; raises TypeError / ValueError where it has none (or is too long)."""
    if v is None or isinstance(v, bool):
        return v
    if isinstance(v, str):  # np.str_ too
        return str(v)
    if isinstance(v, (int, np.integer)) and not isinstance(v, bool):
        return int(v)
    if isinstance(v, (float, np.floating)):
        return float(v) if math.isfinite(float(v)) else None
    if isinstance(v, np.bool_):
        return bool(v)
    if isinstance(v, np.ndarray):
        if v.size > _MAX_LIST or (v.dtype == object and v.size):
            raise ValueError("array too long")
        return _jsonable(v.reshape(-1)[0]) if v.size == 1 else [_jsonable(x) for x in v.reshape(-1)]
    if isinstance(v, (list, tuple)):
        if len(v) > _MAX_LIST:
            raise ValueError("list too long")
        return [_jsonable(x) for x in v]
    if isinstance(v, Mapping):
        return {str(k): _jsonable(x) for k, x in v.items()}
    raise TypeError(type(v).__name__)


def _cv_results_summary(cv: Any) -> dict[str, Any]:
    scores = np.asarray(cv["mean_test_score"], dtype=float)
    best = int(np.nanargmax(scores)) if np.isfinite(scores).any() else 0
    out = {"n_candidates": int(scores.size), "best_mean_test_score": _jsonable(scores[best])}
    if "params" in cv:
        try:
            out["best_params"] = _jsonable(cv["params"][best])
        except (TypeError, ValueError):
            pass
    return out


def selected_values(est: Any, attrs: Sequence[str] = SELECTED_ATTRS) -> dict[str, Any]:
    """Those of ``attrs`` that the fitted ``est`` has, as JSON values (None and unrepresentable ones left out).

    ``cv_results_`` is summarized (candidates, best mean test score, best parameters); ``kernel_`` and the other
    ``_AS_TEXT`` attributes fall back to their text. A name without the trailing underscore that is a constructor
    parameter still holding the value it was given (``EllipsoidPSOClassifier.gamma``, PSO's inertia, say) is not a
    selected value and is left out."""
    try:
        params = est.get_params(deep=False)
    except Exception:
        params = {}
    out: dict[str, Any] = {}
    for name in attrs:
        try:
            v = getattr(est, name)
        except Exception:  # absent, or a property that cannot be computed
            continue
        if v is None or (not name.endswith("_") and name in params and params[name] is v):
            continue
        try:
            if name == "cv_results_":
                out[name] = _cv_results_summary(v)
                continue
            if name == "kernel_" and not isinstance(v, str):
                raise TypeError
            out[name] = _jsonable(v)
        except Exception:
            if name in _AS_TEXT:
                out[name] = str(v)[:200]
    return out


def timed_fit(model: Any, X_train: np.ndarray, y_train: np.ndarray, X_test: np.ndarray,
              y_test: np.ndarray) -> dict[str, Any]:
    """Fit ``model`` and score it on the test rows: accuracy, wall and CPU seconds of the fit, the warnings raised
    (fit and prediction), the error if it raised (accuracy None then)."""
    rec: dict[str, Any] = {"accuracy": None, "error": None}
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        wall0, cpu0 = time.perf_counter(), time.process_time()
        try:
            model.fit(X_train, y_train)
        except Exception as exc:
            rec["error"] = f"{type(exc).__name__}: {exc}"[:2000]
        rec["wall_s"], rec["cpu_s"] = time.perf_counter() - wall0, time.process_time() - cpu0
        if rec["error"] is None:
            try:
                rec["accuracy"] = float(np.mean(model.predict(X_test) == y_test))
            except Exception as exc:
                rec["error"] = f"predict: {type(exc).__name__}: {exc}"[:2000]
    rec["n_warnings"] = len(caught)
    rec["warning_categories"] = dict(Counter(w.category.__name__ for w in caught))
    rec["first_warning"] = f"{caught[0].category.__name__}: {caught[0].message}"[:500] if caught else None
    return rec


# --------------------------------------------------------------------------------------------------------- run
Key = tuple[str, str, int, str]


def record_key(r: Mapping[str, Any]) -> Key:
    """(data set, task, split, model): what a record is of; a merge replaces, and a peer is reused, by it."""
    return r["dataset"], r["task"], int(r["split"]), r["model"]


def tasks_of(dataset: str, estimators: Sequence[str]) -> dict[str, list[str]]:
    """task -> the estimators of ``estimators`` that get it on ``dataset`` (in their order)."""
    out: dict[str, list[str]] = {}
    for est in estimators:
        out.setdefault(task_of(est, DATASETS[dataset].task), []).append(est)
    return out


def run(datasets: Sequence[str], estimators: Sequence[str], n_splits: int, max_rows: int,
        reuse: Mapping[Key, dict[str, Any]] | None = None,
        log: Callable[[str], None] = print) -> tuple[list[dict[str, Any]], dict[str, Any], dict[str, str]]:
    """The records of every fit, the data sets' descriptions (per task under ``"tasks"``) and the skipped data sets
    (name, or "name/task", -> reason).

    ``reuse``: peer records of an earlier run of the same protocol, by (data set, task, split, peer): not refit."""
    reuse = reuse or {}
    records: list[dict[str, Any]] = []
    infos: dict[str, Any] = {}
    skipped: dict[str, str] = {}
    for name in datasets:
        catalog = DATASETS[name]
        for task, ours in tasks_of(name, estimators).items():
            loaded = load_task(name, task)
            if isinstance(loaded, str):
                skipped[name] = loaded
                log(f"{name}: skipped, files missing: {loaded}")
                break
            X, y, info = loaded
            prepared = prepare(y, max_rows)
            if isinstance(prepared, str):
                skipped[f"{name}/{task}"] = prepared
                log(f"{name} ({task}): skipped, {prepared}")
                continue
            keep, task_info = prepared
            X, y = X[keep], y[keep]
            entry = infos.setdefault(name, {"catalog_task": catalog.task, "papers": list(catalog.papers),
                                            "n_original": info["n_original"], "d": info["d"], "tasks": {}})
            entry["tasks"][task] = {"positive": info["positive"], "load_kwargs": info["load_kwargs"], **task_info}
            peers = [p for p in PEERS if any(ESTIMATORS[e][1] == p for e in ours)]
            base = {"dataset": name, "task": task, "n_original": info["n_original"], "n_used": task_info["n_used"],
                    "d": info["d"], "n_classes": task_info["n_classes"], "positive": info["positive"]}
            for s, (tr, te) in enumerate(splits(y, n_splits)):
                split_info = {"split": s, "n_train": int(tr.size), "n_test": int(te.size),
                              "majority_rate": majority_rate(y[te])}
                for model in (*peers, *ours):
                    is_peer = model in PEERS
                    old = reuse.get((name, task, s, model)) if is_peer else None
                    if old is not None:
                        log(f"{name:<24} {task:<13} split {s} {model:<22} reused from the existing JSON")
                        records.append(old)
                        continue
                    pipe = (make_pipeline(StandardScaler(), PEERS[model].make(X[tr])) if is_peer
                            else make_ours(model, s))
                    # a peer's set is a paper set when it is one for any estimator it is fit for here
                    users = [e for e in ours if ESTIMATORS[e][1] == model] if is_peer else [model]
                    paper = any(is_paper_set(e, name) for e in users)
                    rec = {**base, **split_info, "model": model, "role": "peer" if is_peer else "ours",
                           "peer": None if is_peer else ESTIMATORS[model][1], "paper_set": paper,
                           **timed_fit(pipe, X[tr], y[tr], X[te], y[te])}
                    final = pipe[-1]
                    if rec["error"] is None:
                        if is_peer:
                            rec["best_params"] = _jsonable(final.best_params_)
                            rec["best_cv_score"] = _jsonable(final.best_score_)
                        else:
                            rec["selected"] = selected_values(final, SELECTED_BY_ESTIMATOR.get(model, SELECTED_ATTRS))
                    records.append(rec)
                    acc = ("FAILED " + rec["error"].splitlines()[0][:120] if rec["error"]
                           else f"acc {rec['accuracy']:.4f}")
                    log(f"{name:<24} {task:<13} split {s} {model:<22} {acc} (majority {rec['majority_rate']:.3f}) "
                        f"wall {rec['wall_s']:.2f} s cpu {rec['cpu_s']:.2f} s warnings {rec['n_warnings']}")
    return records, infos, skipped


def protocol(n_splits: int, max_rows: int) -> dict[str, Any]:
    """The settings two runs must share to be merged."""
    return {"protocol_version": PROTOCOL_VERSION, "max_rows": max_rows, "splits": n_splits, "test_size": TEST_SIZE,
            "subsample_seed": SUBSAMPLE_SEED, "split_seed": SPLIT_SEED, "min_class_rows": MIN_CLASS_ROWS,
            "scaler": "StandardScaler (first step of every pipeline)",
            "pool": f"the sets of svmopt.datasets.DATASETS whose task is {' or '.join(CLASSIFICATION)}",
            "tasks": {"binary": "a binary set: binary='first_vs_rest' (+1: the catalog's positive class)",
                      "multiclass": "a multi-class set, all its classes (original labels), for the estimators of "
                                    "multiclass_estimators and their peers",
                      "first_vs_rest": "a multi-class set, binary='first_vs_rest', for the other estimators and "
                                       "their peers"},
            "multiclass_estimators": sorted(MULTICLASS),
            "load_kwargs": LOAD_KWARGS,
            "peers": {k: p.description for k, p in PEERS.items()},
            "linear_svc_extra": _linear_svc_dual(),
            "estimator_peer": {k: v[1] for k, v in ESTIMATORS.items()},
            "estimator_paper": dict(PAPER),
            "paper_datasets": {k: list(v) for k, v in PAPER_DATASETS.items()}}


def machine() -> dict[str, Any]:
    return {"platform": platform.platform(), "machine": platform.machine(), "processor": platform.processor(),
            "cpus": os.cpu_count(), "python": platform.python_version(), "numpy": np.__version__,
            "scikit-learn": sklearn.__version__,
            "OMP_NUM_THREADS": os.environ.get("OMP_NUM_THREADS", "unset")}


def estimator_defaults(names: Sequence[str]) -> dict[str, Any]:
    out = {}
    for n in names:
        params = ESTIMATORS[n][0]().get_params()
        out[n] = {k: _try_jsonable(v) for k, v in sorted(params.items())}
    return out


def _try_jsonable(v: Any) -> Any:
    try:
        return _jsonable(v)
    except (TypeError, ValueError):
        return repr(v)[:200]


def merge(old: Mapping[str, Any], records: list[dict[str, Any]], meta: dict[str, Any]) -> list[dict[str, Any]]:
    """The records of ``old`` not redone here followed by ``records``; ``meta`` updated with ``old``'s in place."""
    new_keys = {record_key(r) for r in records}
    merged = [r for r in old["records"] if record_key(r) not in new_keys] + records
    om = old["meta"]
    meta["runs"] = [*om.get("runs", []), *meta["runs"]]
    datasets = {k: {**v, "tasks": dict(v.get("tasks", {}))} for k, v in om.get("datasets", {}).items()}
    for name, info in meta["datasets"].items():
        tasks = {**datasets.get(name, {}).get("tasks", {}), **info["tasks"]}
        datasets[name] = {**info, "tasks": tasks}
    meta["datasets"] = datasets
    done = {f"{n}/{t}" for n, v in datasets.items() for t in v["tasks"]}
    meta["skipped_datasets"] = {k: v for k, v in {**om.get("skipped_datasets", {}), **meta["skipped_datasets"]}.items()
                                if k not in datasets and k not in done}
    meta["estimator_defaults"] = {**om.get("estimator_defaults", {}), **meta["estimator_defaults"]}
    return merged


def main(argv: Sequence[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0],
                                 formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--datasets", nargs="+", default=list(POOL), choices=POOL, metavar="NAME",
                    help="a subset of the pool (default: all of it, the catalog's classification sets)")
    ap.add_argument("--estimators", nargs="+", default=list(ESTIMATORS), choices=list(ESTIMATORS))
    ap.add_argument("--splits", type=int, default=5)
    ap.add_argument("--max-rows", type=int, default=2000)
    ap.add_argument("--json", type=Path, default=DEFAULT_JSON)
    ap.add_argument("--append", action="store_true",
                    help="merge the records into the existing --json (same protocol); its peer fits are reused")
    ap.add_argument("--quiet", action="store_true")
    args = ap.parse_args(argv)
    if args.splits < 1 or args.max_rows < 10:
        ap.error("--splits must be >= 1 and --max-rows >= 10")

    proto = protocol(args.splits, args.max_rows)
    old: dict[str, Any] | None = None
    if args.append and args.json.is_file():
        old = json.loads(args.json.read_text())
        if old["meta"]["protocol"] != json.loads(json.dumps(proto)):
            version = old["meta"]["protocol"].get("protocol_version", 1)
            print(f"{args.json} was written under another protocol (version {version}; this one: "
                  f"{PROTOCOL_VERSION}); not merged (run without --append or with another --json)", file=sys.stderr)
            return 2
    reuse = {record_key(r): r for r in (old or {}).get("records", []) if r["role"] == "peer" and r["error"] is None}

    t0 = time.perf_counter()

    def log(msg: str) -> None:
        if not args.quiet:
            print(f"[{time.perf_counter() - t0:8.1f} s] {msg}", flush=True)

    started = time.strftime("%Y-%m-%d %H:%M:%S")
    records, infos, skipped = run(args.datasets, args.estimators, args.splits, args.max_rows, reuse, log)
    total = time.perf_counter() - t0
    command = command_line(__spec__.name if __spec__ else "benchmarks.studies.defaults", argv)
    this_run = {"command": command, "git_commit": git_head(), "uncommitted": uncommitted(), "started": started,
                "total_s": total, "datasets": list(args.datasets), "estimators": list(args.estimators)}
    meta: dict[str, Any] = {
        "protocol": proto, "machine": machine(), "svmopt_version": svmopt.__version__, "git_commit": git_head(),
        "command": command, "runs": [this_run], "datasets": infos, "skipped_datasets": skipped,
        "estimator_defaults": estimator_defaults(args.estimators),
    }
    if old is not None:
        records = merge(old, records, meta)
    args.json.parent.mkdir(parents=True, exist_ok=True)
    args.json.write_text(json.dumps({"meta": meta, "records": records}, indent=1) + "\n")
    n_fail = sum(r["error"] is not None for r in records)
    if not args.quiet:
        print(f"total {total:.1f} s; {len(records)} records ({n_fail} failed fits); wrote {args.json}", flush=True)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
