"""RampLossSVC beyond the MILP: CCCP with cutting planes from 10^4 to 10^6 rows, and against DAKS where the MILP
heuristic runs. A plain script (not an asv suite); it produces the tables of ``docs/scale.md`` ("RampLossSVC on a
million rows"):

    python -m benchmarks.studies.scale_ramp scale --rows 10000 100000 1000000
    python -m benchmarks.studies.scale_ramp daks --rows 250 500 1000 2000 --daks-time 60

Data (deterministic, written block by block to a float64 ``np.memmap``): ``--d`` standard normal features, labels
``sign(x w* + 0.1)`` of a rule ``w*`` on the first 5 features, then 15% of the labels flipped, drawn among the half
of the points farthest from the boundary (the outliers the ramp loss is for).

``scale``: ``RampLossSVC(method="cccp", budget=--budget, C=--C, n_init=3, random_state=0)`` on the memmap, each fit in
its own child process so that its peak resident set size (``ru_maxrss``) is its own: wall and CPU seconds, peak
memory, passes over the data, CCCP steps, the objective, the selected features.

``daks``: at each row count, DAKS (``method="heuristic"``, limit ``--daks-time`` s) and CCCP on the same data: time
and objective of each, and the time DAKS took to first reach an objective no worse than CCCP's (from its
improvement history), when it did.
"""

from __future__ import annotations

import argparse
import json
import os
import tempfile
import time

import numpy as np

from benchmarks.studies.util import peak_rss_mib, rss_mib, run_child

TRUE_FEATURES = 5


def make_data(path: str, n: int, d: int, seed: int = 0, flip: float = 0.15, block: int = 250_000) -> None:
    """Write X (n x d float64) to ``path`` and y (int8, +-1) to ``path + '.y'`` (module docstring)."""
    if os.path.exists(path) and os.path.getsize(path) == n * d * 8 and os.path.exists(path + ".y"):
        return
    rng = np.random.default_rng(seed)
    w = np.zeros(d)
    w[:TRUE_FEATURES] = rng.choice([-1.0, 1.0], TRUE_FEATURES) * rng.uniform(0.5, 1.5, TRUE_FEATURES)
    X = np.memmap(path, dtype=np.float64, mode="w+", shape=(n, d))
    y = np.memmap(path + ".y", dtype=np.int8, mode="w+", shape=(n,))
    margin = np.empty(n)
    for s in range(0, n, block):
        xb = rng.standard_normal((min(block, n - s), d))
        X[s:s + xb.shape[0]] = xb
        margin[s:s + xb.shape[0]] = xb @ w + 0.1
    y[:] = np.where(margin >= 0, 1, -1)
    far = np.flatnonzero(np.abs(margin) >= np.median(np.abs(margin)))
    flipped = rng.choice(far, round(flip * n), replace=False)
    y[flipped] = -y[flipped]
    X.flush()
    y.flush()


def _load(path: str, n: int, d: int) -> tuple[np.memmap, np.ndarray]:
    return (np.memmap(path, dtype=np.float64, mode="r", shape=(n, d)),
            np.asarray(np.memmap(path + ".y", dtype=np.int8, mode="r", shape=(n,))))


def _child(path: str, n: int, d: int, budget: int, C: float) -> dict:
    from svmopt import RampLossSVC

    X, y = _load(path, n, d)
    rss0 = rss_mib()
    clf = RampLossSVC(method="cccp", budget=budget, C=C, n_init=3, random_state=0)
    t0, c0 = time.perf_counter(), time.process_time()
    clf.fit(X, y)
    wall, cpu = time.perf_counter() - t0, time.process_time() - c0
    m = min(n, 20_000)
    return {"rows": n, "d": d, "budget": budget, "C": C, "wall_s": wall, "cpu_s": cpu, "peak_rss_mib": peak_rss_mib(),
            "rss_before_fit_mib": rss0, "data_mib": n * d * 8 / 2**20, "passes": int(clf.cccp_["n_passes"]),
            "steps": [int(s) for s in clf.cccp_["steps"]], "objective": float(clf.objective_),
            "start_objectives": [float(o[-1]) for o in clf.cccp_["objectives"]],
            "selected": clf.selected_features_.tolist(), "outliers": int(clf.outliers_.size),
            "training_accuracy_first_20000": float(np.mean(clf.predict(X[:m]) == y[:m]))}


def _scale(args) -> None:
    results = []
    for n in args.rows:
        path = os.path.join(args.workdir, f"svmopt_ramp_{n}x{args.d}.f64")
        make_data(path, n, args.d)
        out = run_child(__spec__.name, ["--child", path, str(n), str(args.d), str(args.budget), str(args.C)],
                        capture_output=True, text=True)
        if out.returncode:
            raise RuntimeError(f"the fit at {n} rows failed:\n{out.stderr[-3000:]}")
        res = json.loads(out.stdout.strip().splitlines()[-1])
        results.append(res)
        print(f"{n:>9} rows: {res['wall_s']:7.1f} s wall, {res['cpu_s']:7.1f} s CPU, {res['peak_rss_mib']:6.0f} MiB "
              f"peak ({res['data_mib']:.0f} MiB data), {res['passes']} passes, objective {res['objective']:.6g}",
              flush=True)
        with open(args.out, "w") as f:
            json.dump(results, f, indent=1)


def _daks(args) -> None:
    import warnings

    from sklearn.exceptions import ConvergenceWarning

    from svmopt import RampLossSVC

    results = []
    for n in args.rows:
        path = os.path.join(args.workdir, f"svmopt_ramp_{n}x{args.d}.f64")
        make_data(path, n, args.d)
        X, y = _load(path, n, args.d)
        X = np.array(X)
        row: dict = {"rows": n, "d": args.d, "budget": args.budget, "C": args.C, "daks_time_limit": args.daks_time}
        for method in ("cccp", "heuristic"):
            clf = RampLossSVC(method=method, budget=args.budget, C=args.C, random_state=0,
                              max_time=args.daks_time if method == "heuristic" else None)
            t0, c0 = time.perf_counter(), time.process_time()
            with warnings.catch_warnings():
                warnings.simplefilter("ignore", ConvergenceWarning)
                clf.fit(X, y)
            row[method] = {"wall_s": time.perf_counter() - t0, "cpu_s": time.process_time() - c0,
                           "objective": float(clf.objective_), "status": clf.status_}
            if method == "heuristic":
                row[method]["ub_history"] = [float(u) for u in clf.daks_["ub_history"]]
        cc, dk = row["cccp"], row["heuristic"]
        row["daks_reached_cccp"] = bool(dk["objective"] <= cc["objective"] * (1 + 1e-9))
        row["objective_ratio_daks_over_cccp"] = dk["objective"] / cc["objective"]
        row["time_ratio_daks_over_cccp"] = dk["wall_s"] / cc["wall_s"]
        results.append(row)
        print(f"{n:>6} rows: CCCP {cc['objective']:.6g} in {cc['wall_s']:.2f} s; DAKS {dk['objective']:.6g} in "
              f"{dk['wall_s']:.1f} s ({dk['status']})", flush=True)
        with open(args.out, "w") as f:
            json.dump(results, f, indent=1)


def main(argv: list[str] | None = None) -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("mode", nargs="?", choices=["scale", "daks"], default="scale")
    ap.add_argument("--rows", type=int, nargs="+", default=[10_000, 100_000])
    ap.add_argument("--d", type=int, default=50)
    ap.add_argument("--budget", type=int, default=10)
    ap.add_argument("--C", type=float, default=1.0)
    ap.add_argument("--daks-time", type=float, default=60.0)
    ap.add_argument("--workdir", default=tempfile.gettempdir())
    ap.add_argument("--out", default=None)
    ap.add_argument("--child", nargs=5, help=argparse.SUPPRESS)
    args = ap.parse_args(argv)
    if args.child:
        path, n, d, budget, C = args.child
        print(json.dumps(_child(path, int(n), int(d), int(budget), float(C))))
        return
    args.out = args.out or f"scale_ramp_{args.mode}.json"
    (_scale if args.mode == "scale" else _daks)(args)


if __name__ == "__main__":
    main()
