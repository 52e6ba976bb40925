"""``probability=True`` on RampLossSVC, L1SVC and FeatureBudgetSVC: ``predict_proba`` absent unless asked, its argmax
the prediction on every row, seeded, and better than the class frequencies in log-loss; the folds of RampLossSVC
fit the C and method of the fit (no C selection repeated)."""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from svmopt import L1SVC, FeatureBudgetSVC, RampLossSVC
from tests.common.probability_checks import check_log_loss_beats_class_frequencies, check_probability_matrix

MAKERS = {
    "RampLossSVC": lambda **k: RampLossSVC(C=1.0, budget=3, random_state=0, **k),
    "L1SVC": lambda **k: L1SVC(C=1.0, random_state=0, **k),
    "FeatureBudgetSVC": lambda **k: FeatureBudgetSVC(C=1.0, budget=3, random_state=0, **k),
}


def _data(seed: int, n: int = 90, d: int = 5) -> tuple[np.ndarray, np.ndarray]:
    rng = np.random.default_rng(seed)
    X = rng.normal(size=(n, d))
    return X, np.where(X[:, 0] - 0.7 * X[:, 1] + 0.6 * rng.normal(size=n) > 0, "b", "a")


@pytest.mark.parametrize("name", MAKERS)
def test_absent_unless_asked_and_rejected_when_not_boolean(name):
    X, y = _data(0)
    est = MAKERS[name]().fit(X, y)
    assert not hasattr(est, "predict_proba") and not hasattr(est, "calibration_")
    with pytest.raises(ValueError, match="probability"):
        MAKERS[name](probability="yes").fit(X, y)


@pytest.mark.parametrize("name", MAKERS)
@settings(max_examples=4, deadline=None)
@given(seed=st.integers(0, 10_000))
def test_argmax_is_predict_on_every_row(name, seed):
    X, y = _data(seed)
    est = MAKERS[name](probability=True).fit(X, y)
    Xt = np.vstack([_data(seed + 1)[0], np.zeros((1, X.shape[1]))])
    check_probability_matrix(est, Xt, 2)


@pytest.mark.parametrize("name", MAKERS)
def test_seeded_and_below_the_class_frequency_log_loss(name):
    X, y = _data(3, n=150)
    Xt, yt = _data(4, n=400)
    est = MAKERS[name](probability=True).fit(X, y)
    b = MAKERS[name](probability=True).fit(X, y).predict_proba(Xt)
    np.testing.assert_array_equal(est.predict_proba(Xt), b)
    check_log_loss_beats_class_frequencies(est, Xt, yt, y)


def test_ramp_folds_fit_the_selected_C_and_method(monkeypatch):
    X, y = _data(5)
    est = RampLossSVC(C="auto", budget=3, random_state=0, probability=True)
    est.fit(X, y)
    assert est._fold_params() == {"C": est.C_, "method": est.method_, "warm_start": False}
    seen = []
    original = RampLossSVC._select_C

    def spy(self, *a, **k):
        seen.append(self.C)
        return original(self, *a, **k)

    monkeypatch.setattr(RampLossSVC, "_select_C", spy)
    RampLossSVC(C="auto", budget=3, random_state=0, probability=True).fit(X, y)
    assert seen == ["auto"]  # the selection ran once, in the fit itself, not in the calibration's folds
