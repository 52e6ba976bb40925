"""FixedSizeLSSVC / FixedSizeLSSVR (paper 002): block streams read the same rows on every pass, partial_fit keeps the
feature definition of its first call and takes later chunks of zero weight as no-ops, 1-D memmaps at predict, numpy
sizes for feature_memory, the one-class error after weighting, attributes a refit leaves, choose_n_prototypes without
CV scores, and what the docstrings state about partial_fit, max_time and the regressor's cv_score_."""

import numpy as np
import pytest
from sklearn.datasets import make_classification, make_regression

from svmopt import FixedSizeLSSVC, FixedSizeLSSVR, Kernel
from svmopt._shared.prototypes import choose_n_prototypes


def k_rbf(A, B, sigma2):
    return np.exp(-((A[:, None, :] - B[None, :, :]) ** 2).sum(-1) / sigma2)


def _doc(obj) -> str:
    return " ".join(obj.__doc__.split())


@pytest.fixture(scope="module")
def clf_data():
    return make_classification(300, 5, n_informative=3, n_classes=3, random_state=1)


@pytest.fixture(scope="module")
def reg_data():
    return make_regression(400, 4, noise=5.0, random_state=0)


# ------------------------------------------------------------------ block streams
def test_block_stream_must_yield_the_same_rows_on_every_pass(clf_data):
    """A callable of blocks is read once per pass, its labels taken from the first: a later pass that reorders the
    rows, or yields fewer or more of them, raises instead of pairing rows with other rows' labels; the same rows
    in other block sizes are read as before (the check is per row)."""
    X, y = clf_data
    kw = dict(gamma=10.0, sigma2=5.0, n_prototypes=15, cv=3, random_state=0)
    calls = [0]

    def shuffled():  # every (X, y) pair is right, the order changes per call
        calls[0] += 1
        r = np.random.default_rng(calls[0]).permutation(len(X))
        for i in range(0, len(X), 100):
            yield X[r[i:i + 100]], y[r[i:i + 100]]

    with pytest.raises(ValueError, match="the block stream must yield the same rows in the same order on every call"):
        FixedSizeLSSVC(**kw).fit(shuffled)
    assert calls[0] >= 2

    def stepping(n: int, step: int):
        rows = [n]

        def blocks():  # the first rows, one fewer (step -1) or one more (step 1) on every call
            rows[0] += step
            yield X[:rows[0] - step], y[:rows[0] - step]

        return blocks

    with pytest.raises(ValueError, match="same rows in the same order.*yielded 299 rows, the first 300"):
        FixedSizeLSSVC(**kw).fit(stepping(len(X), -1))
    with pytest.raises(ValueError, match="same rows in the same order.*more than the first pass's 299 rows"):
        FixedSizeLSSVC(**kw).fit(stepping(len(X) - 1, 1))

    sizes = iter([100, 70, 33, 128, 50] * 100)

    def reblocked():  # the same rows in the same order, other block sizes on every pass
        b = next(sizes)
        for i in range(0, len(X), b):
            yield X[i:i + b], y[i:i + b]

    a = FixedSizeLSSVC(**kw).fit(reblocked)
    b = FixedSizeLSSVC(**kw).fit(X, y)
    np.testing.assert_allclose(a.decision_function(X), b.decision_function(X), atol=1e-8)


# ------------------------------------------------------------------ partial_fit
_CHANGES = [
    ("sigma2", {"sigma2": 2.0}),
    ("kernel", {"kernel": "linear"}),
    ("kernel", {"kernel": Kernel("poly", degree=2, c=1.0)}),
    ("n_prototypes", {"n_prototypes": 12}),
    ("prototypes", {"prototypes": np.zeros((5, 4))}),
    ("prototype_selection", {"prototype_selection": "random"}),
    ("max_candidates", {"max_candidates": 100}),
    ("random_state", {"random_state": 1}),
    ("statistics", {"statistics": "kernel"}),
    ("standardize", {"standardize": False}),
]


@pytest.mark.parametrize(("name", "change"), _CHANGES, ids=[f"{n}-{i}" for i, (n, _) in enumerate(_CHANGES)])
def test_partial_fit_refuses_a_changed_feature_parameter(reg_data, name, change):
    """A later partial_fit call whose parameters define other features than the first call's raises, naming the
    parameter and saying that fit starts over; the model is left as it was."""
    X, y = reg_data
    est = FixedSizeLSSVR(gamma=10.0, sigma2=5.0, n_prototypes=20, random_state=0)
    est.partial_fit(X[:200], y[:200])
    before = est.predict(X)
    est.set_params(**change)
    with pytest.raises(ValueError, match=rf"{name} differs from the first partial_fit call.*fit, which starts over"):
        est.partial_fit(X[200:], y[200:])
    np.testing.assert_array_equal(est.predict(X), before)


def test_partial_fit_refuses_a_changed_multiclass_and_takes_a_new_gamma(clf_data):
    """gamma and regularize_bias enter only the ridge solve (7) redone from the sums: changed between calls, the model
    is the stream's with the new values throughout. The coding of more than two classes is fixed by the first call."""
    X, y = clf_data
    kw = dict(sigma2=5.0, n_prototypes=20, random_state=0)
    a = FixedSizeLSSVC(gamma=1.0, **kw)
    a.partial_fit(X[:150], y[:150], classes=[0, 1, 2])
    a.set_params(gamma=30.0, regularize_bias=False).partial_fit(X[150:], y[150:])
    b = FixedSizeLSSVC(gamma=30.0, regularize_bias=False, **kw)
    b.partial_fit(X[:150], y[:150], classes=[0, 1, 2])
    b.partial_fit(X[150:], y[150:])
    np.testing.assert_allclose(a.decision_function(X), b.decision_function(X), atol=1e-12)
    assert a.gamma_.tolist() == [30.0] * 3
    a.set_params(multiclass="moc")
    with pytest.raises(ValueError, match="multiclass differs from the first partial_fit call"):
        a.partial_fit(X[:10], y[:10])
    a.fit(X, y)  # fit starts over: a new stream with the current parameters
    a.partial_fit(X[:100], y[:100])
    assert a.coding_ == "moc"


def test_partial_fit_later_chunk_of_zero_sample_weight_is_a_no_op(clf_data):
    """A later chunk whose sample weights are all 0 adds nothing, as the same chunk zeroed by class_weight; the first
    call needs rows of positive weight (it fixes the scaling and the prototypes), whatever the kernel."""
    X, y = clf_data
    kw = dict(gamma=3.0, sigma2=2.0, n_prototypes=20, random_state=0)
    c = FixedSizeLSSVC(**kw)
    c.partial_fit(X[:150], y[:150], classes=[0, 1, 2])
    before = c.decision_function(X)
    c.partial_fit(X[150:], y[150:], sample_weight=np.zeros(150))
    c.partial_fit(X[150:], y[150:], sample_weight=0.0)
    np.testing.assert_array_equal(c.decision_function(X), before)
    with pytest.raises(ValueError, match="sample_weight must have shape"):  # still validated
        c.partial_fit(X[150:], y[150:], sample_weight=np.zeros(3))
    with pytest.raises(ValueError, match="zero for every row"):
        FixedSizeLSSVC(**kw).partial_fit(X, y, classes=[0, 1, 2], sample_weight=np.zeros(len(X)))
    zeroed = FixedSizeLSSVC(kernel="linear", gamma=3.0, class_weight={0: 0.0})
    with pytest.raises(ValueError, match="first partial_fit chunk has no rows of positive weight"):
        zeroed.partial_fit(X[y == 0], y[y == 0], classes=[0, 1, 2])


# ------------------------------------------------------------------ prediction and parameters
def test_predict_on_a_1d_memmap_raises_the_2d_error(clf_data, tmp_path):
    X, y = clf_data
    clf = FixedSizeLSSVC(gamma=3.0, sigma2=2.0, n_prototypes=10, random_state=0).fit(X, y)
    row = np.memmap(tmp_path / "row.f64", dtype=np.float64, mode="w+", shape=(X.shape[1],))
    row[:] = X[0]
    with pytest.raises(ValueError, match="Expected 2D array, got 1D array instead.*reshape"):
        clf.predict(row)


def test_feature_memory_takes_numpy_integers(reg_data):
    X, y = reg_data
    kw = dict(gamma=10.0, sigma2=5.0, n_prototypes=20, random_state=0)
    a = FixedSizeLSSVR(feature_memory=np.int64(2**30), **kw).fit(X, y)
    b = FixedSizeLSSVR(feature_memory=2**30, **kw).fit(X, y)
    np.testing.assert_array_equal(a.predict(X), b.predict(X))


def test_one_class_left_by_weights_is_named_as_such(clf_data):
    """Weights that remove every row of all but one class: the error says the rows of positive weight hold one
    class (the data hold more)."""
    X, y = clf_data
    kw = dict(gamma=3.0, sigma2=2.0, n_prototypes=10, random_state=0)
    two = y < 2
    with pytest.raises(ValueError, match="rows of positive weight .* hold only one class"):
        FixedSizeLSSVC(**kw).fit(X[two], y[two], sample_weight=(y[two] == 1).astype(float))
    with pytest.raises(ValueError, match="rows of positive weight .* hold only one class"):
        FixedSizeLSSVC(class_weight={0: 0.0}, **kw).fit(X[two], y[two])
    with pytest.raises(ValueError, match="the data contains only one class"):
        FixedSizeLSSVC(**kw).fit(X[y == 1], y[y == 1])


def test_refit_leaves_no_attribute_of_the_earlier_model(clf_data):
    """A linear-kernel fit (or first partial_fit call) sets the selection's attributes to their "none" values, and a
    refit with two classes or another coding drops pairs_ / codebook_."""
    X, y = clf_data
    e = FixedSizeLSSVC(n_prototypes=20, gamma=3.0, sigma2=2.0, random_state=0).fit(X, y)
    assert e.prototype_indices_ is not None and e.n_pv_proposals_ > 0 and hasattr(e, "pairs_")
    e.set_params(kernel="linear").fit(X[y < 2], y[y < 2])
    assert e.prototypes_ is None and e.n_prototypes_ == 0 and e.prototype_indices_ is None
    assert e.n_pv_proposals_ == 0 and e.entropy_log_offdiag_ is None and e.n_bandwidth_fallbacks_ == 0
    assert e.coding_ == "binary" and not hasattr(e, "pairs_") and not hasattr(e, "codebook_")
    fresh = FixedSizeLSSVC(kernel="linear", gamma=3.0).fit(X, y)
    assert fresh.prototype_indices_ is None and fresh.n_pv_proposals_ == 0
    m = FixedSizeLSSVC(n_prototypes=20, gamma=3.0, sigma2=2.0, multiclass="moc", random_state=0).fit(X, y)
    assert hasattr(m, "codebook_")
    m.set_params(multiclass="ovo").fit(X, y)
    assert not hasattr(m, "codebook_") and len(m.pairs_) == 3
    s = FixedSizeLSSVC(n_prototypes=20, gamma=3.0, sigma2=2.0, random_state=0).fit(X, y)
    s.set_params(kernel="linear").partial_fit(X, y)
    assert s.prototype_indices_ is None and s.n_pv_proposals_ == 0 and s.entropy_log_offdiag_ is None


def test_choose_n_prototypes_raises_without_cv_scores(clf_data, reg_data):
    """Every candidate's cv_score_ NaN (fixed hyperparameters, a classifier's features over feature_memory): a
    ValueError that says how to get the scores, not None as the best estimator."""
    X, y = clf_data
    est = FixedSizeLSSVC(gamma=1.0, sigma2=2.0, feature_memory=1000, random_state=0)
    with pytest.raises(ValueError, match="CV scores were not computed.*Pass cv explicitly"):
        choose_n_prototypes(est, X, y, candidates=[10, 20])
    Xr, yr = reg_data
    best, scores = choose_n_prototypes(FixedSizeLSSVR(gamma=10.0, sigma2=5.0, cv=3, random_state=0), Xr, yr,
                                       candidates=[10, 20])
    assert best.n_prototypes_ == min(scores, key=scores.get)


# ------------------------------------------------------------------ what the docstrings state
def test_partial_fit_docstrings_state_where_it_equals_fit(reg_data):
    """With given prototypes (and standardize=False) two calls equal one fit on the concatenation; with selected
    ones the prototypes come from the first rows alone (the first chunk here), as the docstrings now say."""
    X, y = reg_data
    PV = np.random.default_rng(0).standard_normal((20, 4)) * 40
    kw = dict(gamma=10.0, sigma2=2000.0, standardize=False, random_state=0)
    a = FixedSizeLSSVR(prototypes=PV, **kw)
    a.partial_fit(X[:200], y[:200])
    a.partial_fit(X[200:], y[200:])
    b = FixedSizeLSSVR(prototypes=PV, **kw).fit(X, y)
    np.testing.assert_allclose(a.predict(X), b.predict(X), atol=1e-8 * np.abs(b.predict(X)).max())
    s = FixedSizeLSSVR(n_prototypes=20, **kw)
    s.partial_fit(X[:200], y[:200])
    s.partial_fit(X[200:], y[200:])
    assert s.prototype_indices_.max() < 200  # rows of the first chunk
    for doc in (_doc(FixedSizeLSSVR.partial_fit), _doc(FixedSizeLSSVC.partial_fit)):
        assert "With ``prototypes`` given, many calls equal one ``fit``" in doc
        assert "selected from the first rows alone" in doc
        assert "kept until ``n_prototypes`` rows of positive weight have arrived" in doc
        assert "``gamma`` and ``regularize_bias`` may" in doc


def test_max_time_docstring_names_what_is_not_cut_short():
    doc = _doc(FixedSizeLSSVR)
    assert "max_time plus one cost evaluation and the final solve" not in doc
    assert ("Not cut short: the standardization pass, the entropy bandwidths and the prototype selection" in doc
            and "the final fit (7) of every binary/regression problem" in doc)


def test_regressor_cv_score_is_the_mse_of_the_standardized_target(reg_data):
    """cv_score_ is the fast CV's MSE of (y - y_mean_) / y_scale_ (numpy: the ridge (7) on the Nyström features of
    each fold's complement), and cv_score_ * y_scale_**2 the MSE in the target's units, as the docstring says."""
    X, y = reg_data
    folds = np.arange(len(y)) % 4
    cv = [(np.flatnonzero(folds != u), np.flatnonzero(folds == u)) for u in range(4)]
    PV = np.random.default_rng(1).standard_normal((15, 4))
    e = FixedSizeLSSVR(gamma=10.0, sigma2=5.0, prototypes=PV, cv=cv).fit(X, y)
    Xs, ys = (X - e.x_mean_) / e.x_scale_, (y - e.y_mean_) / e.y_scale_
    lam, U = np.linalg.eigh(k_rbf(PV, PV, 5.0))
    keep = lam > PV.shape[0] * np.finfo(float).eps * lam.max()
    F = np.hstack([k_rbf(Xs, PV, 5.0) @ (U[:, keep] / np.sqrt(lam[keep])), np.ones((len(y), 1))])
    f = np.empty_like(ys)
    for tr, va in cv:
        theta = np.linalg.solve(F[tr].T @ F[tr] + np.eye(F.shape[1]) / 10.0, F[tr].T @ ys[tr])
        f[va] = F[va] @ theta
    assert e.y_scale_ > 10.0
    np.testing.assert_allclose(e.cv_score_, np.mean((ys - f) ** 2), rtol=1e-8)
    np.testing.assert_allclose(e.cv_score_ * e.y_scale_**2, np.mean((y - (f * e.y_scale_ + e.y_mean_)) ** 2),
                               rtol=1e-8)
    assert "mean squared error of the standardized target" in _doc(FixedSizeLSSVR)
