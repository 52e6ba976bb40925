"""Gram assembly ratios in CPU seconds, single-threaded on both sides: robust on a shared machine.

Wall-clock asv timings (``bench_kernels.py``) swing by +-20 % when other jobs share the cores; process CPU
time of one thread does not depend on what else runs, so the ratios below are what ``docs/performance.md``
quotes. Usage: ``python benchmarks/report_gram.py [m ...]`` (default 4000 10000).
"""

from __future__ import annotations

import sys
import time

import numpy as np
from sklearn.metrics import pairwise
from threadpoolctl import threadpool_limits

from svmopt import Kernel, _core
from svmopt.cli import best_time


def cpu_time(fn, repeat: int) -> float:
    return best_time(fn, repeat, clock=time.process_time)


def cases(X: np.ndarray):
    d = X.shape[1]
    a = float(np.sqrt(d))
    return [
        ("linear", Kernel("linear"), lambda: pairwise.linear_kernel(X)),
        ("poly d=2", Kernel("poly", degree=2), lambda: pairwise.polynomial_kernel(X, degree=2, gamma=1, coef0=0)),
        (
            "inhom_poly d=3",
            Kernel("inhom_poly", degree=3, c=1.0),
            lambda: pairwise.polynomial_kernel(X, degree=3, gamma=1, coef0=1),
        ),
        ("rbf", Kernel("rbf", alpha=a), lambda: pairwise.rbf_kernel(X, gamma=1 / (2 * a * a))),
        ("sigmoid", Kernel("sigmoid", a=1 / d), lambda: pairwise.sigmoid_kernel(X, gamma=1 / d, coef0=0)),
    ]


def main(sizes: list[int]) -> None:
    rng = np.random.default_rng(0)
    print(f"core variant: {_core.isa}; CPU seconds, 1 thread on both sides; best of 3 (svmopt) / 2 (sklearn)")
    print("| m | d | kernel | svmopt | sklearn | speed-up | svmopt / floor |")
    print("|---|---|---|---|---|---|---|")
    with threadpool_limits(1):
        for m in sizes:
            floor = cpu_time(lambda m=m: np.empty((m, m)).fill(1.0), 3)
            for d in (10, 100):
                X = rng.standard_normal((m, d))
                for name, k, sk in cases(X):
                    ours = cpu_time(lambda k=k, X=X: k.gram(X, n_threads=1), 3)
                    theirs = cpu_time(sk, 2)
                    print(f"| {m} | {d} | {name} | {ours:.3f} s | {theirs:.3f} s | {theirs / ours:.1f}x "
                          f"| {ours / floor:.1f} |")
            print(f"| {m} | - | floor (allocate + write m x m once) | {floor:.3f} s | | | 1.0 |")


if __name__ == "__main__":
    main([int(a) for a in sys.argv[1:]] or [4000, 10000])
