"""scipy.sparse X (CSR, CSC, matrices and arrays) for FixedSizeLSSVC and FixedSizeLSSVR: the model of X.toarray()
(the same passes on the same dense blocks of rows: equal to rounding), never a dense copy of X as a whole (guarded by
a memory budget below one dense copy of X), and the paths around the fit (tuning sample, probabilities,
partial_fit, prediction)."""

import tracemalloc

import numpy as np
import pytest
import scipy.sparse as sp

import svmopt
from svmopt import FixedSizeLSSVC, FixedSizeLSSVR
from svmopt.fixed_size.sources import SPARSE_BLOCK_SHARE, dense_rows, sparse_block_rows
from tests.common.sparse_inputs import FORMATS, with_explicit_zeros

#: the sparse fit reads the same dense rows in other blocks: the sums agree to rounding
TOL = 1e-9


def _data(n=300, d=15, density=0.3, n_classes=2, seed=0):
    rng = np.random.default_rng(seed)
    X = sp.random(n, d, density=density, random_state=seed, format="coo").toarray()
    X[4] = 0.0  # an empty row
    X[:, 2] = 0.0  # an empty column
    W = rng.normal(size=(d, n_classes))
    y = np.argmax(X @ W + 0.2 * rng.normal(size=(n, n_classes)), axis=1)
    return X, y




def _same(dense, sparse, X, Xs):
    np.testing.assert_allclose(sparse.decision_function(Xs), dense.decision_function(X), rtol=0, atol=TOL)
    np.testing.assert_array_equal(sparse.predict(Xs), dense.predict(X))
    np.testing.assert_allclose(sparse.x_mean_, dense.x_mean_, rtol=0, atol=1e-14)
    for a, b in zip(sparse.problems_, dense.problems_, strict=True):
        assert a["gamma"] == pytest.approx(b["gamma"], rel=1e-9)
        assert a["sigma2"] == pytest.approx(b["sigma2"], rel=1e-9, nan_ok=True)


@pytest.mark.parametrize("fmt", FORMATS, ids=lambda f: f.__name__)
def test_classifier_matches_dense(fmt):
    X, y = _data()
    Xs = with_explicit_zeros(X, fmt, empty_col=2)
    kw = {"n_prototypes": 30, "random_state": 0}
    dense = FixedSizeLSSVC(**kw).fit(X, y)
    sparse = FixedSizeLSSVC(**kw).fit(Xs, y)
    _same(dense, sparse, X, Xs)
    np.testing.assert_array_equal(sparse.prototype_indices_, dense.prototype_indices_)
    # either model predicts either form
    np.testing.assert_allclose(dense.decision_function(Xs), dense.decision_function(X), rtol=0, atol=1e-12)


@pytest.mark.parametrize("params", [{"kernel": "linear"}, {"multiclass": "ovo"}, {"multiclass": "moc"},
                                    {"gamma": 3.0, "sigma2": 2.0}, {"standardize": False}],
                         ids=lambda p: "-".join(f"{k}={v}" for k, v in p.items()))
def test_classifier_options(params):
    X, y = _data(n_classes=3 if "multiclass" in params else 2, seed=1)
    Xs = with_explicit_zeros(X, sp.csr_matrix, empty_col=2)
    kw = {"n_prototypes": 25, "random_state": 0, **params}
    _same(FixedSizeLSSVC(**kw).fit(X, y), FixedSizeLSSVC(**kw).fit(Xs, y), X, Xs)


def test_sample_weight_and_probability():
    X, y = _data(n=240, n_classes=3, seed=2)
    Xs = with_explicit_zeros(X, sp.csc_matrix, empty_col=2)
    sw = np.random.default_rng(0).uniform(0.2, 3.0, X.shape[0])
    sw[9] = 0.0
    kw = {"n_prototypes": 20, "random_state": 0, "probability": True}
    dense = FixedSizeLSSVC(**kw).fit(X, y, sample_weight=sw)
    sparse = FixedSizeLSSVC(**kw).fit(Xs, y, sample_weight=sw)
    _same(dense, sparse, X, Xs)
    P = sparse.predict_proba(Xs)
    np.testing.assert_allclose(P, dense.predict_proba(X), rtol=0, atol=1e-8)
    np.testing.assert_array_equal(sparse.classes_[np.argmax(P, axis=1)], sparse.predict(Xs))


def test_regressor_matches_dense():
    X, _ = _data(seed=3)
    yr = X @ np.random.default_rng(3).normal(size=X.shape[1]) + 0.05
    Xs = with_explicit_zeros(X, sp.csr_array, empty_col=2)
    kw = {"n_prototypes": 30, "random_state": 0}
    dense = FixedSizeLSSVR(**kw).fit(X, yr)
    sparse = FixedSizeLSSVR(**kw).fit(Xs, yr)
    np.testing.assert_allclose(sparse.predict(Xs), dense.predict(X), rtol=0, atol=TOL)


def test_tuning_sample_path():
    """More rows than ``tune_rows``: the sample is gathered as dense rows of the sparse X (those rows alone), the
    final fit one pass over dense blocks of all of them; the same model as on X.toarray()."""
    X, y = _data(n=900, seed=4)
    Xs = with_explicit_zeros(X, sp.csr_matrix, empty_col=2)
    kw = {"n_prototypes": 20, "random_state": 0, "tune_rows": 300}
    dense = FixedSizeLSSVC(**kw).fit(X, y)
    sparse = FixedSizeLSSVC(**kw).fit(Xs, y)
    assert sparse.problems_[0]["tune_rows"] == 300
    _same(dense, sparse, X, Xs)


def test_under_memory_budget():
    """A memory budget below one dense copy of X (n d 8 bytes): the fit and the predictions run (their blocks are
    at most 1/SPARSE_BLOCK_SHARE of it, the tuning sample and candidates within it), and give the dense fit's model;
    densifying X as a whole is refused by the same budget."""
    n, d = 4000, 120
    X, y = _data(n=n, d=d, density=0.02, seed=5)
    Xs = sp.csr_matrix(X)
    kw = {"n_prototypes": 20, "random_state": 0, "tune_rows": 400, "max_candidates": 400, "kernel": "rbf"}
    dense = FixedSizeLSSVC(**kw).fit(X, y)
    budget = 8 * n * d // 4
    svmopt.set_memory_budget(budget)
    try:
        assert sparse_block_rows(d, 65536) * d * 8 <= budget // SPARSE_BLOCK_SHARE
        tracemalloc.start()
        sparse = FixedSizeLSSVC(**kw).fit(Xs, y)
        f = sparse.decision_function(Xs)
        _, peak = tracemalloc.get_traced_memory()
        tracemalloc.stop()
        with pytest.raises(svmopt.MemoryBudgetError):  # the guard of every densification is live
            dense_rows(Xs)
    finally:
        svmopt.set_memory_budget(None)
    assert peak < 8 * n * d // 2, f"the fit traced {peak} bytes, a dense X is {8 * n * d}"
    np.testing.assert_allclose(f, dense.decision_function(X), rtol=0, atol=TOL)


def test_partial_fit_sparse_chunks():
    X, y = _data(n=200, seed=6)
    kw = {"n_prototypes": 10, "gamma": 2.0, "sigma2": 3.0, "standardize": False, "random_state": 0}
    dense, sparse = FixedSizeLSSVC(**kw), FixedSizeLSSVC(**kw)
    for a in range(0, 200, 100):
        dense.partial_fit(X[a:a + 100], y[a:a + 100], classes=[0, 1])
        sparse.partial_fit(sp.csr_matrix(X[a:a + 100]), y[a:a + 100], classes=[0, 1])
    np.testing.assert_allclose(sparse.decision_function(sp.csr_matrix(X)), dense.decision_function(X), rtol=0,
                               atol=TOL)


def test_dask_of_sparse_chunks_refused():
    da = pytest.importorskip("dask.array")
    X, y = _data()
    Xd = da.from_array(sp.csr_matrix(X), chunks=(100, X.shape[1]), asarray=False)
    with pytest.raises(TypeError, match="X is a Dask array of scipy sparse chunks"):
        FixedSizeLSSVC().fit(Xd, y)


def test_sparse_nonfinite_named():
    X, y = _data()
    Xs = sp.csr_matrix(X)
    Xs.data[0] = np.nan
    with pytest.raises(ValueError, match="X"):
        FixedSizeLSSVC(n_prototypes=10).fit(Xs, y)


def test_sparse_tag():
    assert FixedSizeLSSVC().__sklearn_tags__().input_tags.sparse
    assert FixedSizeLSSVR().__sklearn_tags__().input_tags.sparse
