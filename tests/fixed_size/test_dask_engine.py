"""The Dask backend (svmopt.fixed_size.dask_engine): FixedSizeLSSVC/-SVR fitted on dask arrays on a local
two-process cluster, checked against the in-memory fits."""

from __future__ import annotations

import subprocess
import sys

import numpy as np
import pytest

from svmopt import FixedSizeLSSVC, FixedSizeLSSVR

da = pytest.importorskip("dask.array", reason="dask is an optional dependency (pip install svmopt[dask])")
distributed = pytest.importorskip("distributed", reason="dask.distributed is an optional dependency")


# --------------------------------------------------------------------------------------------- helpers
def _assert_close(a, b, rtol=1e-10):
    a, b = np.asarray(a, float), np.asarray(b, float)
    scale = max(1.0, float(np.max(np.abs(a))))
    np.testing.assert_allclose(a, b, rtol=rtol, atol=rtol * scale)


@pytest.fixture(scope="module")
def data():
    rng = np.random.default_rng(0)
    n, d = 900, 3
    X = rng.normal(size=(n, d))
    y = np.where(X[:, 0] + 0.5 * X[:, 1] ** 2 - 0.4 + 0.3 * rng.normal(size=n) > 0, "yes", "no")
    yr = np.sin(X[:, 0]) + 0.5 * X[:, 2] + 0.1 * rng.normal(size=n)
    y3 = np.digitize(X[:, 0] + 0.3 * rng.normal(size=n), [-0.5, 0.5])
    return X, y, yr, y3


def test_numpy_users_never_import_dask():
    code = ("import sys\nimport numpy as np\nfrom svmopt import FixedSizeLSSVR\nimport svmopt.fixed_size.dask_engine\n"
            "X = np.random.default_rng(0).normal(size=(60, 2))\n"
            "FixedSizeLSSVR(n_prototypes=10, gamma=1.0, sigma2=1.0).fit(X, X[:, 0]).predict(X)\n"
            "bad = sorted(m for m in sys.modules if m.split('.')[0] in ('dask', 'distributed'))\n"
            "assert not bad, bad\n")
    r = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=120)
    assert r.returncode == 0, r.stderr


# --------------------------------------------------------------------------------------------- input errors
def test_dask_input_errors(data):
    X, _, yr, _ = data
    est = FixedSizeLSSVR(n_prototypes=10, gamma=1.0, sigma2=1.0)
    Xd = da.from_array(X, chunks=(300, 3))
    with pytest.raises(ValueError, match="unknown chunk sizes"):
        est.fit(Xd[da.from_array(yr > 0, chunks=300)], yr[yr > 0])
    with pytest.raises(ValueError, match="2-D dask array, got ndim=1"):
        est.fit(Xd[:, 0], yr)
    with pytest.raises(ValueError, match="2-D dask array, got ndim=3"):
        est.fit(Xd[:, :, None], yr)
    with pytest.raises(ValueError, match="900 rows but y has 899"):
        est.fit(Xd, yr[:-1])
    with pytest.raises(ValueError, match="requires y"):
        est.fit(Xd)
    Xnan = X.copy()
    Xnan[5, 1] = np.nan
    with pytest.raises(ValueError, match="NaN"):
        est.fit(da.from_array(Xnan, chunks=(300, 3)), yr)
    with pytest.raises(ValueError, match="NaN"):
        FixedSizeLSSVR(n_prototypes=10, gamma=1.0, sigma2=1.0, standardize=False).fit(
            da.from_array(Xnan, chunks=(300, 3)), yr)
    with pytest.raises(TypeError, match="numeric dtype"):
        est.fit(da.from_array(X.astype(str), chunks=(300, 3)), yr)
    fitted = FixedSizeLSSVR(n_prototypes=10, gamma=1.0, sigma2=1.0).fit(X, yr)
    with pytest.raises(ValueError, match="expecting 3 features"):
        fitted.predict(Xd[:, :2])
    # sample weights (tests/fixed_size/test_dask_weights.py): checked as in memory; the Dask engine takes the
    # problem's positive weights only (rows of weight 0 are masked out before it)
    with pytest.raises(ValueError, match="sample_weight must be non-negative"):
        est.fit(Xd, yr, sample_weight=-np.ones(900))
    from svmopt._shared.splits import random_folds
    from svmopt.fixed_size.dask_engine import DaskCVEngine, DaskSource

    with pytest.raises(ValueError, match="weight > 0 per row"):
        DaskCVEngine(DaskSource(Xd), yr, None, random_folds(900, 3, np.random.default_rng(0)), 3, None, None,
                     "regression", n_features=3, weights=np.zeros(900))


# --------------------------------------------------------------------------------------------- on the cluster
@pytest.mark.parametrize("chunks", [(900, 3), (250, 3), (137, 2)])
def test_classifier_dask_equals_in_memory(dask_client, data, chunks):
    X, y, _, _ = data
    kw = {"n_prototypes": 40, "gamma": 8.0, "sigma2": 2.5, "cv": 5, "random_state": 4, "block_size": 200}
    ref = FixedSizeLSSVC(**kw).fit(X, y)
    Xd = da.from_array(X, chunks=chunks)
    est = FixedSizeLSSVC(**kw).fit(Xd, da.from_array(y, chunks=chunks[0]))
    np.testing.assert_array_equal(est.prototype_indices_, ref.prototype_indices_)
    _assert_close(est.prototypes_, ref.prototypes_)
    _assert_close(est.problems_[0]["coef"], ref.problems_[0]["coef"])
    _assert_close(est.problems_[0]["intercept"], ref.problems_[0]["intercept"])
    _assert_close(est.decision_function(X), ref.decision_function(X))
    assert est.cv_score_ == pytest.approx(ref.cv_score_, rel=1e-10, abs=1e-12)
    np.testing.assert_array_equal(est.predict(Xd), ref.predict(X))
    assert est.n_features_in_ == 3
    assert set(est.classes_) == {"no", "yes"}


@pytest.mark.parametrize("chunks", [(900, 3), (301, 3), (113, 2)])
@pytest.mark.parametrize("feature_memory", ["1G", 1000])
def test_regressor_dask_equals_in_memory(dask_client, data, chunks, feature_memory):
    """Both CV branches: features kept on the workers, and over the budget (recomputed / SSE shortcut)."""
    X, _, yr, _ = data
    kw = {"n_prototypes": 30, "gamma": 20.0, "sigma2": 3.0, "cv": 4, "random_state": 1,
          "feature_memory": feature_memory}
    ref = FixedSizeLSSVR(**kw).fit(X, yr)
    est = FixedSizeLSSVR(**kw).fit(da.from_array(X, chunks=chunks), yr)
    np.testing.assert_array_equal(est.prototype_indices_, ref.prototype_indices_)
    _assert_close(est.x_mean_, ref.x_mean_)
    _assert_close(est.x_scale_, ref.x_scale_)
    _assert_close(est.predict(X), ref.predict(X))
    assert est.cv_score_ == pytest.approx(ref.cv_score_, rel=1e-10)


def test_multiclass_and_linear_dask_equal_in_memory(dask_client, data):
    X, _, yr, y3 = data
    Xd = da.from_array(X, chunks=(200, 3))
    kw = {"n_prototypes": 30, "gamma": 5.0, "sigma2": 2.0, "cv": 3, "random_state": 2, "multiclass": "ovo"}
    ref = FixedSizeLSSVC(**kw).fit(X, y3)  # one-vs-one: each pair's rows are masked inside the chunks
    est = FixedSizeLSSVC(**kw).fit(Xd, y3)
    _assert_close(est.decision_function(X), ref.decision_function(X))
    _assert_close(est.cv_score_, ref.cv_score_)
    kw = {"kernel": "linear", "gamma": 3.0, "cv": 5, "random_state": 0}
    ref = FixedSizeLSSVR(**kw).fit(X, yr)
    est = FixedSizeLSSVR(**kw).fit(Xd, yr)
    _assert_close(est.predict(X), ref.predict(X))


def test_tuned_fits_agree(dask_client, data):
    """CSA + simplex on the dask CV costs follows the same path: classification costs are exact counts, the
    regression MSE differs from the in-memory one only by summation order."""
    X, y, yr, _ = data
    Xd = da.from_array(X, chunks=(300, 3))
    kw = {"n_prototypes": 25, "cv": 4, "random_state": 3, "n_csa": 8, "n_simplex": 3}
    for Est, target, extra in ((FixedSizeLSSVC, y, {}), (FixedSizeLSSVR, yr, {"sigma2": 2.0})):
        ref = Est(**kw, **extra).fit(X, target)
        est = Est(**kw, **extra).fit(Xd, target)
        assert est.gamma_ == pytest.approx(ref.gamma_, rel=1e-6)
        assert est.sigma2_ == pytest.approx(ref.sigma2_, rel=1e-6)
        assert est.cv_score_ == pytest.approx(ref.cv_score_, rel=1e-8, abs=1e-12)
        if Est is FixedSizeLSSVR:
            _assert_close(est.predict(X), ref.predict(X), rtol=1e-8)
        else:
            np.testing.assert_array_equal(est.predict(X), ref.predict(X))


def test_fold_sums_match_core_accumulator(dask_client, data):
    """The tree-reduced per-chunk partial sums equal one in-memory accumulation (eq. (20)) to 1e-10."""
    from svmopt import _core
    from svmopt.fixed_size.dask_engine import DaskSource, fold_sums
    from svmopt.fixed_size.nystrom import nystrom_projection, rbf_params

    X, _, yr, _ = data
    PV = X[:20].copy()
    params = rbf_params(2.0)
    P, _ = nystrom_projection(PV, params)
    folds = (np.arange(X.shape[0]) % 3).astype(np.int32)
    mask = yr > -0.2
    acc = _core.fixed_size.FoldAccumulator(PV, params, P, n_folds=3, n_targets=1)
    acc.add(np.ascontiguousarray(X[mask]), np.ascontiguousarray(yr[mask].reshape(-1, 1)),
            np.ascontiguousarray(folds[:mask.sum()]))
    ref = acc.results()
    src = DaskSource(da.from_array(X, chunks=(50, 3)))  # 18 chunks: a two-level reduction tree
    got, feats = fold_sums(src, yr[mask], folds[:mask.sum()], 3, PV, params, P, mask=mask, keep_features=True,
                           split_every=4)
    for a, b in zip(got, ref, strict=True):
        _assert_close(a, b)
    assert len(feats) == 18
    with pytest.raises(ValueError, match="folds must lie"):
        fold_sums(src, yr, np.full(X.shape[0], 3), 3, PV, params, P)


@pytest.mark.parametrize("feature_memory", ["1G", 1000], ids=["kept", "streamed"])
def test_gamma_path_dask_equals_in_memory(dask_client, data, feature_memory):
    """gamma_search="path": the per-chunk losses of all 31 gammas summed on the workers in one pass give the
    in-memory path's costs, hence the same gamma."""
    X, y, _, _ = data
    Xd = da.from_array(X, chunks=(300, 3))
    kw = {"n_prototypes": 25, "cv": 4, "random_state": 3, "sigma2": 2.0, "gamma_search": "path",
          "feature_memory": feature_memory}
    ref = FixedSizeLSSVC(**kw).fit(X, y)
    est = FixedSizeLSSVC(**kw).fit(Xd, y)
    assert est.gamma_ == ref.gamma_
    assert est.cv_score_ == pytest.approx(ref.cv_score_, rel=1e-12, abs=1e-12)
    np.testing.assert_array_equal(est.predict(X), ref.predict(X))
