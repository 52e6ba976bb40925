"""asv benchmarks of RampLossSVC (paper 001), each with its baseline in the same run.

* BigMSweep: one Variant-I sweep of Algorithm 1 (one (UB_Mi) LP per point) on one HiGHS model built once
  (vectorised CSC, then cost changes and Gauss-Seidel coefficient updates, re-solved cold: the default) vs the
  naive baseline that rebuilds the LP for every point; n in {60, 150}. Also the shared model warm-started from the
  previous basis.
* Algorithm1: the whole of Algorithm 1, Variant I vs Variant II.
* ExactVsHeuristic: Algorithm 1 + MILP vs DAKS on a small instance, with the objectives tracked.
"""

from __future__ import annotations

import time
from typing import ClassVar

import numpy as np

from svmopt._shared.highs import merge_options
from svmopt.ramp.bounds import BoundingLP, algorithm1, tighten_bound
from svmopt.ramp.daks import DAKSParams, daks
from svmopt.ramp.model import build_rlfs
from svmopt.ramp.solve import solve_rlfs_mip


def _problem(n, d=10, seed=0, flip=0.08):
    rng = np.random.default_rng(seed)
    y = np.where(rng.random(n) < 0.45, 1.0, -1.0)
    X = rng.normal(size=(n, d))
    X[:, :3] += 0.9 * y[:, None]
    flips = rng.choice(n, max(1, int(flip * n)), replace=False)
    y[flips] = -y[flips]
    return X, y


def _bounds(X, y, C, B):
    """Algorithm 1 up to line 6 (UB, UB_w, LB_b/UB_b): the state a Variant-I sweep starts from."""
    bm, _ = algorithm1(X, y, C, B, variant="variant1", max_iter=0)
    return bm


def sweep_shared(X, y, C, B, bm, warm_start=False):
    """One Variant-I sweep on one model: build once, then change costs / one coefficient per solve."""
    lp = BoundingLP(X, y, C, B, bm.M, bm.ub, bm.ub, True, None, time.perf_counter() + 3600)
    lp.warm_start = warm_start
    lp.set_u(bm.u)
    lp.set_b_bounds(bm.lb_b, bm.ub_b)
    L = lp.L
    Yx = y[:, None] * X
    idx = np.concatenate([np.arange(2 * L.m), [L.b], [0]])
    for i in range(X.shape[0]):
        idx[-1] = L.xi0 + i
        v = lp.optimum(idx, np.concatenate([-Yx[i], Yx[i], [-y[i]], [-1.0]]), maximize=True)
        lp.set_m(i, tighten_bound(lp.M[i], 1.0 + v))
    return lp.M


def sweep_rebuild(X, y, C, B, bm):
    """The naive baseline: a fresh (vectorised) build and passModel of the bounding LP for every point."""
    M = bm.M.copy()
    Yx = y[:, None] * X
    for i in range(X.shape[0]):
        built = build_rlfs(X, y, C, M=M, U=bm.u, budget=B, ub_w=bm.u, b_bounds=(bm.lb_b, bm.ub_b),
                              cutoff=bm.ub + 1e-9 * max(1.0, bm.ub), scaled_v=True, int_z=False, int_v=False)
        L = built.layout
        cost = np.zeros(L.n_cols)
        cost[:L.m], cost[L.m:2 * L.m], cost[L.b], cost[L.xi0 + i] = Yx[i], -Yx[i], y[i], 1.0
        res = built.model(merge_options(None), cost=cost).solve()
        M[i] = tighten_bound(M[i], 1.0 - res.objective)
    return M


class BigMSweep:
    params: ClassVar = [60, 150]
    param_names: ClassVar = ["n"]
    timeout = 300

    def setup(self, n):
        self.X, self.y = _problem(n)
        self.bm = _bounds(self.X, self.y, 1.0, 3)

    def time_shared_model(self, n):
        sweep_shared(self.X, self.y, 1.0, 3, self.bm)

    def time_shared_model_warm(self, n):
        sweep_shared(self.X, self.y, 1.0, 3, self.bm, warm_start=True)

    def time_rebuild_per_point(self, n):
        sweep_rebuild(self.X, self.y, 1.0, 3, self.bm)


class Algorithm1:
    params: ClassVar = (["variant1", "variant2"],)
    param_names: ClassVar = ["variant"]
    timeout = 300

    def setup(self, variant):
        self.X, self.y = _problem(100)

    def time_algorithm1(self, variant):
        algorithm1(self.X, self.y, 1.0, 3, variant=variant, max_iter=5)

    def track_mean_M(self, variant):
        bm, _ = algorithm1(self.X, self.y, 1.0, 3, variant=variant, max_iter=5)
        return float(bm.M.mean())


class ExactVsHeuristic:
    params: ClassVar = (["exact", "heuristic"],)
    param_names: ClassVar = ["method"]
    timeout = 300

    def setup(self, method):
        self.X, self.y = _problem(40, d=8, seed=1)

    def _fit(self, method):
        if method == "exact":
            bm, sol = algorithm1(self.X, self.y, 1.0, 3, variant="variant1")
            return solve_rlfs_mip(self.X, self.y, 1.0, 3, bm, start=sol, time_limit=120).solution
        return daks(self.X, self.y, 1.0, 3, params=DAKSParams(time_limit=120)).solution

    def time_fit(self, method):
        self._fit(method)

    def track_objective(self, method):
        return self._fit(method).objective


class CCCPvsDAKS:
    """RampLossSVC's CCCP (local, cutting planes) vs DAKS (kernel search, ``max_time`` 20 s) at n = 2000, d = 20,
    B = 5, C = 1 on noisy synthetic data, and the l1-SVM (L1SVC, C = 1) by cutting planes vs the whole LP handed to
    HiGHS at n = 20,000, d = 20. The ``track_*`` methods return each method's ramp-loss objective and their ratio
    DAKS / CCCP, so the comparison is read from one run."""

    timeout = 600

    def setup(self):
        self.X, self.y = _problem(2000, d=20, seed=2, flip=0.1)
        self.Xl, self.yl = _problem(20_000, d=20, seed=3, flip=0.1)

    def _ramp(self, method):
        from svmopt import RampLossSVC

        kw = {"max_time": 20.0} if method == "heuristic" else {}
        return RampLossSVC(C=1.0, budget=5, method=method, random_state=0, **kw).fit(self.X, self.y)

    def _objective(self, method):
        from svmopt.ramp.ramp_loss import ramp_loss_objective

        m = self._ramp(method)
        return ramp_loss_objective(self.X, self.y, m.coef_, float(np.ravel(m.intercept_)[0]), 1.0)

    def time_ramp_cccp(self):
        self._ramp("cccp")

    def time_ramp_daks(self):
        self._ramp("heuristic")

    def track_objective_cccp(self):
        return self._objective("cccp")

    def track_objective_daks(self):
        return self._objective("heuristic")

    def track_objective_ratio_daks_over_cccp(self):
        return self._objective("heuristic") / self._objective("cccp")

    def time_l1svc_cutting_plane(self):
        from svmopt import L1SVC

        L1SVC(C=1.0, solver="cutting_plane").fit(self.Xl, self.yl)

    def time_l1svc_lp(self):
        from svmopt import L1SVC

        L1SVC(C=1.0, solver="lp").fit(self.Xl, self.yl)
