"""scipy.sparse X (CSR, CSC, matrices and arrays) for RobustSVC: the fit of X.toarray() on every path -- LP (23),
the reduced model (HiGHS, interior point, cutting planes; kernel rows kept or computed block by block), every
uncertainty norm and kernel, the landmark methods, the cross-validated defaults, multiclass, sample weights,
probability=True -- without densifying X."""

import warnings

import numpy as np
import pytest
import scipy.sparse as sp
from sklearn.exceptions import ConvergenceWarning

import svmopt
from svmopt import RobustSVC
from tests.common.sparse_inputs import FORMATS, with_explicit_zeros


def _data(n=120, d=12, density=0.3, seed=0, n_classes=2):
    rng = np.random.default_rng(seed)
    X = sp.random(n, d, density=density, random_state=seed, format="coo").toarray()
    X[5] = 0.0  # an empty row
    X[:, 3] = 0.0  # an empty column
    W = rng.normal(size=(d, n_classes))
    scores = X @ W + 0.2 * rng.normal(size=(n, n_classes))
    y = np.argmax(scores, axis=1) if n_classes > 2 else np.where(scores[:, 0] > np.median(scores[:, 0]), 1, 0)
    return X, y




def _fit(kw, X, y, **fit_kw):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", ConvergenceWarning)
        warnings.simplefilter("ignore", UserWarning)
        return RobustSVC(random_state=0, **kw).fit(X, y, **fit_kw)


def _check_same(dense, sparse, X, Xs):
    np.testing.assert_allclose(sparse.decision_function(Xs), dense.decision_function(X), atol=1e-8, rtol=0)
    np.testing.assert_array_equal(sparse.predict(Xs), dense.predict(X))
    np.testing.assert_allclose(sparse.intercept_, dense.intercept_, atol=1e-8)
    np.testing.assert_array_equal(sparse.nu_, dense.nu_)
    assert sparse.model_ == dense.model_


ONE = {"nu": 1.0, "alpha": 1.0}
CASES = {
    "paper_lp": {"n_landmarks": None, **ONE},
    "paper_lp_highs": {"n_landmarks": None, "lp_solver": "highs", **ONE},
    "reduced_lp": {"n_landmarks": 30, "solver": "lp", **ONE},
    "reduced_ipm": {"n_landmarks": 30, "solver": "ipm", **ONE},
    "reduced_cutting_plane": {"n_landmarks": 30, "solver": "cutting_plane", **ONE},
    "p1": {"n_landmarks": None, "p": 1, "rho": 0.05, **ONE},
    "p2_reduced": {"n_landmarks": 30, "solver": "ipm", "p": 2, "rho": 0.05, **ONE},
    "pinf": {"n_landmarks": None, "p": "inf", "eta": 0.01, **ONE},
    "pinf_cutting_plane": {"n_landmarks": 30, "solver": "cutting_plane", "p": "inf", "rho": 0.01, **ONE},
    "defaults": {},
    "nu_grid_training_error": {"selection": "training_error", "nu": "grid", "n_landmarks": None},
    "linear_p2": {"kernel": "linear", "p": 2, "rho": 0.05, "n_landmarks": None, "nu": 1.0},
    "poly_p2": {"kernel": "poly", "degree": 2, "p": 2, "rho": 0.02, "n_landmarks": 30, "solver": "ipm", "nu": 1.0},
    "inhom_poly_pinf": {"kernel": "inhom_poly", "degree": 2, "p": "inf", "rho": 0.01, "n_landmarks": None,
                        "nu": 1.0},
    "sigmoid": {"kernel": svmopt.Kernel("sigmoid", a=0.5, b=0.0), "n_landmarks": None, "nu": 1.0},
    "landmarks_random": {"n_landmarks": 30, "landmarks": "random", "solver": "ipm", **ONE},
    "landmarks_kmeans": {"n_landmarks": 30, "landmarks": "kmeans", "solver": "ipm", **ONE},
}


@pytest.mark.parametrize("fmt", FORMATS, ids=lambda f: f.__name__)
@pytest.mark.parametrize("case", list(CASES))
def test_sparse_matches_dense(case, fmt):
    X, y = _data()
    Xs = with_explicit_zeros(X, fmt)
    assert Xs.nnz > np.count_nonzero(X)  # explicit zeros stored
    kw = CASES[case]
    dense, sparse = _fit(kw, X, y), _fit(kw, Xs, y)
    _check_same(dense, sparse, X, Xs)
    if sparse.model_ == "paper":  # the support vectors stay sparse rows (scikit-learn's SVC does the same)
        assert sp.issparse(sparse.support_vectors_)
        np.testing.assert_array_equal(sparse.support_vectors_.toarray(), dense.support_vectors_)
    else:
        np.testing.assert_allclose(sparse.landmarks_, dense.landmarks_, rtol=0, atol=0)
    np.testing.assert_array_equal(sparse.support_, dense.support_)


@pytest.mark.parametrize("kw", [{"n_landmarks": None, **ONE}, {"n_landmarks": 30, "solver": "ipm", **ONE},
                                {}], ids=["paper", "reduced", "defaults"])
def test_multiclass_and_weights(kw):
    # (seed 2's defaults end at a paper interval whose end lies on margin scores, where a rounding of 1e-13 in the
    # kernel values moves a row across it: every fit there is as exact, the counts not comparable)
    X, y = _data(n=150, n_classes=3, seed=3)
    Xs = sp.csr_matrix(X)
    _check_same(_fit(kw, X, y), _fit(kw, Xs, y), X, Xs)
    w = np.random.default_rng(0).integers(0, 4, size=y.size).astype(float)  # zeros: rows left out
    kwp = {**kw, "p": 2, "rho": 0.05} if kw else {"p": 2, "rho": 0.05}
    _check_same(_fit(kwp, X, y, sample_weight=w), _fit(kwp, Xs, y, sample_weight=w), X, Xs)


def test_predict_dense_on_a_sparse_fit_and_back():
    X, y = _data(seed=3)
    Xs = sp.csc_matrix(X)
    for kw in ({"n_landmarks": None, **ONE}, {"n_landmarks": 30, "solver": "ipm", **ONE}):
        sparse, dense = _fit(kw, Xs, y), _fit(kw, X, y)
        np.testing.assert_allclose(sparse.decision_function(X), dense.decision_function(X), atol=1e-8, rtol=0)
        np.testing.assert_allclose(dense.decision_function(Xs), dense.decision_function(X), atol=1e-10, rtol=0)


def test_probability():
    X, y = _data(n=90, n_classes=3, seed=4)
    Xs = sp.csr_array(X)
    kw = {"probability": True, "n_landmarks": None, **ONE}
    dense, sparse = _fit(kw, X, y), _fit(kw, Xs, y)
    np.testing.assert_allclose(sparse.predict_proba(Xs), dense.predict_proba(X), atol=1e-8)
    np.testing.assert_array_equal(sparse.predict(Xs), np.argmax(sparse.predict_proba(Xs), axis=1))


@pytest.mark.parametrize("solver", ["ipm", "cutting_plane"])
@pytest.mark.parametrize("p", [None, 2])
def test_streamed_kernel_rows_match_dense(solver, p, monkeypatch):
    """n x L beyond half the budget: the kernel rows of a sparse X computed block by block at every pass (some
    cached by the interior point), as the dense path computes its rows; the cross-validation streams alike."""
    X, y = _data(seed=5)
    Xs = sp.csr_matrix(X)
    from svmopt.robust import sparse as robust_sparse

    monkeypatch.setattr(robust_sparse.SparseKernelRows, "__init__", _small_blocks(robust_sparse.SparseKernelRows))
    kw = {"n_landmarks": 30, "solver": solver, "alpha": 1.0, "nu": [0.1, 1.0], "landmarks": "random",
          **({} if p is None else {"p": p, "rho": 0.05})}
    svmopt.set_memory_budget(40_000)  # n x L x 8 = 28,800 bytes > half of it
    try:
        dense, sparse = _fit(kw, X, y), _fit(kw, Xs, y)
    finally:
        svmopt.set_memory_budget(None)
    _check_same(dense, sparse, X, Xs)


def test_streamed_blocks_are_used(monkeypatch):
    """The block source is what the passes read beyond the budget (not a cached n x L array)."""
    from svmopt.robust import sparse as robust_sparse

    calls = []
    original = robust_sparse.SparseKernelRows.rows

    def rows(self, start, stop):
        calls.append((start, stop))
        return original(self, start, stop)

    monkeypatch.setattr(robust_sparse.SparseKernelRows, "rows", rows)
    monkeypatch.setattr(robust_sparse.SparseKernelRows, "__init__", _small_blocks(robust_sparse.SparseKernelRows))
    X, y = _data(seed=6)
    svmopt.set_memory_budget(40_000)
    try:
        _fit({"n_landmarks": 30, "solver": "cutting_plane", **ONE, "landmarks": "random"}, sp.csr_matrix(X), y)
    finally:
        svmopt.set_memory_budget(None)
    assert len(calls) > 4 and max(b - a for a, b in calls) <= 32


def _small_blocks(cls):
    init = cls.__init__

    def __init__(self, *args, **kwargs):
        init(self, *args, **kwargs)
        self.block = 32
    return __init__


def _guard(monkeypatch, n, d):
    def guard(method):
        def call(self, *args, **kwargs):  # a block of rows, the landmarks, X X^T: allowed; X's rows as a whole not
            if self.ndim == 2 and self.shape[1] == d and self.shape[0] > n // 2:
                raise AssertionError(f"X was densified ({self.shape})")
            return method(self, *args, **kwargs)
        return call

    for cls in (sp.csr_matrix, sp.csc_matrix, sp.coo_matrix, sp.csr_array, sp.csc_array, sp.coo_array):
        monkeypatch.setattr(cls, "toarray", guard(cls.toarray))
        monkeypatch.setattr(cls, "todense", guard(cls.todense))


@pytest.mark.parametrize("kw", [
    {"n_landmarks": None, **ONE, "p": 2, "rho": 0.05}, {"probability": True},
    {"n_landmarks": 30, "solver": "lp", "landmarks": "kmeans", **ONE},
    {"n_landmarks": 30, "solver": "ipm", "landmarks": "random", "nu": [0.1, 1.0], "p": "inf", "rho": 0.01},
    {"n_landmarks": 30, "solver": "cutting_plane", "landmarks": "random", **ONE}],
    ids=["paper", "defaults_probability", "reduced_lp", "reduced_ipm_cv", "reduced_cutting_plane"])
def test_never_densified(kw, monkeypatch):
    X, y = _data(seed=1)
    Xs = sp.csr_matrix(X)
    _guard(monkeypatch, *X.shape)
    clf = _fit(kw, Xs, y)
    clf.predict(Xs)
    if kw.get("probability"):
        clf.predict_proba(Xs)


def test_tight_budget_wide_sparse_x():
    """A wide sparse X whose dense form exceeds the memory budget: the fit runs within it (the entropy search's
    candidates cut to half the budget), and equals the fit on the dense X with the same landmarks."""
    n, d = 200, 2000
    X = sp.random(n, d, density=0.01, random_state=7, format="csr")
    rng = np.random.default_rng(7)
    y = np.where(X @ rng.normal(size=d) > 0, 1, 0)
    budget = n * d * 8 // 2  # 1.6 MB: X dense (3.2 MB) does not fit, nor the candidates of every row
    svmopt.set_memory_budget(budget)
    try:
        sparse = _fit({"n_landmarks": 20, "solver": "ipm", **ONE}, X, y)
        paper = _fit({"n_landmarks": None, **ONE}, X, y)
    finally:
        svmopt.set_memory_budget(None)
    dense = _fit({"n_landmarks": 20, "solver": "ipm", "landmarks": sparse.landmarks_, **ONE}, X.toarray(), y)
    np.testing.assert_allclose(sparse.decision_function(X), dense.decision_function(X.toarray()), atol=1e-8)
    dense_paper = _fit({"n_landmarks": None, **ONE}, X.toarray(), y)
    np.testing.assert_allclose(paper.decision_function(X), dense_paper.decision_function(X.toarray()), atol=1e-8)


@pytest.mark.parametrize("scale", [1e-200, 1e200])
def test_extreme_scale(scale):
    """Beyond the safe magnitudes the RBF kernel is evaluated on X over a power of two (exact), sparse as dense."""
    X, y = _data(seed=3)
    X = X * scale
    Xs = sp.csr_matrix(X)
    for kw in ({"n_landmarks": None, "nu": 1.0}, {"n_landmarks": 30, "solver": "ipm", "nu": 1.0, "p": 2, "rho": 0.05}):
        dense, sparse = _fit(kw, X, y), _fit(kw, Xs, y)
        assert sparse.input_unit_ == dense.input_unit_ != 1.0
        _check_same(dense, sparse, X, Xs)


def test_sparse_tags_and_refusals():
    assert RobustSVC().__sklearn_tags__().input_tags.sparse
    X, y = _data()
    Xs = sp.csr_matrix(X)
    Xs.data[0] = np.nan
    with pytest.raises(ValueError, match="X"):
        RobustSVC().fit(Xs, y)


def test_dask_of_sparse_chunks_refused():
    da = pytest.importorskip("dask.array")
    X, y = _data()
    Xd = da.from_array(sp.csr_matrix(X), chunks=(60, 12), asarray=False)
    with pytest.raises(TypeError, match="X is a Dask array of scipy sparse chunks"):
        RobustSVC(n_landmarks=10).fit(Xd, y)
