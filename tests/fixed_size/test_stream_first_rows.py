"""partial_fit's first rows: the rows of the first calls are kept until n_prototypes of them have arrived, then taken
as one first chunk (a 1-row first chunk once fixed n_prototypes_ = 1 for the whole stream, silently, and its zero
standard deviation became a scale of 1); predictions before that raise NotFittedError saying why."""

from __future__ import annotations

import warnings

import numpy as np
import pytest
from sklearn.datasets import make_classification
from sklearn.exceptions import NotFittedError

from svmopt import FixedSizeLSSVC, FixedSizeLSSVR

KW = dict(n_prototypes=20, gamma=10.0, sigma2=2.0, random_state=0)


def _data(n=120):
    X, y = make_classification(n_samples=n, n_features=4, n_informative=3, n_redundant=0, random_state=0)
    return X, y, X[:, 0] + np.sin(X[:, 1]) + 0.3 * X[:, 2] * X[:, 3]


def _stream(est, sizes, X, y, sample_weight=None, **first):
    start = 0
    for i, n in enumerate(sizes):
        rows = slice(start, start + n)
        est.partial_fit(X[rows], y[rows], sample_weight=None if sample_weight is None else sample_weight[rows],
                        **(first if i == 0 else {}))
        start += n
    assert start == y.size
    return est


def _outputs(est, X):
    return est.decision_function(X) if isinstance(est, FixedSizeLSSVC) else est.predict(X)


@pytest.mark.parametrize("Est", [FixedSizeLSSVC, FixedSizeLSSVR])
@pytest.mark.parametrize("first", [[1], [2], [19], [1, 19], [2, 1, 17], [1, 2, 19]])
def test_small_first_chunks_wait_for_n_prototypes_rows(Est, first):
    X, yc, yr = _data()
    y = yc if Est is FixedSizeLSSVC else yr
    extra = {"classes": [0, 1]} if Est is FixedSizeLSSVC else {}
    sizes = [*first, 40, y.size - sum(first) - 40]
    with warnings.catch_warnings():
        warnings.simplefilter("error")  # "n_prototypes=20 exceeds the 2 candidate rows" was the 2-row first chunk
        small = _stream(Est(**KW), sizes, X, y, **extra)
    # the same rows with the first ones in one chunk: those of the calls up to the one that brought the 20th row
    taken = int(next(c for c in np.cumsum(sizes) if c >= 20))
    big = _stream(Est(**KW), [taken, y.size - taken], X, y, **extra)
    assert small.n_prototypes_ == big.n_prototypes_ == 20
    np.testing.assert_array_equal(small.prototype_indices_, big.prototype_indices_)
    np.testing.assert_array_equal(small.x_scale_, big.x_scale_)
    np.testing.assert_allclose(_outputs(small, X), _outputs(big, X), rtol=1e-10, atol=1e-10)


@pytest.mark.parametrize("Est", [FixedSizeLSSVC, FixedSizeLSSVR])
def test_predicting_before_the_first_rows_have_arrived_names_why(Est):
    X, yc, yr = _data()
    y = yc if Est is FixedSizeLSSVC else yr
    extra = {"classes": [0, 1]} if Est is FixedSizeLSSVC else {}
    est = Est(**KW).partial_fit(X[:1], y[:1], **extra)
    with pytest.raises(NotFittedError, match=r"received 1 rows of positive weight, fewer than the 20 rows its "
                                             r"prototypes are selected among \(n_prototypes=20\)"):
        est.predict(X)
    est.partial_fit(X[1:12], y[1:12])
    with pytest.raises(NotFittedError, match="received 12 rows"):
        est.predict(X)
    assert est.partial_fit(X[12:20], y[12:20]).predict(X).shape == (y.size,)
    auto = Est(n_prototypes="auto", gamma=10.0, sigma2=2.0).partial_fit(X, y, **extra)
    with pytest.raises(NotFittedError, match=r"fewer than the 500 rows .*n_prototypes='auto'"):
        auto.predict(X)


def test_a_stream_after_fit_drops_the_fitted_model_until_its_rows_arrive():
    X, y, _ = _data()
    est = FixedSizeLSSVC(**KW).fit(X, y)
    est.partial_fit(X[:5], y[:5])  # a new stream over the fitted classes
    with pytest.raises(NotFittedError, match="received 5 rows"):
        est.decision_function(X)
    est.partial_fit(X[5:], y[5:])
    ref = _stream(FixedSizeLSSVC(**KW), [y.size], X, y, classes=[0, 1])
    np.testing.assert_allclose(est.decision_function(X), ref.decision_function(X), rtol=1e-10, atol=1e-10)


def test_the_scaling_of_a_stream_without_selection_waits_for_two_rows():
    """Given prototypes (or the linear kernel) select nothing, but a standard deviation needs 2 rows: one row had
    fixed x_scale_ = 1."""
    X, y, _ = _data()
    lin = _stream(FixedSizeLSSVC(kernel="linear", gamma=1.0), [1, 1, 118], X, y, classes=[0, 1])
    ref = _stream(FixedSizeLSSVC(kernel="linear", gamma=1.0), [2, 118], X, y, classes=[0, 1])
    np.testing.assert_array_equal(lin.x_scale_, np.std(X[:2], axis=0, ddof=1))
    np.testing.assert_allclose(lin.decision_function(X), ref.decision_function(X), rtol=1e-10, atol=1e-10)
    raw = FixedSizeLSSVC(kernel="linear", gamma=1.0, standardize=False).partial_fit(X[:1], y[:1], classes=[0, 1])
    assert raw.predict(X).shape == (y.size,)  # nothing to wait for


def test_rows_of_weight_zero_are_counted_in_the_prototype_indices():
    """prototype_indices_ index the rows passed until the selection (weight 0 counted), as for one first chunk."""
    X, y, _ = _data()
    sw = np.ones(y.size)
    sw[[1, 3, 7, 30]] = 0.0  # the first call needs a row of positive weight
    small = _stream(FixedSizeLSSVC(**KW), [1, 3, 20, 96], X, y, sample_weight=sw, classes=[0, 1])
    big = _stream(FixedSizeLSSVC(**KW), [24, 96], X, y, sample_weight=sw, classes=[0, 1])
    np.testing.assert_array_equal(small.prototype_indices_, big.prototype_indices_)
    assert np.all(sw[small.prototype_indices_] > 0)
    np.testing.assert_allclose(small.decision_function(X), big.decision_function(X), rtol=1e-10, atol=1e-10)


def test_a_changed_feature_parameter_is_refused_while_rows_wait():
    X, y, _ = _data()
    est = FixedSizeLSSVC(**KW).partial_fit(X[:3], y[:3], classes=[0, 1])
    with pytest.raises(ValueError, match="sigma2 differs from the first partial_fit call"):
        est.set_params(sigma2=3.0).partial_fit(X[3:30], y[3:30])
    est.set_params(sigma2=2.0).partial_fit(X[3:30], y[3:30])
    assert est.n_prototypes_ == 20


def test_a_stream_whose_target_squares_overflow_is_refused_by_name():
    """sum w y^2 of targets near 1e200 is inf: the ValueError fit raises, not Python's OverflowError, and the stream
    is left as it was."""
    X, _, y = _data()
    est = FixedSizeLSSVR(**KW).partial_fit(X[:40], y[:40])
    before = est.predict(X)
    with pytest.raises(ValueError, match="target's mean/standard deviation overflow float64; rescale y"):
        est.partial_fit(X[40:], y[40:] * 1e200)
    np.testing.assert_array_equal(est.predict(X), before)
