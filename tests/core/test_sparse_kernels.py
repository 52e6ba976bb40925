"""Kernel rows of scipy.sparse X (svmopt._shared.sparse behind svmopt.Kernel): equal to the core's on X.toarray()
for every kernel, CSR and CSC, empty rows and columns included, without a dense copy of X."""

from __future__ import annotations

import tracemalloc

import numpy as np
import pytest
import scipy.sparse as sp
from hypothesis import given, settings
from hypothesis import strategies as st

from svmopt import Kernel
from svmopt._shared import sparse

KERNELS = [Kernel("linear"), Kernel("poly", degree=3), Kernel("inhom_poly", degree=2, c=1.5),
           Kernel("rbf", alpha=1.3), Kernel("sigmoid", a=0.2, b=-0.1)]


def _sparse(n, d, density, seed, fmt="csr"):
    rng = np.random.default_rng(seed)
    X = sp.random(n, d, density=density, random_state=rng, format=fmt, data_rvs=rng.standard_normal)
    return X


@pytest.mark.parametrize("kernel", KERNELS, ids=lambda k: k.name)
@pytest.mark.parametrize("fmt", ["csr", "csc", "coo"])
def test_cross_matvec_diag_gram_equal_the_dense_core(kernel, fmt):
    X = _sparse(300, 40, 0.1, 0, fmt)
    Xd = X.toarray()
    Xd[5] = 0.0  # an empty row
    X = sp.csr_matrix(Xd).asformat(fmt)
    Z = np.random.default_rng(1).standard_normal((25, 40))
    V = np.random.default_rng(2).standard_normal((25, 3))
    np.testing.assert_allclose(kernel.cross(X, Z), kernel.cross(Xd, Z), rtol=1e-12, atol=1e-12)
    np.testing.assert_allclose(kernel.matvec(X, Z, V), kernel.matvec(Xd, Z, V), rtol=1e-11, atol=1e-11)
    np.testing.assert_allclose(kernel.matvec(X, Z, V[:, 0]), kernel.matvec(Xd, Z, V[:, 0]), rtol=1e-11,
                               atol=1e-11)
    np.testing.assert_allclose(kernel.diag(X), kernel.diag(Xd), rtol=1e-12, atol=1e-12)
    np.testing.assert_allclose(kernel.gram(X), kernel.gram(Xd), rtol=1e-12, atol=1e-12)


@settings(max_examples=40, deadline=None, database=None)
@given(n=st.integers(1, 60), d=st.integers(1, 30), density=st.floats(0.0, 1.0), seed=st.integers(0, 2**16),
       kernel=st.sampled_from(KERNELS))
def test_any_shape_and_density(n, d, density, seed, kernel):
    X = _sparse(n, d, density, seed)
    Z = np.random.default_rng(seed + 1).standard_normal((7, d))
    np.testing.assert_allclose(kernel.cross(X, Z), kernel.cross(X.toarray(), Z), rtol=1e-12, atol=1e-12)


def test_bad_sparse_input_is_named():
    X = sp.csr_matrix(np.array([[0.0, np.inf], [1.0, 0.0]]))
    with pytest.raises(ValueError, match="X contains NaN or infinity"):
        Kernel("rbf", alpha=1.0).cross(X, np.zeros((1, 2)))
    with pytest.raises(ValueError, match="Complex data not supported: X"):
        Kernel("linear").cross(sp.csr_matrix(np.array([[1j, 0.0]])), np.zeros((1, 2)))
    with pytest.raises(ValueError, match="Z has 3 features, but X has 2"):
        Kernel("linear").cross(sp.csr_matrix(np.eye(2)), np.zeros((1, 3)))
    with pytest.raises(TypeError, match="Z must be dense"):
        Kernel("linear").cross(sp.csr_matrix(np.eye(2)), sp.csr_matrix(np.eye(2)))
    with pytest.raises(ValueError, match="too large for kernel evaluation"):
        Kernel("rbf", alpha=1.0).cross(sp.csr_matrix(np.array([[1e200, 0.0]])), np.zeros((1, 2)))


def test_matvec_never_densifies_x():
    """A 200,000 x 20,000 X of density 1e-4 (32 GB dense): K(X, Z) @ v in blocks, its peak far below one dense row
    block of X."""
    X = _sparse(200_000, 20_000, 1e-4, 3)
    Z = np.random.default_rng(4).standard_normal((50, 20_000)) * 0.1
    v = np.ones(50)
    tracemalloc.start()
    try:
        out = Kernel("rbf", alpha=2.0).matvec(X, Z, v)
        peak = tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()
    assert out.shape == (200_000,)
    # X's nonzeros are 400,000 (4.8 MB as CSR); the result is 1.6 MB; a block of kernel rows 0.4 MB
    assert peak < 40 * 2**20, f"peak {peak / 2**20:.1f} MiB"


def test_column_moments_match_the_dense_ones():
    X = _sparse(500, 30, 0.2, 5)
    w = np.random.default_rng(6).random(500)
    mean, var = sparse.column_moments(sparse.as_csr(X), w)
    Xd = X.toarray()
    m = w @ Xd / w.sum()
    np.testing.assert_allclose(mean, m, rtol=1e-12, atol=1e-14)
    np.testing.assert_allclose(var, w @ (Xd - m) ** 2 / w.sum(), rtol=1e-10, atol=1e-14)
