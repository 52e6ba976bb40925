"""FixedSizeLSSVC / FixedSizeLSSVR (paper 002) with sample weights, class weights and a cv of splits on dask arrays,
checked against the in-memory weighted fits; rows of weight 0 masked out of every problem (never copied out of X, a
np.memmap included); prototype_indices_ indexing the X passed to fit."""

from __future__ import annotations

import numpy as np
import pytest

from svmopt import FixedSizeLSSVC, FixedSizeLSSVR

da = pytest.importorskip("dask.array", reason="dask is an optional dependency (pip install svmopt[dask])")
pytest.importorskip("distributed", reason="dask.distributed is an optional dependency")

#: Uneven row chunks of the 600-row data (one chunk holds only rows of weight 0 in _data's weights).
CHUNKS = ((90, 10, 230, 170, 100), (3,))


def _assert_close(a, b, rtol=1e-10):
    a, b = np.asarray(a, float), np.asarray(b, float)
    scale = max(1.0, float(np.max(np.abs(a))))
    np.testing.assert_allclose(a, b, rtol=rtol, atol=rtol * scale)


def _data(n=600, seed=0):
    """X (n x 3), binary labels, three classes, a regression target, and sample weights with zeros (rows 90-99, a
    whole chunk of CHUNKS, and a random fifth of the rest) and non-integer positive values."""
    rng = np.random.default_rng(seed)
    X = rng.normal(size=(n, 3))
    y2 = np.where(X[:, 0] + 0.5 * X[:, 1] ** 2 - 0.4 + 0.3 * rng.normal(size=n) > 0, "yes", "no")
    y3 = np.digitize(X[:, 0] + 0.3 * rng.normal(size=n), [-0.5, 0.5])
    yr = np.sin(X[:, 0]) + 0.5 * X[:, 2] + 0.1 * rng.normal(size=n)
    sw = rng.uniform(0.2, 3.0, size=n)
    sw[rng.random(n) < 0.2] = 0.0
    sw[90:100] = 0.0
    sw[:3] = 0.0  # the first rows out: indices among the kept rows and among X's rows differ from the start
    return X, y2, y3, yr, sw


def _outputs(est, X):
    return est.decision_function(X) if isinstance(est, FixedSizeLSSVC) else est.predict(X)


def _assert_same_fit(est, ref, X, rtol=1e-10):
    """The dask fit equals the in-memory one: prototypes, scaling, every problem's model, outputs, cv_score_."""
    np.testing.assert_array_equal(est.prototype_indices_, ref.prototype_indices_)
    _assert_close(est.prototypes_, ref.prototypes_, rtol)
    _assert_close(est.x_mean_, ref.x_mean_, rtol)
    _assert_close(est.x_scale_, ref.x_scale_, rtol)
    assert len(est.problems_) == len(ref.problems_)
    for p, q in zip(est.problems_, ref.problems_, strict=True):
        assert p["n_rows"] == q["n_rows"]
        _assert_close(p["coef"], q["coef"], rtol)
        _assert_close(p["intercept"], q["intercept"], rtol)
    _assert_close(_outputs(est, X), _outputs(ref, X), rtol)
    np.testing.assert_allclose(est.cv_score_, ref.cv_score_, rtol=rtol, atol=1e-13)
    np.testing.assert_array_equal(est.predict(X) if isinstance(est, FixedSizeLSSVC) else 0,
                                  ref.predict(X) if isinstance(ref, FixedSizeLSSVC) else 0)


def _differs(a, b, X, tol=1e-4):
    """Two fits whose outputs differ by more than ``tol`` somewhere (the weights changed the model)."""
    return float(np.max(np.abs(_outputs(a, X) - _outputs(b, X)))) > tol


# ------------------------------------------------------------------------------ weighted dask fits = numpy
@pytest.mark.parametrize(("case", "weights"), [
    ("binary", "sample"),
    ("binary", "balanced"),
    ("ovo", "sample+balanced"),
    ("ovo", "dict"),
    ("moc", "sample+dict"),
    ("regression", "sample"),
])
@pytest.mark.parametrize("feature_memory", ["1G", 1000], ids=["kept", "streamed"])
def test_weighted_dask_fit_equals_in_memory(dask_client, case, weights, feature_memory):
    """Fixed (gamma, sigma^2): the weighted fit of a dask array (uneven chunks, a chunk of weight-0 rows only) is the
    in-memory weighted fit, with the features kept on the workers or recomputed per pass (the weighted SSE of a
    streamed regression from the fold sums; a streamed misclassification rate is skipped on both)."""
    X, y2, y3, yr, sw = _data()
    Est = FixedSizeLSSVR if case == "regression" else FixedSizeLSSVC
    y = {"binary": y2, "ovo": y3, "moc": y3, "regression": yr}[case]
    kw: dict = {"n_prototypes": 30, "gamma": 6.0, "sigma2": 2.0, "cv": 4, "random_state": 3,
                "feature_memory": feature_memory}
    if case in ("ovo", "moc"):
        kw["multiclass"] = case
    if "balanced" in weights:
        kw["class_weight"] = "balanced"
    elif "dict" in weights:
        kw["class_weight"] = {0: 2.5, 2: 0.5}
    fit_kw = {"sample_weight": sw} if "sample" in weights else {}
    ref = Est(**kw).fit(X, y, **fit_kw)
    est = Est(**kw).fit(da.from_array(X, chunks=CHUNKS), y, **fit_kw)
    _assert_same_fit(est, ref, X)
    if not (Est is FixedSizeLSSVC and feature_memory == 1000):
        assert np.all(np.isfinite(est.cv_score_))
    if "sample" in weights:
        assert np.all(sw[est.prototype_indices_] > 0)
    kw.pop("class_weight", None)
    unweighted = Est(**kw).fit(da.from_array(X, chunks=CHUNKS), y)
    assert _differs(est, unweighted, X)


def test_weighted_tuned_dask_fits_equal_in_memory(dask_client):
    """CSA + simplex (a small budget) on the weighted dask CV costs, and the weighted gamma path, follow the in-memory
    searches: the same hyperparameters, cv_score_ and model."""
    X, y2, _, yr, sw = _data()
    Xd = da.from_array(X, chunks=CHUNKS)
    kw = {"n_prototypes": 20, "cv": 4, "random_state": 5, "n_csa": 6, "n_simplex": 3}
    for Est, y, extra in ((FixedSizeLSSVC, y2, {"class_weight": "balanced"}), (FixedSizeLSSVR, yr, {"sigma2": 2.0}),
                          (FixedSizeLSSVC, y2, {"sigma2": 2.0, "gamma_search": "path"})):
        ref = Est(**kw, **extra).fit(X, y, sample_weight=sw)
        est = Est(**kw, **extra).fit(Xd, y, sample_weight=sw)
        assert est.gamma_ == pytest.approx(ref.gamma_, rel=1e-6)
        assert est.sigma2_ == pytest.approx(ref.sigma2_, rel=1e-6, nan_ok=True)
        assert est.cv_score_ == pytest.approx(ref.cv_score_, rel=1e-8, abs=1e-12)
        if Est is FixedSizeLSSVR:
            _assert_close(est.predict(X), ref.predict(X), rtol=1e-8)
        else:
            np.testing.assert_array_equal(est.predict(X), ref.predict(X))
        unweighted = Est(**kw, **{k: v for k, v in extra.items() if k != "class_weight"}).fit(Xd, y)
        assert est.cv_score_ != pytest.approx(unweighted.cv_score_, rel=1e-6)


@pytest.mark.parametrize("splitter", ["KFold", "StratifiedKFold", "pairs"])
def test_cv_splits_with_dask_x_equal_in_memory(dask_client, splitter):
    """cv as a scikit-learn splitter (split(X, y) on the dask array itself) or as (train, test) pairs: the folds of
    the fast CV are the splits' test sets, as in memory; with zero weights the folds are restricted to the kept rows."""
    from sklearn.model_selection import KFold, StratifiedKFold

    X, y2, y3, _, sw = _data()
    cv = {"KFold": KFold(3, shuffle=True, random_state=0), "StratifiedKFold": StratifiedKFold(4),
          "pairs": list(KFold(5).split(X))}[splitter]
    kw = {"n_prototypes": 25, "gamma": 4.0, "sigma2": 1.5, "random_state": 1, "cv": cv}
    Xd = da.from_array(X, chunks=CHUNKS)
    for y, fit_kw in ((y2, {}), (y3, {"sample_weight": sw})):
        ref = FixedSizeLSSVC(**kw).fit(X, y, **fit_kw)
        est = FixedSizeLSSVC(**kw).fit(Xd, y, **fit_kw)
        _assert_same_fit(est, ref, X)
        # the given folds are used: the score differs from that of folds drawn at random (10 by default)
        drawn = FixedSizeLSSVC(**{**kw, "cv": None}).fit(Xd, y, **fit_kw)
        assert not np.allclose(est.cv_score_, drawn.cv_score_, rtol=1e-9, atol=0)


def test_block_streams_still_refuse_weights():
    X, y2, _, _, sw = _data(60)
    with pytest.raises(ValueError, match="numpy array, an np.memmap or a dask array"):
        FixedSizeLSSVC(gamma=1.0, sigma2=1.0).fit(lambda: iter([(X, y2)]), sample_weight=sw)


# ------------------------------------------------------------------------------ the weighted dask pieces
def test_weighted_moments_and_fold_sums_equal_numpy(dask_client):
    """DaskSource.moments with weights (zeros included) gives the weighted mean and deviation of the in-memory fit;
    fold_sums(weights=...) the core accumulator's weighted sums Phi_u^T W_u Phi_u, Phi_u^T W_u y_u, sum w y^2."""
    from svmopt import _core
    from svmopt._shared.moments import weighted_variance_denominator
    from svmopt.fixed_size.dask_engine import DaskSource, fold_sums
    from svmopt.fixed_size.nystrom import nystrom_projection, rbf_params

    X, _, _, yr, sw = _data()
    src = DaskSource(da.from_array(X, chunks=CHUNKS))
    mean, scale = src.moments(True, sw)
    ref_mean = sw @ X / sw.sum()
    _assert_close(mean, ref_mean, 1e-12)
    _assert_close(scale, np.sqrt(sw @ (X - ref_mean) ** 2 / weighted_variance_denominator(sw[sw > 0])), 1e-12)
    assert not np.allclose(mean, X.mean(axis=0), rtol=1e-3, atol=0)
    with pytest.raises(ValueError, match="weights must have shape"):
        src.moments(True, sw[:-1])

    PV = X[:15].copy()
    params = rbf_params(2.0)
    P, _ = nystrom_projection(PV, params)
    mask = sw > 0
    k = int(mask.sum())
    folds = (np.arange(k) % 3).astype(np.int32)
    acc = _core.fixed_size.FoldAccumulator(PV, params, P, n_folds=3, n_targets=1)
    Xs = np.ascontiguousarray((X[mask] - mean) / scale)
    acc.add(Xs, np.ascontiguousarray(yr[mask].reshape(-1, 1)), folds, weights=np.ascontiguousarray(sw[mask]))
    got, _ = fold_sums(src, yr[mask], folds, 3, PV, params, P, mask=mask, weights=sw[mask], split_every=2)
    for a, b in zip(got, acc.results(), strict=True):
        _assert_close(a, b)
    plain, _ = fold_sums(src, yr[mask], folds, 3, PV, params, P, mask=mask)
    assert not np.allclose(plain[0], got[0], rtol=1e-3)


@pytest.mark.parametrize("weighted", [False, True], ids=["unweighted", "weighted"])
@pytest.mark.parametrize("block", [1, 7, 400])
def test_block_moments_equal_numpy_and_the_dask_reduction(dask_client, weighted, block):
    """The in-memory block moments (fixed-size standardization, RobustSVC's kernel-width statistics) equal numpy's
    weighted mean and squared deviations and the Dask reduction, whatever the blocks; a row of weight 0 holding a
    value whose square overflows adds nothing."""
    from svmopt._shared.dask import column_moments
    from svmopt._shared.moments import block_moments

    X, _, _, _, sw = _data()
    w = sw if weighted else None
    blocks = lambda: (X[s:s + block] for s in range(0, X.shape[0], block))  # noqa: E731
    mean, s2, W, unit = block_moments(blocks, X.shape[1], w)
    ww = np.ones(X.shape[0]) if w is None else w
    ref_mean = ww @ X / ww.sum()
    _assert_close(mean, ref_mean, 1e-12)
    _assert_close(s2 * unit**2, ww @ (X - ref_mean) ** 2, 1e-12)
    assert W == pytest.approx(ww.sum(), rel=1e-15)
    d_mean, d_s2, d_W, d_unit = column_moments(da.from_array(X, chunks=CHUNKS), w)
    np.testing.assert_array_equal(unit, d_unit)
    _assert_close(mean, d_mean, 1e-12)
    _assert_close(s2, d_s2, 1e-12)
    assert W == pytest.approx(d_W, rel=1e-15)
    if weighted:
        Xh = X.copy()
        zero = int(np.flatnonzero(sw == 0)[0])
        Xh[zero] = 1e200
        with np.errstate(over="raise", invalid="raise"):
            hmean, hs2, _, _ = block_moments(lambda: (Xh[s:s + block] for s in range(0, Xh.shape[0], block)),
                                          X.shape[1], w)
        _assert_close(hmean, mean, 1e-12)
        _assert_close(hs2, s2, 1e-12)


# ------------------------------------------------------------------------------ rows of weight 0: masked, not copied
@pytest.mark.parametrize("Est", [FixedSizeLSSVC, FixedSizeLSSVR])
def test_memmap_zero_weights_mask_rows_without_copying(Est, tmp_path, monkeypatch):
    """A np.memmap fitted with zero weights: every problem reads the memmap itself (the source is X, not a copy of
    its kept rows) with the rows of weight 0 out of its row mask, and the model is the numpy array's weighted fit,
    which is the fit on the rows of positive weight."""
    import svmopt.fixed_size.search as search

    X, _, y3, yr, sw = _data(400, seed=1)
    y = yr if Est is FixedSizeLSSVR else y3
    mm = np.memmap(tmp_path / "X.f64", dtype=np.float64, mode="w+", shape=X.shape)
    mm[:] = X
    mm.flush()
    Xm = np.memmap(tmp_path / "X.f64", dtype=np.float64, mode="r", shape=X.shape)
    seen = []
    solve = search.SearchRun.solve

    def spy(self, problem, *args):
        seen.append((self.src.array, problem.mask))
        return solve(self, problem, *args)

    monkeypatch.setattr(search.SearchRun, "solve", spy)
    kw = {"n_prototypes": 20, "gamma": 5.0, "sigma2": 2.0, "cv": 3, "random_state": 0, "block_size": 64}
    est = Est(**kw).fit(Xm, y, sample_weight=sw)
    assert len(seen) == (1 if Est is FixedSizeLSSVR else 3)
    for array, mask in seen:
        assert array is Xm  # the memmap itself: no rows copied into memory
        assert mask is not None and mask.shape == (400,)
        assert not mask[sw == 0].any()
    if Est is FixedSizeLSSVR:
        np.testing.assert_array_equal(seen[0][1], sw > 0)
    seen.clear()
    ref = Est(**kw).fit(X, y, sample_weight=sw)
    _assert_same_fit(est, ref, X)
    keep = sw > 0
    dropped = Est(**{**kw, "prototypes": ref.prototypes_}).fit(  # given prototypes: in the standardized space
        X[keep], y[keep], sample_weight=sw[keep])
    _assert_close(_outputs(dropped, X), _outputs(ref, X), 1e-8)


def test_memmap_zero_weights_keep_memory_below_the_input(tmp_path):
    """The rows of positive weight of a memmap are streamed block by block, not gathered: a fit's traced peak stays
    well below the size of X (the candidate rows limited by max_candidates, the features streamed), where a copy of
    the rows of positive weight alone would take 90 % of it."""
    import tracemalloc

    rng = np.random.default_rng(0)
    n, d = 20_000, 100  # X: 16 MB; the driver's per-row vectors (labels, weights, masks, folds): ~2 MB
    mm = np.memmap(tmp_path / "big.f64", dtype=np.float64, mode="w+", shape=(n, d))
    for s in range(0, n, 2000):
        mm[s:s + 2000] = rng.normal(size=(2000, d))
    mm.flush()
    Xm = np.memmap(tmp_path / "big.f64", dtype=np.float64, mode="r", shape=(n, d))
    y = rng.normal(size=n)
    sw = np.where(rng.random(n) < 0.1, 0.0, rng.uniform(0.5, 2.0, n))
    est = FixedSizeLSSVR(n_prototypes=10, gamma=5.0, sigma2=float(d), cv=3, random_state=0, block_size=500,
                         max_candidates=1000, feature_memory=1)
    tracemalloc.start()
    try:
        est.fit(Xm, y, sample_weight=sw)
        _, peak = tracemalloc.get_traced_memory()
    finally:
        tracemalloc.stop()
    assert peak < Xm.nbytes / 4, (peak, Xm.nbytes)
    assert np.all(sw[est.prototype_indices_] > 0)


# ------------------------------------------------------------------------------ prototype_indices_
@pytest.mark.parametrize("source", ["numpy", "memmap", "dask", "partial_fit"])
def test_prototype_indices_index_the_x_passed_and_rows_of_positive_weight(source, tmp_path, request):
    """prototype_indices_ are rows of the X given to fit (rows of weight 0 counted), all of positive weight: the
    prototypes are those rows standardized."""
    X, _, y3, _, sw = _data(300, seed=2)
    kw = {"n_prototypes": 25, "gamma": 3.0, "sigma2": 1.5, "random_state": 0}
    Xin = X
    if source == "memmap":
        mm = np.memmap(tmp_path / "X.f64", dtype=np.float64, mode="w+", shape=X.shape)
        mm[:] = X
        mm.flush()
        Xin = np.memmap(tmp_path / "X.f64", dtype=np.float64, mode="r", shape=X.shape)
    elif source == "dask":
        request.getfixturevalue("dask_client")
        Xin = da.from_array(X, chunks=((100, 60, 140), (3,)))
    if source == "partial_fit":
        est = FixedSizeLSSVC(**kw).partial_fit(X, y3, classes=[0, 1, 2], sample_weight=sw)
    else:
        est = FixedSizeLSSVC(**kw).fit(Xin, y3, sample_weight=sw)
    idx = est.prototype_indices_
    assert idx.shape == (25,) and np.all(np.diff(idx) > 0)
    assert np.all(sw[idx] > 0)
    _assert_close(est.prototypes_, (X[idx] - est.x_mean_) / est.x_scale_, 1e-12)
    # class_weight zeroing a whole class: its rows are never prototypes, and the class is absent
    if source != "partial_fit":
        est = FixedSizeLSSVC(**kw, class_weight={1: 0.0}).fit(Xin, y3, sample_weight=sw)
        assert np.all((sw[est.prototype_indices_] > 0) & (y3[est.prototype_indices_] != 1))
        np.testing.assert_array_equal(est.classes_, [0, 2])
        _assert_close(est.prototypes_, (X[est.prototype_indices_] - est.x_mean_) / est.x_scale_, 1e-12)


@pytest.mark.parametrize("source", ["numpy", "dask"])
def test_a_huge_value_in_a_row_of_weight_zero_changes_nothing(source, request):
    """A row given weight 0 is out of the fit, its values too: 1e200 there (whose square overflows) leaves the
    standardization and the model those of the fit without the row, on either source; the same value in a row of
    positive weight is in the fit: its column's deviation is measured in a power-of-two unit, so it is finite (about
    1e200 / sqrt(n)) instead of an overflow."""
    X, _, _, yr, sw = _data(200, seed=3)
    sw = np.where(sw > 0, sw, 1.0)
    sw[7] = 0.0
    Xh = X.copy()
    Xh[7, 1] = 1e200
    kw = dict(n_prototypes=10, gamma=2.0, sigma2=2.0, random_state=0)
    ref = FixedSizeLSSVR(**kw).fit(np.delete(X, 7, axis=0), np.delete(yr, 7), sample_weight=np.delete(sw, 7))
    if source == "dask":
        request.getfixturevalue("dask_client")
        Xs = da.from_array(Xh, chunks=(50, 3))
    else:
        Xs = Xh
    with np.errstate(over="ignore", invalid="ignore"):  # the dask path computes the excluded row's square too
        est = FixedSizeLSSVR(**kw).fit(Xs, yr, sample_weight=sw)
    _assert_close(est.x_mean_, ref.x_mean_)
    _assert_close(est.x_scale_, ref.x_scale_)
    assert not np.allclose(ref.x_scale_, 1.0)
    Xt = np.delete(X, 7, axis=0)[:50]
    _assert_close(est.predict(Xt), ref.predict(Xt))
    sw[7] = 1.0
    with np.errstate(over="ignore", invalid="ignore"):
        est = FixedSizeLSSVR(**kw).fit(Xs, yr, sample_weight=sw)
    assert np.isfinite(est.x_scale_).all() and 1e198 < est.x_scale_[1] < 1e200
