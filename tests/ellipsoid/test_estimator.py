"""EllipsoidPSOClassifier and the ellipsoid geometry of paper 003: class ellipsoids, exact closest points of (4)-(6),
the hyperplane (13)-(16), one-vs-one voting, the synthetic data of Section 4.2 and the bundled data sets of Table 5."""

from __future__ import annotations

import numpy as np
import pytest
from sklearn.base import clone
from sklearn.utils.estimator_checks import parametrize_with_checks

from svmopt import EllipsoidPSOClassifier
from svmopt.datasets import load_dataset
from svmopt.ellipsoid.geometry import (
    class_ellipsoids,
    ellipsoid_closest_points,
    ellipsoids_intersect,
    project_onto_ellipsoid,
    shrink_factor,
    slsqp_primal,
)
from svmopt.ellipsoid.projection import project_2d, whiten
from svmopt.ellipsoid.swarms import pso_closest_points
from tests.ellipsoid.references import alternating_projections

X1_GOLD = np.array([[0, 0], [2, 0], [0, 1], [2, 1], [1, 0.5], [1.5, 1.2]], dtype=float)
X2_GOLD = np.array([[5, 0], [6, 1], [5, 2], [7, 0.5], [6.5, 2.5]], dtype=float)


def _rand_ellipsoid(rng, n=2, lo=0.5, hi=3.0):
    Q, _ = np.linalg.qr(rng.standard_normal((n, n)))
    return Q @ np.diag(1.0 / rng.uniform(lo, hi, n) ** 2) @ Q.T


# ------------------------------------------------------------------------------------------ geometry
def test_golden_example():
    """A hand-made 2-D example (reference values computed independently), to 1e-9. The closest points are the root
    of the dual's slope in extended precision (np.longdouble bisection; the alternating projections agree to 1e-15):
    the values first pinned here came from a Brent search whose flat top left them 1e-9 off."""
    E = class_ellipsoids(X1_GOLD, X2_GOLD)
    np.testing.assert_allclose(E["mu1"], [1.083333333333, 0.616666666667], atol=1e-9)
    np.testing.assert_allclose(E["mu2"], [5.9, 1.2], atol=1e-9)
    np.testing.assert_array_equal(E["b1"], [2, 1])
    np.testing.assert_array_equal(E["b2"], [5, 0])
    assert E["rho1"] == pytest.approx(1.3667379933428436, abs=1e-12)
    assert E["rho2"] == pytest.approx(2.1514207149404223, abs=1e-12)
    np.testing.assert_allclose(
        E["P1"], [[0.881969209359, -0.182656345134], [-0.182656345134, 2.635470122641]], atol=1e-9
    )
    np.testing.assert_allclose(
        E["P2"], [[0.586230402181, -0.047716428085], [-0.047716428085, 0.436264485344]], atol=1e-9
    )
    ex = ellipsoid_closest_points(E["mu1"], E["P1"], E["mu2"], E["P2"])
    assert ex.distance == pytest.approx(2.4469769784514708, abs=1e-9)
    assert ex.gap < 1e-10
    np.testing.assert_allclose(ex.x, [2.154722435529, 0.719425522690], atol=1e-9)
    np.testing.assert_allclose(ex.y, [4.593689612390, 0.917252323882], atol=1e-9)
    w = ex.x - ex.y
    w0 = 0.5 * (ex.y @ ex.y - ex.x @ ex.x)
    np.testing.assert_allclose(w, [-2.438967176860, -0.197826801192], atol=1e-9)
    assert w0 == pytest.approx(8.391467111885564, abs=1e-9)
    assert w0 / np.linalg.norm(w) == pytest.approx(3.429320008231531, abs=1e-9)
    assert shrink_factor(E["mu1"], E["P1"], E["mu2"], E["P2"]) == pytest.approx(2.0210400686, abs=1e-9)
    np.testing.assert_allclose(
        project_onto_ellipsoid([4, 3], E["mu1"], E["P1"]), [2.023643608257, 0.978132200491], atol=1e-9
    )
    # the classifier with projection="none" reproduces the golden hyperplane
    X = np.vstack([X1_GOLD, X2_GOLD])
    y = np.array([0] * 6 + [1] * 5)
    clf = EllipsoidPSOClassifier(solver="exact", projection="none").fit(X, y)
    np.testing.assert_allclose(clf.coef_[0], w, atol=1e-9)
    assert clf.intercept_[0] == pytest.approx(w0, abs=1e-9)


def test_boundary_property_and_affine_equivariance():
    """The facing point b_c lies on the boundary of its ellipsoid; P is affine-equivariant."""
    rng = np.random.default_rng(0)
    Q1 = rng.standard_normal((40, 2)) @ np.array([[2, 0.3], [0, 0.5]])
    Q2 = rng.standard_normal((30, 2)) + np.array([6.0, 1.0])
    E = class_ellipsoids(Q1, Q2)
    for b, mu, P in ((E["b1"], E["mu1"], E["P1"]), (E["b2"], E["mu2"], E["P2"])):
        assert (b - mu) @ P @ (b - mu) == pytest.approx(1.0, abs=1e-12)
    for _ in range(3):
        A = rng.standard_normal((2, 2)) + 2 * np.eye(2)
        t = rng.standard_normal(2)
        F = class_ellipsoids(Q1 @ A.T + t, Q2 @ A.T + t)
        Ai = np.linalg.inv(A)
        np.testing.assert_allclose(F["mu1"], A @ E["mu1"] + t, atol=1e-9)
        np.testing.assert_allclose(F["P1"], Ai.T @ E["P1"] @ Ai, atol=1e-9)
        np.testing.assert_allclose(F["P2"], Ai.T @ E["P2"] @ Ai, atol=1e-9)


def test_projection_onto_ellipsoid():
    """Projection onto an ellipsoid (sub-problem (6)):
    on the surface, inside points returned, brute-force distance, KKT parallelism."""
    rng = np.random.default_rng(1)
    mu, P = np.array([1.0, -1.0]), _rand_ellipsoid(rng)
    np.testing.assert_array_equal(project_onto_ellipsoid(mu + 0.01, mu, P), mu + 0.01)
    L = np.linalg.cholesky(np.linalg.inv(P))
    th = np.linspace(0, 2 * np.pi, 100000, endpoint=False)
    B = mu + (L @ np.vstack([np.cos(th), np.sin(th)])).T
    for _ in range(5):
        a = mu + rng.uniform(3, 6) * rng.standard_normal(2)
        if (a - mu) @ P @ (a - mu) <= 1:
            continue
        x = project_onto_ellipsoid(a, mu, P)
        assert (x - mu) @ P @ (x - mu) == pytest.approx(1.0, abs=1e-12)
        assert np.linalg.norm(a - x) == pytest.approx(np.linalg.norm(B - a, axis=1).min(), abs=1e-6)
        g = P @ (x - mu)
        cross = (a - x)[0] * g[1] - (a - x)[1] * g[0]
        assert abs(cross) < 1e-9 * np.linalg.norm(a - x) * np.linalg.norm(g)


def test_circles_closed_form():
    """The support-function dual, alternating projections and SLSQP on the primal reproduce the circle solution."""
    c1, c2, r1, r2 = np.array([0.0, 0.0]), np.array([5.0, 2.0]), 1.5, 0.7
    P1, P2 = np.eye(2) / r1**2, np.eye(2) / r2**2
    e = (c2 - c1) / np.linalg.norm(c2 - c1)
    D = np.linalg.norm(c2 - c1) - r1 - r2
    ex = ellipsoid_closest_points(c1, P1, c2, P2)
    assert ex.distance == pytest.approx(D, abs=1e-9)
    np.testing.assert_allclose(ex.x, c1 + r1 * e, atol=1e-9)
    np.testing.assert_allclose(ex.y, c2 - r2 * e, atol=1e-9)
    x3, _y3 = alternating_projections(c1, P1, c2, P2, tol=1e-14)
    np.testing.assert_allclose(x3, c1 + r1 * e, atol=1e-9)
    z = slsqp_primal(c1, P1, c2, P2)
    np.testing.assert_allclose(z[:2], c1 + r1 * e, atol=1e-7)


def test_exact_solvers_agree_and_satisfy_kkt():
    """Dual, alternating projections and SLSQP agree on random disjoint pairs; the exact points satisfy the KKT
    conditions."""
    rng = np.random.default_rng(3)
    count = 0
    while count < 25:
        mu1, P1 = rng.uniform(-2, 2, 2), _rand_ellipsoid(rng)
        mu2, P2 = mu1 + rng.uniform(4, 9) * np.array([1.0, rng.uniform(-1, 1)]), _rand_ellipsoid(rng)
        ex = ellipsoid_closest_points(mu1, P1, mu2, P2)
        if ex.intersect or ex.distance < 0.1:
            continue
        count += 1
        assert ex.gap < 1e-10
        x3, y3 = alternating_projections(mu1, P1, mu2, P2, tol=1e-14)
        assert np.linalg.norm(x3 - y3) == pytest.approx(ex.distance, abs=1e-8)
        z = slsqp_primal(mu1, P1, mu2, P2)
        assert np.linalg.norm(z[:2] - z[2:]) == pytest.approx(ex.distance, abs=1e-7)
        # KKT: both constraints active; y - x = l1 P1 (x - mu1), x - y = l2 P2 (y - mu2), l >= 0
        for p, mu, P, d in ((ex.x, mu1, P1, ex.y - ex.x), (ex.y, mu2, P2, ex.x - ex.y)):
            assert (p - mu) @ P @ (p - mu) == pytest.approx(1.0, abs=1e-10)
            g = P @ (p - mu)
            lam = (d @ g) / (g @ g)
            assert lam >= 0
            np.testing.assert_allclose(d, lam * g, atol=1e-7)


def test_exact_solver_general_dimension():
    rng = np.random.default_rng(4)
    for _ in range(5):
        mu1, P1 = np.zeros(4), _rand_ellipsoid(rng, 4)
        mu2, P2 = 9.0 * np.eye(4)[0] + rng.standard_normal(4), _rand_ellipsoid(rng, 4)
        ex = ellipsoid_closest_points(mu1, P1, mu2, P2)
        z = slsqp_primal(mu1, P1, mu2, P2)
        assert ex.gap < 1e-8
        assert ex.distance == pytest.approx(np.linalg.norm(z[:4] - z[4:]), abs=1e-6)


def test_pso_approaches_exact_on_golden_example():
    E = class_ellipsoids(X1_GOLD, X2_GOLD)
    ex = ellipsoid_closest_points(E["mu1"], E["P1"], E["mu2"], E["P2"])
    cp = pso_closest_points(E["mu1"], E["P1"], E["mu2"], E["P2"], random_state=0)
    assert ex.distance <= cp.distance < ex.distance * (1 + 5e-3)
    assert cp.lower_bound <= ex.distance + 1e-12
    assert cp.gap >= cp.distance - ex.distance - 1e-12


def test_intersection_and_shrink_fallback():
    """Overlapping -> max phi <= 0, s* < 1; shrinking by 0.9 s* separates; bisection agrees; touching s* = 1."""
    rng = np.random.default_rng(6)
    for _ in range(10):
        mu1, P1 = rng.standard_normal(2), _rand_ellipsoid(rng)
        mu2, P2 = mu1 + 0.5 * rng.standard_normal(2), _rand_ellipsoid(rng)
        assert ellipsoids_intersect(mu1, P1, mu2, P2)
        s = shrink_factor(mu1, P1, mu2, P2)
        assert 0 < s < 1
        assert not ellipsoids_intersect(mu1, P1 / (0.9 * s) ** 2, mu2, P2 / (0.9 * s) ** 2)
        lo, hi = 0.0, 1.0  # bisection on the disjointness test
        for _ in range(45):
            mid = 0.5 * (lo + hi)
            lo, hi = (lo, mid) if ellipsoids_intersect(mu1, P1 / mid**2, mu2, P2 / mid**2) else (mid, hi)
        assert s == pytest.approx(lo, abs=1e-8)
    assert shrink_factor([0, 0], np.eye(2), [3, 0], np.eye(2) / 4) == pytest.approx(1.0, abs=1e-9)
    assert ellipsoids_intersect([0, 0], np.eye(2), [0, 0], np.eye(2) * 3)


def test_shrink_fallback_in_the_classifier_makes_ellipsoids_disjoint():
    X, y = load_dataset("iris")
    clf = EllipsoidPSOClassifier(solver="exact", random_state=0).fit(X, y)
    for mdl in clf.models_:
        assert not ellipsoids_intersect(mdl["mu1"], mdl["P1"], mdl["mu2"], mdl["P2"])
    assert clf.n_shrunk_ == int(np.sum(clf.shrink_factors_ < 1))
    none = EllipsoidPSOClassifier(solver="exact", fallback="none").fit(X, y)
    assert np.all(none.shrink_factors_ == 1.0)


# ------------------------------------------------------------------------------------------ hyperplane
def test_bisector_identities():
    """z(x*) = +D^2/2, z(y*) = -D^2/2, z(mid) = 0, z(mu1) > 0 > z(mu2)."""
    X = np.vstack([X1_GOLD, X2_GOLD])
    y = np.array([0] * 6 + [1] * 5)
    for solver in ("exact", "pso"):
        clf = EllipsoidPSOClassifier(solver=solver, projection="none", random_state=1).fit(X, y)
        mdl = clf.models_[0]
        D2 = np.sum((mdl["x"] - mdl["y"]) ** 2)
        coef, icpt = clf.coef_[0], clf.intercept_[0]

        def z(v, coef=coef, icpt=icpt):
            return coef @ v + icpt

        assert z(mdl["x"]) == pytest.approx(D2 / 2, abs=1e-10)
        assert z(mdl["y"]) == pytest.approx(-D2 / 2, abs=1e-10)
        assert z(0.5 * (mdl["x"] + mdl["y"])) == pytest.approx(0, abs=1e-10)
        assert np.linalg.norm(mdl["x"] - 0.5 * (mdl["x"] + mdl["y"])) == pytest.approx(
            np.linalg.norm(mdl["y"] - 0.5 * (mdl["x"] + mdl["y"]))
        )
        assert z(mdl["mu1"]) > 0 > z(mdl["mu2"])
        assert clf.predict(mdl["x"][None])[0] == 0 and clf.predict(mdl["y"][None])[0] == 1


def test_input_space_form_and_preprocessing():
    """Decision via q = Pi^T W^T (v - m) equals w_in^T v + b_in; whitened covariance is I."""
    X, y = load_dataset("wine")
    clf = EllipsoidPSOClassifier(random_state=0).fit(X, y)
    for k, (a, b) in enumerate(clf.pairs_):
        mdl = clf.models_[k]
        q = (X - mdl["m"]) @ mdl["W"] @ mdl["Pi"]
        np.testing.assert_allclose(q @ mdl["w"] + mdl["w0"], X @ clf.coef_[k] + clf.intercept_[k], atol=1e-8)
        np.testing.assert_allclose(mdl["Pi"].T @ mdl["Pi"], np.eye(2), atol=1e-12)
        mask = np.isin(y, clf.classes_[[a, b]])
        Z = (X[mask] - mdl["m"]) @ mdl["W"]
        np.testing.assert_allclose(np.cov(Z, rowvar=False), np.eye(Z.shape[1]), atol=1e-8)


def test_no_leakage_and_rank_deficient_data():
    X, y = load_dataset("iris")
    idx = np.random.default_rng(0).permutation(150)
    tr, te = idx[:120], idx[120:]
    a = EllipsoidPSOClassifier(random_state=0).fit(X[tr], y[tr])
    Xb = X.copy()
    Xb[te] += 100.0  # test values change; the fitted model must not
    b = EllipsoidPSOClassifier(random_state=0).fit(Xb[tr], y[tr])
    np.testing.assert_array_equal(a.coef_, b.coef_)
    Xd = np.column_stack([X, X[:, 0]])  # a duplicated feature: the eigenvalue floor drops it
    c = EllipsoidPSOClassifier(random_state=0).fit(Xd, y)
    assert c.models_[0]["W"].shape[1] == 4
    assert c.score(Xd, y) > 0.9


def test_whitening_and_projection_helpers():
    rng = np.random.default_rng(2)
    Z = rng.standard_normal((50, 3)) @ rng.standard_normal((3, 3))
    m, W = whiten(Z)
    np.testing.assert_allclose(np.cov((Z - m) @ W, rowvar=False), np.eye(3), atol=1e-10)
    Pi = project_2d(Z[:25], Z[25:] + 1.0, "covdiff", None)
    np.testing.assert_allclose(Pi.T @ Pi, np.eye(2), atol=1e-12)


def test_ovo_blobs_votes_and_binary():
    """Three separated blobs in 4-D -> 100%; vote ties by margin sum then smaller index; K = 2 one model."""
    rng = np.random.default_rng(0)
    centers = np.array([[0, 0, 0, 0], [8, 0, 0, 0], [0, 8, 0, 0]], dtype=float)
    X = np.vstack([c + rng.standard_normal((40, 4)) for c in centers])
    y = np.repeat(["a", "b", "c"], 40)
    clf = EllipsoidPSOClassifier(random_state=0).fit(X, y)
    assert clf.score(X, y) == 1.0
    assert len(clf.models_) == 3
    # a constructed 1-1-1 tie: set hyperplanes by hand
    clf.coef_ = np.zeros((3, 4))
    clf.intercept_ = np.array([1.0, -2.0, 3.0])  # (a,b): a wins; (a,c): c wins; (b,c): b wins
    D = clf.decision_function(np.zeros((1, 4)))
    np.testing.assert_array_equal(np.floor(D + 0.5), [[1, 1, 1]])
    # margins: a: +1/0 ... with zero coef norms taken as 1: a = 1 - 2 = -1, b = -1 + 3 = 2, c = 2 - 3 = -1
    assert clf.predict(np.zeros((1, 4)))[0] == "b"
    clf.intercept_ = np.array([1.0, -1.0, 1.0])  # margins a: 0, b: 0, c: 0 -> smallest index
    assert clf.predict(np.zeros((1, 4)))[0] == "a"
    two = EllipsoidPSOClassifier(random_state=0).fit(X[:80], y[:80])
    assert len(two.models_) == 1 and two.decision_function(X[:80]).shape == (80,)
    assert two.score(X[:80], y[:80]) == 1.0


def test_synthetic_paper_data_against_hard_margin_svm():
    """Synthetic data of Section 4.2 (3 seeds):
    100% training accuracy, normal close to (0.7071, -0.7071), no fallback used."""
    from sklearn.svm import SVC

    for seed in range(3):
        rng = np.random.default_rng(seed)
        C = np.array([[2.0, 1.0], [1.0, 2.0]])
        X = np.vstack([rng.multivariate_normal([8, 0], C, 100), rng.multivariate_normal([0, 8], C, 100)])
        y = np.repeat([0, 1], 100)
        clf = EllipsoidPSOClassifier(projection="none", random_state=seed).fit(X, y)
        assert clf.score(X, y) == 1.0
        assert clf.n_shrunk_ == 0
        w = clf.coef_[0] / np.linalg.norm(clf.coef_[0])
        np.testing.assert_allclose(w, [0.7071, -0.7071], atol=0.1)
        svm = SVC(kernel="linear", C=1e6).fit(X, y)
        ws = -svm.coef_[0] / np.linalg.norm(svm.coef_[0])
        assert np.degrees(np.arccos(np.clip(w @ ws, -1, 1))) < 20


#: The paper's ellipsoids: no whitening shrinkage, the radii of Section 4.2 (no cross-validated selection).
PAPER = {"ratio": 1.0, "shrinkage": 0.0}


# ------------------------------------------------------------------------------------------ estimator
def test_determinism_and_exact_solver():
    X, y = load_dataset("iris")
    a = EllipsoidPSOClassifier(random_state=3, **PAPER).fit(X, y)
    b = EllipsoidPSOClassifier(random_state=3, **PAPER).fit(X, y)
    np.testing.assert_array_equal(a.coef_, b.coef_)
    np.testing.assert_array_equal(a.predict(X), b.predict(X))
    e = EllipsoidPSOClassifier(solver="exact", **PAPER).fit(X, y)
    assert np.all(e.certificate_gaps_ < 1e-9)
    assert np.all(a.distances_ >= e.distances_ - 1e-12)
    assert np.all(a.distances_ - e.distances_ < 2e-2)  # PSO distance within 2e-2 of the exact one
    assert e.score(X, y) > 0.95 and a.score(X, y) > 0.95


@pytest.mark.parametrize(
    ("param", "value"),
    [
        ("solver", "cvx"),
        ("metric", "l2"),
        ("fallback", "grow"),
        ("projection", "pca"),
        ("n_particles", 0),
        ("max_iter", -1),
        ("gamma", 1.5),
        ("c3", -1.0),
        ("multiclass", "ecoc"),
    ],
)
def test_errors_name_the_argument(param, value):
    X, y = load_dataset("iris")
    with pytest.raises(ValueError, match=param):
        EllipsoidPSOClassifier(**{param: value}).fit(X, y)


def test_too_few_samples_per_class():
    X = np.array([[0, 0], [1, 0], [5, 5], [6, 5], [5, 6.0]])
    with pytest.raises(ValueError, match="class 0 has 2 training row"):
        EllipsoidPSOClassifier(projection="none").fit(X, [0, 0, 1, 1, 1])


def test_loader_column_sums():
    """Shapes and class counts of paper 003's Table 5 and column sums of the bundled sets. The bundled Iris is the
    UCI file, whose two samples differ from scikit-learn's corrected ones: its sums are
    876.5, 458.1, 563.8, 179.8 against scikit-learn's 876.5, 458.6, 563.7, 179.9."""
    expect = {
        "iris": ((150, 4), [876.5, 458.1, 563.8, 179.8]),
        "pima": ((768, 8), [2953.0, 92847.0, 53073.0, 15772.0, 61286.0, 24570.3, 362.401, 25529.0]),
        "new_thyroid": ((215, 5), [23563.0, 2108.0, 440.8, 619.2, 902.8]),
        "wine": (
            (178, 13),
            [
                2314.11,
                415.87,
                421.24,
                3470.1,
                17754.0,
                408.53,
                361.21,
                64.41,
                283.18,
                900.34,
                170.426,
                464.88,
                132947.0,
            ],
        ),
    }
    counts = {"iris": [50, 50, 50], "pima": [268, 500], "new_thyroid": [30, 35, 150], "wine": [48, 59, 71]}
    for name, (shape, sums) in expect.items():
        X, y = load_dataset(name)
        assert X.shape == shape
        np.testing.assert_allclose(np.round(X.sum(axis=0), 4), sums, atol=1e-3)
        assert sorted(np.unique(y, return_counts=True)[1].tolist()) == counts[name]


def test_clone_and_pickle():
    import pickle

    X, y = load_dataset("iris")
    clf = EllipsoidPSOClassifier(random_state=0).fit(X, y)
    again = pickle.loads(pickle.dumps(clf))
    np.testing.assert_array_equal(again.predict(X), clf.predict(X))
    assert clone(clf).get_params() == clf.get_params()


#: Why the default instance fails scikit-learn's weight-equivalence check (integer weights = repeated rows): on
#: its data (15 rows x 30 features, 3 classes) the pair projection of Section 4.3.5 is degenerate -- after the
#: whitening, the deflated covariance difference of a class pair has a repeated largest |eigenvalue| (4, 4), so
#: p_2 is any vector of a 2-D eigenspace and the rounding of the weighted sums against the repeated rows' sums
#: picks different ones. Everything else is equivalent (same ellipsoid means, folds, held-out errors and choices;
#: tests/ellipsoid/test_weights.py checks the equivalence on non-degenerate data); with a random p_2
#: (p2_mode="random", the second instance) the check passes.
_DEGENERATE_P2 = ("p_2 of the pair projection is an eigenvector of a repeated eigenvalue on the check's data "
                  "(15 rows x 30 features): rounding picks it; passes with p2_mode='random'")


#: Why check_class_weight_classifiers fails (class_weight {0: 1000, others: 1e-4} must make > 87% of the
#: predictions on overlapping blobs class 0): a class weight constant over a class leaves that class's ellipsoid
#: as it is (a weighted mean and covariance do not see a common factor: eq. (15) has no class prior); class
#: weights act only on the held-out errors of the ratio selection, whose largest ratio (8) already is the
#: unweighted choice there (40% of the predictions are class 0 with or without the weights).
_NO_CLASS_PRIOR = ("class weights constant over a class do not change its ellipsoid (eq. (15) has no class "
                   "prior); they only weight the ratio selection's held-out errors: 40% class 0, 87% required")


def _expected_failed_checks(estimator):
    out = {"check_class_weight_classifiers": _NO_CLASS_PRIOR}
    if estimator.p2_mode == "covdiff":
        out["check_sample_weight_equivalence_on_dense_data"] = _DEGENERATE_P2
        out["check_sample_weight_equivalence_on_sparse_data"] = _DEGENERATE_P2  # the same data as CSR
    return out


@parametrize_with_checks([EllipsoidPSOClassifier(random_state=0), EllipsoidPSOClassifier(p2_mode="random",
                                                                                           random_state=0)],
                         expected_failed_checks=_expected_failed_checks)
def test_sklearn_compatible(estimator, check):
    check(estimator)


@pytest.mark.parametrize(
    "params",
    [
        {"projection": "dataset"},
        {"p2_mode": "literal"},
        {"p2_mode": "random"},
        {"multiclass": "ovr"},
        {"metric": "covariance"},
        {"reading": "A"},
        {"fallback": "none"},
        {"rand_scope": "iteration"},
        {"sync": "gauss_seidel"},
        {"boundary_mode": "project"},
        {"solver": "exact", "projection": "none"},
    ],
)
def test_ablation_switches_run(params):
    """Every switch runs and gives a usable classifier on Iris (no accuracy gate for the literal readings)."""
    X, y = load_dataset("iris")
    clf = EllipsoidPSOClassifier(random_state=0, **params).fit(X, y)
    assert clf.predict(X).shape == (150,)
    assert clf.decision_function(X).shape == (150, 3)
    if params in ({"projection": "dataset"}, {"p2_mode": "literal"}, {"p2_mode": "random"}, {"multiclass": "ovr"}):
        assert clf.score(X, y) > 0.6


def test_one_feature_problem():
    rng = np.random.default_rng(0)
    X = np.concatenate([rng.normal(0, 1, 30), rng.normal(6, 1, 30)])[:, None]
    y = np.repeat([0, 1], 30)
    clf = EllipsoidPSOClassifier(random_state=0).fit(X, y)
    assert clf.models_[0]["Pi"].shape == (1, 1)
    assert clf.score(X, y) > 0.95
