"""What three options of FixedSizeLSSVC / FixedSizeLSSVR cost at fixed (gamma, sigma^2): sample weights, the
informational CV score, and ``partial_fit`` over chunks. It produces the figures of ``docs/guide/fixed_size.md``
(its "Parameters" and "Streaming chunks with partial_fit" sections)::

    python -m benchmarks.studies.fixed_size_costs            # 10^6, 2.5 * 10^5 and 2 * 10^5 rows, 3 rounds

The data are those of ``peers_fixed_size.py`` (``scale_fixed_size.make_data``: ``--d`` standard normal features,
labels ``sign(sin(2 x0) + x1 x2 + 0.3 noise)``; regression targets the latent ``sin(2 x0) + x1 x2`` with fresh noise),
held in memory. All fits run in this process, with ``gamma=--gamma``, ``sigma2=--sigma2``, ``random_state=0`` and
the other parameters at their defaults; rounds interleave the variants compared, so that a change of the machine's
load between rounds touches both.

* ``weights`` (``--weight-rows`` rows, m = ``--weight-m``): the classifier and the regressor, each fitted without
  and with ``sample_weight`` (uniform on [0.5, 1.5], seed 3) in every round; the whole ``fit`` is timed.
* ``cv_score`` (``--cv-rows`` rows, m = ``--cv-m``, the regressor): with the prototypes of a first fit given
  (``prototypes=``, so no prototype search), ``cv=None`` (the informational CV score skipped above
  ``FIXED_CV_FLOPS``) against ``cv=10`` (the score always computed).
* ``partial_fit`` (``--partial-rows`` rows, m = ``--partial-m``, the classifier): ``partial_fit`` over
  ``--chunks`` equal chunks, every call timed, and one ``fit`` of the same rows.

Results: ``--out`` (``fixed_size_costs.json`` in ``benchmarks/results``): every fit's wall and CPU seconds, its
``timings_`` and the medians and ranges over the rounds.
"""

from __future__ import annotations

import argparse
import itertools
import json
import os
import statistics
import tempfile
import time
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any

import numpy as np

from benchmarks.studies.scale_fixed_size import make_data
from benchmarks.studies.util import RESULTS, run_meta, write_results


def load(n: int, d: int, workdir: str) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """X (n x d), the ±1 labels and the regression targets of ``make_data``'s rows."""
    path = os.path.join(workdir, f"fixed_size_costs_{n}x{d}.f64")
    make_data(path, n, d)
    X = np.array(np.memmap(path, dtype=np.float64, mode="r", shape=(n, d)))
    y = np.array(np.memmap(path + ".y", dtype=np.int8, mode="r", shape=(n,)), dtype=np.float64)
    t = np.sin(2 * X[:, 0]) + X[:, 1] * X[:, 2] + 0.3 * np.random.default_rng(7).standard_normal(n)
    for f in (path, path + ".y"):
        os.remove(f)
    return X, y, t


def timed(f: Callable[[], Any]) -> dict[str, Any]:
    w0, c0 = time.perf_counter(), time.process_time()
    est = f()
    rec: dict[str, Any] = {"wall_s": time.perf_counter() - w0, "cpu_s": time.process_time() - c0}
    if hasattr(est, "timings_"):
        rec["timings"] = {k: round(v, 3) for k, v in est.timings_.items()}
    if hasattr(est, "cv_score_"):
        rec["cv_score"] = None if np.isnan(est.cv_score_) else float(est.cv_score_)
    return rec


def summary(recs: Sequence[dict[str, Any]]) -> dict[str, float]:
    walls = [r["wall_s"] for r in recs]
    return {"median_s": statistics.median(walls), "min_s": min(walls), "max_s": max(walls),
            "median_cpu_s": statistics.median(r["cpu_s"] for r in recs), "runs": len(walls)}


def weights(n: int, d: int, m: int, rounds: int, gamma: float, sigma2: float, workdir: str) -> dict[str, Any]:
    from svmopt import FixedSizeLSSVC, FixedSizeLSSVR

    X, y, t = load(n, d, workdir)
    w = np.random.default_rng(3).uniform(0.5, 1.5, n)
    runs: dict[str, list[dict[str, Any]]] = {}
    for _ in range(rounds):
        for task, Est, target in (("classifier", FixedSizeLSSVC, y), ("regressor", FixedSizeLSSVR, t)):
            for name, sw in (("unweighted", None), ("weighted", w)):
                est = Est(n_prototypes=m, gamma=gamma, sigma2=sigma2, random_state=0)
                runs.setdefault(f"{task} {name}", []).append(
                    timed(lambda est=est, target=target, sw=sw: est.fit(X, target, sample_weight=sw)))
    return {"rows": n, "d": d, "m": m, "runs": runs, "summary": {k: summary(v) for k, v in runs.items()}}


def cv_score(n: int, d: int, m: int, rounds: int, gamma: float, sigma2: float, workdir: str) -> dict[str, Any]:
    from svmopt import FixedSizeLSSVR

    X, _, t = load(n, d, workdir)
    first = FixedSizeLSSVR(n_prototypes=m, gamma=gamma, sigma2=sigma2, random_state=0).fit(X, t)
    runs: dict[str, list[dict[str, Any]]] = {}
    for _ in range(rounds):
        for name, cv in (("cv=None (score skipped)", None), ("cv=10 (score computed)", 10)):
            est = FixedSizeLSSVR(n_prototypes=m, gamma=gamma, sigma2=sigma2, prototypes=first.prototypes_, cv=cv,
                                 random_state=0)
            runs.setdefault(name, []).append(timed(lambda est=est: est.fit(X, t)))
    return {"rows": n, "d": d, "m": m, "runs": runs, "summary": {k: summary(v) for k, v in runs.items()}}


def partial(n: int, d: int, m: int, chunks: int, rounds: int, gamma: float, sigma2: float,
            workdir: str) -> dict[str, Any]:
    from svmopt import FixedSizeLSSVC

    X, y, _ = load(n, d, workdir)
    bounds = np.linspace(0, n, chunks + 1).astype(int)
    runs: dict[str, list[dict[str, Any]]] = {"partial_fit": [], "fit": []}
    for _ in range(rounds):
        est = FixedSizeLSSVC(n_prototypes=m, gamma=gamma, sigma2=sigma2, random_state=0)
        calls = [timed(lambda a=a, b=b, est=est: est.partial_fit(X[a:b], y[a:b], classes=[-1.0, 1.0]))
                 for a, b in itertools.pairwise(bounds)]
        runs["partial_fit"].append({"wall_s": sum(c["wall_s"] for c in calls),
                                    "cpu_s": sum(c["cpu_s"] for c in calls), "calls_s": [c["wall_s"] for c in calls]})
        runs["fit"].append(timed(lambda: FixedSizeLSSVC(n_prototypes=m, gamma=gamma, sigma2=sigma2,
                                                        random_state=0).fit(X, y)))
    return {"rows": n, "d": d, "m": m, "chunks": chunks, "runs": runs,
            "summary": {k: summary(v) for k, v in runs.items()}}


def main(argv: Sequence[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0],
                                 formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--parts", nargs="+", default=["weights", "cv_score", "partial_fit"],
                    choices=["weights", "cv_score", "partial_fit"])
    ap.add_argument("--d", type=int, default=20)
    ap.add_argument("--gamma", type=float, default=10.0)
    ap.add_argument("--sigma2", type=float, default=20.0)
    ap.add_argument("--rounds", type=int, default=3)
    ap.add_argument("--weight-rows", type=int, default=1_000_000)
    ap.add_argument("--weight-m", type=int, default=500)
    ap.add_argument("--cv-rows", type=int, default=250_000)
    ap.add_argument("--cv-m", type=int, default=2000)
    ap.add_argument("--partial-rows", type=int, default=200_000)
    ap.add_argument("--partial-m", type=int, default=500)
    ap.add_argument("--chunks", type=int, default=4)
    ap.add_argument("--workdir", default=tempfile.gettempdir(), help="where the data files are written (then removed)")
    ap.add_argument("--out", type=Path, default=RESULTS / "fixed_size_costs.json")
    args = ap.parse_args(argv)

    t0, load0 = time.perf_counter(), os.getloadavg()[0]
    common = {"rounds": args.rounds, "gamma": args.gamma, "sigma2": args.sigma2, "workdir": args.workdir}
    out: dict[str, Any] = {}
    if "weights" in args.parts:
        out["weights"] = weights(args.weight_rows, args.d, args.weight_m, **common)
        print("weights", json.dumps(out["weights"]["summary"]), flush=True)
    if "cv_score" in args.parts:
        out["cv_score"] = cv_score(args.cv_rows, args.d, args.cv_m, **common)
        print("cv_score", json.dumps(out["cv_score"]["summary"]), flush=True)
    if "partial_fit" in args.parts:
        out["partial_fit"] = partial(args.partial_rows, args.d, args.partial_m, args.chunks, **common)
        print("partial_fit", json.dumps(out["partial_fit"]["summary"]), flush=True)
    out["meta"] = run_meta(__spec__.name, argv, t0, load0, gamma=args.gamma, sigma2=args.sigma2)
    write_results(out, args.out)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
