"""The defaults' hyperparameter selection on the training data (RobustSVC, EllipsoidPSOClassifier), the data-scaled
kernel width, the warnings of degenerate fits and FixedSizeLSSVC's n_prototypes="auto"."""

from __future__ import annotations

import warnings

import numpy as np
import pytest
from sklearn.model_selection import StratifiedKFold

import svmopt.robust.plan as rs
from svmopt import EllipsoidPSOClassifier, FixedSizeLSSVC, Kernel, RobustSVC
from svmopt._shared.selection import first_within_noise
from svmopt.ellipsoid.selection import RATIO_GRID, RATIO_WINDOW, SelectionPlan
from svmopt.robust.fit import NU_GRID, fit_binary
from svmopt.robust.plan import ALPHA_FACTORS, NU_CV_GRID
from tests.ellipsoid.references import bent_classes


def _data(n=120, d=4, seed=0, flip=0.1, minority=0.5):
    return bent_classes(n, d, seed, minority=minority, flip=flip)


# ------------------------------------------------------------------------------------------ RobustSVC
def _held_out_errors(X, y, alpha, nus, cv=3):
    """Reference: LP (23) on each fold's training rows at every nu, errors of f(x) - b > 0 on the held-out rows."""
    kern = Kernel("rbf", alpha=alpha)
    K = kern.gram(X)
    yb = np.where(y == 1, 1.0, -1.0)
    err = np.zeros(len(nus))
    for tr, va in StratifiedKFold(n_splits=cv).split(X, y):
        for k, nu in enumerate(nus):
            fit = fit_binary(K[np.ix_(tr, tr)], yb[tr], nus=[nu])
            f = K[np.ix_(va, tr)] @ (yb[tr] * fit.u) - fit.b
            err[k] += np.count_nonzero((f > 0) != (yb[va] > 0))
    return err


def test_cross_validation_counts_the_held_out_errors_of_every_candidate():
    X, y = _data(90)
    clf = RobustSVC(n_landmarks=None).fit(X, y)
    sel = clf.selection_
    # the paper's width (max feature std) first, then the data-scaled width times ALPHA_FACTORS (near-duplicates of
    # a candidate dropped); the choice among them (the noise rule) is tests/robust/test_default_rule.py's
    scale = np.sqrt(X.shape[1] * X.var() / 2)
    assert sel["alpha"][0] == pytest.approx(X.std(axis=0, ddof=1).max(), rel=1e-12)
    for f in ALPHA_FACTORS:
        assert np.min(np.abs(np.asarray(sel["alpha"]) / (scale * f) - 1)) <= 0.01
    np.testing.assert_array_equal(np.sort(sel["nu"]), np.sort(NU_CV_GRID))
    assert sel["errors"].shape == (len(sel["alpha"]), 1, 1, len(sel["nu"]))
    assert sel["n_rows"] == 90 and sel["n_folds"] == 3
    for a, alpha in enumerate(sel["alpha"]):
        ref = _held_out_errors(X, y, alpha, list(sel["nu"]))
        np.testing.assert_array_equal(np.rint(sel["errors"][a, 0, 0] * 90), ref)
    assert np.isclose(clf.kernel_.alpha, sel["alpha"], rtol=1e-12).any() and clf.nu_[0] in list(sel["nu"])
    # the final model is the fit on every row at the selected values
    ref = RobustSVC(alpha=clf.kernel_.alpha, nu=clf.nu_[0], n_landmarks=None).fit(X, y)
    np.testing.assert_allclose(clf.decision_function(X), ref.decision_function(X), atol=1e-10)
    assert ref.selection_ is None


def test_the_selection_is_deterministic_and_seeded_only_through_the_subsample():
    X, y = _data(150, seed=2)
    a = RobustSVC(n_landmarks=None).fit(X, y)
    b = RobustSVC(n_landmarks=None).fit(X, y)
    np.testing.assert_array_equal(a.selection_["errors"], b.selection_["errors"])
    np.testing.assert_array_equal(a.decision_function(X), b.decision_function(X))


@pytest.mark.filterwarnings("ignore:RobustSVC. the fitted model predicts:UserWarning")  # nu = 0.1 collapses here
def test_the_reduced_model_is_selected_on_its_own_landmarks():
    X, y = _data(200, seed=3)
    Z = X[::10]
    clf = RobustSVC(n_landmarks="auto", landmarks=Z, nu=[0.1, 10.0], alpha=[1.0, 3.0]).fit(X, y)
    assert clf.model_ == "reduced"
    ref_err = np.zeros((2, 2))
    yb = np.where(y == 1, 1.0, -1.0)
    for i, alpha in enumerate((1.0, 3.0)):
        kern = Kernel("rbf", alpha=alpha)
        for tr, va in StratifiedKFold(n_splits=3).split(X, y):
            for j, nu in enumerate((0.1, 10.0)):
                ref = RobustSVC(kernel=kern, nu=nu, n_landmarks=20, landmarks=Z).fit(X[tr], y[tr])
                ref_err[i, j] += np.count_nonzero((ref.decision_function(X[va]) > 0) != (yb[va] > 0))
    np.testing.assert_array_equal(np.rint(clf.selection_["errors"][:, 0, 0, :] * 200), ref_err)


def test_the_width_rules():
    X, y = _data(80)
    X[:, 1] *= 5.0
    paper = RobustSVC(alpha="paper", nu=1.0, n_landmarks=None).fit(X, y)
    assert paper.kernel_.alpha == pytest.approx(np.max(np.std(X, axis=0, ddof=1)))
    scale = RobustSVC(alpha="scale", nu=1.0, n_landmarks=None).fit(X, y)
    assert scale.kernel_.alpha == pytest.approx(np.sqrt(X.shape[1] * X.var() / 2))
    assert scale.selection_ is None and paper.selection_ is None  # one candidate: nothing to select
    # the paper's protocol: nu by the training count over its grid, one width
    rule = RobustSVC(alpha="paper", nu="grid", selection="training_error", n_landmarks=None).fit(X, y)
    counts = [rec["training_count"] for rec in rule.fit_path_[0]]
    assert [rec["nu"] for rec in rule.fit_path_[0]] == list(NU_GRID)
    assert rule.nu_[0] == NU_GRID[int(np.argmin(counts))] and rule.selection_ is None
    assert rule.kernel_.alpha == paper.kernel_.alpha


def test_rho_is_selected_for_the_robust_model():
    X, y = _data(90, seed=4)
    clf = RobustSVC(p=2, rho="grid", nu=1.0, alpha="scale", n_landmarks=None).fit(X, y)
    assert clf.selection_["errors"].shape == (1, rs.RHO_GRID.size, 1, 1)
    total = clf.selection_["errors"][0, :, 0, 0]
    assert clf.rho_ == rs.RHO_GRID[int(np.argmin(total))]
    ref = RobustSVC(p=2, rho=clf.rho_, nu=1.0, alpha="scale", n_landmarks=None).fit(X, y)
    np.testing.assert_allclose(clf.delta_, ref.delta_, rtol=1e-12)
    np.testing.assert_allclose(clf.decision_function(X), ref.decision_function(X), atol=1e-10)


def test_large_inputs_are_selected_on_a_stratified_subsample(monkeypatch):
    X, y = _data(700, seed=5, minority=0.3)
    monkeypatch.setattr(rs, "SELECT_MAX_ROWS", 200)
    clf = RobustSVC(n_landmarks=40, landmarks="random", random_state=0).fit(X, y)
    assert clf.selection_["n_rows"] == 200
    assert clf.model_ == "reduced" and clf.landmarks_.shape == (40, 4)


def test_multiclass_shares_the_width_and_selects_nu_per_problem():
    rng = np.random.default_rng(6)
    X = np.vstack([rng.normal(c, 1.0, (40, 2)) for c in ([0, 0], [3, 0], [0, 3])])
    y = np.repeat([0, 1, 2], 40)
    clf = RobustSVC(n_landmarks=None).fit(X, y)
    sel = clf.selection_
    assert sel["errors"].shape == (len(sel["alpha"]), 1, 3, len(sel["nu"]))
    # one width for every problem, nu per problem (the choice rule: tests/robust/test_default_rule.py)
    assert np.isclose(clf.kernel_.alpha, sel["alpha"]).any() and all(nu in list(sel["nu"]) for nu in clf.nu_)
    assert clf.score(X, y) > 0.85


def test_the_defaults_generalize_where_the_papers_rules_do_not():
    """Twenty features: the paper's width (max std = 1) is a very narrow RBF and its nu rule ends at the top of its
    grid; the defaults select on held-out rows."""
    rng = np.random.default_rng(7)
    X = rng.normal(size=(500, 20))
    y = (X[:, :3].sum(axis=1) + 0.5 * rng.normal(size=500) > 0).astype(int)
    Xt = rng.normal(size=(2000, 20))
    yt = (Xt[:, :3].sum(axis=1) > 0).astype(int)
    paper = RobustSVC(alpha="paper", nu="grid", selection="training_error", n_landmarks=None).fit(X, y)
    default = RobustSVC().fit(X, y)
    assert default.score(Xt, yt) >= paper.score(Xt, yt) + 0.1
    assert default.score(Xt, yt) > 0.85


def test_a_collapsed_robust_model_warns_naming_the_cause():
    """Standard-normal rows in 20 dimensions, nu = 1, p = 2, rho = 0.01 with the paper's width: u = 0."""
    rng = np.random.default_rng(8)
    X = rng.normal(size=(300, 20))
    y = (X[:, 0] > 0).astype(int)
    with pytest.warns(UserWarning, match="uncertainty set swallows the margin.*lower rho"):
        clf = RobustSVC(kernel="rbf", alpha="paper", nu=1.0, p=2, rho=0.01, n_landmarks=None).fit(X, y)
    assert clf.support_.size == 0
    with pytest.warns(UserWarning, match="raise nu"):
        RobustSVC(kernel="linear", nu=1e-4, n_landmarks=None).fit(X, y)
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        RobustSVC(kernel="linear", nu=1.0, n_landmarks=None).fit(X, y)  # a healthy fit says nothing


# ------------------------------------------------------------------------------------------ EllipsoidPSOClassifier
def test_ellipsoid_selection_counts_the_held_out_errors():
    """Every scored (shrinkage, ratio) candidate's error rate is the count of held-out errors of the fixed-candidate
    fit on 5 unshuffled stratified folds of the pair's rows, the ratios beyond 2^-3 ... 2^3 unscored (NaN) unless
    the lowest error reached the window's edge, and the choice is the one-standard-error rule over the paper-first
    order of the scored candidates."""
    X, y = _data(150, seed=9, minority=0.2)
    clf = EllipsoidPSOClassifier(solver="exact").fit(X, y)
    err = clf.selection_["errors"]
    assert err.shape == (1, 2, RATIO_GRID.size)
    V1, V2 = X[y == 0], X[y == 1]  # pair (0, 1): class 0 is the positive side
    V = np.vstack([V1, V2])
    t = np.r_[np.ones(len(V1), int), np.zeros(len(V2), int)]
    folds = list(StratifiedKFold(n_splits=5).split(V, t))
    shrinks = (0.0, "ledoit_wolf")
    window = np.abs(np.log2(RATIO_GRID)) <= RATIO_WINDOW
    assert np.isfinite(err[0][:, window]).all()
    per_fold = np.full((len(folds), 2 * RATIO_GRID.size), np.nan)
    for i, shrink in enumerate(shrinks):
        for j, r in enumerate(RATIO_GRID):
            if np.isnan(err[0, i, j]):
                assert not window[j]
                continue
            for f, (tr, va) in enumerate(folds):
                ref = EllipsoidPSOClassifier(solver="exact", ratio=float(r), shrinkage=shrink)
                ref.fit(V[tr], np.where(t[tr] == 1, 0, 1))
                wrong = ref.predict(V[va]) != np.where(t[va] == 1, 0, 1)
                per_fold[f, i * RATIO_GRID.size + j] = np.count_nonzero(wrong)
            assert err[0, i, j] * len(V) == pytest.approx(per_fold[:, i * RATIO_GRID.size + j].sum())
    np.testing.assert_array_equal(clf.selection_["fold_errors"][0].reshape(len(folds), -1), per_fold)
    scored = [c for c in range(per_fold.shape[1]) if not np.isnan(per_fold[0, c])]
    order = SelectionPlan(list(shrinks), RATIO_GRID, {}).order()
    pick = first_within_noise(per_fold[:, scored], np.ones(len(folds), bool), [scored.index(c) for c in order
                                                                               if c in scored])
    i, j = divmod(scored[pick], RATIO_GRID.size)
    assert clf.ratios_[0] == RATIO_GRID[j] and clf.shrinkages_[0] == shrinks[i]


def test_ellipsoid_flat_class_gets_a_ridge_not_an_error():
    """One-hot columns constant within a class: the class covariance is singular in the working space."""
    rng = np.random.default_rng(12)
    n = 120
    X = rng.normal(size=(n, 3))
    y = (X[:, 0] > 0).astype(int)
    onehot = np.zeros((n, 2))
    onehot[y == 1, 0] = 1.0
    onehot[y == 0, 1] = rng.integers(0, 2, (y == 0).sum())
    X = np.hstack([X, onehot])
    clf = EllipsoidPSOClassifier(random_state=0, ratio=1.0, shrinkage=0.0).fit(X, y)
    assert clf.score(X, y) > 0.9


# ------------------------------------------------------------------------------------------ FixedSizeLSSVC
def test_fixed_size_auto_prototypes_take_every_row_of_small_data_silently():
    X, y = _data(60)
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        clf = FixedSizeLSSVC(gamma=1.0, sigma2=4.0, random_state=0).fit(X, y)
    assert clf.n_prototypes_ == 60
    with pytest.warns(UserWarning, match="n_prototypes=500 exceeds"):
        FixedSizeLSSVC(n_prototypes=500, gamma=1.0, sigma2=4.0, random_state=0).fit(X, y)


# ------------------------------------------------------------------------------------------ RampLossSVC
def test_ramp_loss_auto_c_counts_the_held_out_errors_of_cccp_fits():
    from svmopt import RampLossSVC
    from svmopt.ramp.selection import C_GRID

    X, y = _data(90, d=5, seed=13)
    clf = RampLossSVC(C="auto", method="cccp", random_state=0).fit(X, y)
    err = np.zeros(C_GRID.size)
    for tr, va in StratifiedKFold(n_splits=3).split(X, y):
        for j, c in enumerate(C_GRID):
            ref = RampLossSVC(C=float(c), method="cccp", random_state=0).fit(X[tr], y[tr])
            err[j] += np.count_nonzero(ref.predict(X[va]) != y[va])
    np.testing.assert_allclose(clf.selection_["errors"] * 90, err)
    order = np.argsort(np.abs(np.log(C_GRID)), kind="stable")
    assert clf.C_ == C_GRID[order[int(np.argmin(err[order]))]]
    ref = RampLossSVC(C=clf.C_, method="cccp", random_state=0).fit(X, y)
    np.testing.assert_array_equal(clf.coef_, ref.coef_)
    assert RampLossSVC(C=2.0, method="cccp").fit(X, y).selection_ is None


def test_ramp_loss_with_w_zero_warns_naming_c():
    from svmopt import RampLossSVC

    X, y = _data(100, d=4, seed=14, flip=0.0)
    with pytest.warns(UserWarning, match="w is 0 .*raise C"):
        clf = RampLossSVC(C=1e-4, method="cccp").fit(X, y)
    assert clf.n_selected_features_ == 0
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        RampLossSVC(C=1.0, method="cccp").fit(X, y)


def test_ellipsoid_hyperplane_beyond_the_data_warns(monkeypatch):
    """The check itself: a pair's hyperplane that leaves every training point of the pair on one side."""
    X, y = _data(80, seed=15)
    fit_binary = EllipsoidPSOClassifier._fit_binary

    def far(self, *args, **kwargs):
        mdl = fit_binary(self, *args, **kwargs)
        return {**mdl, "b_in": 1e6}

    monkeypatch.setattr(EllipsoidPSOClassifier, "_fit_binary", far)
    with pytest.warns(UserWarning, match="puts every training point of the pair on one side"):
        EllipsoidPSOClassifier(solver="exact", ratio=1.0, shrinkage=0.0).fit(X, y)
    monkeypatch.undo()
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        EllipsoidPSOClassifier(solver="exact").fit(X, y)


def test_verbose_shows_the_search_and_the_default_prints_nothing(capsys):
    X, y = _data(90, seed=16)
    RobustSVC(n_landmarks=None).fit(X, y)
    EllipsoidPSOClassifier(solver="exact").fit(X, y)
    assert capsys.readouterr().out == ""
    clf = RobustSVC(n_landmarks=None, verbose=True).fit(X, y)
    out = capsys.readouterr().out
    assert "3-fold cross-validation on 90 rows" in out and out.count("alpha=") == len(clf.selection_["alpha"])
    assert f"alpha={clf.kernel_.alpha:.4g} rho=-" in out.split("<- selected")[0].splitlines()[-1]
    EllipsoidPSOClassifier(solver="exact", verbose=True).fit(X, y)
    assert "selected ratio" in capsys.readouterr().out
