"""An interior-point solver of the reduced robust LP (RobustSVC's reduced model), certified by a dual point.

The LP (paper 000's (23) over L landmarks; :mod:`svmopt.robust.reduced`) in standard form, v = p - q:

    min  1'(p + q) + sum_i C_i xi_i                                  C_i = nu w_i
    s.t. a_i'(p, q, gamma) + xi_i - s_i = 1,   p, q, xi, s >= 0,     a_i'(p, q, gamma) = y_i (Phi_i (p - q) - gamma)
                                                                                       - delta_i r'(p + q)
and its dual  max sum_i lambda_i  s.t.  0 <= lambda <= C,  sum_i y_i lambda_i = 0,
|g_j| - r_j e <= 1 for every j (g = Phi'(lambda o y), e = delta'lambda).

Mehrotra's predictor-corrector primal-dual method (Nocedal & Wright, Numerical Optimization, 2nd ed., Algorithm
14.3), with the per-row variables (xi_i, s_i, lambda_i) eliminated: each Newton system is (2L + 1)-square,

    M = A' Theta A + diag(z / x, 0),   Theta_i = 1 / (xi_i / (C_i - lambda_i) + s_i / lambda_i),

and A' Theta A = P' G P with G = sum_i Theta_i u_i u_i' over u_i = (Phi_i, 1, y_i delta_i): one weighted dsyrk over
the n rows, the same n L^2 flops as the fixed-size LS-SVM's Phi'Phi. The system itself is solved in the
(L + 1)- (or L + 2-) square u-coordinates (:class:`NewtonSystem`). An iteration reads the data three times
(``_core.robust.reduced_normal_pass``, the kernel rows computed block by block or read from a cache): G with the
predictor's right-hand side; the predictor's row steps together with the corrector's right-hand side (its
second-order term is quadratic in each row's own predictor step); the corrector's row steps. Memory beyond the
input: about 50 n-vectors and O(block x L).

The method stops short of ``tol`` when the iterates reach the limits of double precision (a complementarity mu
below 1e-14 of the start's, a weight theta_i above 1e100, or no better certified gap in STALL_ITERS iterations
with mu below 1e-6 of the start's or not falling; see STALL_ITERS):
with nearly dependent kernel rows of large magnitude (a linear or polynomial kernel over more landmarks than the
feature space has dimensions) the certified gap can stall near 1e-5. The best certified point is returned, with
``stalled`` set.

Every iteration is certified, as the cutting planes are: the objective at (v, gamma) with xi the hinge is an upper
bound; the current lambda, scaled per class so that sum y_i lambda_i = 0 and then as a whole so that
max_j |g_j| - r_j e <= 1, is dual feasible, and its sum a lower bound. The solve stops when their relative gap is
at most ``tol``.
"""

from __future__ import annotations

import contextlib
import sys
import time
from typing import Any

import numpy as np
from scipy.linalg import lapack

from svmopt import _core
from svmopt._shared.cutting_plane import (
    CutSolution,
    OnIteration,
    check_labels,
    check_nonnegative,
    check_nu,
    check_weight,
    class_balance,
    row_source,
)
from svmopt._shared.dask import params_from_recipe, params_recipe, tree_reduce
from svmopt._shared.runtime import blas_controller
from svmopt.exceptions import SolverError

#: Step to this fraction of the distance to the boundary (Mehrotra's eta).
STEP = 0.995
#: A Newton matrix of fewer flops (n p^2) is formed on one BLAS thread, and so is the whole solve...
ONE_THREAD_WORK = 2**31
#: ...except the Newton matrix's dsyrk from this many flops on: it alone gets every BLAS thread (at 5,000 x 302,
#: 7.4 ms on 2 threads against 10.6 ms on one; below about 10^8 flops two threads gain nothing).
HEAVY_THREADS_WORK = 10**8
#: The solve stops, stalled, when its certified gap has not improved in STALL_ITERS iterations and mu is either
#: below STALL_MU times the start's (the limits of precision) or above half its value at the gap's last improvement
#: (no progress); when the gap has not improved in 4 STALL_ITERS iterations at all; when mu grows to MU_GROWTH times
#: its smallest value (diverging iterates, as on an unscaled polynomial kernel at C = 1e4); when mu falls below
#: MU_FLOOR times the start's; or when a weight theta_i exceeds THETA_MAX (beyond, theta^2 overflows the corrector's
#: right-hand side). Early on, the objective at the iterate can stay above the start's for several iterations while
#: mu falls (a robust LP at 2,000 x 300 did for 5, at mu = 3e-2 mu0): no stall; the stall at the limits of precision
#: in the tests comes at mu below 1e-10 mu0.
STALL_ITERS = 5
STALL_MU = 1e-6
MU_GROWTH = 1e3
MU_FLOOR = 1e-14
THETA_MAX = 1e100
#: Iterations past the certified gap spent, at most, to make the coefficients that the duals set to 0 exact zeros.
PURIFY_TRIES = 2


def _chunk_normal(xb, eb, tb, bb, V, qb, Z, recipe):
    """One chunk's part of a pass (on the worker that holds it): ((G, H, Hq), F)."""
    F = None if V is None else np.empty((xb.shape[0], V.shape[1]))
    out = _core.robust.reduced_normal_pass(X=np.asarray(xb, dtype=np.float64), Z=Z, params=params_from_recipe(recipe),
                                           extra=eb, theta=tb, B=bb, V=V, F_out=F, Q=qb)
    return (*out, None)[:3], F


def _add_optional(*parts):
    """Add up the chunks' (G, H) elementwise (an entry left out is None in every part)."""
    return tuple(None if xs[0] is None else sum(xs[1:], np.array(xs[0], copy=True)) for xs in zip(*parts, strict=True))


class ReducedIPM:
    """The reduced robust LP by a primal-dual interior-point method.

    Parameters as :class:`svmopt._shared.cutting_plane.HingeCuttingPlanes`: the kernel rows ``Phi`` (n x L in
    memory), or ``X``, ``Z`` and ``params`` to compute them block by block (``X`` an array, a float64 ``np.memmap`` or
    a Dask array); ``r`` (L) the landmarks' sqrt k(z_j, z_j); ``delta`` (n) the robust term's factors (None: the
    deterministic model); ``weight`` (n) > 0 the sample weights. ``cache_rows``: with ``X`` in memory or a memmap,
    the kernel rows of the first this many rows are computed once and kept (cache_rows x L floats), the others
    computed at every pass: a budget too small for all n x L still saves its share of the kernel evaluations.
    ``row_blocks`` (instead of ``Phi`` or ``X``): kernel rows computed a block at a time, an object with ``shape``
    (n, L), ``rows(start, stop)`` and ``blocks(start)`` (:class:`svmopt.robust.sparse.SparseKernelRows`, a sparse
    X's), ``cache_rows`` of them kept as above.
    """

    def __init__(self, y: np.ndarray, r: np.ndarray, *, Phi: Any = None, X: Any = None, Z: np.ndarray | None = None,
                 params: _core.kernels.KernelParams | None = None, delta: np.ndarray | None = None,
                 weight: np.ndarray | None = None, n_threads: int = 0, block: int = 4096, cache_rows: int = 0,
                 row_blocks: Any = None):
        if row_blocks is not None:  # kernel rows computed block by block (a sparse X's: svmopt.robust.sparse)
            if any(a is not None for a in (Phi, X, Z, params)):
                raise ValueError("give row_blocks, or Phi, or X, Z and params")
            self._rows, self._dask, (n, L) = {"blocks": row_blocks}, False, row_blocks.shape
        else:
            self._rows, self._dask, n, L = row_source(Phi, X, Z, params)
        if self._dask and Phi is not None:
            raise ValueError("Phi must be in memory; give a Dask array as X with Z and params")
        self.n, self.L = n, L
        self.r = np.ascontiguousarray(r, dtype=np.float64)
        if self.r.shape != (L,) or not np.all(np.isfinite(self.r)) or np.any(self.r < 0):
            raise ValueError(f"r must hold one value per landmark ({L}), each finite and >= 0")
        self.y = check_labels(y, n)
        self.delta = check_nonnegative(delta, n, "delta")
        if self.delta is not None and not (np.any(self.delta > 0) and np.any(self.r > 0)):
            self.delta = None  # delta_i r'|v| = 0 for every v: the deterministic LP
        self.weight = check_weight(weight, n)
        self.n_threads, self.block = int(n_threads), int(block)
        # u_i = (Phi_i, 1, y_i delta_i): the last column only with a robust term.
        self._extra = None if self.delta is None else np.ascontiguousarray(self.y * self.delta)
        self.p = L + 1 + (self._extra is not None)
        self.n_passes = 0
        self._heavy_threads = 0  # set by solve: the BLAS threads of the Newton matrix's pass (0: as they are)
        self._one_thread = False  # set by solve: the whole solve runs on one BLAS thread
        self.cache_rows = 0 if Phi is not None or self._dask else min(max(int(cache_rows), 0), n)
        self._cache: np.ndarray | None = None

    # -- the passes ---------------------------------------------------------------------------------------------
    def _pass(self, theta: np.ndarray | None = None, B: np.ndarray | None = None, V: np.ndarray | None = None,
              Q: np.ndarray | None = None) -> tuple[Any, Any, Any, Any]:
        """(G, H, F, Hq): G = sum_i theta_i u_i u_i' (with theta), H = U'B (with B, n x k), F = U V (with V, p x k),
        Hq = U'b with b_i = g_i e_i (1 + k_i e_i), e_i = h_i - F_i0 (with Q = [g, h, k], n x 3, and V)."""
        try:
            return self._checked_pass(theta, B, V, Q)
        except ValueError as exc:
            # The pass checks the iterates it is given: a non-finite one is an overflow of the iterations (inputs
            # of extreme magnitude: nu or weights near 1e200, a robust term far above the kernel values), not a bad
            # argument of the caller's.
            if any(f"{name} must be finite" in str(exc) for name in ("theta", "B", "V", "Q")):
                raise SolverError("the interior-point iterates overflowed float64 (the inputs' magnitudes: nu, the "
                                  "sample weights, the robust term or the kernel values); rescale them, or use "
                                  "solver='cutting_plane'") from exc
            raise

    def _checked_pass(self, theta, B, V, Q):
        self.n_passes += 1
        B = None if B is None else np.ascontiguousarray(B)
        V = None if V is None else np.ascontiguousarray(V)
        Q = None if Q is None else np.ascontiguousarray(Q)
        if self._dask:
            return self._dask_pass(theta, B, V, Q)
        F = None if V is None else np.empty((self.n, V.shape[1]))
        c = self.cache_rows
        if theta is not None and self._heavy_threads > 1:
            with blas_controller().limit(limits=self._heavy_threads, user_api="blas"):
                return self._memory_pass(theta, B, V, Q, F, c)
        return self._memory_pass(theta, B, V, Q, F, c)

    def _memory_pass(self, theta, B, V, Q, F, c):
        """:meth:`_pass` over rows in memory or a memmap (the kernel rows of the first ``c`` rows cached)."""
        if "blocks" in self._rows:
            return self._block_pass(theta, B, V, Q, F, c)
        if c == 0:
            out = _core.robust.reduced_normal_pass(extra=self._extra, theta=theta, B=B, V=V, F_out=F, Q=Q,
                                                   n_threads=self.n_threads, block=self.block, **self._rows)
            G, H, Hq = (*out, None)[:3]
            return G, H, F, Hq
        if self._cache is None:
            rows = self._rows
            self._cache = _core.kernels.cross(np.asarray(rows["X"][:c]), rows["Z"], rows["params"], self.n_threads)
        parts = []
        for sl, rows in ((slice(0, c), {"Phi": self._cache}), (slice(c, self.n), {**self._rows,
                                                                                  "X": self._rows["X"][c:]})):
            def cut(a: np.ndarray | None, sl: slice = sl) -> np.ndarray | None:
                return None if a is None else a[sl]

            out = _core.robust.reduced_normal_pass(extra=cut(self._extra), theta=cut(theta), B=cut(B), V=V,
                                                   F_out=cut(F), Q=cut(Q), n_threads=self.n_threads,
                                                   block=self.block, **rows)
            parts.append((*out, None)[:3])
        G, H, Hq = _add_optional(*parts)
        return G, H, F, Hq

    def _block_pass(self, theta, B, V, Q, F, c):
        """:meth:`_pass` over kernel rows computed a block at a time (``row_blocks``; the first ``c`` rows' kept)."""
        source = self._rows["blocks"]
        if c and self._cache is None:
            self._cache = source.rows(0, c)
        pieces = ([(slice(0, c), self._cache)] if c else []) + list(source.blocks(c))
        parts = []
        for sl, Phi in pieces:
            def cut(a: np.ndarray | None, sl: slice = sl) -> np.ndarray | None:
                return None if a is None else np.ascontiguousarray(a[sl])

            out = _core.robust.reduced_normal_pass(Phi=Phi, extra=cut(self._extra), theta=cut(theta), B=cut(B), V=V,
                                                   F_out=None if F is None else F[sl], Q=cut(Q),
                                                   n_threads=self.n_threads, block=self.block)
            parts.append((*out, None)[:3])
        G, H, Hq = _add_optional(*parts)
        return G, H, F, Hq

    def _dask_pass(self, theta, B, V, Q):
        import dask
        from dask import delayed

        X, Z = self._rows["X"], self._rows["Z"]
        recipe = params_recipe(self._rows["params"])
        parts, r0 = [], 0
        for xb, nb in zip(X.to_delayed().ravel(), X.chunks[0], strict=True):
            sl = slice(r0, r0 + nb)
            parts.append(delayed(_chunk_normal, nout=2, pure=True)(
                xb, None if self._extra is None else self._extra[sl], None if theta is None else theta[sl],
                None if B is None else B[sl], V, None if Q is None else Q[sl], Z, recipe))
            r0 += nb
        sums = tree_reduce([p[0] for p in parts], _add_optional)
        (G, H, Hq), Fs = dask.compute(sums, [p[1] for p in parts])
        return G, H, None if V is None else np.concatenate(Fs), Hq

    # -- the LP's pieces ----------------------------------------------------------------------------------------
    def _ET(self, h: np.ndarray) -> np.ndarray:
        """E'h for a u-coordinate vector h (p): the columns' (p, q, gamma) side of sum_i h-weighted rows, with
        a_i = y_i E'u_i, i.e. E(dp, dq, dg) = (dp - dq, -dg, -r'(dp + dq)) (the last with a robust term only)."""
        L = self.L
        hv = h[:L]
        he = float(h[L + 1]) if self._extra is not None else 0.0
        return np.concatenate([hv - self.r * he, -hv - self.r * he, [-h[L]]])

    def _objective(self, v: np.ndarray, gamma: float, f: np.ndarray, C: np.ndarray) -> float:
        """The LP's objective at (v, gamma) with xi the hinge, f = Phi v: an upper bound on its optimum."""
        av = np.abs(v)
        margin = self.y * (f - gamma)
        if self.delta is not None:
            margin -= self.delta * float(self.r @ av)
        return float(av.sum() + C @ np.maximum(0.0, 1.0 - margin))

    def _certify(self, v: np.ndarray, gamma: float, f: np.ndarray, lam: np.ndarray, H: np.ndarray,
                 C: np.ndarray) -> tuple[float, float]:
        """(upper, lower) bounds: the objective at (v, gamma) and the dual value at the scaled lambda. H holds
        U'(lambda on the positive rows) and U'(lambda on the negative rows) as its two columns."""
        L = self.L
        upper = self._objective(v, gamma, f, C)
        s_pos, s_neg = float(H[L, 0]), float(H[L, 1])  # sum of lambda per class
        k_pos, k_neg = class_balance(s_pos, s_neg)
        g = k_pos * H[:L, 0] - k_neg * H[:L, 1]
        e = 0.0 if self._extra is None else k_pos * H[L + 1, 0] - k_neg * H[L + 1, 1]  # sum lambda delta
        worst = float(np.max(np.abs(g) - self.r * e)) if L else 0.0
        t = 1.0 if worst <= 1.0 else 1.0 / worst
        return upper, t * (k_pos * s_pos + k_neg * s_neg)

    def _purify(self, best: tuple[float, np.ndarray, float, np.ndarray], zero: np.ndarray, lower: float, tol: float,
                C: np.ndarray) -> tuple[float, np.ndarray, float, np.ndarray]:
        """An interior point's v has no exact zeros: the coefficients whose both bound duals exceed their primal
        values (z_j > p_j and z_j > q_j, so v_j -> 0 at the optimum by complementarity) are set to 0 when the
        objective at the result stays within the certified gap ``tol`` (one more pass for its scores)."""
        v, gamma = best[1], best[2]
        if not np.any(zero & (v != 0.0)):
            return best
        v0 = np.where(zero, 0.0, v)
        V = np.zeros((self.p, 1))
        V[:self.L, 0] = v0
        _, _, F, _ = self._pass(V=V)
        assert F is not None
        upper0 = self._objective(v0, gamma, F[:, 0], C)
        if (upper0 - lower) / max(1.0, abs(upper0)) <= tol:
            return upper0, v0, gamma, F[:, 0]
        return best

    # -- the solve ----------------------------------------------------------------------------------------------
    def solve(self, nu: float, *, tol: float = 1e-6, max_iter: int = 100, deadline: float | None = None,
              verbose: bool = False, until_support: bool = False,
              on_iteration: OnIteration | None = None) -> CutSolution:
        """The LP at C = ``nu`` (times the weights) from a cold start, until the certified relative gap
        (upper - lower) / max(1, |upper|) is at most ``tol`` or ``max_iter`` iterations or the
        ``time.perf_counter()`` ``deadline`` pass, or the iterates reach the limits of double precision (the best
        certified bounds are then returned, with ``timed_out`` set on a deadline and ``stalled`` on a stall);
        ``until_support``: the deadline is not obeyed before the best point has a nonzero coefficient. ``verbose``
        prints each iteration's bounds and step lengths to stderr; ``on_iteration(iterations, upper, lower)`` is
        called with the certified bounds at every iterate (a progress bar's)."""
        # Below ONE_THREAD_WORK flops a Newton matrix, the whole solve on one BLAS thread: at 2,000 x 300 a
        # 2-thread BLAS made it 2.7x slower (0.92 s against 0.35 s) on a shared machine, its threads spinning
        # between calls that take a millisecond.
        # Between the two bounds only the pass that forms the Newton matrix runs on all the BLAS's threads (as many
        # as it had, at most n_threads): the rest of an iteration is many short calls, each of which would leave
        # the BLAS's threads spinning against the next. The BLAS's thread count is the process's: solves run at
        # once in threads of one process (a threading backend) set it for each other, as any threadpoolctl limit.
        work = self.n * self.p ** 2
        small = work < ONE_THREAD_WORK
        self._heavy_threads = 0
        self._one_thread = small
        if small and work >= HEAVY_THREADS_WORK:
            had = max((int(i["num_threads"]) for i in blas_controller().select(user_api="blas").info()), default=1)
            self._heavy_threads = min(had, self.n_threads) if self.n_threads > 0 else had
        try:
            with blas_controller().limit(limits=1, user_api="blas") if small else contextlib.nullcontext():
                return self._solve(nu, tol=tol, max_iter=max_iter, deadline=deadline, verbose=verbose,
                                   until_support=until_support, on_iteration=on_iteration)
        finally:
            self._heavy_threads = 0
            self._one_thread = False

    def _solve(self, nu: float, *, tol: float, max_iter: int, deadline: float | None,
               verbose: bool, until_support: bool = False,
               on_iteration: OnIteration | None = None) -> CutSolution:
        nu = check_nu(nu)
        if not tol >= 0 or int(max_iter) < 1:
            raise ValueError(f"tol must be >= 0 and max_iter >= 1, got tol={tol!r}, max_iter={max_iter!r}")
        n, L, y, r = self.n, self.L, self.y, self.r
        if n == 0:  # no rows: v = 0 and gamma = 0 are optimal, objective 0
            return CutSolution(v=np.zeros(L), gamma=0.0, nu=nu, objective=0.0, lower_bound=0.0, n_iter=0,
                               scores=np.zeros(0), history=[(0.0, 0.0)])
        C = np.full(n, nu) if self.weight is None else nu * self.weight
        dl = np.zeros(n) if self.delta is None else self.delta
        passes0 = self.n_passes
        # The start: v = 0 (p = q = 1), every row feasible (xi - s = 1 - a_i'x), lambda in the middle of its box.
        xp, xq, zp, zq, gam = np.ones(L), np.ones(L), np.ones(L), np.ones(L), 0.0
        lam, u = C / 2, C / 2
        ax = -dl * (2.0 * r.sum())
        xi = np.maximum(1.0 - ax, 0.0) + 1.0
        s = xi - (1.0 - ax)
        pos = (y > 0).astype(np.float64)
        best: tuple[float, np.ndarray, float, np.ndarray] | None = None
        lower, history, timed_out, steps, tries = -np.inf, [], False, (0.0, 0.0), 0
        nvar = 2 * L + 2 * n
        mu0 = (xp @ zp + xq @ zq + xi @ u + s @ lam) / nvar
        stalled, best_gap, since_best, mu_best, mu_min = "", np.inf, 0, mu0, mu0
        for it in range(int(max_iter) + 1):
            with np.errstate(over="ignore", divide="ignore", invalid="ignore"):
                theta = 1.0 / (xi / u + s / lam)
            if it > 0 and not (np.all(np.isfinite(theta)) and theta.max() <= THETA_MAX):
                stalled = f"a row weight theta_i beyond {THETA_MAX:g}: the limits of double precision"
                break
            kappa = 1.0 / lam - 1.0 / u  # the centring term's per-row factor
            # Pass 1: G, the predictor's and the centring's right-hand sides, the certificate's dual sums, f = Phi v.
            B1 = np.column_stack([theta * (1.0 - ax) * y, theta * kappa * y, lam * pos, lam * (1.0 - pos)])
            V1 = np.zeros((self.p, 1))
            V1[:L, 0] = xp - xq
            G, H, F, _ = self._pass(theta, B1, V1)
            assert G is not None and H is not None and F is not None
            v = xp - xq
            upper, lo = self._certify(v, gam, F[:, 0], lam, H[:, 2:4], C)
            lower = max(lower, lo)
            best_now = best is None or upper < best[0]
            if best is None or best_now:
                best = (upper, v.copy(), gam, F[:, 0].copy())
            history.append((best[0], lower))
            gap = max(0.0, (best[0] - lower) / max(1.0, abs(best[0])))
            since_best = 0 if gap < best_gap else since_best + 1
            best_gap = min(best_gap, gap)
            mu = (xp @ zp + xq @ zq + xi @ u + s @ lam) / nvar
            if since_best == 0:
                mu_best = mu
            mu_min = min(mu_min, mu)
            if on_iteration is not None:
                on_iteration(it, best[0], lower)
            if verbose:
                print(f"ipm {it:3d}: upper {upper:.10g} lower {lower:.10g} gap {gap:.3e} mu/mu0 {mu / mu0:.1e} steps "
                      f"{steps[0]:.3f} {steps[1]:.3f}", file=sys.stderr)
            if gap <= tol and best_now:
                # Exact zeros where the duals say so (_purify); failing that, up to PURIFY_TRIES more iterations,
                # which sharpen both the gap and the duals' verdict.
                assert best is not None
                zero = (zp > xp) & (zq > xq)
                if not np.any(zero & (best[1] != 0.0)):
                    break  # no coefficient that the duals set to 0: nothing to purify
                purified = self._purify(best, zero, lower, tol, C)
                if purified is not best or tries >= PURIFY_TRIES:
                    best = purified
                    history[-1] = (best[0], lower)
                    break
                tries += 1
            elif gap <= tol:
                break
            if it == max_iter:
                break
            if (deadline is not None and time.perf_counter() >= deadline
                    and not (until_support and not np.any(best[1] != 0.0))):
                timed_out = True
                break
            stalled = stall_reason_of(since_best, mu / mu0, mu / mu_best, mu / mu_min)
            if stalled:
                break
            # The Newton system M d = h, M = E'G E + diag(z / x, 0), solved in u-coordinates (NewtonSystem).
            newton = NewtonSystem(G, zp / xp, zq / xq, r, self._extra is not None, limit_threads=not self._one_thread)
            # Dual residuals: A_pq' lambda + z = 1, A_gamma' lambda = 0, with A' lambda = E' U'(lambda o y).
            atl = self._ET(H[:, 2] - H[:, 3])
            rd = np.concatenate([1.0 - atl[:L] - zp, 1.0 - atl[L:2 * L] - zq])
            # The right-hand side: A' Theta rho + [r_xz / x - r_d; A_gamma' lambda], per part.
            h_aff = self._ET(H[:, 0]) + np.concatenate([-np.concatenate([zp, zq]) - rd, [atl[2 * L]]])
            h_cen = self._ET(H[:, 1]) + np.concatenate([1.0 / xp, 1.0 / xq, [0.0]])
            d_aff, w_aff = newton.solve(h_aff)
            d_cen, w_cen = newton.solve(h_cen)
            # Pass 2: the rows' steps A d for both, and the corrector's right-hand side A' Theta eta, whose
            # second-order term eta_i is quadratic in row i's predictor step: theta_i y_i eta_i = g e (1 + k e),
            # e = y_i rho_i - F_i0 (Nocedal & Wright's (14.35) with the row variables eliminated).
            with np.errstate(over="ignore", invalid="ignore"):  # an overflow here: the pass raises SolverError
                Q = np.column_stack([theta, y * (1.0 - ax), y * (s / lam**2 - xi / u**2) * theta**2])
            _, _, F2, Hq = self._pass(V=np.column_stack([w_aff, w_cen]), Q=Q)
            assert F2 is not None and Hq is not None
            adx_aff, adx_cen = y * F2[:, 0], y * F2[:, 1]
            # The predictor (sigma = 0): row steps and step lengths.
            dl_a = theta * ((1.0 - ax) - adx_aff)
            dxi_a = (-xi * u + xi * dl_a) / u
            ds_a = (-s * lam - s * dl_a) / lam
            dp_a, dq_a = d_aff[:L], d_aff[L:2 * L]
            dzp_a, dzq_a = (-xp * zp - zp * dp_a) / xp, (-xq * zq - zq * dq_a) / xq
            ap = min(_max_step(xp, dp_a), _max_step(xq, dq_a), _max_step(xi, dxi_a), _max_step(s, ds_a))
            ad = min(_max_step(zp, dzp_a), _max_step(zq, dzq_a), _max_step(lam, dl_a), _max_step(u, -dl_a))
            mu_aff = ((xp + ap * dp_a) @ (zp + ad * dzp_a) + (xq + ap * dq_a) @ (zq + ad * dzq_a)
                      + (xi + ap * dxi_a) @ (u - ad * dl_a) + (s + ap * ds_a) @ (lam + ad * dl_a)) / nvar
            sm = (mu_aff / mu) ** 3 * mu
            eta_row = (dxi_a * -dl_a) / u - (ds_a * dl_a) / lam  # rho's part of -r_xiu / u + r_slam / lam
            eta_x = np.concatenate([-dp_a * dzp_a / xp, -dq_a * dzq_a / xq, [0.0]])
            # Pass 3: the corrector's row steps.
            d_nl, w_nl = newton.solve(self._ET(Hq) + eta_x)
            _, _, F4, _ = self._pass(V=w_nl[:, None])
            assert F4 is not None
            d = d_aff + sm * d_cen + d_nl
            adx = adx_aff + sm * adx_cen + y * F4[:, 0]
            rho = (1.0 - ax) + sm * kappa + eta_row
            dlam = theta * (rho - adx)
            r_xiu = sm - xi * u - dxi_a * (-dl_a)
            r_slam = sm - s * lam - ds_a * dl_a
            dxi = (r_xiu + xi * dlam) / u
            ds = (r_slam - s * dlam) / lam
            dp, dq = d[:L], d[L:2 * L]
            dzp = (sm - xp * zp - dp_a * dzp_a - zp * dp) / xp
            dzq = (sm - xq * zq - dq_a * dzq_a - zq * dq) / xq
            ap = STEP * min(_max_step(xp, dp), _max_step(xq, dq), _max_step(xi, dxi), _max_step(s, ds))
            ad = STEP * min(_max_step(zp, dzp), _max_step(zq, dzq), _max_step(lam, dlam), _max_step(u, -dlam))
            steps = (ap, ad)
            xp += ap * dp
            xq += ap * dq
            gam += ap * float(d[2 * L])
            xi += ap * dxi
            s += ap * ds
            ax += ap * adx
            zp += ad * dzp
            zq += ad * dzq
            lam += ad * dlam
            u -= ad * dlam
        assert best is not None
        upper, v, gamma, f = best
        if (upper - lower) / max(1.0, abs(upper)) <= tol:  # met during the purification's iterations
            timed_out, stalled = False, ""
        sol = CutSolution(v=v, gamma=gamma, nu=nu, objective=upper, lower_bound=lower,
                          n_iter=self.n_passes - passes0, scores=f, history=history, timed_out=timed_out,
                          stalled=bool(stalled) and not timed_out, stall_reason="" if timed_out else stalled)
        return sol


def stall_reason_of(since_best: int, to_start: float, to_best: float, to_min: float) -> str:
    """Why the solve stops short of its gap (STALL_ITERS), or "": ``since_best`` iterations without a better
    certified gap, and mu over its start's, over its value at the gap's last improvement and over its smallest."""
    if since_best >= STALL_ITERS and to_start < STALL_MU:
        return (f"no better certified gap in {since_best} iterations with the complementarity at {to_start:.1g} of "
                "the start's: the limits of double precision")
    if since_best >= STALL_ITERS and to_best > 0.5:
        return f"no better certified gap in {since_best} iterations and no progress of the complementarity"
    if since_best >= 4 * STALL_ITERS:
        return f"no better certified gap in {since_best} iterations"
    if to_min > MU_GROWTH:
        return f"the complementarity grew to {to_min:.1g} times its smallest value: diverging iterates"
    if not to_start >= MU_FLOOR:
        return f"the complementarity at {to_start:.1g} of the start's: the limits of double precision"
    return ""


def _max_step(x: np.ndarray, dx: np.ndarray) -> float:
    """The largest alpha <= 1 with x + alpha dx >= 0 (x > 0): 1 / max_i(-dx_i / x_i) where that exceeds 1 (two
    vector operations, no masks: this runs a dozen times an iteration)."""
    t = float(np.fmax.reduce(-dx / x)) if x.size else 0.0
    return 1.0 / t if t > 1.0 else 1.0


class NewtonSystem:
    """The Newton system M d = b of the iteration, M = E'G E + diag(Dp, Dq, 0) over d = (dp, dq, dg) (2L + 1), solved
    in the p = L + 1 (+ 1) u-coordinates w = E d: eliminating dp and dq leaves

        (G + blkdiag(K^-1, 0)) w = (K^-1 c, -b_gamma),   K = [[S, -T r], [-r'T, r'S r]]  on (v, e),

    S = 1/Dp + 1/Dq, T = 1/Dp - 1/Dq (diagonal; K is positive definite: its Schur complement is
    sum_j r_j^2 4 / (Dp_j Dq_j S_j)), c = (b_p/Dp - b_q/Dq, -r'(b_p/Dp + b_q/Dq)); then with g = G w,
    Dp dp = b_p - g_v + r g_e, Dq dq = b_q + g_v + r g_e, dp - dq = w_v and dg = -w_gamma. One Cholesky
    factorisation of a p-square matrix per iteration, where M itself is (2L + 1)-square."""

    def __init__(self, G: np.ndarray, Dp: np.ndarray, Dq: np.ndarray, r: np.ndarray, robust: bool,
                 limit_threads: bool = True):
        L = Dp.shape[0]
        self.G, self.Dp, self.Dq, self.r, self.robust, self.L = G, Dp, Dq, r, robust, L
        # In forms without cancellation (one of Dp_j, Dq_j may be 1e16 times the other): 1/S = Dp Dq / (Dp + Dq),
        # S^-1 T = (Dq - Dp) / (Dp + Dq), and the Schur complement sum_j r_j^2 4 / (Dp_j + Dq_j).
        Sinv = Dp * Dq / (Dp + Dq)
        N = G.copy()
        idx = np.arange(L)
        N[idx, idx] += Sinv
        if robust:
            # K^-1 by the block inverse: the v block S^-1 + a a' / schur, a = S^-1 T r; the e entry 1 / schur.
            a = r * (Dq - Dp) / (Dp + Dq)
            schur = 4.0 * float(r @ (r / (Dp + Dq)))  # > 0: with every r_j = 0 ReducedIPM drops the robust term
            self.Kinv = (a, schur)
            N[:L, :L] += np.outer(a, a) / schur
            N[:L, L + 1] += a / schur
            N[L + 1, :L] += a / schur
            N[L + 1, L + 1] += 1.0 / schur
        self.factor = _cholesky(N, limit_threads)

    def solve(self, b: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        """(d, w = E d) for the right-hand side b = (b_p, b_q, b_gamma)."""
        L, r, Dp, Dq = self.L, self.r, self.Dp, self.Dq
        bp, bq = b[:L], b[L:2 * L]
        rhs = np.empty(self.G.shape[0])
        # K^-1 c with the block inverse above, simplified so that no b / D is formed: S^-1 c_v =
        # (Dq b_p - Dp b_q) / (Dp + Dq) and a'c_v + c_e = -2 sum_j r_j (b_pj + b_qj) / (Dp_j + Dq_j).
        rhs[:L] = (Dq * bp - Dp * bq) / (Dp + Dq)
        if self.robust:
            a, schur = self.Kinv
            t = -2.0 * float(r @ ((bp + bq) / (Dp + Dq)))
            rhs[:L] += a * (t / schur)
            rhs[L + 1] = t / schur
        rhs[L] = -b[2 * L]
        w, _ = lapack.dpotrs(self.factor, rhs, lower=1)  # LAPACK directly: scipy's wrappers cost more than it
        # dp and dq from their sum Dp dp + Dq dq = b_p + b_q + 2 r g_e and their difference w_v: dividing by
        # Dp + Dq, not by Dp or Dq alone, which near the optimum is tiny for one of the two (z_j -> 0 where x_j > 0).
        ge = float(self.G[L + 1] @ w) if self.robust else 0.0
        dp = (b[:L] + b[L:2 * L] + 2.0 * r * ge + Dq * w[:L]) / (Dp + Dq)
        d = np.concatenate([dp, dp - w[:L], [-w[L]]])
        return d, w


def _cholesky(M: np.ndarray, limit_threads: bool = True) -> np.ndarray:
    """M's lower Cholesky factor (LAPACK's dpotrf, on one BLAS thread: the matrix is at most (L + 2)-square,
    milliseconds of work; ``limit_threads=False`` where the caller already runs on one). As the iterates near the
    optimum M grows ill-conditioned, and a factorisation that fails is retried with a diagonal shift growing from
    1e-14 times M's largest diagonal entry."""
    with blas_controller().limit(limits=1, user_api="blas") if limit_threads else contextlib.nullcontext():
        c, info = lapack.dpotrf(M, lower=1)
        if info == 0:
            return c
        scale = float(np.max(np.abs(np.diag(M)))) or 1.0
        for k in range(-14, -5):
            c, info = lapack.dpotrf(M + 10.0 ** k * scale * np.eye(M.shape[0]), lower=1)
            if info == 0:
                return c
    raise SolverError("the interior-point Newton matrix is not positive definite: the reduced LP is too "
                      "ill-conditioned for this solver; use solver='cutting_plane'")
