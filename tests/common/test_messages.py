"""Messages show values as a user wrote them: numbers and labels, never numpy reprs such as ``np.float64(0.1)``."""

from __future__ import annotations

import warnings

import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st

from svmopt import EllipsoidPSOClassifier, FixedSizeLSSVC, RobustSVC
from svmopt._shared.validation import shown

NUMPY_REPR = ("np.float", "np.int", "np.str_", "np.bool", "array(")


@given(st.one_of(st.floats(allow_nan=False), st.integers(-10**6, 10**6), st.text(max_size=5), st.booleans()))
def test_shown_is_the_python_repr(value):
    for wrapped in (np.asarray(value)[()], value):
        assert shown(wrapped) == repr(value)
    assert shown([np.asarray(value)[()]]) == repr([value])
    assert shown((np.asarray(value)[()],)) == repr((value,))


def test_shown_arrays_are_lists():
    assert shown(np.array([1, 2])) == "[1, 2]"
    assert shown(np.float64(0.1)) == "0.1"


def _messages(fn) -> list[str]:
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        try:
            fn()
        except ValueError as exc:
            return [str(exc)] + [str(w.message) for w in caught]
    return [str(w.message) for w in caught]


@pytest.mark.parametrize(
    "case",
    [
        # the robust term swallows the margin: the warning names p and rho
        lambda X, y: RobustSVC(alpha="scale", nu=1.0 / 80, p=2, rho=np.float64(0.1), kernel="linear").fit(X, y),
        # one class: the error names it
        lambda X, y: RobustSVC().fit(X, np.full(y.shape, np.int64(3))),
        lambda X, y: FixedSizeLSSVC(n_prototypes=5, gamma=1.0, sigma2=1.0).fit(X, np.full(y.shape, np.int64(3))),
        lambda X, y: EllipsoidPSOClassifier().fit(X, np.full(y.shape, np.int64(3))),
    ],
)
def test_no_numpy_repr_in_messages(case):
    rng = np.random.default_rng(0)
    X = rng.normal(size=(80, 3))
    y = np.repeat(np.array([0, 1], dtype=np.int64), 40)
    messages = _messages(lambda: case(X, y))
    assert messages, "the case must raise or warn"
    for text in messages:
        assert not any(r in text for r in NUMPY_REPR), text
