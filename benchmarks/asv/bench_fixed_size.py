"""Fixed-size LS-SVM hot loops (paper 002), each against its baseline in the same run.

* ``PhiTPhiAccumulation`` -- blockwise Phi_e^T Phi_e, Phi_e^T Y accumulation in the C++ core (features streamed in
  blocks of 50,000 rows, memory O(block m + m^2); dsyrk of the installed BLAS -- NumPy's bundled OpenBLAS, the one
  numpy's own product runs on -- at p >= 128, with X^T [Y, 1] on the same 256 cache-resident rows) vs numpy's
  ``P.T @ P`` on the same in-memory features, alone ("numpy") and with ``P.T @ Y`` ("numpy_with_t", the same
  outputs).
* ``EntropySwaps`` -- Rényi-entropy prototype selection: O(m d) log-domain swap updates vs recomputing the entropy
  of the candidate set in O(m^2 d) per proposal (``recompute=True``: the same decisions), same proposals.
* ``FastVsSimpleCV`` -- one v-fold CV evaluation at fixed (gamma, sigma^2) as the paper's Tables 3–4: the fast CV
  (Algorithm 3, one accumulation pass + v Cholesky solves) vs the simple CV (everything recomputed per fold).
* ``FoldSolves`` -- the v fold models in place vs copied statistics vs SciPy.
* ``KeptFeatures`` -- fold statistics + CV predictions from the accumulator's kept fold-sorted features vs a
  stream-ordered copy of Phi_e and ``fold_predict``.
* ``KernelStatistics`` -- one pass of 10-fold statistics over raw rows: the kernel block's C^T C mapped by P
  ("kernel"), the features' Phi^T Phi ("features", the paper's Algorithm 3), and what a numpy user writes
  ("numpy": K(X, PV) by ``sklearn.metrics.pairwise.rbf_kernel``, then ``C @ P`` and ``F.T @ F`` per fold); with
  sample weights, Phi^T W Phi: the core's pass with ``weights`` ("kernel_weighted", "features_weighted") against
  the features scaled by sqrt(w) in numpy ("numpy_weighted", how svmopt's weighted fits summed them before).

Run: ``asv run --python=same -b bench_fixed_size``.
"""

from __future__ import annotations

import numpy as np

from svmopt import _core
from svmopt._shared.splits import random_folds
from svmopt.fixed_size.cv_engine import CVEngine, simple_cv_cost
from svmopt.fixed_size.nystrom import linear_accumulator, nystrom_projection


def _rbf(sigma2):
    return _core.kernels.KernelParams(_core.kernels.KernelKind.rbf, alpha=float(np.sqrt(sigma2 / 2.0)))


class PhiTPhiAccumulation:
    """Phi_e^T Phi_e of an n x p feature matrix: svmopt blockwise vs numpy in-memory."""

    params = ([100_000], [200, 500], ["svmopt", "numpy", "numpy_with_t"])
    param_names = ("n", "p", "impl")
    number = 1
    repeat = (1, 3, 30.0)
    timeout = 600

    def setup(self, n, p, impl):
        rng = np.random.default_rng(0)
        self.F = rng.standard_normal((n, p - 1))
        self.Y = np.zeros((n, 1))
        if impl.startswith("numpy"):
            self.Fe = np.hstack([self.F, np.ones((n, 1))])

    def time_accumulate(self, n, p, impl):
        if impl == "numpy":  # the baseline: Phi^T Phi alone
            return self.Fe.T @ self.Fe
        if impl == "numpy_with_t":  # what the accumulation returns: Phi^T Phi and Phi^T Y
            return self.Fe.T @ self.Fe, self.Fe.T @ self.Y
        acc = linear_accumulator(p - 1)
        for s in range(0, n, 50_000):
            acc.add(self.F[s:s + 50_000], self.Y[s:s + 50_000])
        return acc.results()

    def track_rows_per_second(self, n, p, impl):
        import time

        t = time.perf_counter()
        self.time_accumulate(n, p, impl)
        return n / (time.perf_counter() - t)

    track_rows_per_second.unit = "rows/s"


class EntropySwaps:
    """1000 swap proposals at m = 1000 (d = 10): incremental O(m d) vs recomputed O(m^2 d)."""

    params = ([1000], ["swap", "recompute"])
    param_names = ("m", "impl")
    number = 1
    repeat = (1, 3, 60.0)
    timeout = 600

    def setup(self, m, impl):
        rng = np.random.default_rng(0)
        self.Z = np.ascontiguousarray(rng.standard_normal((20_000, 10)) / (2 * 0.3))
        self.proposals = 1000 if impl == "swap" else 20

    def time_proposals(self, m, impl):
        _core.prototypes.entropy_select(self.Z, m, max_proposals=self.proposals, tol=-1.0, seed=0,
                                        recompute=impl == "recompute", window=10**9)

    def track_seconds_per_proposal(self, m, impl):
        import time

        t = time.perf_counter()
        self.time_proposals(m, impl)
        dt = time.perf_counter() - t
        # subtract the shared O(m^2 d) initialisation
        t = time.perf_counter()
        _core.prototypes.entropy_select(self.Z, m, max_proposals=1, tol=-1.0, seed=0, window=10**9)
        return (dt - (time.perf_counter() - t)) / self.proposals

    track_seconds_per_proposal.unit = "s"


class FastVsSimpleCV:
    """One CV evaluation (Tables 3–4 setting: n = 1030, d = 8, gamma = 1, sigma^2 = d). "fast" picks its fold solve
    by the flop model (the holdout identity for many small folds), "fast_cholesky" forces v Cholesky solves, the
    baseline "simple" recomputes everything per fold (eig of Omega_mm, the features, the training Gram matrix and
    the solve)."""

    params = ([50, 100, 400], [5, 10, 20, 50], ["fast", "fast_cholesky", "simple"])
    param_names = ("m", "v", "impl")
    number = 1
    repeat = (1, 5, 20.0)
    timeout = 600

    def setup(self, m, v, impl):
        rng = np.random.default_rng(0)
        n, d = 1030, 8
        self.X = rng.standard_normal((n, d))
        self.y = np.sin(self.X[:, 0]) + 0.1 * rng.standard_normal(n)
        self.PV = np.ascontiguousarray(self.X[rng.choice(n, m, replace=False)])
        self.folds = random_folds(n, v, rng)
        self.v = v

    def time_cv(self, m, v, impl):
        if impl == "simple":
            return simple_cv_cost(self.X, self.y, self.folds, self.PV, _rbf(8.0), 1.0, "regression")
        X, Y = self.X, self.y.reshape(-1, 1)
        eng = CVEngine(lambda: iter([(X, Y)]), self.folds, self.v, self.PV, _rbf, "regression", n_features=8)
        if impl == "fast_cholesky":
            eng.holdout = False
        return eng.cost(1.0, 8.0)


class FoldSolves:
    """The v fold models of one fast CV evaluation (20)-(21) from accumulated statistics: svmopt's in-place
    ``FoldAccumulator.fold_solve`` (one workspace per thread, no copies) vs the same through ``fast_cv_solve`` on
    the statistics copied out (``results()``, the path before) vs numpy/SciPy (``cho_factor`` / ``cho_solve`` per
    fold on the copied statistics)."""

    params = ([301, 701], [10, 50], ["fold_solve", "fast_cv_solve", "scipy"])
    param_names = ("p", "v", "impl")
    number = 1
    repeat = (1, 5, 20.0)
    timeout = 600

    def setup(self, p, v, impl):
        rng = np.random.default_rng(0)
        n = 4 * p
        X = rng.standard_normal((n, p - 1))
        Y = rng.standard_normal((n, 1))
        folds = random_folds(n, v, rng)
        self.acc = linear_accumulator(p - 1, n_folds=v, n_threads=1)
        self.acc.add(X, Y, folds)

    def time_solve(self, p, v, impl):
        if impl == "fold_solve":
            return self.acc.fold_solve(1.0, True)
        G, t, _, _ = self.acc.results()
        if impl == "fast_cv_solve":
            return _core.fixed_size.fast_cv_solve(G, t, 1.0, True, 1)
        from scipy.linalg import cho_factor, cho_solve

        S, c, eye = G.sum(0), t.sum(0), np.eye(p)
        return [cho_solve(cho_factor(S - G[u] + eye, lower=True, check_finite=False), c - t[u], check_finite=False)
                for u in range(v)]


class KeptFeatures:
    """Accumulate one sigma^2's fold statistics and predict every row by its fold model (a per-fold CV evaluation
    without its solves): the accumulator keeping its fold-sorted feature chunks (``keep_features``,
    ``predict_kept``) vs the path before, features copied back into a stream-ordered Phi_e (``add(out=Phi)``) and
    ``fold_predict``; the same models theta in both. magic-like sizes, RBF on m random prototypes."""

    params = ([50, 300], [10, 50], ["kept", "stream_phi"])
    param_names = ("m", "v", "impl")
    number = 1
    repeat = (3, 10, 20.0)
    timeout = 600

    def setup(self, m, v, impl):
        rng = np.random.default_rng(0)
        n, d = 19_020, 10
        self.X = rng.standard_normal((n, d))
        self.Y = np.where(rng.random((n, 1)) < 0.5, -1.0, 1.0)
        self.PV = np.ascontiguousarray(self.X[rng.choice(n, m, replace=False)])
        self.params = _core.kernels.KernelParams(_core.kernels.KernelKind.rbf, alpha=np.sqrt(d / 2))
        self.P, _ = nystrom_projection(self.PV, self.params, 1)
        self.folds = random_folds(n, v, rng)
        self.theta = rng.standard_normal((v, self.P.shape[1] + 1, 1))

    def time_accumulate_predict(self, m, v, impl):
        kept = impl == "kept"
        acc = _core.fixed_size.FoldAccumulator(self.PV, self.params, self.P, n_folds=v, n_threads=1, keep_features=kept)
        if kept:
            acc.add(self.X, self.Y, self.folds)
            return acc.predict_kept(self.theta)
        Phi = np.empty((self.X.shape[0], acc.dim))
        acc.add(self.X, self.Y, self.folds, out=Phi)
        return _core.fixed_size.fold_predict(Phi, self.folds, self.theta, 1)


class KernelStatistics:
    """Per-fold Phi_u^T Phi_u, Phi_u^T y_u of the Nystrom features of n raw rows: kernel statistics vs features vs
    numpy."""

    params = ([100_000], [200, 500], ["kernel", "features", "numpy", "kernel_weighted", "features_weighted",
                                      "numpy_weighted"])
    param_names = ("n", "m", "impl")
    number = 1
    repeat = (1, 3, 60.0)
    timeout = 600

    def setup(self, n, m, impl):
        rng = np.random.default_rng(0)
        self.X = rng.standard_normal((n, 20))
        self.y = np.sign(rng.standard_normal((n, 1)))
        self.PV = np.ascontiguousarray(self.X[:m])
        self.params = _rbf(20.0)
        self.P, _ = nystrom_projection(self.PV, self.params)
        self.folds = (np.arange(n) % 10).astype(np.int32)
        self.w = rng.uniform(0.5, 2.0, n)

    def time_pass(self, n, m, impl):
        weighted = impl.endswith("_weighted")
        impl = impl.removesuffix("_weighted")
        if impl == "numpy":
            from sklearn.metrics.pairwise import rbf_kernel

            out = []
            for u in range(10):
                rows = self.folds == u
                F = np.hstack([rbf_kernel(self.X[rows], self.PV, gamma=1.0 / 20.0) @ self.P,
                               np.ones((int(rows.sum()), 1))])
                Y = self.y[rows]
                if weighted:
                    sq = np.sqrt(self.w[rows])[:, None]
                    F, Y = F * sq, Y * sq
                out.append((F.T @ F, F.T @ Y))
            return out
        acc = _core.fixed_size.FoldAccumulator(self.PV, self.params, self.P, n_folds=10, statistics=impl)
        for s in range(0, n, 65_536):
            acc.add(self.X[s:s + 65_536], self.y[s:s + 65_536], self.folds[s:s + 65_536],
                    weights=self.w[s:s + 65_536] if weighted else None)
        return acc.results()
