"""The core's dense primal simplex for LP (23) (``_core.robust.DenseLP``) against HiGHS, and its use in fit_binary."""

import zlib
from types import SimpleNamespace

import numpy as np
import pytest

from svmopt import RobustSVC, _core
from svmopt.kernels import Kernel
from svmopt.robust.fit import NU_GRID, fit_binary
from svmopt.robust.model import eta_from_rho, robust_delta

OPTIMAL = _core.robust.DenseLPStatus.optimal


def _highs_objective(K, y, delta, nu):
    return fit_binary(K, y, delta=delta, nus=[nu], lp_solver="highs").objective


def _instance(rng, m, kernel, robust):
    d = int(rng.integers(1, 6))
    y = np.where(rng.random(m) < 0.45, 1.0, -1.0)
    y[0], y[1] = 1.0, -1.0
    X = rng.normal(size=(m, d)) + 0.8 * y[:, None] * rng.random(d)
    kern = {"rbf": Kernel("rbf", alpha=1.0), "lin": Kernel("poly", degree=1),
            "quad": Kernel("inhom_poly", degree=2, c=1.0), "cubic": Kernel("poly", degree=3)}[kernel]
    K = kern.gram(X)
    delta = robust_delta(kern, X, eta_from_rho(X, y, 10.0 ** rng.uniform(-4, -1)), 2.0) if robust else None
    return K, y, delta


def _check_feasible(K, y, delta, x, tol=1e-7):
    m = K.shape[0]
    start, index, value = _core.robust.lp_matrix(K, y, delta)
    import scipy.sparse as sp

    A = sp.csc_matrix((value, index, start), shape=(m, 3 * m + 1))
    act = A @ x
    assert np.all(act >= 1.0 - tol * (1.0 + np.abs(A).max() * np.abs(x).sum()))
    assert np.all(np.delete(x, 2 * m) >= -tol)


@pytest.mark.parametrize("kernel", ["rbf", "lin", "quad", "cubic"])
@pytest.mark.parametrize("robust", [False, True])
def test_dense_simplex_matches_highs(kernel, robust):
    """Same optimal objective as HiGHS on random LPs (23), over the paper's nu grid warm-started in one object,
    with a certificate (primal/dual feasibility, zero gap) and a feasible x checked independently here."""
    # fixed seeds (hash() of a str changes per process); the solver may stall on rare instances (about 1 solve in
    # 1,000 in a 9,000-solve sweep: the iteration limit, then HiGHS takes over, see the fallback test below)
    rng = np.random.default_rng(zlib.crc32(f"{kernel}-{robust}".encode()))
    for _ in range(6):
        m = int(rng.integers(3, 70))
        K, y, delta = _instance(rng, m, kernel, robust)
        lp = _core.robust.DenseLP(K, y, delta)
        for nu in NU_GRID:
            out = lp.solve(nu)
            assert out.status == OPTIMAL, out.status
            ref = _highs_objective(K, y, delta, nu)
            assert out.objective == pytest.approx(ref, rel=1e-7, abs=1e-9)
            assert out.dual_objective == pytest.approx(ref, rel=1e-7, abs=1e-9)
            _check_feasible(K, y, delta, out.x)
            pi = out.dual
            assert np.all(pi >= -1e-9) and np.all(pi <= nu + 1e-9)
            assert abs(y @ pi) <= 1e-7 * (1 + pi.sum())


def test_warm_start_equals_cold():
    rng = np.random.default_rng(3)
    K, y, delta = _instance(rng, 40, "rbf", False)
    warm = _core.robust.DenseLP(K, y, delta)
    for nu in NU_GRID[::-1]:
        w = warm.solve(nu)
        c = _core.robust.DenseLP(K, y, delta).solve(nu)
        assert w.objective == pytest.approx(c.objective, rel=1e-9)
        assert w.iterations <= c.iterations + 5 * K.shape[0]


def test_degenerate_problems():
    """All-zero Gram (u = 0 is optimal: objective nu * (sum of hinge at the best gamma)), duplicated points with
    opposite labels, and a one-point-per-class problem."""
    y = np.array([1.0, 1.0, -1.0, -1.0, -1.0])
    out = _core.robust.DenseLP(np.zeros((5, 5)), y, None).solve(0.5)
    assert out.status == OPTIMAL
    # u = 0 and every gamma in [-1, 1] is optimal; the free gamma is made basic (gamma = 1 here, as HiGHS),
    # never left at 0 where the paper's tie rule would count every training point as correct
    assert out.x[10] == pytest.approx(1.0)
    assert out.objective == pytest.approx(_highs_objective(np.zeros((5, 5)), y, None, 0.5), rel=1e-9)
    X = np.array([[0.0], [0.0], [1.0], [1.0]])
    yy = np.array([1.0, -1.0, 1.0, -1.0])
    K = Kernel("rbf", alpha=1.0).gram(X)
    out = _core.robust.DenseLP(K, yy, None).solve(1.0)
    assert out.status == OPTIMAL
    assert out.objective == pytest.approx(_highs_objective(K, yy, None, 1.0), rel=1e-9)
    K2 = np.array([[1.0, 0.2], [0.2, 1.0]])
    out = _core.robust.DenseLP(K2, np.array([1.0, -1.0]), None).solve(1.0)
    assert out.status == OPTIMAL
    assert out.objective == pytest.approx(_highs_objective(K2, np.array([1.0, -1.0]), None, 1.0), rel=1e-9)


def test_iteration_limit_is_reported_not_hidden():
    rng = np.random.default_rng(5)
    K, y, delta = _instance(rng, 50, "rbf", False)
    out = _core.robust.DenseLP(K, y, delta).solve(1.0, max_iter=1)
    assert out.status == _core.robust.DenseLPStatus.iteration_limit


def test_bad_input():
    with pytest.raises(ValueError, match="y"):
        _core.robust.DenseLP(np.eye(3), np.array([1.0, 0.0, -1.0]), None)
    with pytest.raises(ValueError, match="delta"):
        _core.robust.DenseLP(np.eye(3), np.array([1.0, 1.0, -1.0]), np.array([0.0, -1.0, 0.0]))
    with pytest.raises(ValueError, match="finite"):
        _core.robust.DenseLP(np.array([[np.nan, 0], [0, 1.0]]), np.array([1.0, -1.0]), None)
    with pytest.raises(ValueError, match="nu"):
        _core.robust.DenseLP(np.eye(2), np.array([1.0, -1.0]), None).solve(0.0)


@pytest.mark.parametrize("robust", [False, True])
def test_fit_binary_dense_equals_highs_objective(robust):
    """fit_binary with either solver: the same LP value for every nu of the grid; the solver is recorded."""
    rng = np.random.default_rng(11)
    K, y, delta = _instance(rng, 60, "quad", robust)
    a = fit_binary(K, y, delta=delta, nus=NU_GRID, lp_solver="dense")
    b = fit_binary(K, y, delta=delta, nus=NU_GRID, lp_solver="highs")
    for pa, pb in zip(a.path, b.path, strict=True):
        assert pa["solver"] == "dense" and pb["solver"] == "highs"
        assert pa["objective"] == pytest.approx(pb["objective"], rel=1e-7, abs=1e-9)
    auto = fit_binary(K, y, delta=delta, nus=NU_GRID)  # m = 60 <= DENSE_LP_MAX_M
    assert {p["solver"] for p in auto.path} == {"dense"}
    with_opts = fit_binary(K, y, delta=delta, nus=NU_GRID, solver_options={"time_limit": 100.0})
    assert {p["solver"] for p in with_opts.path} == {"highs"}


def test_fit_binary_falls_back_to_highs(monkeypatch):
    """A failed certificate hands that nu and the rest of the grid to HiGHS, with the same results as HiGHS."""
    real = _core.robust.DenseLP
    fields = ("x", "dual", "objective", "dual_objective", "iterations", "primal_infeasibility", "dual_infeasibility")

    class Failing:
        def __init__(self, K, y, delta):
            self.lp = real(K, y, delta)
            self.calls = 0

        def solve(self, nu, *args, **kwargs):
            self.calls += 1
            out = self.lp.solve(nu, *args, **kwargs)
            if self.calls < 2:
                return out
            # DenseLPResult is read-only: the same numbers with the status of a failed certificate
            return SimpleNamespace(status=_core.robust.DenseLPStatus.certificate_failed,
                                   **{f: getattr(out, f) for f in fields})

    monkeypatch.setattr(_core.robust, "DenseLP", Failing)
    rng = np.random.default_rng(2)
    K, y, _ = _instance(rng, 30, "rbf", False)
    fit = fit_binary(K, y, nus=NU_GRID, lp_solver="dense")
    solvers = [p["solver"] for p in fit.path]
    assert solvers[0] == "dense"
    assert solvers[1] == "highs (dense simplex: certificate_failed)"
    assert solvers[2:] == ["highs"] * (len(NU_GRID) - 2)
    ref = fit_binary(K, y, nus=NU_GRID, lp_solver="highs")
    for p, q in zip(fit.path[1:], ref.path[1:], strict=True):
        assert p["objective"] == pytest.approx(q["objective"], rel=1e-9)


def test_estimator_lp_solver_parameter():
    rng = np.random.default_rng(4)
    X = rng.normal(size=(40, 3))
    y = (X[:, 0] + 0.3 * rng.normal(size=40) > 0).astype(int)
    with pytest.raises(ValueError, match="lp_solver"):
        RobustSVC(lp_solver="cplex").fit(X, y)
    dense = RobustSVC(kernel="rbf", nu="grid", lp_solver="dense").fit(X, y)
    highs = RobustSVC(kernel="rbf", nu="grid", lp_solver="highs").fit(X, y)
    obj_d = [p["objective"] for p in dense.fit_path_[0]]
    obj_h = [p["objective"] for p in highs.fit_path_[0]]
    np.testing.assert_allclose(obj_d, obj_h, rtol=1e-7)
