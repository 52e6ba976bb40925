"""RobustSVC (paper 000): LP assembly parity, the bounds of Lemmas 1-3, the LP's KKT conditions, the
estimator's equalities (eta = 0, p = 1 vs 2), line-search ordering, toy cases, split rule and check_estimator."""

from __future__ import annotations

import math
import warnings

import numpy as np
import pytest
import scipy.sparse as sp
from scipy.optimize import linprog
from sklearn.base import clone
from sklearn.pipeline import make_pipeline
from sklearn.preprocessing import MinMaxScaler, StandardScaler
from sklearn.utils.estimator_checks import parametrize_with_checks

import svmopt
from svmopt import Kernel, MemoryBudgetError, RobustSVC, SolverError, _core
from svmopt.robust.fit import NU_GRID, fit_binary
from svmopt.robust.model import eta_from_rho, lemma1_constant, robust_delta, threshold_interval
from svmopt.robust.protocol import (
    holdout_test_counts,
    majority_class_error,
    split_seed,
    stratified_holdout_indices,
)

#: The defaults before hyperparameter selection: one nu = 1 and the paper's width rule (alpha = max_j std_j).
PAPER = {"nu": 1.0, "alpha": "paper"}


def _blobs(m=80, n=3, seed=0, shift=1.2):
    rng = np.random.default_rng(seed)
    y = np.where(rng.random(m) < 0.45, 1.0, -1.0)
    y[:2] = [1.0, -1.0]
    X = rng.normal(size=(m, n)) + shift * y[:, None] * np.linspace(1.0, 0.3, n)
    return X, y


ALL_KERNELS = [
    Kernel("linear"),
    Kernel("poly", degree=2),
    Kernel("poly", degree=3),
    Kernel("inhom_poly", degree=1, c=0.7),
    Kernel("inhom_poly", degree=2, c=0.7),
    Kernel("inhom_poly", degree=3, c=0.4),
    Kernel("rbf", alpha=1.3),
]


# ------------------------------------------------------------------------------------- LP assembly (core)
def ref_lp_matrix(K, y, delta):
    """numpy reference of A = [DKD - delta r^T, -DKD - delta r^T, -y, I]: the rows of (23) with u = u+ - u- and
    |u_j| = u+_j + u-_j, variables [u+, u-, gamma, xi], A z >= e."""
    m = K.shape[0]
    r = np.sqrt(np.clip(np.diag(K), 0.0, None))
    DKD = y[:, None] * K * y[None, :]
    R = np.outer(delta, r)
    return np.hstack([DKD - R, -DKD - R, -y[:, None], np.eye(m)])


@pytest.mark.parametrize("robust", [False, True])
def test_lp_matrix_matches_numpy_reference(robust):
    X, y = _blobs(37)
    K = Kernel("rbf", alpha=1.1).gram(X)
    delta = np.random.default_rng(1).random(37) * 0.3 if robust else np.zeros(37)
    start, index, value = _core.robust.lp_matrix(K, y, delta if robust else None)
    m = 37
    assert start.dtype == np.int32 and start.shape == (3 * m + 2,)
    assert value.shape == (2 * m * m + 2 * m,)  # nnz = 2 m^2 + 2 m when robust (delta r^T fills both u-blocks)
    A = sp.csc_matrix((value, index, start), shape=(m, 3 * m + 1)).toarray()
    np.testing.assert_array_equal(A, ref_lp_matrix(K, y, delta))
    # F-ordered / strided K gives the same arrays
    _, _, value_f = _core.robust.lp_matrix(np.asfortranarray(K), y, delta if robust else None)
    np.testing.assert_array_equal(value, value_f)


def test_lp_matrix_thread_invariance():
    X, y = _blobs(64)
    K = Kernel("poly", degree=2).gram(X)
    d = np.full(64, 0.01)
    out1 = _core.robust.lp_matrix(K, y, d, n_threads=1)
    out2 = _core.robust.lp_matrix(K, y, d, n_threads=2)
    for a, b in zip(out1, out2, strict=True):
        np.testing.assert_array_equal(a, b)


# --------------------------------------------------------------------------------------- Lemma 1-3, (13)-(21)
def test_lemma1_constant():
    """Lemma 1, (16): C(n,p) = 1 for p <= 2, n^((p-2)/(2p)) for p > 2, sqrt(n) for p = inf."""
    assert lemma1_constant(7, 1) == 1.0 and lemma1_constant(7, 2) == 1.0
    assert lemma1_constant(4, 4) == pytest.approx(1.4142135623730951, abs=1e-15)
    assert lemma1_constant(10, 3) == pytest.approx(1.4677992676220695, abs=1e-15)
    assert lemma1_constant(279, np.inf) == pytest.approx(16.703293088490067, abs=1e-12)
    assert lemma1_constant(50, 1e6) == pytest.approx(math.sqrt(50), rel=1e-4)
    with pytest.raises(ValueError):
        lemma1_constant(3, 0.5)


def _delta_one(kernel, r, e):
    """delta for one point with ||x|| = r and C eta = e (x along the first axis, p = 2)."""
    X = np.array([[r, 0.0]])
    return float(robust_delta(kernel, X, np.array([e]), 2)[0])


def test_lemma2_homogeneous_values():
    """Lemma 2, homogeneous: (20) = (r+e)^d - r^d."""
    assert _delta_one(Kernel("poly", degree=2), 1.0, 0.1) == pytest.approx(0.21, abs=1e-12)
    assert _delta_one(Kernel("poly", degree=3), 2.0, 0.1) == pytest.approx(1.261, abs=1e-12)
    assert _delta_one(Kernel("poly", degree=1), 2.0, 0.1) == pytest.approx(0.1, abs=1e-15)
    assert _delta_one(Kernel("poly", degree=3), 2.0, 0.0) == 0.0


def test_lemma2_inhomogeneous_values():
    """Lemma 2, inhomogeneous: (19) closed form; c = 0 gives (20), d = 1 gives e."""
    assert _delta_one(Kernel("inhom_poly", degree=2, c=1.0), 1.0, 0.1) == pytest.approx(0.25317977802344327,
                                                                                         abs=1e-12)
    assert _delta_one(Kernel("inhom_poly", degree=3, c=0.5), 2.0, 0.1) == pytest.approx(1.3600628661940597,
                                                                                         abs=1e-12)
    assert _delta_one(Kernel("inhom_poly", degree=3, c=0.0), 2.0, 0.1) == pytest.approx(1.261, abs=1e-12)
    assert _delta_one(Kernel("inhom_poly", degree=1, c=5.0), 3.0, 0.2) == pytest.approx(0.2, abs=1e-15)


def test_lemma3_rbf_values():
    """Lemma 3: (21) for the Gaussian RBF."""
    k1 = Kernel("rbf", alpha=1.0)
    assert _delta_one(k1, 0.3, 0.1) == pytest.approx(0.09987513011073057, abs=1e-12)
    assert _delta_one(k1, 0.3, 1.0) == pytest.approx(0.887095643419994, abs=1e-12)
    assert _delta_one(k1, 0.3, 0.0) == 0.0
    assert _delta_one(k1, 0.3, 1e3) == pytest.approx(math.sqrt(2.0))
    thr = math.sqrt(2 * math.log(2))
    assert _delta_one(k1, 0.0, thr * 1.001) >= 1.0 > _delta_one(k1, 0.0, thr * 0.999)


def test_delta_refuses_sigmoid():
    with pytest.raises(ValueError, match="sigmoid"):
        robust_delta(Kernel("sigmoid"), np.ones((2, 2)), np.zeros(2), 2)


def _sample_sigma(rng, n, p, eta, size):
    z = rng.normal(size=(size, n)) * rng.exponential(size=(size, n)) ** rng.integers(0, 2)
    if np.isinf(p):
        norms = np.abs(z).max(axis=1)
    else:
        norms = (np.abs(z) ** p).sum(axis=1) ** (1.0 / p)
    scale = eta * np.where(rng.random(size) < 0.7, 1.0, rng.random(size))  # mostly on the boundary
    return z / norms[:, None] * scale[:, None]


@pytest.mark.parametrize("kernel", ALL_KERNELS, ids=repr)
@pytest.mark.parametrize("p", [1.0, 2.0, 3.0, np.inf])
def test_delta_bounds_feature_space_perturbation(kernel, p):
    """The bounds are valid: ||phi(x + sigma) - phi(x)||_H computed by (17) <= delta for ||sigma||_p <= eta."""
    rng = np.random.default_rng(7)
    n = 4
    for _ in range(6):
        x = rng.normal(size=(1, n)) * rng.uniform(0.2, 2.0)
        eta = float(rng.uniform(0.01, 0.8))
        sig = _sample_sigma(rng, n, p, eta, 300)
        if np.isinf(p):  # also the box corners, the worst case for p = inf
            sig[:20] = eta * rng.choice([-1.0, 1.0], size=(20, n))
        xs = x + sig
        kxx = kernel.diag(x)[0]
        kss = kernel.diag(xs)
        ksx = kernel.cross(xs, x)[:, 0]
        zeta = np.sqrt(np.maximum(kss - 2 * ksx + kxx, 0.0))  # (17)
        delta = robust_delta(kernel, x, np.array([eta]), p)[0]
        assert np.all(zeta <= delta * (1 + 1e-10) + 1e-12), (zeta.max(), delta)


@pytest.mark.parametrize("kernel", ALL_KERNELS[:3] + ALL_KERNELS[-2:], ids=repr)
def test_robust_counterpart_is_safe(kernel):
    """(23) is safe for (22): y_i f(x_i + sigma) >= y_i f_i - delta_i S for random u and sampled sigma in U_p(x_i)."""
    rng = np.random.default_rng(8)
    X, y = _blobs(25, 3, seed=3)
    u = rng.normal(size=25)
    eta = np.full(25, 0.2)
    for p in (2.0, np.inf):
        delta = robust_delta(kernel, X, eta, p)
        r = np.sqrt(kernel.diag(X))
        S = r @ np.abs(u)
        f = kernel.gram(X) @ (y * u)
        for i in range(0, 25, 6):
            xs = X[i] + _sample_sigma(rng, 3, p, 0.2, 200)
            fs = kernel.matvec(xs, X, y * u)
            assert np.all(y[i] * fs >= y[i] * f[i] - delta[i] * S - 1e-9)


def test_eta_from_rho_rule():
    """Paper Section 6: eta_class = rho * max_j std_{j,class} (ddof = 1)."""
    X, y = _blobs(40, 3)
    eta = eta_from_rho(X, y, 1e-3)
    for lab in (1.0, -1.0):
        expect = 1e-3 * np.max(np.std(X[y == lab], axis=0, ddof=1))
        np.testing.assert_allclose(eta[y == lab], expect, rtol=1e-15)
    y1 = y.copy()
    y1[:] = -1.0
    y1[0] = 1.0  # a single A point: std 0, never NaN
    assert np.all(np.isfinite(eta_from_rho(X, y1, 0.1))) and eta_from_rho(X, y1, 0.1)[0] == 0.0


def test_nu_grid_values():
    """The nu grid: logspace(-3, 0, 5)."""
    np.testing.assert_allclose(NU_GRID, [1e-3, 0.005623413251903491, 0.03162277660168379, 0.1778279410038923, 1.0],
                               rtol=1e-15)


# -------------------------------------------------------------------------------- the LP (23): formulations, hinge, KKT
def _solve_with_duals(K, y, delta, nu):
    """The LP of fit_binary, returning the HiGHS solution with duals and the dense A."""
    from svmopt._shared.highs import HighsModel

    m = K.shape[0]
    start, index, value = _core.robust.lp_matrix(K, y, delta)
    cost = np.concatenate([np.ones(2 * m), [0.0], np.full(m, nu)])
    lower = np.zeros(3 * m + 1)
    lower[2 * m] = -np.inf
    res = HighsModel(a_start=start, a_index=index, a_value=value, col_cost=cost, n_rows=m, col_lower=lower,
                     row_lower=1.0).solve()
    A = sp.csc_matrix((value, index, start), shape=(m, 3 * m + 1))
    return res, A, cost, lower


@pytest.mark.parametrize("robust", [False, True])
@pytest.mark.parametrize("nu", [1e-3, 0.1778279410038923, 1.0])
def test_lp_kkt_and_feasibility(robust, nu):
    """KKT of (23) to 1e-7: primal feasibility, dual feasibility, complementarity, strong duality, and
    min(u+, u-) = 0 with objective = ||u||_1 + nu sum xi."""
    X, y = _blobs(50, 3, seed=5, shift=0.6)
    kern = Kernel("inhom_poly", degree=2, c=1.0)
    K = kern.gram(X)
    delta = robust_delta(kern, X, eta_from_rho(X, y, 1e-2), 2) if robust else None
    res, A, cost, lower = _solve_with_duals(K, y, delta, nu)
    m = 50
    z = res.x
    lam = res.row_dual
    assert np.all(A @ z >= 1.0 - 1e-7)  # primal feasibility
    free = np.isinf(lower)
    assert np.all(z[~free] >= -1e-7)
    assert np.all(lam >= -1e-7)  # duals of >= rows
    red = cost - A.T @ lam  # reduced costs
    assert np.all(red[~free] >= -1e-7) and np.all(np.abs(red[free]) <= 1e-7)
    assert np.all(np.abs(red * z) <= 1e-7 * max(1.0, np.abs(z).max()))  # complementarity (columns)
    assert np.all(np.abs(lam * (A @ z - 1.0)) <= 1e-7)  # complementarity (rows)
    assert res.objective == pytest.approx(lam.sum(), rel=1e-7, abs=1e-9)  # strong duality (b = e)
    up, um = z[:m], z[m : 2 * m]
    assert np.all(np.minimum(up, um) <= 1e-8)
    u, xi = up - um, z[2 * m + 1 :]
    assert res.objective == pytest.approx(np.abs(u).sum() + nu * xi.sum(), rel=1e-9)
    # the solver's xi is the hinge of the robust scores
    f = K @ (y * u)
    s = f if delta is None else f - y * delta * (np.sqrt(np.diag(K)) @ np.abs(u))
    hinge = np.maximum(0.0, 1.0 - y * (s - z[2 * m]))
    np.testing.assert_allclose(xi, hinge, atol=1e-7)


def test_lp_formulations_agree():
    """The split form u = u+ - u- (ours) and the epigraph form (free u with epigraph s >= |u|) have the same optimum."""
    X, y = _blobs(30, 2, seed=6, shift=0.5)
    kern = Kernel("rbf", alpha=1.0)
    K = kern.gram(X)
    delta = robust_delta(kern, X, eta_from_rho(X, y, 0.05), np.inf)
    nu = 0.3
    res, *_ = _solve_with_duals(K, y, delta, nu)
    m = 30
    r = np.sqrt(np.diag(K))
    DKD = y[:, None] * K * y[None, :]
    # variables [u (free), s, gamma, xi]; rows: margin >= 1, u - s <= 0, -u - s <= 0
    Im = np.eye(m)
    Z = np.zeros((m, m))
    A_ub = np.vstack([
        -np.hstack([DKD, -np.outer(delta, r), -y[:, None], Im]),
        np.hstack([Im, -Im, np.zeros((m, 1)), Z]),
        np.hstack([-Im, -Im, np.zeros((m, 1)), Z]),
    ])
    b_ub = np.concatenate([-np.ones(m), np.zeros(2 * m)])
    c = np.concatenate([np.zeros(m), np.ones(m), [0.0], np.full(m, nu)])
    bounds = [(None, None)] * m + [(0, None)] * m + [(None, None)] + [(0, None)] * m
    ref = linprog(c, A_ub=A_ub, b_ub=b_ub, bounds=bounds, method="highs")
    assert ref.status == 0
    assert res.objective == pytest.approx(ref.fun, rel=1e-7)


# --------------------------------------------------------------------------------- omega (9), the interval of (10)/(27)
def test_omega_identities_and_mirror():
    X, y = _blobs(60, 2, seed=9, shift=0.4)
    kern = Kernel("rbf", alpha=1.0)
    K = kern.gram(X)
    delta = robust_delta(kern, X, eta_from_rho(X, y, 0.01), 2)
    fit = fit_binary(K, y, delta=delta, nus=[1.0])
    s, g = fit.scores, fit.gamma
    oa, ob = fit.omega
    A, B = y > 0, y < 0
    assert oa == pytest.approx(max(y[i] * fit.xi[i] for i in range(60)))  # (9) == (2)
    assert g + 1 - oa == pytest.approx(min(g + 1, s[A].min()), abs=1e-9)  # lowest A score
    assert g - 1 + ob == pytest.approx(max(g - 1, s[B].max()), abs=1e-9)
    lo_p, hi_p = threshold_interval(g, oa, ob, "paper")
    lo_c, hi_c = g + 1 - oa, g - 1 + ob
    assert lo_p == pytest.approx(2 * g - hi_c) and hi_p == pytest.approx(2 * g - lo_c)  # mirror about gamma
    lo_w, hi_w = threshold_interval(g, oa, ob, "corrected")
    assert min(lo_w, hi_w) < min(lo_c, hi_c) and max(lo_w, hi_w) > max(lo_c, hi_c)
    assert threshold_interval(g, oa, ob, "unbounded") == (-np.inf, np.inf)


# ------------------------------------------------------------------------------------- estimator equalities
def _fitted_state(clf):
    return {k: getattr(clf, k) for k in ("support_", "dual_coef_", "intercept_", "gamma_", "omega_", "nu_",
                                         "training_error_", "objective_")}


def _assert_same_state(a, b):
    for k, v in _fitted_state(a).items():
        np.testing.assert_array_equal(v, getattr(b, k), err_msg=k)


@pytest.mark.parametrize("kernel", ["rbf", "inhom_poly", "linear"])
def test_eta_zero_equals_deterministic_exactly(kernel):
    """The robust pipeline with eta = 0 (rho = 0, or eta = 0) == deterministic pipeline, bit for bit."""
    X, y = _blobs(70, 3, seed=11, shift=0.7)
    det = RobustSVC(kernel=kernel, degree=2, nu="grid").fit(X, y)
    for kw in ({"p": 2, "rho": 0.0}, {"p": np.inf, "eta": 0.0}, {"p": 1}):
        rob = RobustSVC(kernel=kernel, degree=2, nu="grid", **kw).fit(X, y)
        _assert_same_state(det, rob)
        assert np.all(rob.delta_ == 0)
        np.testing.assert_array_equal(det.decision_function(X), rob.decision_function(X))


def test_p1_equals_p2():
    """C(n,1) = C(n,2) = 1 (Lemma 1), so p = 1 and p = 2 give identical models."""
    X, y = _blobs(70, 4, seed=12, shift=0.7)
    for kernel in ("rbf", "poly", "inhom_poly"):
        a = RobustSVC(kernel=kernel, degree=2, p=1, rho=1e-2, nu="grid").fit(X, y)
        b = RobustSVC(kernel=kernel, degree=2, p=2, rho=1e-2, nu="grid").fit(X, y)
        _assert_same_state(a, b)
        np.testing.assert_array_equal(a.delta_, b.delta_)
        assert np.any(a.delta_ > 0)
    a = RobustSVC(kernel="linear", p=2, rho=1e-2).fit(X, y)
    c = RobustSVC(kernel="linear", p=np.inf, rho=1e-2).fit(X, y)
    np.testing.assert_allclose(c.delta_, 2.0 * a.delta_, rtol=1e-15)  # (18) with C(4, inf) = 2


def test_exact_never_worse_than_grid_on_fits():
    """Per fit, the exact search's training error <= the grid's, on random instances."""
    for seed in range(6):
        X, y = _blobs(60, 2, seed=20 + seed, shift=0.3)
        for kw in ({}, {"p": 2, "rho": 1e-2}, {"kernel": "poly", "degree": 2}):
            for interval in ("paper", "corrected"):
                g = RobustSVC(line_search="grid", interval=interval, **PAPER, **kw).fit(X, y)
                e = RobustSVC(line_search="exact", interval=interval, **PAPER, **kw).fit(X, y)
                np.testing.assert_array_equal(g.dual_coef_, e.dual_coef_)  # same LP
                assert e.training_error_[0] <= g.training_error_[0]
                u = RobustSVC(line_search="exact", interval="unbounded", **PAPER, **kw).fit(X, y)
                assert u.training_error_[0] <= e.training_error_[0]


def test_decision_consistent_training_error():
    """With line_search='exact_decision' the training error equals predict's error on the training set
    (deterministic model, where the line-search scores are the prediction scores)."""
    for seed in range(4):
        X, y = _blobs(80, 2, seed=30 + seed, shift=0.5)
        for interval in ("paper", "corrected", "unbounded"):
            det = RobustSVC(line_search="exact_decision", interval=interval).fit(X, y)
            assert det.training_error_[0] == pytest.approx(np.mean(det.predict(X) != y))


def test_nu_selection_rule():
    """The nu with the smallest training count wins; the smallest nu on ties."""
    X, y = _blobs(60, 2, seed=40, shift=0.4)
    for kw in ({}, {"p": 2, "rho": 1e-2}):
        clf = RobustSVC(nu="grid", selection="training_error", **kw).fit(X, y)
        counts = [rec["training_count"] for rec in clf.fit_path_[0]]
        assert [rec["nu"] for rec in clf.fit_path_[0]] == list(NU_GRID)
        assert clf.nu_[0] == NU_GRID[int(np.argmin(counts))]
        assert clf.training_error_[0] == min(counts) / 60
    # re-solves on one model (cold or warm-started) give the same LP optimum as a fresh model at each nu
    K = Kernel("rbf", alpha=1.0).gram(X)
    for warm in (False, True):
        path = fit_binary(K, y, nus=NU_GRID, warm_start=warm).path
        for rec in path:
            fresh = fit_binary(K, y, nus=[rec["nu"]])
            assert fresh.objective == pytest.approx(rec["objective"], rel=1e-8)


# ------------------------------------------------------------------------------------- toy cases
def test_toy_linearly_separable():
    X = np.array([[0.0, 0.0], [0.0, 1.0], [1.0, 0.0], [3.0, 3.0], [3.0, 4.0], [4.0, 3.0]])
    y = np.array([-1, -1, -1, 1, 1, 1])
    for kernel in ("linear", "rbf"):
        clf = RobustSVC(kernel=kernel, nu="grid").fit(X, y)
        assert clf.score(X, y) == 1.0 and clf.training_error_[0] == 0.0
    # for the homogeneous linear kernel the decision is w^T x - b with w = sum_j y_j u_j x_j
    clf = RobustSVC(kernel="linear").fit(X, y)
    w = clf.dual_coef_[0] @ clf.support_vectors_
    np.testing.assert_allclose(clf.decision_function(X), X @ w - clf.intercept_[0], atol=1e-12)


def test_toy_xor_needs_a_nonlinear_kernel():
    X = np.array([[1.0, 1.0], [-1.0, -1.0], [1.0, -1.0], [-1.0, 1.0]] * 3)
    X = X + np.random.default_rng(0).normal(scale=0.05, size=X.shape)
    y = np.array(["a", "a", "b", "b"] * 3)
    clf = RobustSVC(kernel="rbf", alpha=0.7, nu=1.0).fit(X, y)
    assert clf.score(X, y) == 1.0
    assert list(clf.classes_) == ["a", "b"]
    clf2 = RobustSVC(kernel="poly", degree=2, nu=1.0).fit(X, y)
    assert clf2.score(X, y) == 1.0


def test_toy_robust_paper_setting():
    """Paper Section 4.1 settings (data unpublished): eta = 0.01 for A, 0.03 for B, p = 2 and inf,
    inhomogeneous quadratic (c = 0.3) and RBF (alpha = 1.9), nu = 1. Robustness shrinks |u| (||u||_1 is
    not larger than the deterministic one, since every robust-feasible point is feasible for (6))."""
    rng = np.random.default_rng(5)
    X = np.vstack([rng.normal([0, 0], 0.8, (30, 2)), rng.normal([2, 1.5], 0.8, (30, 2))])
    y = np.repeat([1, -1], 30)
    for kern in (Kernel("inhom_poly", degree=2, c=0.3), Kernel("rbf", alpha=1.9)):
        det = RobustSVC(kernel=kern, nu=1.0).fit(X, y)
        for p in (2, "inf"):
            rob = RobustSVC(kernel=kern, nu=1.0, p=p, eta={1: 0.01, -1: 0.03}).fit(X, y)
            d = rob.delta_[0]
            assert np.all(d[y == 1] < d[y == -1])
            assert rob.objective_[0] >= det.objective_[0] - 1e-9  # (23) is a restriction of (6)
            assert rob.score(X, y) >= 0.8


def test_collapse_gives_majority_class_predictor():
    """Collapse: delta_i >= sqrt(K_ii) for all i -> u = 0, objective 2 nu min(m_A, m_B), majority prediction."""
    X, y = _blobs(51, 3, seed=50, shift=0.8)
    m_a, m_b = int((y > 0).sum()), int((y < 0).sum())
    assert m_a != m_b
    clf = RobustSVC(kernel="rbf", p=2, rho=50.0, nu=0.3).fit(X, y)
    assert clf.support_.size == 0
    assert clf.objective_[0] == pytest.approx(2 * 0.3 * min(m_a, m_b), rel=1e-9)
    majority = 1.0 if m_a > m_b else -1.0
    assert np.all(clf.predict(X) == majority)
    Xt = np.random.default_rng(1).normal(size=(10, 3))
    assert np.all(clf.predict(Xt) == majority)
    assert np.all(clf.decision_function(Xt) == -clf.intercept_[0])
    # corrected interval (widened) + decision-rule ties: the majority predictor too (the unwidened corrected
    # interval would collapse to {0} and predict class B, the minority, for everything)
    for kw in ({"interval": "corrected"}, {"interval": "unbounded"}, {"line_search": "exact_decision"}):
        c = RobustSVC(kernel="rbf", p=2, rho=50.0, nu=0.3, **kw).fit(X, y)
        assert c.support_.size == 0 and np.all(c.predict(X) == majority)
        assert c.training_error_[0] == pytest.approx(min(m_a, m_b) / 51)


def test_degenerate_small_nu_never_wins_with_corrected_interval():
    """With small nu the LP returns u = 0; under the paper's ties a b on the common score 0 would count 0
    errors. With the corrected / unbounded interval the decision-rule ties rule that out (regression test)."""
    X, y = _blobs(80, 3, seed=77, shift=1.0)
    for interval in ("corrected", "unbounded"):
        clf = RobustSVC(kernel="linear", nu="grid", line_search="exact", interval=interval).fit(X, y)
        assert clf.support_.size > 0
        assert clf.training_error_[0] == pytest.approx(np.mean(clf.predict(X) != y))
        assert clf.score(X, y) > 0.8


@pytest.mark.parametrize("solver", ["lp", "ipm", "cutting_plane"])
def test_a_constant_model_is_counted_by_the_decision_rule_under_the_papers_interval(solver):
    """u = 0 with the classes' slack costs equal (class_weight="balanced", or equal classes) leaves every gamma in
    [-1, 1] optimal: an interior point or the cutting planes return gamma = 0, where the paper interval is {0} and
    the paper's ties would count every point correct on the common score 0. The count is the decision rule's there:
    training_error_ is the predictions' error, and the training-count selection of nu does not pick that model."""
    from sklearn.datasets import make_classification

    X, y = make_classification(600, 6, random_state=0, weights=[0.7, 0.3], flip_y=0)
    kw = dict(random_state=0, n_landmarks=40, solver=solver, selection="training_error")
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        deg = RobustSVC(nu=1e-4, class_weight="balanced", **kw).fit(X, y)
        grid = RobustSVC(nu="grid", class_weight="balanced", **kw).fit(X, y)
    assert deg.support_.size == 0
    w = np.where(y == 1, y.size / (2.0 * y.sum()), y.size / (2.0 * (y.size - y.sum())))  # the balanced weights
    assert deg.training_error_[0] == pytest.approx(w @ (deg.predict(X) != y) / w.sum())
    assert deg.training_error_[0] >= 0.5 - 1e-9  # one class predicted: half the balanced weight wrong
    assert grid.nu_[0] > 1e-3 and grid.support_.size > 0 and grid.score(X, y) > 0.9
    assert grid.training_error_[0] == pytest.approx(w @ (grid.predict(X) != y) / w.sum(), abs=0.01)


# ------------------------------------------------------------------------------------- split rule (paper Section 6)
def test_split_rule_counts():
    """Per-class test counts of the stratified holdout (paper Section 6): n_test = floor(p n), floor(p n_c) per class,
    leftover slots to random classes."""
    cases = [((147, 48), 0.25, (36, 12)), ((147, 48), 0.5, (73, 24)), ((147, 48), 0.75, (110, 36)),
             ((20, 48), 0.25, (5, 12)), ((212, 357), 0.25, (53, 89)), ((111, 247), 0.75, (83, 185))]
    for counts, ts, expect in cases:
        assert tuple(holdout_test_counts(counts, ts, np.random.default_rng(0))) == expect
    for seed in range(20):  # Dermatology 75-25: 89 in total, A in {27, 28}
        c = holdout_test_counts((111, 247), 0.25, np.random.default_rng(seed))
        assert c.sum() == 89 and c[0] in (27, 28)
    y = np.repeat([1, -1], [147, 48])
    tr, te = stratified_holdout_indices(y, 0.25, split_seed("parkinsons", 75, 3))
    assert np.intersect1d(tr, te).size == 0 and np.union1d(tr, te).size == 195
    _, te2 = stratified_holdout_indices(y, 0.25, split_seed("parkinsons", 75, 3))
    np.testing.assert_array_equal(te, te2)


@pytest.mark.parametrize(("name", "counts", "expected"), [
    ("parkinsons", (147, 48), {75: 25.00, 50: 24.74, 25: 24.66}),
    ("arrhythmia", (20, 48), {75: 29.41, 50: 29.41, 25: 29.41}),
    ("wdbc", (212, 357), {75: 37.32, 50: 37.32, 25: 37.32}),
    ("dermatology", (111, 247), {25: 30.97}),
    ("climate_crashes", (494, 46), {75: 8.5, 50: 8.5, 25: 8.5}),
    ("mammographic", (403, 427), {75: 48.55, 50: 48.55, 25: 48.55}),
    ("blood_transfusion", (178, 570), {75: 23.8, 50: 23.8, 25: 23.8}),
])
def test_majority_class_error_rates(name, counts, expected):
    """The collapsed (majority-class) error rates printed in paper 000's Tables 6-14 follow from the split rule."""
    y = np.repeat([1, -1], counts)
    for holdout, target in expected.items():
        errs = [majority_class_error(y[tr], y[te]) for tr, te in
                (stratified_holdout_indices(y, 1 - holdout / 100, split_seed(name, holdout, r)) for r in range(96))]
        tol = 0.005 if target in (25.00, 24.74, 24.66, 29.41, 37.32, 30.97) else 0.15
        assert 100 * np.mean(errs) == pytest.approx(target, abs=tol)


# ------------------------------------------------------------------------------------- API, errors, pipeline
def test_fitted_attributes_and_prediction_through_support():
    X, y = _blobs(60, 3, seed=60)
    clf = RobustSVC(nu=0.5, alpha="paper").fit(X, y)
    assert clf.n_features_in_ == 3 and clf.classes_.tolist() == [-1.0, 1.0]
    assert clf.dual_coef_.shape == (1, clf.support_.size) and clf.intercept_.shape == (1,)
    assert clf.omega_.shape == (1, 2) and clf.gamma_.shape == (1,)
    np.testing.assert_array_equal(clf.support_vectors_, X[clf.support_])
    K = clf.kernel_.cross(X, X)
    full = np.zeros(60)
    full[clf.support_] = clf.dual_coef_[0]
    np.testing.assert_allclose(clf.decision_function(X), K @ full - clf.intercept_[0], atol=1e-10)
    assert clf.kernel_.alpha == pytest.approx(np.max(np.std(X, axis=0, ddof=1)))


def test_one_vs_rest_multiclass():
    rng = np.random.default_rng(0)
    centers = np.array([[0, 0], [4, 0], [0, 4]])
    X = np.vstack([rng.normal(c, 0.7, (25, 2)) for c in centers])
    y = np.repeat(["x", "y", "z"], 25)
    clf = RobustSVC(kernel="rbf", nu="grid", p=2, rho=1e-3).fit(X, y)
    assert clf.decision_function(X).shape == (75, 3)
    assert clf.dual_coef_.shape[0] == 3 and clf.intercept_.shape == (3,)
    assert clf.score(X, y) > 0.9


@pytest.mark.parametrize("scaler", [MinMaxScaler, StandardScaler])
def test_pipeline(scaler):
    X, y = _blobs(80, 3, seed=70)
    X = X * np.array([1e3, 1.0, 1e-3])
    X[:, 2] = 5.0  # a constant feature: handled by the scaler, never NaN
    pipe = make_pipeline(scaler(), RobustSVC(kernel="inhom_poly", degree=2, nu="grid", p="inf", rho=1e-3))
    pipe.fit(X, y)
    assert np.all(np.isfinite(pipe.decision_function(X)))
    assert pipe.score(X, y) > 0.8


def test_auto_scale_with_constant_features_is_one():
    X = np.ones((10, 2))
    y = np.array([0, 1] * 5)
    clf = RobustSVC().fit(X, y)
    assert clf.kernel_.alpha == 1.0
    assert np.all(np.isfinite(clf.decision_function(X)))


@pytest.mark.parametrize(("kw", "match"), [
    ({"kernel": "sigmoid", "p": 2, "rho": 1e-3}, "sigmoid"),
    ({"kernel": "nope"}, "kernel"),
    ({"nu": -1.0}, "nu"),
    ({"nu": "best"}, "nu"),
    ({"alpha": "wide"}, "alpha"),
    ({"alpha": [1.0, -2.0]}, "alpha must be a number > 0"),
    ({"alpha": [1.0, 2.0], "selection": "training_error"}, "cannot compare kernel widths"),
    ({"p": 2, "rho": "grid", "selection": "training_error"}, "cannot compare rho"),
    ({"p": 2, "rho": [0.1, -0.1]}, "rho must be a number >= 0"),
    ({"selection": "test"}, "selection"),
    ({"cv": 1}, "'cv' parameter"),
    ({"p": 0.5}, r"'p' parameter of RobustSVC must be None, .* range \[1.0, inf\]\. Got 0.5"),
    ({"p": "two"}, "'p' parameter"),
    ({"nu": [0.1, -1.0]}, "nu must be a number > 0"),
    ({"nu": []}, "non-empty sequence"),
    ({"nu": ["a"]}, "nu must"),
    ({"rho": 0.1}, "set p"),
    ({"p": 2, "rho": 0.1, "eta": 0.1}, "not both"),
    ({"p": 2, "rho": -1.0}, "rho"),
    ({"p": 2, "eta": np.ones(3)}, "eta"),
    ({"p": 2, "eta": {7: 0.1}}, "eta"),
    ({"p": 2, "eta": -0.1}, "eta"),
    ({"line_search": "fast"}, "line_search"),
    ({"n_grid": 1}, "n_grid"),
    ({"interval": "up"}, "interval"),
    ({"interval": "unbounded", "line_search": "grid"}, "unbounded"),
    ({"degree": 0, "kernel": "poly"}, "degree"),
    ({"alpha": -1.0}, "alpha"),
    ({"solver_options": {"no_such_option": 1}}, "no_such_option"),
])
def test_parameter_errors_name_the_argument(kw, match):
    X, y = _blobs(20, 2)
    with pytest.raises((ValueError, TypeError), match=match):
        RobustSVC(**kw).fit(X, y)


def test_solver_failure_is_solver_error():
    X, y = _blobs(60, 2)
    with pytest.raises(SolverError) as info:
        RobustSVC(solver_options={"time_limit": 0.0}).fit(X, y)
    assert info.value.status == "Time limit reached"


def test_memory_guard():
    X, y = _blobs(200, 2)
    svmopt.set_memory_budget("100K")
    try:
        with pytest.raises(MemoryBudgetError, match="budget"):
            RobustSVC().fit(X, y)
    finally:
        svmopt.set_memory_budget(None)


def test_clone_and_pickle_roundtrip():
    import pickle

    X, y = _blobs(40, 2)
    clf = RobustSVC(kernel=Kernel("rbf", alpha=0.9), p="inf", eta=0.01).fit(X, y)
    clf2 = pickle.loads(pickle.dumps(clf))
    np.testing.assert_array_equal(clf.decision_function(X), clf2.decision_function(X))
    c = clone(RobustSVC(kernel="poly", degree=2, p=1, eta={1.0: 0.1, -1.0: 0.2}))
    assert c.get_params()["degree"] == 2 and c.get_params()["eta"] == {1.0: 0.1, -1.0: 0.2}


@parametrize_with_checks([RobustSVC(), RobustSVC(kernel="inhom_poly", degree=2, nu="grid", p="inf", rho=1e-3),
                          RobustSVC(probability=True)])
def test_sklearn_compatible(estimator, check):
    check(estimator)




@pytest.mark.parametrize("n_landmarks", [None, 10])
def test_a_class_of_one_row_is_fitted_and_its_folds_are_skipped(n_landmarks):
    """A class of a single row: the default cross-validation falls back to plain k-fold, whose fold holding that row
    out trains without the class; that fold scores no candidate of that problem (all alike) instead of failing, and
    the fit on every row keeps the class (binary, and one-vs-rest)."""
    rng = np.random.RandomState(0)
    X = rng.randn(40, 3)
    y = np.zeros(40, int)
    y[0] = 1
    X[0] += 3.0
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # small nu leaves u = 0 on such data: the degenerate-solution warning
        clf = RobustSVC(n_landmarks=n_landmarks, random_state=0).fit(X, y)
        assert np.isfinite(clf.selection_["errors"]).all() and clf.selection_["n_folds"] == 3
        y3 = rng.randint(0, 2, 40)
        y3[5] = 2
        multi = RobustSVC(n_landmarks=n_landmarks, random_state=0).fit(X, y3)
    assert list(clf.classes_) == [0, 1] and list(multi.classes_) == [0, 1, 2]
    assert np.isfinite(multi.selection_["errors"]).all()
    assert multi.score(X, y3) > 0.5


def test_nu_values_are_solved_ascending_so_ties_follow_the_documented_rule():
    """nu given in any order (and repeated) is the same set of candidates: the training count keeps the smallest nu
    on ties, the cross-validation the larger, whatever order they were given in."""
    X, y = _blobs(60, 3, seed=3, shift=3.0)  # separable: every nu counts 0 training errors
    a = RobustSVC(kernel="linear", nu=[10.0, 1.0, 1.0], selection="training_error").fit(X, y)
    b = RobustSVC(kernel="linear", nu=[1.0, 10.0], selection="training_error").fit(X, y)
    assert a.training_error_[0] == 0 and a.nu_[0] == b.nu_[0] == 1.0
    c = RobustSVC(kernel="linear", nu=[10.0, 1.0, 1.0], selection="cv").fit(X, y)
    assert c.selection_["nu"].tolist() == [1.0, 10.0] and c.nu_[0] == 10.0


def test_a_problem_no_fold_can_train_is_warned_about():
    """Splits whose training rows never hold one class: that one-vs-rest problem is scored on no fold, which is
    warned about (its held-out errors are 0 for every candidate) instead of passing as a perfect score."""
    rng = np.random.RandomState(0)
    X = rng.randn(60, 3)
    y = rng.randint(0, 2, 60)
    y[:5] = 2
    rest = np.arange(5, 60)
    a, b = rest[::2], rest[1::2]
    splits = [(a, np.r_[np.arange(5), b]), (b, a)]
    with pytest.warns(UserWarning, match=r"scored no candidate of the problem\(s\) \[2\]"):
        RobustSVC(cv=splits, random_state=0).fit(X, y)


def test_dask_input_refuses_zero_weights_even_when_the_others_are_one():
    """Rows of weight 0 cannot be left out of a Dask array: refused, also when every other weight is 1 (the
    weights then reduce to None, and the rows were trained on, unweighted)."""
    da = pytest.importorskip("dask.array")
    X, y = _blobs(300, 2)
    w = np.ones(300)
    w[:30] = 0.0
    a, b = np.unique(y)
    dX = da.from_array(X, chunks=100)
    kw = dict(nu=1.0, n_landmarks=20, landmarks="random", random_state=0)
    with pytest.raises(ValueError, match="has zeros: with a Dask X"):
        RobustSVC(**kw).fit(dX, y, sample_weight=w)
    with pytest.raises(ValueError, match="has zeros: with a Dask X"):
        RobustSVC(class_weight={a: 0.0, b: 1.0}, **kw).fit(dX, y)


def test_small_dask_input_with_index_pairs():
    """A Dask X small enough for the paper's model, with cv as (train, test) pairs: fitted as the array is."""
    da = pytest.importorskip("dask.array")
    from sklearn.model_selection import KFold

    X, y = _blobs(200, 2)
    pairs = list(KFold(3).split(X))
    a = RobustSVC(cv=pairs, nu=[0.1, 1.0]).fit(da.from_array(X, chunks=100), y)
    b = RobustSVC(cv=pairs, nu=[0.1, 1.0]).fit(X, y)
    np.testing.assert_array_equal(a.selection_["errors"], b.selection_["errors"])
    np.testing.assert_allclose(a.decision_function(X), b.decision_function(X), atol=1e-9)


def test_given_landmarks_are_copied():
    X, y = _blobs(300, 2)
    Z = np.ascontiguousarray(X[:15], dtype=np.float64)
    clf = RobustSVC(nu=1.0, n_landmarks=15, landmarks=Z).fit(X, y)
    assert not np.shares_memory(clf.landmarks_, Z)
    np.testing.assert_array_equal(clf.landmarks_, X[:15])


def test_a_constant_model_of_a_robust_fit_without_robust_term_names_nu():
    """p given but every delta_i = 0 (constant features: no spread for rho's rule): a u = 0 model is not blamed on
    the uncertainty set."""
    X = np.ones((40, 3))
    y = np.r_[np.zeros(20, int), np.ones(20, int)]
    with pytest.warns(UserWarning, match="predicts") as rec:
        clf = RobustSVC(p=2, rho=0.1, nu=1.0, n_landmarks=None).fit(X, y)
    assert not np.any(clf.delta_ > 0)
    text = " ".join(str(r.message) for r in rec)
    assert "uncertainty set" not in text and "nu=1" in text


def test_support_indexes_the_rows_given_with_zero_weights():
    X, y = _blobs(80, 2)
    w = np.ones(80)
    w[::7] = 0.0
    clf = RobustSVC(nu=1.0, n_landmarks=None).fit(X, y, sample_weight=w)
    np.testing.assert_array_equal(X[clf.support_], clf.support_vectors_)
    assert np.all(w[clf.support_] > 0)
    assert clf.delta_.shape == (1, int(np.count_nonzero(w)))


def test_robust_bounds_that_overflow_are_refused_by_name():
    X, y = _blobs(60, 2)
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        with pytest.raises(ValueError, match="robust bounds delta_i overflow"):
            RobustSVC(p=2, eta=1e200, nu=1.0, kernel="poly", degree=3).fit(X, y)
