"""Line searches of paper 000, (10)/(27): C++ core vs numpy references of the paper's grid search (Pseudocode 1) and of
the exact O(m log m) search over the breakpoints; the exact search is never worse than the grid, and the
decision-consistent mode counts what ``predict`` counts."""

from __future__ import annotations

import numpy as np
import pytest

from svmopt import _core

PAPER, DECISION = _core.robust.Objective.paper, _core.robust.Objective.decision


# ---------------------------------------------------------------------------------------- numpy references
def ref_count(s, y, b, objective=PAPER):
    b = np.asarray(b, dtype=np.float64)[..., None]
    a_err = (s < b) if objective == PAPER else (s <= b)
    return np.sum(np.where(y > 0, a_err, s > b), axis=-1)


def ref_grid(s, y, lo, hi, n, b0, objective=PAPER):
    """MATLAB semantics: linspace(lo, hi, n), initial best = m at b0, first strict improvement."""
    grid = np.linspace(lo, hi, n)
    counts = ref_count(s, y, grid, objective)
    best_b, best = b0, len(s)
    k = int(np.argmin(counts))
    if counts[k] < best:
        return grid[k], int(counts[k]), int(counts[k])
    return best_b, int(ref_count(s, y, b0, objective)), int(counts.min())


def ref_exact_paper(s, y, lo, hi):
    L, R = min(lo, hi), max(lo, hi)
    cand = np.concatenate([[v for v in (L, R) if np.isfinite(v)], s[(s >= L) & (s <= R)]])
    counts = ref_count(s, y, cand)
    return int(counts.min()) if cand.size else None


def random_instance(rng, m, ties=True):
    if ties:
        s = rng.integers(-5, 6, m).astype(np.float64) * 0.5
    else:
        s = rng.normal(size=m)
    y = np.where(rng.random(m) < 0.4, 1.0, -1.0)
    y[0], y[1] = 1.0, -1.0
    lo, hi = rng.normal(scale=2.0, size=2)
    return s, y, float(lo), float(hi)


# ---------------------------------------------------------------------------------------- tests
def test_count_matches_reference():
    rng = np.random.default_rng(0)
    for _ in range(50):
        s, y, lo, _ = random_instance(rng, 40)
        for obj in (PAPER, DECISION):
            assert _core.robust.line_search_count(s, y, lo, obj) == ref_count(s, y, lo, obj)
        b = float(s[3])  # a tie: an A point at s = b counts correct in (10), wrong in the decision rule
        assert _core.robust.line_search_count(s, y, b, PAPER) == ref_count(s, y, b, PAPER)
        assert _core.robust.line_search_count(s, y, b, DECISION) == ref_count(s, y, b, DECISION)


@pytest.mark.parametrize("reverse", [False, True])
def test_grid_matlab_semantics(reverse):
    """Grid search: N points including both ends, order lo -> hi (also reversed), first strict improvement."""
    rng = np.random.default_rng(1)
    for _ in range(30):
        s, y, lo, hi = random_instance(rng, 60)
        if reverse and lo < hi:
            lo, hi = hi, lo
        b0 = 0.5 * (lo + hi)
        b, cnt = _core.robust.line_search_grid(s, y, lo, hi, 1000, b0)
        rb, rc, _ = ref_grid(s, y, lo, hi, 1000, b0)
        assert b == rb and cnt == rc
        assert _core.robust.line_search_grid_naive(s, y, lo, hi, 1000, b0) == (b, cnt)


@pytest.mark.parametrize("objective", [PAPER, DECISION], ids=["paper", "decision"])
def test_sorted_grid_equals_naive_scan_with_ties(objective):
    """The sorted-sweep grid gives the naive scan's (b, count) exactly, also with scores on grid points,
    repeated scores, one class only and reversed intervals."""
    rng = np.random.default_rng(7)
    for trial in range(200):
        m = int(rng.integers(1, 40))
        s = rng.integers(-5, 6, m).astype(float) / 4.0  # many ties, many exactly on the grid
        y = np.where(rng.random(m) < 0.5, 1.0, -1.0)
        if trial % 17 == 0:
            y[:] = 1.0 if trial % 2 else -1.0
        lo, hi = sorted(rng.choice([-2.0, -1.25, 0.0, 0.5, 1.5], 2, replace=False))
        if trial % 3 == 0:
            lo, hi = hi, lo
        n = int(rng.integers(2, 50))
        got = _core.robust.line_search_grid(s, y, lo, hi, n, 0.25, objective)
        assert got == _core.robust.line_search_grid_naive(s, y, lo, hi, n, 0.25, objective)
        rb, rc, _ = ref_grid(s, y, lo, hi, n, 0.25, objective)
        assert got == (rb, rc)


def test_grid_first_hit_and_initial_b():
    s = np.array([0.0, 1.0, 2.0, 3.0])
    y = np.array([-1.0, -1.0, 1.0, 1.0])
    # every b in [1, 2] gives 0 errors; going up from -1, the first grid point >= 1 wins
    b, cnt = _core.robust.line_search_grid(s, y, -1.0, 4.0, 6, 99.0)
    assert cnt == 0 and b == 1.0
    b, cnt = _core.robust.line_search_grid(s, y, 4.0, -1.0, 6, 99.0)  # downwards: first point <= 2
    assert cnt == 0 and b == 2.0
    # no grid point beats m errors -> b stays at the initial value
    # (A points far below, B points far above: every b in [-1, 1] misclassifies all four)
    y_all_wrong = np.array([1.0, 1.0, -1.0, -1.0])
    s2 = np.array([-10.0, -10.0, 10.0, 10.0])
    b, cnt = _core.robust.line_search_grid(s2, y_all_wrong, -1.0, 1.0, 5, 7.0)
    assert b == 7.0 and cnt == _core.robust.line_search_count(s2, y_all_wrong, 7.0, PAPER)
    assert _core.robust.line_search_exact(s2, y_all_wrong, -1.0, 1.0, 7.0)[0] == 7.0


def test_exact_never_worse_than_grid_and_equals_bruteforce():
    """Exact <= grid on random instances with ties and reversed intervals; exact = brute force."""
    rng = np.random.default_rng(2)
    for trial in range(200):
        s, y, lo, hi = random_instance(rng, int(rng.integers(5, 80)), ties=trial % 2 == 0)
        b0 = float(rng.normal())
        b_ex, c_ex = _core.robust.line_search_exact(s, y, lo, hi, b0)
        b_gr, c_gr = _core.robust.line_search_grid(s, y, lo, hi, 500, b0)
        _, _, grid_min = ref_grid(s, y, lo, hi, 500, b0)
        brute = ref_exact_paper(s, y, lo, hi)
        m = len(s)
        if brute < m:
            assert c_ex == brute
            assert min(lo, hi) <= b_ex <= max(lo, hi)
            assert c_ex <= grid_min
            if c_gr < m:
                assert c_ex <= c_gr
        assert c_ex == ref_count(s, y, b_ex)  # (d) the returned b attains the count
        assert c_gr == ref_count(s, y, b_gr)
        # fine grid over the segment plus all breakpoints never beats the exact minimum
        fine = np.concatenate([np.linspace(min(lo, hi), max(lo, hi), 2001), s[(s >= min(lo, hi)) & (s <= max(lo, hi))]])
        assert ref_count(s, y, fine).min() >= min(c_ex, m)


def test_exact_decision_objective():
    """Exact <= grid for the decision objective and the placement of b inside the best piece."""
    rng = np.random.default_rng(3)
    for _ in range(200):
        s, y, lo, hi = random_instance(rng, int(rng.integers(5, 60)))
        b0 = float(rng.normal())
        b, c = _core.robust.line_search_exact(s, y, lo, hi, b0, DECISION)
        assert c == ref_count(s, y, b, DECISION)
        if c < len(s):
            assert min(lo, hi) <= b <= max(lo, hi)
            fine = np.linspace(min(lo, hi), max(lo, hi), 1001)
            pts = np.concatenate([fine, s[(s >= min(lo, hi)) & (s <= max(lo, hi))]])
            assert c <= ref_count(s, y, pts, DECISION).min()
            _, c_grid = _core.robust.line_search_grid(s, y, lo, hi, 300, b0, DECISION)
            grid_min = ref_count(s, y, np.linspace(lo, hi, 300), DECISION).min()
            assert c <= grid_min
            del c_grid


def test_unbounded_is_never_worse():
    """The unbounded search is <= any interval on the same scores."""
    rng = np.random.default_rng(4)
    for _ in range(100):
        s, y, lo, hi = random_instance(rng, 50)
        _, cu = _core.robust.line_search_exact(s, y, -np.inf, np.inf, 0.0)
        _, ci = _core.robust.line_search_exact(s, y, lo, hi, 0.0)
        assert cu <= ci
        assert cu == ref_count(s, y, s).min() or cu == min(ref_count(s, y, s).min(), len(s))
        bd, cd = _core.robust.line_search_exact(s, y, -np.inf, np.inf, 0.0, DECISION)
        assert np.isfinite(bd) and cd == ref_count(s, y, bd, DECISION)


def test_exact_tie_rule_nearest_to_lo():
    s = np.array([0.0, 1.0, 2.0, 3.0])
    y = np.array([-1.0, -1.0, 1.0, 1.0])
    # paper objective: minimisers {1} u (1, 2) u {2}; the open piece is preferred (no training tie), midpoint
    assert _core.robust.line_search_exact(s, y, -1.0, 4.0, 0.0) == (1.5, 0)
    assert _core.robust.line_search_exact(s, y, 4.0, -1.0, 0.0) == (1.5, 0)
    # only a breakpoint attains the minimum: b sits on it (A tie counted correct by (10))
    s3 = np.array([0.0, 1.0, 1.0, 2.0])
    y3 = np.array([-1.0, -1.0, 1.0, 1.0])
    assert _core.robust.line_search_exact(s3, y3, -1.0, 3.0, 0.0) == (1.0, 0)
    # among equal open pieces the one nearest to lo
    s4 = np.array([0.0, 1.0, 2.0, 3.0])
    y4 = np.array([-1.0, 1.0, -1.0, 1.0])
    assert _core.robust.line_search_exact(s4, y4, -1.0, 4.0, 0.0) == (0.5, 1)
    assert _core.robust.line_search_exact(s4, y4, 4.0, -1.0, 0.0) == (2.5, 1)
    b, c = _core.robust.line_search_exact(s, y, -1.0, 4.0, 0.0, DECISION)
    assert c == 0 and b == 1.5  # midpoint of the piece [1, 2)


def test_grid_rejects_bad_input():
    s = np.zeros(3)
    y = np.array([1.0, -1.0, 1.0])
    with pytest.raises(ValueError):
        _core.robust.line_search_grid(s, y, 0.0, 1.0, 1, 0.0)
    with pytest.raises(ValueError):
        _core.robust.line_search_grid(s, y, -np.inf, 1.0, 10, 0.0)
    with pytest.raises(ValueError):
        _core.robust.line_search_exact(s, y[:2], 0.0, 1.0, 0.0)
    with pytest.raises(TypeError):  # the objective is the enum, not its name
        _core.robust.line_search_exact(s, y, 0.0, 1.0, 0.0, "paper")
