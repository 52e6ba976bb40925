"""The typed API of the C++ core (``svmopt._core``): one submodule per concept, each typed by its stub
(python/svmopt/_core/<submodule>.pyi), bound option enums, bound result classes, the array policy (the exact dtype
or a TypeError, any memory layout) and the BLAS looked for on the first call that needs one.

The stubs are parsed here and compared with the runtime in both directions, so that neither can drift."""

from __future__ import annotations

import ast
import importlib
import json
import os
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

from svmopt import _core

SUBMODULES = ("kernels", "cutting_plane", "robust", "prototypes", "fixed_size", "ellipsoid", "blas")
STUBS = Path(__file__).resolve().parents[2] / "python" / "svmopt" / "_core"


def _stub(name: str) -> ast.Module:
    return ast.parse((STUBS / f"{name}.pyi").read_text(encoding="utf-8"))


def _stub_names(tree: ast.Module) -> set[str]:
    """Top-level def / class names of a stub."""
    return {node.name for node in tree.body if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef))}


def _public(mod) -> set[str]:
    return {n for n in dir(mod) if not n.startswith("_")}


def _stub_enums(sub: str) -> dict[str, dict[str, int]]:
    """The pybind11 enums of a stub (classes declaring ``__members__``), {class: {member: value}}: the members are the
    ``ClassVar[Cls]`` attributes in declaration order, valued 0, 1, ... like the C++ enums they bind."""
    out = {}
    for node in _stub(sub).body:
        if not isinstance(node, ast.ClassDef):
            continue
        annotated = [s for s in node.body if isinstance(s, ast.AnnAssign) and isinstance(s.target, ast.Name)]
        if not any(s.target.id == "__members__" for s in annotated):
            continue
        members = [s.target.id for s in annotated if ast.unparse(s.annotation) == f"ClassVar[{node.name}]"]
        out[node.name] = {name: value for value, name in enumerate(members)}
    return out


def _stub_properties(sub: str, cls: str) -> set[str]:
    """The @property names of a class of a stub."""
    for node in _stub(sub).body:
        if isinstance(node, ast.ClassDef) and node.name == cls:
            return {f.name for f in node.body if isinstance(f, ast.FunctionDef)
                    and any(ast.unparse(d) == "property" for d in f.decorator_list)}
    raise KeyError(cls)


# --------------------------------------------------------------------------------------------- (a) submodules
@pytest.mark.parametrize("sub", SUBMODULES)
def test_submodule_is_an_attribute_and_importable(sub):
    mod = getattr(_core, sub)
    assert importlib.import_module(f"svmopt._core.{sub}") is mod
    ns: dict = {}
    exec(f"import svmopt._core.{sub} as m", ns)  # the import statement, not only importlib
    assert ns["m"] is mod
    assert getattr(importlib.import_module(f"svmopt._core_{_core.isa}"), sub) is mod  # the variant loaded


@pytest.mark.parametrize("sub", SUBMODULES)
def test_stub_lists_exactly_the_runtime_names(sub):
    """<sub>.pyi's top-level functions and classes are the submodule's public names, both ways."""
    stub, runtime = _stub_names(_stub(sub)), _public(getattr(_core, sub))
    assert stub - runtime == set(), f"in {sub}.pyi but not in svmopt._core.{sub}: {sorted(stub - runtime)}"
    assert runtime - stub == set(), f"in svmopt._core.{sub} but not in {sub}.pyi: {sorted(runtime - stub)}"


def test_package_stub_lists_the_runtime_top_level():
    """__init__.pyi: its functions, annotated values and re-exported submodules are the package's public names (the
    package's own imports aside)."""
    tree = _stub("__init__")
    stub = _stub_names(tree) | {n.target.id for n in tree.body if isinstance(n, ast.AnnAssign)}
    stub |= {a.asname or a.name for n in tree.body if isinstance(n, ast.ImportFrom) and n.module == "svmopt._core"
             for a in n.names}
    assert set(SUBMODULES) <= stub
    runtime = _public(_core) - {"annotations", "os", "sys", "ModuleType"}
    assert stub == runtime, f"stub only: {sorted(stub - runtime)}; runtime only: {sorted(runtime - stub)}"


def test_every_variant_has_the_same_submodules():
    """_core_baseline and (where built and runnable) _core_avx2 bind the same names as the variant in use."""
    variants = [importlib.import_module("svmopt._core_baseline")]
    if variants[0].cpu_supports_avx2_fma():
        try:
            variants.append(importlib.import_module("svmopt._core_avx2"))
        except ImportError:
            pass
    for mod in variants:
        for sub in SUBMODULES:
            assert _public(getattr(mod, sub)) == _public(getattr(_core, sub)), (mod.__name__, sub)
        K = mod.kernels.gram(np.eye(3), mod.kernels.KernelParams(mod.kernels.KernelKind.linear))
        np.testing.assert_array_equal(K, np.eye(3))


# --------------------------------------------------------------------------------------------- (b) enums
ENUMS = [(sub, cls) for sub in SUBMODULES for cls in _stub_enums(sub)]


def test_the_stubs_declare_the_expected_enums():
    assert sorted(ENUMS) == sorted([("kernels", "KernelKind"), ("robust", "Objective"), ("robust", "DenseLPStatus"),
                                    ("ellipsoid", "RandScope"), ("ellipsoid", "Sync"), ("ellipsoid", "Boundary"),
                                    ("ellipsoid", "Fitness"),
                                    ("fixed_size", "CVTask")])


@pytest.mark.parametrize(("sub", "cls"), ENUMS, ids=[f"{s}.{c}" for s, c in ENUMS])
def test_enum_members_names_and_values_as_in_the_stub(sub, cls):
    want = _stub_enums(sub)[cls]
    enum_cls = getattr(getattr(_core, sub), cls)
    members = dict(enum_cls.__members__)
    assert list(members) == list(want)
    for name, value in want.items():
        member = getattr(enum_cls, name)
        assert members[name] is member or members[name] == member
        assert member.name == name and int(member.value) == value
        assert isinstance(member, enum_cls)
    # the members live in the enum, not in the submodule's namespace
    assert not set(want) & _public(getattr(_core, sub))


S2, Y2 = np.array([0.0, 1.0]), np.array([-1.0, 1.0])
MU, P = np.zeros(2), np.eye(2)
STRING_FOR_ENUM = {
    "kernels.KernelParams kind": lambda: _core.kernels.KernelParams("rbf"),
    "robust.line_search_count objective": lambda: _core.robust.line_search_count(S2, Y2, 0.5, "paper"),
    "robust.line_search_grid objective": lambda: _core.robust.line_search_grid(S2, Y2, -1, 1, 5, 0.0, "paper"),
    "robust.line_search_grid_naive objective": lambda: _core.robust.line_search_grid_naive(S2, Y2, -1, 1,
                                                                                           objective="decision"),
    "robust.line_search_exact objective": lambda: _core.robust.line_search_exact(S2, Y2, -1, 1, objective="paper"),
    "ellipsoid.two_swarm rand_scope": lambda: _core.ellipsoid.two_swarm(MU, P, MU + 3, P, max_iter=2,
                                                                         rand_scope="particle"),
    "ellipsoid.two_swarm sync": lambda: _core.ellipsoid.two_swarm(MU, P, MU + 3, P, max_iter=2, sync="gauss_seidel"),
    "ellipsoid.two_swarm boundary": lambda: _core.ellipsoid.two_swarm(MU, P, MU + 3, P, max_iter=2,
                                                                      boundary="project"),
    "ellipsoid.single_swarm fitness": lambda: _core.ellipsoid.single_swarm(MU, P, MU + 3, "linear", max_iter=2),
    "ellipsoid.single_swarm rand_scope": lambda: _core.ellipsoid.single_swarm(MU, P, MU + 3, max_iter=2,
                                                                              rand_scope="iteration"),
    "ellipsoid.single_swarm boundary": lambda: _core.ellipsoid.single_swarm(MU, P, MU + 3, max_iter=2,
                                                                            boundary="revert"),
    "ellipsoid.draws rand_scope": lambda: _core.ellipsoid.draws(0, 0, 1, 3, 2, "iteration"),
    "fixed_size.CVCost task": lambda: _core.fixed_size.CVCost(np.eye(2), Y2[:, None].copy(), np.zeros(2, np.int32), 1,
                                                              np.eye(2), _core.kernels.KernelParams(
                                                                  _core.kernels.KernelKind.linear), False, 0,
                                                              "classification"),
}


@pytest.mark.parametrize("case", list(STRING_FOR_ENUM))
def test_a_string_where_an_enum_belongs_is_a_type_error(case):
    with pytest.raises(TypeError):
        STRING_FOR_ENUM[case]()


def test_the_enum_options_select_what_they_name():
    """The enum values reach the core: the two objectives count a tie differently (a +1 point at s = b is correct in
    (10), wrong for sign(s - b)); the iteration scope shares r1..r3 across particles; the fitnesses differ."""
    robust, ellipsoid = _core.robust, _core.ellipsoid
    assert robust.line_search_count(np.array([0.5]), np.array([1.0]), 0.5, robust.Objective.paper) == 0
    assert robust.line_search_count(np.array([0.5]), np.array([1.0]), 0.5, robust.Objective.decision) == 1
    d = ellipsoid.draws(3, 0, 4, 6, 2, ellipsoid.RandScope.iteration)
    assert np.all(d[:, :3] == d[0, :3])
    assert not np.all(ellipsoid.draws(3, 0, 4, 6, 2, ellipsoid.RandScope.particle)[:, :3] == d[0, :3])
    a = np.array([3.0, 0.0])
    near = ellipsoid.single_swarm(MU, P, a, ellipsoid.Fitness.distance, max_iter=20, seed=1)
    lin = ellipsoid.single_swarm(MU, P, a, ellipsoid.Fitness.linear, max_iter=20, seed=1)
    assert near.gbest_fitness == pytest.approx(np.linalg.norm(a - near.gbest))
    assert lin.gbest_fitness == pytest.approx(-a @ lin.gbest)


# --------------------------------------------------------------------------------------------- (c) result classes
def _check_attributes(obj, sub: str, cls: str):
    """Every property the stub declares is there and read-only."""
    for name in _stub_properties(sub, cls):
        value = getattr(obj, name)
        with pytest.raises(AttributeError):
            setattr(obj, name, value)


def _f64(a, shape):
    assert isinstance(a, np.ndarray) and a.dtype == np.float64 and a.shape == shape, (type(a), a.dtype, a.shape)
    assert a.flags.c_contiguous


def test_dense_lp_solve_returns_a_dense_lp_result():
    K = np.array([[1.0, 0.2, 0.1], [0.2, 1.0, 0.3], [0.1, 0.3, 1.0]])
    y = np.array([1.0, -1.0, 1.0])
    lp = _core.robust.DenseLP(K, y, np.full(3, 0.01))
    assert isinstance(lp, _core.robust.DenseLP) and lp.m == 3
    r = lp.solve(0.5)
    assert type(r) is _core.robust.DenseLPResult
    _check_attributes(r, "robust", "DenseLPResult")
    assert type(r.status) is _core.robust.DenseLPStatus
    assert r.status == _core.robust.DenseLPStatus.optimal and r.status.name == "optimal"
    _f64(r.x, (3 * 3 + 1,))
    _f64(r.dual, (3,))
    for name in ("objective", "dual_objective", "primal_infeasibility", "dual_infeasibility"):
        assert isinstance(getattr(r, name), float)
    assert isinstance(r.iterations, int) and r.iterations >= 0
    assert r.objective == pytest.approx(r.dual_objective, rel=1e-7)
    assert lp.solve(0.5, max_iter=0, tol=1e-7).status == _core.robust.DenseLPStatus.optimal


def test_cut_pass_returns_cut_sums():
    Phi = np.array([[1.0, 0.5], [0.2, 1.0], [0.3, 0.3]])
    y = np.array([1.0, -1.0, 1.0])
    c = _core.cutting_plane.cut_pass(y, np.array([1.0, 0.0]), 0.0, 1.0, Phi=Phi, delta=np.full(3, 0.25))
    assert type(c) is _core.cutting_plane.CutSums
    _check_attributes(c, "cutting_plane", "CutSums")
    _f64(c.a, (2,))
    for name in ("b", "e", "n_c", "hinge"):
        assert isinstance(getattr(c, name), float)
    # margins 1 + y gamma - y f + delta S = 0.25, 1.45, 0.95: every row violated
    assert c.n_c == 3.0 and c.b == 1.0 and c.e == 0.75
    assert c.hinge == pytest.approx(0.25 + 1.45 + 0.95, rel=1e-15)
    np.testing.assert_allclose(c.a, Phi.T @ y, rtol=1e-15)
    with pytest.raises(TypeError):
        _core.cutting_plane.CutSums()  # built by the core only


def test_entropy_select_returns_an_entropy_select_result():
    Z = np.random.default_rng(0).standard_normal((60, 3))
    r = _core.prototypes.entropy_select(Z, 8, max_proposals=200, seed=2)
    assert type(r) is _core.prototypes.EntropySelectResult
    _check_attributes(r, "prototypes", "EntropySelectResult")
    assert isinstance(r.idx, np.ndarray) and r.idx.dtype == np.int64 and r.idx.shape == (8,)
    assert len(set(r.idx.tolist())) == 8 and r.idx.min() >= 0 and r.idx.max() < 60
    assert isinstance(r.log_offdiag, float)
    assert r.log_offdiag == pytest.approx(_core.prototypes.entropy_log_offdiag(Z, r.idx), rel=1e-9)
    for name in ("n_proposals", "n_accepted", "n_recomputes", "n_kernel_evals"):
        assert isinstance(getattr(r, name), int) and getattr(r, name) >= 0
    assert isinstance(r.stopped_early, bool)
    assert 0 < r.n_accepted <= r.n_proposals <= 200


def test_csa_minimize_returns_a_csa_result():
    x0 = np.random.default_rng(0).uniform(-3, 3, (5, 2))
    calls = []

    def cost(x):
        assert isinstance(x, np.ndarray) and x.dtype == np.float64 and x.shape == (2,)
        calls.append(x.copy())
        return float(np.sum((x - 0.5) ** 2))

    r = _core.fixed_size.csa_minimize(cost, x0, -3 * np.ones(2), 3 * np.ones(2), max_evals=90, seed=1)
    assert type(r) is _core.fixed_size.CSAResult
    _check_attributes(r, "fixed_size", "CSAResult")
    assert len(calls) == 90
    _f64(r.x, (2,))
    _f64(r.history, (90, 3))
    assert isinstance(r.fun, float) and r.fun == r.history[:, 2].min()
    np.testing.assert_array_equal(r.x, r.history[np.argmin(r.history[:, 2]), :2])
    assert isinstance(r.Tac, float) and r.Tac > 0
    assert isinstance(r.n_stages, int) and r.n_stages == 4  # stages of 5, 5, 5 and 2 sweeps of 5 states


@pytest.mark.parametrize("search", ["nelder_mead", "csa_simplex", "tune_cv"])
def test_the_searches_return_a_search_result(search):
    fs = _core.fixed_size
    lo, hi = -3 * np.ones(2), 3 * np.ones(2)
    if search == "nelder_mead":
        r = fs.nelder_mead(lambda x: float(np.sum((x - 0.5) ** 2)), np.zeros(2), lo, hi, max_evals=30)
    elif search == "csa_simplex":
        r = fs.csa_simplex(lambda x: float(np.sum((x - 0.5) ** 2)), np.zeros((5, 2)), lo, hi, n_csa=20, n_simplex=30)
    else:
        Xc = np.random.default_rng(0).standard_normal((30, 2))
        cv = fs.CVCost(Xc, np.sign(Xc[:, :1]) + 0.0, (np.arange(30) % 3).astype(np.int32), 3, Xc[:5].copy(),
                       _core.kernels.KernelParams(_core.kernels.KernelKind.rbf, alpha=1.0), True, 0,
                       fs.CVTask.classification)
        r = fs.tune_cv(cv, np.zeros((5, 2)), lo, hi, True, True, 1.0, 1.0, n_csa=20, n_simplex=30)
    assert type(r) is fs.SearchResult
    _check_attributes(r, "fixed_size", "SearchResult")
    n = r.history.shape[0]
    _f64(r.x, (2,))
    _f64(r.history, (n, 3))
    assert isinstance(r.fun, float) and r.fun == r.history[:, 2].min()
    np.testing.assert_array_equal(r.x, r.history[np.argmin(r.history[:, 2]), :2])
    for name in ("n_csa", "n_simplex", "n_stages"):
        assert isinstance(getattr(r, name), int)
    assert isinstance(r.Tac, float)
    assert r.n_csa + r.n_simplex == n and r.n_simplex <= 30
    if search == "nelder_mead":
        assert r.n_csa == 0 and r.Tac == 0.0 and r.n_stages == 0
    else:
        assert r.n_csa == 20 and r.Tac > 0 and r.n_stages > 0


def _check_trace(t, T, k, n, record):
    assert type(t) is _core.ellipsoid.SwarmTrace
    _check_attributes(t, "ellipsoid", "SwarmTrace")
    _f64(t.gbest, (n,))
    assert isinstance(t.gbest_fitness, float)
    _f64(t.fitness_history, (T + 1,))
    _f64(t.gbest_history, (T + 1, n))
    np.testing.assert_array_equal(t.gbest_history[-1], t.gbest)
    assert t.fitness_history[-1] == t.gbest_fitness
    assert isinstance(t.n_reverted, int) and t.n_reverted >= 0
    for name in ("positions", "velocities", "pbests"):
        if record:
            _f64(getattr(t, name), (T + 1, k, n))
        else:
            assert getattr(t, name) is None


@pytest.mark.parametrize("record", [False, True])
def test_two_swarm_returns_a_two_swarm_result(record):
    T, k, n = 12, 6, 3
    r = _core.ellipsoid.two_swarm(np.zeros(n), np.eye(n), np.full(n, 4.0), 2 * np.eye(n), n_particles=k,
                                  max_iter=T, seed=5, record=record)
    assert type(r) is _core.ellipsoid.TwoSwarmResult
    _check_attributes(r, "ellipsoid", "TwoSwarmResult")
    _f64(r.x, (n,))
    _f64(r.y, (n,))
    assert isinstance(r.distance, float) and r.distance == pytest.approx(np.linalg.norm(r.x - r.y))
    _f64(r.distance_history, (T + 1,))
    assert r.distance_history[-1] == pytest.approx(r.distance)
    _check_trace(r.swarm1, T, k, n, record)
    _check_trace(r.swarm2, T, k, n, record)
    np.testing.assert_array_equal(r.swarm1.gbest, r.x)
    np.testing.assert_array_equal(r.swarm2.gbest, r.y)
    if record:  # every recorded position lies in its ellipsoid
        assert np.all(np.einsum("tkn,tkn->tk", r.swarm1.positions, r.swarm1.positions) <= 1.0)
        d2 = r.swarm2.positions - 4.0
        assert np.all(2 * np.einsum("tkn,tkn->tk", d2, d2) <= 1.0)


@pytest.mark.parametrize("record", [False, True])
def test_single_swarm_returns_a_swarm_trace(record):
    T, k, n = 9, 5, 2
    t = _core.ellipsoid.single_swarm(np.zeros(n), np.diag([1.0, 4.0]), np.array([3.0, 2.0]),
                                     _core.ellipsoid.Fitness.distance, n_particles=k, max_iter=T, seed=3, record=record)
    _check_trace(t, T, k, n, record)
    assert np.all(np.diff(t.fitness_history) <= 0)  # a fixed target: the best never gets worse


# --------------------------------------------------------------------------------------------- (d) array policy
_rng = np.random.default_rng(1)
X = _rng.standard_normal((14, 3))
KP = _core.kernels.KernelParams(_core.kernels.KernelKind.rbf, alpha=1.3)
PV = X[:4].copy()
PROJ = np.linalg.cholesky(np.linalg.inv(_core.kernels.gram(PV, KP) + 1e-8 * np.eye(4)))
KM = _core.kernels.gram(X[:7], KP)
YM = np.array([1.0, -1.0, 1.0, 1.0, -1.0, -1.0, 1.0])
MU1, P1, MU2, P2 = np.array([0.0, 1.0]), np.array([[2.0, 0.3], [0.3, 1.0]]), np.array([4.0, 2.0]), np.eye(2)


def _strided(a):
    """A view of the same values with gaps between the elements of every axis (non-contiguous)."""
    big = np.zeros(tuple(2 * s for s in a.shape))
    big[tuple(slice(None, None, 2) for _ in a.shape)] = a
    view = big[tuple(slice(None, None, 2) for _ in a.shape)]
    assert not view.flags.c_contiguous and not view.flags.f_contiguous
    return view


def _layouts(a):
    return {"fortran": np.asfortranarray(a), "strided": _strided(a), "rows [::2]": np.repeat(a, 2, axis=0)[::2]}


def _cut_sums(c):
    return c.a, c.b, c.e, c.n_c, c.hinge


# one routine per submodule: name -> (call with the arrays given, the float64 arrays it takes)
POLICY = {
    "kernels.gram": (lambda X_: _core.kernels.gram(X_, KP, block=5), (X,)),
    "kernels.matvec": (lambda X_, Z_, V_: _core.kernels.matvec(X_, Z_, V_, KP, block=4),
                       (X, X[:5], _rng.standard_normal((5, 2)))),
    "robust.lp_matrix": (lambda K_, y_: _core.robust.lp_matrix(K_, y_, np.full(7, 0.01)), (KM, YM)),
    "robust.DenseLP": (lambda K_, y_: _core.robust.DenseLP(K_, y_, None).solve(0.3).x, (KM, YM)),
    "cutting_plane.cut_pass": (lambda Phi_, y_, v_, d_: _cut_sums(_core.cutting_plane.cut_pass(
        y_, v_, 0.1, 0.5, Phi=Phi_, delta=d_, block=3)), (KM[:, :4], YM, np.array([0.5, -1.0, 0.25, 2.0]),
                                                          np.linspace(0.0, 0.2, 7))),
    "cutting_plane.cut_pass X Z": (lambda X_, Z_, y_: _cut_sums(_core.cutting_plane.cut_pass(
        y_, np.array([0.5, -1.0, 0.25, 2.0]), 0.1, 0.5, X=X_, Z=Z_, params=KP, block=3)), (X[:7], PV, YM)),
    "prototypes.entropy_log_offdiag": (lambda Z_: _core.prototypes.entropy_log_offdiag(Z_, np.array([0, 3, 5, 9])),
                                       (X,)),
    "fixed_size.nystrom_features": (lambda X_, PV_, P_: _core.fixed_size.nystrom_features(X_, PV_, KP, P_, chunk=5),
                                    (X, PV, PROJ)),
    "fixed_size.fast_cv_solve": (lambda G_, t_: _core.fixed_size.fast_cv_solve(G_, t_, 2.0),
                                 (np.stack([X[:5].T @ X[:5], X[5:].T @ X[5:]]), np.ones((2, 3, 1)))),
    "ellipsoid.two_swarm": (lambda m1, p1, m2, p2: _core.ellipsoid.two_swarm(m1, p1, m2, p2, max_iter=15, seed=2).x,
                            (MU1, P1, MU2, P2)),
    "fixed_size.nystrom_projection": (lambda PV_: _core.fixed_size.nystrom_projection(PV_, KP), (PV,)),
    "fixed_size.CVCost": (lambda X_, Y_, PV_: _core.fixed_size.CVCost(
        X_, Y_, (np.arange(14) % 2).astype(np.int32), 2, PV_, KP, True, 0, _core.fixed_size.CVTask.regression,
        mean=np.full(3, 0.1), scale=np.full(3, 2.0), block=5).cost(2.0, 1.5), (X, X[:, :1] ** 2, PV)),
}


def _flat(result):
    if isinstance(result, tuple):
        return [np.asarray(r) for r in result]
    return [np.asarray(result)]


@pytest.mark.parametrize("name", list(POLICY))
def test_wrong_dtype_is_a_type_error(name):
    call, args = POLICY[name]
    for i in range(len(args)):
        for bad in (args[i].astype(np.float32), np.round(args[i] * 10).astype(np.int64)):
            with pytest.raises(TypeError):
                call(*args[:i], bad, *args[i + 1:])


@pytest.mark.parametrize("name", list(POLICY))
@pytest.mark.parametrize("layout", ["fortran", "strided", "rows [::2]"])
def test_any_layout_gives_the_result_of_the_c_contiguous_copy(name, layout):
    call, args = POLICY[name]
    ref = _flat(call(*[np.ascontiguousarray(a) for a in args]))
    for i in range(len(args)):
        got = _flat(call(*args[:i], _layouts(args[i])[layout], *args[i + 1:]))
        for g, r in zip(got, ref, strict=True):
            assert g.dtype == r.dtype
            np.testing.assert_allclose(g, r, rtol=1e-13, atol=1e-13)
    got = _flat(call(*[_layouts(a)[layout] for a in args]))  # all at once
    for g, r in zip(got, ref, strict=True):
        np.testing.assert_allclose(g, r, rtol=1e-13, atol=1e-13)


def test_index_and_fold_arrays_need_their_integer_dtype():
    """Indices and labels are int64, fold ids int32: any other integer width (or float) is a TypeError; a strided
    index array is read through its stride."""
    fs, pr = _core.fixed_size, _core.prototypes
    idx = np.array([0, 3, 5, 9])
    ref = pr.entropy_log_offdiag(X, idx)
    for bad in (idx.astype(np.int32), idx.astype(np.float64), idx.astype(np.uint64), idx.tolist()):
        with pytest.raises(TypeError):
            pr.entropy_log_offdiag(X, bad)
    assert pr.entropy_log_offdiag(X, np.repeat(idx, 2)[::2]) == ref
    with pytest.raises(TypeError):
        pr.entropy_select(X, 3, labels=np.zeros(14, np.int32))
    folds = (np.arange(14) % 2).astype(np.int32)
    acc = fs.FoldAccumulator(PV, KP, PROJ, n_folds=2)
    with pytest.raises(TypeError):
        acc.add(X, np.ones((14, 1)), folds.astype(np.int64))
    acc.add(X, np.ones((14, 1)), np.repeat(folds, 2)[::2])  # strided fold ids
    ref_acc = fs.FoldAccumulator(PV, KP, PROJ, n_folds=2)
    ref_acc.add(X, np.ones((14, 1)), folds)
    for a, b in zip(acc.results(), ref_acc.results(), strict=True):
        np.testing.assert_allclose(a, b, rtol=1e-13, atol=1e-13)
    theta = np.ones((2, acc.dim, 1))
    with pytest.raises(TypeError):
        fs.fold_predict(np.ones((14, acc.dim)), folds.astype(np.int64), theta)


# --------------------------------------------------------------------------------------------- (e) BLAS on first use
_PROBE = """
import json, sys
import numpy as np
import svmopt
from svmopt import _core
out = {"after_import": _core.blas.configured()}
if sys.argv[1] == "eigen":
    _core.use_blas(False)
    out["after_use_blas"] = _core.blas.configured()
kp = _core.kernels.KernelParams(_core.kernels.KernelKind.rbf, alpha=1.0)
X = np.random.default_rng(0).standard_normal((20, 3))
out["before_call"] = _core.blas.configured()
if sys.argv[2] == "nystrom":
    _core.fixed_size.nystrom_features(X, X[:5], kp, np.eye(5))
else:
    _core.fixed_size.FoldAccumulator(X[:5], kp, np.eye(5))
out.update(configured=_core.blas.configured(), available=_core.blas.available(), interface=_core.blas.interface(),
           provider=_core.blas_provider())
print(json.dumps(out))
"""


def _probe(mode: str, first_call: str, svmopt_blas: str | None = None) -> dict:
    env = {k: v for k, v in os.environ.items() if k != "SVMOPT_BLAS"}
    if svmopt_blas is not None:
        env["SVMOPT_BLAS"] = svmopt_blas
    res = subprocess.run([sys.executable, "-c", _PROBE, mode, first_call], env=env, capture_output=True, text=True,
                         check=False, timeout=300)
    assert res.returncode == 0, res.stderr
    return json.loads(res.stdout.strip().splitlines()[-1])


@pytest.mark.parametrize("first_call", ["nystrom", "accumulator"])
def test_blas_is_found_on_first_use(first_call):
    """Importing svmopt chooses nothing; the first routine that can run on a BLAS installs one (SciPy is a
    dependency, so one is always found): NumPy's OpenBLAS (ILP64) where it bundles one, else SciPy's (LP64)."""
    out = _probe("default", first_call)
    assert out["after_import"] is False and out["before_call"] is False
    assert out["configured"] is True and out["available"] is True
    assert out["provider"] in ("numpy", "scipy")
    assert out["interface"] == {"numpy": "ilp64", "scipy": "lp64"}[out["provider"]]
    numpy_has_one = _core._numpy_blas_addresses() is not None
    assert out["provider"] == ("numpy" if numpy_has_one else "scipy")


def test_svmopt_blas_0_chooses_eigen_on_first_use():
    out = _probe("default", "nystrom", svmopt_blas="0")
    assert out["after_import"] is False and out["before_call"] is False
    assert out["configured"] is True and out["available"] is False
    assert out["interface"] == "" and out["provider"] is None


def test_svmopt_blas_scipy_chooses_scipy_on_first_use():
    out = _probe("default", "accumulator", svmopt_blas="scipy")
    assert out["configured"] is True and out["available"] is True
    assert out["provider"] == "scipy" and out["interface"] == "lp64"


def test_use_blas_false_before_the_first_call_stays_on_eigen():
    out = _probe("eigen", "nystrom")
    assert out["after_import"] is False and out["after_use_blas"] is True
    assert out["configured"] is True and out["available"] is False and out["provider"] is None
