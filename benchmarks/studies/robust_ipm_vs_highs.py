"""RobustSVC's reduced model (paper 000's LP (23) over L landmarks) by its three solvers on the same LP: the
interior-point method (``ReducedIPM``), the cutting planes (``ReducedLP``) and HiGHS on the LP as it is
(``solve_direct``), at nu = 1 and over the paper's 5-value grid ``NU_GRID`` (logspace(-3, 0, 5)). It produces the
tables of ``docs/performance.md#the-reduced-model-interior-point``::

    python -m benchmarks.studies.robust_ipm_vs_highs                        # 2,000 and 5,000 rows x 100 and 300

Two data sets, each n x L with the kernel rows Phi = K(X, Z) computed once and given to every solver (cached), all
in one process, back to back, one run each (``--repeat`` for the best of several):

* ``scale_data_d20_alpha4``: the data of ``scale_robust.py`` (``scale_fixed_size.make_data``: d = 20 standard normal
  features, labels ``sign(sin(2 x0) + x1 x2 + 0.3 noise)``), RBF of width alpha = 4, L landmarks drawn at random
  among the rows;
* ``asv_reduced_model_data_d8``: the data of ``benchmarks/asv/bench_robust.py::ReducedModel`` (d = 8, two shifted
  Gaussian classes, RBF at the data-scaled width, random landmarks).

Recorded per (n, L): each solver's wall and CPU seconds at nu = 1 with its objective (and the certified lower bound,
iterations and passes of the iterative two), and the wall and CPU seconds of the whole grid (the interior point and
the cutting planes reuse one solver object across the grid, as ``ReducedModel`` does: the cuts are kept from one nu
to the next; HiGHS solves each nu from scratch). Results: ``--out`` (``robust_ipm_vs_highs.json`` in
``benchmarks/results``).
"""

from __future__ import annotations

import argparse
import os
import tempfile
import time
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any

import numpy as np

from benchmarks.studies.scale_fixed_size import make_data
from benchmarks.studies.util import RESULTS, run_meta, write_results

#: the two data sets, by their key in the JSON
DATASETS = ("scale_data_d20_alpha4", "asv_reduced_model_data_d8")


def scale_data(n: int, L: int, workdir: str) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """(y, r, Phi) on the data of ``scale_robust.py``: RBF alpha = 4, L random landmarks."""
    from svmopt import Kernel

    path = os.path.join(workdir, f"robust_vs_highs_{n}x20.f64")
    make_data(path, n, 20)
    X = np.array(np.memmap(path, dtype=np.float64, mode="r", shape=(n, 20)))
    y = np.array(np.memmap(path + ".y", dtype=np.int8, mode="r", shape=(n,)), dtype=np.float64)
    rng = np.random.default_rng(1)
    kern = Kernel("rbf", alpha=4.0).fit(X)
    Z = X[rng.choice(n, L, replace=False)]
    return y, np.sqrt(np.clip(kern.diag(Z), 0.0, None)), kern.cross(X, Z)


def asv_data(n: int, L: int) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """(y, r, Phi) exactly as ``benchmarks/asv/bench_robust.py::ReducedModel.setup`` builds them."""
    from svmopt import Kernel

    rng = np.random.default_rng(1)
    y = np.where(rng.random(n) < 0.4, 1.0, -1.0)
    X = rng.normal(size=(n, 8)) + 0.8 * y[:, None]
    kern = Kernel("rbf").fit(X)
    Z = X[rng.choice(n, L, replace=False)]
    return y, np.sqrt(np.clip(kern.diag(Z), 0.0, None)), kern.cross(X, Z)


def _timed(f: Callable[[], Any], repeat: int) -> tuple[dict[str, float], Any]:
    """The best wall time of ``repeat`` calls (and that call's CPU seconds), and the last call's result."""
    best: dict[str, float] = {"wall": np.inf, "cpu": np.inf}
    out = None
    for _ in range(repeat):
        w0, c0 = time.perf_counter(), time.process_time()
        out = f()
        wall, cpu = time.perf_counter() - w0, time.process_time() - c0
        if wall < best["wall"]:
            best = {"wall": wall, "cpu": cpu}
    return best, out


def compare(y: np.ndarray, r: np.ndarray, Phi: np.ndarray, repeat: int = 1) -> dict[str, Any]:
    """The three solvers on one reduced LP, at nu = 1 and over ``NU_GRID``."""
    from svmopt.robust.fit import NU_GRID
    from svmopt.robust.ipm import ReducedIPM
    from svmopt.robust.reduced import ReducedLP, solve_direct

    n, L = Phi.shape
    rec: dict[str, Any] = {"n": int(n), "L": int(L)}
    ipms: list[Any] = []

    def ipm_single() -> Any:
        ipms.append(ReducedIPM(y, r, Phi=Phi))
        return ipms[-1].solve(1.0)

    t, sol = _timed(ipm_single, repeat)
    rec["ipm"] = {**t, "obj": float(sol.objective), "lb": float(sol.lower_bound), "passes": int(ipms[-1].n_passes),
                  "iters": len(sol.history)}
    lps: list[Any] = []

    def cp_single() -> Any:
        lps.append(ReducedLP(y, r, Phi=Phi))
        return lps[-1].solve(1.0)

    t, sol = _timed(cp_single, repeat)
    rec["cp"] = {**t, "obj": float(sol.objective), "lb": float(sol.lower_bound), "passes": int(lps[-1].n_passes)}
    t, sol = _timed(lambda: solve_direct(Phi, y, r, 1.0), repeat)
    rec["highs"] = {**t, "obj": float(sol.objective)}

    def grid(make: Callable[[], Any]) -> Callable[[], list[float]]:
        def run() -> list[float]:
            solver = make()
            return [float(solver.solve(float(nu)).objective) for nu in NU_GRID]
        return run

    class _Direct:
        def solve(self, nu: float) -> Any:
            return solve_direct(Phi, y, r, nu)

    for key, make in (("ipm_grid", lambda: ReducedIPM(y, r, Phi=Phi)), ("cp_grid", lambda: ReducedLP(y, r, Phi=Phi)),
                      ("highs_grid", _Direct)):
        t, objs = _timed(grid(make), repeat)
        rec[key] = {**t, "objectives": objs}
    return rec


def main(argv: Sequence[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0],
                                 formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--rows", type=int, nargs="+", default=[2000, 5000])
    ap.add_argument("--landmarks", type=int, nargs="+", default=[100, 300])
    ap.add_argument("--datasets", nargs="+", default=list(DATASETS), choices=DATASETS)
    ap.add_argument("--repeat", type=int, default=1, help="best of this many runs of each solve")
    ap.add_argument("--workdir", default=tempfile.gettempdir(), help="where the scale data file is written")
    ap.add_argument("--out", type=Path, default=RESULTS / "robust_ipm_vs_highs.json")
    args = ap.parse_args(argv)

    t0 = time.perf_counter()
    load0 = os.getloadavg()
    out: dict[str, Any] = {}
    for key in args.datasets:
        out[key] = []
        for L in args.landmarks:
            for n in args.rows:
                data = scale_data(n, L, args.workdir) if key == DATASETS[0] else asv_data(n, L)
                rec = compare(*data, repeat=args.repeat)
                out[key].append(rec)
                print(f"{key} n={n} L={L}: IPM {rec['ipm']['wall']:.3f} s, cutting planes {rec['cp']['wall']:.2f} s, "
                      f"HiGHS {rec['highs']['wall']:.2f} s", flush=True)
    out["protocol"] = ("one process, back to back, kernel rows cached; nu = 1 and the grid NU_GRID = "
                       "logspace(-3, 0, 5); best of --repeat runs")
    out["meta"] = run_meta(__spec__.name, argv, t0, load0[0])
    write_results(out, args.out)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
