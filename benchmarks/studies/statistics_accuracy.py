"""Accuracy of the fixed-size LS-SVM's two statistics paths against an extended-precision reference. A plain script;
it produces the table of ``docs/performance.md#which-statistics-and-how-accurate``:

    python -m benchmarks.studies.statistics_accuracy --out benchmarks/results/statistics_accuracy.json

For each case (RBF width, optional near-duplicate prototypes) and ridge parameter gamma, the same prototypes and the
same projection P (float64, from ``nystrom_projection``) feed

* ``features``: ``FoldAccumulator(statistics="features")``, Phi^T Phi of Phi = C P (paper 002, Algorithm 3);
* ``kernel``: ``FoldAccumulator(statistics="kernel")``, P~^T (C^T C) P~;

and both solve (7) in float64. The reference forms C, Phi, Phi^T Phi and Phi^T y in ``np.longdouble`` (64-bit
mantissa on x86-64) and refines its solve against that system. Reported: the relative error of each path's decision
values on 500 test rows, ``max |f - f_ref| / max |f_ref|``, next to lambda_max / lambda'_min of the kept spectrum and
the choice ``statistics="auto"`` makes.
"""

from __future__ import annotations

import argparse
import json
import sys

import numpy as np

from benchmarks.studies.util import git_head

L = np.longdouble


def _kernel_block(X: np.ndarray, PV: np.ndarray, sigma2: float) -> np.ndarray:
    Xl, Pl = X.astype(L), PV.astype(L)
    D = np.maximum((Xl ** 2).sum(1)[:, None] + (Pl ** 2).sum(1)[None, :] - 2 * Xl @ Pl.T, 0)
    return np.hstack([np.exp(-D / L(sigma2)), np.ones((X.shape[0], 1), dtype=L)])


def case(n: int, d: int, m: int, sigma2: float, offset: float | None, gammas, seed: int = 0) -> list[dict]:
    from svmopt import _core
    from svmopt.fixed_size.nystrom import nystrom_projection, rbf_params

    fs = _core.fixed_size
    rng = np.random.default_rng(seed)
    X = rng.standard_normal((n, d))
    Xt = rng.standard_normal((500, d))
    PV = np.ascontiguousarray(X[:m])
    if offset is not None:
        PV[m // 2:] = PV[:m - m // 2] + offset
    Y = np.sign(np.sin(2 * X[:, :1]) + X[:, 1:2] * X[:, 2:3])
    params = rbf_params(sigma2)
    P, lam = nystrom_projection(PV, params)
    Pt = np.zeros((m + 1, P.shape[1] + 1), dtype=L)
    Pt[:-1, :-1], Pt[-1, -1] = P, 1
    F = _kernel_block(X, PV, sigma2) @ Pt
    Ft = _kernel_block(Xt, PV, sigma2) @ Pt
    G_ref, t_ref = F.T @ F, F.T @ Y.astype(L)
    stats = {}
    for st in ("features", "kernel"):
        acc = fs.FoldAccumulator(PV, params, P, statistics=st)
        acc.add(X, Y)
        G, t, _, _ = acc.results()
        stats[st] = (G[0], t[0])
    auto = fs.FoldAccumulator(PV, params, P).kernel_statistics
    rows = []
    for gamma in gammas:
        A = G_ref + np.eye(G_ref.shape[0], dtype=L) / L(gamma)
        th = np.linalg.solve(A.astype(float), t_ref.astype(float))
        for _ in range(5):
            th = th + np.linalg.solve(A.astype(float), (t_ref - A @ th.astype(L)).astype(float))
        f_ref = Ft @ th.astype(L)
        row = {"sigma2": sigma2, "near_duplicates": offset, "m": m, "m_kept": int(P.shape[1]),
               "cond": float(lam.max() / lam.min()), "gamma": gamma, "auto": "kernel" if auto else "features"}
        for st, (G, t) in stats.items():
            try:
                f = Ft @ fs.ridge_solve(G, t, gamma, True).astype(L)
                row[st] = float(np.max(np.abs(f - f_ref)) / np.max(np.abs(f_ref)))
            except RuntimeError:  # the system lost positive definiteness in float64
                row[st] = None
        rows.append(row)
    return rows


def main(argv=None) -> int:
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--n", type=int, default=3000)
    p.add_argument("--d", type=int, default=4)
    p.add_argument("--m", type=int, default=80)
    p.add_argument("--out", default=None)
    args = p.parse_args(argv)
    rows = []
    cases = [(s2, None) for s2 in (0.5, 2.0, 4.0, 8.0, 32.0, 128.0)] + [(1.0, 1e-2), (1.0, 1e-3), (1.0, 1e-5)]
    for s2, off in cases:
        for r in case(args.n, args.d, args.m, s2, off, (1.0, 1e3, 1e6)):
            rows.append(r)
            print(json.dumps(r), flush=True)
    if args.out:
        with open(args.out, "w") as f:
            json.dump({"commit": git_head(), "n": args.n, "d": args.d, "rows": rows}, f, indent=1)
    return 0


if __name__ == "__main__":
    sys.exit(main())
