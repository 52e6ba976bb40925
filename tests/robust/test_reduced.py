"""The reduced-kernel robust LP (svmopt.robust.reduced) and its pass over the data (_core.cutting_plane.cut_pass),
each checked against a reference it does not share code with:

* the pass against plain numpy on the same Phi (the kernel rows from ``_core.kernels.cross`` when it streams X, Z);
* :func:`solve_direct` against ``scipy.optimize.linprog`` on the LP written out densely;
* :class:`ReducedLP` (cutting planes) against :func:`solve_direct` (the LP as it is), the certified gap against the
  optimum, and, with the training points as landmarks, against paper 000's LP (23) (``fit.fit_binary``);
* with a large delta, against the closed form (v = 0 is optimal: nu * 2 * min(n+, n-)).
"""

from __future__ import annotations

import numpy as np
import pytest
from scipy.optimize import linprog

from svmopt import _core
from svmopt.robust.fit import fit_binary
from svmopt.robust.reduced import ReducedLP, ReducedSolution, solve_direct

kernels, robust, cutting_plane = _core.kernels, _core.robust, _core.cutting_plane
KIND = kernels.KernelKind
PARAMS = {
    "rbf": kernels.KernelParams(KIND.rbf, alpha=1.3),
    "poly": kernels.KernelParams(KIND.poly, degree=2),
    "linear": kernels.KernelParams(KIND.linear),
}
REL = 1e-12  # the pass against numpy


# --------------------------------------------------------------------------------------------- references
def _ref_pass(Phi, y, v, gamma, S, delta):
    """The pass in numpy: f = Phi v; margin = 1 + y gamma - y f + delta S; c = margin > 0; the cut's sums, and the
    scale of each (the sum of the absolute values of its terms) that a relative error is measured against."""
    f = Phi @ v
    d = np.zeros_like(y) if delta is None else delta
    margin = 1.0 + y * gamma - y * f + d * S
    c = margin > 0
    cy = np.where(c, y, 0.0)
    ref = {"a": Phi.T @ cy, "b": cy.sum(), "e": d[c].sum(), "n_c": float(c.sum()), "hinge": margin[c].sum(), "f": f}
    absf = np.abs(Phi) @ np.abs(v)
    scale = {"a": np.abs(Phi[c]).sum(axis=0), "e": d[c].sum(), "f": absf,
             "hinge": (1.0 + abs(gamma) + absf + d * S)[c].sum()}
    return ref, scale


def _assert_pass(got, ref, scale, scores=None):
    assert got.n_c == ref["n_c"] and got.b == ref["b"]  # integers: exact
    np.testing.assert_array_less(np.abs(got.a - ref["a"]), REL * scale["a"] + 1e-300)
    assert abs(got.e - ref["e"]) <= REL * scale["e"]
    assert abs(got.hinge - ref["hinge"]) <= REL * scale["hinge"]
    if scores is not None:
        np.testing.assert_array_less(np.abs(scores - ref["f"]), REL * scale["f"] + 1e-300)


def _objective(Phi, y, r, delta, nu, v, gamma):
    """||v||_1 + nu sum_i max(0, 1 + y_i gamma - y_i Phi_i v + delta_i r'|v|), in numpy."""
    rob = 0.0 if delta is None else delta * float(r @ np.abs(v))
    return float(np.abs(v).sum() + nu * np.maximum(0.0, 1.0 + y * gamma - y * (Phi @ v) + rob).sum())


def _linprog(Phi, y, r, nu, delta):
    """The reduced LP written densely for scipy: x = [v+, v-, gamma, xi] and
    -(y_i Phi_i (v+ - v-) - y_i gamma - delta_i r'(v+ + v-)) - xi_i <= -1."""
    n, L = Phi.shape
    d = np.zeros(n) if delta is None else delta
    yP, rob = y[:, None] * Phi, d[:, None] * r[None, :]
    A = np.hstack([-(yP - rob), -(-yP - rob), y[:, None], -np.eye(n)])
    c = np.concatenate([np.ones(2 * L), [0.0], np.full(n, nu)])
    bounds = [(0, None)] * (2 * L) + [(None, None)] + [(0, None)] * n
    res = linprog(c, A_ub=A, b_ub=-np.ones(n), bounds=bounds, method="highs")
    assert res.status == 0, res.message
    return res.fun


def _problem(n, L, kind, balanced, seed, d=3):
    """Two overlapping classes (n+ = n/2 or n/5), landmarks drawn from the rows; Phi = K(X, Z) and
    r = sqrt(diag K(Z, Z))."""
    rng = np.random.default_rng(seed)
    n_pos = n // 2 if balanced else n // 5
    y = np.concatenate([np.ones(n_pos), -np.ones(n - n_pos)])
    rng.shuffle(y)
    X = rng.standard_normal((n, d))
    X[:, 0] += 0.9 * y  # a shift for the rbf kernel, a spread for the (even) homogeneous quadratic one
    X[:, 1] *= np.where(y > 0, 3.0, 1.0)
    Z = X[rng.choice(n, L, replace=False)].copy()
    params = PARAMS[kind]
    return X, y, Z, params, kernels.cross(X, Z, params), np.sqrt(kernels.diag(Z, params))


def _delta(level, Phi, r, seed):
    """None; small (v != 0 at the optimum); or large enough that v = 0 is optimal: delta_i r_min >= max_j |Phi_ij|
    makes any v cost at least as much in every row's margin as it can gain."""
    if level == "none":
        return None
    n = Phi.shape[0]
    if level == "small":
        return np.random.default_rng(seed).uniform(0.0, 0.2, n) * np.median(np.abs(Phi) / r)
    return 1.01 * np.abs(Phi).max(axis=1) / r.min()


# --------------------------------------------------------------------------------------------- 1. the pass
_rng = np.random.default_rng(7)
NP, LP_, DP = 300, 9, 4
XP = _rng.standard_normal((NP, DP))
ZP = _rng.standard_normal((LP_, DP))
YP = np.where(_rng.random(NP) < 0.4, 1.0, -1.0)
DELTAP = _rng.uniform(0.0, 0.3, NP)


def _iterate(Phi, r):
    """v, gamma with a mix of violated and satisfied rows."""
    rng = np.random.default_rng(11)
    v = rng.standard_normal(Phi.shape[1])
    v *= 2.0 / np.std(Phi @ v)  # scores of spread 2 around the margin
    return v, 0.3, float(r @ np.abs(v))


def _strided(a):
    big = np.zeros(tuple(2 * s + 1 for s in a.shape))
    view = big[tuple(slice(1, None, 2) for _ in a.shape)]
    view[...] = a
    assert not view.flags.c_contiguous
    return view


LAYOUTS = {"C": np.ascontiguousarray, "F": np.asfortranarray, "strided": _strided}


@pytest.mark.parametrize("kind", list(PARAMS))
@pytest.mark.parametrize("with_delta", [False, True], ids=["det", "robust"])
@pytest.mark.parametrize("block", [1, 7, 4096])
@pytest.mark.parametrize("source", ["Phi", "XZ"])
@pytest.mark.parametrize("layout", list(LAYOUTS))
def test_cut_pass_matches_numpy(kind, with_delta, block, source, layout):
    params = PARAMS[kind]
    Phi = kernels.cross(XP, ZP, params)  # the reference rows
    r = np.sqrt(kernels.diag(ZP, params))
    v, gamma, S = _iterate(Phi, r)
    delta = DELTAP if with_delta else None
    ref, scale = _ref_pass(Phi, YP, v, gamma, S, delta)
    assert 0 < ref["n_c"] < NP  # both kinds of rows
    lay = LAYOUTS[layout]
    rows = {"Phi": lay(Phi)} if source == "Phi" else {"X": lay(XP), "Z": lay(ZP), "params": params}
    scores = np.full(NP, np.nan)
    got = cutting_plane.cut_pass(YP, v, gamma, S, delta=delta, scores_out=scores, block=block, **rows)
    assert type(got) is cutting_plane.CutSums
    _assert_pass(got, ref, scale, scores)
    # no scores_out, strided 1-D inputs: the same sums
    d1 = None if delta is None else _strided(delta)
    again = cutting_plane.cut_pass(_strided(YP), _strided(v), gamma, S, delta=d1, block=block, **rows)
    _assert_pass(again, ref, scale)


@pytest.mark.parametrize("source", ["Phi", "XZ"])
@pytest.mark.parametrize("block", [7, 4096])
def test_cut_pass_does_not_depend_on_the_thread_count(source, block):
    params = PARAMS["rbf"]
    Phi = kernels.cross(XP, ZP, params)
    v, gamma, S = _iterate(Phi, np.ones(LP_))
    rows = {"Phi": Phi} if source == "Phi" else {"X": XP, "Z": ZP, "params": params}
    out = []
    for t in (1, 2, 1, 2):
        scores = np.empty(NP)
        c = cutting_plane.cut_pass(YP, v, gamma, S, delta=DELTAP, scores_out=scores, n_threads=t, block=block,
                                    **rows)
        out.append((c.a.tobytes(), c.b, c.e, c.n_c, c.hinge, scores.tobytes()))
    assert out[0] == out[1] == out[2] == out[3]


def test_cut_pass_margin_zero_is_not_violated_and_edge_shapes():
    """c_i = [margin > 0] strictly: at v = 0, gamma = -1 the +1 rows have margin exactly 0; n = 0 and L = 0."""
    y = np.array([1.0, -1.0, 1.0, -1.0, -1.0])
    Phi = np.arange(10.0).reshape(5, 2)
    c = cutting_plane.cut_pass(y, np.zeros(2), -1.0, 0.0, Phi=Phi)
    assert c.n_c == 3 and c.b == -3 and c.hinge == 6.0 and c.e == 0.0
    np.testing.assert_array_equal(c.a, -Phi[y < 0].sum(axis=0))
    c = cutting_plane.cut_pass(y, np.zeros(2), -1.0, 2.0, Phi=Phi, delta=np.full(5, 0.5))  # margins 1 and 3
    assert c.n_c == 5 and c.b == -1 and c.e == 2.5 and c.hinge == 2 * 1.0 + 3 * 3.0
    c = cutting_plane.cut_pass(np.zeros(0), np.zeros(2), 0.0, 0.0, Phi=np.zeros((0, 2)))
    assert c.n_c == 0 and c.hinge == 0 and np.array_equal(c.a, np.zeros(2))
    for rows in ({"Phi": np.zeros((5, 0))}, {"X": Phi, "Z": np.zeros((0, 2)), "params": PARAMS["rbf"]}):
        c = cutting_plane.cut_pass(y, np.zeros(0), 0.5, 0.0, **rows)
        assert c.a.shape == (0,) and c.n_c == 5 and c.hinge == 2 * 1.5 + 3 * 0.5


PHI5 = np.ones((5, 2))
Y5 = np.array([1.0, -1.0, 1.0, -1.0, 1.0])
V2 = np.array([0.5, -0.5])
X5, Z2 = np.ones((5, 3)), np.ones((2, 3))
KP = PARAMS["rbf"]


def _cp(y=Y5, v=V2, gamma=0.0, S=0.5, **kw):
    """cut_pass on a well-formed 5 x 2 problem (Phi unless X, Z or params are given), one argument replaced."""
    if not {"X", "Z", "params"} & set(kw):
        kw.setdefault("Phi", PHI5)
    return cutting_plane.cut_pass(y, v, gamma, S, **kw)


def _read_only(a):
    a.flags.writeable = False
    return a


BAD_PASS = {
    "y 0/1": (lambda: _cp(y=np.array([1.0, 0.0, 1.0, 0.0, 1.0])), ValueError),
    "y nan": (lambda: _cp(y=np.array([1.0, np.nan, 1.0, -1.0, 1.0])), ValueError),
    "y length": (lambda: _cp(y=Y5[:4]), ValueError),
    "y 2d": (lambda: _cp(y=Y5[:, None]), ValueError),
    "delta < 0": (lambda: _cp(delta=np.array([0.1, -0.1, 0.0, 0.0, 0.0])), ValueError),
    "delta nan": (lambda: _cp(delta=np.array([0.1, np.nan, 0.0, 0.0, 0.0])), ValueError),
    "delta inf": (lambda: _cp(delta=np.full(5, np.inf)), ValueError),
    "delta length": (lambda: _cp(delta=np.zeros(4)), ValueError),
    "v length": (lambda: _cp(v=np.zeros(3)), ValueError),
    "v length streaming": (lambda: _cp(v=np.zeros(3), X=X5, Z=Z2, params=KP), ValueError),
    "v nan": (lambda: _cp(v=np.array([np.nan, 0.0])), ValueError),
    "v inf": (lambda: _cp(v=np.array([np.inf, 0.0])), ValueError),
    "gamma nan": (lambda: _cp(gamma=np.nan), ValueError),
    "gamma inf": (lambda: _cp(gamma=-np.inf), ValueError),
    "S nan": (lambda: _cp(S=np.nan), ValueError),
    "Phi and X": (lambda: _cp(Phi=PHI5, X=X5), ValueError),
    "Phi and Z": (lambda: _cp(Phi=PHI5, Z=Z2), ValueError),
    "no rows": (lambda: cutting_plane.cut_pass(Y5, V2, 0.0, 0.5), ValueError),
    "no Z": (lambda: _cp(X=X5, params=KP), ValueError),
    "no params": (lambda: _cp(X=X5, Z=Z2), ValueError),
    "no X": (lambda: _cp(Z=Z2, params=KP), ValueError),
    "Z columns": (lambda: _cp(X=X5, Z=Z2[:, :2], params=KP), ValueError),
    "X nan": (lambda: _cp(X=np.where(np.eye(5, 3) > 0, np.nan, 1.0), Z=Z2, params=KP), ValueError),
    "Z inf": (lambda: _cp(X=X5, Z=np.where(np.eye(2, 3) > 0, np.inf, 1.0), params=KP), ValueError),
    "Phi 1d": (lambda: _cp(Phi=np.ones(5)), ValueError),
    "block 0": (lambda: _cp(block=0), ValueError),
    "block < 0": (lambda: _cp(block=-4, X=X5, Z=Z2, params=KP), ValueError),
    "scores_out length": (lambda: _cp(scores_out=np.zeros(4)), ValueError),
    "scores_out 2d": (lambda: _cp(scores_out=np.zeros((5, 1))), ValueError),
    "scores_out read-only": (lambda: _cp(scores_out=_read_only(np.zeros(5))), ValueError),
    "scores_out strided": (lambda: _cp(scores_out=np.zeros(10)[::2]), ValueError),
    "y int": (lambda: _cp(y=Y5.astype(int)), TypeError),
    "y list": (lambda: _cp(y=Y5.tolist()), TypeError),
    "v float32": (lambda: _cp(v=V2.astype(np.float32)), TypeError),
    "Phi float32": (lambda: _cp(Phi=PHI5.astype(np.float32)), TypeError),
    "Phi int": (lambda: _cp(Phi=PHI5.astype(int)), TypeError),
    "X int": (lambda: _cp(X=X5.astype(int), Z=Z2, params=KP), TypeError),
    "Z float32": (lambda: _cp(X=X5, Z=Z2.astype(np.float32), params=KP), TypeError),
    "delta float32": (lambda: _cp(delta=np.zeros(5, np.float32)), TypeError),
    "scores_out float32": (lambda: _cp(scores_out=np.zeros(5, np.float32)), TypeError),
    "params a string": (lambda: _cp(X=X5, Z=Z2, params="rbf"), TypeError),
    "gamma a string": (lambda: _cp(gamma="0"), TypeError),
}


@pytest.mark.parametrize("case", list(BAD_PASS))
def test_cut_pass_rejects_bad_input(case):
    call, exc = BAD_PASS[case]
    with pytest.raises(exc):
        call()


def test_cut_pass_bad_input_leaves_scores_out_alone():
    """A refused call (bad y found before the sweep) writes nothing."""
    scores = np.full(5, 7.0)
    with pytest.raises(ValueError):
        _cp(y=np.array([1.0, -1.0, 1.0, -1.0, 2.0]), scores_out=scores)
    np.testing.assert_array_equal(scores, 7.0)
    _cp(scores_out=scores)
    np.testing.assert_array_equal(scores, PHI5 @ V2)


# --------------------------------------------------------------------------------------------- the direct LP
@pytest.mark.parametrize("kind", ["rbf", "poly"])
@pytest.mark.parametrize("level", ["none", "small", "large"])
@pytest.mark.parametrize("nu", [0.05, 1.0])
def test_solve_direct_matches_scipy_linprog(kind, level, nu):
    _, y, _, _, Phi, r = _problem(60, 6, kind, balanced=False, seed=3)
    delta = _delta(level, Phi, r, seed=4)
    sol = solve_direct(Phi, y, r, nu, delta)
    assert sol.objective == pytest.approx(_linprog(Phi, y, r, nu, delta), rel=1e-7)
    assert sol.objective == pytest.approx(_objective(Phi, y, r, delta, nu, sol.v, sol.gamma), rel=1e-7)
    assert sol.lower_bound == sol.objective and sol.gap == 0.0


# --------------------------------------------------------------------------------------------- 2. cutting planes
PROBLEMS = {
    "n100-L5-rbf-bal": (100, 5, "rbf", True, 0),
    "n250-L20-poly-unbal": (250, 20, "poly", False, 1),
    "n400-L60-rbf-unbal": (400, 60, "rbf", False, 2),
    "n600-L40-poly-bal": (600, 40, "poly", True, 3),
    "n600-L60-rbf-bal": (600, 60, "rbf", True, 4),
}
NUS = [0.01, 0.1, 1.0, 10.0]


def _check_solution(sol, Phi, y, r, delta, nu, opt, tol):
    """The certified gap brackets the direct optimum, and the solution is what it says it is."""
    assert isinstance(sol, ReducedSolution) and sol.nu == nu
    assert sol.lower_bound <= opt * (1 + 1e-9) + 1e-9
    assert sol.objective >= opt * (1 - 1e-9) - 1e-9
    assert -1e-12 <= sol.gap <= tol
    np.testing.assert_allclose(sol.scores, Phi @ sol.v, rtol=0,
                               atol=1e-12 * max(1.0, float(np.abs(Phi).max() * np.abs(sol.v).sum())))
    assert sol.objective == pytest.approx(_objective(Phi, y, r, delta, nu, sol.v, sol.gamma), rel=1e-12, abs=1e-12)
    assert len(sol.history) <= sol.n_iter <= 2 * len(sol.history)  # passes: two in an iteration that mis-prices
    ub, lb = np.array(sol.history).T
    assert np.all(np.diff(ub) <= 0) and np.all(np.diff(lb) >= 0)  # the bounds only tighten
    assert ub[-1] == sol.objective and lb[-1] == sol.lower_bound


@pytest.mark.parametrize("problem", list(PROBLEMS))
@pytest.mark.parametrize("level", ["none", "small", "large"])
@pytest.mark.parametrize("nu", NUS)
def test_cutting_planes_reach_the_direct_optimum(problem, level, nu):
    n, L, kind, balanced, seed = PROBLEMS[problem]
    _, y, _, _, Phi, r = _problem(n, L, kind, balanced, seed)
    delta = _delta(level, Phi, r, seed + 100)
    opt = solve_direct(Phi, y, r, nu, delta).objective
    tol = 1e-7
    sol = ReducedLP(y, r, Phi=Phi, delta=delta).solve(nu, tol=tol)
    _check_solution(sol, Phi, y, r, delta, nu, opt, tol)
    assert sol.objective == pytest.approx(opt, rel=1e-6)
    if level == "large":  # v = 0 is optimal, and the best gamma leaves only the smaller class in the hinge
        closed = nu * 2 * min(np.sum(y > 0), np.sum(y < 0))
        assert opt == pytest.approx(closed, rel=1e-9)
        assert np.abs(sol.v).max() <= 1e-9 * max(1.0, closed)


def test_small_delta_and_deterministic_optima_are_not_trivial():
    """The problems above exercise v != 0: at nu = 1 neither the deterministic nor the small-delta optimum is the
    closed form of v = 0."""
    for n, L, kind, balanced, seed in PROBLEMS.values():
        _, y, _, _, Phi, r = _problem(n, L, kind, balanced, seed)
        closed = 2 * min(np.sum(y > 0), np.sum(y < 0))
        for level in ("none", "small"):
            sol = solve_direct(Phi, y, r, 1.0, _delta(level, Phi, r, seed + 100))
            assert np.abs(sol.v).sum() > 0 and sol.objective < closed * (1 - 1e-3)


# --------------------------------------------------------------------------------------------- 3. paper 000's LP
@pytest.mark.parametrize("kind", ["rbf", "poly"])
@pytest.mark.parametrize("robust_", [False, True], ids=["det", "robust"])
@pytest.mark.parametrize("nu", [0.05, 0.5, 5.0])
def test_landmarks_at_every_training_point_give_paper_lp_23(kind, robust_, nu):
    """Phi = K(X, X), r = sqrt(diag K): the reduced LP is LP (23) with v_j = y_j u_j."""
    rng = np.random.default_rng(5)
    n = 70
    X = rng.standard_normal((n, 2))
    y = np.where(X[:, 0] + 0.5 * rng.standard_normal(n) > 0, 1.0, -1.0)
    K = kernels.gram(X, PARAMS[kind])
    r = np.sqrt(np.diag(K))
    delta = _delta("small" if robust_ else "none", K, r, seed=6)
    paper = fit_binary(K, y, delta=delta, nus=[nu], lp_solver="highs")
    sol = ReducedLP(y, r, Phi=K, delta=delta).solve(nu, tol=1e-8)
    assert sol.objective == pytest.approx(paper.objective, rel=1e-6)
    assert sol.lower_bound <= paper.objective * (1 + 1e-9) + 1e-9
    assert solve_direct(K, y, r, nu, delta).objective == pytest.approx(paper.objective, rel=1e-7)
    # the paper's u is feasible and optimal in the reduced LP (v = y u) too
    assert _objective(K, y, r, delta, nu, y * paper.u, paper.gamma) == pytest.approx(paper.objective, rel=1e-6)


# --------------------------------------------------------------------------------------------- 4. a nu grid
@pytest.mark.parametrize("level", ["none", "small"])
@pytest.mark.parametrize("problem", ["n400-L60-rbf-unbal", "n600-L40-poly-bal"])
def test_cuts_kept_across_a_nu_grid(problem, level):
    n, L, kind, balanced, seed = PROBLEMS[problem]
    _, y, _, _, Phi, r = _problem(n, L, kind, balanced, seed)
    delta = _delta(level, Phi, r, seed + 100)
    grid = np.logspace(-3, 0, 5)
    warm = ReducedLP(y, r, Phi=Phi, delta=delta)
    cold_passes = 0
    for nu in grid:
        kept = warm.solve(nu)
        cold_lp = ReducedLP(y, r, Phi=Phi, delta=delta)
        cold = cold_lp.solve(nu)
        cold_passes += cold_lp.n_passes
        opt = solve_direct(Phi, y, r, nu, delta).objective
        assert kept.objective == pytest.approx(cold.objective, rel=1e-6)
        _check_solution(kept, Phi, y, r, delta, nu, opt, 1e-6)
        _check_solution(cold, Phi, y, r, delta, nu, opt, 1e-6)
    print(f"{problem} delta={level}: {warm.n_passes} passes with the cuts kept, {cold_passes} cold")
    assert warm.n_passes <= cold_passes
    assert warm.n_cuts <= warm.G * warm.n_passes


# --------------------------------------------------------------------------------------------- 5. streaming
@pytest.mark.parametrize("kind", list(PARAMS))
@pytest.mark.parametrize("level", ["none", "small"])
@pytest.mark.parametrize("block", [7, 4096])
def test_streaming_and_cached_rows_give_the_same_iterates(kind, level, block):
    X, y, Z, params, Phi, r = _problem(300, 25, kind, True, 6)
    delta = _delta(level, Phi, r, 7)
    runs = {
        "cached": ReducedLP(y, r, Phi=Phi, delta=delta, block=block),
        "cached F": ReducedLP(y, r, Phi=np.asfortranarray(Phi), delta=delta, block=block),
        "streaming": ReducedLP(y, r, X=X, Z=Z, params=params, delta=delta, block=block, n_threads=2),
    }
    sols = {name: [lp.solve(nu) for nu in (0.1, 1.0)] for name, lp in runs.items()}
    ref = sols["cached"]
    for name, got in sols.items():
        assert runs[name].n_passes == runs["cached"].n_passes, name
        for g, c in zip(got, ref, strict=True):
            assert g.n_iter == c.n_iter, name
            assert g.objective == pytest.approx(c.objective, rel=1e-12)
            assert g.lower_bound == pytest.approx(c.lower_bound, rel=1e-12)
            np.testing.assert_allclose(g.history, c.history, rtol=1e-12)
            np.testing.assert_allclose(g.v, c.v, rtol=1e-12, atol=1e-12)
            np.testing.assert_allclose(g.scores, c.scores, rtol=1e-12, atol=1e-12)


# --------------------------------------------------------------------------------------------- 6. limits, bad input
@pytest.mark.parametrize("max_iter", [1, 2, 5, 20])
@pytest.mark.parametrize("level", ["none", "small"])
def test_an_early_stop_still_brackets_the_optimum(max_iter, level):
    _, y, _, _, Phi, r = _problem(400, 60, "rbf", False, 2)
    delta = _delta(level, Phi, r, 102)
    nu = 1.0
    opt = solve_direct(Phi, y, r, nu, delta).objective
    lp = ReducedLP(y, r, Phi=Phi, delta=delta)
    sol = lp.solve(nu, max_iter=max_iter)
    assert sol.n_iter == max_iter and sol.gap > 1e-6  # stopped by the limit on passes, with a loose gap
    assert sol.lower_bound <= opt * (1 + 1e-9) + 1e-9
    assert sol.objective >= opt * (1 - 1e-9) - 1e-9
    assert sol.objective == pytest.approx(_objective(Phi, y, r, delta, nu, sol.v, sol.gamma), rel=1e-12)
    np.testing.assert_allclose(sol.scores, Phi @ sol.v, rtol=0, atol=1e-12 * max(1.0, np.abs(sol.v).sum()))
    # the same object goes on from its cuts to the optimum
    done = lp.solve(nu, tol=1e-7)
    assert done.objective == pytest.approx(opt, rel=1e-6) and done.gap <= 1e-7


_, YB, _, _, PHIB, RB = _problem(40, 4, "rbf", True, 9)


@pytest.mark.parametrize("nu", [0.0, -1.0, np.nan, np.inf])
def test_reduced_lp_rejects_bad_nu(nu):
    with pytest.raises(ValueError, match="nu"):
        ReducedLP(YB, RB, Phi=PHIB).solve(nu)


@pytest.mark.parametrize("nu", [0.0, -1.0, np.nan, np.inf])
def test_solve_direct_rejects_bad_nu(nu):
    with pytest.raises(ValueError, match="nu"):
        solve_direct(PHIB, YB, RB, nu)


BAD_LP = {
    "y 0/1": dict(y=(YB > 0).astype(float)),
    "y nan": dict(y=np.where(np.arange(40) == 3, np.nan, YB)),
    "y length": dict(y=YB[:-1]),
    "delta < 0": dict(delta=np.where(np.arange(40) == 3, -0.1, 0.1)),
    "delta nan": dict(delta=np.where(np.arange(40) == 3, np.nan, 0.1)),
    "delta inf": dict(delta=np.full(40, np.inf)),
    "delta length": dict(delta=np.full(39, 0.1)),
    "r < 0": dict(r=-RB),
    "r nan": dict(r=np.where(np.arange(4) == 1, np.nan, RB)),
    "r 2d": dict(r=RB[:, None]),
    "no Z": dict(Phi=None, X=PHIB, params=PARAMS["rbf"]),
    "no params": dict(Phi=None, X=PHIB, Z=PHIB[:4]),
    "Phi and X": dict(X=PHIB),
}


@pytest.mark.parametrize("case", list(BAD_LP))
def test_reduced_lp_rejects_bad_input(case):
    kw = dict(y=YB, r=RB, Phi=PHIB, delta=None)
    kw.update(BAD_LP[case])
    with pytest.raises(ValueError):
        ReducedLP(**kw)


@pytest.mark.parametrize("case", [c for c in BAD_LP if not c.startswith("no ") and "X" not in c])
def test_solve_direct_rejects_bad_input(case):
    kw = dict(y=YB, r=RB, delta=np.full(40, 0.01))
    kw.update(BAD_LP[case])
    with pytest.raises(ValueError):
        solve_direct(PHIB, kw["y"], kw["r"], 1.0, kw["delta"])


@pytest.mark.parametrize("L", [3, 5])
def test_r_of_the_wrong_length_is_a_value_error(L):
    with pytest.raises(ValueError, match="one value per landmark"):
        ReducedLP(YB, np.ones(L), Phi=PHIB)
    with pytest.raises(ValueError):
        solve_direct(PHIB, YB, np.ones(L), 1.0, np.full(40, 0.01))


def _phi_with(value, column=False):
    P = PHIB.copy()
    if column:
        P[:, 1] = value
    else:
        P[5, 1] = value
    return P


@pytest.mark.parametrize("case", ["pass nan", "pass inf", "ReducedLP inf column"])
def test_non_finite_phi_is_a_value_error(case):
    with pytest.raises(ValueError, match="Phi must be finite"):
        if case == "ReducedLP inf column":
            ReducedLP(YB, RB, Phi=_phi_with(np.inf, column=True)).solve(1.0)
        else:
            cutting_plane.cut_pass(YB, np.zeros(4), 0.0, 0.0, Phi=_phi_with(np.nan if "nan" in case else np.inf))


@pytest.mark.parametrize("value", [np.nan, np.inf])
def test_solve_direct_refuses_non_finite_phi(value):
    with pytest.raises(ValueError, match="non-finite"):
        solve_direct(_phi_with(value), YB, RB, 1.0)


@pytest.mark.parametrize(("tol", "max_iter"), [(-1e-6, 10), (np.nan, 10), (1e-6, 0)])
def test_reduced_lp_rejects_bad_stopping_rules(tol, max_iter):
    with pytest.raises(ValueError, match="tol must be >= 0 and max_iter >= 1"):
        ReducedLP(YB, RB, Phi=PHIB).solve(1.0, tol=tol, max_iter=max_iter)


# --------------------------------------------------------------------------------------------- multi-cut
@pytest.mark.parametrize("G", [1, 3, 7])
@pytest.mark.parametrize("block", [5, 4096])
def test_group_sums_are_the_sums_over_consecutive_rows(G, block):
    n, L = 40, 4
    rng = np.random.default_rng(G)
    Phi = rng.normal(size=(n, L))
    y = np.where(rng.random(n) < 0.5, 1.0, -1.0)
    delta = rng.random(n) * 0.1
    v, gamma, S = rng.normal(size=L), 0.3, 0.7
    cut = cutting_plane.cut_pass(y, v, gamma, S, Phi=Phi, delta=delta, block=block, n_groups=G)
    margin = 1 + y * gamma - y * (Phi @ v) + delta * S
    c = margin > 0
    assert cut.a_groups.shape == (G, L) and cut.b_groups.shape == (G,)
    for g in range(G):
        rows = slice(g * n // G, (g + 1) * n // G)
        cg = c[rows]
        np.testing.assert_allclose(cut.a_groups[g], Phi[rows][cg].T @ y[rows][cg], rtol=1e-12, atol=1e-12)
        assert cut.b_groups[g] == pytest.approx(y[rows][cg].sum(), abs=1e-12)
        assert cut.e_groups[g] == pytest.approx(delta[rows][cg].sum(), rel=1e-12)
        assert cut.n_c_groups[g] == cg.sum()
        assert cut.hinge_groups[g] == pytest.approx(margin[rows][cg].sum(), rel=1e-12)
    np.testing.assert_allclose(cut.a, cut.a_groups.sum(axis=0), rtol=1e-12, atol=1e-12)
    assert cut.hinge == pytest.approx(cut.hinge_groups.sum(), rel=1e-12)
    with pytest.raises(ValueError, match="n_groups"):
        cutting_plane.cut_pass(y, v, gamma, S, Phi=Phi, n_groups=n + 1)


@pytest.mark.parametrize("G", [1, 2, 16, 64])
@pytest.mark.parametrize("nu", [0.1, 1.0])
def test_every_group_count_reaches_the_direct_optimum(G, nu):
    _, y, _, _, Phi, r = _problem(300, 20, "rbf", True, 5)
    opt = solve_direct(Phi, y, r, nu).objective
    lp = ReducedLP(y, r, Phi=Phi, n_groups=G)
    sol = lp.solve(nu)
    assert lp.G == G
    _check_solution(sol, Phi, y, r, None, nu, opt, 1e-6)
    assert lp.n_cuts <= G * lp.n_passes


@pytest.mark.parametrize("max_age", [0, 2, 20])
def test_deleting_old_slack_cuts_keeps_the_optimum(max_age):
    _, y, _, _, Phi, r = _problem(400, 30, "rbf", False, 11)
    opt = solve_direct(Phi, y, r, 1.0).objective
    lp = ReducedLP(y, r, Phi=Phi)
    lp.max_age = max_age
    sol = lp.solve(1.0)
    _check_solution(sol, Phi, y, r, None, 1.0, opt, 1e-6)
    assert lp.master.n_rows <= lp.n_cuts
    if max_age == 0:
        assert lp.master.n_rows < lp.n_cuts  # some cut was slack at a solve, and deleted


# --------------------------------------------------------------------------------------------- out of core
def _stream_problem(seed=0, n=1500, L=25, d=5):
    rng = np.random.default_rng(seed)
    X = rng.normal(size=(n, d))
    y = np.where(X[:, 0] + 0.5 * X[:, 1] ** 2 + 0.3 * rng.normal(size=n) > 0.5, 1.0, -1.0)
    params = kernels.KernelParams(kernels.KernelKind.rbf, alpha=1.5)
    Z = np.ascontiguousarray(X[rng.choice(n, L, replace=False)])
    return X, y, Z, params, np.sqrt(kernels.diag(Z, params)), rng.random(n) * 0.01


@pytest.mark.parametrize("chunks", [(1500, 5), (377, 5), (100, 5)])
@pytest.mark.parametrize("robust_model", [False, True])
def test_a_dask_array_gives_the_in_memory_solution(chunks, robust_model):
    da = pytest.importorskip("dask.array")
    X, y, Z, params, r, delta = _stream_problem()
    delta = delta if robust_model else None
    mem = ReducedLP(y, r, X=X, Z=Z, params=params, delta=delta)
    ref = mem.solve(0.5)
    lazy = ReducedLP(y, r, X=da.from_array(X, chunks=chunks), Z=Z, params=params, delta=delta)
    sol = lazy.solve(0.5)
    # The chunks' sums are added in another order than the in-memory pass's (rounding in the last bits), which may
    # send the cutting planes along another path: both certify the same optimum to the gap.
    assert abs(lazy.n_passes - mem.n_passes) <= 3
    assert sol.lower_bound <= ref.objective * (1 + 1e-12) and ref.lower_bound <= sol.objective * (1 + 1e-12)
    assert sol.objective == pytest.approx(ref.objective, rel=1e-6)
    if lazy.n_passes == mem.n_passes:
        assert sol.objective == pytest.approx(ref.objective, rel=1e-10)


def test_chunk_group_sums_add_up_to_the_whole_pass():
    X, y, Z, params, _, delta = _stream_problem(n=100, L=4)
    v, G = np.random.default_rng(1).normal(size=4), 7
    whole = cutting_plane.cut_pass(y, v, 0.2, 0.3, X=X, Z=Z, params=params, delta=delta, n_groups=G)
    parts = [cutting_plane.cut_pass(y[a:b], v, 0.2, 0.3, X=X[a:b], Z=Z, params=params, delta=delta[a:b],
                                     n_groups=G, row_offset=a, n_total=100) for a, b in ((0, 33), (33, 34), (34, 100))]
    for name in ("a_groups", "b_groups", "e_groups", "n_c_groups", "hinge_groups"):
        np.testing.assert_allclose(sum(getattr(p, name) for p in parts), getattr(whole, name), rtol=1e-12,
                                   atol=1e-12)
    with pytest.raises(ValueError, match="row_offset"):
        cutting_plane.cut_pass(y[:50], v, 0.2, 0.3, X=X[:50], Z=Z, params=params, row_offset=60, n_total=100)


def test_a_memmap_gives_the_in_memory_solution(tmp_path):
    X, y, Z, params, r, _ = _stream_problem()
    mm = np.memmap(tmp_path / "X.f64", dtype=np.float64, mode="w+", shape=X.shape)
    mm[:] = X
    mm.flush()
    ref = ReducedLP(y, r, X=X, Z=Z, params=params).solve(0.5)
    sol = ReducedLP(y, r, X=np.memmap(tmp_path / "X.f64", dtype=np.float64, mode="r", shape=X.shape), Z=Z,
                    params=params).solve(0.5)
    assert sol.objective == ref.objective
    np.testing.assert_array_equal(sol.scores, ref.scores)


def test_a_master_without_a_status_is_solved_again_cold_then_rebuilt(monkeypatch):
    """HiGHS's warm-started simplex may end with no status on the long dense cuts (seen at n = 10^4): the master is
    solved again from the slack basis, then passed anew to a fresh HiGHS instance; the optimum is unchanged. Every
    attempt failing is a SolverError."""
    from svmopt._shared.highs import HighsModel
    from svmopt.exceptions import SolverError

    _, y, _, _, Phi, r = _problem(400, 30, "rbf", False, 11)
    opt = solve_direct(Phi, y, r, 1.0).objective
    real, real_clear, real_rebuild = HighsModel.solve, HighsModel.clear_solver, HighsModel.rebuild
    calls = {"n": 0, "cleared": 0, "rebuilt": 0}

    def flaky(self, **kw):  # HighsModel.solve's keywords (iterate_at_limit) passed on
        calls["n"] += 1
        if calls["n"] % 7 in (3, 4):  # two failures in a row every 7 solves: warm and cold fail, the rebuild solves
            raise SolverError("HiGHS could not solve the LP: Unknown", "Unknown")
        return real(self, **kw)

    def clear(self):
        calls["cleared"] += 1
        real_clear(self)

    def rebuild(self):
        calls["rebuilt"] += 1
        real_rebuild(self)

    monkeypatch.setattr(HighsModel, "solve", flaky)
    monkeypatch.setattr(HighsModel, "clear_solver", clear)
    monkeypatch.setattr(HighsModel, "rebuild", rebuild)
    lp = ReducedLP(y, r, Phi=Phi)
    sol = lp.solve(1.0)
    _check_solution(sol, Phi, y, r, None, 1.0, opt, 1e-6)
    assert calls["cleared"] > 0 and calls["rebuilt"] > 0
    assert lp.master.options["simplex_strategy"] == 1 and lp.master.n_rows > 0  # the same model, options kept

    monkeypatch.setattr(HighsModel, "solve", lambda self, **kw: (_ for _ in ()).throw(SolverError("no", "Unknown")))
    with pytest.raises(SolverError):
        ReducedLP(y, r, Phi=Phi).solve(1.0)


def test_a_rebuilt_model_is_the_same_lp():
    from svmopt._shared.highs import HighsModel

    m = HighsModel(a_start=[0, 2, 3], a_index=[0, 1, 1], a_value=[1.0, 2.0, 1.0], col_cost=[1.0, 1.0], n_rows=2,
                   row_lower=[1.0, 3.0], options={"time_limit": 30.0})
    m.add_rows([0.5], [np.inf], [0], [0], [1.0])
    before = m.solve()
    m.rebuild()
    after = m.solve()
    assert m.n_rows == 3 and after.objective == pytest.approx(before.objective, rel=1e-12)
    np.testing.assert_allclose(after.x, before.x, atol=1e-12)
    assert m._h.getOptionValue("time_limit")[1] == 30.0
