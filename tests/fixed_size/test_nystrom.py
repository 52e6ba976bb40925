"""Nyström features (5) (paper 002 Section 3.1) and the blockwise Phi^T Phi / Phi^T Y accumulation
(Sections 6.1-6.2)."""

import numpy as np
import pytest

from svmopt import _core
from svmopt.fixed_size.nystrom import nystrom_projection

LINEAR = _core.kernels.KernelParams(_core.kernels.KernelKind.linear)


def rbf(sigma2):
    return _core.kernels.KernelParams(_core.kernels.KernelKind.rbf, alpha=np.sqrt(sigma2 / 2))


def k_rbf(A, B, sigma2):
    return np.exp(-((A[:, None, :] - B[None, :, :]) ** 2).sum(-1) / sigma2)


@pytest.fixture
def data():
    rng = np.random.default_rng(0)
    X = rng.normal(size=(211, 4))
    Y = rng.normal(size=(211, 2))
    PV = np.ascontiguousarray(X[:25])
    return X, Y, PV


def features_ref(X, PV, sigma2):
    """numpy reference: Phi = K_nm U Lambda^{-1/2} with the m eps lambda_max truncation."""
    lam, U = np.linalg.eigh(k_rbf(PV, PV, sigma2))
    lam, U = lam[::-1], U[:, ::-1]
    keep = lam > PV.shape[0] * np.finfo(float).eps * lam[0]
    return k_rbf(X, PV, sigma2) @ (U[:, keep] / np.sqrt(lam[keep]))


def test_features_match_numpy_and_nystrom_identities(data):
    """Nyström identities: phi(PV) phi(PV)^T = Omega_mm; phi(x)^T phi(z) = k(x)^T Omega^{-1} k(z)."""
    X, _, PV = data
    P, _ = nystrom_projection(PV, rbf(3.0))
    F = _core.fixed_size.nystrom_features(np.ascontiguousarray(X), PV, rbf(3.0), P)
    Fr = features_ref(X, PV, 3.0)
    np.testing.assert_allclose(np.abs(F), np.abs(Fr), atol=1e-10)  # eigenvector signs may differ
    Fpv = _core.fixed_size.nystrom_features(PV, PV, rbf(3.0), P)
    np.testing.assert_allclose(Fpv @ Fpv.T, k_rbf(PV, PV, 3.0), atol=1e-10)
    Kx = k_rbf(X[:20], PV, 3.0)
    np.testing.assert_allclose(F[:20] @ F[:20].T, Kx @ np.linalg.solve(k_rbf(PV, PV, 3.0), Kx.T), atol=1e-8)


def test_truncation_with_duplicated_prototypes(data):
    X, _, PV = data
    PVd = np.ascontiguousarray(np.vstack([PV, PV[:5]]))
    P, _ = nystrom_projection(PVd, rbf(3.0))
    assert P.shape[1] < PVd.shape[0]
    F = _core.fixed_size.nystrom_features(np.ascontiguousarray(X), PVd, rbf(3.0), P)
    assert np.all(np.isfinite(F))


@pytest.mark.parametrize("chunk", [1, 7, 64, 0])
@pytest.mark.parametrize("split", [[211], [1, 3, 17, 190], [100, 111]])
def test_blockwise_accumulation_equals_in_memory(data, chunk, split):
    """Any row blocking (streamed blocks of unequal lengths, internal chunks of 1..n) gives Phi_e^T Phi_e."""
    X, Y, PV = data
    P, _ = nystrom_projection(PV, rbf(2.0))
    folds = np.random.default_rng(1).integers(0, 5, X.shape[0]).astype(np.int32)
    acc = _core.fixed_size.FoldAccumulator(PV, rbf(2.0), P, n_folds=5, n_targets=2, chunk=chunk, n_threads=1)
    r0 = 0
    feats = np.full((211, P.shape[1] + 1), np.nan)
    for i, length in enumerate(split):
        Xb, Yb, fb = np.ascontiguousarray(X[r0:r0 + length]), np.ascontiguousarray(Y[r0:r0 + length]), \
            folds[r0:r0 + length]
        if i % 2:  # the features in stream order: straight into a row block of the caller's buffer, or a new one
            assert acc.add(Xb, Yb, fb, out=feats[r0:r0 + length]) is None
        else:
            block = np.empty((length, acc.dim))
            acc.add(Xb, Yb, fb, out=block)
            feats[r0:r0 + length] = block
        r0 += length
    G, t, yy, counts = acc.results()
    Fe = np.hstack([_core.fixed_size.nystrom_features(np.ascontiguousarray(X), PV, rbf(2.0), P), np.ones((211, 1))])
    np.testing.assert_allclose(feats, Fe, rtol=0, atol=1e-12)
    for u in range(5):
        r = folds == u
        np.testing.assert_allclose(G[u], Fe[r].T @ Fe[r], rtol=0, atol=1e-10)
        np.testing.assert_allclose(t[u], Fe[r].T @ Y[r], rtol=0, atol=1e-10)
        np.testing.assert_allclose(yy[u], (Y[r] ** 2).sum(0), rtol=1e-12)
        assert counts[u] == r.sum()
    np.testing.assert_array_equal(G, np.transpose(G, (0, 2, 1)))


@pytest.mark.parametrize("chunk", [1, 7, 0])
@pytest.mark.parametrize("v", [1, 4])
@pytest.mark.parametrize("split", [[211], [1, 3, 17, 190]])
def test_kept_features_predict_like_fold_predict(data, chunk, v, split):
    """keep_features: predict_kept gives, in stream order, each row's prediction by its own fold's model: the same
    numbers as fold_predict on the stream-ordered features, for any blocking, internal chunking and fold count; the
    statistics are those of an accumulator that keeps nothing."""
    X, Y, PV = data
    P, _ = nystrom_projection(PV, rbf(2.0))
    folds = np.random.default_rng(3).integers(0, v, X.shape[0]).astype(np.int32)
    kept = _core.fixed_size.FoldAccumulator(PV, rbf(2.0), P, n_folds=v, n_targets=2, chunk=chunk, n_threads=1,
                                            keep_features=True)
    plain = _core.fixed_size.FoldAccumulator(PV, rbf(2.0), P, n_folds=v, n_targets=2, chunk=chunk, n_threads=1)
    assert kept.keeps_features and not plain.keeps_features
    r0 = 0
    for length in split:
        sl = slice(r0, r0 + length)
        Xb, Yb = np.ascontiguousarray(X[sl]), np.ascontiguousarray(Y[sl])
        fb = folds[sl] if v > 1 else None
        kept.add(Xb, Yb, fb)
        plain.add(Xb, Yb, fb)
        r0 += length
    for a, b in zip(kept.results(), plain.results(), strict=True):
        np.testing.assert_array_equal(a, b)
    theta = np.random.default_rng(4).normal(size=(v, P.shape[1] + 1, 2))
    Fe = np.hstack([_core.fixed_size.nystrom_features(np.ascontiguousarray(X), PV, rbf(2.0), P), np.ones((211, 1))])
    ref = np.einsum("ip,ipk->ik", Fe, theta[folds if v > 1 else np.zeros(211, int)])
    np.testing.assert_allclose(kept.predict_kept(theta), ref, rtol=1e-12, atol=1e-12)
    np.testing.assert_allclose(kept.kept_features(), Fe, rtol=0, atol=1e-12)
    with pytest.raises(ValueError, match="keep_features"):
        plain.predict_kept(theta)
    with pytest.raises(ValueError, match="keep_features"):
        plain.kept_features()
    with pytest.raises(ValueError, match="one model per fold"):
        kept.predict_kept(np.zeros((v + 1, P.shape[1] + 1, 2)))
    with pytest.raises(ValueError, match="theta"):
        kept.predict_kept(np.zeros((v, P.shape[1], 2)))


def test_kept_explicit_linear_features():
    """keep_features on explicit linear features (the dsyrk-on-X path is skipped: the features are kept)."""
    rng = np.random.default_rng(6)
    X = rng.normal(size=(400, 130))
    Y = rng.normal(size=(400, 1))
    folds = (np.arange(400) * 5 % 3).astype(np.int32)
    acc = _core.fixed_size.FoldAccumulator(np.zeros((0, 130)), LINEAR, np.zeros((0, 0)),
                                           n_folds=3, n_features_linear=130, chunk=90, keep_features=True)
    acc.add(X, Y, folds)
    theta = rng.normal(size=(3, 131, 1))
    Xe = np.hstack([X, np.ones((400, 1))])
    np.testing.assert_allclose(acc.predict_kept(theta), np.einsum("ip,ipk->ik", Xe, theta[folds]), atol=1e-11)
    one = _core.fixed_size.FoldAccumulator(np.zeros((0, 130)), LINEAR, np.zeros((0, 0)),
                                           n_features_linear=130, keep_features=True)
    one.add(X, Y)
    np.testing.assert_allclose(one.results()[0][0], Xe.T @ Xe, atol=1e-10)
    np.testing.assert_allclose(one.predict_kept(theta[:1]), Xe @ theta[0], atol=1e-11)


def test_explicit_linear_features_and_strided_input():
    """Linear mode (linear FS-LSSVM: explicit features x, equivalent to Nyström-linear when the PV span R^d): the
    features are the inputs plus the constant; F-ordered/strided views work."""
    rng = np.random.default_rng(2)
    X = np.asfortranarray(rng.normal(size=(300, 130)))
    Y = np.ascontiguousarray(rng.normal(size=(300, 1)))
    acc = _core.fixed_size.FoldAccumulator(np.zeros((0, 130)), LINEAR, np.zeros((0, 0)),
                                           n_features_linear=130, chunk=50)
    acc.add(X, Y)
    G, t, _, _ = acc.results()
    Xe = np.hstack([X, np.ones((300, 1))])
    np.testing.assert_allclose(G[0], Xe.T @ Xe, atol=1e-10)  # several 64-column panels
    np.testing.assert_allclose(t[0], Xe.T @ Y, atol=1e-10)
    np.testing.assert_allclose(acc.features(X[::2]), Xe[::2], atol=0)
    # with folds: the strided rows are gathered per fold; the returned features stay in stream order
    folds = (np.arange(300) * 7 % 3).astype(np.int32)
    acc3 = _core.fixed_size.FoldAccumulator(np.zeros((0, 130)), LINEAR, np.zeros((0, 0)),
                                            n_folds=3, n_features_linear=130, chunk=64)
    F3 = np.empty((300, acc3.dim))
    acc3.add(X, Y, folds, out=F3)
    np.testing.assert_array_equal(F3, Xe)
    G3, t3, _, _ = acc3.results()
    for u in range(3):
        np.testing.assert_allclose(G3[u], Xe[folds == u].T @ Xe[folds == u], atol=1e-10)
        np.testing.assert_allclose(t3[u], Xe[folds == u].T @ Y[folds == u], atol=1e-10)


def test_thread_count_does_not_change_the_result(data):
    X, Y, PV = data
    P, _ = nystrom_projection(PV, rbf(2.0))
    out = []
    for nt in (1, 2):
        acc = _core.fixed_size.FoldAccumulator(PV, rbf(2.0), P, n_folds=1, n_targets=2, n_threads=nt, chunk=50)
        acc.add(np.ascontiguousarray(X), np.ascontiguousarray(Y))
        out.append(acc.results()[0])
    np.testing.assert_array_equal(out[0], out[1])


def test_accumulator_rejects_bad_input(data):
    X, Y, PV = data
    P, _ = nystrom_projection(PV, rbf(2.0))
    acc = _core.fixed_size.FoldAccumulator(PV, rbf(2.0), P, n_folds=3)
    with pytest.raises(ValueError):
        acc.add(np.ascontiguousarray(X), np.ascontiguousarray(Y[:, :1]), np.full(211, 3, np.int32))
    with pytest.raises(ValueError):
        acc.add(np.ascontiguousarray(X[:, :3]), np.ascontiguousarray(Y[:, :1]))


# --------------------------------------------------------------------- BLAS products (p >= blas kMinDim = 128)
def _numpy_bundles_openblas64():
    return _core._numpy_blas_addresses() is not None


@pytest.fixture(params=["numpy", "scipy", False], ids=["numpy-blas", "scipy-blas", "eigen"])
def blas_mode(request):
    """Run a test with the fixed-size dense kernels on NumPy's bundled OpenBLAS (ILP64), on SciPy's (LP64 capsules)
    and on Eigen (svmopt._core.use_blas)."""
    prev = _core.blas_provider()
    if request.param == "numpy" and not _numpy_bundles_openblas64():
        pytest.skip("this NumPy does not bundle scipy-openblas64 (a NumPy from a wheel on PyPI does)")
    on = _core.use_blas(request.param)
    assert on == bool(request.param)
    assert _core.blas_provider() == (request.param or None)
    assert _core.blas.potrf_available() == bool(request.param)
    yield request.param
    _core.use_blas(prev or False)


def test_blas_is_found_and_can_be_chosen():
    """A BLAS is found on the first call that needs one in every supported environment (SciPy is a dependency):
    NumPy's bundled OpenBLAS where it has one, else SciPy's; use_blas switches providers or back to Eigen, and the
    capsules installed by hand are checked against the Fortran signatures."""
    _core.blas_provider()  # the first use, where nothing chose before (tests/core/test_core_api.py: in a fresh process)
    assert _core.blas.configured()
    if not _core.blas.available():  # an earlier test left the core on Eigen: choose as the first use does
        _core.use_blas(True)
    assert _core.blas.available() and _core.blas.potrf_available()
    assert _core.blas_provider() == ("numpy" if _numpy_bundles_openblas64() else "scipy")
    assert _core.blas.interface() == {"numpy": "ilp64", "scipy": "lp64"}[_core.blas_provider()]
    assert not _core.use_blas(False) and not _core.blas.available() and _core.blas_provider() is None
    assert _core.blas.configured() and _core.blas.interface() == "" and not _core.blas.potrf_available()
    assert _core.use_blas("scipy") and _core.blas_provider() == "scipy" and _core.blas.interface() == "lp64"
    assert _core.use_blas(True)
    for bad in ("yes", 1, None):
        with pytest.raises(TypeError, match="enabled"):
            _core.use_blas(bad)
    from scipy.linalg import cython_blas, cython_lapack

    capi = cython_blas.__pyx_capi__
    with pytest.raises(ValueError, match="not the LP64 Fortran signature"):  # swapped: refused, BLAS kept
        _core.blas.set_lp64(capi["dgemm"], capi["dsyrk"])
    with pytest.raises(ValueError, match="not the LP64 Fortran signature of dpotrf"):
        _core.blas.set_lp64(capi["dsyrk"], capi["dgemm"], capi["dgemm"])
    with pytest.raises(TypeError, match="PyCapsule"):
        _core.blas.set_lp64(1, 2)
    with pytest.raises(ValueError, match="non-null"):
        _core.blas.set_ilp64(0, 0, 0)
    assert _core.blas.available()
    _core.blas.set_lp64(capi["dsyrk"], capi["dgemm"], cython_lapack.__pyx_capi__["dpotrf"])
    assert _core.blas.interface() == "lp64" and _core.blas.potrf_available()
    _core.blas.set_lp64(capi["dsyrk"], capi["dgemm"])  # without dpotrf: the factorizations stay on Eigen
    assert _core.blas.available() and not _core.blas.potrf_available()
    _core.blas.clear()
    assert _core.blas.configured() and not _core.blas.available() and _core.blas.interface() == ""
    _core.use_blas(True)


@pytest.mark.parametrize("p", [5, 150, 1030])
def test_ridge_factorizations_on_lapack_and_eigen_equal_numpy(blas_mode, p):
    """fast_cv_solve, ridge_solve and fast_cv_holdout factor the ridge systems by dpotrf from p = 1024 (kMinPotrf)
    and by Eigen's LLT below or without a BLAS: the same solutions as numpy, and the same error for a system that
    is not positive definite."""
    rng = np.random.default_rng(p)
    n, v, k, gamma = 3 * p + 40, 4, 2, 7.0
    Phi = rng.normal(size=(n, p))
    Phi[:, -1] = 1.0  # the bias column, so that the accumulator's explicit linear features give the same G, t
    Y = rng.normal(size=(n, k))
    folds = (np.arange(n) % v).astype(np.int32)
    G = np.stack([Phi[folds == u].T @ Phi[folds == u] for u in range(v)])
    t = np.stack([Phi[folds == u].T @ Y[folds == u] for u in range(v)])
    R = np.diag(np.r_[np.ones(p - 1), 0.0])  # bias (last feature) not penalized
    theta = _core.fixed_size.fast_cv_solve(G, t, gamma, False)
    for u in range(v):
        ref = np.linalg.solve(G.sum(0) - G[u] + R / gamma, t.sum(0) - t[u])
        np.testing.assert_allclose(theta[u], ref, rtol=1e-9, atol=1e-12)
    np.testing.assert_allclose(_core.fixed_size.ridge_solve(G.sum(0), t.sum(0), gamma, True),
                               np.linalg.solve(G.sum(0) + np.eye(p) / gamma, t.sum(0)), rtol=1e-9, atol=1e-12)
    acc = _core.fixed_size.FoldAccumulator(np.zeros((0, p - 1)), LINEAR, np.zeros((0, 0)),
                                           n_folds=v, n_targets=k, n_features_linear=p - 1)
    acc.add(np.ascontiguousarray(Phi[:, :-1]), Y, folds)
    for _ in range(2):  # the fold sums are kept between calls
        np.testing.assert_allclose(acc.fold_solve(gamma, False), theta, rtol=1e-9, atol=1e-12)
    with pytest.raises(ValueError, match="gamma"):
        acc.fold_solve(0.0)
    ref_f = np.einsum("ip,ipk->ik", Phi, theta[folds])
    wide = np.zeros((n, 2 * p))
    wide[:, ::2] = Phi
    for layout in (Phi, np.asfortranarray(Phi), wide[:, ::2]):  # the row-contiguous fast path and strided views
        np.testing.assert_allclose(_core.fixed_size.fold_predict(layout, folds, theta), ref_f, rtol=1e-12, atol=1e-12)
    out = _core.fixed_size.fast_cv_holdout(Phi, Y, folds, v, G.sum(0), t.sum(0), gamma, False)
    ref = np.vstack([Phi[folds == u] @ theta[u] for u in range(v)])
    np.testing.assert_allclose(out[np.argsort(folds, kind="stable")], ref, rtol=1e-9, atol=1e-10)
    with pytest.raises(RuntimeError, match="not positive definite"):
        _core.fixed_size.fast_cv_solve(-G, t, gamma, True)
    with pytest.raises(RuntimeError, match="not positive definite"):
        _core.fixed_size.ridge_solve(-G[0], t[0], gamma, True)


@pytest.mark.parametrize("v", [1, 3])
@pytest.mark.parametrize("chunk", [37, 0])
def test_wide_features_on_blas_and_eigen_equal_numpy(blas_mode, v, chunk):
    """m = 150 prototypes (p = 151 >= 128: the BLAS gemm and syrk are used when on), folds, chunking: G, t and the
    features equal the numpy reference on both back ends."""
    rng = np.random.default_rng(5)
    X = rng.normal(size=(400, 6))
    Y = rng.normal(size=(400, 2))
    PV = np.ascontiguousarray(X[:150])
    P, _ = nystrom_projection(PV, rbf(8.0))
    assert P.shape[1] >= 128
    folds = (np.arange(400) * 11 % v).astype(np.int32)
    acc = _core.fixed_size.FoldAccumulator(PV, rbf(8.0), P, n_folds=v, n_targets=2, chunk=chunk, n_threads=1)
    F = np.empty((250, acc.dim))
    acc.add(np.ascontiguousarray(X[:250]), np.ascontiguousarray(Y[:250]), folds[:250], out=F)
    acc.add(np.ascontiguousarray(X[250:]), np.ascontiguousarray(Y[250:]), folds[250:])
    G, t, _, counts = acc.results()
    Kp = k_rbf(X, PV, 8.0) @ P
    Fe = np.hstack([Kp, np.ones((400, 1))])
    scale = np.abs(Fe).max() ** 2 * 400
    np.testing.assert_allclose(F, Fe[:250], rtol=0, atol=1e-10 * np.abs(Fe).max())
    Fp = _core.fixed_size.nystrom_features(np.ascontiguousarray(X), PV, rbf(8.0), P, n_threads=1,
                                           chunk=chunk)  # prediction
    np.testing.assert_allclose(Fp, Kp, rtol=0, atol=1e-10 * np.abs(Fe).max())
    for u in range(v):
        r = folds == u
        np.testing.assert_allclose(G[u], Fe[r].T @ Fe[r], rtol=0, atol=1e-12 * scale)
        np.testing.assert_allclose(t[u], Fe[r].T @ Y[r], rtol=0, atol=1e-12 * scale)
        assert counts[u] == r.sum()


@pytest.mark.parametrize("order", ["C", "F"])
@pytest.mark.parametrize("n, chunk, split", [(333, 100, 200), (1203, 0, 601)])
def test_wide_linear_features_on_blas_and_eigen(blas_mode, order, n, chunk, split):
    """Explicit linear features with d = 200 (C order: the Gram straight from X's rows through dsyrk, X^T [Y, 1] in
    256-row pieces four rows at a time; 1203 rows leave partial pieces and a remainder of rows)."""
    rng = np.random.default_rng(6)
    X = np.asarray(rng.normal(size=(n, 200)), order=order)
    Y = np.ascontiguousarray(rng.normal(size=(n, 3)))
    acc = _core.fixed_size.FoldAccumulator(np.zeros((0, 200)), LINEAR, np.zeros((0, 0)),
                                           n_targets=3, n_features_linear=200, chunk=chunk)
    acc.add(X[:split], Y[:split])
    acc.add(X[split:], Y[split:])
    G, t, yy, counts = acc.results()
    Xe = np.hstack([X, np.ones((n, 1))])
    np.testing.assert_allclose(G[0], Xe.T @ Xe, rtol=0, atol=1e-9)
    np.testing.assert_allclose(t[0], Xe.T @ Y, rtol=0, atol=1e-9)
    np.testing.assert_allclose(yy[0], (Y**2).sum(0), rtol=1e-12)
    assert counts[0] == n


# --------------------------------------------------------------------- weighted statistics (sample weights)
def _weighted_reference(F, Y, w, folds, v):
    """Per fold: Phi_u^T W_u Phi_u, Phi_u^T W_u Y_u, sum w y^2 and the row count, in numpy."""
    f = np.zeros(F.shape[0], int) if folds is None else folds
    out = []
    for u in range(v):
        r = f == u
        out.append((F[r].T @ (w[r, None] * F[r]), F[r].T @ (w[r, None] * Y[r]), w[r] @ Y[r] ** 2, r.sum()))
    return out


@pytest.mark.parametrize("seed", range(12))
def test_weighted_accumulation_equals_numpy(seed):
    """add(weights=w): per fold G_u = Phi_u^T W_u Phi_u, t_u = Phi_u^T W_u Y_u, yy_u = sum w y^2 (the bias column's
    diagonal entry the weight sum), over random shapes, fold counts, blockings and chunk sizes, with the feature
    and the kernel statistics, keeping the features or not; the features written to ``out`` and the kept ones are
    the rows' own (predict_kept needs no weights); counts count rows. Unit weights give the unweighted sums."""
    rng = np.random.default_rng(100 + seed)
    n, d, m = int(rng.integers(30, 400)), int(rng.integers(2, 6)), int(rng.integers(2, 30))
    v, k = int(rng.integers(1, 7)), int(rng.integers(1, 4))
    statistics, keep = ["features", "kernel"][seed % 2], bool(seed // 2 % 2)
    X = rng.normal(size=(n, d))
    Y = rng.normal(size=(n, k))
    w = rng.uniform(0.05, 5.0, n)
    PV = np.ascontiguousarray(X[rng.choice(n, m, replace=False)])
    sigma2 = 0.25 * d
    P, lam = nystrom_projection(PV, rbf(sigma2))
    # where "auto" takes the kernel statistics (tests/fixed_size/test_kernel_statistics.py)
    assert lam.max() / lam.min() < 1e5
    folds = rng.integers(0, v, n).astype(np.int32) if v > 1 else None
    chunk = int(rng.integers(1, 120))
    cuts = np.sort(rng.choice(np.arange(1, n), int(rng.integers(0, 4)), replace=False))

    def accumulate(weights):
        acc = _core.fixed_size.FoldAccumulator(PV, rbf(sigma2), P, n_folds=v, n_targets=k, chunk=chunk,
                                               keep_features=keep, statistics=statistics)
        out = np.empty((n, acc.dim))
        for sl in np.split(np.arange(n), cuts):
            b = slice(sl[0], sl[-1] + 1)
            acc.add(np.ascontiguousarray(X[b]), np.ascontiguousarray(Y[b]), None if folds is None else folds[b],
                    out=out[b], weights=None if weights is None else np.ascontiguousarray(weights[b]))
        return acc, out

    acc, out = accumulate(w)
    assert acc.kernel_statistics == (statistics == "kernel")
    F = acc.features(np.ascontiguousarray(X))
    np.testing.assert_allclose(out, F, rtol=0, atol=1e-12 * np.abs(F).max())
    G, t, yy, counts = acc.results()
    for u, (Gr, tr, yyr, cr) in enumerate(_weighted_reference(F, Y, w, folds, v)):
        scale = max(np.abs(Gr).max(), 1.0)
        np.testing.assert_allclose(G[u], Gr, rtol=0, atol=1e-9 * scale)
        np.testing.assert_allclose(t[u], tr, rtol=0, atol=1e-9 * max(np.abs(tr).max(), 1.0))
        np.testing.assert_allclose(yy[u], yyr, rtol=1e-12)
        assert G[u][-1, -1] == pytest.approx(w[(np.zeros(n, int) if folds is None else folds) == u].sum(), rel=1e-12)
        assert counts[u] == cr
    Gt, tt = acc.totals()
    np.testing.assert_allclose(Gt, F.T @ (w[:, None] * F), rtol=0, atol=1e-9 * np.abs(Gt).max())
    np.testing.assert_allclose(tt, F.T @ (w[:, None] * Y), rtol=0, atol=1e-9 * max(np.abs(tt).max(), 1.0))
    if keep:
        theta = rng.normal(size=(v, acc.dim, k))
        ref = np.einsum("ip,ipk->ik", F, theta[np.zeros(n, int) if folds is None else folds])
        np.testing.assert_allclose(acc.predict_kept(theta), ref, rtol=1e-10, atol=1e-10 * np.abs(ref).max())
        np.testing.assert_allclose(acc.kept_features(), F, rtol=0, atol=1e-12 * np.abs(F).max())
    ones, _ = accumulate(np.ones(n))
    plain, _ = accumulate(None)
    for a, b in zip(ones.results(), plain.results(), strict=True):
        np.testing.assert_array_equal(a, b)


@pytest.mark.parametrize("d", [3, 130])
@pytest.mark.parametrize("v", [1, 3])
def test_weighted_explicit_linear_features(blas_mode, d, v):
    """Explicit linear features with weights (d = 130: the weighted rows take the feature path, not the dsyrk
    straight from X's rows), on the BLAS and on Eigen."""
    rng = np.random.default_rng(d + v)
    n = 500
    X = rng.normal(size=(n, d))
    Y = rng.normal(size=(n, 2))
    w = rng.uniform(0.1, 4.0, n)
    folds = (np.arange(n) * 7 % v).astype(np.int32) if v > 1 else None
    acc = _core.fixed_size.FoldAccumulator(np.zeros((0, d)), LINEAR, np.zeros((0, 0)), n_folds=v, n_targets=2,
                                           n_features_linear=d, chunk=90)
    acc.add(X[:260], Y[:260], None if folds is None else folds[:260], weights=w[:260])
    acc.add(X[260:], Y[260:], None if folds is None else folds[260:], weights=w[260:])
    G, t, yy, counts = acc.results()
    Xe = np.hstack([X, np.ones((n, 1))])
    for u, (Gr, tr, yyr, cr) in enumerate(_weighted_reference(Xe, Y, w, folds, v)):
        np.testing.assert_allclose(G[u], Gr, rtol=0, atol=1e-9 * np.abs(Gr).max())
        np.testing.assert_allclose(t[u], tr, rtol=0, atol=1e-9 * np.abs(tr).max())
        np.testing.assert_allclose(yy[u], yyr, rtol=1e-12)
        assert counts[u] == cr


@pytest.mark.parametrize("statistics", ["features", "kernel"])
def test_weights_are_checked_before_anything_is_added(data, statistics):
    """Every weight is checked before any row is summed: a bad weight late in the block, in the second fold, past
    the first chunk of 16 rows, leaves the sums untouched."""
    X, Y, PV = data
    P, _ = nystrom_projection(PV, rbf(2.0))
    acc = _core.fixed_size.FoldAccumulator(PV, rbf(2.0), P, n_folds=2, n_targets=2, chunk=16, statistics=statistics)
    folds = (np.arange(211) % 2).astype(np.int32)
    Xc, Yc = np.ascontiguousarray(X), np.ascontiguousarray(Y)
    for row, value in ((201, 0.0), (199, -1.0), (0, np.nan), (177, np.inf)):
        bad = np.ones(211)
        bad[row] = value
        with pytest.raises(ValueError, match=f"weights must be finite and > 0; row {row} has"):
            acc.add(Xc, Yc, folds, weights=bad)
    with pytest.raises(ValueError, match="weights must have length 211"):
        acc.add(Xc, Yc, folds, weights=np.ones(210))
    with pytest.raises(TypeError):
        acc.add(Xc, Yc, folds, weights=np.ones(211, np.float32))
    assert acc.n_rows == 0 and not np.any(acc.results()[0])
