"""Nyström features (5) and the blockwise Phi^T Phi / Phi^T Y accumulation (spec 1.4, 1.8; tests T4, T8)."""

import numpy as np
import pytest

from svmopt import _core
from svmopt.tuning import nystrom_projection


def rbf(sigma2):
    return _core.KernelParams(_core.KernelKind.rbf, alpha=np.sqrt(sigma2 / 2))


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
    """T4: phi(PV) phi(PV)^T = Omega_mm; phi(x)^T phi(z) = k(x)^T Omega^{-1} k(z)."""
    X, _, PV = data
    P, _ = nystrom_projection(PV, rbf(3.0))
    F = _core.nystrom_features(np.ascontiguousarray(X), PV, rbf(3.0), P)
    Fr = features_ref(X, PV, 3.0)
    np.testing.assert_allclose(np.abs(F), np.abs(Fr), atol=1e-10)  # eigenvector signs may differ
    Fpv = _core.nystrom_features(PV, PV, rbf(3.0), P)
    np.testing.assert_allclose(Fpv @ Fpv.T, k_rbf(PV, PV, 3.0), atol=1e-10)
    Kx = k_rbf(X[:20], PV, 3.0)
    np.testing.assert_allclose(F[:20] @ F[:20].T, Kx @ np.linalg.solve(k_rbf(PV, PV, 3.0), Kx.T), atol=1e-8)


def test_truncation_with_duplicated_prototypes(data):
    X, _, PV = data
    PVd = np.ascontiguousarray(np.vstack([PV, PV[:5]]))
    P, _ = nystrom_projection(PVd, rbf(3.0))
    assert P.shape[1] < PVd.shape[0]
    F = _core.nystrom_features(np.ascontiguousarray(X), PVd, rbf(3.0), P)
    assert np.all(np.isfinite(F))


@pytest.mark.parametrize("chunk", [1, 7, 64, 0])
@pytest.mark.parametrize("split", [[211], [1, 3, 17, 190], [100, 111]])
def test_blockwise_accumulation_equals_in_memory(data, chunk, split):
    """T8: any row blocking (streamed blocks of unequal lengths, internal chunks of 1..n) gives Phi_e^T Phi_e."""
    X, Y, PV = data
    P, _ = nystrom_projection(PV, rbf(2.0))
    folds = np.random.default_rng(1).integers(0, 5, X.shape[0]).astype(np.int32)
    acc = _core.FoldAccumulator(PV, rbf(2.0), P, n_folds=5, n_targets=2, chunk=chunk, n_threads=1)
    r0 = 0
    feats = np.full((211, P.shape[1] + 1), np.nan)
    for i, length in enumerate(split):
        Xb, Yb, fb = np.ascontiguousarray(X[r0:r0 + length]), np.ascontiguousarray(Y[r0:r0 + length]), \
            folds[r0:r0 + length]
        if i % 2:  # the features in stream order: into the caller's buffer, or returned
            assert acc.add(Xb, Yb, fb, out=feats[r0:r0 + length]) is not None
        else:
            feats[r0:r0 + length] = acc.add(Xb, Yb, fb, return_features=True)
        r0 += length
    G, t, yy, counts = acc.results()
    Fe = np.hstack([_core.nystrom_features(np.ascontiguousarray(X), PV, rbf(2.0), P), np.ones((211, 1))])
    np.testing.assert_allclose(feats, Fe, rtol=0, atol=1e-12)
    for u in range(5):
        r = folds == u
        np.testing.assert_allclose(G[u], Fe[r].T @ Fe[r], rtol=0, atol=1e-10)
        np.testing.assert_allclose(t[u], Fe[r].T @ Y[r], rtol=0, atol=1e-10)
        np.testing.assert_allclose(yy[u], (Y[r] ** 2).sum(0), rtol=1e-12)
        assert counts[u] == r.sum()
    np.testing.assert_array_equal(G, np.transpose(G, (0, 2, 1)))


def test_explicit_linear_features_and_strided_input():
    """Linear mode (spec A33): the features are the inputs plus the constant; F-ordered/strided views work."""
    rng = np.random.default_rng(2)
    X = np.asfortranarray(rng.normal(size=(300, 130)))
    Y = np.ascontiguousarray(rng.normal(size=(300, 1)))
    acc = _core.FoldAccumulator(np.zeros((0, 130)), _core.KernelParams(_core.KernelKind.linear), np.zeros((0, 0)),
                                n_features_linear=130, chunk=50)
    acc.add(X, Y)
    G, t, _, _ = acc.results()
    Xe = np.hstack([X, np.ones((300, 1))])
    np.testing.assert_allclose(G[0], Xe.T @ Xe, atol=1e-10)  # several 64-column panels
    np.testing.assert_allclose(t[0], Xe.T @ Y, atol=1e-10)
    np.testing.assert_allclose(acc.features(X[::2]), Xe[::2], atol=0)
    # with folds: the strided rows are gathered per fold; the returned features stay in stream order
    folds = (np.arange(300) * 7 % 3).astype(np.int32)
    acc3 = _core.FoldAccumulator(np.zeros((0, 130)), _core.KernelParams(_core.KernelKind.linear), np.zeros((0, 0)),
                                 n_folds=3, n_features_linear=130, chunk=64)
    np.testing.assert_array_equal(acc3.add(X, Y, folds, return_features=True), Xe)
    G3, t3, _, _ = acc3.results()
    for u in range(3):
        np.testing.assert_allclose(G3[u], Xe[folds == u].T @ Xe[folds == u], atol=1e-10)
        np.testing.assert_allclose(t3[u], Xe[folds == u].T @ Y[folds == u], atol=1e-10)


def test_thread_count_does_not_change_the_result(data):
    X, Y, PV = data
    P, _ = nystrom_projection(PV, rbf(2.0))
    out = []
    for nt in (1, 2):
        acc = _core.FoldAccumulator(PV, rbf(2.0), P, n_folds=1, n_targets=2, n_threads=nt, chunk=50)
        acc.add(np.ascontiguousarray(X), np.ascontiguousarray(Y))
        out.append(acc.results()[0])
    np.testing.assert_array_equal(out[0], out[1])


def test_accumulator_rejects_bad_input(data):
    X, Y, PV = data
    P, _ = nystrom_projection(PV, rbf(2.0))
    acc = _core.FoldAccumulator(PV, rbf(2.0), P, n_folds=3)
    with pytest.raises(ValueError):
        acc.add(np.ascontiguousarray(X), np.ascontiguousarray(Y[:, :1]), np.full(211, 3, np.int32))
    with pytest.raises(ValueError):
        acc.add(np.ascontiguousarray(X[:, :3]), np.ascontiguousarray(Y[:, :1]))


# --------------------------------------------------------------------- BLAS products (p >= blas kMinDim = 128)
@pytest.fixture(params=[True, False], ids=["blas", "eigen"])
def blas_mode(request):
    """Run a test with the fixed-size products on SciPy's BLAS and on Eigen (svmopt._core.use_blas)."""
    prev = _core.blas_available()
    on = _core.use_blas(request.param)
    assert on == (request.param and on)  # True only where the BLAS could be installed
    yield request.param
    _core.use_blas(prev)


def test_blas_is_installed_at_import():
    """SciPy's dsyrk / dgemm capsules are available in every supported environment (SciPy is a dependency)."""
    assert _core.use_blas(True) and _core.blas_available()
    assert not _core.use_blas(False) and not _core.blas_available()
    assert _core.use_blas(True)
    with pytest.raises(TypeError, match="enabled"):
        _core.use_blas("yes")
    from scipy.linalg import cython_blas

    capi = cython_blas.__pyx_capi__
    with pytest.raises(ValueError, match="not the LP64 Fortran signature"):  # swapped: refused, BLAS kept
        _core._set_blas(capi["dgemm"], capi["dsyrk"])
    with pytest.raises(TypeError, match="PyCapsule"):
        _core._set_blas(1, 2)
    assert _core.blas_available()


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
    acc = _core.FoldAccumulator(PV, rbf(8.0), P, n_folds=v, n_targets=2, chunk=chunk, n_threads=1)
    F = acc.add(np.ascontiguousarray(X[:250]), np.ascontiguousarray(Y[:250]), folds[:250], return_features=True)
    acc.add(np.ascontiguousarray(X[250:]), np.ascontiguousarray(Y[250:]), folds[250:])
    G, t, _, counts = acc.results()
    Kp = k_rbf(X, PV, 8.0) @ P
    Fe = np.hstack([Kp, np.ones((400, 1))])
    scale = np.abs(Fe).max() ** 2 * 400
    np.testing.assert_allclose(F, Fe[:250], rtol=0, atol=1e-10 * np.abs(Fe).max())
    Fp = _core.nystrom_features(np.ascontiguousarray(X), PV, rbf(8.0), P, n_threads=1, chunk=chunk)  # prediction
    np.testing.assert_allclose(Fp, Kp, rtol=0, atol=1e-10 * np.abs(Fe).max())
    for u in range(v):
        r = folds == u
        np.testing.assert_allclose(G[u], Fe[r].T @ Fe[r], rtol=0, atol=1e-12 * scale)
        np.testing.assert_allclose(t[u], Fe[r].T @ Y[r], rtol=0, atol=1e-12 * scale)
        assert counts[u] == r.sum()


@pytest.mark.parametrize("order", ["C", "F"])
def test_wide_linear_features_on_blas_and_eigen(blas_mode, order):
    """Explicit linear features with d = 200 (C order: the Gram straight from X's rows through dsyrk)."""
    rng = np.random.default_rng(6)
    X = np.asarray(rng.normal(size=(333, 200)), order=order)
    Y = np.ascontiguousarray(rng.normal(size=(333, 3)))
    acc = _core.FoldAccumulator(np.zeros((0, 200)), _core.KernelParams(_core.KernelKind.linear), np.zeros((0, 0)),
                                n_targets=3, n_features_linear=200, chunk=100)
    acc.add(X[:200], Y[:200])
    acc.add(X[200:], Y[200:])
    G, t, yy, counts = acc.results()
    Xe = np.hstack([X, np.ones((333, 1))])
    np.testing.assert_allclose(G[0], Xe.T @ Xe, rtol=0, atol=1e-9)
    np.testing.assert_allclose(t[0], Xe.T @ Y, rtol=0, atol=1e-9)
    np.testing.assert_allclose(yy[0], (Y**2).sum(0), rtol=1e-12)
    assert counts[0] == 333
