"""Splits of paper 000's protocol (Section 6): the repeated stratified holdout with an exact size rule.

The size rule (our decision, inferred from the paper's majority-class error rates, which it reproduces exactly):

* ``n_test = floor(test_size * n)``; per class ``n_test_c = floor(test_size * n_c)``;
* the ``R = n_test - sum_c n_test_c`` leftover test slots go to ``R`` distinct classes drawn at random with
  probability proportional to the fractional parts ``test_size * n_c - n_test_c`` (a fair coin for two
  classes with equal fractional parts);
* points inside each class are drawn uniformly without replacement.

Seeds (decision: common random numbers, where the paper draws unseeded, independent partitions): split ``rep`` of a
(dataset, holdout) pair is seeded from (dataset, holdout, rep) only (:func:`split_seed`), so every kernel,
transformation, p and rho sees the same 96 partitions.
"""

from __future__ import annotations

import zlib
from typing import Any

import numpy as np


def holdout_test_counts(class_counts: Any, test_size: float, rng: np.random.Generator | None = None) -> np.ndarray:
    """Per-class test counts by the floor-plus-random-leftover rule (deterministic when no leftover)."""
    n_c = np.asarray(class_counts, dtype=np.int64)
    if not 0.0 < test_size < 1.0:
        raise ValueError(f"test_size must be in (0, 1), got {test_size!r}")
    n = int(n_c.sum())
    n_test = int(np.floor(test_size * n))
    exact = test_size * n_c
    base = np.floor(exact).astype(np.int64)
    leftover = n_test - int(base.sum())
    if leftover > 0:
        frac = exact - base
        if rng is None:
            raise ValueError("a random generator is needed to place the leftover test slots")
        prob = frac / frac.sum()
        chosen = rng.choice(n_c.size, size=leftover, replace=False, p=prob)
        base[chosen] += 1
    return base


def stratified_holdout_indices(y: Any, test_size: float, random_state: Any = None) -> tuple[np.ndarray, np.ndarray]:
    """``(train_idx, test_idx)`` of one stratified holdout by the size rule of the module docstring.

    Classes are taken in sorted order; both index arrays are sorted.
    """
    y = np.asarray(y)
    rng = np.random.default_rng(random_state)
    classes, y_idx = np.unique(y, return_inverse=True)
    counts = np.bincount(y_idx, minlength=classes.size)
    n_test_c = holdout_test_counts(counts, test_size, rng)
    test = []
    for c in range(classes.size):
        members = np.flatnonzero(y_idx == c)
        test.append(rng.choice(members, size=int(n_test_c[c]), replace=False))
    test_idx = np.sort(np.concatenate(test)) if test else np.zeros(0, dtype=np.int64)
    mask = np.ones(y.shape[0], dtype=bool)
    mask[test_idx] = False
    return np.flatnonzero(mask), test_idx


def split_seed(dataset: str, holdout: int, rep: int) -> np.random.SeedSequence:
    """Seed of split ``rep`` of ``dataset`` at training percentage ``holdout`` (common random numbers)."""
    return np.random.SeedSequence([zlib.crc32(dataset.encode()), int(holdout), int(rep)])


def majority_class_error(y_train: Any, y_test: Any) -> float:
    """Test error of the constant predictor of the training majority class (the "collapsed" classifier)."""
    y_train = np.asarray(y_train)
    y_test = np.asarray(y_test)
    labels, counts = np.unique(y_train, return_counts=True)
    majority = labels[np.argmax(counts)]
    return float(np.mean(y_test != majority))
