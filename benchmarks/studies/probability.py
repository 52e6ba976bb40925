"""``probability=True`` on every classifier against scikit-learn's calibrations, on real sets of the data store.

For each data set (a stratified subsample of at most ``--max-rows`` rows, seed 0; one stratified 70/30 split, seed
0; every model after a StandardScaler) and each svmopt classifier at its defaults (``random_state=0``):

* ``ours``: the estimator with ``probability=True`` (svmopt._shared.calibration: held-out decision values of 5
  seeded folds, a two-slope sigmoid or a softmax temperature);
* ``ccv-ours``: ``CalibratedClassifierCV(<the estimator>, method="sigmoid", cv=5)`` (Platt's sigmoid per class on
  5 folds, one-vs-rest normalized for multiclass: scikit-learn's way, without the argmax guarantee);
* the peers on the same split: ``ccv-svc`` = ``CalibratedClassifierCV(SVC(), method="sigmoid", cv=5)`` and
  ``svc-libsvm`` = ``SVC(probability=True, random_state=0)`` (LIBSVM's Platt scaling).

Recorded per fit: log-loss and Brier score of the test rows (multiclass Brier: the mean squared distance of the
probability vector to the one-hot label), accuracy of ``predict``, the share of test rows where ``argmax(predict_proba)
!= predict`` (LIBSVM's reported defect), and the fit's wall and CPU seconds beside those of the plain estimator
(``probability=False``): the extra fit time is their ratio. From the repository root::

    SVMOPT_DATA=/path/to/datasets python -m benchmarks.studies.probability     # benchmarks/results/probability.json
"""

from __future__ import annotations

import argparse
import json
import sys
import time
import warnings
from collections.abc import Sequence
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
from benchmarks.studies.util import RESULTS, command_line, git_head, uncommitted

JSON = RESULTS / "probability.json"
#: data set -> load_dataset keywords (binary sets as they are; multiclass sets with all their classes)
SETS: dict[str, dict[str, Any]] = {
    "pima": {}, "ionosphere": {}, "sonar": {}, "wdbc": {}, "spambase": {}, "magic": {},
    "iris": {}, "wine": {}, "landsat": {},
}
ESTIMATORS = ("RobustSVC", "FixedSizeLSSVC", "EllipsoidPSOClassifier", "RampLossSVC", "L1SVC", "FeatureBudgetSVC")
BINARY_ONLY = frozenset({"RampLossSVC", "L1SVC", "FeatureBudgetSVC"})


def brier(y_true: np.ndarray, P: np.ndarray, classes: np.ndarray) -> float:
    onehot = (y_true[:, None] == classes[None, :]).astype(float)
    return float(np.mean(np.sum((P - onehot) ** 2, axis=1)))


def timed(model: Any, X: np.ndarray, y: np.ndarray) -> tuple[float, float]:
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        w0, c0 = time.perf_counter(), time.process_time()
        model.fit(X, y)
        return time.perf_counter() - w0, time.process_time() - c0


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
        for name, peer in peers.items():
            rec = {**base, **evaluate(name, make_pipeline(StandardScaler(), peer), X_tr, y_tr, X_te, y_te),
                   "estimator": "SVC"}
            records.append(rec)
            log(json.dumps(rec))
        for est_name in estimators:
            if est_name in BINARY_ONLY and n_classes > 2:
                continue
            est = getattr(svmopt, est_name)()
            if "random_state" in est.get_params():
                est.set_params(random_state=0)
            plain = make_pipeline(StandardScaler(), clone(est))
            rec0: dict[str, Any] = {}
            try:
                rec0["plain_wall_s"], rec0["plain_cpu_s"] = timed(plain, X_tr, y_tr)
                rec0["plain_accuracy"] = float(np.mean(plain.predict(X_te) == y_te))
            except Exception as exc:
                rec0["plain_error"] = f"{type(exc).__name__}: {exc}"[:500]
            for name, model in (("ours", clone(est).set_params(probability=True)),
                                ("ccv-ours", CalibratedClassifierCV(clone(est), method="sigmoid", cv=5))):
                rec = {**base, **rec0, **evaluate(name, make_pipeline(StandardScaler(), model), X_tr, y_tr, X_te,
                                                  y_te), "estimator": est_name}
                if "wall_s" in rec and "plain_wall_s" in rec:
                    rec["extra_fit_time"] = rec["wall_s"] / rec["plain_wall_s"]
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
    t0 = time.perf_counter()
    records = run(args.sets, args.estimators, args.max_rows)
    out = {"command": command_line("benchmarks.studies.probability", argv), "git_commit": git_head(),
           "uncommitted": uncommitted(), "svmopt_version": svmopt.__version__, "max_rows": args.max_rows,
           "total_s": time.perf_counter() - t0, "records": records}
    with open(args.json, "w", encoding="utf-8") as f:
        json.dump(out, f, indent=1)
    return 0


if __name__ == "__main__":
    sys.exit(main())
