"""scipy.sparse X (CSR, CSC, matrices and arrays) for L1SVC, FeatureBudgetSVC and RampLossSVC: the same fit as on dense
X, by every solver and method, without densifying X (guarded by patching scipy's densifying methods and by a memory
budget below one dense copy of X)."""

import tracemalloc
import warnings

import numpy as np
import pytest
import scipy.sparse as sp
from sklearn.exceptions import ConvergenceWarning

import svmopt
from svmopt import L1SVC, FeatureBudgetSVC, RampLossSVC
from svmopt._shared.config import check_dense_allocation
from svmopt.ramp.bounds import algorithm1
from svmopt.ramp.model import class_diameters, ramp_loss_objective
from tests.common.sparse_inputs import FORMATS, with_explicit_zeros


def _data(n=120, d=12, density=0.3, seed=0):
    rng = np.random.default_rng(seed)
    X = sp.random(n, d, density=density, random_state=seed, format="coo").toarray()
    X[5] = 0.0  # an empty row
    X[:, 3] = 0.0  # an empty column
    w = rng.normal(size=d)
    y = np.where(X @ w + 0.2 * rng.normal(size=n) > 0, 1, 0)
    return X, y




CASES = [(L1SVC, {"solver": "lp"}), (L1SVC, {"solver": "cutting_plane"}),
         (FeatureBudgetSVC, {"solver": "lp", "budget": 4}),
         (FeatureBudgetSVC, {"solver": "cutting_plane", "budget": 4})]


@pytest.mark.parametrize("fmt", FORMATS, ids=lambda f: f.__name__)
@pytest.mark.parametrize(("est", "kw"), CASES, ids=lambda c: str(c))
def test_sparse_matches_dense(est, kw, fmt):
    X, y = _data()
    Xs = with_explicit_zeros(X, fmt)
    assert Xs.nnz > np.count_nonzero(X)  # explicit zeros stored
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", ConvergenceWarning)
        dense = est(C=1.0, **kw).fit(X, y)
        sparse = est(C=1.0, **kw).fit(Xs, y)
    assert sparse.objective_ == pytest.approx(dense.objective_, rel=1e-6, abs=1e-8)
    np.testing.assert_allclose(sparse.coef_, dense.coef_, atol=1e-5)
    np.testing.assert_array_equal(sparse.predict(Xs), dense.predict(X))
    np.testing.assert_allclose(sparse.decision_function(Xs), dense.decision_function(X), atol=1e-8)
    assert sparse.status_ == dense.status_


@pytest.mark.parametrize(("est", "kw"), CASES, ids=lambda c: str(c))
def test_never_densified(est, kw, monkeypatch):
    X, y = _data(seed=1)
    Xs = sp.csr_matrix(X)

    def guard(method):
        def call(self, *args, **kwargs):  # a small product (the G x d cut sums) may be dense; X as a whole not
            if self.shape[0] >= X.shape[0]:
                raise AssertionError("X was densified")
            return method(self, *args, **kwargs)
        return call

    for cls in (sp.csr_matrix, sp.csc_matrix, sp.coo_matrix):
        monkeypatch.setattr(cls, "toarray", guard(cls.toarray))
        monkeypatch.setattr(cls, "todense", guard(cls.todense))
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", ConvergenceWarning)
        clf = est(C=10.0, **kw).fit(Xs, y)
    clf.predict(Xs)


def test_sparse_tags():
    assert L1SVC().__sklearn_tags__().input_tags.sparse
    assert FeatureBudgetSVC().__sklearn_tags__().input_tags.sparse
    assert RampLossSVC().__sklearn_tags__().input_tags.sparse


def test_sparse_nonfinite_named():
    X, y = _data()
    Xs = sp.csr_matrix(X)
    Xs.data[0] = np.nan
    with pytest.raises(ValueError, match="X"):
        L1SVC().fit(Xs, y)


def test_dask_of_sparse_chunks_accepted():  # the full checks: tests/ramp/test_dask_sparse.py
    da = pytest.importorskip("dask.array")
    X, y = _data()
    Xd = da.from_array(sp.csr_matrix(X), chunks=(60, 12), asarray=False)
    ref = L1SVC(solver="cutting_plane").fit(sp.csr_matrix(X), y)
    np.testing.assert_array_equal(L1SVC(solver="cutting_plane").fit(Xd, y).predict(Xd), ref.predict(X))


@pytest.mark.parametrize("est", [L1SVC(solver="lp"), FeatureBudgetSVC(budget=2, solver="lp")],
                         ids=lambda e: type(e).__name__)
def test_check_estimator_sparse(est):
    from sklearn.utils.estimator_checks import check_estimator

    from tests.ramp.test_estimators import binary_weight_check_xfail

    check_estimator(est, expected_failed_checks=binary_weight_check_xfail())


# ---------------------------------------------------------------------------------------------------------------
# RampLossSVC: every method on sparse X
# ---------------------------------------------------------------------------------------------------------------
def _ramp_data(n=60, d=8, seed=0):
    X, y = _data(n=n, d=d, seed=seed)
    y[:3] = 1 - y[:3]  # a few flipped labels: outliers for the ramp loss
    return X, y


RAMP_CASES = [{"method": "exact", "budget": 3}, {"method": "exact", "big_m": "variant2"},
              {"method": "heuristic", "budget": 3, "max_time": 30}, {"method": "cccp", "budget": 3},
              {"method": "cccp"}, {"C": "auto", "method": "cccp", "budget": 3}]


def _fit(est, X, y):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", ConvergenceWarning)
        return est.fit(X, y)


@pytest.mark.parametrize("kw", RAMP_CASES, ids=lambda c: "-".join(f"{k}={v}" for k, v in c.items()))
def test_ramp_sparse_matches_dense(kw):
    X, y = _ramp_data()
    Xs = with_explicit_zeros(X, sp.csr_matrix)
    dense = _fit(RampLossSVC(random_state=0, **kw), X, y)
    sparse = _fit(RampLossSVC(random_state=0, **kw), Xs, y)
    # the same LPs and MILPs (built from the same nonzeros), the same CCCP steps: equal up to the order of the sums
    np.testing.assert_allclose(sparse.coef_, dense.coef_, rtol=0, atol=1e-8)
    np.testing.assert_allclose(sparse.intercept_, dense.intercept_, rtol=0, atol=1e-8)
    np.testing.assert_allclose(sparse.decision_function(Xs), dense.decision_function(X), rtol=0, atol=1e-8)
    np.testing.assert_array_equal(sparse.predict(Xs), dense.predict(X))
    np.testing.assert_array_equal(sparse.outliers_, dense.outliers_)
    assert sparse.objective_ == pytest.approx(dense.objective_, rel=1e-10, abs=1e-10)
    assert (sparse.status_, sparse.method_, sparse.C_) == (dense.status_, dense.method_, dense.C_)
    if dense.big_m_ is not None:
        np.testing.assert_allclose(sparse.big_m_.M, dense.big_m_.M, rtol=1e-9, atol=1e-9)
    if dense.selection_ is not None:
        np.testing.assert_array_equal(sparse.selection_["errors"], dense.selection_["errors"])


@pytest.mark.parametrize("fmt", FORMATS, ids=lambda f: f.__name__)
def test_ramp_sparse_formats(fmt):
    """CSR and CSC, matrices and arrays, with explicit zeros stored: the exact fit of the dense data."""
    X, y = _ramp_data(n=40, d=6, seed=2)
    Xs = with_explicit_zeros(X, fmt)
    assert Xs.nnz > np.count_nonzero(X)
    dense = _fit(RampLossSVC(C=10.0, method="exact", budget=2, random_state=0), X, y)
    sparse = _fit(RampLossSVC(C=10.0, method="exact", budget=2, random_state=0), Xs, y)
    assert dense.n_selected_features_ == 2
    np.testing.assert_allclose(sparse.coef_, dense.coef_, rtol=0, atol=1e-8)
    np.testing.assert_array_equal(sparse.predict(Xs), dense.predict(X))
    assert sparse.objective_ == pytest.approx(dense.objective_, rel=1e-10)


def test_ramp_sparse_probability():
    X, y = _ramp_data(seed=3)
    Xs = with_explicit_zeros(X, sp.csc_matrix)
    dense = _fit(RampLossSVC(method="cccp", budget=3, probability=True, random_state=0), X, y)
    sparse = _fit(RampLossSVC(method="cccp", budget=3, probability=True, random_state=0), Xs, y)
    np.testing.assert_allclose(sparse.predict_proba(Xs), dense.predict_proba(X), rtol=0, atol=1e-8)
    np.testing.assert_array_equal(sparse.predict_proba(Xs).argmax(axis=1), sparse.classes_.searchsorted(
        sparse.predict(Xs)))


def test_ramp_sparse_zero_start_perturbation():
    """CCCP's random starts when the (FS-SVM) start is w = 0 (C tiny) scale by the columns' std: over the nonzeros."""
    X, y = _ramp_data(seed=4)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", UserWarning)  # the w = 0 warning
        dense = _fit(RampLossSVC(C=1e-3, method="cccp", random_state=0), X, y)
        sparse = _fit(RampLossSVC(C=1e-3, method="cccp", random_state=0), sp.csr_matrix(X), y)
    assert sparse.objective_ == pytest.approx(dense.objective_, rel=1e-8)
    np.testing.assert_array_equal(sparse.predict(sp.csr_matrix(X)), dense.predict(X))


def test_ramp_bounds_sparse_exact():
    """Algorithm 1's diameters (Prop. 2.2) and big-Ms of a sparse X equal the dense ones exactly, on columns of
    every sign pattern (all stored and positive, mixed signs, empty)."""
    rng = np.random.default_rng(5)
    X, y = _ramp_data(n=50, d=7, seed=5)
    X[:, 0] = 3.0 + rng.random(X.shape[0])  # a column with no zero
    X[X > 0.8] *= -1.0
    ys = np.where(y == 1, 1.0, -1.0)
    np.testing.assert_array_equal(class_diameters(sp.csr_matrix(X), ys), class_diameters(X, ys))
    for variant in ("variant1", "variant2"):
        bd, sd = algorithm1(X, ys, 1.0, 3, variant=variant, max_iter=2)
        bs, ss = algorithm1(sp.csr_matrix(X), ys, 1.0, 3, variant=variant, max_iter=2)
        np.testing.assert_array_equal(bs.M, bd.M)
        assert (bs.ub_w, bs.lb_b, bs.ub_b) == (bd.ub_w, bd.lb_b, bd.ub_b)
        np.testing.assert_array_equal(ss.w, sd.w)
    w = rng.normal(size=X.shape[1])
    assert ramp_loss_objective(sp.csc_matrix(X), ys, w, 0.1, 2.0) == pytest.approx(
        ramp_loss_objective(X, ys, w, 0.1, 2.0), rel=1e-12)


def _guard_densify(monkeypatch, shape):
    """Patch scipy's densifying methods: a result with as many rows as X, or of half X's size, raises (a row, the
    1 x d column bounds, the cutting planes' G x d group sums stay allowed)."""
    def guard(method):
        def call(self, *args, **kwargs):
            if (len(self.shape) == 2 and self.shape[0] >= shape[0]) or 2 * int(np.prod(self.shape)) >= np.prod(shape):
                raise AssertionError(f"a sparse {self.shape} was densified")
            return method(self, *args, **kwargs)
        return call

    for cls in (sp.csr_matrix, sp.csc_matrix, sp.coo_matrix, sp.csr_array, sp.csc_array, sp.coo_array):
        monkeypatch.setattr(cls, "toarray", guard(cls.toarray))
        monkeypatch.setattr(cls, "todense", guard(cls.todense))


@pytest.mark.parametrize("kw", [*RAMP_CASES, {"method": "cccp", "budget": 3, "probability": True}],
                         ids=lambda c: "-".join(f"{k}={v}" for k, v in c.items()))
def test_ramp_never_densified(kw, monkeypatch):
    X, y = _ramp_data(seed=1)
    Xs = sp.csr_matrix(X)
    _guard_densify(monkeypatch, X.shape)
    clf = _fit(RampLossSVC(random_state=0, **kw), Xs, y)
    clf.predict(Xs)
    clf.decision_function(sp.csc_matrix(X))


def test_ramp_sparse_under_memory_budget(monkeypatch):
    """A memory budget below one dense copy of X (n d 8 bytes): every densification is checked against it (and
    refused), and the numpy memory the fit traces peaks below n d 8 bytes; the sparse CCCP fit and Algorithm 1's
    initial solution and diameters run all the same."""
    n, d = 3000, 400
    rng = np.random.default_rng(7)
    # ten informative columns half full, the other 390 at density 0.01 (a label that X decides on most rows)
    Xs = sp.hstack([sp.random(n, 10, density=0.5, random_state=7), sp.random(n, d - 10, density=0.01,
                                                                          random_state=8)], format="csr")
    w = np.zeros(d)
    w[:10] = rng.normal(size=10)
    y = np.where(Xs @ w + 0.05 * rng.normal(size=n) > 0, 1, 0)
    dense_bytes = 8 * n * d
    ref = _fit(RampLossSVC(method="cccp", budget=10, n_init=1, random_state=0), Xs.toarray(), y)

    def checked(method):
        def call(self, *args, **kwargs):
            check_dense_allocation(*(self.shape if len(self.shape) == 2 else (1, self.shape[0])), "densifying X")
            return method(self, *args, **kwargs)
        return call

    for cls in (sp.csr_matrix, sp.csc_matrix, sp.coo_matrix):
        monkeypatch.setattr(cls, "toarray", checked(cls.toarray))
        monkeypatch.setattr(cls, "todense", checked(cls.todense))
    svmopt.set_memory_budget(dense_bytes // 4)
    try:
        with pytest.raises(svmopt.MemoryBudgetError):  # the guard is live: a dense copy of X is refused
            Xs.toarray()
        tracemalloc.start()
        clf = _fit(RampLossSVC(method="cccp", budget=10, n_init=1, random_state=0), Xs, y)
        ys = np.where(y == 1, 1.0, -1.0)
        bm, _ = algorithm1(Xs, ys, 1.0, 10, variant="initial")  # the initial solution and M_i = Delta_i UB
        delta = class_diameters(Xs, ys)
        _, peak = tracemalloc.get_traced_memory()
    finally:
        tracemalloc.stop()
        svmopt.set_memory_budget(None)
    assert peak < dense_bytes // 2, f"the fit traced {peak} bytes, a dense X is {dense_bytes}"
    assert clf.score(Xs, y) > 0.8
    np.testing.assert_allclose(clf.coef_, ref.coef_, atol=1e-6)  # the dense fit's model, within the budget
    np.testing.assert_allclose(delta, class_diameters(Xs.toarray(), ys), rtol=0, atol=0)
    assert bm.ub_w > 0
