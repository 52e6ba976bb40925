"""Fisher-SVM and RFE-SVM baselines of paper 001 (svmopt.ramp.feature_selection)."""

import numpy as np
import pytest
from sklearn.feature_selection import RFE, SelectKBest
from sklearn.pipeline import Pipeline
from sklearn.svm import SVC

from svmopt.ramp.feature_selection import (
    RFE_DENSE_LIMIT,
    fisher_score,
    make_fisher_svm,
    make_rfe_svm,
    n_selected_features,
    rfe_step,
)

# feature 0: informative with within-class spread; 1: constant within each class but different means;
# 2: constant overall; 3: same class means, different spread
X_TOY = np.array([[1.0, 0.0, 7.0, 0.0], [2.0, 0.0, 7.0, 2.0], [3.0, 1.0, 7.0, 1.0], [5.0, 1.0, 7.0, 1.0]])
Y_TOY = np.array([0, 0, 1, 1])


def test_fisher_score_by_hand():
    # feature 0: mu- = 1.5, mu+ = 4, var- = 0.25, var+ = 1 (ddof 0) -> 6.25 / 1.25 = 5
    # feature 3: mu- = mu+ = 1 -> 0 / (1 + 0) = 0
    s = fisher_score(X_TOY, Y_TOY)
    assert s[0] == pytest.approx(5.0)
    assert s[1] == np.inf  # zero within-class variance, different means: perfect separator ranks first
    assert s[2] == 0.0  # constant feature: no information, never NaN
    assert s[3] == 0.0
    assert not np.any(np.isnan(s))


def test_fisher_score_symmetric_in_labels_and_any_label_values():
    a = fisher_score(X_TOY, Y_TOY)
    b = fisher_score(X_TOY, np.where(Y_TOY == 1, "neg", "pos"))
    np.testing.assert_array_equal(a, b)


def test_fisher_score_population_variance():
    rng = np.random.default_rng(0)
    X = rng.normal(size=(30, 3))
    y = np.r_[np.zeros(10), np.ones(20)]
    mp, mm = X[y == 1].mean(0), X[y == 0].mean(0)
    ref = (mp - mm) ** 2 / (X[y == 1].var(0, ddof=0) + X[y == 0].var(0, ddof=0))
    np.testing.assert_allclose(fisher_score(X, y), ref)


def test_fisher_score_rejects_multiclass_and_bad_shapes():
    with pytest.raises(ValueError, match="y"):
        fisher_score(X_TOY, np.array([0, 1, 2, 1]))
    with pytest.raises(ValueError):
        fisher_score(X_TOY, Y_TOY[:3])


def test_fisher_svm_keeps_the_top_b_of_the_training_data():
    rng = np.random.default_rng(1)
    X = rng.normal(size=(80, 12))
    y = np.where(X[:, 3] + 0.5 * X[:, 7] + 0.1 * rng.normal(size=80) > 0, 1, -1)
    model = make_fisher_svm(2, C=1.0)
    assert isinstance(model, Pipeline)
    assert isinstance(model.named_steps["select"], SelectKBest)
    svm = model.named_steps["svm"]
    assert isinstance(svm, SVC) and svm.kernel == "linear" and svm.C == 1.0
    model.fit(X[:60], y[:60])
    expected = np.sort(np.argsort(fisher_score(X[:60], y[:60]))[-2:])
    np.testing.assert_array_equal(np.flatnonzero(model.named_steps["select"].get_support()), expected)
    assert n_selected_features(model) == 2
    assert model.score(X[60:], y[60:]) > 0.7


def test_rfe_svm_keeps_exactly_b_features():
    rng = np.random.default_rng(2)
    X = rng.normal(size=(60, 15))
    y = np.where(X[:, 0] - X[:, 4] > 0, 1, -1)
    model = make_rfe_svm(4, C=0.5, n_features=15)
    assert isinstance(model, RFE) and model.step == 1 and model.estimator.C == 0.5
    model.fit(X, y)
    assert n_selected_features(model) == 4
    assert model.support_[0] and model.support_[4]
    assert model.predict(X).shape == (60,)


def test_rfe_step_rule():
    assert rfe_step(RFE_DENSE_LIMIT) == 1
    assert rfe_step(RFE_DENSE_LIMIT + 1) == 0.1
    assert make_rfe_svm(10, 1.0, n_features=2000).step == 0.1
    assert make_rfe_svm(10, 1.0, step=3).step == 3
    with pytest.raises(ValueError, match="n_features"):
        make_rfe_svm(10, 1.0)
    with pytest.raises(ValueError, match="n_features"):
        rfe_step(0)


@pytest.mark.parametrize("budget", [0, -1, 2.5, True, "3"])
def test_bad_budget(budget):
    with pytest.raises(ValueError, match="budget"):
        make_fisher_svm(budget, 1.0)
    with pytest.raises(ValueError, match="budget"):
        make_rfe_svm(budget, 1.0, n_features=10)


@pytest.mark.parametrize("C", [0, -1.0, np.inf, "1"])
def test_bad_C(C):
    with pytest.raises(ValueError, match="C"):
        make_fisher_svm(3, C)


def test_n_selected_features_from_coef_and_errors():
    class Fitted:
        coef_ = np.array([[0.0, 1e-9, -0.3, 2.0]])

    assert n_selected_features(Fitted()) == 2
    assert n_selected_features(Fitted(), tol=1e-12) == 3
    pipe = Pipeline([("svm", SVC(kernel="linear"))]).fit(X_TOY, Y_TOY)
    assert n_selected_features(pipe) == int(np.count_nonzero(np.abs(pipe[-1].coef_) > 1e-7))
    with pytest.raises(TypeError, match="model"):
        n_selected_features(object())
