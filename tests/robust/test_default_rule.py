"""RobustSVC's default selection: the paper's rules among the candidates (its width, nu = 1), kept unless another
candidate is better beyond the noise of the folds (svmopt._shared.selection.first_within_noise), constant classifiers
preferred last; given values by the fewest errors as before; the landmark count of n_landmarks="auto"; the shared
candidate-outer scoring loop the selection runs on."""

from __future__ import annotations

import time

import numpy as np
import pytest
from sklearn.model_selection import StratifiedKFold

import svmopt.robust.plan as rs
from svmopt import Kernel, RobustSVC
from svmopt._shared.selection import candidate_fold_errors, first_lowest, first_within_noise
from svmopt.robust.fit import fit_binary
from svmopt.robust.plan import ALPHA_FACTORS, NU_CV_GRID, landmark_count
from svmopt.robust.select import choose


def _data(n=120, d=4, seed=0, flip=0.1):
    rng = np.random.default_rng(seed)
    X = rng.normal(size=(n, d))
    score = X[:, 0] + 0.7 * X[:, 1] ** 2 - 0.7
    y = (score > np.median(score)).astype(int)
    noisy = rng.random(n) < flip
    y[noisy] = 1 - y[noisy]
    return X, y


# ------------------------------------------------------------------------------------------ the candidates
def test_the_auto_widths_start_with_the_papers_rule():
    X, y = _data(90)
    X[:, 1] *= 3.0
    sel = RobustSVC(n_landmarks=None).fit(X, y).selection_
    paper = np.max(np.std(X, axis=0, ddof=1))
    scale = np.sqrt(X.shape[1] * X.var() / 2)
    np.testing.assert_allclose(sel["alpha"], [paper, *(scale * np.array(ALPHA_FACTORS))], rtol=1e-12)
    np.testing.assert_array_equal(sel["nu"], NU_CV_GRID)
    assert sel["errors"].shape == (1 + len(ALPHA_FACTORS), 1, 1, NU_CV_GRID.size)
    assert sel["fold_errors"].shape == (3, *sel["errors"].shape)
    np.testing.assert_allclose(sel["fold_errors"].sum(axis=0), sel["errors"], rtol=1e-12)


def test_a_data_scaled_width_equal_to_the_papers_is_compared_once():
    """Two standardized features: the data-scaled width sqrt(2 var / 2) is the paper's max std (within 1 %)."""
    X, y = _data(90, d=2)
    X = (X - X.mean(axis=0)) / X.std(axis=0, ddof=1)
    sel = RobustSVC(n_landmarks=None).fit(X, y).selection_
    assert len(sel["alpha"]) == len(ALPHA_FACTORS)  # the factor 1 left out
    assert sel["alpha"][0] == pytest.approx(1.0)


def test_nu_auto_prefers_the_papers_nu_then_the_nearest_the_larger_first():
    params = rs.resolve_parameters(RobustSVC())
    assert params.nu_noise
    np.testing.assert_array_equal(params.nus[params.nu_order], [1.0, 10.0, 0.1, 100.0, 0.01])
    for est in (RobustSVC(nu=[0.1, 1.0, 10.0]), RobustSVC(nu="grid")):  # given values: the larger first on ties
        params = rs.resolve_parameters(est)
        assert not params.nu_noise
        np.testing.assert_array_equal(params.nu_order, np.arange(params.nus.size)[::-1])


# ------------------------------------------------------------------------------------------ the rule
def _reference_choice(fold_err, constant, nu_order):
    """The default rule written out: per width the nu by the noise rule (constant candidates last), then the width
    by the same rule on the errors at those nu."""
    counted = np.ones(fold_err.shape[0], dtype=bool)
    n_k = fold_err.shape[1]
    picks, per_fold, flat = [], [], []
    for a in range(n_k):
        const = constant[:, a, 0, 0].any(axis=0)
        order = [k for k in nu_order if not const[k]] + [k for k in nu_order if const[k]]
        k = first_within_noise(fold_err[:, a, 0, 0], counted, order)
        picks.append(k)
        per_fold.append(fold_err[:, a, 0, 0, k])
        flat.append(const[k])
    order = [a for a in range(n_k) if not flat[a]] + [a for a in range(n_k) if flat[a]]
    a = first_within_noise(np.column_stack(per_fold), counted, order)
    return a, picks[a]


@pytest.mark.parametrize("seed", [0, 1, 2])
def test_the_default_choice_is_the_noise_rule_over_the_recorded_folds(seed):
    X, y = _data(120, seed=seed)
    clf = RobustSVC(n_landmarks=None).fit(X, y)
    sel = clf.selection_
    counts = sel["fold_errors"] * 120  # whole rows, three folds of 40
    np.testing.assert_allclose(counts, np.round(counts), atol=1e-9)
    params = rs.resolve_parameters(clf)
    fold_err = sel["fold_errors"]
    # the recorded constant flags are not exposed: recompute them from the reference fits
    constant = np.zeros(fold_err.shape, dtype=bool)
    yb = np.where(y == 1, 1.0, -1.0)
    folds = list(StratifiedKFold(3).split(X, y))
    for a, alpha in enumerate(sel["alpha"]):
        K = Kernel("rbf", alpha=alpha).gram(X)
        for f, (tr, va) in enumerate(folds):
            for k, nu in enumerate(NU_CV_GRID):
                fit = fit_binary(K[np.ix_(tr, tr)], yb[tr], nus=[nu])
                side = K[np.ix_(va, tr)] @ (yb[tr] * fit.u) - fit.b > 0
                wrong = np.count_nonzero(side != (yb[va] > 0))
                assert wrong == pytest.approx(counts[f, a, 0, 0, k])
                constant[f, a, 0, 0, k] = not np.any(fit.u != 0) or side.all() == side.any()
    a, k = _reference_choice(fold_err, constant, params.nu_order)
    assert clf.kernel_.alpha == pytest.approx(sel["alpha"][a], rel=1e-12)
    assert clf.nu_[0] == NU_CV_GRID[k]


def test_given_values_keep_the_fewest_errors_rule():
    """Widths and nu given as sequences: the width with the fewest errors at its best nu (first given on ties),
    then its best nu, the larger on ties -- the rule before the defaults took the noise rule."""
    X, y = _data(90, seed=5)
    clf = RobustSVC(alpha=[0.5, 1.5, 4.0], nu=[0.1, 1.0, 10.0], n_landmarks=None).fit(X, y)
    err = clf.selection_["errors"][:, 0, 0]
    a = int(np.argmin(err.min(axis=1)))
    assert clf.kernel_.alpha == pytest.approx([0.5, 1.5, 4.0][a])
    row = err[a]
    assert clf.nu_[0] == [0.1, 1.0, 10.0][np.flatnonzero(row == row.min())[-1]]


def test_choose_without_the_noise_rule_is_the_fewest_errors_rule():
    rng = np.random.default_rng(0)
    for _ in range(50):
        fold_err = rng.integers(0, 4, size=(3, 3, 2, 2, 4)).astype(float)
        ka, kr, nu, sums = choose(fold_err, np.arange(4)[::-1])
        total = sums.min(axis=3).sum(axis=2)
        assert (ka, kr) == divmod(int(np.argmin(total.ravel())), 2)
        for p in range(2):
            row = sums[ka, kr, p]
            assert nu[p] == np.flatnonzero(row == row.min())[-1]


def test_choose_keeps_the_preferred_candidate_within_the_noise_and_no_constant_one():
    # width 0 (preferred) loses by 3, -2, 2 rows on three folds: within the noise of width 1; by 3, 3, 3: beyond
    near = np.array([[6.0, 3.0], [1.0, 3.0], [5.0, 3.0]])[:, :, None, None, None]
    far = np.array([[6.0, 3.0], [6.0, 3.0], [6.0, 3.0]])[:, :, None, None, None]
    assert choose(near, np.arange(1), kernel_noise=True)[0] == 0
    assert choose(near, np.arange(1), kernel_noise=False)[0] == 1
    assert choose(far, np.arange(1), kernel_noise=True)[0] == 1
    constant = np.zeros(near.shape, dtype=bool)
    constant[1, 0] = True  # the preferred width's fold model predicted one class on fold 1
    assert choose(near, np.arange(1), kernel_noise=True, constant=constant)[0] == 1
    # nu alike: the preferred nu (index 1) within the noise, unless it was constant on a fold
    nus = np.array([[3.0, 6.0], [3.0, 1.0], [3.0, 5.0]])[:, None, None, None, :]
    order = np.array([1, 0])
    assert choose(nus, order, nu_noise=True)[2][0] == 1
    assert choose(nus, order, nu_noise=False)[2][0] == 0
    flags = np.zeros(nus.shape, dtype=bool)
    flags[2, ..., 1] = True
    assert choose(nus, order, nu_noise=True, constant=flags)[2][0] == 0
    # a constant candidate is still the choice when it is the lowest beyond the noise
    beyond = np.array([[0.0, 3.0], [0.0, 3.0], [0.0, 3.0]])[:, None, None, None, :]
    flags = np.zeros(beyond.shape, dtype=bool)
    flags[..., 0] = True
    assert choose(beyond, order, nu_noise=True, constant=flags)[2][0] == 0


def test_unscored_candidates_are_never_chosen_over_scored_ones():
    fold_err = np.ones((3, 2, 1, 1, 2))
    fold_err[2, 0] = np.nan  # the preferred width not scored on the last fold (max_time)
    ka, _, nu, sums = choose(fold_err, np.array([1, 0]), kernel_noise=True, nu_noise=True)
    assert ka == 1 and np.isinf(sums[0]).all() and nu[0] == 1


# ------------------------------------------------------------------------------------------ the landmarks
def test_auto_landmarks_one_per_ten_rows_within_the_bounds():
    assert landmark_count("auto", "entropy", rs.AUTO_MAX_ROWS) is None
    assert landmark_count("auto", "entropy", 700) == rs.AUTO_LANDMARKS
    assert landmark_count("auto", "entropy", 2800) == 280
    assert landmark_count("auto", "entropy", 100_000) == rs.AUTO_LANDMARKS_MAX


# ------------------------------------------------------------------------------------------ the shared loop
class _Bar:
    def __init__(self) -> None:
        self.n = 0

    def update(self, n: int = 1) -> None:
        self.n += n


def test_candidate_fold_errors_scores_candidates_outer_with_arrays_and_stops_at_the_deadline():
    calls: list[tuple[int, int]] = []
    bar = _Bar()

    def score(f, c):
        calls.append((f, c))
        out = np.array([10.0 * c + f, np.nan])  # a path cut after its first value
        return out

    errors, stopped = candidate_fold_errors(2, 3, score, None, bar, shape=(2,))
    assert calls == [(0, 0), (1, 0), (0, 1), (1, 1), (0, 2), (1, 2)] and bar.n == 6 and not stopped
    assert errors.shape == (2, 3, 2)
    np.testing.assert_array_equal(errors[:, :, 0], [[0, 10, 20], [1, 11, 21]])
    assert np.isnan(errors[:, :, 1]).all()
    errors, stopped = candidate_fold_errors(2, 3, score, time.perf_counter() - 1.0, bar, shape=(2,))
    assert stopped and np.isnan(errors).all() and bar.n == 6

    def slow(f, c):
        time.sleep(0.3 if (f, c) == (0, 1) else 0.0)
        return np.zeros(())

    errors, stopped = candidate_fold_errors(2, 2, slow, time.perf_counter() + 0.2)
    assert stopped
    np.testing.assert_array_equal(errors, [[0.0, 0.0], [0.0, np.nan]])


def test_first_lowest_is_what_the_rule_falls_back_to_on_one_fold():
    fold_err = np.array([[[[[2.0, 1.0]]], [[[1.0, 1.0]]]]])  # one fold, two widths, two nu
    ka, _, nu, _ = choose(fold_err, np.array([0, 1]), kernel_noise=True, nu_noise=True)
    totals = fold_err[0, :, 0, 0]
    assert ka == 0  # both widths make 1 error at their nu: the first
    assert nu[0] == first_lowest(totals[ka], [0, 1]) == 1


def test_values_given_as_arrays_are_sequences_of_candidates():
    """nu and alpha as NumPy arrays (not lists): compared like lists (the rule's switch once compared an array to
    "auto", which NumPy refuses to make a truth value of)."""
    X, y = _data(60, seed=8)
    clf = RobustSVC(nu=np.array([0.1, 10.0]), alpha=np.array([1.0, 2.0]), n_landmarks=None).fit(X, y)
    assert clf.selection_["errors"].shape == (2, 1, 1, 2)
    params = rs.resolve_parameters(clf)
    assert not params.nu_noise
