"""A Dask array of scipy sparse chunks for the linear estimators of paper 001 that read Dask arrays (L1SVC and
FeatureBudgetSVC by cutting planes, RampLossSVC by CCCP): the same fit as on the in-memory sparse matrix (and the dense
array), each chunk's passes over its nonzeros where it is, no chunk densified; the other estimators refuse such X."""

import warnings

import numpy as np
import pytest
import scipy.sparse as sp
from sklearn.base import clone
from sklearn.exceptions import ConvergenceWarning

from svmopt import L1SVC, EllipsoidPSOClassifier, FeatureBudgetSVC, RampLossSVC, RobustSVC, _core
from svmopt._shared.dask import dask_cut_pass
from svmopt._shared.sparse import sparse_cut_pass

da = pytest.importorskip("dask.array", reason="dask is an optional dependency (pip install svmopt[dask])")
dask = pytest.importorskip("dask")

N, D = 120, 12
CHUNKS = (40, 7, 23, 50)  # rows per chunk, uneven (none of G = 16 rows: see _guard_densify)


@pytest.fixture(autouse=True)
def _synchronous():
    with dask.config.set(scheduler="synchronous"):
        yield


def _data(seed=0, flip=3):
    rng = np.random.default_rng(seed)
    X = sp.random(N, D, density=0.3, random_state=seed, format="coo").toarray()
    X[5] = 0.0  # an empty row
    X[:, 3] = 0.0  # an empty column
    w = rng.normal(size=D)
    y = np.where(X @ w + 0.2 * rng.normal(size=N) > 0, 1, 0)
    y[:flip] = 1 - y[:flip]  # a few flipped labels: outliers for the ramp loss
    S = sp.coo_matrix(X)
    rows = np.concatenate([S.row, [0, 1, 60]])  # explicit zeros stored, one in a middle chunk
    cols = np.concatenate([S.col, [3, 3, 7]])
    vals = np.concatenate([S.data, [0.0, 0.0, 0.0]])
    Xs = sp.csr_matrix((vals, (rows, cols)), shape=X.shape)
    assert Xs.nnz > np.count_nonzero(X)
    return X, Xs, y


def _dask_chunks(Xs, kind="csr"):
    """Xs as a Dask array of sparse chunks of uneven row counts."""
    if kind == "csr":
        return da.from_array(Xs, chunks=(CHUNKS, (D,)), asarray=False)
    if kind == "map_blocks":  # dense chunks made CSR by map_blocks (the dense array only builds the graph)
        return da.from_array(Xs.toarray(), chunks=(CHUNKS, (D,))).map_blocks(sp.csr_matrix)
    if kind == "csc":
        return da.from_array(Xs.tocsc(), chunks=(CHUNKS, (D,)), asarray=False)
    if kind == "csr_array":
        return da.from_array(sp.csr_array(Xs), chunks=(CHUNKS, (D,)), asarray=False)
    if kind == "column_chunks":  # two column chunks: rechunked to one
        return da.from_array(Xs, chunks=(CHUNKS, (5, 7)), asarray=False)
    raise ValueError(kind)


def _fit(est, X, y, **kw):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", ConvergenceWarning)
        return clone(est).fit(X, y, **kw)


def _assert_same(got, ref, Xd, Xs, atol=1e-8):
    np.testing.assert_allclose(got.coef_, ref.coef_, rtol=0, atol=atol)
    np.testing.assert_allclose(got.intercept_, ref.intercept_, rtol=0, atol=atol)
    np.testing.assert_array_equal(got.predict(Xd), ref.predict(Xs))
    np.testing.assert_allclose(got.decision_function(Xd), ref.decision_function(Xs), rtol=0, atol=atol)
    np.testing.assert_allclose(got.decision_function(Xd), got.decision_function(Xs), rtol=0, atol=1e-12)
    assert got.objective_ == pytest.approx(ref.objective_, rel=1e-9, abs=1e-9)
    assert got.status_ == ref.status_


ESTIMATORS = [L1SVC(C=1.0, solver="cutting_plane"), FeatureBudgetSVC(C=1.0, budget=4, solver="cutting_plane"),
              RampLossSVC(C=1.0, method="cccp", budget=3, random_state=0),
              RampLossSVC(C=1.0, method="cccp", random_state=0)]
IDS = ["L1SVC", "FeatureBudgetSVC", "RampLossSVC-budget", "RampLossSVC"]


# ----------------------------------------------------------------------------------------------------- the pass
def test_sparse_chunk_pass_uses_the_global_groups():
    """A chunk's sparse pass (rows row_offset.. of n_total) equals the core's dense pass of the same chunk."""
    rng = np.random.default_rng(1)
    _, Xs, y = _data(1)
    ys = np.where(y == 1, 1.0, -1.0)
    v, delta, offset = rng.normal(size=D), rng.random(N), rng.choice([-1.0, 1.0], N)
    weight = rng.random(N) + 0.5
    for a, b in [(40, 47), (47, 70), (0, 40), (70, N)]:
        sl = slice(a, b)
        scores, ref_scores = np.empty(b - a), np.empty(b - a)
        got = sparse_cut_pass(Xs[sl], ys[sl], v, 0.3, 0.2, delta=delta[sl], offset=offset[sl], weight=weight[sl],
                              n_groups=16, scores_out=scores, row_offset=a, n_total=N)
        ref = _core.cutting_plane.cut_pass(ys[sl], v, 0.3, 0.2, Phi=np.ascontiguousarray(Xs[sl].toarray()),
                                           delta=delta[sl], offset=offset[sl], weight=weight[sl], n_groups=16,
                                           row_offset=a, n_total=N, scores_out=ref_scores)
        for g, r in zip(got, (ref.a_groups, ref.b_groups, ref.e_groups, ref.n_c_groups, ref.hinge_groups),
                        strict=True):
            np.testing.assert_allclose(g, r, rtol=1e-12, atol=1e-12)
        np.testing.assert_allclose(scores, ref_scores, rtol=1e-13, atol=1e-13)
    with pytest.raises(ValueError, match="n_total"):
        sparse_cut_pass(Xs[:40], ys[:40], v, 0.0, 0.0, delta=None, offset=None, weight=None, n_groups=4,
                        row_offset=90, n_total=N)


@pytest.mark.parametrize("kind", ["csr", "csc", "column_chunks"])
def test_dask_pass_of_sparse_chunks_equals_the_in_memory_pass(kind):
    rng = np.random.default_rng(2)
    _, Xs, y = _data(2)
    ys = np.where(y == 1, 1.0, -1.0)
    v, weight = rng.normal(size=D), rng.random(N) + 0.5
    Xd = _dask_chunks(Xs, kind).rechunk({1: -1})
    ref_scores = np.empty(N)
    ref = sparse_cut_pass(Xs, ys, v, -0.1, 0.0, delta=None, offset=None, weight=weight, n_groups=16,
                          scores_out=ref_scores)
    sums, scores = dask_cut_pass(Xd, ys, None, None, v, -0.1, 0.0, None, None, 16, weight)
    for g, r in zip((sums.a_groups, sums.b_groups, sums.e_groups, sums.n_c_groups, sums.hinge_groups), ref,
                    strict=True):
        np.testing.assert_allclose(g, r, rtol=1e-13, atol=1e-13)
    np.testing.assert_allclose(scores, ref_scores, rtol=1e-14, atol=1e-14)


# ----------------------------------------------------------------------------------------------------- the fits
@pytest.mark.parametrize("est", ESTIMATORS, ids=IDS)
def test_dask_sparse_fit_equals_in_memory_sparse(est):
    X, Xs, y = _data()
    Xd = _dask_chunks(Xs)
    ref = _fit(est, Xs, y)
    got = _fit(est, Xd, y)
    _assert_same(got, ref, Xd, Xs)
    if isinstance(est, RampLossSVC):
        np.testing.assert_array_equal(got.outliers_, ref.outliers_)
    else:
        assert got.solver_ == "cutting_plane"
    dense = _fit(est, X, y)  # the dense fit's model (the core's pass: the same sums up to their order)
    np.testing.assert_allclose(got.coef_, dense.coef_, rtol=0, atol=1e-6)
    np.testing.assert_array_equal(got.predict(Xd), dense.predict(X))


@pytest.mark.parametrize("kind", ["map_blocks", "csc", "csr_array", "column_chunks"])
def test_dask_sparse_chunk_kinds(kind):
    _, Xs, y = _data(3)
    Xd = _dask_chunks(Xs, kind)
    est = L1SVC(C=1.0, solver="auto")  # auto: the cutting planes for a Dask array
    ref = _fit(est.set_params(solver="cutting_plane"), Xs, y)
    got = _fit(est.set_params(solver="auto"), Xd, y)
    assert got.solver_ == "cutting_plane"
    _assert_same(got, ref, Xd, Xs)


def test_ramp_auto_C_and_warm_start_on_dask_sparse():
    """C="auto" selects on the rows gathered in memory as a sparse matrix (the in-memory sparse selection); a warm
    start runs from the previous fit on the chunks."""
    _, Xs, y = _data(4)
    Xd = _dask_chunks(Xs)
    est = RampLossSVC(C="auto", cv=2, method="cccp", budget=3, random_state=0, n_init=1)
    ref, got = _fit(est, Xs, y), _fit(est, Xd, y)
    assert got.C_ == ref.C_
    np.testing.assert_array_equal(got.selection_["errors"], ref.selection_["errors"])
    _assert_same(got, ref, Xd, Xs)
    warm = RampLossSVC(C=1.0, method="cccp", budget=3, random_state=0, n_init=1, warm_start=True)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", ConvergenceWarning)
        ref_w = warm.fit(Xs, y).fit(Xs, y)
        got_w = clone(warm).fit(Xd, y).fit(Xd, y)
    assert got_w.cccp_["warm_start"] and ref_w.cccp_["warm_start"]
    _assert_same(got_w, ref_w, Xd, Xs)


def test_ramp_zero_start_perturbation_on_dask_sparse():
    """CCCP's random starts after a w = 0 (FS-SVM) start scale by the first rows' column stds: those rows gathered
    as one CSR matrix, their moments over the nonzeros."""
    _, Xs, y = _data(5)
    Xd = _dask_chunks(Xs)
    est = RampLossSVC(C=1e-3, method="cccp", random_state=0)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", UserWarning)  # the w = 0 warning
        ref, got = _fit(est, Xs, y), _fit(est, Xd, y)
    _assert_same(got, ref, Xd, Xs)


@pytest.mark.parametrize("est", ESTIMATORS[:3], ids=IDS[:3])
def test_dask_sparse_sample_weight(est):
    _, Xs, y = _data(6)
    Xd = _dask_chunks(Xs)
    sw = np.random.default_rng(6).choice([0.5, 1.0, 2.0, 3.0], N)
    ref = _fit(est, Xs, y, sample_weight=sw)
    got = _fit(est, Xd, y, sample_weight=sw)
    _assert_same(got, ref, Xd, Xs)
    # weights all 1: the unweighted fit
    ones = _fit(est, Xd, y, sample_weight=np.ones(N))
    _assert_same(ones, _fit(est, Xs, y), Xd, Xs)
    sw[:4] = 0.0
    with pytest.raises(ValueError, match="has zeros: with a Dask X"):
        clone(est).fit(Xd, y, sample_weight=sw)


def _guard_densify(monkeypatch, allowed):
    """Patch scipy's densifying methods to raise for any matrix of more than 2 rows except the ``allowed`` shapes
    (the cutting planes' G x d group sums); every chunk here has 7 rows or more."""
    def guard(method):
        def call(self, *args, **kwargs):
            if len(self.shape) == 2 and self.shape[0] > 2 and tuple(self.shape) not in allowed:
                raise AssertionError(f"a sparse {self.shape} was densified")
            return method(self, *args, **kwargs)
        return call

    for cls in (sp.csr_matrix, sp.csc_matrix, sp.coo_matrix, sp.csr_array, sp.csc_array, sp.coo_array):
        monkeypatch.setattr(cls, "toarray", guard(cls.toarray))
        monkeypatch.setattr(cls, "todense", guard(cls.todense))


@pytest.mark.parametrize("est", [*ESTIMATORS, RampLossSVC(C="auto", method="cccp", budget=3, random_state=0),
                                 RampLossSVC(C=1e-3, method="cccp", random_state=0)],
                         ids=[*IDS, "RampLossSVC-auto", "RampLossSVC-zero-start"])
def test_dask_sparse_never_densified(est, monkeypatch):
    _, Xs, y = _data(7)
    Xd = _dask_chunks(Xs)
    _guard_densify(monkeypatch, allowed={(16, D)})
    with pytest.raises(AssertionError, match="densified"):  # the guard is live
        Xs[:7].toarray()
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", UserWarning)
        clf = _fit(est, Xd, y)
    clf.predict(Xd)
    clf.decision_function(Xd)


def test_dask_sparse_nonfinite_named():
    _, Xs, y = _data()
    Xs = Xs.copy()
    Xs.data[Xs.indptr[50]] = np.nan  # a stored value of a middle chunk
    with pytest.raises(ValueError, match="NaN or infinity"):
        L1SVC(solver="cutting_plane").fit(_dask_chunks(Xs), y)


def test_dask_sparse_lp_refused():
    _, Xs, y = _data()
    with pytest.raises(ValueError, match="solver"):
        L1SVC(solver="lp").fit(_dask_chunks(Xs), y)
    with pytest.raises(ValueError, match="method"):
        RampLossSVC(method="exact").fit(_dask_chunks(Xs), y)


@pytest.mark.parametrize("est", [RobustSVC(), EllipsoidPSOClassifier()], ids=lambda e: type(e).__name__)
def test_other_estimators_refuse_dask_sparse(est):
    _, Xs, y = _data()
    with pytest.raises(TypeError, match=f"{type(est).__name__}: X is a Dask array of scipy sparse chunks"):
        est.fit(_dask_chunks(Xs), y)


def test_dask_sparse_on_a_process_cluster(dask_client):
    """Two worker processes: the chunks' passes run there (the tasks and their results travel pickled)."""
    _, Xs, y = _data(8)
    Xd = _dask_chunks(Xs)
    with dask.config.set(scheduler=dask_client.get):
        ref = _fit(L1SVC(C=1.0, solver="cutting_plane"), Xs, y)
        got = _fit(L1SVC(C=1.0, solver="cutting_plane"), Xd, y)
        _assert_same(got, ref, Xd, Xs)
