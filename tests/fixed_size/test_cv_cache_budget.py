"""The CV engines remember the statistics of their last few sigma^2 (a revisited sigma^2 costs no pass), and each
entry holds its rows' features when they fit ``feature_budget`` (in memory, in the core, or persisted on Dask
workers). Together the remembered features stay within that budget: each entry may take all of it, so older ones
are dropped first."""

import numpy as np
import pytest

from svmopt import _core
from svmopt._shared.splits import random_folds
from svmopt.fixed_size.cv_engine import CoreCVEngine, CVEngine

SIGMA2S = [0.5, 1.0, 2.0, 4.0, 8.0, 16.0]


def rbf(sigma2):
    return _core.kernels.KernelParams(_core.kernels.KernelKind.rbf, alpha=np.sqrt(sigma2 / 2))


@pytest.fixture(scope="module")
def data():
    rng = np.random.default_rng(8)
    n, d, m = 400, 3, 20
    X = rng.normal(size=(n, d))
    y = np.where(X[:, 0] * X[:, 1] + 0.3 * rng.normal(size=n) >= 0, 1.0, -1.0)
    PV = np.ascontiguousarray(X[rng.choice(n, m, replace=False)])
    return X, y, PV


def _blocks(X, y, block=128):
    def blocks():
        for s in range(0, X.shape[0], block):
            yield np.ascontiguousarray(X[s:s + block]), np.ascontiguousarray(y[s:s + block].reshape(-1, 1))

    return blocks


def _held(engine):
    return sum(e.get("kept_bytes", 0) for e in engine._cache.values())


@pytest.mark.parametrize("holdout", [False, True], ids=["kept", "holdout"])
@pytest.mark.parametrize("entries", [1, 2, 3, 6])
def test_cv_engine_remembers_no_more_features_than_the_budget(data, holdout, entries):
    X, y, PV = data
    n, m = X.shape[0], PV.shape[0]
    folds = random_folds(n, 5, np.random.default_rng(1))
    # Phi_e in stream order, or the kept kernel block [K(x, PV), 1, y]; and the targets in stream order
    row = (m + 1 + 1) if holdout else (m + 2 + 1)
    budget = entries * n * row * 8
    e = CVEngine(_blocks(X, y), folds, 5, PV, rbf, "classification", feature_budget=budget, n_features=3,
                 statistics="kernel")
    e.holdout = holdout
    ref = CVEngine(_blocks(X, y), folds, 5, PV, rbf, "classification", n_features=3, statistics="kernel")
    ref.holdout = holdout
    for k, s2 in enumerate(SIGMA2S):
        assert e.cost(3.0, s2) == pytest.approx(ref.cost(3.0, s2), rel=1e-12, abs=1e-15)
        assert _held(e) <= budget
        assert len(e._cache) == min(k + 1, entries, e.cache_size)
        assert all(entry["kept_bytes"] == n * row * 8 for entry in e._cache.values())  # every entry kept
    passes = e.n_passes
    e.cost(0.1, SIGMA2S[-1])  # the newest sigma^2 is always remembered
    assert e.n_passes == passes
    e.cost(0.1, SIGMA2S[-2])  # the one before only where two entries fit
    assert e.n_passes == passes + (entries < 2)


def test_streamed_entries_hold_nothing_and_stay(data):
    """Over the budget nothing is kept: the statistics of cache_size sigma^2 stay, as before."""
    X, y, PV = data
    folds = random_folds(X.shape[0], 5, np.random.default_rng(1))
    e = CVEngine(_blocks(X, y), folds, 5, PV, rbf, "classification", feature_budget=1000, n_features=3)
    for s2 in SIGMA2S:
        e.cost(1.0, s2)
    assert len(e._cache) == e.cache_size and _held(e) == 0


@pytest.mark.parametrize("entries", [1, 4])
def test_core_engine_remembers_no_more_features_than_the_budget(data, entries):
    """The core's CVCost: with room for one sigma^2's kept kernel block, returning to the previous sigma^2 costs a
    pass; with room for four, it does not."""
    X, y, PV = data
    n, m = X.shape[0], PV.shape[0]
    folds = random_folds(n, 5, np.random.default_rng(2))
    budget = entries * n * (m + 2) * 8
    core = CoreCVEngine(np.ascontiguousarray(X), None, None, None, 128, y.reshape(-1, 1), folds, 5, PV, rbf,
                        "classification", tune_rbf=True, n_features=3, feature_budget=budget)
    big = CoreCVEngine(np.ascontiguousarray(X), None, None, None, 128, y.reshape(-1, 1), folds, 5, PV, rbf,
                       "classification", tune_rbf=True, n_features=3)
    costs = [core.cost(2.0, s2) for s2 in (1.0, 4.0, 1.0)]
    assert costs == pytest.approx([big.cost(2.0, s2) for s2 in (1.0, 4.0, 1.0)], rel=1e-12, abs=1e-15)
    assert core.n_passes == (3 if entries == 1 else 2)
    assert big.n_passes == 2


@pytest.mark.parametrize("statistics", ["features", "kernel"])
def test_weighted_engine_remembers_no_more_features_than_the_budget(data, statistics):
    X, y, PV = data
    n = X.shape[0]
    w = np.random.default_rng(3).uniform(0.5, 2.0, n)
    folds = random_folds(n, 4, np.random.default_rng(3))
    budget = int(1.5 * n * (PV.shape[0] + 3) * 8)  # one sigma^2's kept rows (m + 2 doubles at most) and Y
    e = CVEngine(_blocks(X, y), folds, 4, PV, rbf, "classification", weights=w, feature_budget=budget,
                 n_features=3, statistics=statistics)
    ref = CVEngine(_blocks(X, y), folds, 4, PV, rbf, "classification", weights=w, n_features=3,
                   statistics=statistics)
    for s2 in SIGMA2S:
        assert e.cost(1.0, s2) == pytest.approx(ref.cost(1.0, s2), rel=1e-12, abs=1e-15)
        assert 0 < _held(e) <= budget and e._cache[s2]["kept"]
    assert len(e._cache) == 1
    assert _held(ref) > budget and len(ref._cache) == ref.cache_size


def test_dask_engine_persists_no_more_features_than_the_budget(data):
    """DaskCVEngine persists each sigma^2's features on the workers: the remembered ones fit the budget."""
    da = pytest.importorskip("dask.array", reason="dask is an optional dependency (pip install svmopt[dask])")
    from svmopt.fixed_size.dask_engine import DaskCVEngine, DaskSource

    X, y, PV = data
    n = X.shape[0]
    folds = random_folds(n, 4, np.random.default_rng(4))
    budget = int(1.5 * n * (PV.shape[0] + 1) * 8)
    src = DaskSource(da.from_array(X, chunks=(100, 3)))
    e = DaskCVEngine(src, y, None, folds, 4, PV, rbf, "classification", feature_budget=budget, n_features=3)
    ref = CVEngine(_blocks(X, y), folds, 4, PV, rbf, "classification", n_features=3)
    ref.holdout = False
    for s2 in SIGMA2S[:4]:
        assert e.cost(1.0, s2) == pytest.approx(ref.cost(1.0, s2), rel=1e-10, abs=1e-12)
        assert 0 < _held(e) <= budget and e._cache[s2]["Phi"] is not None
    assert len(e._cache) == 1


def test_a_failed_evaluation_keeps_the_remembered_sigma2(data):
    """A sigma^2 whose projection fails (here not finite) raises before anything remembered is dropped."""
    X, y, PV = data
    n, m = X.shape[0], PV.shape[0]
    folds = random_folds(n, 5, np.random.default_rng(1))
    e = CVEngine(_blocks(X, y), folds, 5, PV, rbf, "classification", feature_budget=n * (m + 3) * 8, n_features=3,
                 statistics="kernel")
    e.holdout = False
    e.cost(1.0, 2.0)
    with pytest.raises(ValueError):
        e.cost(1.0, float("inf"))
    passes = e.n_passes
    e.cost(0.5, 2.0)
    assert e.n_passes == passes and list(e._cache) == [2.0]


def test_on_demand_features_are_not_kept(data):
    """Phi_e in stream order, asked of an entry whose accumulator keeps the features, is a copy that the entry does
    not keep (it would double the features held)."""
    X, y, PV = data
    folds = random_folds(X.shape[0], 5, np.random.default_rng(1))
    e = CVEngine(_blocks(X, y), folds, 5, PV, rbf, "classification", n_features=3, statistics="kernel")
    e.holdout = False
    s = e.stats(2.0)
    assert s["kept"] and s["Phi"].shape == (X.shape[0], s["acc"].dim)
    assert "Phi" not in s


def test_weighted_engine_keeps_nothing_over_the_budget(data):
    """The weighted engine keeps its rows (with the targets in stream order) only when both fit."""
    X, y, PV = data
    n, m = X.shape[0], PV.shape[0]
    w = np.random.default_rng(4).uniform(0.5, 2.0, n)
    folds = random_folds(n, 4, np.random.default_rng(3))
    e = CVEngine(_blocks(X, y), folds, 4, PV, rbf, "classification", weights=w, feature_budget=n * (m + 2) * 8,
                 n_features=3)
    s = e.stats(0.05)  # a narrow kernel: K(PV, PV) near the identity, every eigenpair kept, p = m + 1
    assert s["G"].shape[1] == m + 1 and not s["kept"] and s["Phi"] is None and _held(e) == 0


@pytest.mark.parametrize("holdout", [False, True], ids=["kept", "holdout"])
def test_in_memory_predictions_read_the_rows_once(data, holdout):
    """With the features in memory the targets of the held-out predictions come from the statistics' own pass: one
    read of the rows a sigma^2, however many gammas are scored."""
    X, y, PV = data
    reads = []
    inner = _blocks(X, y)

    def blocks():
        reads.append(1)
        return inner()

    folds = random_folds(X.shape[0], 5, np.random.default_rng(1))
    e = CVEngine(blocks, folds, 5, PV, rbf, "classification", n_features=3)
    e.holdout = holdout
    costs = [e.cost(g, 2.0) for g in (0.1, 1.0, 10.0)] + list(e.cost_path([0.5, 5.0], 2.0))
    assert len(reads) == 1 and e.n_passes == 1
    streamed = CVEngine(_blocks(X, y), folds, 5, PV, rbf, "classification", n_features=3, feature_budget=1000)
    ref = [streamed.cost(g, 2.0) for g in (0.1, 1.0, 10.0)] + list(streamed.cost_path([0.5, 5.0], 2.0))
    assert costs == pytest.approx(ref, rel=1e-12, abs=1e-15)
