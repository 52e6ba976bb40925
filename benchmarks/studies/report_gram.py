"""Gram assembly against scikit-learn and against two floors, in CPU seconds on one thread (robust on a shared machine).

Wall-clock asv timings (``benchmarks/asv/bench_kernels.py``) swing by +-20 % when other jobs share the cores; process
CPU time of one thread depends far less on what else runs (caches and memory bandwidth are still shared, hence
the rounds), so the ratios below are what ``docs/performance.md#gram-matrix-against-scikit-learn-and-the-floors``
quotes.
Usage: ``python -m benchmarks.studies.report_gram [m ...] [--rounds N] [--json PATH]`` (default 4000 10000, 3 rounds;
every figure is the minimum over the rounds).

Floors, for an m x m Gram of m x d data (all timed here, same process, same thread limits):

* write floor: allocate the m x m float64 output and write it once (``np.empty((m, m)).fill(1.0)``), page
  faults of the fresh allocation included.
* compute floor: write floor + one BLAS ``dsyrk`` of order m on the m x d array (SciPy's, m^2 d flops: the
  inner products X X^T, one triangle, into a preallocated, already touched output) + the kernel's elementwise
  map over the m (m + 1) / 2 distinct entries, timed with NumPy in place on a preallocated array of that many
  entries (rbf: ``exp``; sigmoid: ``tanh``; poly: ``square``; inhom_poly: ``+ c`` then a cube by two
  multiplications, because ``np.power(x, 3)`` calls libm's ``pow`` per entry; linear: nothing). NumPy's maps
  are the reference map cost; the three stages are timed apart, each with its own pass over memory.

A second part times the RBF at d = 30 in wall-clock seconds with 2 threads: svmopt with its default thread
count (all cores), scikit-learn with 2 BLAS threads, and the compute floor with 2 BLAS threads for dsyrk and
the map and the write split in two halves over 2 Python threads (NumPy releases the GIL in both).
"""

from __future__ import annotations

import argparse
import json
import time
from collections.abc import Callable
from concurrent.futures import ThreadPoolExecutor

import numpy as np
from scipy.linalg import blas as scipy_blas
from sklearn.metrics import pairwise
from threadpoolctl import threadpool_info, threadpool_limits

from benchmarks.studies.util import command_line
from svmopt import Kernel, _core

DIMS = (10, 30, 100)
INHOM_C = 1.0


def best(fn: Callable[[], object], repeat: int, clock: Callable[[], float], setup: Callable[[], object] | None = None):
    """Best of ``repeat`` calls of ``fn`` by ``clock``; ``setup`` runs untimed before each call."""
    t = np.inf
    for _ in range(repeat):
        if setup is not None:
            setup()
        t0 = clock()
        fn()
        t = min(t, clock() - t0)
    return t


def cpu_time(fn, repeat: int, setup=None) -> float:
    return best(fn, repeat, time.process_time, setup)


def wall_time(fn, repeat: int, setup=None) -> float:
    return best(fn, repeat, time.perf_counter, setup)


def wall_and_cpu(fn, repeat: int, setup=None) -> tuple[float, float]:
    """Wall seconds of the fastest of ``repeat`` calls and the process CPU seconds of that call."""
    runs = []
    for _ in range(repeat):
        if setup is not None:
            setup()
        w, c = time.perf_counter(), time.process_time()
        fn()
        runs.append((time.perf_counter() - w, time.process_time() - c))
    return min(runs)


def cases(X: np.ndarray):
    d = X.shape[1]
    a = float(np.sqrt(d))
    return [
        ("linear", Kernel("linear"), lambda: pairwise.linear_kernel(X)),
        ("poly d=2", Kernel("poly", degree=2), lambda: pairwise.polynomial_kernel(X, degree=2, gamma=1, coef0=0)),
        (
            "inhom_poly d=3",
            Kernel("inhom_poly", degree=3, c=INHOM_C),
            lambda: pairwise.polynomial_kernel(X, degree=3, gamma=1, coef0=INHOM_C),
        ),
        ("rbf", Kernel("rbf", alpha=a), lambda: pairwise.rbf_kernel(X, gamma=1 / (2 * a * a))),
        ("sigmoid", Kernel("sigmoid", a=1 / d), lambda: pairwise.sigmoid_kernel(X, gamma=1 / d, coef0=0)),
    ]


class MapFloor:
    """The elementwise maps, in place, on ``n`` preallocated entries; ``G[:]`` is refilled untimed before each call."""

    def __init__(self, n: int, rng: np.random.Generator):
        self.S = rng.standard_normal(n)
        self.G = np.empty(n)
        self.T = np.empty(n)

    def fill(self, kernel: str) -> None:
        G = self.G
        if kernel == "rbf":  # exp of -||x - z||^2 / (2 alpha^2) <= 0
            np.abs(self.S, out=G)
            np.negative(G, out=G)
        elif kernel == "sigmoid":  # tanh(a <x, z>), a = 1 / d: arguments of order 1 / sqrt(d)
            np.multiply(self.S, 0.3, out=G)
        else:
            np.copyto(G, self.S)

    def ops(self, kernel: str, G: np.ndarray, T: np.ndarray) -> Callable[[], object] | None:
        if kernel == "linear":
            return None
        if kernel == "poly d=2":
            return lambda: np.square(G, out=G)
        if kernel == "inhom_poly d=3":

            def cube():
                np.add(G, INHOM_C, out=G)
                np.multiply(G, G, out=T)
                np.multiply(G, T, out=G)

            return cube
        if kernel == "inhom_poly d=3 (np.power)":

            def power():
                np.add(G, INHOM_C, out=G)
                np.power(G, 3, out=G)

            return power
        if kernel == "rbf":
            return lambda: np.exp(G, out=G)
        if kernel == "sigmoid":
            return lambda: np.tanh(G, out=G)
        raise ValueError(kernel)

    def cpu(self, kernel: str, repeat: int) -> float:
        fn = self.ops(kernel, self.G, self.T)
        if fn is None:
            return 0.0
        return cpu_time(fn, repeat, setup=lambda: self.fill(kernel.split(" (")[0]))

    def wall_split(self, kernel: str, pool: ThreadPoolExecutor, repeat: int) -> tuple[float, float]:
        """The map with the entries split in two halves, one per Python thread."""
        h = self.G.shape[0] // 2
        parts = [self.ops(kernel, self.G[s], self.T[s]) for s in (slice(0, h), slice(h, None))]

        def run():
            for f in [pool.submit(p) for p in parts]:
                f.result()

        return wall_and_cpu(run, repeat, setup=lambda: self.fill(kernel))


def syrk_timer(X: np.ndarray, C: np.ndarray) -> Callable[[], object]:
    """C (upper triangle) <- X X^T by SciPy's dsyrk: A = X.T is d x m Fortran-ordered, trans=1 gives A^T A."""
    A = X.T

    def run():
        out = scipy_blas.dsyrk(1.0, A, beta=0.0, c=C, trans=1, overwrite_c=1)
        assert out is C or np.shares_memory(out, C)  # no copy of the m x m output

    return run


def write_floor(m: int) -> None:
    np.empty((m, m)).fill(1.0)


def write_floor_split(m: int, pool: ThreadPoolExecutor) -> None:
    K = np.empty((m, m))
    h = m // 2
    for f in [pool.submit(K[s].fill, 1.0) for s in (slice(0, h), slice(h, None))]:
        f.result()


def check_syrk(rng: np.random.Generator) -> None:
    X = rng.standard_normal((300, 7))
    C = np.zeros((300, 300), order="F")
    syrk_timer(X, C)()
    iu = np.triu_indices(300)
    assert np.allclose(C[iu], (X @ X.T)[iu])


MAPS = ("linear", "poly d=2", "inhom_poly d=3", "rbf", "sigmoid", "inhom_poly d=3 (np.power)")


class Best(dict):
    """The minimum of every key over rounds (a tuple value compares on its first entry)."""

    def keep(self, key, value) -> None:
        self[key] = min(self.get(key, value), value)


def single_thread(m: int, rounds: int, rng: np.random.Generator, records: list[dict]) -> None:
    n = m * (m + 1) // 2
    Xs = {d: rng.standard_normal((m, d)) for d in DIMS}
    maps = MapFloor(n, rng)
    C = np.zeros((m, m), order="F")  # touched once here, so dsyrk's time has no page faults
    t = Best()
    with threadpool_limits(1):
        for _ in range(rounds):
            t.keep("write", cpu_time(lambda: write_floor(m), 3))
            t.keep("rewrite", cpu_time(lambda C=C: C.fill(1.0), 3))
            for name in MAPS:
                t.keep(name, maps.cpu(name, 3))
            for d, X in Xs.items():
                t.keep(("dsyrk", d), cpu_time(syrk_timer(X, C), 3))
                for name, k, sk in cases(X):
                    t.keep(("svmopt", d, name), cpu_time(lambda k=k, X=X: k.gram(X, n_threads=1), 3))
                    t.keep(("sklearn", d, name), cpu_time(sk, 1))
    del maps, C
    floor = t["write"]
    print(f"\nm = {m}: CPU seconds, 1 thread everywhere; minimum over {rounds} rounds of best of 3 (svmopt, dsyrk, "
          "maps, write floor) or 1 (sklearn)")
    print("| m | d | kernel | svmopt | sklearn | speed-up | dsyrk | map (NumPy) | compute floor "
          "| svmopt / write floor | svmopt / compute floor |")
    print("|---|---|---|---|---|---|---|---|---|---|---|")
    for d in DIMS:
        syrk = t["dsyrk", d]
        for name in MAPS[:5]:
            ours, theirs, mapc = t["svmopt", d, name], t["sklearn", d, name], t[name]
            compute = floor + syrk + mapc
            print(f"| {m} | {d} | {name} | {ours:.3f} s | {theirs:.3f} s | {theirs / ours:.1f}x | {syrk:.3f} s "
                  f"| {mapc:.3f} s | {compute:.3f} s | {ours / floor:.1f} | {ours / compute:.2f} |")
            records.append(dict(part="1 thread, CPU s", m=m, d=d, kernel=name, svmopt=ours, sklearn=theirs,
                                dsyrk=syrk, map_numpy=mapc, write_floor=floor, compute_floor=compute))
    print(f"| {m} | - | write floor (allocate + write m x m once) | {floor:.3f} s | | | | | | 1.0 | |")
    print(f"\nThe same write into an m x m array already touched (no page faults): {t['rewrite']:.3f} s")
    records.append(dict(part="1 thread, CPU s", m=m, write_floor=floor, write_touched=t["rewrite"]))
    print(f"\nNumPy map per distinct entry (m (m + 1) / 2 = {n}), ns: "
          + ", ".join(f"{k} {1e9 * t[k] / n:.2f}" for k in MAPS[1:]))
    records.append(dict(part="NumPy map per distinct entry, ns", m=m, **{k: 1e9 * t[k] / n for k in MAPS}))
    for d in DIMS:
        print(f"svmopt's map at d = {d} as (svmopt kernel - svmopt linear) per distinct entry, ns: "
              + ", ".join(f"{k} {1e9 * (t['svmopt', d, k] - t['svmopt', d, 'linear']) / n:.2f}" for k in MAPS[1:5]))


def two_threads_rbf(m: int, d: int, rounds: int, rng: np.random.Generator, records: list[dict]) -> None:
    X = rng.standard_normal((m, d))
    a = float(np.sqrt(d))
    k = Kernel("rbf", alpha=a)
    n = m * (m + 1) // 2
    maps = MapFloor(n, rng)
    C = np.zeros((m, m), order="F")
    t = Best()
    with threadpool_limits(2), ThreadPoolExecutor(2) as pool:
        for _ in range(rounds):
            t.keep("svmopt", wall_and_cpu(lambda: k.gram(X), 3))
            t.keep("sklearn", wall_and_cpu(lambda: pairwise.rbf_kernel(X, gamma=1 / (2 * a * a)), 1))
            t.keep("dsyrk", wall_and_cpu(syrk_timer(X, C), 3))
            t.keep("exp", maps.wall_split("rbf", pool, 3))
            t.keep("write", wall_and_cpu(lambda: write_floor_split(m, pool), 3))
    del maps, C
    (ours, _), (theirs, _), (write, _) = t["svmopt"], t["sklearn"], t["write"]
    compute = t["dsyrk"][0] + t["exp"][0] + write
    print(f"\nm = {m}, d = {d}, rbf: wall seconds, 2 threads (svmopt: default n_threads, {_core.max_threads()} "
          "OpenMP threads; sklearn and dsyrk: 2 BLAS threads; exp and write: two halves on 2 Python threads); "
          f"minimum over {rounds} rounds of best of 3 (sklearn 1); in brackets: process CPU seconds / wall seconds "
          "of that run")
    print("| svmopt | sklearn | speed-up | dsyrk | exp (NumPy) | write floor | compute floor "
          "| svmopt / write floor | svmopt / compute floor |")
    print("|---|---|---|---|---|---|---|---|---|")

    def w(key: str) -> str:
        return f"{t[key][0]:.3f} s ({t[key][1] / t[key][0]:.1f})"

    print(f"| {w('svmopt')} | {w('sklearn')} | {theirs / ours:.1f}x | {w('dsyrk')} | {w('exp')} | {w('write')} "
          f"| {compute:.3f} s | {ours / write:.1f} | {ours / compute:.2f} |")
    records.append(dict(part="2 threads, wall s", m=m, d=d, kernel="rbf", compute_floor=compute,
                        **{key: dict(wall=v[0], cpu=v[1]) for key, v in t.items()}))


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("sizes", nargs="*", type=int, default=[4000, 10000])
    parser.add_argument("--rounds", type=int, default=3, help="rounds over all cases; each figure is their minimum")
    parser.add_argument("--json", help="also write the measurements to this file")
    args = parser.parse_args(argv)
    rng = np.random.default_rng(0)
    check_syrk(rng)
    blas = sorted({f"{i['internal_api']} {i['version']} ({i['filepath'].rsplit('/', 1)[-1]})" for i in threadpool_info()
                   if i["user_api"] == "blas"})
    print(f"core variant: {_core.isa}; BLAS libraries: {'; '.join(blas)}")
    records: list[dict] = []
    for m in args.sizes:
        single_thread(m, args.rounds, rng, records)
        two_threads_rbf(m, 30, args.rounds, rng, records)
    if args.json:
        meta = dict(isa=_core.isa, blas=blas, numpy=np.__version__, date=time.strftime("%Y-%m-%d"),
                    rounds=args.rounds,
                    command=command_line(__spec__.name, argv))
        with open(args.json, "w", encoding="utf-8") as f:
            json.dump(dict(meta=meta, records=records), f, indent=1)


if __name__ == "__main__":
    main()
