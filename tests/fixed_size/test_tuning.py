"""Fast v-fold CV (19)-(21) (paper 002 Section 6.1, Algorithm 3), blocked CV (Algorithm 3 with the features accumulated
in blocks as in Algorithm 4), CSA-MwVC (Appendix, Algorithm 6) and Nelder–Mead (Section 6.3)."""

import math

import numpy as np
import pytest

from svmopt import _core
from svmopt._shared.splits import random_folds
from svmopt.fixed_size.cv_engine import CVEngine, holdout_cheaper, simple_cv_cost
from svmopt.fixed_size.nystrom import nystrom_projection
from svmopt.fixed_size.tuning import csa, csa_simplex, nelder_mead


def rbf(sigma2):
    return _core.kernels.KernelParams(_core.kernels.KernelKind.rbf, alpha=np.sqrt(sigma2 / 2))


@pytest.fixture(scope="module")
def problem():
    rng = np.random.default_rng(0)
    X = rng.normal(size=(103, 3))
    y = np.sin(X[:, 0]) + 0.1 * rng.normal(size=103)
    PV = np.ascontiguousarray(X[rng.choice(103, 20, replace=False)])
    return X, y, PV


def engine_for(X, Y, PV, folds, v, task, regularize_bias=True, budget=1 << 30, block=1000):
    Y = np.asarray(Y, float).reshape(X.shape[0], -1)

    def blocks():
        for s in range(0, X.shape[0], block):
            yield np.ascontiguousarray(X[s:s + block]), np.ascontiguousarray(Y[s:s + block])

    return CVEngine(blocks, folds, v, PV, rbf, task, n_targets=Y.shape[1], regularize_bias=regularize_bias,
                    feature_budget=budget, n_features=X.shape[1])


def naive_fold_thetas(X, y, PV, folds, v, gamma, sigma2, regularize_bias):
    """Literal (19)-(21): refit the ridge (7) on the training rows of every fold with numpy."""
    P, _ = nystrom_projection(PV, rbf(sigma2))
    F = _core.fixed_size.nystrom_features(np.ascontiguousarray(X), PV, rbf(sigma2), P)
    F = np.hstack([F, np.ones((X.shape[0], 1))])
    R = np.eye(F.shape[1])
    if not regularize_bias:
        R[-1, -1] = 0
    thetas = []
    for u in range(v):
        tr = folds != u
        thetas.append(np.linalg.solve(F[tr].T @ F[tr] + R / gamma, F[tr].T @ y[tr]))
    return F, thetas


@pytest.mark.parametrize("v", [2, 5, 10, 103])
@pytest.mark.parametrize("gamma", [1e-2, 1.0, 1e4])
@pytest.mark.parametrize("regularize_bias", [True, False])
@pytest.mark.parametrize("holdout", [False, True])
def test_fast_cv_equals_naive_refit(problem, v, gamma, regularize_bias, holdout):
    """Fast CV (Algorithm 3): per-fold theta, predictions and CV score equal the naive refit (unequal folds at
    n = 103, LOO), for the v-Cholesky realization (20)-(21) and for the holdout identity
    (one factorization, ``fast_cv_holdout``)."""
    X, y, PV = problem
    folds = random_folds(103, v, np.random.default_rng(v))
    eng = engine_for(X, y, PV, folds, v, "regression", regularize_bias)
    eng.holdout = holdout
    s = eng.stats(2.0)
    assert s["holdout"] is holdout and s["G"].shape[0] == (1 if holdout else v)
    F, ref = naive_fold_thetas(X, y, PV, folds, v, gamma, 2.0, regularize_bias)
    scale = max(1.0, max(np.abs(r).max() for r in ref))
    if not holdout:
        theta = _core.fixed_size.fast_cv_solve(s["G"], s["t"], gamma, regularize_bias)
        for u in range(v):
            np.testing.assert_allclose(theta[u][:, 0], ref[u], rtol=0, atol=1e-9 * scale)
    pred_ref = np.array([F[i] @ ref[folds[i]] for i in range(103)])
    f, _ = eng.predictions(gamma, 2.0)
    np.testing.assert_allclose(f[:, 0], pred_ref, rtol=0, atol=1e-9 * max(1.0, np.abs(pred_ref).max()))
    assert eng.cost(gamma, 2.0) == pytest.approx(np.mean((y - pred_ref) ** 2), rel=1e-9)


def test_holdout_choice_follows_the_flop_model():
    """The holdout identity is chosen for many small folds next to p, never when n >> p or v = 1."""
    assert holdout_cheaper(1030, 401, 50) and holdout_cheaper(1030, 401, 10) and holdout_cheaper(1030, 51, 50)
    assert not holdout_cheaper(1030, 401, 5) and not holdout_cheaper(1030, 101, 10)
    assert not holdout_cheaper(1030, 51, 20) and not holdout_cheaper(1030, 101, 20) and holdout_cheaper(1030, 101, 30)
    assert not any(holdout_cheaper(19020, p, v) for p in (51, 301, 701) for v in (5, 10, 50))
    assert not holdout_cheaper(1030, 401, 1)
    folds = random_folds(1030, 50, np.random.default_rng(0))
    PV = np.zeros((400, 3))
    assert CVEngine(lambda: iter(()), folds, 50, PV, rbf, "regression").holdout
    assert not CVEngine(lambda: iter(()), folds, 50, None, rbf, "regression", n_features=3).holdout


def test_fast_cv_equals_literal_A_minus_validation_block(problem):
    """(20)-(21) written literally: A_v = A - Phi_val^T Phi_val, c_v = c - Phi_val^T Y_val."""
    X, y, PV = problem
    folds = random_folds(103, 10, np.random.default_rng(0))
    eng = engine_for(X, y, PV, folds, 10, "regression")
    eng.holdout = False
    s = eng.stats(1.5)
    theta = _core.fixed_size.fast_cv_solve(s["G"], s["t"], 3.0, True)
    F = s["Phi"]
    A = F.T @ F + np.eye(F.shape[1]) / 3.0
    c = F.T @ y
    for u in range(10):
        Fv = F[folds == u]
        np.testing.assert_allclose(theta[u][:, 0], np.linalg.solve(A - Fv.T @ Fv, c - Fv.T @ y[folds == u]),
                                   atol=1e-9)


@pytest.mark.parametrize("task", ["regression", "classification"])
def test_blocked_cv_equals_in_memory_and_simple_cv(problem, task):
    """Blocked CV (features over the memory budget, streamed twice or SSE shortcut) and the paper's simple CV
    give the in-memory fast CV score."""
    X, y, PV = problem
    yy = y if task == "regression" else np.where(y > 0, 1.0, -1.0)
    folds = random_folds(103, 7, np.random.default_rng(1))
    mem = engine_for(X, yy, PV, folds, 7, task)
    blk = engine_for(X, yy, PV, folds, 7, task, budget=0, block=17)
    for gamma, sigma2 in [(0.5, 1.0), (100.0, 4.0)]:
        a = mem.cost(gamma, sigma2)
        assert blk.cost(gamma, sigma2) == pytest.approx(a, rel=1e-9, abs=1e-12)
        assert simple_cv_cost(X, yy, folds, PV, rbf(sigma2), gamma, task) == pytest.approx(a, rel=1e-9, abs=1e-12)
    assert mem.stats(1.0)["Phi"] is not None and blk.stats(1.0)["Phi"] is None


def test_fold_assignment():
    folds = random_folds(103, 10, np.random.default_rng(0))
    counts = np.bincount(folds)
    assert counts.size == 10 and counts.min() >= 10 and counts.max() <= 11
    y = np.repeat([0, 1], [80, 23])
    sf = random_folds(103, 5, np.random.default_rng(0), y)
    for u in range(5):
        assert abs((y[sf == u] == 1).sum() - 23 / 5) <= 1


# ----------------------------------------------------------------------------- CSA
def test_acceptance_function():
    """CSA acceptance probabilities A_i = exp((E_i - max E)/T_ac) / sum_j, summing to 1, and their variance in
    [0, (q-1)/q^2]."""
    E = np.array([1.0, 2.0, 3.0, 4.0, 10.0])
    A, var = _core.fixed_size.csa_acceptance(E, 2.0)
    ref = np.exp((E - 10) / 2) / np.exp((E - 10) / 2).sum()
    np.testing.assert_allclose(A, ref, rtol=1e-14)
    assert A.sum() == pytest.approx(1.0)
    assert var == pytest.approx((A**2).mean() - 1 / 25)
    assert 0 <= var <= 4 / 25


def test_variance_control_direction():
    """Variance control: equal energies -> variance 0 -> T_ac falls 5%; one energy far above -> rises 5%."""
    A, var = _core.fixed_size.csa_acceptance(np.full(5, 3.0), 1.0)
    np.testing.assert_allclose(A, 0.2)
    assert _core.fixed_size.csa_update_tac(1.0, var, 5) == pytest.approx(0.95)
    _, var = _core.fixed_size.csa_acceptance(np.array([0, 0, 0, 0, 100.0]), 1.0)
    assert var == pytest.approx(4 / 25)
    assert _core.fixed_size.csa_update_tac(1.0, var, 5) == pytest.approx(1.05)


def six_hump(x):
    a, b = x
    return (4 - 2.1 * a**2 + a**4 / 3) * a**2 + a * b + (-4 + 4 * b**2) * b**2


def rosenbrock(x):
    return 100 * (x[1] - x[0] ** 2) ** 2 + (1 - x[0]) ** 2


def test_csa_budget_bookkeeping_and_determinism():
    """Exactly 90 CSA evaluations (5 + 17 * 5), every probe in the box, best-ever returned, same seed same run."""
    calls = []

    def f(x):
        calls.append(np.array(x))
        return six_hump(x)

    rng = np.random.default_rng(0)
    x0 = rng.uniform(-3, 3, (5, 2))
    r = csa(f, x0, [-3, -3], [3, 3], max_evals=90, seed=1)
    assert len(calls) == 90 and r.history.shape == (90, 3)
    H = r.history
    assert np.all(H[:, :2] >= -3) and np.all(H[:, :2] <= 3)
    assert r.fun == H[:, 2].min()
    np.testing.assert_array_equal(r.x, H[np.argmin(H[:, 2]), :2])
    assert r.extra["n_stages"] == 4  # stages of 5, 5, 5 and 2 sweeps
    r2 = csa(six_hump, x0, [-3, -3], [3, 3], max_evals=90, seed=1)
    np.testing.assert_array_equal(r2.history, r.history)
    nm = nelder_mead(six_hump, r.x, [-3, -3], [3, 3], max_evals=70)
    assert nm.history.shape[0] <= 70


@pytest.mark.parametrize("fun, lo, hi, target, need", [(six_hump, -3, 3, -1.0306, 45), (rosenbrock, -2, 2, 1e-3, 45)])
def test_csa_simplex_global_behaviour(fun, lo, hi, target, need):
    """The paper's budget (CSA 90 with G = 5, then NM 70) solves six-hump camel and 2-D Rosenbrock."""
    ok = 0
    for seed in range(50):
        x0 = np.random.default_rng(seed).uniform(lo, hi, (5, 2))
        r = csa_simplex(fun, x0, [lo, lo], [hi, hi], seed=seed)
        assert r.history.shape[0] <= 160
        ok += r.fun < target
    assert ok >= need


@pytest.mark.parametrize("name", ["rastrigin", "ackley"])
def test_csa_rastrigin_ackley(name):
    """Global behaviour, long runs (5000 CSA evaluations, G = 10, + NM 200)."""
    def rastrigin(x):
        return 20 + sum(xi**2 - 10 * math.cos(2 * math.pi * xi) for xi in x)

    def ackley(x):
        return (-20 * math.exp(-0.2 * math.sqrt(0.5 * (x[0] ** 2 + x[1] ** 2)))
                - math.exp(0.5 * (math.cos(2 * math.pi * x[0]) + math.cos(2 * math.pi * x[1]))) + math.e + 20)

    f, b, need = (rastrigin, 5.12, 25) if name == "rastrigin" else (ackley, 5.0, 28)
    ok = 0
    for seed in range(30):
        x0 = np.random.default_rng(seed).uniform(-b, b, (5, 2))
        r1 = csa(f, x0, [-b, -b], [b, b], max_evals=5000, inner=10, seed=seed)
        r2 = nelder_mead(f, r1.x, [-b, -b], [b, b], max_evals=200)
        ok += min(r1.fun, r2.fun) < 0.1
    assert ok >= need


def test_nelder_mead_converges():
    """Nelder–Mead reaches (1, 1) on Rosenbrock from (-1.2, 1) and the minimizer of a convex quadratic."""
    r = nelder_mead(rosenbrock, [-1.2, 1.0], max_evals=1000, tol=1e-10)
    np.testing.assert_allclose(r.x, [1, 1], atol=1e-4)
    q = nelder_mead(lambda x: (x[0] - 1) ** 2 + 2 * (x[1] + 0.5) ** 2 + 0.5 * x[0] * x[1], [3, 3], max_evals=1000,
                    tol=1e-12)
    xs = np.linalg.solve([[2, 0.5], [0.5, 4]], [2, -2])
    np.testing.assert_allclose(q.x, xs, atol=1e-6)
