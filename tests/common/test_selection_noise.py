"""The one-standard-error rule of svmopt._shared.selection.first_within_noise: a preferred candidate is kept unless
another is better by more than the paired noise of the folds."""

from __future__ import annotations

import numpy as np
from hypothesis import given, settings
from hypothesis import strategies as st
from hypothesis.extra.numpy import arrays

from svmopt._shared.selection import first_lowest, first_within_noise


def test_a_candidate_better_on_every_fold_by_the_same_margin_wins():
    errors = np.array([[0.2, 0.1], [0.3, 0.2], [0.25, 0.15]])
    assert first_within_noise(errors, np.ones(3, bool), [0, 1]) == 1


def test_noise_keeps_the_preferred_candidate():
    errors = np.array([[0.2, 0.1], [0.1, 0.2], [0.2, 0.15]])  # 1 better on average, not beyond the noise
    assert first_lowest(errors.sum(axis=0), [0, 1]) == 1
    assert first_within_noise(errors, np.ones(3, bool), [0, 1]) == 0


def test_one_fold_is_first_lowest_and_unscored_candidates_are_not_preferred():
    errors = np.array([[0.3, 0.1]])
    assert first_within_noise(errors, np.ones(1, bool), [0, 1]) == 1
    errors = np.array([[np.nan, 0.2], [np.nan, 0.1]])
    assert first_within_noise(errors, np.ones(2, bool), [0, 1]) == 1


@settings(max_examples=200, deadline=None, database=None)
@given(errors=arrays(np.float64, st.tuples(st.integers(1, 6), st.integers(1, 5)), elements=st.floats(0, 1)),
       seed=st.integers(0, 1000))
def test_the_choice_is_the_best_or_within_one_standard_error_of_it(errors, seed):
    order = np.random.default_rng(seed).permutation(errors.shape[1])
    counted = np.ones(errors.shape[0], bool)
    c = first_within_noise(errors, counted, order)
    best = first_lowest(errors.sum(axis=0), order)
    if c != best:
        diff = errors[:, c] - errors[:, best]
        assert diff.mean() <= diff.std(ddof=1) / np.sqrt(errors.shape[0]) + 1e-15
        assert list(order).index(c) < list(order).index(best)  # only a more preferred one replaces the best
