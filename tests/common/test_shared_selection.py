"""The shared held-out selection: fold/candidate scoring under a deadline, the two completeness rules, the tie order."""

from __future__ import annotations

import time

import numpy as np

from svmopt._shared.selection import first_lowest, fold_errors, fold_totals


class _Bar:
    def __init__(self) -> None:
        self.n = 0

    def update(self, n: int = 1) -> None:
        self.n += n


def test_fold_errors_scores_folds_outer_and_counts_the_bar():
    calls: list[tuple[int, int]] = []
    bar = _Bar()
    errors, stopped = fold_errors(2, 3, lambda f, c: calls.append((f, c)) or float(10 * f + c), None, bar)
    assert calls == [(0, 0), (0, 1), (0, 2), (1, 0), (1, 1), (1, 2)] and bar.n == 6 and not stopped
    np.testing.assert_array_equal(errors, [[0, 1, 2], [10, 11, 12]])


def test_no_score_starts_after_the_deadline():
    bar = _Bar()
    errors, stopped = fold_errors(3, 2, lambda f, c: 1.0, time.perf_counter() - 1.0, bar)
    assert stopped and bar.n == 0 and np.isnan(errors).all()

    def score(f: int, c: int) -> float:
        if (f, c) == (1, 0):
            time.sleep(0.3)  # the deadline passes during this score: the next one does not start
        return 1.0

    errors, stopped = fold_errors(3, 2, score, time.perf_counter() + 0.2, bar)
    assert stopped and bar.n == 3
    np.testing.assert_array_equal(errors, [[1.0, 1.0], [1.0, np.nan], [np.nan, np.nan]])


def test_completeness_rules():
    errors = np.array([[1.0, 2.0, 0.0], [3.0, np.nan, np.nan]])
    totals, counted = fold_totals(errors, "candidate")
    np.testing.assert_array_equal(totals, [4.0, np.inf, np.inf])
    assert counted.all()
    totals, counted = fold_totals(errors, "fold")
    np.testing.assert_array_equal(totals, [1.0, 2.0, 0.0])
    np.testing.assert_array_equal(counted, [True, False])
    totals, counted = fold_totals(np.full((2, 3), np.nan), "fold")
    np.testing.assert_array_equal(totals, 0.0)
    assert not counted.any()


def test_first_lowest_breaks_ties_by_the_order():
    assert first_lowest(np.array([1.0, 0.0, 0.0, 2.0]), [3, 2, 1, 0]) == 2
    assert first_lowest(np.array([1.0, 0.0, 0.0, 2.0]), [0, 1, 2, 3]) == 1
    assert first_lowest(np.full(3, np.inf), [2, 0, 1]) == 2
