"""RobustSVC's cross-validated selection (svmopt.robust.select) on the inputs a user gives: the default
subsample with few or many classes, error rates over repeated or partial folds, boolean masks and splitters of
fixed indices, a HiGHS retry that HiGHS refuses."""

from __future__ import annotations

import warnings

import numpy as np
import pytest
from sklearn.datasets import make_classification
from sklearn.model_selection import PredefinedSplit, RepeatedStratifiedKFold, StratifiedKFold

from svmopt import FixedSizeLSSVC, RobustSVC
from svmopt._shared.splits import stratified_subsample


@pytest.mark.parametrize(("counts", "n_max"), [((600, 300, 101), 1000), ((1000, 1), 500), ((5,) * 30, 20),
                                               ((700, 2, 2, 2), 100)])
def test_stratified_subsample_keeps_every_class_in_proportion(counts, n_max):
    y = np.repeat(np.arange(len(counts)), counts)
    rows = stratified_subsample(y, n_max, np.random.RandomState(0))
    assert np.all(np.diff(rows) > 0)  # sorted, distinct
    got = np.bincount(y[rows], minlength=len(counts))
    assert np.all(got >= 1) and np.all(got <= counts)  # every class, none beyond its rows
    assert rows.size == max(n_max, len(counts))
    share = np.asarray(counts) * n_max / sum(counts)
    small = share < 1  # one row each; the rows they take beyond their share come off the large classes
    assert np.all(got[small] == 1)
    assert np.all(np.abs(got - share)[~small] <= 1 + small.sum())  # proportional, within rounding
    assert np.array_equal(rows, stratified_subsample(y, n_max, np.random.RandomState(0)))  # seeded
    assert np.array_equal(stratified_subsample(y, sum(counts), np.random.RandomState(0)), np.arange(sum(counts)))


def test_default_fit_subsamples_three_classes_and_a_class_of_one_row():
    """The default estimator draws its 1,000-row selection subsample from 1,001 rows of three classes (one row
    left over, fewer than the classes) and from data with a class of a single row: both used to raise inside
    scikit-learn's train_test_split."""
    X, y = make_classification(1001, 5, n_informative=3, n_classes=3, random_state=0)
    clf = RobustSVC(random_state=0).fit(X, y)
    assert clf.selection_["n_rows"] == 1000 and clf.score(X, y) > 0.8
    y1 = y.copy()
    y1[0] = 7
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", UserWarning)  # the one-row class cannot be trained on every fold
        clf = RobustSVC(random_state=0).fit(X, y1)
    assert list(clf.classes_) == [0, 1, 2, 7]


def _binary(n=240, seed=0):
    X, y = make_classification(n, 4, n_informative=3, n_redundant=0, flip_y=0.1, random_state=seed)
    return X, y


def test_error_rates_count_each_held_out_row_as_often_as_it_is_held_out():
    """The rates divide by the held-out rows of all folds: repeated folds stay rates (<= 1), and one pair that
    holds out 20 rows gives errors over 20, not over every row."""
    X, y = _binary()
    kw = dict(kernel="rbf", nu=[0.1, 1.0, 10.0], n_landmarks=None)
    rep = RobustSVC(cv=RepeatedStratifiedKFold(n_splits=3, n_repeats=4, random_state=0), **kw).fit(X, y)
    assert rep.selection_["n_folds"] == 12 and rep.selection_["errors"].max() <= 1.0
    pair = [(np.arange(20, 240), np.arange(20))]
    one = RobustSVC(cv=pair, **kw).fit(X, y)
    errs = one.selection_["errors"][0, 0, 0]
    counts = errs * 20
    np.testing.assert_allclose(counts, np.round(counts), atol=1e-9)  # whole misclassified rows of 20
    assert errs.max() <= 1.0
    weighted = RobustSVC(cv=pair, **kw).fit(X, y, sample_weight=np.ones(240))
    np.testing.assert_allclose(weighted.selection_["errors"], one.selection_["errors"])  # weight over weight


def test_boolean_masks_select_as_their_indices():
    X, y = _binary()
    pairs = list(StratifiedKFold(3).split(X, y))
    masks = [(np.isin(np.arange(240), tr), np.isin(np.arange(240), te)) for tr, te in pairs]
    kw = dict(kernel="rbf", nu=[0.1, 1.0, 10.0], n_landmarks=None)
    a = RobustSVC(cv=pairs, **kw).fit(X, y)
    b = RobustSVC(cv=masks, **kw).fit(X, y)
    np.testing.assert_array_equal(a.selection_["errors"], b.selection_["errors"])
    with pytest.raises(ValueError, match="boolean mask of shape"):
        RobustSVC(cv=[(m[:-1], t) for m, t in masks], **kw).fit(X, y)


def test_a_splitter_of_fixed_indices_over_fewer_rows_is_refused_clearly():
    """PredefinedSplit indexes the rows given to fit; the selection splits the rows left after zero-weight rows:
    a clear error naming the remedy, not an IndexError (for either estimator that selects by folds)."""
    X, y = _binary(120)
    sw = np.ones(120)
    sw[:10] = 0.0
    cv = PredefinedSplit(np.arange(120) % 3)
    with pytest.raises(ValueError, match=r"pass its pairs, list\(cv.split\(X, y\)\)"):
        RobustSVC(cv=cv, nu=[0.1, 1.0], n_landmarks=None).fit(X, y, sample_weight=sw)
    # its pairs index the rows given to fit: they work; FixedSizeLSSVC splits every row given (zero-weight rows
    # masked afterwards), so the splitter itself works there
    RobustSVC(cv=list(cv.split(X, y)), nu=[0.1, 1.0], n_landmarks=None).fit(X, y, sample_weight=sw)
    FixedSizeLSSVC(n_prototypes=20, cv=cv, random_state=0).fit(X, y, sample_weight=sw)
    with pytest.raises(ValueError, match=r"outside"):  # a splitter over more rows than given
        FixedSizeLSSVC(n_prototypes=20, cv=PredefinedSplit(np.arange(130) % 3), random_state=0).fit(X, y)


@pytest.mark.parametrize("solver", ["auto", "ipm", "cutting_plane", "lp"])
def test_kernel_values_past_1e15_are_refused_with_the_remedy_by_every_solver(solver):
    """Kernel values near 1e20 (a degree-3 polynomial of features of a few hundred): the interior point used to
    stall at its start and return u = 0 with warnings calling it usable, the cutting planes to fail inside HiGHS,
    the LP to be refused by HiGHS; every solver now gets one ValueError naming the remedy (the selection over nu
    before it skips the kernel without a fold solve: no stall warning on the way)."""
    X, y = make_classification(n_samples=1500, n_features=4, random_state=1)
    X = X * 300
    with warnings.catch_warnings():
        warnings.simplefilter("error")  # no stall warnings on the way
        with pytest.raises(ValueError, match=r"magnitude of .* rescale X"):
            RobustSVC(kernel="poly", degree=3, solver=solver, random_state=0).fit(X, y)


@pytest.mark.parametrize("source", ["memmap", "blocks"])
def test_a_refit_on_a_memmap_or_a_block_stream_forgets_dataframe_column_names(source, tmp_path):
    """A fit on a DataFrame sets feature_names_in_; a refit on rows without names (a memmap, a block stream) drops
    it, so that predicting on an array neither warns nor checks names from the earlier data."""
    pd = pytest.importorskip("pandas")
    X, y = _binary(200)
    clf = FixedSizeLSSVC(n_prototypes=20, random_state=0).fit(pd.DataFrame(X, columns=list("abcd")), y)
    assert list(clf.feature_names_in_) == list("abcd")
    if source == "memmap":
        path = tmp_path / "X.f64"
        mm = np.memmap(path, dtype=np.float64, mode="w+", shape=X.shape)
        mm[:] = X
        clf.fit(mm, y)
    else:
        clf.fit(lambda: iter([(X[:100], y[:100]), (X[100:], y[100:])]), None)
    assert not hasattr(clf, "feature_names_in_")
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        clf.predict(X)
