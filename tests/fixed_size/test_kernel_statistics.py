"""Kernel statistics of the fixed-size LS-SVM: the fold sums of C = [K(X, PV), 1] mapped by P~ = [[P, 0], [0, 1]]
(Phi_u^T Phi_u = P~^T C_u^T C_u P~, Phi_u^T Y_u = P~^T C_u^T Y_u, held-out rows predicted as C (P~ theta)) give the
model of the features path (paper 002, (5), (7), (19)-(21)) on every estimator and data source, and "auto" keeps the
features where Omega_mm's kept spectrum is ill-conditioned, the case the extended-precision reference below shows the
kernel statistics losing accuracy."""

from __future__ import annotations

import numpy as np
import pytest

from svmopt import FixedSizeLSSVC, FixedSizeLSSVR, _core
from svmopt._shared.splits import random_folds
from svmopt.fixed_size.cv_engine import CoreCVEngine, CVEngine
from svmopt.fixed_size.nystrom import nystrom_projection, rbf_params

fs = _core.fixed_size
KK = _core.kernels.KernelKind


def _rel(a, b) -> float:
    a, b = np.asarray(a, float), np.asarray(b, float)
    return float(np.max(np.abs(a - b)) / max(np.max(np.abs(a)), 1e-300))


def _kernels(d):
    return {
        "rbf": rbf_params(0.5 * d),
        "poly": _core.kernels.KernelParams(KK.inhom_poly, degree=2, c=1.0),
        "linear": _core.kernels.KernelParams(KK.linear),  # Omega_mm of rank d: m' = d < m
    }


def _accumulate(X, Y, folds, v, PV, params, P, statistics, chunk=0, block=None, keep=False):
    acc = fs.FoldAccumulator(PV, params, P, n_folds=v, n_targets=Y.shape[1], chunk=chunk, keep_features=keep,
                             statistics=statistics)
    block = block or X.shape[0]
    for s in range(0, X.shape[0], block):
        acc.add(np.ascontiguousarray(X[s:s + block]), np.ascontiguousarray(Y[s:s + block]),
                None if folds is None else np.ascontiguousarray(folds[s:s + block]))
    return acc


# ----------------------------------------------------------------------------------------- the accumulator
@pytest.mark.parametrize("seed", range(9))
def test_kernel_statistics_equal_feature_statistics_over_random_shapes(seed):
    """Random shapes, fold counts, chunk and block sizes, three kernels; kept spectra conditioned within 1e4."""
    rng = np.random.default_rng(seed)
    n, d, m = int(rng.integers(50, 700)), int(rng.integers(2, 7)), int(rng.integers(3, 40))
    v, k = int(rng.integers(1, 8)), int(rng.integers(1, 4))
    kname = ["rbf", "poly", "linear"][seed % 3]
    params = _kernels(d)[kname]
    X = rng.normal(size=(n, d))
    PV = np.ascontiguousarray(X[rng.choice(n, m, replace=False)])
    Y = rng.normal(size=(n, k))
    folds = rng.integers(0, v, n).astype(np.int32) if v > 1 else None
    P, lam = nystrom_projection(PV, params)
    assert lam.max() / lam.min() < 1e4
    chunk, block = int(rng.integers(1, 200)), int(rng.integers(20, 400))
    a = _accumulate(X, Y, folds, v, PV, params, P, "features", chunk, block, keep=True)
    b = _accumulate(X, Y, folds, v, PV, params, P, "kernel", chunk, block, keep=True)
    assert b.kernel_statistics and not a.kernel_statistics
    assert a.dim == b.dim == P.shape[1] + 1
    Ga, ta, yya, ca = a.results()
    Gb, tb, yyb, cb = b.results()
    np.testing.assert_array_equal(ca, cb)
    assert _rel(yya, yyb) < 1e-13
    assert _rel(Ga, Gb) < 1e-10 and _rel(ta, tb) < 1e-10
    if v > 1:
        tha, thb = a.fold_solve(0.7, True), b.fold_solve(0.7, True)
        assert _rel(tha, thb) < 1e-8
        assert _rel(a.predict_kept(tha), b.predict_kept(thb)) < 1e-8
    assert _rel(a.kept_features(), b.kept_features()) < 1e-10
    # the features written while accumulating (the holdout form's stream-ordered Phi_e)
    out_a, out_b = np.empty((n, a.dim)), np.empty((n, a.dim))
    fa = fs.FoldAccumulator(PV, params, P, n_folds=v, n_targets=k, statistics="features")
    fb = fs.FoldAccumulator(PV, params, P, n_folds=v, n_targets=k, statistics="kernel")
    fa.add(X, Y, folds, out=out_a)
    fb.add(X, Y, folds, out=out_b)
    assert _rel(out_a, out_b) < 1e-10


def test_raw_kernel_statistics_and_their_projection():
    rng = np.random.default_rng(3)
    X, Y = rng.normal(size=(400, 3)), rng.normal(size=(400, 2))
    PV = np.ascontiguousarray(X[:30])
    params = rbf_params(2.0)
    P, _ = nystrom_projection(PV, params)
    folds = (np.arange(400) % 4).astype(np.int32)
    acc = _accumulate(X, Y, folds, 4, PV, params, P, "kernel")
    Gk, tk, yy, counts = acc.results(raw=True)
    np.testing.assert_array_equal(counts, [100] * 4)
    C = np.hstack([_core.kernels.cross(X, PV, params, 0, 256), np.ones((400, 1))])
    for u in range(4):  # numpy reference of the raw sums
        np.testing.assert_allclose(yy[u], (Y[folds == u] ** 2).sum(0), rtol=1e-12)
        np.testing.assert_allclose(Gk[u], C[folds == u].T @ C[folds == u], rtol=1e-12, atol=1e-12)
        np.testing.assert_allclose(tk[u], C[folds == u].T @ Y[folds == u], rtol=1e-12, atol=1e-12)
    G, t = fs.project_statistics(Gk, tk, P)
    Gr, tr, _, _ = acc.results()
    assert _rel(Gr, G) < 1e-13 and _rel(tr, t) < 1e-13
    for st in ("kernel", "features"):  # the final fit's sums: mapped once (kernel) or summed (features)
        Gs, ts = _accumulate(X, Y, folds, 4, PV, params, P, st).totals()
        assert _rel(Gr.sum(0), Gs) < 1e-12 and _rel(tr.sum(0), ts) < 1e-12
        np.testing.assert_array_equal(Gs, Gs.T)
    Pt = np.zeros((31, P.shape[1] + 1))
    Pt[:30, :-1], Pt[30, -1] = P, 1.0
    assert _rel(np.einsum("ij,ujk,kl->uil", Pt.T, Gk, Pt), G) < 1e-12
    with pytest.raises(ValueError, match="feature statistics"):
        _accumulate(X, Y, folds, 4, PV, params, P, "features").results(raw=True)
    with pytest.raises(ValueError, match="m \\+ 1"):
        fs.project_statistics(Gk[:, :-1, :-1], tk[:, :-1], P)


def test_statistics_argument_is_checked():
    PV = np.zeros((3, 2))
    bad = PV.copy()
    bad[1, 0] = np.nan
    with pytest.raises(ValueError, match="PV"):
        fs.FoldAccumulator(bad, rbf_params(1.0), np.eye(3), statistics="kernel")
    with pytest.raises(ValueError, match="statistics must be"):
        fs.FoldAccumulator(PV, rbf_params(1.0), np.eye(3), statistics="gram")
    with pytest.raises(ValueError, match="need prototypes"):
        fs.FoldAccumulator(np.zeros((0, 2)), _core.kernels.KernelParams(KK.linear), np.zeros((0, 0)),
                           n_features_linear=2, statistics="kernel")
    with pytest.raises(ValueError, match="statistics"):
        FixedSizeLSSVR(statistics="gram").fit(np.zeros((5, 2)), np.arange(5.0))


def test_auto_follows_cost_and_conditioning():
    rng = np.random.default_rng(0)
    X = rng.normal(size=(300, 4))
    PV = np.ascontiguousarray(X[:40])
    P, lam = nystrom_projection(PV, rbf_params(1.0))  # narrow RBF: well conditioned, no eigenpair dropped
    assert lam.max() / lam.min() < 1e3 and P.shape[1] == 40
    assert fs.kernel_statistics_preferred(P, 1)
    assert fs.FoldAccumulator(PV, rbf_params(1.0), P).kernel_statistics
    P, lam = nystrom_projection(PV, rbf_params(200.0))  # wide RBF: lambda_max / lambda_min far above 1e5
    assert lam.max() / lam.min() > 1e5
    assert not fs.kernel_statistics_preferred(P, 1)
    assert not fs.FoldAccumulator(PV, rbf_params(200.0), P).kernel_statistics
    # near-duplicate prototypes: kept eigenvalues near the drop threshold m eps lambda_max
    PVd = np.ascontiguousarray(np.vstack([PV, PV + 1e-4]))
    P, lam = nystrom_projection(PVd, rbf_params(1.0))
    assert P.shape[1] == 80 and lam.max() / lam.min() > 1e5
    assert not fs.kernel_statistics_preferred(P, 1)
    # exact duplicates: their eigenpairs are dropped, the kept spectrum is that of the distinct ones
    PVd = np.ascontiguousarray(np.vstack([PV, PV]))
    P, lam = nystrom_projection(PVd, rbf_params(1.0))
    assert P.shape[1] == 40 and lam.max() / lam.min() < 1e3
    assert fs.kernel_statistics_preferred(P, 1)
    # many eigenpairs dropped (m' << m): the projection is cheaper than an update of order m
    P = np.ascontiguousarray(np.eye(40)[:, :5])
    assert not fs.kernel_statistics_preferred(P, 1)
    assert not fs.FoldAccumulator(PV, rbf_params(1.0), P).kernel_statistics
    assert fs.FoldAccumulator(PV, rbf_params(1.0), P, statistics="kernel").kernel_statistics


# ------------------------------------------------------------------------ accuracy in extended precision
def _reference_theta(X, PV, sigma2, P, Y, gamma):
    """theta of (7) with Phi_e, Phi_e^T Phi_e and Phi_e^T Y formed in extended precision (np.longdouble), the solve
    refined against the extended-precision system."""
    L = np.longdouble
    Xl, Pl = X.astype(L), PV.astype(L)
    D = np.maximum((Xl ** 2).sum(1)[:, None] + (Pl ** 2).sum(1)[None, :] - 2 * Xl @ Pl.T, 0)
    C = np.hstack([np.exp(-D / L(sigma2)), np.ones((X.shape[0], 1), dtype=L)])
    Pt = np.zeros((PV.shape[0] + 1, P.shape[1] + 1), dtype=L)
    Pt[:-1, :-1], Pt[-1, -1] = P, 1
    F = C @ Pt
    A = F.T @ F + np.eye(F.shape[1], dtype=L) / L(gamma)
    b = F.T @ Y.astype(L)
    th = np.linalg.solve(A.astype(float), b.astype(float))
    for _ in range(5):
        th = th + np.linalg.solve(A.astype(float), (b - A @ th.astype(L)).astype(float))
    return th


@pytest.mark.parametrize(("sigma2", "offset", "kernel_ok"),
                         [(0.5, None, True), (2.0, None, True), (32.0, None, False), (1.0, 1e-3, False)])
def test_auto_keeps_the_more_accurate_statistics(sigma2, offset, kernel_ok):
    """Against an extended-precision reference: with a well-conditioned kept spectrum both paths are accurate and
    auto takes the kernel statistics; with lambda_max / lambda_min ~ 1e9 (a wide kernel, or near-duplicate
    prototypes) the kernel statistics lose digits the features keep, and auto takes the features."""
    rng = np.random.default_rng(0)
    X = rng.normal(size=(2000, 4))
    PV = np.ascontiguousarray(X[:60])
    if offset is not None:
        PV[30:] = PV[:30] + offset
    Y = np.sign(np.sin(2 * X[:, :1]) + X[:, 1:2] * X[:, 2:3])
    params = rbf_params(sigma2)
    P, lam = nystrom_projection(PV, params)
    assert (lam.max() / lam.min() <= 1e5) == kernel_ok  # the rule auto applies
    gamma = 1e3
    ref = _reference_theta(X, PV, sigma2, P, Y, gamma)
    err = {}
    for st in ("features", "kernel"):
        G, t, _, _ = _accumulate(X, Y, None, 1, PV, params, P, st).results()
        try:
            err[st] = _rel(ref, fs.ridge_solve(G[0], t[0], gamma, True))
        except RuntimeError:  # the projected system lost positive definiteness
            err[st] = np.inf
    assert err["features"] < 1e-9
    auto = fs.FoldAccumulator(PV, params, P).kernel_statistics
    assert auto == kernel_ok
    if kernel_ok:
        assert err["kernel"] < 1e-9
    else:
        assert err["kernel"] > 10 * err["features"]


# ----------------------------------------------------------------------------------------- the engines
@pytest.mark.parametrize("task", ["classification", "regression"])
def test_cv_engines_agree_across_statistics(task):
    rng = np.random.default_rng(5)
    n, d = 600, 3
    X = rng.normal(size=(n, d))
    Y = (np.sign(X[:, :1] + 0.3 * rng.normal(size=(n, 1))) if task == "classification"
         else np.sin(X[:, :1]) + 0.1 * rng.normal(size=(n, 1)))
    PV = np.ascontiguousarray(X[:35])
    folds = random_folds(n, 6, rng)
    out = {}
    for st in ("features", "kernel"):
        def blocks():
            for s in range(0, n, 128):
                yield X[s:s + 128], Y[s:s + 128]

        for name, eng in (("py", CVEngine(blocks, folds, 6, PV, rbf_params, task, statistics=st)),
                          ("py-stream", CVEngine(blocks, folds, 6, PV, rbf_params, task, statistics=st,
                                                 feature_budget=1)),
                          ("core", CoreCVEngine(X, None, None, None, 128, Y, folds, 6, PV, rbf_params, task,
                                                tune_rbf=True, n_features=d, statistics=st))):
            costs = [eng.cost(g, s2) for g, s2 in ((0.5, 1.0), (20.0, 2.5), (300.0, 0.7))]
            _, theta = eng.fit(20.0, 2.5)
            out[(name, st)] = (costs, theta)
    for name in ("py", "py-stream", "core"):
        cf, tf = out[(name, "features")]
        ck, tk = out[(name, "kernel")]
        np.testing.assert_allclose(ck, cf, rtol=1e-8, atol=1e-12)
        assert _rel(tf, tk) < 1e-8


# ----------------------------------------------------------------------------------------- the estimators
@pytest.fixture(scope="module")
def data():
    rng = np.random.default_rng(1)
    n = 700
    X = rng.normal(size=(n, 4))
    y = np.where(X[:, 0] + 0.5 * X[:, 1] ** 2 - 0.4 + 0.3 * rng.normal(size=n) > 0, 1, -1)
    y3 = np.digitize(X[:, 0] + 0.3 * rng.normal(size=n), [-0.5, 0.5])
    y4 = np.digitize(X[:, 0] + X[:, 2], [-1.0, 0.0, 1.0])
    yr = np.sin(X[:, 0]) + 0.5 * X[:, 2] + 0.1 * rng.normal(size=n)
    return X, y, y3, y4, yr


def _pair(Est, X, target, **kw):
    a = Est(statistics="features", **kw).fit(X, target)
    b = Est(statistics="kernel", **kw).fit(X, target)
    assert all(p["statistics"] == "features" for p in a.problems_)
    assert all(p["statistics"] == "kernel" for p in b.problems_)
    return a, b


@pytest.mark.parametrize("feature_memory", ["1G", 1])
def test_estimators_equal_across_statistics(data, feature_memory):
    """Binary, one-vs-one, minimum output coding and regression; features kept in memory and streamed."""
    X, y, y3, y4, yr = data
    kw = {"n_prototypes": 40, "gamma": 10.0, "sigma2": 3.0, "cv": 5, "random_state": 0, "block_size": 256,
          "feature_memory": feature_memory}
    for Est, target, extra in ((FixedSizeLSSVC, y, {}), (FixedSizeLSSVC, y3, {"multiclass": "ovo"}),
                               (FixedSizeLSSVC, y4, {"multiclass": "moc"}), (FixedSizeLSSVR, yr, {})):
        a, b = _pair(Est, X, target, **kw, **extra)
        assert _rel(a.decision_function(X) if Est is FixedSizeLSSVC else a.predict(X),
                    b.decision_function(X) if Est is FixedSizeLSSVC else b.predict(X)) < 1e-8
        if np.isfinite(a.cv_score_).all():
            np.testing.assert_allclose(b.cv_score_, a.cv_score_, rtol=1e-8, atol=1e-12)


def test_memmap_source_equal_across_statistics(data, tmp_path):
    X, _, _, _, yr = data
    mm = np.memmap(tmp_path / "X.f64", dtype=np.float64, mode="w+", shape=X.shape)
    mm[:] = X
    mm.flush()
    kw = {"n_prototypes": 30, "gamma": 5.0, "sigma2": 2.0, "cv": 4, "random_state": 2, "block_size": 150}
    a, b = _pair(FixedSizeLSSVR, np.memmap(tmp_path / "X.f64", dtype=np.float64, mode="r", shape=X.shape), yr, **kw)
    assert _rel(a.predict(X), b.predict(X)) < 1e-8
    np.testing.assert_allclose(b.cv_score_, a.cv_score_, rtol=1e-8)
    ref = FixedSizeLSSVR(**kw).fit(X, yr)  # auto in memory
    assert ref.problems_[0]["statistics"] == "kernel"
    assert _rel(ref.predict(X), b.predict(X)) < 1e-8


def test_dask_source_equal_across_statistics(dask_client, data):
    da = pytest.importorskip("dask.array")
    X, y, _, _, yr = data
    Xd = da.from_array(X, chunks=(130, 4))
    for Est, target in ((FixedSizeLSSVC, y), (FixedSizeLSSVR, yr)):
        kw = {"n_prototypes": 30, "gamma": 5.0, "sigma2": 2.0, "cv": 4, "random_state": 2}
        ref = Est(statistics="features", **kw).fit(X, target)
        for fm in ("1G", 1):
            got = Est(statistics="kernel", feature_memory=fm, **kw).fit(Xd, target)
            f_ref = ref.decision_function(X) if Est is FixedSizeLSSVC else ref.predict(X)
            f_got = got.decision_function(X) if Est is FixedSizeLSSVC else got.predict(X)
            assert _rel(f_ref, f_got) < 1e-8
            if np.isfinite(got.cv_score_):
                np.testing.assert_allclose(got.cv_score_, ref.cv_score_, rtol=1e-8, atol=1e-12)


def test_tuned_fits_equal_across_statistics(data):
    """CSA + simplex visits the same points when every cost agrees (classification costs are exact counts)."""
    X, y, _, _, _ = data
    kw = {"n_prototypes": 25, "cv": 4, "random_state": 3, "n_csa": 10, "n_simplex": 5}
    a, b = _pair(FixedSizeLSSVC, X, y, **kw)
    assert a.gamma_ == pytest.approx(b.gamma_, rel=1e-10)
    assert a.sigma2_ == pytest.approx(b.sigma2_, rel=1e-10)
    np.testing.assert_array_equal(a.predict(X), b.predict(X))


@pytest.mark.parametrize("layout", ["row-strided", "fortran"])
def test_kernel_statistics_read_strided_blocks(layout):
    """A block whose rows are spaced (a column slice) goes to the dgemm with its row stride; a column-major one is
    packed first: both give the contiguous block's statistics."""
    rng = np.random.default_rng(7)
    wide = rng.normal(size=(500, 9))
    X = wide[:, :4] if layout == "row-strided" else np.asfortranarray(wide[:, :4])
    Y = rng.normal(size=(500, 1))
    PV = np.ascontiguousarray(X[:30])
    params = rbf_params(2.0)
    P, _ = nystrom_projection(PV, params)
    got = fs.FoldAccumulator(PV, params, P, statistics="kernel")
    got.add(X, Y)
    ref = fs.FoldAccumulator(PV, params, P, statistics="kernel")
    ref.add(np.ascontiguousarray(X), Y)
    assert _rel(ref.results()[0], got.results()[0]) < 1e-13
