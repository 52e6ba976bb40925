"""scipy.sparse X (CSR, CSC, matrices and arrays) for EllipsoidPSOClassifier: the model of X.toarray() with the same
random_state, from moments over the nonzeros, without densifying X; the memory budget for a too-wide X."""

import numpy as np
import pytest
import scipy.sparse as sp

from svmopt import EllipsoidPSOClassifier, MemoryBudgetError, set_memory_budget
from svmopt.ellipsoid.geometry import weighted_mean_cov
from svmopt.ellipsoid.projection import weighted_ledoit_wolf_shrinkage, whiten
from svmopt.ellipsoid.sparse_rows import sparse_ledoit_wolf, sparse_mean_cov, sparse_whiten
from tests.common.sparse_inputs import FORMATS, with_explicit_zeros

#: Decision values of the same model: the moments agree to rounding (~1e-16), the seeded swarms then see the same
#: numbers up to that rounding and take the same steps.
TOL = 1e-10


def _data(n=120, d=8, n_classes=2, density=0.4, seed=0):
    rng = np.random.default_rng(seed)
    X = sp.random(n, d, density=density, random_state=seed, format="coo").toarray()
    X[5] = 0.0  # an empty row
    X[:, 3] = 0.0  # an empty column
    W = rng.normal(size=(d, n_classes))
    y = np.argmax(X @ W + 0.3 * rng.normal(size=(n, n_classes)), axis=1)
    return X, y




def _same_model(dense, sparse, X, Xs):
    np.testing.assert_allclose(sparse.coef_, dense.coef_, rtol=0, atol=TOL)
    np.testing.assert_allclose(sparse.intercept_, dense.intercept_, rtol=0, atol=TOL)
    np.testing.assert_allclose(sparse.decision_function(Xs), dense.decision_function(X), rtol=0, atol=TOL)
    np.testing.assert_array_equal(sparse.predict(Xs), dense.predict(X))
    np.testing.assert_array_equal(sparse.ratios_, dense.ratios_)
    assert list(sparse.shrinkages_) == list(dense.shrinkages_)


@pytest.mark.parametrize("fmt", FORMATS, ids=lambda f: f.__name__)
def test_sparse_matches_dense(fmt):
    X, y = _data()
    Xs = with_explicit_zeros(X, fmt)
    dense = EllipsoidPSOClassifier(random_state=0).fit(X, y)
    sparse = EllipsoidPSOClassifier(random_state=0).fit(Xs, y)
    _same_model(dense, sparse, X, Xs)
    # prediction of either form by either model
    np.testing.assert_allclose(dense.decision_function(Xs), dense.decision_function(X), rtol=0, atol=1e-12)


@pytest.mark.parametrize("params", [{"projection": "dataset"}, {"solver": "exact"},
                                    {"projection": "none", "ratio": 1.0, "shrinkage": 0.0},
                                    {"shrinkage": "ledoit_wolf", "ratio": 2.0},
                                    {"p2_mode": "literal", "projection": "dataset"}],
                         ids=lambda p: "-".join(f"{k}={v}" for k, v in p.items()))
def test_sparse_matches_dense_options(params):
    """``p2_mode="literal"`` with the data set's whitening on three classes: with a pair's own whitening (or with the
    whole data set as the pair) the covariance it deflates is the identity, so its p_2 is any direction orthogonal to
    p_1 and both paths pick one by rounding."""
    X, y = _data(n=150, n_classes=3, seed=1) if params.get("p2_mode") == "literal" else _data(seed=1)
    Xs = with_explicit_zeros(X, sp.csr_matrix)
    dense = EllipsoidPSOClassifier(random_state=3, **params).fit(X, y)
    sparse = EllipsoidPSOClassifier(random_state=3, **params).fit(Xs, y)
    _same_model(dense, sparse, X, Xs)


@pytest.mark.parametrize("fmt", [sp.csr_matrix, sp.csc_array], ids=lambda f: f.__name__)
@pytest.mark.parametrize("multiclass", ["ovo", "ovr"])
def test_multiclass_sample_weight(fmt, multiclass):
    X, y = _data(n=150, n_classes=3, seed=2)
    Xs = with_explicit_zeros(X, fmt)
    sw = np.random.default_rng(0).uniform(0.2, 3.0, X.shape[0])
    sw[7] = 0.0  # a row left out
    dense = EllipsoidPSOClassifier(random_state=0, multiclass=multiclass).fit(X, y, sample_weight=sw)
    sparse = EllipsoidPSOClassifier(random_state=0, multiclass=multiclass).fit(Xs, y, sample_weight=sw)
    assert len(sparse.pairs_) == 3
    _same_model(dense, sparse, X, Xs)


def test_probability():
    X, y = _data(n=100, n_classes=3, seed=4)
    Xs = with_explicit_zeros(X, sp.csc_matrix)
    dense = EllipsoidPSOClassifier(random_state=0, probability=True).fit(X, y)
    sparse = EllipsoidPSOClassifier(random_state=0, probability=True).fit(Xs, y)
    np.testing.assert_allclose(sparse.predict_proba(Xs), dense.predict_proba(X), rtol=0, atol=1e-9)
    np.testing.assert_array_equal(np.argmax(sparse.predict_proba(Xs), axis=1), np.searchsorted(
        sparse.classes_, sparse.predict(Xs)))


@pytest.mark.parametrize(("n", "d"), [(150, 10), (30, 60)])
@pytest.mark.parametrize("weighted", [False, True])
def test_moments_match_dense(n, d, weighted):
    """The whitening's statistics of Section 4.3.5 over the nonzeros: mean, covariance, Ledoit-Wolf amount and the
    whitening itself (``W W^T``, independent of the basis; n <= d: from the Gram matrix instead of the SVD)."""
    X, _ = _data(n=n, d=d, density=0.3)
    Xs = with_explicit_zeros(X, sp.csr_matrix)
    w = np.random.default_rng(1).uniform(0.1, 3.0, n) if weighted else None
    m, C = weighted_mean_cov(X, w)
    ms, Cs = sparse_mean_cov(Xs, w)
    np.testing.assert_allclose(ms, m, rtol=0, atol=1e-14)
    np.testing.assert_allclose(Cs, C, rtol=0, atol=1e-14)
    assert sparse_ledoit_wolf(Xs, w) == pytest.approx(weighted_ledoit_wolf_shrinkage(X - m, w), rel=1e-12)
    (m1, W1), (m2, W2) = whiten(X, 0.0, w), sparse_whiten(Xs, 0.0, w)
    assert W1.shape == W2.shape
    np.testing.assert_allclose(m2, m1, rtol=0, atol=1e-14)
    np.testing.assert_allclose(W2 @ W2.T, W1 @ W1.T, rtol=0, atol=1e-11 * np.abs(W1 @ W1.T).max())


def test_fewer_rows_than_features():
    """n <= d: the whitening from the n x n Gram matrix (the dense path: the rows' thin SVD). The whitened class
    covariances there are rank-deficient with repeated eigenvalues, so the second projection direction (the top
    eigenvector of their difference, Section 4.3.5) is chosen by rounding in both paths and the swarms may run in
    another plane: the moments are compared tightly above, the models by their predictions here."""
    X, y = _data(n=40, d=60, density=0.3, seed=5)
    Xs = with_explicit_zeros(X, sp.csr_matrix)
    for params in ({}, {"solver": "exact"}):
        dense = EllipsoidPSOClassifier(random_state=0, **params).fit(X, y)
        sparse = EllipsoidPSOClassifier(random_state=0, **params).fit(Xs, y)
        assert np.mean(sparse.predict(Xs) == dense.predict(X)) >= 0.9
        assert sparse.score(Xs, y) >= dense.score(X, y) - 0.1


def test_never_densified(monkeypatch):
    X, y = _data(n=150, n_classes=3, seed=4)
    assert np.bincount(y).min() > X.shape[1]  # an ellipsoid per class in the input space (projection="none")
    Xs = sp.csr_matrix(X)

    def guard(method):
        def call(self, *args, **kwargs):  # d x d products and single rows may be dense; X's rows as a whole not
            if self.shape[0] >= X.shape[0] // 2:
                raise AssertionError("X was densified")
            return method(self, *args, **kwargs)
        return call

    for cls in (sp.csr_matrix, sp.csc_matrix, sp.coo_matrix, sp.csr_array, sp.csc_array, sp.coo_array):
        monkeypatch.setattr(cls, "toarray", guard(cls.toarray))
        monkeypatch.setattr(cls, "todense", guard(cls.todense))
    with pytest.raises(AssertionError, match="densified"):
        Xs.toarray()  # the guard is active
    clf = EllipsoidPSOClassifier(random_state=0, probability=True).fit(Xs, y)
    clf.predict(Xs)
    clf.predict_proba(Xs)
    EllipsoidPSOClassifier(random_state=0, projection="none", ratio=1.0, shrinkage=0.0).fit(Xs, y).predict(Xs)
    EllipsoidPSOClassifier(random_state=0, projection="dataset").fit(Xs, y).decision_function(Xs)


def test_sparse_tag():
    assert EllipsoidPSOClassifier().__sklearn_tags__().input_tags.sparse


def test_too_wide_sparse_x_names_remedy():
    X = sp.random(50, 20_000, density=1e-3, random_state=0, format="csr")
    y = np.arange(50) % 2
    set_memory_budget("1G")
    try:
        with pytest.raises(MemoryBudgetError, match=r"n_features=20000.*TruncatedSVD"):
            EllipsoidPSOClassifier().fit(X, y)
    finally:
        set_memory_budget(None)


def test_too_wide_dense_x_checked():
    """The dense path's d x d allocations are checked too, also with fewer rows than features (n <= d)."""
    X = np.random.default_rng(0).normal(size=(20, 3000))
    y = np.arange(20) % 2
    set_memory_budget("32M")
    try:
        with pytest.raises(MemoryBudgetError, match=r"n_features=3000.*reduce the features"):
            EllipsoidPSOClassifier().fit(X, y)
    finally:
        set_memory_budget(None)


def test_dask_of_sparse_chunks_refused():
    da = pytest.importorskip("dask.array")
    X, y = _data()
    Xd = da.from_array(sp.csr_matrix(X), chunks=(60, 8), asarray=False)
    with pytest.raises(TypeError, match="X is a Dask array of scipy sparse chunks"):
        EllipsoidPSOClassifier().fit(Xd, y)


def test_sparse_nonfinite_named():
    X, y = _data()
    Xs = sp.csr_matrix(X)
    Xs.data[0] = np.inf
    with pytest.raises(ValueError, match="X"):
        EllipsoidPSOClassifier().fit(Xs, y)


def test_cv_splits_over_sparse_rows():
    from sklearn.model_selection import KFold

    X, y = _data(seed=7)
    Xs = with_explicit_zeros(X, sp.csc_matrix)
    cv = KFold(4, shuffle=True, random_state=0)
    dense = EllipsoidPSOClassifier(random_state=0, cv=cv).fit(X, y)
    sparse = EllipsoidPSOClassifier(random_state=0, cv=cv).fit(Xs, y)
    _same_model(dense, sparse, X, Xs)
    np.testing.assert_array_equal(sparse.selection_["errors"], dense.selection_["errors"])
