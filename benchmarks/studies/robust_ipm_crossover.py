"""Where RobustSVC's ``solver="auto"`` switches from HiGHS on the reduced LP as it is to the interior-point method.

For rows n and landmarks L of a real data set (standardized, a random subsample of n rows, L random landmarks among
them, RBF at the data-scaled width sqrt(d / 2), deterministic): one solve of the reduced LP (paper 000's (23) over L
landmarks) at nu = 1 and nu = 100 by ``ReducedIPM`` (to a certified relative gap of 1e-6) and by ``solve_direct``
(HiGHS on the LP as it is), each the best of ``--repeat`` runs in one process, kernel rows given to both. Recorded:
both times, their ratio, and the relative difference of the objectives.

    OMP_NUM_THREADS=1 SVMOPT_DATA=/path/to/datasets python -m benchmarks.studies.robust_ipm_crossover

Results: ``--out-name`` (``robust_ipm_crossover.json``) in ``--out-dir`` and a Markdown table on stdout.
"""

from __future__ import annotations

import argparse
import json
import os
import platform
import time
from collections.abc import Callable, Mapping, Sequence
from functools import partial
from pathlib import Path
from typing import Any

import numpy as np
from sklearn.preprocessing import StandardScaler

from benchmarks.studies.robust_accuracy import TASKS, load_task
from benchmarks.studies.util import RESULTS, command_line, git_head


def _best(f: Callable[[], Any], repeat: int) -> tuple[float, Any]:
    best, out = np.inf, None
    for _ in range(repeat):
        t = time.perf_counter()
        out = f()
        best = min(best, time.perf_counter() - t)
    return best, out


def _ipm(engine: Any, y: np.ndarray, r: np.ndarray, Phi: np.ndarray, nu: float) -> Any:
    return engine(y, r, Phi=Phi).solve(nu)


def crossover(X: np.ndarray, y: np.ndarray, rows: Sequence[int], landmarks: Sequence[int],
              nus: Sequence[float] = (1.0, 100.0), repeat: int = 3, seed: int = 0) -> list[dict[str, Any]]:
    """One record per (n, L, nu) with L < n <= len(y): both solvers' best times and objectives."""
    from svmopt.kernels import Kernel
    from svmopt.robust.ipm import ReducedIPM
    from svmopt.robust.reduced import solve_direct

    rng = np.random.default_rng(seed)
    y = np.where(np.asarray(y) > 0, 1.0, -1.0)
    out = []
    for n in rows:
        idx = rng.choice(y.size, int(n), replace=False)
        Xs = StandardScaler().fit_transform(X[idx])
        ys = y[idx]
        kern = Kernel("rbf", alpha=float(np.sqrt(Xs.shape[1] / 2))).fit(Xs)
        for L in landmarks:
            if L >= n:
                continue
            Z = Xs[rng.choice(int(n), int(L), replace=False)]
            Phi = kern.cross(Xs, Z)
            r = np.sqrt(np.clip(kern.diag(Z), 0.0, None))
            for nu in nus:
                ti, si = _best(partial(_ipm, ReducedIPM, ys, r, Phi, float(nu)), repeat)
                tl, sl = _best(partial(solve_direct, Phi, ys, r, float(nu)), repeat)
                out.append({"n": int(n), "L": int(L), "cells": int(n) * int(L), "nu": float(nu), "ipm_s": ti,
                            "highs_s": tl, "highs_over_ipm": tl / ti, "ipm_gap": float(si.gap),
                            "objective_rel_diff": float((si.objective - sl.objective) / abs(sl.objective))})
    return out


def pass_share(n: int, L: int, repeat: int = 3) -> dict[str, Any]:
    """The second data set of docs/performance.md#the-reduced-model-interior-point (asv ``ReducedModel``: d = 8, two
    shifted Gaussian classes, the data-scaled RBF width), nu = 1: the interior point's time (best of ``repeat``), the
    share of it spent in its passes over the data (``ReducedIPM._pass``, timed inside the same runs), its passes and
    HiGHS's time on the same LP."""
    from svmopt.kernels import Kernel
    from svmopt.robust.ipm import ReducedIPM
    from svmopt.robust.reduced import solve_direct

    rng = np.random.default_rng(1)
    y = np.where(rng.random(n) < 0.4, 1.0, -1.0)
    X = rng.normal(size=(n, 8)) + 0.8 * y[:, None]
    kern = Kernel("rbf").fit(X)
    Z = X[rng.choice(n, L, replace=False)]
    Phi = kern.cross(X, Z)
    r = np.sqrt(np.clip(kern.diag(Z), 0.0, None))
    runs = []
    for _ in range(repeat):
        ipm = ReducedIPM(y, r, Phi=Phi)
        spent = [0.0]
        inner = ipm._pass

        def timed(*args: Any, _inner: Any = inner, _spent: list[float] = spent, **kwargs: Any) -> Any:
            t = time.perf_counter()
            out = _inner(*args, **kwargs)
            _spent[0] += time.perf_counter() - t
            return out

        ipm._pass = timed  # type: ignore[method-assign]
        t = time.perf_counter()
        sol = ipm.solve(1.0)
        runs.append((time.perf_counter() - t, spent[0], ipm.n_passes, len(sol.history), sol.objective))
    best = min(runs)
    th, _ = _best(partial(solve_direct, Phi, y, r, 1.0), repeat)
    return {"n": n, "L": L, "ipm_s": best[0], "passes_s": best[1], "passes": best[2], "iterations": best[3],
            "highs_s": th, "highs_over_ipm": th / best[0]}


def markdown(records: Sequence[Mapping[str, Any]]) -> str:
    lines = ["| n | L | n x L | nu | interior point | HiGHS on the LP | HiGHS / IPM | "
             "objectives, relative difference |", "|---|---|---|---|---|---|---|---|"]
    for r in records:
        lines.append(f"| {r['n']} | {r['L']} | {r['cells']} | {r['nu']:g} | {1e3 * r['ipm_s']:.1f} ms | "
                     f"{1e3 * r['highs_s']:.1f} ms | {r['highs_over_ipm']:.1f}x | {r['objective_rel_diff']:.1e} |")
    return "\n".join(lines)


def main(argv: Sequence[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0],
                                 formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--dataset", default="magic", choices=sorted(TASKS))
    ap.add_argument("--rows", type=int, nargs="*", default=[200, 500, 1000, 2000, 5000])
    ap.add_argument("--landmarks", type=int, nargs="+", default=[10, 25, 50, 100])
    ap.add_argument("--repeat", type=int, default=3)
    ap.add_argument("--out-dir", type=Path, default=RESULTS)
    ap.add_argument("--out-name", default="robust_ipm_crossover.json")
    ap.add_argument("--pass-share", type=int, nargs=2, action="append", metavar=("N", "L"), default=None,
                    help="also time the interior point's passes on the asv data at N rows x L landmarks (repeatable)")
    args = ap.parse_args(argv)
    import svmopt

    X, y = load_task(args.dataset)
    t0 = time.perf_counter()
    records = crossover(X, y, args.rows, args.landmarks, repeat=args.repeat)
    shares = [pass_share(n, L, args.repeat) for n, L in (args.pass_share or [])]
    meta = {"command": command_line(__spec__.name, argv),
            "dataset": args.dataset, "OMP_NUM_THREADS": os.environ.get("OMP_NUM_THREADS", "unset"),
            "svmopt": f"{svmopt.__version__} at {Path(svmopt.__file__).parent}", "git HEAD": git_head(),
            "python / numpy": f"{platform.python_version()} / {np.__version__}", "machine": platform.machine(),
            "total run time": f"{time.perf_counter() - t0:.1f} s"}
    args.out_dir.mkdir(parents=True, exist_ok=True)
    (args.out_dir / args.out_name).write_text(json.dumps({"meta": meta, "records": records,
                                                          "pass_share": shares}, indent=1))
    print(markdown(records))
    for sh in shares:
        print(f"asv data {sh['n']} x {sh['L']}: interior point {1e3 * sh['ipm_s']:.1f} ms, of which "
              f"{1e3 * sh['passes_s']:.1f} ms in {sh['passes']} passes ({sh['iterations']} iterations); HiGHS "
              f"{1e3 * sh['highs_s']:.1f} ms ({sh['highs_over_ipm']:.1f}x)")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
