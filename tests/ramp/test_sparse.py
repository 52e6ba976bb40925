"""scipy.sparse X (CSR, CSC, matrices and arrays) for L1SVC and FeatureBudgetSVC: the same fit as on dense X, by
every solver, without densifying X; the refusal of the ramp-loss model."""

import warnings

import numpy as np
import pytest
import scipy.sparse as sp
from sklearn.exceptions import ConvergenceWarning

from svmopt import L1SVC, FeatureBudgetSVC, RampLossSVC

FORMATS = [sp.csr_matrix, sp.csc_matrix, sp.csr_array, sp.csc_array]


def _data(n=120, d=12, density=0.3, seed=0):
    rng = np.random.default_rng(seed)
    X = sp.random(n, d, density=density, random_state=seed, format="coo").toarray()
    X[5] = 0.0  # an empty row
    X[:, 3] = 0.0  # an empty column
    w = rng.normal(size=d)
    y = np.where(X @ w + 0.2 * rng.normal(size=n) > 0, 1, 0)
    return X, y


def _sparse(X, fmt):
    S = sp.coo_matrix(X)
    rows = np.concatenate([S.row, [0, 1]])  # two explicit zeros
    cols = np.concatenate([S.col, [3, 3]])
    vals = np.concatenate([S.data, [0.0, 0.0]])
    return fmt(sp.coo_matrix((vals, (rows, cols)), shape=X.shape).asformat(
        "csr" if "csr" in fmt.__name__ else "csc"))


CASES = [(L1SVC, {"solver": "lp"}), (L1SVC, {"solver": "cutting_plane"}),
         (FeatureBudgetSVC, {"solver": "lp", "budget": 4}),
         (FeatureBudgetSVC, {"solver": "cutting_plane", "budget": 4})]


@pytest.mark.parametrize("fmt", FORMATS, ids=lambda f: f.__name__)
@pytest.mark.parametrize(("est", "kw"), CASES, ids=lambda c: str(c))
def test_sparse_matches_dense(est, kw, fmt):
    X, y = _data()
    Xs = _sparse(X, fmt)
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
    assert not RampLossSVC().__sklearn_tags__().input_tags.sparse


def test_ramp_loss_refuses_sparse():
    X, y = _data()
    with pytest.raises(TypeError, match="sparse X.*L1SVC or FeatureBudgetSVC"):
        RampLossSVC(budget=2).fit(sp.csr_matrix(X), y)


def test_sparse_nonfinite_named():
    X, y = _data()
    Xs = sp.csr_matrix(X)
    Xs.data[0] = np.nan
    with pytest.raises(ValueError, match="X"):
        L1SVC().fit(Xs, y)


def test_dask_of_sparse_chunks_refused():
    da = pytest.importorskip("dask.array")
    X, y = _data()
    Xd = da.from_array(sp.csr_matrix(X), chunks=(60, 12), asarray=False)
    with pytest.raises(TypeError, match="X is a Dask array of scipy sparse chunks"):
        L1SVC(solver="cutting_plane").fit(Xd, y)


@pytest.mark.parametrize("est", [L1SVC(solver="lp"), FeatureBudgetSVC(budget=2, solver="lp")],
                         ids=lambda e: type(e).__name__)
def test_check_estimator_sparse(est):
    from sklearn.utils.estimator_checks import check_estimator

    from tests.ramp.test_estimators import binary_weight_check_xfail

    check_estimator(est, expected_failed_checks=binary_weight_check_xfail())
