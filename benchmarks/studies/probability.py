"""``probability=True`` on every classifier against scikit-learn's calibrations, on real sets of the data store.

For each data set (a stratified subsample of at most ``--max-rows`` rows, seed 0; one stratified 70/30 split, seed
0; every model after a StandardScaler) and each svmopt classifier at its defaults (``random_state=0``):

* ``ours``: the estimator with ``probability=True`` (svmopt._shared.calibration: held-out decision values of 5
  seeded folds, a two-slope sigmoid or a softmax temperature);
* ``ccv-ours``: ``CalibratedClassifierCV(<the estimator>, method="sigmoid", cv=5)`` (Platt's sigmoid per class on
  5 folds, one-vs-rest normalized for multiclass: scikit-learn's way, without the argmax guarantee);
* the peers on the same split: ``ccv-svc`` = ``CalibratedClassifierCV(SVC(), method="sigmoid", cv=5)`` and
  ``svc-libsvm`` = ``SVC(probability=True, random_state=0)`` (LIBSVM's Platt scaling).

Recorded per fit: log-loss and Brier score of the test rows, accuracy of ``predict``, the share of test rows where
``argmax(predict_proba) != predict`` (LIBSVM's reported defect), and the fit's wall and CPU seconds beside those of
the plain estimator (``probability=False``; plain ``SVC()`` for the two peers): the extra fit time is the ratio
``fit with probabilities / plain fit``, in wall seconds (``extra_fit_wall``) and CPU seconds (``extra_fit_cpu``).
The Brier score follows ``sklearn.metrics.brier_score_loss``: two classes, the mean of ``(P(classes_[1]) - [y =
classes_[1]])^2`` (in [0, 1]); more classes, the mean squared distance of the probability vector to the one-hot label
(Brier 1950; in [0, 2]; twice the two-class figure on two classes). A fit under ~1 s is repeated (at most 3 fits,
1 s in all) and its least wall and CPU seconds kept, so that the ratios of short fits are not one sample of the
machine's load. From the repository root::

    SVMOPT_DATA=/path/to/datasets python -m benchmarks.studies.probability     # benchmarks/results/probability.json
    python -m benchmarks.studies.report_probability > benchmarks/results/probability.md
"""

from __future__ import annotations

import argparse
import json
import os
import sys
import time
import warnings
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import numpy as np
from sklearn.base import clone
from sklearn.calibration import CalibratedClassifierCV
from sklearn.metrics import log_loss
from sklearn.model_selection import train_test_split
from sklearn.pipeline import make_pipeline
from sklearn.preprocessing import StandardScaler
from sklearn.svm import SVC

import svmopt
from benchmarks.studies.util import RESULTS, run_meta, write_results

JSON = RESULTS / "probability.json"
#: data set -> load_dataset keywords (binary sets as they are; multiclass sets with all their classes)
SETS: dict[str, dict[str, Any]] = {
    "pima": {}, "ionosphere": {}, "sonar": {}, "wdbc": {}, "spambase": {}, "magic": {},
    "iris": {}, "wine": {}, "landsat": {},
}
ESTIMATORS = ("RobustSVC", "FixedSizeLSSVC", "EllipsoidPSOClassifier", "RampLossSVC", "L1SVC", "FeatureBudgetSVC")
BINARY_ONLY = frozenset({"RampLossSVC", "L1SVC", "FeatureBudgetSVC"})


#: a fit is repeated while the fits so far took less than this many wall seconds, at most ``REPEATS`` times
REPEAT_BELOW_S = 1.0
REPEATS = 3


def brier(y_true: np.ndarray, P: np.ndarray, classes: np.ndarray) -> float:
    """``sklearn.metrics.brier_score_loss``'s convention: half the summed squared error on two classes (the usual
    ``mean (P(classes_[1]) - y)^2``), the whole sum (Brier 1950) on more."""
    onehot = (y_true[:, None] == classes[None, :]).astype(float)
    total = float(np.mean(np.sum((P - onehot) ** 2, axis=1)))
    return total / 2.0 if classes.size == 2 else total


def timed(model: Any, X: np.ndarray, y: np.ndarray) -> tuple[float, float]:
    """The least wall and CPU seconds of ``model.fit(X, y)`` over 1 to ``REPEATS`` fits (repeated while the fits so
    far took under ``REPEAT_BELOW_S``); the model is left fitted (every fit is seeded, so the fits are the same)."""
    walls, cpus = [], []
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        while not walls or (len(walls) < REPEATS and sum(walls) < REPEAT_BELOW_S):
            w0, c0 = time.perf_counter(), time.process_time()
            model.fit(X, y)
            walls.append(time.perf_counter() - w0)
            cpus.append(time.process_time() - c0)
    return min(walls), min(cpus)


def plain_fit(model: Any, X_tr, y_tr, X_te, y_te) -> dict[str, Any]:
    """The reference fit without probabilities: its wall and CPU seconds and test accuracy."""
    rec: dict[str, Any] = {}
    try:
        rec["plain_wall_s"], rec["plain_cpu_s"] = timed(model, X_tr, y_tr)
        rec["plain_accuracy"] = float(np.mean(model.predict(X_te) == y_te))
    except Exception as exc:  # recorded, the run goes on
        rec["plain_error"] = f"{type(exc).__name__}: {exc}"[:500]
    return rec


def with_ratios(rec: dict[str, Any]) -> dict[str, Any]:
    """``rec`` with the extra fit time: fit with probabilities / plain fit, wall and CPU."""
    if "wall_s" in rec and "plain_wall_s" in rec:
        rec["extra_fit_wall"] = rec["wall_s"] / rec["plain_wall_s"]
        rec["extra_fit_cpu"] = rec["cpu_s"] / rec["plain_cpu_s"] if rec["plain_cpu_s"] > 0 else None
    return rec


def evaluate(name: str, model: Any, X_tr, y_tr, X_te, y_te) -> dict[str, Any]:
    rec: dict[str, Any] = {"model": name}
    try:
        rec["wall_s"], rec["cpu_s"] = timed(model, X_tr, y_tr)
        P = model.predict_proba(X_te)
        pred = model.predict(X_te)
        classes = model.classes_
    except Exception as exc:  # recorded, the run goes on
        rec["error"] = f"{type(exc).__name__}: {exc}"[:500]
        return rec
    rec["log_loss"] = float(log_loss(y_te, P, labels=classes))
    rec["brier"] = brier(y_te, P, classes)
    rec["accuracy"] = float(np.mean(pred == y_te))
    rec["argmax_disagreement"] = float(np.mean(classes[np.argmax(P, axis=1)] != pred))
    return rec


def run(sets: Sequence[str], estimators: Sequence[str], max_rows: int, log=print) -> list[dict[str, Any]]:
    from svmopt.datasets import load_dataset

    records = []
    for ds in sets:
        try:
            X, y = load_dataset(ds, **SETS.get(ds, {}))
        except FileNotFoundError as exc:
            log(f"{ds}: skipped ({exc})")
            continue
        X = np.asarray(X, dtype=np.float64)
        y = np.asarray(y)
        if y.shape[0] > max_rows:
            keep, _ = train_test_split(np.arange(y.shape[0]), train_size=max_rows, stratify=y, random_state=0)
            X, y = X[np.sort(keep)], y[np.sort(keep)]
        X_tr, X_te, y_tr, y_te = train_test_split(X, y, test_size=0.3, stratify=y, random_state=0)
        n_classes = np.unique(y).size
        base = {"dataset": ds, "n_train": int(y_tr.size), "n_test": int(y_te.size), "d": int(X.shape[1]),
                "n_classes": int(n_classes)}
        peers = {"ccv-svc": CalibratedClassifierCV(SVC(), method="sigmoid", cv=5),
                 "svc-libsvm": SVC(probability=True, random_state=0)}
        rec_svc = plain_fit(make_pipeline(StandardScaler(), SVC()), X_tr, y_tr, X_te, y_te)
        for name, peer in peers.items():
            rec = with_ratios({**base, **rec_svc, **evaluate(name, make_pipeline(StandardScaler(), peer), X_tr,
                                                             y_tr, X_te, y_te), "estimator": "SVC"})
            records.append(rec)
            log(json.dumps(rec))
        for est_name in estimators:
            if est_name in BINARY_ONLY and n_classes > 2:
                continue
            est = getattr(svmopt, est_name)()
            if "random_state" in est.get_params():
                est.set_params(random_state=0)
            rec0 = plain_fit(make_pipeline(StandardScaler(), clone(est)), X_tr, y_tr, X_te, y_te)
            for name, model in (("ours", clone(est).set_params(probability=True)),
                                ("ccv-ours", CalibratedClassifierCV(clone(est), method="sigmoid", cv=5))):
                rec = with_ratios({**base, **rec0, **evaluate(name, make_pipeline(StandardScaler(), model), X_tr,
                                                              y_tr, X_te, y_te), "estimator": est_name})
                records.append(rec)
                log(json.dumps(rec))
    return records


def main(argv: Sequence[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--sets", nargs="*", default=list(SETS))
    ap.add_argument("--estimators", nargs="*", default=list(ESTIMATORS))
    ap.add_argument("--max-rows", type=int, default=1500)
    ap.add_argument("--json", default=str(JSON))
    args = ap.parse_args(argv)
    t0, load0 = time.perf_counter(), os.getloadavg()[0]
    records = run(args.sets, args.estimators, args.max_rows)
    meta = run_meta("benchmarks.studies.probability", argv, t0, load0, max_rows=args.max_rows,
                    split="stratified 70/30, seed 0; StandardScaler; random_state=0", folds=5,
                    timing=f"least of 1-{REPEATS} fits (repeated while under {REPEAT_BELOW_S:g} s in all)")
    write_results({"meta": meta, "records": records}, Path(args.json))
    return 0


if __name__ == "__main__":
    sys.exit(main())
