"""Tuning on a sample (``tune_rows``), the search's stop rule (``n_iter_no_change``), per-problem hyperparameters,
``kernel_``, and the entropy bandwidths' faster sums (issue 41): the fit tunes on a stratified sample, then fits all
rows in one pass at the values chosen -- the model of those values fixed -- from every kind of source; ``None``
keeps the paper's search on every row with its whole budget."""

from __future__ import annotations

import math

import numpy as np
import pytest
from sklearn.datasets import make_classification
from sklearn.model_selection import KFold

from svmopt import FixedSizeLSSVC, FixedSizeLSSVR, Kernel
from svmopt._shared import bandwidth as bw
from svmopt.fixed_size.tuning import STALL_RTOL, StallStop, csa_simplex

FAST = {"n_prototypes": 20, "n_csa": 10, "n_simplex": 5, "random_state": 0}


def _data(n=600, n_classes=2, seed=0, weights=None):
    return make_classification(n, 5, n_informative=3, n_redundant=0, n_classes=n_classes, n_clusters_per_class=1,
                               weights=weights, flip_y=0.05, random_state=seed)


# ------------------------------------------------------------------------------------------------ tune_rows
def test_tuning_runs_on_a_stratified_sample_then_one_pass_over_all_rows(monkeypatch):
    import svmopt.fixed_size.search as search

    X, y = _data(900, weights=[0.8, 0.2])
    seen = []
    make = search.SearchRun._sample_engine

    def spy(self, problem, T, sample, v, n_threads=None):
        seen.append((sample, T[sample, 0]))
        return make(self, problem, T, sample, v, n_threads)

    monkeypatch.setattr(search.SearchRun, "_sample_engine", spy)
    est = FixedSizeLSSVC(tune_rows=200, **FAST).fit(X, y)
    (sample, targets), = seen
    assert sample.size == 200 and np.all(np.diff(sample) > 0)
    assert abs(np.mean(targets > 0) - np.mean(y == 1)) < 1 / 200 + 1e-12  # stratified: the class shares kept
    p = est.problems_[0]
    assert p["tune_rows"] == 200 and p["n_rows"] == 900 and p["n_passes"] == 2  # the gathering and the final fit
    assert p["gamma"] == pytest.approx(p["sample_gamma"] * 200 / 900, rel=1e-15)  # the sample's penalty per row
    # the final model is the fit of all rows at the chosen values with these prototypes
    fixed = FixedSizeLSSVC(gamma=est.gamma_, sigma2=est.sigma2_, prototypes=est.prototypes_, random_state=0).fit(X, y)
    np.testing.assert_allclose(fixed.decision_function(X), est.decision_function(X), atol=1e-8)


def test_a_problem_within_tune_rows_and_none_tune_on_every_row():
    X, y = _data(300)
    small = FixedSizeLSSVC(tune_rows=300, **FAST).fit(X, y)
    every = FixedSizeLSSVC(tune_rows=None, **FAST).fit(X, y)
    assert small.problems_[0]["tune_rows"] == every.problems_[0]["tune_rows"] == 300
    assert (small.gamma_, small.sigma2_) == (every.gamma_, every.sigma2_)
    assert FixedSizeLSSVC(tune_rows=299, **FAST).fit(X, y).problems_[0]["tune_rows"] == 299


def test_each_one_vs_one_problem_samples_its_own_rows():
    X, y = _data(900, n_classes=3)
    est = FixedSizeLSSVC(tune_rows=250, **FAST).fit(X, y)
    for (a, b), p in zip(est.pairs_, est.problems_, strict=True):
        assert p["n_rows"] == np.sum((y == a) | (y == b)) and p["tune_rows"] == 250


def test_a_cv_of_splits_tunes_on_every_row():
    X, y = _data(400)
    est = FixedSizeLSSVC(tune_rows=100, cv=KFold(3, shuffle=True, random_state=0), **FAST).fit(X, y)
    assert est.problems_[0]["tune_rows"] == 400


@pytest.mark.parametrize("source", ["memmap", "stream", "dask"])
def test_every_source_gives_the_array_model(tmp_path, source):
    """The sample is gathered from the source (standardized as the array's rows), so a memmap, a block stream and a
    dask array tune and fit as the array does."""
    X, y = _data(500, seed=3)
    kw = dict(tune_rows=150, block_size=128, **FAST)
    ref = FixedSizeLSSVC(**kw).fit(X, y)
    if source == "memmap":
        mm = np.memmap(tmp_path / "X.f64", dtype=np.float64, mode="w+", shape=X.shape)
        mm[:] = X
        mm.flush()
        est = FixedSizeLSSVC(**kw).fit(np.memmap(tmp_path / "X.f64", dtype=np.float64, mode="r", shape=X.shape), y)
    elif source == "stream":
        est = FixedSizeLSSVC(**kw).fit(lambda: ((X[s:s + 128], y[s:s + 128]) for s in range(0, 500, 128)))
    else:
        da = pytest.importorskip("dask.array")
        est = FixedSizeLSSVC(**kw).fit(da.from_array(X, chunks=128), y)
    assert est.problems_[0]["tune_rows"] == 150
    assert est.gamma_ == pytest.approx(ref.gamma_, rel=1e-9) and est.sigma2_ == pytest.approx(ref.sigma2_, rel=1e-9)
    np.testing.assert_allclose(est.decision_function(X), ref.decision_function(X), atol=1e-7)


def test_the_sample_keeps_its_weights_and_a_regressor_samples_uniformly(monkeypatch):
    import svmopt.fixed_size.search as search

    X, y = _data(500, seed=4)
    w = np.random.default_rng(0).uniform(0.5, 2.0, y.size)
    w[:50] = 0.0
    seen = []
    make = search.SearchRun._sample

    def spy(self, problem, n_p):
        seen.append(make(self, problem, n_p))
        return seen[-1]

    monkeypatch.setattr(search.SearchRun, "_sample", spy)
    est = FixedSizeLSSVC(tune_rows=120, **FAST).fit(X, y, sample_weight=w)
    p = est.problems_[0]
    assert p["tune_rows"] == 120 and p["n_rows"] == 450
    share = w[w > 0][seen[0]].sum() / w.sum()  # the weight of the sample's rows
    assert p["gamma"] == pytest.approx(p["sample_gamma"] * share, rel=1e-12)
    t = X[:, 0] + 0.1 * X[:, 1]
    reg = FixedSizeLSSVR(tune_rows=100, **FAST).fit(X, t)
    assert reg.problems_[0]["tune_rows"] == 100 and reg.score(X, t) > 0.9


def test_tune_rows_is_validated():
    X, y = _data(100)
    for bad in (0, 1, 2.5, "all"):
        with pytest.raises(ValueError, match="tune_rows"):
            FixedSizeLSSVC(tune_rows=bad).fit(X, y)
    with pytest.raises(ValueError, match="n_iter_no_change"):
        FixedSizeLSSVC(n_iter_no_change=0).fit(X, y)


# ---------------------------------------------------------------------------------------------- the stop rule
def test_stall_stop_cuts_each_stage_after_patience_evaluations_without_improvement():
    calls = []

    def cost(x):
        calls.append(float(x[0]))
        return 1.0 if len(calls) > 3 else 1.0 + 1.0 / len(calls)  # improves 4 times (1.0 last), then flat

    stall = StallStop(cost, n_csa=30, patience=4)
    res = csa_simplex(stall, np.zeros((5, 1)) + np.arange(5)[:, None] * 0.1, [-5.0], [5.0], n_csa=30, n_simplex=20)
    assert stall.stopped and res.fun == 1.0
    assert len(calls) == stall.n_evals == 4 + 4 + 4  # CSA: 4 improving + 4 flat; the simplex: 4 flat
    assert res.n_csa == 30  # the skipped calls return +inf without evaluating
    assert np.isinf(res.history[8:30, -1]).all()
    never = StallStop(cost, n_csa=30, patience=None)
    csa_simplex(never, np.zeros((5, 1)), [-5.0], [5.0], n_csa=30, n_simplex=20)
    assert never.n_evals == never.calls and not never.stopped


def test_improvements_below_the_tolerance_do_not_count():
    values = iter([1.0, 1.0 - STALL_RTOL / 2, 1.0 - STALL_RTOL * 0.9, 0.5, 0.5, 0.5])
    stall = StallStop(lambda x: next(values), n_csa=100, patience=2)
    out = [stall(np.zeros(1)) for _ in range(6)]
    assert out[:3] == [1.0, 1.0 - STALL_RTOL / 2, 1.0 - STALL_RTOL * 0.9]
    assert stall.stopped and math.isinf(out[3]) and stall.n_evals == 3


def test_the_default_stops_early_and_none_spends_the_budget():
    X, y = _data(300)
    kw = {"n_prototypes": 20, "random_state": 0}
    early = FixedSizeLSSVC(n_iter_no_change=5, **kw).fit(X, y)
    full = FixedSizeLSSVC(n_iter_no_change=None, tune_rows=None, **kw).fit(X, y)
    assert early.problems_[0]["stopped_early"] and early.problems_[0]["n_evals"] < 90
    assert not full.problems_[0]["stopped_early"] and full.problems_[0]["n_evals"] > 90
    assert early.score(X, y) > 0.85


# --------------------------------------------------------------------------------- per-problem gamma and sigma2
def test_one_value_per_binary_problem_refits_a_multiclass_model():
    X, y = _data(450, n_classes=3, seed=5)
    tuned = FixedSizeLSSVC(**FAST).fit(X, y)
    assert np.unique(tuned.sigma2_).size > 1
    again = FixedSizeLSSVC(gamma=tuned.gamma_, sigma2=list(tuned.sigma2_), n_prototypes=20, random_state=0).fit(X, y)
    np.testing.assert_array_equal(again.gamma_, tuned.gamma_)
    np.testing.assert_allclose(again.decision_function(X), tuned.decision_function(X), atol=1e-8)
    with pytest.raises(ValueError, match=r"gamma must be a number or hold one value per binary problem \(3 here\)"):
        FixedSizeLSSVC(gamma=[1.0, 2.0], sigma2=1.0).fit(X, y)
    with pytest.raises(ValueError, match="sigma2 must hold finite values > 0"):
        FixedSizeLSSVC(gamma=1.0, sigma2=[1.0, -2.0, 3.0]).fit(X, y)
    with pytest.raises(ValueError, match="partial_fit takes one number for gamma"):
        FixedSizeLSSVC(gamma=tuned.gamma_, sigma2=1.0).partial_fit(X, y, classes=[0, 1, 2])


def test_kernel_is_the_fitted_kernel():
    X, y = _data(300, n_classes=3, seed=6)
    one = FixedSizeLSSVC(gamma=2.0, sigma2=8.0, n_prototypes=20, random_state=0).fit(X, y)
    assert one.kernel_ == Kernel("rbf", alpha=2.0)
    per = FixedSizeLSSVC(gamma=2.0, sigma2=[2.0, 8.0, 8.0], n_prototypes=20, random_state=0).fit(X, y)
    assert per.kernel_ == [Kernel("rbf", alpha=1.0), Kernel("rbf", alpha=2.0), Kernel("rbf", alpha=2.0)]
    assert FixedSizeLSSVC(kernel="linear", gamma=1.0).fit(X, y).kernel_ == Kernel("linear")
    poly = Kernel("poly", degree=2)
    assert FixedSizeLSSVC(kernel=poly, gamma=1.0, n_prototypes=20).fit(X, y).kernel_ is poly
    stream = FixedSizeLSSVC(gamma=2.0, sigma2=8.0, n_prototypes=20).partial_fit(X, y, classes=[0, 1, 2])
    assert stream.kernel_ == Kernel("rbf", alpha=2.0)


# ------------------------------------------------------------------------------------------ entropy bandwidths
def test_binned_estimates_by_autocorrelation_equal_the_grid_convolution():
    from scipy.signal import fftconvolve

    x = np.concatenate([np.random.default_rng(0).standard_normal(3000), np.zeros(900), np.full(100, 25.0)])
    binned = bw._Binned(x, 0.05)
    for g, r in ((0.05, 4), (0.2, 6), (1.0, 4)):
        lags = min(binned.counts.size - 1, math.ceil(12.0 * g / binned.delta))
        u = np.arange(-lags, lags + 1) * binned.delta / g
        c = binned.counts
        ref = float(c @ fftconvolve(c, bw.kappa_derivative(u, r), mode="same")) / (x.size**2 * g ** (r + 1))
        assert binned.psi(g, r) == pytest.approx(ref, rel=1e-9)
        kd = 5.0 * bw.kappa_derivative(u, 4) + u * bw.kappa_derivative(u, 5)
        dref = -float(c @ fftconvolve(c, kd, mode="same")) / (x.size**2 * g**6)
        assert binned.psi(g, 4, True)[1] == pytest.approx(dref, rel=1e-9)


def test_tied_columns_sum_over_their_distinct_values():
    x = np.sort(np.round(np.random.default_rng(1).standard_normal(1500) * 2) / 2)
    values, counts = np.unique(x, return_counts=True)
    tied = bw._Tied(values, counts)
    for g, r in ((0.3, 4), (0.8, 6)):
        assert tied.psi(g, r) == pytest.approx(bw.psi_exact(x, g, r), rel=1e-12)
    np.testing.assert_allclose(tied.psi(0.3, 4, True), bw.psi_exact(x, 0.3, 4, True), rtol=1e-12)
    h_tied = bw.plugin_bandwidth(x)
    assert values.size <= bw.TIED_SHARE * x.size
    assert h_tied == pytest.approx(bw.plugin_bandwidth(x + 1e-9 * np.arange(x.size), exact_max_n=2000), rel=1e-5)
