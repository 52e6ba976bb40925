"""RobustSVC's reduced model (paper 000's LP over L landmarks, by the interior-point method or the cutting planes)
from 10^3 to 10^6 rows:
wall and CPU time, peak memory, passes over the data and the certified gap reached. A plain script (not an asv
suite); it produces the table and the figure of ``docs/scale.md`` ("RobustSVC beyond a few thousand rows"):

    python -m benchmarks.studies.scale_robust --rows 1000 10000 100000 1000000 --solver ipm \
        --out scale_robust_ipm.json
    python -m benchmarks.studies.scale_robust --rows 1000 10000 100000 1000000 --max-iter 1000 1000 400 150 \
        --solver cutting_plane

Each fit runs in its own child process, so that its peak resident set size (``ru_maxrss``) is its own. The data are
those of ``scale_fixed_size.py`` (standard normal features, ``--d`` columns, labels ``sign(sin(2 x0) + x1 x2 + 0.3
noise)``), read from a float64 ``np.memmap``. The model: ``RobustSVC(kernel="rbf", n_landmarks=L, nu=--nu)``
(entropy landmarks, RBF width ``--alpha``, deterministic, or ``--p 2 --rho ...`` for the robust counterpart),
``tol=1e-6`` and a limit of ``--max-iter`` iterations (one value per row count, or one for all; an iteration is
one pass of the cutting planes, three of the interior-point method): a fit stopped there reports the gap it
certified. The kernel rows n x L are cached while they fit half the memory budget and recomputed at every pass
above. Each iteration's certified bounds are recorded for the gap-vs-iterations figure.
"""

from __future__ import annotations

import argparse
import json
import os
import tempfile
import time

import numpy as np

from benchmarks.studies.scale_fixed_size import make_data
from benchmarks.studies.util import command_line, git_head, peak_rss_mib, rss_mib, run_child


def _child(path: str, n: int, d: int, L: int, nu: float, p: float | None, rho: float | None, max_iter: int,
           alpha: float, solver: str = "cutting_plane", grid: bool = False, selection: str = "training_error") -> dict:
    import warnings

    from sklearn.exceptions import ConvergenceWarning

    import svmopt.robust.ipm as ri
    import svmopt.robust.reduced as rr
    from svmopt import RobustSVC

    histories: list[list[tuple[float, float]]] = []
    times: list[float] = []
    engine = ri.ReducedIPM if solver == "ipm" else rr.ReducedLP
    solve = engine.solve

    def recording(self, *args, **kwargs):
        t = time.perf_counter()
        sol = solve(self, *args, **kwargs)
        times.append(time.perf_counter() - t)
        histories.append([tuple(h) for h in sol.history])
        return sol

    engine.solve = recording  # type: ignore[method-assign]
    X = np.memmap(path, dtype=np.float64, mode="r", shape=(n, d))
    y = np.asarray(np.memmap(path + ".y", dtype=np.int8, mode="r", shape=(n,)))
    rss0 = rss_mib()
    nus = [0.01, 0.1, 1.0, 10.0, 100.0] if grid else nu
    clf = RobustSVC(kernel="rbf", alpha=alpha, n_landmarks=L, nu=nus, p=p, rho=rho, max_iter=max_iter,
                    random_state=0, solver=solver, selection=selection)
    t0, c0 = time.perf_counter(), time.process_time()
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always", ConvergenceWarning)
        clf.fit(X, y)
    wall, cpu = time.perf_counter() - t0, time.process_time() - c0
    m = min(n, 20_000)
    return {"rows": n, "d": d, "landmarks": L, "alpha": alpha, "nu": nus, "p": p, "rho": rho, "max_iter": max_iter,
            "solver": solver, "selection": selection, "nu_chosen": float(np.ravel(clf.nu_)[0]), "solve_s": times,
            "wall_s": wall, "cpu_s": cpu, "peak_rss_mib": peak_rss_mib(), "rss_before_fit_mib": rss0,
            "passes": int(clf.n_iter_[0]), "objective": float(clf.objective_[0]),
            "lower_bound": float(clf.lower_bound_[0]),
            "gap": float((clf.objective_[0] - clf.lower_bound_[0]) / max(1.0, abs(clf.objective_[0]))),
            "convergence_warnings": sum(issubclass(w.category, ConvergenceWarning) for w in caught),
            "training_accuracy_first_20000": float(np.mean(clf.predict(X[:m]) == y[:m])),
            "history": histories[-1] if histories else []}


def main(argv: list[str] | None = None) -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--rows", type=int, nargs="+", default=[1000, 10_000, 100_000])
    ap.add_argument("--max-iter", type=int, nargs="+", default=[1000])
    ap.add_argument("--d", type=int, default=20)
    ap.add_argument("--landmarks", type=int, default=500)
    ap.add_argument("--nu", type=float, default=1.0)
    ap.add_argument("--alpha", type=float, default=4.0, help="RBF width (the 'auto' width, the largest feature "
                    "std = 1 here, leaves exp(-||x - z||^2 / 2) ~ e^-20 between points in 20 dimensions)")
    ap.add_argument("--p", type=float, default=None)
    ap.add_argument("--rho", type=float, default=None)
    ap.add_argument("--workdir", default=tempfile.gettempdir())
    ap.add_argument("--out", default="scale_robust.json")
    ap.add_argument("--plot", default=None, help="write the figure (PNG) here")
    ap.add_argument("--memory-budget", type=float, default=None, help="svmopt.set_memory_budget in GiB for the fits "
                    "(the kernel rows n x L are cached while they fit half of it)")
    ap.add_argument("--solver", default="ipm", choices=["ipm", "cutting_plane"])
    ap.add_argument("--grid", action="store_true", help="fit the 5-value nu grid 0.01 .. 100 (every nu on every row, "
                    "the paper's training-count selection) instead of --nu")
    ap.add_argument("--selection", default="training_error", choices=["training_error", "cv"],
                    help="how --grid compares its nu values: the paper's training count over every row, or "
                         "RobustSVC's default held-out errors on a subsample (svmopt.robust.plan.SELECT_MAX_ROWS "
                         "rows), then one fit on every row")
    ap.add_argument("--child", nargs=13, help=argparse.SUPPRESS)
    args = ap.parse_args(argv)
    if args.child:
        path, n, d, L, nu, p, rho, mi, alpha, budget, solver, grid, selection = args.child
        if budget != "None":
            import svmopt

            svmopt.set_memory_budget(int(float(budget) * 2**30))
        res = _child(path, int(n), int(d), int(L), float(nu), None if p == "None" else float(p),
                     None if rho == "None" else float(rho), int(mi), float(alpha), solver, grid == "True", selection)
        print(json.dumps(res))
        return
    limits = args.max_iter * len(args.rows) if len(args.max_iter) == 1 else args.max_iter
    if len(limits) != len(args.rows):
        ap.error("--max-iter takes one value, or one per --rows")
    results = []
    for n, mi in zip(args.rows, limits, strict=True):
        path = os.path.join(args.workdir, f"svmopt_scale_{n}x{args.d}.f64")
        make_data(path, n, args.d)
        L = min(args.landmarks, n)
        out = run_child(__spec__.name, ["--child", path, str(n), str(args.d), str(L), str(args.nu), str(args.p),
                                        str(args.rho), str(mi), str(args.alpha), str(args.memory_budget),
                                        args.solver, str(args.grid), args.selection],
                        capture_output=True, text=True)
        if out.returncode:
            raise RuntimeError(f"the fit at {n} rows failed:\n{out.stderr[-3000:]}")
        res = json.loads(out.stdout.strip().splitlines()[-1])
        res["memory_budget_gib"] = args.memory_budget
        res["git_head"] = git_head()
        res["command"] = command_line(__spec__.name, argv)
        results.append(res)
        print(f"{n:>9} rows: {res['wall_s']:8.1f} s wall, {res['cpu_s']:8.1f} s CPU, {res['peak_rss_mib']:7.0f} MiB "
              f"peak, {res['passes']:4d} passes, {len(res['history'])} iterations, gap {res['gap']:.1e}", flush=True)
        with open(args.out, "w") as f:
            json.dump(results, f, indent=1)
    if args.plot:
        plot(results, args.plot)


def plot(results: list[dict], path: str) -> None:
    """Left: wall and CPU seconds and peak memory against rows; right: the certified gap against passes."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    fig, (ax, bx) = plt.subplots(1, 2, figsize=(11, 4))
    rows = [r["rows"] for r in results]
    ax.loglog(rows, [r["wall_s"] for r in results], "o-", label="wall s")
    ax.loglog(rows, [r["cpu_s"] for r in results], "s--", label="CPU s")
    ax.loglog(rows, [r["peak_rss_mib"] / 1024 for r in results], "^:", label="peak RSS GiB")
    for r in results:
        if r["gap"] > 1e-6:
            ax.annotate(f"stopped at {r['passes']} passes,\ngap {r['gap']:.1e}", (r["rows"], r["wall_s"]),
                        fontsize=7, xytext=(6, -22), textcoords="offset points")
    ax.set_xlabel("training rows")
    ax.set_title(f"RobustSVC(n_landmarks={results[0]['landmarks']}), d = {results[0]['d']}, nu = {results[0]['nu']}",
                 fontsize=10)
    ax.legend()
    for r in results:
        h = np.array(r["history"])
        if h.size:
            gap = (h[:, 0] - h[:, 1]) / np.maximum(1.0, np.abs(h[:, 0]))
            bx.semilogy(np.arange(1, len(gap) + 1), np.maximum(gap, 1e-12), label=f"{r['rows']:,} rows")
    bx.axhline(1e-6, color="grey", lw=0.8, ls="--")
    bx.set_xlabel("iteration (cutting planes: one pass over the data; interior point: three)")
    bx.set_ylabel("certified relative gap")
    bx.legend()
    fig.tight_layout()
    fig.savefig(path, dpi=110)


if __name__ == "__main__":
    main()
