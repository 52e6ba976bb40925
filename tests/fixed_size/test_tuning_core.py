"""Tuning of the fixed-size LS-SVM (paper 002, Section 6) run in the core (cpp/src/tuning.cpp), each entry point
checked against an independent reference:

* ``nelder_mead`` against ``scipy.optimize.minimize(method="Nelder-Mead")`` (the steps it ports): the same
  evaluations, in the same order;
* ``csa_simplex`` against ``csa_minimize`` followed by that scipy simplex from the CSA best;
* ``nystrom_projection`` against ``np.linalg.eigh`` of the core's kernel Gram matrix;
* ``CVCost`` against :class:`svmopt.fixed_size.cv_engine.CVEngine` fed the same standardized, masked row blocks
  (Algorithm 3, (19)-(21));
* ``tune_cv`` against ``csa_simplex`` on a Python cost over a second, identical ``CVCost``;
* ``holdout_cheaper`` against the flop model written out here.
"""

from __future__ import annotations

import gc
import math
from concurrent.futures import ThreadPoolExecutor

import numpy as np
import pytest
from scipy.optimize import minimize

from svmopt import _core
from svmopt._shared.splits import random_folds
from svmopt.fixed_size import cv_engine
from svmopt.fixed_size.cv_engine import CVEngine

fs, kernels = _core.fixed_size, _core.kernels
EPS = np.finfo(np.float64).eps


# ------------------------------------------------------------------------------------------- Nelder-Mead
def scipy_nelder_mead(cost, x0, lower, upper, max_evals, step=0.5, tol=1e-4):
    """Every evaluation (x..., cost) of scipy's Nelder-Mead from the simplex x0, x0 + step e_i, its cost evaluated
    at the point clipped into [lower, upper] with NaN read as +inf."""
    x0 = np.asarray(x0, dtype=np.float64)
    hist = []

    def f(x):
        xc = x if lower is None else np.clip(x, lower, upper)
        e = float(cost(xc))
        e = math.inf if math.isnan(e) else e
        hist.append(np.append(xc, e))
        return e

    simplex = np.vstack([x0] + [x0 + step * np.eye(x0.size)[i] for i in range(x0.size)])
    with np.errstate(invalid="ignore"):  # scipy's convergence test subtracts inf from inf
        minimize(f, x0, method="Nelder-Mead",
                 options={"maxfev": max_evals, "initial_simplex": simplex, "xatol": tol, "fatol": tol})
    return np.array(hist).reshape(-1, x0.size + 1)


def rosenbrock(x):
    return float(np.sum(100.0 * (x[1:] - x[:-1] ** 2) ** 2 + (1.0 - x[:-1]) ** 2) + (x[-1] - 0.7) ** 2)


def quadratic(x):
    c = np.array([2.0, -0.5, 1.0])[:x.size]
    A = np.array([[3.0, 0.5, 0.2], [0.5, 1.0, 0.1], [0.2, 0.1, 2.0]])[:x.size, :x.size]
    return float((x - c) @ A @ (x - c))


def plateaus(x):
    """Integer values on a staircase: most comparisons of the simplex are ties."""
    return float(np.sum(np.floor(2.0 * np.abs(x - 0.3))))


def nan_region(x):
    """NaN beyond x_0 > 0.5, where the unconstrained minimum (1, 1, 1) lies."""
    return math.nan if x[0] > 0.5 else float(np.sum((x - 1.0) ** 2))


COSTS = {"rosenbrock": rosenbrock, "quadratic": quadratic, "plateaus": plateaus, "nan_region": nan_region}


def _check_best(r, H, x0):
    """The result is the first evaluation with the lowest cost (x0 and +inf without any)."""
    if H.shape[0] == 0:
        assert r.fun == math.inf
        np.testing.assert_array_equal(r.x, x0)
        return
    b = int(np.argmin(H[:, -1]))
    np.testing.assert_array_equal(r.x, r.history[b, :-1])
    assert r.fun == r.history[b, -1]
    np.testing.assert_allclose(r.x, H[b, :-1], rtol=1e-12, atol=0)


@pytest.mark.parametrize("max_evals", [0, 1, 2, 5, 70])
@pytest.mark.parametrize("bounded", [False, True])
@pytest.mark.parametrize("dim", [1, 2, 3])
@pytest.mark.parametrize("name", list(COSTS))
def test_nelder_mead_takes_scipys_steps(name, dim, bounded, max_evals):
    cost = COSTS[name]
    x0 = np.linspace(-1.2, 0.8, dim)
    lower, upper = (-1.5 * np.ones(dim), 0.9 * np.ones(dim)) if bounded else (None, None)
    H = scipy_nelder_mead(cost, x0, lower, upper, max_evals)
    seen = []
    r = fs.nelder_mead(lambda x: seen.append(x.copy()) or cost(x), x0, lower, upper, max_evals=max_evals)
    assert type(r) is fs.SearchResult
    assert r.history.shape == H.shape == (len(seen), dim + 1)
    np.testing.assert_allclose(r.history, H, rtol=1e-12, atol=0)
    np.testing.assert_array_equal(r.history[:, :-1], np.array(seen).reshape(-1, dim))  # the points cost was given
    if bounded:
        assert np.all(r.history[:, :-1] >= lower) and np.all(r.history[:, :-1] <= upper)
    assert r.n_simplex == H.shape[0] and r.n_csa == 0 and r.Tac == 0.0 and r.n_stages == 0
    _check_best(r, H, x0)


@pytest.mark.parametrize(("step", "tol", "max_evals"), [(0.3, 1e-3, 400), (1.0, 1e-8, 300), (0.05, 1e-2, 200)])
def test_nelder_mead_stops_where_scipy_converges(step, tol, max_evals):
    """Other steps and tolerances; the simplex converges (xatol = fatol = tol) before the budget is spent."""
    x0 = np.array([3.0, 3.0])
    H = scipy_nelder_mead(quadratic, x0, None, None, max_evals, step=step, tol=tol)
    r = fs.nelder_mead(quadratic, x0, max_evals=max_evals, step=step, tol=tol)
    assert H.shape[0] < max_evals
    np.testing.assert_allclose(r.history, H, rtol=1e-12, atol=0)
    _check_best(r, H, x0)


class Boom(Exception):
    pass


@pytest.mark.parametrize("bounded", [False, True])
def test_nelder_mead_propagates_the_costs_exception(bounded):
    calls = []

    def cost(x):
        calls.append(1)
        if len(calls) == 6:
            raise Boom("the sixth evaluation")
        return rosenbrock(x)

    lower, upper = (-np.ones(2), np.ones(2)) if bounded else (None, None)
    with pytest.raises(Boom, match="sixth"):
        fs.nelder_mead(cost, np.zeros(2), lower, upper, max_evals=70)
    assert len(calls) == 6


def test_nelder_mead_cost_must_return_a_number():
    with pytest.raises(TypeError, match="cost must return a real number"):
        fs.nelder_mead(lambda x: "cheap", np.zeros(2))
    r = fs.nelder_mead(lambda x: np.float64(x @ x) + 1, np.zeros(2), max_evals=3)  # numpy scalars are numbers
    np.testing.assert_array_equal(r.history[:, -1], [1.0, 1.25, 1.25])


# ------------------------------------------------------------------------------------------- CSA + simplex
def six_hump(x):
    a, b = x[0], x[-1]
    return float((4 - 2.1 * a**2 + a**4 / 3) * a**2 + a * b + (-4 + 4 * b**2) * b**2)


@pytest.mark.parametrize(("n_csa", "n_simplex"), [(a, b) for a in (0, 3, 17, 40) for b in (0, 1, 5, 70)])
@pytest.mark.parametrize("dim", [1, 2])
def test_csa_simplex_is_csa_then_the_simplex_from_its_best(dim, n_csa, n_simplex):
    q, seed, inner, step = 3, 7, 4, 0.4
    lower, upper = -2.0 * np.ones(dim), 2.0 * np.ones(dim)
    x0 = np.random.default_rng(dim).uniform(lower, upper, (q, dim))
    r = fs.csa_simplex(six_hump, x0, lower, upper, n_csa=n_csa, n_simplex=n_simplex, inner=inner, seed=seed,
                       step=step)
    if n_csa:
        c = fs.csa_minimize(six_hump, x0, lower, upper, max_evals=n_csa, inner=inner, seed=seed)
        start, Hc, Tac, n_stages = c.x, c.history, c.Tac, c.n_stages
    else:  # no CSA: the simplex starts from the first initial state
        start, Hc, Tac, n_stages = x0[0], np.zeros((0, dim + 1)), 0.0, 0
    Hs = scipy_nelder_mead(six_hump, start, lower, upper, n_simplex, step=step)
    assert r.n_csa == Hc.shape[0] <= n_csa and r.n_simplex == Hs.shape[0]  # CSA spends whole sweeps of q states
    assert r.Tac == Tac and r.n_stages == n_stages
    np.testing.assert_array_equal(r.history[:r.n_csa], Hc)
    np.testing.assert_allclose(r.history[r.n_csa:], Hs, rtol=1e-12, atol=0)
    _check_best(r, np.vstack([Hc, Hs]), start)


def test_csa_simplex_propagates_the_costs_exception_in_either_stage():
    for fail_at in (2, 25):
        calls = []

        def cost(x, fail_at=fail_at, calls=calls):
            calls.append(1)
            if len(calls) == fail_at:
                raise Boom(f"evaluation {fail_at}")
            return six_hump(x)

        with pytest.raises(Boom, match=f"evaluation {fail_at}"):
            fs.csa_simplex(cost, np.zeros((3, 2)), -np.ones(2), np.ones(2), n_csa=20, n_simplex=20)
        assert len(calls) == fail_at
    with pytest.raises(TypeError, match="cost must return a real number"):
        fs.csa_simplex(lambda x: None, np.zeros((3, 2)), -np.ones(2), np.ones(2), n_csa=0, n_simplex=5)


# ------------------------------------------------------------------------------------------- Nystrom projection
def numpy_projection(PV, params):
    """P = U' Lambda'^{-1/2} from np.linalg.eigh of the core's Gram matrix, eigenpairs decreasing, those with
    lambda <= m eps max(lambda_max, 0) dropped."""
    lam, U = np.linalg.eigh(kernels.gram(PV, params))
    lam, U = lam[::-1], U[:, ::-1]
    keep = lam > PV.shape[0] * EPS * max(lam[0], 0.0)
    return U[:, keep] / np.sqrt(lam[keep]), lam[keep]


_R = np.random.default_rng(3)
_A = _R.standard_normal((10, 3))
RBF = kernels.KernelKind.rbf
PROJECTIONS = {  # name -> (PV, params, number of eigenpairs kept)
    "rbf narrow": (_R.standard_normal((10, 3)), kernels.KernelParams(RBF, alpha=0.7), 10),
    "rbf wide": (_R.standard_normal((10, 3)), kernels.KernelParams(RBF, alpha=1.5), 10),
    "inhom poly": (_R.standard_normal((8, 3)), kernels.KernelParams(kernels.KernelKind.inhom_poly, degree=2, c=1.0),
                   8),
    # rank-deficient: three duplicated rows; quadratics in 2 variables span 6 dimensions; a linear kernel in R^2
    "rbf duplicated rows": (np.vstack([_A, _A[:3]]), kernels.KernelParams(RBF, alpha=0.8), 10),
    "inhom poly rank 6": (_R.standard_normal((12, 2)),
                          kernels.KernelParams(kernels.KernelKind.inhom_poly, degree=2, c=1.0), 6),
    "linear rank 2": (_R.standard_normal((6, 2)), kernels.KernelParams(kernels.KernelKind.linear), 2),
}


@pytest.mark.parametrize("name", list(PROJECTIONS))
def test_nystrom_projection_matches_numpy_eigh(name):
    PV, params, rank = PROJECTIONS[name]
    P, lam = fs.nystrom_projection(PV, params)
    P_ref, lam_ref = numpy_projection(PV, params)
    assert lam.shape == lam_ref.shape == (rank,) and P.shape == P_ref.shape == (PV.shape[0], rank)
    assert np.all(np.diff(lam) <= 0)
    # two eigensolvers agree to rounding of the order eps lambda_max (the drop threshold is m times that)
    np.testing.assert_allclose(lam, lam_ref, rtol=1e-10, atol=PV.shape[0] * EPS * lam_ref[0])
    signs = np.sign(np.einsum("ij,ij->j", P, P_ref))
    assert np.all(signs != 0)
    np.testing.assert_allclose(P * signs, P_ref, rtol=0, atol=1e-9 * np.abs(P_ref).max())
    Omega = kernels.gram(PV, params)
    np.testing.assert_allclose(P.T @ Omega @ P, np.eye(rank), atol=1e-9)  # the map whitens the prototypes
    assert P.flags.c_contiguous and lam.dtype == P.dtype == np.float64
    P2, lam2 = fs.nystrom_projection(PV, params, n_threads=3)  # threads do not change the result
    np.testing.assert_array_equal(P2, P)
    np.testing.assert_array_equal(lam2, lam)


@pytest.mark.parametrize("params", [kernels.KernelParams(kernels.KernelKind.linear),
                                    kernels.KernelParams(kernels.KernelKind.poly, degree=2)], ids=["linear", "poly"])
def test_nystrom_projection_of_a_zero_kernel_matrix_is_a_value_error(params):
    with pytest.raises(ValueError, match="zero"):
        fs.nystrom_projection(np.zeros((4, 3)), params)


# ------------------------------------------------------------------------------------------- CVCost vs CVEngine
def rbf(sigma2):
    return kernels.KernelParams(RBF, alpha=np.sqrt(sigma2 / 2))


POLY = kernels.KernelParams(kernels.KernelKind.inhom_poly, degree=2, c=1.0)


def make_problem(task, n_src=150, d=3, k=1, rows=None, seed=0):
    """Source rows X (n_src x d) and the targets of the problem rows (all, or ``rows``)."""
    rng = np.random.default_rng(seed)
    X = rng.normal(size=(n_src, d)) * [1.0, 3.0, 0.5][:d] + [0.0, 2.0, -1.0][:d]
    n = n_src if rows is None else len(rows)
    Xp = X if rows is None else X[rows]
    Y = np.column_stack([np.sin(Xp[:, 0] + j) + 0.3 * Xp[:, 1] + 0.1 * rng.normal(size=n) for j in range(k)])
    if task == "classification":
        Y = np.where(Y > np.median(Y, axis=0), 1.0, -1.0)
    return X, Y


def build(X, Y, folds, v, PV, task, *, tune_rbf=True, params=None, rows=None, mean=None, scale=None, block=65536,
          **kw):
    """The core's CVCost and the reference CVEngine on the same problem: the engine is fed the blocks of ``block``
    source rows, standardized by (x - mean) / scale, restricted to ``rows`` (the blocks the estimator builds from a
    svmopt.fixed_size.sources.Source)."""
    d = X.shape[1]
    linear = PV is None
    if params is None:
        params = kernels.KernelParams(kernels.KernelKind.linear) if linear else rbf(1.0)
    mask = None if rows is None else np.isin(np.arange(X.shape[0]), rows)

    def blocks():
        t0 = 0
        for s in range(0, X.shape[0], block):
            xb = np.asarray(X[s:s + block], dtype=np.float64)
            if mean is not None:
                xb = (xb - mean) / scale
            if mask is not None:
                xb = xb[mask[s:s + block]]
            if xb.shape[0]:
                yield np.ascontiguousarray(xb), np.ascontiguousarray(Y[t0:t0 + xb.shape[0]])
            t0 += xb.shape[0]

    make_params = rbf if tune_rbf else (lambda sigma2: params)
    ref = CVEngine(blocks, folds, v, PV, make_params, task, n_targets=Y.shape[1], n_features=d, **kw)
    core = fs.CVCost(X, Y, folds, v, np.zeros((0, d)) if linear else PV, params, tune_rbf, d if linear else 0,
                     fs.CVTask.__members__[task], rows=None if rows is None else np.asarray(rows, dtype=np.int64),
                     mean=mean, scale=scale, block=block, **kw)
    return core, ref


def _strided(a):
    wide = np.zeros((a.shape[0] * 2, a.shape[1] * 3))
    wide[::2, ::3] = a
    view = wide[::2, ::3]
    assert not view.flags.c_contiguous and not view.flags.f_contiguous
    return view


LAYOUTS = {"C": np.ascontiguousarray, "F": np.asfortranarray, "strided": _strided}

# name -> problem: task, n (source rows), m prototypes (None: explicit linear features), v, k, kernel, rows (a
# fraction of the source rows kept), standardized, block, layout, regularize_bias, the form the engine must choose
CASES = {
    "clf rbf": dict(task="classification", v=5),
    "reg rbf": dict(task="regression", v=5),
    "reg rbf unregularized bias": dict(task="regression", v=4, regularize_bias=False),
    "clf rbf holdout": dict(task="classification", n=300, m=120, v=50, holdout=True),
    "reg rbf holdout": dict(task="regression", n=300, m=120, v=50, holdout=True),
    "reg poly (sigma2 ignored)": dict(task="regression", v=5, kernel="poly"),
    "clf poly (sigma2 ignored)": dict(task="classification", v=3, kernel="poly"),
    "clf linear features": dict(task="classification", m=None, v=5),
    "reg linear features": dict(task="regression", m=None, v=6),
    "reg k=2": dict(task="regression", v=4, k=2),
    "clf k=2": dict(task="classification", v=4, k=2),
    "clf rows, standardized, blocks": dict(task="classification", v=5, rows=0.7, std=True, block=17),
    "reg rows, standardized, blocks": dict(task="regression", v=5, rows=0.7, std=True, block=17),
    "reg rows, standardized, blocks, holdout": dict(task="regression", n=400, m=120, v=50, rows=0.75, std=True,
                                                    block=64, holdout=True),
    "reg linear rows, standardized, blocks": dict(task="regression", m=None, v=3, rows=0.5, std=True, block=10),
    "clf fortran X, rows, blocks": dict(task="classification", v=5, rows=0.6, std=True, block=23, layout="F"),
    "reg strided X, rows, blocks": dict(task="regression", v=5, rows=0.6, std=True, block=23, layout="strided"),
    "reg strided X, holdout": dict(task="regression", n=300, m=120, v=50, layout="strided", holdout=True),
    "reg fortran X, k=2": dict(task="regression", v=4, k=2, layout="F"),
    # sample weights: the weighted fold sums and cost; many small folds keep the per-fold solves (no holdout)
    "clf rbf weighted": dict(task="classification", v=5, weighted=True),
    "reg rbf weighted": dict(task="regression", v=5, weighted=True),
    "reg k=2 weighted, kernel statistics": dict(task="regression", v=4, k=2, weighted=True, statistics="kernel"),
    "clf linear features weighted": dict(task="classification", m=None, v=5, weighted=True),
    "reg rows, standardized, blocks, weighted": dict(task="regression", v=5, rows=0.7, std=True, block=17,
                                                     weighted=True),
    "reg rbf weighted, many folds": dict(task="regression", n=300, m=120, v=50, weighted=True),
}
POINTS = [(0.1, 0.5), (3.0, 2.0), (100.0, 8.0), (3.0, 0.5), (1e4, 2.0)]  # (gamma, sigma2), sigma2 repeated


def case_problem(name, seed=0):
    c = {"n": 150, "m": 15, "k": 1, "kernel": "rbf", "rows": None, "std": False, "block": 65536, "layout": "C",
         "holdout": False, **CASES[name]}
    rng = np.random.default_rng(seed + 1)
    rows = None if c["rows"] is None else np.sort(rng.choice(c["n"], int(c["rows"] * c["n"]), replace=False))
    X, Y = make_problem(c["task"], n_src=c["n"], k=c["k"], rows=rows, seed=seed)
    mean, scale = (X.mean(axis=0), X.std(axis=0)) if c["std"] else (None, None)
    Xs = X if mean is None else (X - mean) / scale
    Xp = Xs if rows is None else Xs[rows]
    PV = None if c["m"] is None else np.ascontiguousarray(Xp[rng.choice(Xp.shape[0], c["m"], replace=False)])
    n = Xp.shape[0]
    folds = random_folds(n, c["v"], rng)
    kw = {"tune_rbf": c["kernel"] == "rbf", "params": POLY if c["kernel"] == "poly" else None, "rows": rows,
          "mean": mean, "scale": scale, "block": c["block"]}
    if "regularize_bias" in c:
        kw["regularize_bias"] = c["regularize_bias"]
    if "statistics" in c:
        kw["statistics"] = c["statistics"]
    if c.get("weighted"):
        kw["weights"] = rng.uniform(0.2, 3.0, n)
    return c, LAYOUTS[c["layout"]](X), Y, folds, PV, kw, Xp


@pytest.mark.parametrize("name", list(CASES))
def test_cv_cost_equals_the_python_engine(name):
    c, X, Y, folds, PV, kw, _ = case_problem(name)
    core, ref = build(X, Y, folds, c["v"], PV, c["task"], **kw)
    assert core.n_rows == len(folds) == ref.n
    assert core.holdout is ref.holdout is c["holdout"]
    for gamma, sigma2 in POINTS:
        got, want = core.cost(gamma, sigma2), ref.cost(gamma, sigma2)
        if c["task"] == "classification" and not c.get("weighted"):
            assert got == want, (gamma, sigma2)
        else:
            assert got == pytest.approx(want, rel=1e-12, abs=0), (gamma, sigma2)
    assert core.n_evals == ref.n_evals == len(POINTS)
    assert core.n_passes == ref.n_passes
    if not kw["tune_rbf"]:  # the kernel is fixed: sigma2 changes nothing (but is still a cache key)
        assert core.cost(3.0, 0.5) == core.cost(3.0, 123.0)


def _compare_fits(core_fit, ref_fit):
    (P, theta), (P_ref, theta_ref) = core_fit, ref_fit
    scale = max(1.0, np.abs(theta_ref).max())
    if P_ref is None:
        assert P is None
        np.testing.assert_allclose(theta, theta_ref, rtol=1e-10, atol=1e-10 * scale)
        return
    signs = np.sign(np.einsum("ij,ij->j", P, P_ref))  # eigenvectors are defined up to sign; theta's rows follow
    np.testing.assert_allclose(P * signs, P_ref, rtol=0, atol=1e-10 * np.abs(P_ref).max())
    np.testing.assert_allclose(theta[:-1] * signs[:, None], theta_ref[:-1], rtol=1e-10, atol=1e-10 * scale)
    np.testing.assert_allclose(theta[-1], theta_ref[-1], rtol=1e-10, atol=1e-10 * scale)


@pytest.mark.parametrize("name", ["reg rbf", "clf rbf holdout", "clf linear features", "reg k=2",
                                  "reg rows, standardized, blocks", "reg poly (sigma2 ignored)",
                                  "reg rbf unregularized bias", "reg rbf weighted", "clf linear features weighted",
                                  "reg rows, standardized, blocks, weighted"])
def test_cv_cost_fit_equals_the_python_engine(name):
    c, X, Y, folds, PV, kw, Xp = case_problem(name)
    core, ref = build(X, Y, folds, c["v"], PV, c["task"], **kw)
    for gamma, sigma2 in [(2.0, 1.0), (50.0, 3.0)]:
        fit = core.fit(gamma, sigma2)
        _compare_fits(fit, ref.fit(gamma, sigma2))
        P, theta = fit
        assert theta.shape == ((Xp.shape[1] if PV is None else P.shape[1]) + 1, Y.shape[1])
        # the fit (7) on all rows, from the features of the standardized problem rows
        params = rbf(sigma2) if kw["tune_rbf"] else kw["params"] or POLY
        F = Xp if PV is None else fs.nystrom_features(np.ascontiguousarray(Xp), PV, params, P)
        F = np.hstack([F, np.ones((F.shape[0], 1))])
        R = np.eye(F.shape[1])
        if not kw.get("regularize_bias", True):
            R[-1, -1] = 0.0
        w = kw.get("weights", np.ones(F.shape[0]))[:, None]  # weighted least squares: Phi^T W Phi, Phi^T W Y
        np.testing.assert_allclose(theta, np.linalg.solve(F.T @ (w * F) + R / gamma, F.T @ (w * Y)), rtol=1e-7,
                                   atol=1e-7 * max(1.0, np.abs(theta).max()))


@pytest.mark.parametrize("cache_size", [1, 2, 4])
def test_cv_cost_makes_one_pass_per_new_sigma2_and_caches(cache_size):
    c, X, Y, folds, PV, kw, _ = case_problem("reg rbf")
    core, ref = build(X, Y, folds, c["v"], PV, c["task"], cache_size=cache_size, **kw)
    passes = []
    for sigma2 in [1.0, 2.0, 1.0, 3.0, 4.0, 5.0, 1.0, 2.0, 2.0]:
        for gamma in (0.5, 20.0):  # another gamma on the same sigma2 is never a pass
            assert core.cost(gamma, sigma2) == pytest.approx(ref.cost(gamma, sigma2), rel=1e-12)
            passes.append(core.n_passes)
            assert core.n_passes == ref.n_passes
    # LRU of 4: 1, 2 new; 1 hit; 3, 4 new; 5 new (2 out); 1 hit; 2 new; 2 hit
    assert core.n_passes == {1: 8, 2: 7, 4: 6}[cache_size]
    assert passes[::2] == passes[1::2]
    assert core.n_evals == 18
    before = core.n_passes
    core.fit(1.0, 2.0)  # a cached sigma2: no pass for the fit either
    assert core.n_passes == before


@pytest.mark.parametrize("linear", [False, True])
def test_cv_cost_refuses_features_over_the_budget(linear):
    X, Y = make_problem("regression", n_src=120)
    folds = random_folds(120, 4, np.random.default_rng(0))
    PV = None if linear else np.ascontiguousarray(X[:15])
    # kept per row: the d + 1 linear features, or the kernel block [K(x, PV), 1, y] (m + 2 doubles)
    need = 120 * (3 + 1 if linear else 15 + 2) * 8
    core, _ = build(X, Y, folds, 4, PV, "regression", feature_budget=need)
    assert math.isfinite(core.cost(1.0, 1.0))
    with pytest.raises(ValueError, match="feature budget"):
        build(X, Y, folds, 4, PV, "regression", feature_budget=need - 1)


def _cv_cost(**over):
    """A well-formed CVCost on 40 rows of a 50-row X, one argument replaced."""
    X, Y = make_problem("classification", n_src=50)
    a = dict(X=X, Y=Y[:40], folds=(np.arange(40) % 4).astype(np.int32), n_folds=4, PV=np.ascontiguousarray(X[:6]),
             params=rbf(1.0), tune_rbf=True, n_features_linear=0, task=fs.CVTask.classification,
             rows=np.arange(5, 45, dtype=np.int64))
    a.update(over)
    return fs.CVCost(**a)


BAD_CV_COST = {
    "fold id >= n_folds": (dict(folds=(np.arange(40) % 5).astype(np.int32)), "fold ids"),
    "negative fold id": (dict(folds=np.full(40, -1, np.int32)), "fold ids"),
    "folds length": (dict(folds=np.zeros(39, np.int32)), "folds"),
    "n_folds 0": (dict(n_folds=0), "n_folds"),
    "rows not increasing": (dict(rows=np.arange(44, 4, -1, dtype=np.int64)), "rows"),
    "repeated row": (dict(rows=np.r_[5, 5, 7:45].astype(np.int64)), "rows"),
    "row out of range": (dict(rows=np.arange(11, 51, dtype=np.int64)), "rows"),
    "negative row": (dict(rows=np.arange(-1, 39, dtype=np.int64)), "rows"),
    "rows length": (dict(rows=np.arange(5, 44, dtype=np.int64)), "rows"),
    "X rows without rows": (dict(rows=None), "X"),
    "Y rows": (dict(Y=np.ones((39, 1))), "folds"),
    "mean without scale": (dict(mean=np.zeros(3)), "mean"),
    "mean length": (dict(mean=np.zeros(2), scale=np.ones(2)), "mean"),
    "PV columns": (dict(PV=np.zeros((4, 2))), "PV"),
    "linear features": (dict(PV=np.zeros((0, 3)), n_features_linear=2), "n_features_linear"),
    "block": (dict(block=0), "block"),
    "budget": (dict(feature_budget=40 * 7 * 8 - 1), "feature budget"),
    "NaN target": (dict(Y=np.r_[np.nan, np.ones(39)].reshape(-1, 1)), "Y must be finite"),
    "0/1 labels": (dict(Y=np.r_[np.zeros(20), np.ones(20)].reshape(-1, 1)), "labels -1 or \\+1"),
    "no rows": (dict(Y=np.ones((0, 1)), folds=np.zeros(0, np.int32), rows=np.zeros(0, np.int64)), "no rows"),
    "weights length": (dict(weights=np.ones(39)), "weights"),
    "zero weight": (dict(weights=np.r_[0.0, np.ones(39)]), "weights must be finite and > 0"),
    "infinite weight": (dict(weights=np.r_[np.inf, np.ones(39)]), "weights must be finite and > 0"),
}


@pytest.mark.parametrize("case", list(BAD_CV_COST))
def test_cv_cost_refuses_bad_folds_and_rows(case):
    over, match = BAD_CV_COST[case]
    with pytest.raises(ValueError, match=match):
        _cv_cost(**over)


def test_cv_cost_keeps_x_alive():
    """CVCost reads the caller's X at every pass (no copy): it keeps X alive when the caller drops it."""
    X, Y = make_problem("regression", n_src=60)
    folds = random_folds(60, 3, np.random.default_rng(0))
    PV = np.ascontiguousarray(X[:8])
    want = fs.CVCost(X.copy(), Y, folds, 3, PV, rbf(1.0), True, 0, fs.CVTask.regression).cost(2.0, 1.0)
    cv = fs.CVCost(np.asfortranarray(X), Y, folds, 3, PV, rbf(1.0), True, 0, fs.CVTask.regression)
    gc.collect()
    assert cv.cost(2.0, 1.0) == want


def test_cv_cost_from_many_threads():
    """cost and fit release the GIL and lock the CVCost: concurrent calls on one CVCost (racing to fill and evict its
    cache) give the serial answers."""
    c, X, Y, folds, PV, kw, _ = case_problem("reg rbf holdout")
    points = [(g, s) for g in (0.3, 30.0) for s in (0.5, 1.0, 2.0, 4.0, 8.0)]
    serial, _ = build(X, Y, folds, c["v"], PV, c["task"], **kw)
    want = [serial.cost(g, s) for g, s in points]
    shared, _ = build(X, Y, folds, c["v"], PV, c["task"], **kw)
    with ThreadPoolExecutor(max_workers=4) as pool:
        got = list(pool.map(lambda gs: shared.cost(*gs), points * 3))
        fits = list(pool.map(lambda s: shared.fit(5.0, s)[1], [1.0, 8.0] * 3))
    assert got == want * 3
    assert shared.n_evals == 3 * len(points)
    for f, s in zip(fits, [1.0, 8.0] * 3, strict=True):
        np.testing.assert_array_equal(f, serial.fit(5.0, s)[1])


# ------------------------------------------------------------------------------------------- tune_cv
@pytest.mark.parametrize(("tune", "lower", "upper"), [
    ("both", [-3.0, -2.0], [8.0, 3.0]),
    ("gamma", [-3.0], [8.0]),
    ("sigma2", [-2.0], [3.0]),
    ("sigma2 underflowing", [-800.0], [3.0]),  # exp(x) = 0 below about -745: an RBF with alpha = 0 fails (+inf)
    ("both, holdout", [-3.0, -2.0], [8.0, 3.0]),
    ("undefined Nystrom map", [-3.0], [8.0]),  # a zero prototype kernel matrix: every cost fails (+inf)
])
def test_tune_cv_equals_csa_simplex_on_a_python_cost(tune, lower, upper):
    name = "reg rbf holdout" if "holdout" in tune else "clf rbf"
    c, X, Y, folds, PV, kw, _ = case_problem(name, seed=4)
    if tune == "undefined Nystrom map":
        PV, kw = np.zeros_like(PV), {**kw, "tune_rbf": False, "params": kernels.KernelParams(kernels.KernelKind.linear)}
    cv, _ = build(X, Y, folds, c["v"], PV, c["task"], **kw)
    cv2, _ = build(X, Y, folds, c["v"], PV, c["task"], **kw)
    tune_gamma, tune_sigma2 = tune.startswith(("both", "gamma", "undefined")), tune.startswith(("both", "sigma2"))
    gamma, sigma2 = 7.0, 1.5
    lower, upper = np.array(lower), np.array(upper)
    x0 = np.random.default_rng(5).uniform(lower, upper, (5, lower.size))
    if tune == "sigma2 underflowing":  # two initial states where sigma2 = exp(x) is 0
        x0[:2] = [[-790.0], [-760.0]]

    def cost(x):
        try:
            return cv2.cost(math.exp(x[0]) if tune_gamma else gamma, math.exp(x[-1]) if tune_sigma2 else sigma2)
        except Exception:  # a failed cost counts as +inf
            return math.inf

    r = fs.tune_cv(cv, x0, lower, upper, tune_gamma, tune_sigma2, gamma, sigma2, n_csa=25, n_simplex=20, seed=9)
    ref = fs.csa_simplex(cost, x0, lower, upper, n_csa=25, n_simplex=20, seed=9)
    assert type(r) is fs.SearchResult
    np.testing.assert_array_equal(r.history, ref.history)
    np.testing.assert_array_equal(r.x, ref.x)
    assert (r.fun, r.n_csa, r.n_simplex, r.Tac, r.n_stages) == (ref.fun, ref.n_csa, ref.n_simplex, ref.Tac,
                                                                  ref.n_stages)
    assert cv.n_evals == cv2.n_evals == r.history.shape[0] and cv.n_passes == cv2.n_passes
    if tune == "undefined Nystrom map":
        assert np.all(r.history[:, -1] == math.inf)
    elif tune == "sigma2 underflowing":
        assert np.isinf(r.history[:, -1]).any() and np.isfinite(r.history[:, -1]).any()
    else:
        assert np.isfinite(r.history[:, -1]).all()


# ------------------------------------------------------------------------------------------- holdout_cheaper
def flop_model(n: int, p: int, v: int) -> bool:
    """The holdout identity's flops p^3/3 + n p^2 + n (n/v) (p + n/(3v)) below 2 v p^3 / 3 (v >= 2)."""
    if v < 2:
        return False
    nu = n / v
    return p**3 / 3 + n * p * p + n * nu * (p + nu / 3) < 2.0 * v * p**3 / 3


def test_holdout_cheaper_follows_the_flop_model():
    grid = [(n, p, v) for n in (10, 103, 300, 1030, 19020) for p in (2, 11, 51, 101, 121, 401, 701)
            for v in (1, 2, 3, 5, 10, 20, 30, 50, n)]
    got = [fs.holdout_cheaper(n, p, v) for n, p, v in grid]
    assert got == [flop_model(n, p, v) for n, p, v in grid]
    assert got == [cv_engine.holdout_cheaper(n, p, v) for n, p, v in grid]
    assert any(got) and not all(got)


# ------------------------------------------------------------------------------------------- argument checks
def test_the_searches_refuse_bounds_and_budgets_they_cannot_honour():
    x0 = np.zeros((3, 2))
    with pytest.raises(ValueError, match="lower <= upper"):
        fs.nelder_mead(six_hump, np.zeros(2), np.array([1.0, -1.0]), np.array([0.0, 1.0]))
    with pytest.raises(ValueError, match="lower <= upper"):
        fs.nelder_mead(six_hump, np.zeros(2), np.array([np.nan, -1.0]), np.ones(2))
    for n_csa in (0, 5):  # whether CSA runs or not
        with pytest.raises(ValueError, match="lower < upper"):
            fs.csa_simplex(six_hump, x0, np.array([1.0, -1.0]), np.array([0.0, 1.0]), n_csa=n_csa)
    with pytest.raises(ValueError, match="n_csa must be 0 or at least the number of initial states"):
        fs.csa_simplex(six_hump, x0, -np.ones(2), np.ones(2), n_csa=2)
    r = fs.csa_simplex(six_hump, x0 + 0.5, -np.ones(2), np.ones(2), n_csa=0, n_simplex=0)
    np.testing.assert_array_equal(r.x, x0[0] + 0.5)
    assert r.fun == np.inf and r.history.shape == (0, 3)


@pytest.mark.parametrize(("gamma", "sigma2", "match"), [(0.0, 1.0, "gamma"), (np.inf, 1.0, "gamma"),
                                                       (1.0, 0.0, "sigma2"), (1.0, np.nan, "sigma2")])
def test_cv_cost_names_a_bad_hyperparameter(gamma, sigma2, match):
    cv = _cv_cost()
    for call in (cv.cost, cv.fit):
        with pytest.raises(ValueError, match=match):
            call(gamma, sigma2)


def test_nystrom_projection_names_pv_when_it_is_not_finite():
    with pytest.raises(ValueError, match="PV"):
        fs.nystrom_projection(np.array([[0.0, np.nan], [1.0, 1.0]]), rbf(1.0))
