"""An interior-point solver of the reduced robust LP (RobustSVC's reduced model), certified by a dual point.

The LP (paper 000's (23) over L landmarks; :mod:`svmopt._robust_reduced`) in standard form, v = p - q:

    min  1'(p + q) + sum_i C_i xi_i                                  C_i = nu w_i
    s.t. a_i'(p, q, gamma) + xi_i - s_i = 1,   p, q, xi, s >= 0,     a_i'(p, q, gamma) = y_i (Phi_i (p - q) - gamma)
                                                                                       - delta_i r'(p + q)
and its dual  max sum_i lambda_i  s.t.  0 <= lambda <= C,  sum_i y_i lambda_i = 0,
|g_j| - r_j e <= 1 for every j (g = Phi'(lambda o y), e = delta'lambda).

Mehrotra's predictor-corrector primal-dual method (Nocedal & Wright, Numerical Optimization, 2nd ed., Algorithm
14.3), with the per-row variables (xi_i, s_i, lambda_i) eliminated: each Newton system is the (2L + 1)-square

    M = A' Theta A + diag(z / x, 0),   Theta_i = 1 / (xi_i / (C_i - lambda_i) + s_i / lambda_i),

and A' Theta A = P' G P with G = sum_i Theta_i u_i u_i' over u_i = (Phi_i, 1, y_i delta_i): one weighted dsyrk over
the n rows, the same n L^2 flops as the fixed-size LS-SVM's Phi'Phi. An iteration reads the data four times
(``_core.robust.reduced_normal_pass``, the kernel rows computed block by block or read from a cache): G with the
predictor's right-hand side; the predictor's row steps; the corrector's right-hand side (its second-order term is
per row); the corrector's row steps. Memory beyond the input: a few n-vectors and O(block x L).

Every iteration is certified, as the cutting planes are: the objective at (v, gamma) with xi the hinge is an upper
bound; the current lambda, scaled per class so that sum y_i lambda_i = 0 and then as a whole so that
max_j |g_j| - r_j e <= 1, is dual feasible, and its sum a lower bound. The solve stops when their relative gap is
at most ``tol``.
"""

from __future__ import annotations

import sys
import time
from typing import Any

import numpy as np
import scipy.linalg

from svmopt import _core
from svmopt._cutting_plane import CutSolution, check_labels, check_nonnegative, check_nu, check_weight
from svmopt.exceptions import SolverError

__all__ = ["ReducedIPM"]

#: Step to this fraction of the distance to the boundary (Mehrotra's eta).
STEP = 0.995
#: Iterations past the certified gap spent, at most, to make the coefficients that the duals set to 0 exact zeros.
PURIFY_TRIES = 2


def _chunk_normal(xb, eb, tb, bb, V, Z, recipe, with_F):
    """One chunk's part of a pass (on the worker that holds it)."""
    from svmopt.distributed import _params_from_recipe

    F = np.empty((xb.shape[0], V.shape[1])) if with_F else None
    G, H = _core.robust.reduced_normal_pass(X=np.asarray(xb, dtype=np.float64), Z=Z, params=_params_from_recipe(recipe),
                                            extra=eb, theta=tb, B=bb, V=V, F_out=F)
    return (G, H), F


def _add_optional(*parts):
    """Add up the chunks' (G, H) elementwise (an entry left out is None in every part)."""
    return tuple(None if xs[0] is None else sum(xs[1:], np.array(xs[0], copy=True)) for xs in zip(*parts, strict=True))


class ReducedIPM:
    """The reduced robust LP by a primal-dual interior-point method.

    Parameters as :class:`svmopt._cutting_plane.HingeCuttingPlanes`: the kernel rows ``Phi`` (n x L in memory), or
    ``X``, ``Z`` and ``params`` to compute them block by block (``X`` an array, a float64 ``np.memmap`` or a Dask
    array); ``r`` (L) the landmarks' sqrt k(z_j, z_j); ``delta`` (n) the robust term's factors (None: the
    deterministic model); ``weight`` (n) > 0 the sample weights.
    """

    def __init__(self, y: np.ndarray, r: np.ndarray, *, Phi: Any = None, X: Any = None, Z: np.ndarray | None = None,
                 params: _core.kernels.KernelParams | None = None, delta: np.ndarray | None = None,
                 weight: np.ndarray | None = None, n_threads: int = 0, block: int = 4096):
        from svmopt.distributed import check_dask_array, is_dask_array

        if Phi is not None and (X is not None or Z is not None or params is not None):
            raise ValueError("give Phi, or X, Z and params, not both")
        if Phi is None and (X is None or Z is None or params is None):
            raise ValueError("give Phi, or X, Z and params")
        rows = Phi if Phi is not None else X
        self._dask = is_dask_array(rows)
        if self._dask and Phi is not None:
            raise ValueError("Phi must be in memory; give a Dask array as X with Z and params")
        if isinstance(rows, np.memmap) and rows.dtype != np.float64:
            raise ValueError(f"the rows are a {rows.dtype} memmap: the passes read float64 rows in place, and "
                             "converting them would load them into memory; store them as float64")
        rows = check_dask_array(rows) if self._dask else np.asarray(rows, dtype=np.float64)
        self.n = n = rows.shape[0]
        self._rows: dict[str, Any] = {"Phi": rows} if Phi is not None else {
            "X": rows, "Z": np.ascontiguousarray(Z, dtype=np.float64), "params": params}
        self.L = L = rows.shape[1] if Phi is not None else self._rows["Z"].shape[0]
        self.r = np.ascontiguousarray(r, dtype=np.float64)
        if self.r.shape != (L,) or not np.all(np.isfinite(self.r)) or np.any(self.r < 0):
            raise ValueError(f"r must hold one value per landmark ({L}), each finite and >= 0")
        self.y = check_labels(y, n)
        self.delta = check_nonnegative(delta, n, "delta")
        if self.delta is not None and not np.any(self.delta > 0):
            self.delta = None
        self.weight = check_weight(weight, n)
        self.n_threads, self.block = int(n_threads), int(block)
        # u_i = (Phi_i, 1, y_i delta_i): the last column only with a robust term.
        self._extra = None if self.delta is None else np.ascontiguousarray(self.y * self.delta)
        self.p = L + 1 + (self._extra is not None)
        self.n_passes = 0

    # -- the passes ---------------------------------------------------------------------------------------------
    def _pass(self, theta: np.ndarray | None = None, B: np.ndarray | None = None,
              V: np.ndarray | None = None) -> tuple[np.ndarray | None, np.ndarray | None, np.ndarray | None]:
        """G = sum_i theta_i u_i u_i' (with theta), H = U'B (with B, n x k), F = U V (with V, p x k)."""
        self.n_passes += 1
        B = None if B is None else np.ascontiguousarray(B)
        V = None if V is None else np.ascontiguousarray(V)
        if self._dask:
            return self._dask_pass(theta, B, V)
        F = None if V is None else np.empty((self.n, V.shape[1]))
        G, H = _core.robust.reduced_normal_pass(extra=self._extra, theta=theta, B=B, V=V, F_out=F,
                                                n_threads=self.n_threads, block=self.block, **self._rows)
        return G, H, F

    def _dask_pass(self, theta, B, V):
        import dask
        from dask import delayed

        from svmopt.distributed import _params_recipe, _tree_reduce

        X, Z = self._rows["X"], self._rows["Z"]
        recipe = _params_recipe(self._rows["params"])
        parts, r0 = [], 0
        for xb, nb in zip(X.to_delayed().ravel(), X.chunks[0], strict=True):
            sl = slice(r0, r0 + nb)
            parts.append(delayed(_chunk_normal, nout=2, pure=True)(
                xb, None if self._extra is None else self._extra[sl], None if theta is None else theta[sl],
                None if B is None else B[sl], V, Z, recipe, V is not None))
            r0 += nb

        sums = _tree_reduce([p[0] for p in parts], _add_optional)
        (G, H), Fs = dask.compute(sums, [p[1] for p in parts])
        return G, H, None if V is None else np.concatenate(Fs)

    # -- the LP's pieces ----------------------------------------------------------------------------------------
    def _P(self) -> np.ndarray:
        """The map from u-coordinates to the columns (p, q, gamma): a_i = y_i P' u_i."""
        L, p = self.L, self.p
        P = np.zeros((p, 2 * L + 1))
        P[np.arange(L), np.arange(L)] = 1.0
        P[np.arange(L), L + np.arange(L)] = -1.0
        P[L, 2 * L] = -1.0
        if self._extra is not None:
            P[L + 1, :2 * L] = -np.tile(self.r, 2)
        return P

    def _to_u(self, dp: np.ndarray, dq: np.ndarray, dg: float) -> np.ndarray:
        """The u-coordinates of a step (dp, dq, dg): U times this is y o (A step)."""
        head = [dp - dq, [-dg]]
        if self._extra is not None:
            head.append([-(self.r @ (dp + dq))])
        return np.concatenate(head)

    def _certify(self, v: np.ndarray, gamma: float, f: np.ndarray, lam: np.ndarray, H: np.ndarray,
                 C: np.ndarray) -> tuple[float, float]:
        """(upper, lower) bounds: the objective at (v, gamma) and the dual value at the scaled lambda. H holds
        U'(lambda on the positive rows) and U'(lambda on the negative rows) as its two columns."""
        y, L = self.y, self.L
        av = np.abs(v)
        margin = y * (f - gamma)
        if self.delta is not None:
            margin -= self.delta * float(self.r @ av)
        upper = float(av.sum() + C @ np.maximum(0.0, 1.0 - margin))
        s_pos, s_neg = float(H[L, 0]), float(H[L, 1])  # sum of lambda per class
        k_pos = min(1.0, s_neg / s_pos) if s_pos > 0 else 0.0
        k_neg = min(1.0, s_pos / s_neg) if s_neg > 0 else 0.0
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
        _, _, F = self._pass(V=V)
        assert F is not None
        av = np.abs(v0)
        margin = self.y * (F[:, 0] - gamma)
        if self.delta is not None:
            margin -= self.delta * float(self.r @ av)
        upper0 = float(av.sum() + C @ np.maximum(0.0, 1.0 - margin))
        if (upper0 - lower) / max(1.0, abs(upper0)) <= tol:
            return upper0, v0, gamma, F[:, 0]
        return best

    # -- the solve ----------------------------------------------------------------------------------------------
    def solve(self, nu: float, *, tol: float = 1e-6, max_iter: int = 100, deadline: float | None = None,
              verbose: bool = False) -> CutSolution:
        """The LP at C = ``nu`` (times the weights) from a cold start, until the certified relative gap
        (upper - lower) / max(1, |upper|) is at most ``tol`` or ``max_iter`` iterations or the
        ``time.perf_counter()`` ``deadline`` pass (the best certified bounds are then returned, ``timed_out`` set
        on a deadline)."""
        nu = check_nu(nu)
        if not tol >= 0 or int(max_iter) < 1:
            raise ValueError(f"tol must be >= 0 and max_iter >= 1, got tol={tol!r}, max_iter={max_iter!r}")
        n, L, y, r = self.n, self.L, self.y, self.r
        C = np.full(n, nu) if self.weight is None else nu * self.weight
        dl = np.zeros(n) if self.delta is None else self.delta
        P = self._P()
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
        for it in range(int(max_iter) + 1):
            theta = 1.0 / (xi / u + s / lam)
            kappa = 1.0 / lam - 1.0 / u  # the centring term's per-row factor
            # Pass 1: G, the predictor's and the centring's right-hand sides, the certificate's dual sums, f = Phi v.
            B1 = np.column_stack([theta * (1.0 - ax) * y, theta * kappa * y, lam * pos, lam * (1.0 - pos)])
            V1 = np.zeros((self.p, 1))
            V1[:L, 0] = xp - xq
            G, H, F = self._pass(theta, B1, V1)
            assert G is not None and H is not None and F is not None
            v = xp - xq
            upper, lo = self._certify(v, gam, F[:, 0], lam, H[:, 2:4], C)
            lower = max(lower, lo)
            best_now = best is None or upper < best[0]
            if best is None or best_now:
                best = (upper, v.copy(), gam, F[:, 0].copy())
            history.append((best[0], lower))
            gap = max(0.0, (best[0] - lower) / max(1.0, abs(best[0])))
            if verbose:
                print(f"ipm {it:3d}: upper {upper:.10g} lower {lower:.10g} gap {gap:.3e} steps {steps[0]:.3f} "
                      f"{steps[1]:.3f}", file=sys.stderr)
            if gap <= tol and best_now:
                # Exact zeros where the duals say so (_purify); failing that, up to PURIFY_TRIES more iterations,
                # which sharpen both the gap and the duals' verdict.
                assert best is not None
                purified = self._purify(best, (zp > xp) & (zq > xq), lower, tol, C)
                if purified is not best or tries >= PURIFY_TRIES:
                    best = purified
                    break
                tries += 1
            elif gap <= tol:
                break
            if it == max_iter:
                break
            if deadline is not None and time.perf_counter() >= deadline:
                timed_out = True
                break
            mu = (xp @ zp + xq @ zq + xi @ u + s @ lam) / nvar
            # The Newton matrix M = P' G P + diag(z / x, 0) and its Cholesky factor.
            M = P.T @ G @ P
            M[np.arange(2 * L), np.arange(2 * L)] += np.concatenate([zp / xp, zq / xq])
            factor = _cholesky(M)
            # Dual residuals: A_pq' lambda + z = 1, A_gamma' lambda = 0; A' lambda = y-free: P' U'(lambda o y).
            atl = P.T @ (H[:, 2] - H[:, 3])
            rd = np.concatenate([1.0 - atl[:L] - zp, 1.0 - atl[L:2 * L] - zq])
            # The right-hand side: A' Theta rho + [r_xz / x - r_d; A_gamma' lambda], per part.
            h_aff = P.T @ H[:, 0] + np.concatenate([-np.concatenate([zp, zq]) - rd, [atl[2 * L]]])
            h_cen = P.T @ H[:, 1] + np.concatenate([1.0 / xp, 1.0 / xq, [0.0]])
            d_aff = scipy.linalg.cho_solve(factor, h_aff)
            d_cen = scipy.linalg.cho_solve(factor, h_cen)
            # Pass 2: the rows' steps A d for both.
            _, _, F2 = self._pass(V=np.column_stack([self._to_u(d_aff[:L], d_aff[L:2 * L], d_aff[2 * L]),
                                                     self._to_u(d_cen[:L], d_cen[L:2 * L], d_cen[2 * L])]))
            assert F2 is not None
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
            # The corrector's second-order term, per row and per coordinate.
            eta_row = (dxi_a * -dl_a) / u - (ds_a * dl_a) / lam  # rho's part of -r_xiu / u + r_slam / lam
            eta_x = np.concatenate([-dp_a * dzp_a / xp, -dq_a * dzq_a / xq, [0.0]])
            # Pass 3: its right-hand side A' Theta eta; pass 4: its row steps.
            _, H3, _ = self._pass(B=(theta * eta_row * y)[:, None])
            assert H3 is not None
            d_nl = scipy.linalg.cho_solve(factor, P.T @ H3[:, 0] + eta_x)
            _, _, F4 = self._pass(V=self._to_u(d_nl[:L], d_nl[L:2 * L], d_nl[2 * L])[:, None])
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
        sol = CutSolution(v=v, gamma=gamma, nu=nu, objective=upper, lower_bound=lower,
                          n_iter=self.n_passes - passes0, scores=f, history=history, timed_out=timed_out)
        return sol


def _max_step(x: np.ndarray, dx: np.ndarray) -> float:
    """The largest alpha <= 1 with x + alpha dx >= 0 (x > 0)."""
    neg = dx < 0
    if not neg.any():
        return 1.0
    return float(min(1.0, np.min(-x[neg] / dx[neg])))


def _cholesky(M: np.ndarray) -> tuple[np.ndarray, bool]:
    """M's Cholesky factor; as the iterates near the optimum M grows ill-conditioned, and a factorisation that fails
    is retried with a diagonal shift growing from 1e-14 times M's largest diagonal entry."""
    try:
        return scipy.linalg.cho_factor(M, lower=True, check_finite=False)
    except np.linalg.LinAlgError:
        pass
    scale = float(np.max(np.abs(np.diag(M)))) or 1.0
    for k in range(-14, -5):
        try:
            return scipy.linalg.cho_factor(M + 10.0 ** k * scale * np.eye(M.shape[0]), lower=True, check_finite=False)
        except np.linalg.LinAlgError:
            continue
    raise SolverError("the interior-point Newton matrix is not positive definite: the reduced LP is too "
                      "ill-conditioned for this solver; use solver='cutting_plane'")

