"""Standardization is scale-invariant down to the smallest normal numbers and up to the largest: the column
deviations are measured in a power-of-two unit, so X * 2^k standardizes to the same matrix as X (exactly), and
the fixed-size LS-SVM predicts the same at every scale (once, features of magnitude 1e-162 had a column std that
underflowed to 0, was replaced by 1, and the model was constant)."""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from svmopt import FixedSizeLSSVC, FixedSizeLSSVR
from svmopt._shared.moments import block_moments, column_stds


@settings(max_examples=60, deadline=None)
@given(k=st.integers(-1000, 1010),  # every entry stays normal and every sum finite
        seed=st.integers(0, 2**16), weighted=st.booleans())
def test_column_stds_scale_by_powers_of_two_exactly(k, seed, weighted):
    rng = np.random.default_rng(seed)
    X = rng.normal(size=(30, 3))
    w = rng.uniform(0.0, 2.0, size=30) if weighted else None
    mean, s2, _, unit = block_moments(lambda: [X], 3, w)
    ref = column_stds(s2, 30, w, unit)
    Xk = np.ldexp(X, k)
    mean_k, s2_k, _, unit_k = block_moments(lambda: [Xk], 3, w)
    std_k = column_stds(s2_k, 30, w, unit_k)
    np.testing.assert_array_equal(std_k, np.ldexp(ref, k))
    np.testing.assert_array_equal(mean_k, np.ldexp(mean, k))
    _, s2_b, _, unit_b = block_moments(lambda: [Xk[:10], Xk[10:]], 3, w)  # blocks only reorder the sums
    np.testing.assert_allclose(column_stds(s2_b, 30, w, unit_b), std_k, rtol=1e-14)


@pytest.mark.parametrize("Est", [FixedSizeLSSVC, FixedSizeLSSVR])
@pytest.mark.parametrize("factor", [1e-300, 1e-162, 1e-100, 1e100, 1e150, 1e300])
def test_fixed_size_predicts_the_same_at_every_scale(Est, factor):
    rng = np.random.default_rng(0)
    X = rng.normal(size=(160, 3))
    y = (X[:, 0] + 0.5 * X[:, 1] > 0).astype(int) if Est is FixedSizeLSSVC else np.sin(X[:, 0]) + 0.5 * X[:, 1]
    kw = dict(n_prototypes=20, gamma=10.0, sigma2=2.0, random_state=0)
    ref = Est(**kw).fit(X, y)
    est = Est(**kw).fit(X * factor, y)
    np.testing.assert_allclose(est.x_scale_, ref.x_scale_ * factor, rtol=1e-12)
    if Est is FixedSizeLSSVC:
        np.testing.assert_array_equal(est.predict(X * factor), ref.predict(X))
        assert est.score(X * factor, y) > 0.9
    else:
        np.testing.assert_allclose(est.predict(X * factor), ref.predict(X), rtol=1e-8, atol=1e-8)
