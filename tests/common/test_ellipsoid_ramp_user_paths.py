"""EllipsoidPSOClassifier and RampLossSVC on inputs users give: rows of weight 0, random_state=None, boolean-mask
folds, DataFrames, classes too small for an ellipsoid, a one-row class in a large C="auto" fit, Dask weights."""

from __future__ import annotations

import warnings

import numpy as np
import pytest
from sklearn.datasets import make_classification
from sklearn.model_selection import StratifiedKFold

from svmopt import EllipsoidPSOClassifier, RampLossSVC


@pytest.mark.parametrize("method", ["cccp", "exact"])
def test_ramp_outliers_index_the_rows_given(method):
    X, y = make_classification(40, 4, random_state=0)
    sw = np.ones(40)
    sw[:10] = 0.0
    clf = RampLossSVC(method=method, random_state=0).fit(X, y, sample_weight=sw)
    t = np.where(y == clf.classes_[1], 1.0, -1.0) * clf.decision_function(X)
    np.testing.assert_array_equal(clf.outliers_, np.flatnonzero((t <= -1.0 + 1e-9) & (sw > 0)))
    assert clf.outliers_.size  # the check above compares something


def test_ramp_without_random_state_fits_the_same_model_every_time():
    """random_state=None is documented as seed 0 (identical input, identical fit); CCCP's restarts drew from the
    clock."""
    X, y = make_classification(300, 8, n_informative=4, flip_y=0.3, class_sep=0.5, random_state=4)
    fits = [RampLossSVC(budget=3).fit(X, y) for _ in range(3)]
    assert fits[0].method_ == "cccp"
    for f in fits[1:]:
        assert f.objective_ == fits[0].objective_
        np.testing.assert_array_equal(f.coef_, fits[0].coef_)


def test_ramp_c_auto_on_a_large_set_with_a_one_row_class():
    rng = np.random.default_rng(0)
    X = rng.normal(size=(2500, 4))
    y = np.zeros(2500, int)
    y[7] = 1
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        clf = RampLossSVC(C="auto", random_state=0).fit(X, y)
    assert clf.C_ > 0


def test_ramp_dask_refuses_zero_weights_even_when_the_others_are_one():
    da = pytest.importorskip("dask.array")
    X, y = make_classification(300, 5, random_state=0)
    sw = np.ones(300)
    sw[:20] = 0.0
    with pytest.raises(ValueError, match="has zeros: with a Dask X"):
        RampLossSVC(method="cccp", random_state=0).fit(da.from_array(X, chunks=100), y, sample_weight=sw)


def test_ellipsoid_boolean_mask_folds_select_as_their_indices():
    X, y = make_classification(150, 4, random_state=1)
    pairs = list(StratifiedKFold(3).split(X, y))
    masks = [(np.isin(np.arange(150), tr), np.isin(np.arange(150), te)) for tr, te in pairs]
    a = EllipsoidPSOClassifier(random_state=0, cv=pairs).fit(X, y)
    b = EllipsoidPSOClassifier(random_state=0, cv=masks).fit(X, y)
    np.testing.assert_array_equal(a.selection_["errors"], b.selection_["errors"])
    assert np.nanmin(a.selection_["errors"]) < 0.5


def test_ellipsoid_fit_on_a_dataframe_warns_nothing():
    pd = pytest.importorskip("pandas")
    X, y = make_classification(120, 4, random_state=2)
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        clf = EllipsoidPSOClassifier(random_state=0).fit(pd.DataFrame(X, columns=list("abcd")), y)
    assert list(clf.feature_names_in_) == list("abcd")


@pytest.mark.parametrize("rows", [1, 2])
def test_ellipsoid_class_too_small_is_named(rows):
    X, y = make_classification(60, 4, random_state=3)
    y = np.where(y == 1, "one", "zero").astype(object)
    y[:rows] = "tiny"
    with warnings.catch_warnings():
        warnings.simplefilter("error", RuntimeWarning)  # no numpy degrees-of-freedom warnings first
        with pytest.raises(ValueError, match=rf"class 'tiny' has {rows} training row\(s\); .* needs at least 3"):
            EllipsoidPSOClassifier(random_state=0).fit(X, y)
