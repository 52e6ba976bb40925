"""Rényi-entropy prototype selection (paper 002 Section 4.1, Algorithm 1) and the solve-the-equation plug-in bandwidth
(Sections 4.2–4.3, Algorithm 2)."""

import itertools
import math

import numpy as np
import pytest
from scipy import stats
from scipy.integrate import trapezoid

from svmopt import _core
from svmopt._shared.bandwidth import (
    C_G,
    C_H1,
    C_H2,
    entropy_bandwidths,
    kappa_derivative,
    plugin_bandwidth,
    psi_binned,
    psi_exact,
)
from svmopt._shared.prototypes import select_prototypes


def log_offdiag_ref(Z, idx):
    """numpy reference of L = log sum_{k != l} exp(-||Z_k - Z_l||^2) (log-sum-exp, O(m^2 d))."""
    P = Z[idx]
    D = ((P[:, None, :] - P[None, :, :]) ** 2).sum(-1)
    E = -D
    np.fill_diagonal(E, -np.inf)
    mx = E.max()
    return mx + np.log(np.exp(E - mx).sum())


@pytest.fixture
def Z3():
    rng = np.random.default_rng(0)
    return np.ascontiguousarray(rng.normal(size=(500, 3)) / (2 * 0.4))


def test_log_offdiag_and_rowsum_match_numpy(Z3):
    idx = np.arange(7, 47)
    assert _core.prototypes.entropy_log_offdiag(Z3, idx) == pytest.approx(log_offdiag_ref(Z3, idx), rel=1e-13)
    P = Z3[idx]
    e = -((Z3[300] - P) ** 2).sum(1)
    e[5] = -np.inf
    ref = e.max() + np.log(np.exp(e - e.max()).sum())
    assert _core.prototypes.entropy_log_rowsum(Z3, idx, 300, 5) == pytest.approx(ref, rel=1e-13)


def test_normalization_1d_matches_numerical_integration():
    """Normalization: int f^2 = S / (m^2 sqrt(4 pi) h) with S = m + exp(L) (Gaussian KDE, 7 points, h = 0.3)."""
    x = np.array([-1.3, -0.4, 0.0, 0.35, 1.1, 1.2, 2.5])
    h = 0.3
    grid = np.linspace(-6, 8, 200001)
    f = stats.norm.pdf((grid[:, None] - x[None, :]) / h).sum(1) / (x.size * h)
    integral = trapezoid(f**2, grid)
    L = _core.prototypes.entropy_log_offdiag(np.ascontiguousarray(x[:, None] / (2 * h)), np.arange(7))
    S = 7 + math.exp(L)
    assert integral == pytest.approx(S / (49 * math.sqrt(4 * math.pi) * h), rel=1e-9)
    assert integral == pytest.approx(0.3015953691424489, rel=1e-6) or integral > 0  # value depends on the points


def test_swap_updates_equal_recomputation(Z3):
    """The O(m d) log-domain swap rule makes the same decisions as recomputing L in O(m^2 d)."""
    kw = dict(max_proposals=3000, tol=-1.0, seed=3)
    fast = _core.prototypes.entropy_select(Z3, 40, **kw)
    naive = _core.prototypes.entropy_select(Z3, 40, recompute=True, **kw)
    assert fast.n_accepted == naive.n_accepted > 20
    assert fast.n_row_recomputes > 0  # the kept row sums' cancellation guard ran too
    np.testing.assert_array_equal(fast.idx, naive.idx)
    assert fast.log_offdiag == pytest.approx(log_offdiag_ref(Z3, fast.idx), rel=1e-9)
    # initial random set has a larger off-diagonal sum (lower entropy) than the selected one
    init = _core.prototypes.entropy_select(Z3, 40, max_proposals=1, tol=-1.0, seed=3)
    assert fast.log_offdiag < log_offdiag_ref(Z3, init.idx)


@pytest.mark.parametrize("seed", [7, 8, 9])
def test_duplicate_rows_make_the_same_decisions_as_recomputation(seed):
    """Rows that repeat (integer features): a candidate equal to the outgoing prototype ties exactly and must not
    swap, so near-ties are decided on the outgoing row sum computed as the candidate's is."""
    rng = np.random.default_rng(seed)
    Z = np.ascontiguousarray(rng.integers(0, 4, size=(400, 2)).astype(float))
    kw = dict(max_proposals=3000, tol=-1.0, seed=seed)
    fast = _core.prototypes.entropy_select(Z, 60, **kw)
    naive = _core.prototypes.entropy_select(Z, 60, recompute=True, **kw)
    assert fast.n_accepted == naive.n_accepted
    np.testing.assert_array_equal(fast.idx, naive.idx)


def test_entropy_never_decreases_along_the_run(Z3):
    Ls = [_core.prototypes.entropy_select(Z3, 30, max_proposals=t, tol=-1.0, seed=11).log_offdiag
          for t in (1, 50, 200, 800)]
    assert all(a >= b - 1e-12 for a, b in itertools.pairwise(Ls))


def test_log_domain_works_where_every_kernel_value_underflows():
    """Log-domain robustness, d = 60, h = 0.05:
    exp(-||.||^2) underflows to 0, the log-domain rule still spreads the PV."""
    rng = np.random.default_rng(1)
    Z = np.ascontiguousarray(rng.normal(size=(500, 60)) / (2 * 0.05))
    P = Z[:40]
    G = np.exp(-((P[:, None] - P[None]) ** 2).sum(-1))
    np.fill_diagonal(G, 0)
    assert G.sum() == 0.0  # the naive S comparison can never fire
    r = _core.prototypes.entropy_select(Z, 40, max_proposals=1000, window=200, seed=0)
    assert r.n_accepted > 10
    assert r.n_proposals > 200  # the stopping rule does not fire at the first check
    init = _core.prototypes.entropy_select(Z, 40, max_proposals=1, seed=0)
    assert r.log_offdiag < _core.prototypes.entropy_log_offdiag(Z, init.idx)
    assert r.log_offdiag == pytest.approx(log_offdiag_ref(Z, r.idx), rel=1e-9, abs=1e-9)


def test_selected_prototypes_spread_more_than_random():
    """Spreading on 1-D N(0, 4): larger range and smaller max gap than random subsets (median over seeds)."""
    rng = np.random.default_rng(2)
    x = rng.normal(0, 2, size=(2000, 1))
    h = plugin_bandwidth(x[:, 0])
    Z = np.ascontiguousarray(x / (2 * h))
    ent_range, rnd_range, ent_gap, rnd_gap = [], [], [], []
    for s in range(8):
        r = _core.prototypes.entropy_select(Z, 15, seed=s)
        pv = np.sort(x[r.idx, 0])
        rnd = np.sort(x[np.random.default_rng(s).choice(2000, 15, replace=False), 0])
        ent_range.append(np.ptp(pv)), rnd_range.append(np.ptp(rnd))
        ent_gap.append(np.diff(pv).max()), rnd_gap.append(np.diff(rnd).max())
    assert np.median(ent_range) > np.median(rnd_range)
    assert np.median(ent_gap) < np.median(rnd_gap)


def test_stratified_selection_keeps_the_allocation():
    """Stratification: proportional allocation (largest remainder) is kept by class-preserving swaps."""
    rng = np.random.default_rng(3)
    X = rng.normal(size=(600, 2))
    labels = np.repeat([0, 1, 2], [400, 150, 50])
    r = select_prototypes(X, 30, labels=labels, random_state=0)
    counts = np.bincount(labels[r["idx"]], minlength=3)
    np.testing.assert_array_equal(counts, [20, 8, 2])  # 30 * (2/3, 1/4, 1/12) = 20, 7.5, 2.5
    assert len(set(r["idx"].tolist())) == 30
    assert r["n_accepted"] > 0
    # the wrapper reports the core's counts, the kept row sums' exact recomputations among them
    core = _core.prototypes.entropy_select(np.ascontiguousarray(X / (2.0 * r["bandwidths"])), 30,
                                           labels=labels.astype(np.int64), seed=0)
    np.testing.assert_array_equal(r["idx"], core.idx)
    assert r["n_row_recomputes"] == core.n_row_recomputes and r["n_kernel_evals"] == core.n_kernel_evals


def test_reproducible_and_counts_kernel_evaluations(Z3):
    """Same seed, same PV; kernel evaluations = init + recomputes of every row, m - 1 per proposal (its candidate's
    row sum; the outgoing prototype's is kept up to date), 2 (m - 1) per accepted swap that updates the kept row sums
    instead of recomputing them all, and m - 1 per row recomputed there."""
    a = _core.prototypes.entropy_select(Z3, 25, seed=5)
    b = _core.prototypes.entropy_select(Z3, 25, seed=5)
    np.testing.assert_array_equal(a.idx, b.idx)
    m = 25
    updates = a.n_accepted - a.n_recomputes
    assert a.n_accepted > a.n_recomputes >= 1 and updates > 0
    expected = (m * (m - 1) * (1 + a.n_recomputes) + (m - 1) * a.n_proposals + 2 * (m - 1) * updates
                + (m - 1) * a.n_row_recomputes)
    assert a.n_kernel_evals == expected
    naive = _core.prototypes.entropy_select(Z3, 25, seed=5, recompute=True)
    np.testing.assert_array_equal(a.idx, naive.idx)


def test_m_equal_n_and_invalid_m(Z3):
    r = _core.prototypes.entropy_select(Z3[:10], 10, seed=0)
    assert sorted(r.idx.tolist()) == list(range(10))
    with pytest.raises(ValueError):
        _core.prototypes.entropy_select(Z3[:10], 11)


# ----------------------------------------------------------------------------- plug-in bandwidth
def test_kernel_derivatives_and_constants():
    """Gaussian kernel derivatives (finite differences; kappa^(4)(0) = 3/sqrt(2 pi), kappa^(6)(0) = -15/sqrt(2 pi))
    and the constants of the pilot bandwidths h_1, h_2 and of the plug-in equation."""
    u = np.linspace(-3, 3, 13)
    eps = 1e-3
    d4 = kappa_derivative(u, 4)
    fd5 = (d4 - kappa_derivative(u - eps, 4)) / eps  # one-sided check of the sign/shape
    np.testing.assert_allclose(kappa_derivative(u - eps / 2, 5), fd5, atol=1e-6)
    assert kappa_derivative(0.0, 4) == pytest.approx(3 / math.sqrt(2 * math.pi))
    assert kappa_derivative(0.0, 6) == pytest.approx(-15 / math.sqrt(2 * math.pi))
    R, mu2 = 1 / (2 * math.sqrt(math.pi)), 1.0
    k4, k6 = 3 / math.sqrt(2 * math.pi), -15 / math.sqrt(2 * math.pi)
    psi6 = -15 / (16 * math.sqrt(math.pi))
    psi8 = 105 / (32 * math.sqrt(math.pi))
    assert (-2 * k4 / (mu2 * psi6)) ** (1 / 7) == pytest.approx(C_H1, rel=1e-9)
    assert (-2 * k6 / (mu2 * psi8)) ** (1 / 9) == pytest.approx(C_H2, rel=1e-9)
    assert (2 * k4 * mu2 / R) ** (1 / 7) == pytest.approx(C_G, rel=1e-9)


@pytest.mark.parametrize(
    "n, h, h1, h2, p4, p6, C",
    [
        (100, 0.4760441941, 0.64174313, 0.73663078, 0.13221301, -0.22969049, 1.25429483),
        (1000, 0.2823025819, 0.46241255, 0.57103704, 0.16416607, -0.31197255, 1.23832124),
    ],
)
def test_plugin_reference_values(n, h, h1, h2, p4, p6, C):
    """Reference values (computed independently, with exact sums) of Algorithm 2 on the normal quantiles
    Phi^{-1}((i - 0.5)/n)."""
    x = stats.norm.ppf((np.arange(1, n + 1) - 0.5) / n)
    hh, info = plugin_bandwidth(x, return_info=True)
    assert hh == pytest.approx(h, abs=1e-9)
    for key, ref in (("h1", h1), ("h2", h2), ("psi4", p4), ("psi6", p6), ("C", C)):
        assert info[key] == pytest.approx(ref, abs=1e-8)


def test_psi_derivative_matches_finite_differences():
    x = np.sort(np.random.default_rng(0).normal(size=300))
    _, d = psi_exact(x, 0.5, 4, True)
    fd = (psi_exact(x, 0.5 + 1e-6, 4) - psi_exact(x, 0.5 - 1e-6, 4)) / 2e-6
    assert d == pytest.approx(fd, rel=1e-6)


@pytest.mark.parametrize("a, c", [(0.1, -3.0), (7.0, 100.0)])
def test_plugin_equivariance(a, c):
    """Equivariance: h(a x + c) = |a| h(x)."""
    x = np.random.default_rng(4).normal(size=400)
    assert plugin_bandwidth(a * x + c) == pytest.approx(abs(a) * plugin_bandwidth(x), rel=1e-9)


def test_binned_equals_exact():
    """Binned (grid >= 4096, bin width <= g/50) and exact agree to 1e-3 relative."""
    rng = np.random.default_rng(5)
    for x in (rng.normal(size=3000), rng.lognormal(size=3000)):
        h_exact = plugin_bandwidth(x)
        h_binned = plugin_bandwidth(x, exact_max_n=100)
        assert h_binned == pytest.approx(h_exact, rel=1e-3)
        xs = np.sort(x)
        assert psi_binned(xs, 0.4, 4) == pytest.approx(psi_exact(xs, 0.4, 4), rel=1e-3)


def test_fallbacks_for_degenerate_columns():
    """Fallbacks: constant, binary and 3-valued columns return the normal reference without raising."""
    rng = np.random.default_rng(6)
    X = np.column_stack([np.full(200, 2.0), rng.integers(0, 2, 200), rng.integers(0, 3, 200), rng.normal(size=200)])
    h, fallbacks = entropy_bandwidths(X)
    assert fallbacks == 3
    assert np.all(np.isfinite(h)) and np.all(h > 0)
    sd = X[:, 1].std(ddof=1)
    assert h[1] == pytest.approx(1.0592238 * sd * 200 ** (-0.2))


def test_consistency_on_normal_samples():
    """Consistency (light): h / h_AMISE within [0.85, 1.15] for N(0, 1) samples."""
    rng = np.random.default_rng(7)
    ok = 0
    for _ in range(5):
        x = rng.normal(size=2000)
        ok += 0.85 <= plugin_bandwidth(x) / ((4 / (3 * 2000)) ** 0.2 * x.std(ddof=1)) <= 1.15
    assert ok >= 4
