"""The interior-point solver of the reduced robust LP (svmopt.robust.ipm) and its pass over the data
(_core.robust.reduced_normal_pass), each checked against a reference it does not share code with:

* the pass against plain numpy (U = [Phi, 1, extra]; the kernel rows of the streamed source from a numpy kernel);
* :class:`ReducedIPM` against :func:`solve_direct` (HiGHS on the LP as it is): the objective, the certified lower
  bound and every bound of its history against the optimum, the support of v;
* the same solve from every source of the rows (Phi, X / Z / params, a memmap, a Dask array);
* through :class:`RobustSVC`: solver="ipm" against solver="lp", "auto"'s choice, the paper's LP recovered with every
  training point as a landmark, and the kernel rows streamed under a tight memory budget.
"""

from __future__ import annotations

import time

import numpy as np
import pytest

import svmopt
from svmopt import RobustSVC, _core
from svmopt._shared.cutting_plane import CutSolution
from svmopt.kernels import Kernel
from svmopt.robust.ipm import ReducedIPM
from svmopt.robust.reduced import solve_direct

robust = _core.robust
REL = 1e-12  # the pass against numpy


# --------------------------------------------------------------------------------------------- references
def _ref_normal(Phi, extra, theta, B, V):
    """(G, H, F) and the scale of each entry (the same sums over absolute values) in numpy."""
    n = Phi.shape[0]
    U = np.hstack([Phi, np.ones((n, 1))] + ([] if extra is None else [extra[:, None]]))
    A = np.abs(U)
    ref = {"G": (U * theta[:, None]).T @ U, "H": U.T @ B, "F": U @ V}
    scale = {"G": (A * theta[:, None]).T @ A, "H": A.T @ np.abs(B), "F": A @ np.abs(V)}
    return ref, scale


def _close(got, ref, scale):
    assert got.shape == ref.shape
    np.testing.assert_array_less(np.abs(got - ref), REL * scale + 1e-300)


def _rbf(X, Z, alpha):
    d2 = ((X[:, None, :] - Z[None, :, :]) ** 2).sum(axis=2)
    return np.exp(-d2 / (2.0 * alpha**2))


def _objective(Phi, y, r, delta, C, v, gamma):
    """||v||_1 + sum_i C_i max(0, 1 - y_i (Phi_i v - gamma) + delta_i r'|v|), in numpy."""
    rob = 0.0 if delta is None else delta * float(r @ np.abs(v))
    return float(np.abs(v).sum() + C @ np.maximum(0.0, 1.0 - y * (Phi @ v - gamma) + rob))


def _problem(n=300, L=30, seed=0, alpha=2.0, d=4, robust_term=False, weighted=False):
    """Two overlapping classes; L landmarks drawn from the rows; RBF rows (alpha = 2: rows far from 0) and
    r = sqrt(k(z, z)) = 1; delta small and positive (0.003 U(0, 2)); weights U(0.5, 2)."""
    rng = np.random.default_rng(seed)
    y = np.where(rng.random(n) < 0.45, 1.0, -1.0)
    X = rng.standard_normal((n, d))
    X[:, 0] += 0.8 * y
    Z = X[rng.choice(n, L, replace=False)].copy()
    kern = Kernel("rbf", alpha=alpha)
    Phi = kern.cross(X, Z)
    r = np.sqrt(kern.diag(Z))
    delta = 0.003 * rng.uniform(0.0, 2.0, n) if robust_term else None
    w = rng.uniform(0.5, 2.0, n) if weighted else None
    return dict(X=X, y=y, Z=Z, params=kern.core_params, Phi=Phi, r=r, delta=delta, weight=w)


def _highs(pb, nu):
    """HiGHS's solution and the objective at it recomputed in numpy (>= the true optimum up to rounding)."""
    ref = solve_direct(pb["Phi"], pb["y"], pb["r"], nu, pb["delta"], weight=pb["weight"])
    C = np.full(pb["y"].shape[0], float(nu)) if pb["weight"] is None else nu * pb["weight"]
    return ref, _objective(pb["Phi"], pb["y"], pb["r"], pb["delta"], C, ref.v, ref.gamma)


def _ipm(pb, **over):
    kw = dict(Phi=pb["Phi"], delta=pb["delta"], weight=pb["weight"])
    kw.update(over)
    return ReducedIPM(pb["y"], pb["r"], **{k: a for k, a in kw.items() if a is not None})


# --------------------------------------------------------------------------------------------- 1. the pass
_rng = np.random.default_rng(3)
NP, LP_, DP = 150, 12, 3
XP = _rng.standard_normal((NP, DP))
ZP = _rng.standard_normal((LP_, DP))
EXTRA = _rng.standard_normal(NP) * 0.1
THETA = _rng.uniform(0.0, 5.0, NP)
THETA[::17] = 0.0  # rows without weight
BP = _rng.standard_normal((NP, 3))
ALPHA = 2.0
KP_RBF = Kernel("rbf", alpha=ALPHA).core_params
KP_LIN = Kernel("linear").core_params


def _strided(a):
    big = np.zeros(tuple(2 * s + 1 for s in a.shape))
    view = big[tuple(slice(1, None, 2) for _ in a.shape)]
    view[...] = a
    assert not view.flags.c_contiguous and not view.flags.f_contiguous
    return view


def _source(name):
    """(the rows as passed to the pass, the reference kernel rows in numpy)."""
    Phi = _rbf(XP, ZP, ALPHA)
    if name == "Phi_C":
        return {"Phi": np.ascontiguousarray(Phi)}, Phi
    if name == "Phi_F":
        F = np.asfortranarray(Phi)
        assert not F.flags.c_contiguous
        return {"Phi": F}, Phi
    if name == "Phi_strided":
        return {"Phi": _strided(Phi)}, Phi
    if name == "rbf":
        return {"X": XP, "Z": ZP, "params": KP_RBF}, Phi
    assert name == "linear"
    return {"X": XP, "Z": ZP, "params": KP_LIN}, XP @ ZP.T


SOURCES = ["Phi_C", "Phi_F", "Phi_strided", "rbf", "linear"]


@pytest.mark.parametrize("source", SOURCES)
@pytest.mark.parametrize("with_extra", [False, True], ids=["no_extra", "extra"])
@pytest.mark.parametrize("block", [1, 7, 4096])
def test_normal_pass_matches_numpy(source, with_extra, block):
    rows, Phi = _source(source)
    extra = EXTRA if with_extra else None
    p = LP_ + 1 + with_extra
    V = np.random.default_rng(5).standard_normal((p, 2))
    ref, scale = _ref_normal(Phi, extra, THETA, BP, V)
    F = np.full((NP, 2), np.nan)
    G, H = robust.reduced_normal_pass(extra=extra, theta=THETA, B=BP, V=V, F_out=F, block=block, **rows)
    assert G.shape == (p, p) and H.shape == (p, 3)
    _close(G, ref["G"], scale["G"])
    np.testing.assert_array_equal(G, G.T)  # symmetric exactly (the lower triangle mirrored)
    _close(H, ref["H"], scale["H"])
    _close(F, ref["F"], scale["F"])
    # only some outputs: the others are None / F_out untouched, the asked-for ones the same
    G1, H1 = robust.reduced_normal_pass(extra=extra, theta=THETA, block=block, **rows)
    assert H1 is None
    _close(G1, ref["G"], scale["G"])
    G2, H2 = robust.reduced_normal_pass(extra=extra, B=BP, block=block, **rows)
    assert G2 is None
    _close(H2, ref["H"], scale["H"])
    F3 = np.full((NP, 2), np.nan)
    G3, H3 = robust.reduced_normal_pass(extra=extra, V=V, F_out=F3, block=block, **rows)
    assert G3 is None and H3 is None
    _close(F3, ref["F"], scale["F"])
    # strided 1-D inputs, a Fortran-order B and V: the same sums
    G4, H4 = robust.reduced_normal_pass(extra=None if extra is None else _strided(extra), theta=_strided(THETA),
                                        B=np.asfortranarray(BP), block=block, **rows)
    _close(G4, ref["G"], scale["G"])
    _close(H4, ref["H"], scale["H"])


@pytest.mark.parametrize("source", ["Phi_C", "rbf"])
@pytest.mark.parametrize("with_extra", [False, True], ids=["no_extra", "extra"])
def test_normal_pass_quadratic_right_hand_side(source, with_extra):
    """Q = [g, h, k]: Hq = U'b with b_i = g_i e_i (1 + k_i e_i), e_i = h_i - F_i0, F = U V; the other outputs as
    without Q."""
    rows, Phi = _source(source)
    extra = EXTRA if with_extra else None
    p = LP_ + 1 + with_extra
    rng = np.random.default_rng(9)
    V = rng.standard_normal((p, 2))
    Q = np.column_stack([rng.uniform(0.1, 2.0, NP), rng.standard_normal(NP), rng.standard_normal(NP)])
    F = np.empty((NP, 2))
    G, H, Hq = robust.reduced_normal_pass(extra=extra, theta=THETA, B=BP, V=V, F_out=F, Q=Q, block=7, **rows)
    ref, scale = _ref_normal(Phi, extra, THETA, BP, V)
    U = np.hstack([Phi, np.ones((NP, 1))] + ([] if extra is None else [extra[:, None]]))
    e = Q[:, 1] - ref["F"][:, 0]
    b = Q[:, 0] * e * (1.0 + Q[:, 2] * e)
    np.testing.assert_array_less(np.abs(Hq - U.T @ b), 1e-10 * (np.abs(U).T @ np.abs(b)) + 1e-300)
    _close(G, ref["G"], scale["G"])
    _close(H, ref["H"], scale["H"])
    _close(F, ref["F"], scale["F"])
    # without theta (the interior point's second pass; cached rows are then read in place, not copied)
    F2 = np.full((NP, 2), np.nan)
    G2, H2, Hq2 = robust.reduced_normal_pass(extra=extra, B=BP, V=V, F_out=F2, Q=Q, block=7, **rows)
    assert G2 is None
    np.testing.assert_array_less(np.abs(Hq2 - U.T @ b), 1e-10 * (np.abs(U).T @ np.abs(b)) + 1e-300)
    _close(H2, ref["H"], scale["H"])
    _close(F2, ref["F"], scale["F"])


@pytest.mark.parametrize("robust_term", [False, True], ids=["det", "robust"])
@pytest.mark.parametrize("spread", [1.0, 1e12])
def test_newton_solve_equals_the_dense_system(robust_term, spread):
    """NewtonSystem solves M d = b, M = E'G E + diag(Dp, Dq, 0), in the p-square u-coordinates: equal to a dense
    solve of the (2L + 1)-square M, also when Dp_j / Dq_j spans 1e24 (one of x_j, z_j near 0 at the end of a solve), and
    w = E d."""
    from svmopt.robust.ipm import NewtonSystem

    rng = np.random.default_rng(11)
    L = 20
    p = L + 1 + robust_term
    A = rng.standard_normal((80, p))
    G = A.T @ A
    Dp = rng.uniform(0.1, 3.0, L) * np.where(rng.random(L) < 0.5, spread, 1.0 / spread)
    Dq = rng.uniform(0.1, 3.0, L) * np.where(rng.random(L) < 0.5, spread, 1.0 / spread)
    r = rng.uniform(0.5, 1.5, L)
    E = np.zeros((p, 2 * L + 1))
    E[np.arange(L), np.arange(L)] = 1.0
    E[np.arange(L), L + np.arange(L)] = -1.0
    E[L, 2 * L] = -1.0
    if robust_term:
        E[L + 1, :2 * L] = -np.tile(r, 2)
    M = E.T @ G @ E
    M[np.arange(2 * L), np.arange(2 * L)] += np.concatenate([Dp, Dq])
    b = rng.standard_normal(2 * L + 1)
    d, w = NewtonSystem(G, Dp, Dq, r, robust_term).solve(b)
    np.testing.assert_array_less(np.abs(M @ d - b), 1e-8 * (np.abs(M) @ np.abs(d) + np.abs(b)).max())
    np.testing.assert_array_less(np.abs(w - E @ d), 1e-12 * (np.abs(E) @ np.abs(d)) + 1e-300)


@pytest.mark.parametrize("source", ["Phi", "rbf"])
@pytest.mark.parametrize("zero_theta", [False, True], ids=["theta>0", "a theta=0"])
def test_normal_pass_wide_rows_take_the_dsyrk_with_b_folded_in(source, zero_theta):
    """150 landmarks (the BLAS dsyrk, with B's columns b / sqrt(theta) beside sqrt(theta) u when every theta > 0;
    one theta = 0 takes the separate product): the same G, H, F as numpy."""
    rng = np.random.default_rng(12)
    n, L = 300, 150
    X, Z = rng.standard_normal((n, 4)), rng.standard_normal((L, 4))
    Phi = _rbf(X, Z, ALPHA)
    rows = {"Phi": Phi} if source == "Phi" else {"X": X, "Z": Z, "params": KP_RBF}
    theta = rng.uniform(1e-6, 1e6, n)
    if zero_theta:
        theta[7] = 0.0
    extra = rng.standard_normal(n)
    B = rng.standard_normal((n, 4))
    V = rng.standard_normal((L + 2, 1))
    F = np.empty((n, 1))
    G, H = robust.reduced_normal_pass(extra=extra, theta=theta, B=B, V=V, F_out=F, block=64, **rows)
    ref, scale = _ref_normal(Phi, extra, theta, B, V)
    np.testing.assert_array_less(np.abs(G - ref["G"]), 1e-11 * scale["G"] + 1e-300)
    np.testing.assert_array_less(np.abs(H - ref["H"]), 1e-11 * scale["H"] + 1e-300)
    np.testing.assert_array_less(np.abs(F - ref["F"]), 1e-11 * scale["F"] + 1e-300)


def test_normal_pass_g_is_the_weighted_gram_of_known_rows():
    """A hand-checkable case: Phi = [[1, 2], [3, 4]], extra = [5, 6], theta = [1, 4] (exact square roots: the
    pass scales the rows by sqrt(theta)): G = sum theta_i u_i u_i' exactly."""
    Phi = np.array([[1.0, 2.0], [3.0, 4.0]])
    G, H = robust.reduced_normal_pass(Phi=Phi, extra=np.array([5.0, 6.0]), theta=np.array([1.0, 4.0]),
                                      B=np.array([[1.0], [-1.0]]))
    u1, u2 = np.array([1.0, 2.0, 1.0, 5.0]), np.array([3.0, 4.0, 1.0, 6.0])
    np.testing.assert_array_equal(G, np.outer(u1, u1) + 4 * np.outer(u2, u2))
    np.testing.assert_array_equal(H[:, 0], u1 - u2)


def test_normal_pass_edge_shapes():
    """No rows: zero sums; no landmarks: u_i = (1) or (1, extra_i)."""
    G, H = robust.reduced_normal_pass(Phi=np.zeros((0, 3)), theta=np.zeros(0), B=np.zeros((0, 2)))
    np.testing.assert_array_equal(G, np.zeros((4, 4)))
    np.testing.assert_array_equal(H, np.zeros((4, 2)))
    G, _ = robust.reduced_normal_pass(X=XP, Z=np.zeros((0, DP)), params=KP_RBF, theta=THETA, extra=EXTRA)
    np.testing.assert_allclose(G, [[THETA.sum(), THETA @ EXTRA], [THETA @ EXTRA, THETA @ EXTRA**2]], rtol=1e-13)


@pytest.mark.parametrize("source", ["Phi_C", "rbf"])
@pytest.mark.parametrize("block", [7, 4096])
def test_normal_pass_does_not_depend_on_the_thread_count(source, block):
    rows, _ = _source(source)
    V = np.random.default_rng(6).standard_normal((LP_ + 2, 2))
    out = []
    for t in (1, 2):
        F = np.empty((NP, 2))
        G, H = robust.reduced_normal_pass(extra=EXTRA, theta=THETA, B=BP, V=V, F_out=F, n_threads=t, block=block,
                                          **rows)
        out.append((G, H, F))
    for a, b in zip(out[0], out[1], strict=True):
        np.testing.assert_allclose(a, b, rtol=1e-12, atol=1e-12 * np.abs(a).max())


# --------------------------------------------------------------------------------------------- 2. bad input
P5 = np.random.default_rng(1).standard_normal((5, 2))
X5 = np.random.default_rng(2).standard_normal((5, 3))
Z2 = X5[:2].copy()


def _np(**over):
    """reduced_normal_pass on 5 rows x 2 landmarks (Phi unless X, Z or params are given), one argument replaced."""
    if not {"X", "Z", "params"} & set(over):
        over.setdefault("Phi", P5)
    return robust.reduced_normal_pass(**over)


def _nan_at(a, i=(1, 0)):
    a = a.copy()
    a[i] = np.nan
    return a


def _read_only(a):
    a.flags.writeable = False
    return a


BAD = [
    ("theta nan", dict(theta=np.array([1.0, np.nan, 1.0, 1.0, 1.0])), r"theta must be finite"),
    ("theta inf", dict(theta=np.array([1.0, np.inf, 1.0, 1.0, 1.0])), r"theta must be finite"),
    ("theta < 0", dict(theta=np.array([1.0, -1e-300, 1.0, 1.0, 1.0])), r"theta must be finite and >= 0"),
    ("theta length", dict(theta=np.ones(4)), r"theta must have length 5"),
    ("theta 2d", dict(theta=np.ones((5, 1))), r"theta"),
    ("extra nan", dict(theta=np.ones(5), extra=np.array([0.0, 0.0, np.nan, 0.0, 0.0])), r"extra must be finite"),
    ("extra inf, only B", dict(B=np.ones((5, 1)), extra=np.full(5, -np.inf)), r"extra must be finite"),
    ("extra length", dict(theta=np.ones(5), extra=np.ones(6)), r"extra must have length 5"),
    ("B nan", dict(B=_nan_at(np.ones((5, 2)))), r"B must be finite"),
    ("B rows", dict(B=np.ones((4, 2))), r"B must have one row per data row \(5\)"),
    ("B 1d", dict(B=np.ones(5)), r"B"),
    ("V nan", dict(V=_nan_at(np.ones((3, 1))), F_out=np.zeros((5, 1))), r"V must be finite"),
    ("V inf", dict(V=np.full((3, 1), np.inf), F_out=np.zeros((5, 1))), r"V must be finite"),
    ("V rows", dict(V=np.ones((4, 1)), F_out=np.zeros((5, 1))), r"V must have p = 3 rows"),
    ("V rows with extra", dict(V=np.ones((3, 1)), F_out=np.zeros((5, 1)), extra=np.zeros(5)),
     r"V must have p = 4 rows"),
    ("V without F_out", dict(V=np.ones((3, 1))), r"F_out is needed with V"),
    ("F_out without V", dict(theta=np.ones(5), F_out=np.zeros((5, 1))), r"F_out is only written with V"),
    ("F_out rows", dict(V=np.ones((3, 1)), F_out=np.zeros((4, 1))), r"F_out must be"),
    ("F_out columns", dict(V=np.ones((3, 2)), F_out=np.zeros((5, 1))), r"F_out must be"),
    ("F_out read-only", dict(V=np.ones((3, 1)), F_out=_read_only(np.zeros((5, 1)))), r"F_out must be a writeable"),
    ("F_out Fortran", dict(V=np.ones((3, 2)), F_out=np.zeros((5, 2), order="F")), r"F_out must be .*C-contiguous"),
    ("Phi nan, theta", dict(Phi=_nan_at(P5), theta=np.ones(5)), r"Phi must be finite"),
    ("Phi nan, B", dict(Phi=_nan_at(P5), B=np.ones((5, 1))), r"Phi must be finite"),
    ("Phi inf, V", dict(Phi=np.where(P5 > 0, np.inf, P5), V=np.ones((3, 1)), F_out=np.zeros((5, 1))),
     r"Phi must be finite"),
    ("Phi 1d", dict(Phi=np.ones(5), theta=np.ones(5)), r"Phi"),
    ("X nan", dict(X=_nan_at(X5), Z=Z2, params=KP_RBF, theta=np.ones(5)), r"\bX must be finite"),
    ("Z inf", dict(X=X5, Z=np.full((2, 3), np.inf), params=KP_RBF, theta=np.ones(5)), r"\bZ must be finite"),
    ("X and Z columns", dict(X=X5, Z=Z2[:, :2], params=KP_RBF, theta=np.ones(5)), r"X and Z .*columns"),
    ("Phi and X", dict(Phi=P5, X=X5, theta=np.ones(5)), r"not both"),
    ("Phi and params", dict(Phi=P5, params=KP_RBF, theta=np.ones(5)), r"not both"),
    ("X without params", dict(Phi=None, X=X5, Z=Z2, theta=np.ones(5)), r"params"),
    ("X without Z", dict(Phi=None, X=X5, params=KP_RBF, theta=np.ones(5)), r"give Phi, or X, Z and params"),
    ("nothing", dict(Phi=None, theta=np.ones(5)), r"give Phi, or X, Z and params"),
    ("block 0", dict(theta=np.ones(5), block=0), r"block must be >= 1"),
    ("Q shape", dict(V=np.ones((3, 1)), F_out=np.zeros((5, 1)), Q=np.ones((5, 2))), r"Q must be n x 3"),
    ("Q rows", dict(V=np.ones((3, 1)), F_out=np.zeros((5, 1)), Q=np.ones((4, 3))), r"Q must be n x 3"),
    ("Q without V", dict(theta=np.ones(5), Q=np.ones((5, 3))), r"Q needs V"),
    ("Q with an empty V", dict(V=np.ones((3, 0)), F_out=np.zeros((5, 0)), Q=np.ones((5, 3))), r"Q needs V"),
    ("Q nan", dict(V=np.ones((3, 1)), F_out=np.zeros((5, 1)), Q=_nan_at(np.ones((5, 3)))), r"Q must be finite"),
]


@pytest.mark.parametrize(("over", "match"), [b[1:] for b in BAD], ids=[b[0] for b in BAD])
def test_normal_pass_rejects_bad_input(over, match):
    with pytest.raises(ValueError, match=match):
        _np(**over)


def test_normal_pass_checks_the_kernel_rows_it_computes():
    """Finite X and Z whose kernel rows overflow (a degree-8 polynomial of 1e40): the kernel rows are not finite."""
    big = np.full((5, 3), 1e40)
    with pytest.raises(ValueError, match="kernel rows must be finite"):
        robust.reduced_normal_pass(X=big, Z=big[:2].copy(), params=Kernel("poly", degree=8).core_params,
                                   theta=np.ones(5))


def test_normal_pass_wrong_dtype_is_a_type_error():
    with pytest.raises(TypeError):
        robust.reduced_normal_pass(Phi=P5.astype(np.float32), theta=np.ones(5))
    with pytest.raises(TypeError):
        robust.reduced_normal_pass(Phi=P5, theta=np.ones(5, dtype=np.float32))


# --------------------------------------------------------------------------------------------- 3. vs HiGHS
@pytest.mark.parametrize("weighted", [False, True], ids=["unweighted", "weighted"])
@pytest.mark.parametrize("robust_term", [False, True], ids=["det", "robust"])
@pytest.mark.parametrize("nu", [0.1, 1.0, 10.0])
def test_ipm_reaches_highs(nu, robust_term, weighted):
    seed = int(10 * nu) + 2 * robust_term + weighted
    pb = _problem(seed=seed, robust_term=robust_term, weighted=weighted)
    ref, opt = _highs(pb, nu)
    assert opt == pytest.approx(ref.objective, rel=1e-12)  # HiGHS's point has the objective it reports
    sol = _ipm(pb).solve(nu)
    assert isinstance(sol, CutSolution) and not sol.timed_out and sol.nu == nu
    assert sol.gap <= 1e-6
    assert abs(sol.objective - opt) <= 1e-6 * max(sol.objective, opt)
    assert sol.objective >= opt * (1 - 1e-9)  # a feasible point's objective: not below the optimum
    assert sol.lower_bound <= opt * (1 + 1e-9)  # the certificate is a bound
    assert np.isfinite(sol.lower_bound) and sol.lower_bound > 0
    # objective and scores as stated: the objective at (v, gamma), scores = Phi v
    C = np.full(pb["y"].shape[0], nu) if pb["weight"] is None else nu * pb["weight"]
    assert sol.objective == pytest.approx(_objective(pb["Phi"], pb["y"], pb["r"], pb["delta"], C, sol.v, sol.gamma),
                                          rel=1e-12)
    np.testing.assert_allclose(sol.scores, pb["Phi"] @ sol.v, rtol=1e-12, atol=1e-12)
    # n_iter counts the passes over the data: four per iteration, one per history entry plus the last one's
    assert sol.n_iter >= len(sol.history) and 1 <= len(sol.history) <= 101
    assert np.count_nonzero(sol.v) <= pb["Phi"].shape[1] and np.count_nonzero(sol.v) >= 1
    # the history: the best upper bound never rises, the lower bound never falls and ends at the result's
    ups, los = np.array(sol.history).T
    assert np.all(np.diff(ups) <= 0) and np.all(np.diff(los) >= 0)
    assert los[-1] == sol.lower_bound


@pytest.mark.parametrize("n_threads", [0, 1])
def test_the_newton_pass_alone_gets_the_blas_threads(monkeypatch, n_threads):
    """Between HEAVY_THREADS_WORK and ONE_THREAD_WORK flops a Newton matrix, the pass that forms it runs on the BLAS's
    threads (at most n_threads) and every other step on one; the solution is the one-thread solve's, and the BLAS
    has its threads back afterwards."""
    import svmopt.robust.ipm as ipm_mod
    from svmopt._shared.runtime import blas_controller

    ctl = blas_controller()
    with ctl.limit(limits=2, user_api="blas"):  # two threads to hand out, whatever the environment's default
        had = max(int(i["num_threads"]) for i in ctl.select(user_api="blas").info())
        if had < 2:
            pytest.skip("the BLAS runs on one thread only here")
        _check_newton_pass_threads(monkeypatch, n_threads, ipm_mod, ctl, had)


def _check_newton_pass_threads(monkeypatch, n_threads, ipm_mod, ctl, had):
    pb = _problem(seed=4)
    ref = _ipm(pb).solve(1.0)  # at this size the whole solve runs on one BLAS thread
    seen: list[tuple[bool, int]] = []
    inner = ReducedIPM._memory_pass

    def spy(self, theta, *args):
        seen.append((theta is not None, max(int(i["num_threads"]) for i in ctl.select(user_api="blas").info())))
        return inner(self, theta, *args)

    monkeypatch.setattr(ReducedIPM, "_memory_pass", spy)
    monkeypatch.setattr(ipm_mod, "HEAVY_THREADS_WORK", 1)
    sol = _ipm(pb, n_threads=n_threads).solve(1.0)
    want = had if n_threads == 0 else min(had, n_threads)
    assert {t for heavy, t in seen if heavy} == {want}
    assert {t for heavy, t in seen if not heavy} == {1}
    assert max(int(i["num_threads"]) for i in ctl.select(user_api="blas").info()) == had
    assert sol.objective == pytest.approx(ref.objective, rel=1e-9)
    np.testing.assert_allclose(sol.v, ref.v, rtol=1e-6, atol=1e-9)

    def interrupted(self, theta, *args):  # an interrupt inside a Newton pass gives the BLAS its threads back too
        if theta is not None and self.n_passes > 4:
            raise KeyboardInterrupt
        return inner(self, theta, *args)

    monkeypatch.setattr(ReducedIPM, "_memory_pass", interrupted)
    ipm = _ipm(pb, n_threads=n_threads)
    with pytest.raises(KeyboardInterrupt):
        ipm.solve(1.0)
    assert ipm._heavy_threads == 0
    assert max(int(i["num_threads"]) for i in ctl.select(user_api="blas").info()) == had


@pytest.mark.parametrize("seed", [0, 1, 2, 3])
@pytest.mark.parametrize("robust_term", [False, True], ids=["det", "robust"])
def test_ipm_support_is_highs_support(seed, robust_term):
    """An interior point has no exact zeros: the solver makes the coefficients the duals set to 0 exact zeros. On
    these nondegenerate instances the nonzeros are exactly HiGHS's (a vertex) and v agrees with it."""
    pb = _problem(seed=seed, robust_term=robust_term)
    ref, _ = _highs(pb, 1.0)
    assert np.abs(ref.v[ref.v != 0]).min() > 1e-3  # HiGHS's nonzeros are clear of 0
    sol = _ipm(pb).solve(1.0)
    assert set(np.flatnonzero(sol.v)) == set(np.flatnonzero(ref.v))
    assert np.count_nonzero(sol.v) < pb["Phi"].shape[1]  # some coefficients are exact zeros
    np.testing.assert_allclose(sol.v, ref.v, atol=1e-4 * np.abs(ref.v).max())


@pytest.mark.parametrize("seed", [20, 21, 22, 23])
def test_every_bound_of_the_history_is_a_bound(seed):
    nu = [0.3, 3.0, 1.0, 30.0][seed - 20]
    pb = _problem(n=200, L=25, seed=seed, robust_term=seed % 2 == 1, weighted=seed >= 22)
    _, opt = _highs(pb, nu)
    sol = _ipm(pb).solve(nu, tol=1e-8)
    assert len(sol.history) >= 5
    for upper, lower in sol.history:
        assert lower <= opt * (1 + 1e-9)
        assert upper >= opt * (1 - 1e-9)
        assert np.isfinite(upper) and np.isfinite(lower) and lower <= upper
    assert sol.gap <= 1e-6


def test_large_delta_makes_v_zero_and_the_bound_is_exact_on_the_closed_form():
    """delta_i r_min >= max_j |Phi_ij|: v = 0 is optimal, objective nu * 2 min(n+, n-)."""
    pb = _problem(n=120, L=10, seed=4)
    pb["delta"] = 1.01 * np.abs(pb["Phi"]).max(axis=1) / pb["r"].min()
    y = pb["y"]
    expect = 0.5 * 2 * min((y > 0).sum(), (y < 0).sum())
    sol = _ipm(pb).solve(0.5)
    assert sol.objective == pytest.approx(expect, rel=1e-6)
    assert sol.lower_bound <= expect * (1 + 1e-9)
    assert np.all(sol.v == 0.0)


# --------------------------------------------------------------------------------------------- 4. row sources
def test_every_source_of_the_rows_gives_the_same_solution(tmp_path):
    pb = _problem(n=300, L=20, seed=7, robust_term=True, weighted=True)
    nu = 1.0
    base = _ipm(pb).solve(nu)
    X = pb["X"]
    mm = np.memmap(tmp_path / "X.f64", dtype=np.float64, mode="w+", shape=X.shape)
    mm[:] = X
    mm.flush()
    mm = np.memmap(tmp_path / "X.f64", dtype=np.float64, mode="r", shape=X.shape)
    stream = dict(Phi=None, Z=pb["Z"], params=pb["params"])
    others = {"streamed": _ipm(pb, X=X, **stream, block=64).solve(nu),
              "memmap": _ipm(pb, X=mm, **stream).solve(nu)}
    da = pytest.importorskip("dask.array")
    others["dask"] = _ipm(pb, X=da.from_array(X, chunks=(100, -1)), **stream).solve(nu)
    for name, sol in others.items():
        assert sol.objective == pytest.approx(base.objective, rel=1e-9), name
        np.testing.assert_allclose(sol.v, base.v, atol=1e-6, err_msg=name)
        assert sol.gamma == pytest.approx(base.gamma, abs=1e-6), name
        np.testing.assert_allclose(sol.scores, base.scores, atol=1e-6, err_msg=name)
        assert sol.gap <= 1e-6, name


def test_memmap_of_another_dtype_is_refused(tmp_path):
    pb = _problem(n=50, L=5, seed=1)
    mm = np.memmap(tmp_path / "X.f32", dtype=np.float32, mode="w+", shape=pb["X"].shape)
    with pytest.raises(ValueError, match="float64"):
        ReducedIPM(pb["y"], pb["r"], X=mm, Z=pb["Z"], params=pb["params"])


def test_constructor_errors():
    pb = _problem(n=50, L=5, seed=1)
    y, r = pb["y"], pb["r"]
    with pytest.raises(ValueError, match="not both"):
        ReducedIPM(y, r, Phi=pb["Phi"], X=pb["X"], Z=pb["Z"], params=pb["params"])
    with pytest.raises(ValueError, match="give Phi, or X, Z and params"):
        ReducedIPM(y, r, X=pb["X"], Z=pb["Z"])
    with pytest.raises(ValueError, match="r must"):
        ReducedIPM(y, r[:4], Phi=pb["Phi"])
    with pytest.raises(ValueError, match="r must"):
        ReducedIPM(y, -r, Phi=pb["Phi"])
    with pytest.raises(ValueError, match="y must"):
        ReducedIPM((y > 0) * 1.0, r, Phi=pb["Phi"])
    with pytest.raises(ValueError, match="delta"):
        ReducedIPM(y, r, Phi=pb["Phi"], delta=-np.ones(50))
    with pytest.raises(ValueError):
        ReducedIPM(y, r, Phi=pb["Phi"]).solve(0.0)
    with pytest.raises(ValueError, match="max_iter"):
        ReducedIPM(y, r, Phi=pb["Phi"]).solve(1.0, max_iter=0)


# --------------------------------------------------------------------------------------------- 5. limits
def test_max_iter_returns_certified_bounds_short_of_the_gap():
    pb = _problem(seed=5, robust_term=True)
    _, opt = _highs(pb, 1.0)
    sol = _ipm(pb).solve(1.0, max_iter=2)
    assert sol.gap > 1e-6 and not sol.timed_out
    assert np.isfinite(sol.objective) and np.isfinite(sol.lower_bound)
    assert sol.lower_bound <= sol.objective
    assert sol.lower_bound <= opt * (1 + 1e-9) and sol.objective >= opt * (1 - 1e-9)
    assert len(sol.history) == 3  # the start and two iterations


def test_a_passed_deadline_returns_a_timed_out_finite_solution():
    pb = _problem(seed=6)
    _, opt = _highs(pb, 1.0)
    sol = _ipm(pb).solve(1.0, deadline=time.perf_counter())
    assert sol.timed_out
    assert np.isfinite(sol.objective) and np.isfinite(sol.lower_bound)
    assert sol.lower_bound <= opt * (1 + 1e-9) <= sol.objective * (1 + 2e-9)
    assert sol.v.shape == (30,) and np.all(np.isfinite(sol.v))


# --------------------------------------------------------------------------------------------- 6. RobustSVC
def _data(n=300, d=4, seed=0):
    rng = np.random.default_rng(seed)
    X = rng.normal(size=(n, d))
    score = X[:, 0] + 0.5 * X[:, 1] ** 2 + 0.3 * rng.normal(size=n)
    return X, (score > 0.5).astype(int)


@pytest.mark.parametrize("robust_term", [False, True], ids=["det", "robust"])
def test_robust_svc_ipm_equals_the_lp(robust_term):
    X, y = _data(400, seed=1)
    kw = dict(kernel="rbf", alpha=2.0, nu=1.0, n_landmarks=30, landmarks="random", random_state=3,
              **(dict(p=2, rho=0.005) if robust_term else {}))
    ipm = RobustSVC(solver="ipm", tol=1e-8, **kw).fit(X, y)
    lp = RobustSVC(solver="lp", **kw).fit(X, y)
    assert ipm.model_ == lp.model_ == "reduced" and ipm.selection_ is None
    np.testing.assert_array_equal(ipm.landmarks_, lp.landmarks_)
    np.testing.assert_allclose(ipm.objective_, lp.objective_, rtol=1e-6)
    assert np.all(ipm.lower_bound_ <= lp.objective_ * (1 + 1e-9))
    assert ipm.fit_path_[0][0]["solver"] == "ipm" and lp.fit_path_[0][0]["solver"] == "lp"
    assert np.mean(ipm.predict(X) == lp.predict(X)) >= 0.99
    np.testing.assert_array_equal(ipm.support_vectors_, ipm.landmarks_[ipm.support_])
    f = ipm.kernel_.cross(X, ipm.support_vectors_) @ ipm.dual_coef_[0] - ipm.intercept_[0]
    np.testing.assert_allclose(ipm.decision_function(X), f, atol=1e-10)


def test_robust_svc_auto_picks_the_ipm_for_the_reduced_model(monkeypatch):
    """"auto": HiGHS on the LP as it is up to DIRECT_LP_MAX_CELLS kernel values, the IPM above, the cutting planes
    under warm_start."""
    import svmopt.robust.plan as rs

    X, y = _data(300)
    kw = dict(kernel="rbf", alpha=2.0, nu=1.0, n_landmarks=25, landmarks="random", random_state=0)
    assert 300 * 25 > rs.DIRECT_LP_MAX_CELLS
    with monkeypatch.context() as mp:
        mp.setattr(rs, "DIRECT_LP_MAX_CELLS", 300 * 25)
        small = RobustSVC(**kw).fit(X, y)
    assert [rec["solver"] for rec in small.fit_path_[0]] == ["lp"]
    auto = RobustSVC(**kw).fit(X, y)
    assert auto.model_ == "reduced"
    assert [rec["solver"] for rec in auto.fit_path_[0]] == ["ipm"]
    ipm = RobustSVC(solver="ipm", **kw).fit(X, y)
    np.testing.assert_array_equal(auto.objective_, ipm.objective_)
    np.testing.assert_allclose(auto.objective_, small.objective_, rtol=1e-6)
    assert auto.n_iter_[0] > 1  # passes over the data, not one HiGHS solve
    warm = RobustSVC(warm_start=True, **kw).fit(X, y)
    assert [rec["solver"] for rec in warm.fit_path_[0]] == ["cutting_plane"]
    np.testing.assert_allclose(warm.objective_, auto.objective_, rtol=1e-5)


def _dependent_rows():
    """Kernel rows of an inhomogeneous quadratic kernel over 60 landmarks in 8 dimensions (45 monomials: the rows are
    dependent, the largest entry 4.7e3): at nu = 100 the IPM's certified gap stalls near 1e-5."""
    from sklearn.datasets import make_classification

    X, y = make_classification(n_samples=800, n_features=8, n_informative=4, random_state=0, flip_y=0.05)
    kern = Kernel("inhom_poly", degree=2, c=1.0)
    Z = X[:60]
    return X, y, kern.cross(X, Z), np.sqrt(kern.diag(Z)), Z


def test_a_stall_returns_the_best_certified_point():
    _, y01, Phi, r, _ = _dependent_rows()
    y = np.where(y01 == 1, 1.0, -1.0)
    opt = solve_direct(Phi, y, r, 100.0).objective
    sol = ReducedIPM(y, r, Phi=Phi).solve(100.0, max_iter=1000)
    assert sol.stalled and not sol.timed_out and sol.gap > 1e-6
    assert "limits of double precision" in sol.stall_reason
    assert sol.n_iter < 150  # stopped soon after the gap stopped improving, not at max_iter
    assert sol.lower_bound <= opt * (1 + 1e-9) and sol.objective >= opt * (1 - 1e-9)
    assert sol.gap < 1e-3
    np.testing.assert_allclose(sol.objective, _objective(Phi, y, r, None, np.full(y.size, 100.0), sol.v, sol.gamma),
                               rtol=1e-12)
    converged = ReducedIPM(y, r, Phi=Phi).solve(1.0)
    assert converged.gap <= 1e-6 and not converged.stalled and converged.stall_reason == ""


def test_each_stall_names_its_reason():
    """A stall says why it stopped (the warning quotes it): only the complementarity far below the start's is
    called the limits of double precision; no progress, a long run without a better gap and diverging iterates are
    named as such."""
    from svmopt.robust.ipm import MU_FLOOR, STALL_ITERS, STALL_MU, stall_reason_of

    assert stall_reason_of(STALL_ITERS - 1, 1e-3, 0.9, 1.0) == ""  # not yet
    assert "limits of double precision" in stall_reason_of(STALL_ITERS, 0.1 * STALL_MU, 0.9, 1.0)
    assert "no progress" in stall_reason_of(STALL_ITERS, 1e-3, 0.9, 1.0)
    assert stall_reason_of(STALL_ITERS, 1e-3, 0.1, 1.0) == ""  # the complementarity still falls: progress
    why = stall_reason_of(4 * STALL_ITERS, 1e-3, 0.1, 1.0)
    assert why.startswith("no better certified gap") and "precision" not in why
    assert "diverging" in stall_reason_of(0, 1.0, 1.0, 2e3)
    assert "limits of double precision" in stall_reason_of(0, 0.1 * MU_FLOOR, 1.0, 1.0)
    assert stall_reason_of(0, float("nan"), 1.0, 1.0) != ""  # a NaN complementarity stops the solve


def test_no_stall_while_the_iterate_is_far_from_the_optimum():
    """A robust LP whose objective at the iterate stays above the start's (v = 0) for its first 5 iterations while mu
    falls to 3e-2 of the start's: that is progress, not the limits of precision, and the solve goes on to its
    certified gap (it had stopped there as stalled, the gap 0.6)."""
    rng = np.random.default_rng(1)
    n, L = 2000, 300
    y = np.where(rng.random(n) < 0.4, 1.0, -1.0)
    X = rng.normal(size=(n, 8)) + 0.8 * y[:, None]
    kern = Kernel("rbf").fit(X)
    Z = X[rng.choice(n, L, replace=False)]
    Phi, r, delta = kern.cross(X, Z), np.sqrt(kern.diag(Z)), np.full(n, 0.1)
    sol = ReducedIPM(y, r, Phi=Phi, delta=delta).solve(1.0)
    assert not sol.stalled and sol.gap <= 1e-6
    assert sol.history[5][0] == pytest.approx(float(n))  # the start's objective was still the best after 5
    np.testing.assert_allclose(sol.objective, _objective(Phi, y, r, delta, np.ones(n), sol.v, sol.gamma), rtol=1e-12)


def test_a_stalled_fit_warns_and_is_usable():
    from sklearn.exceptions import ConvergenceWarning

    X, y, _, _, Z = _dependent_rows()
    clf = RobustSVC(kernel="inhom_poly", degree=2, c=1.0, nu=100.0, n_landmarks=60, landmarks=Z, solver="ipm")
    with pytest.warns(ConvergenceWarning, match=r"stalled \(the complementarity at .* limits of double precision\)"):
        clf.fit(X, y)
    assert clf.fit_path_[0][0]["status"] == "Stalled"
    assert clf.score(X, y) > 0.8


def test_auto_solves_a_stalled_nu_again_by_highs(monkeypatch):
    """solver="auto": a stall with the kernel rows in memory (within STALL_LP_MAX_CELLS) goes to HiGHS on the LP as it
    is, exact and without a warning; above that size it warns as solver="ipm" does."""
    import warnings

    import svmopt.robust.plan as rs

    X, y, _, _, Z = _dependent_rows()
    kw = dict(kernel="inhom_poly", degree=2, c=1.0, nu=100.0, n_landmarks=60, landmarks=Z)
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        auto = RobustSVC(**kw).fit(X, y)
    rec = auto.fit_path_[0][0]
    assert rec["solver"] == "lp" and rec["ipm_stalled"] and rec["status"] == "Optimal"
    assert rec["iterations"] == 1 and rec["ipm_passes"] > 3  # one HiGHS solve after the interior point's passes
    lp = RobustSVC(solver="lp", **kw).fit(X, y)
    np.testing.assert_allclose(auto.objective_, lp.objective_, rtol=1e-9)
    assert auto.lower_bound_[0] == pytest.approx(auto.objective_[0], rel=1e-9)
    from sklearn.exceptions import ConvergenceWarning

    monkeypatch.setattr(rs, "STALL_LP_MAX_CELLS", X.shape[0] * Z.shape[0] - 1)
    with pytest.warns(ConvergenceWarning, match="stalled"):
        big = RobustSVC(**kw).fit(X, y)
    assert big.fit_path_[0][0]["solver"] == "ipm" and big.fit_path_[0][0]["status"] == "Stalled"


def test_a_failed_highs_rescue_keeps_the_stalled_certified_point(monkeypatch):
    """If HiGHS cannot solve the LP after a stall (here: made to fail), the interior point's certified point stands,
    with its warning, as under solver="ipm"."""
    from sklearn.exceptions import ConvergenceWarning

    import svmopt.robust.fit as rf
    from svmopt.exceptions import SolverError

    def refuse(*args, **kwargs):
        raise SolverError("HiGHS could not solve the LP: Time limit reached", "Time limit reached")

    X, y, _, _, Z = _dependent_rows()
    kw = dict(kernel="inhom_poly", degree=2, c=1.0, nu=100.0, n_landmarks=60, landmarks=Z)
    monkeypatch.setattr(rf, "solve_direct", refuse)
    with pytest.warns(ConvergenceWarning, match="stalled"):
        auto = RobustSVC(**kw).fit(X, y)
    with pytest.warns(ConvergenceWarning, match="stalled"):
        ipm = RobustSVC(solver="ipm", **kw).fit(X, y)
    rec = auto.fit_path_[0][0]
    assert rec["solver"] == "ipm" and rec["status"] == "Stalled" and "ipm_stalled" not in rec
    np.testing.assert_array_equal(auto.objective_, ipm.objective_)
    np.testing.assert_array_equal(auto.lower_bound_, ipm.lower_bound_)


def test_zero_r_makes_the_robust_term_vanish():
    """r = 0: delta_i r'|v| = 0 for every v, so the robust LP is the deterministic one (solved as such)."""
    rng = np.random.default_rng(1)
    n, L = 40, 5
    y = np.where(rng.random(n) < 0.5, 1.0, -1.0)
    Phi = rng.standard_normal((n, L)) + 0.5 * y[:, None]
    r, delta = np.zeros(L), rng.uniform(0, 0.5, n)
    opt = solve_direct(Phi, y, r, 1.0, delta).objective
    sol = ReducedIPM(y, r, Phi=Phi, delta=delta).solve(1.0)
    assert sol.gap <= 1e-6
    np.testing.assert_allclose(sol.objective, opt, rtol=1e-6)


@pytest.mark.parametrize("nu", [0.2, 1.0])  # (nu = 0.05 has u = 0 at the optimum: not a test of the solver)
def test_every_training_point_as_landmark_is_the_papers_lp(nu):
    X, y = _data(200)
    kw = dict(kernel="rbf", alpha=1.5, nu=nu, p=2, rho=0.01)
    paper = RobustSVC(n_landmarks=None, solver="lp", **kw).fit(X, y)
    assert paper.model_ == "paper" and paper.landmarks_ is None
    ipm = RobustSVC(n_landmarks=200, landmarks=X, solver="ipm", **kw).fit(X, y)
    assert ipm.model_ == "reduced" and ipm.fit_path_[0][0]["solver"] == "ipm"
    assert paper.support_.size > 0 and ipm.support_.size > 0
    np.testing.assert_allclose(ipm.objective_, paper.objective_, rtol=1e-6)
    assert np.all(ipm.lower_bound_ <= paper.objective_ * (1 + 1e-6))
    assert np.all(ipm.lower_bound_ <= ipm.objective_)


def test_tight_memory_budget_streams_the_kernel_rows(monkeypatch):
    """Within half the budget: every pass reads the cached n x L kernel rows. Above: the leading rows whose kernel
    rows fit half the budget are cached (cache_rows), the others computed at every pass; the same fit."""
    X, y = _data(600)
    kw = dict(kernel="rbf", alpha=2.0, nu=1.0, n_landmarks=40, landmarks="random", random_state=0, solver="ipm")
    seen = []
    real = robust.reduced_normal_pass

    def spy(**kwargs):
        src = "Phi" if kwargs.get("Phi") is not None else "X"
        seen.append((src, kwargs[src].shape))
        return real(**kwargs)

    monkeypatch.setattr(robust, "reduced_normal_pass", spy)
    old = svmopt.get_memory_budget()
    try:
        cached = RobustSVC(**kw).fit(X, y)
        assert seen and set(seen) == {("Phi", (600, 40))}
        seen.clear()
        svmopt.set_memory_budget(600 * 40 * 8)  # an n x L cache takes the whole budget: over half of it
        streamed = RobustSVC(**kw).fit(X, y)
        assert seen and set(seen) == {("Phi", (300, 40)), ("X", (300, 4))}  # half the rows cached, half computed
        seen.clear()
        svmopt.set_memory_budget(40 * 8)  # not one row's kernel values within half of it: every row computed
        none = RobustSVC(**kw).fit(X, y)
        assert seen and set(seen) == {("X", (600, 4))}
    finally:
        svmopt.set_memory_budget(old)
    assert svmopt.get_memory_budget() == old
    for fit in (streamed, none):
        assert fit.fit_path_[0][0]["solver"] == "ipm"
        np.testing.assert_allclose(fit.objective_, cached.objective_, rtol=1e-9)
        np.testing.assert_allclose(fit.decision_function(X), cached.decision_function(X), atol=1e-6)
    assert np.all(streamed.lower_bound_ <= streamed.objective_)


@pytest.mark.parametrize("solver", ["ipm", "cutting_plane"])
def test_selection_on_index_pairs_streams_kernel_rows_past_half_the_budget(solver, monkeypatch):
    """With cv given as (train, test) pairs the selection runs on every row; once their n x L kernel rows exceed
    half the memory budget the folds compute them at every pass and score by the streamed matvec, choosing as the
    cached selection does (the same held-out errors), without forming any n x L kernel block."""
    from sklearn.model_selection import StratifiedKFold

    X, y = _data(600, seed=4)
    pairs = list(StratifiedKFold(3).split(X, y))
    kw = dict(kernel="rbf", alpha=2.0, nu=[0.1, 1.0, 10.0], n_landmarks=40, landmarks="random", random_state=0,
              solver=solver, cv=pairs, max_iter=2000)
    cached = RobustSVC(**kw).fit(X, y)
    real_cross = Kernel.cross
    crossed = []

    def spy(self, A, B, **kwargs):
        crossed.append(np.shape(A)[0])
        return real_cross(self, A, B, **kwargs)

    monkeypatch.setattr(Kernel, "cross", spy)
    old = svmopt.get_memory_budget()
    try:
        svmopt.set_memory_budget(600 * 40 * 8)  # the n x L rows take the whole budget: over half of it
        streamed = RobustSVC(**kw).fit(X, y)
    finally:
        svmopt.set_memory_budget(old)
    assert all(rows < 600 for rows in crossed), crossed  # no kernel block over every row
    assert streamed.selection_["n_rows"] == cached.selection_["n_rows"] == 600
    np.testing.assert_array_equal(streamed.selection_["errors"], cached.selection_["errors"])
    np.testing.assert_array_equal(streamed.nu_, cached.nu_)
    np.testing.assert_allclose(streamed.decision_function(X), cached.decision_function(X), atol=1e-6)
    # a fold whose held-out rows all have weight 0 (left out of the fit) holds out none: scored as empty, as cached
    sw = np.ones(600)
    sw[pairs[0][1]] = 0.0
    fits = []
    for budget in (old, 600 * 40 * 8):
        svmopt.set_memory_budget(budget)
        try:
            fits.append(RobustSVC(**kw).fit(X, y, sample_weight=sw))
        finally:
            svmopt.set_memory_budget(old)
    np.testing.assert_array_equal(fits[1].selection_["errors"], fits[0].selection_["errors"])


def test_the_solve_ends_at_the_gap_when_no_coefficient_is_to_purify():
    """A dense optimum (every v_j != 0, none flagged by the duals): the solve stops at the first iteration whose
    certified gap meets tol, with neither `stalled` nor `timed_out` (it used to run the purification's extra
    iterations, and a stall or deadline there was reported with the gap met)."""
    rng = np.random.default_rng(0)
    for _ in range(4):
        Phi = rng.normal(size=(400, 3))
        y = np.sign(Phi @ np.ones(3) + 0.5 * rng.normal(size=400))
        sol = ReducedIPM(y, np.ones(3), Phi=Phi).solve(10.0, tol=1e-6)
        gaps = [(u - lo) / max(1.0, abs(u)) for u, lo in sol.history]
        first = next(i for i, g in enumerate(gaps) if g <= 1e-6)
        assert np.count_nonzero(sol.v) == 3
        assert len(sol.history) == first + 1 and sol.n_iter == 3 * first + 1
        assert sol.gap <= 1e-6 and not sol.stalled and not sol.timed_out and sol.stall_reason == ""
        opt = solve_direct(Phi, y, np.ones(3), 10.0).objective
        assert sol.lower_bound <= opt * (1 + 1e-9) and sol.objective >= opt * (1 - 1e-9)


def test_no_rows_and_bad_shapes():
    """No rows: v = 0, objective 0, certified; a 1-D or 3-D Phi and a 1-D Z are refused by name; a Phi of odd
    strides (a field of a structured array) is copied, not refused."""
    sol = ReducedIPM(np.zeros(0), np.ones(3), Phi=np.zeros((0, 3))).solve(1.0)
    assert sol.objective == sol.lower_bound == 0.0 and np.array_equal(sol.v, np.zeros(3)) and sol.n_iter == 0
    with pytest.raises(ValueError, match="Phi must be 2-D"):
        ReducedIPM(np.ones(3), np.ones(3), Phi=np.ones(3))
    with pytest.raises(ValueError, match="Phi must be 2-D"):
        ReducedIPM(np.ones(3), np.ones(3), Phi=np.ones((3, 3, 1)))
    with pytest.raises(ValueError, match="Z must be 2-D"):
        ReducedIPM(np.ones(3), np.ones(2), X=np.ones((3, 2)), Z=np.ones(2), params=KP_RBF)
    rng = np.random.default_rng(2)
    A = rng.normal(size=(30, 4))
    y = np.where(A[:, 0] > 0, 1.0, -1.0)
    rec = np.zeros(30, dtype=[("a", np.float64, 4), ("tag", np.int8)])
    rec["a"] = A
    assert rec["a"].strides[0] % 8
    odd = ReducedIPM(y, np.ones(4), Phi=rec["a"]).solve(1.0)
    plain = ReducedIPM(y, np.ones(4), Phi=A).solve(1.0)
    assert odd.objective == plain.objective


def test_iterates_that_overflow_raise_solver_error():
    """Sample weights near 1e200 overflow the iterations' products: a SolverError that says so, not a complaint
    about an internal array the caller never passed."""
    from svmopt import SolverError

    rng = np.random.default_rng(3)
    Phi = rng.normal(size=(40, 3))
    y = np.where(Phi[:, 0] > 0, 1.0, -1.0)
    with pytest.raises(SolverError, match="overflowed float64"):
        ReducedIPM(y, np.ones(3), Phi=Phi, weight=np.full(40, 1e200)).solve(1.0)
