"""RobustSVC at any scale of X: the RBF kernel is evaluated on X over a power of two beyond SAFE_MAGNITUDE (its
squared distances underflowed below about 1e-154, every kernel value 1 and u = 0, with a warning that blamed nu;
they overflowed above 1e154, an error), so X * 2^k gives X's model exactly; the kernels whose values scale with X
name its magnitude when that scale breaks the fit."""

from __future__ import annotations

import warnings

import numpy as np
import pytest

from svmopt import Kernel, RobustSVC
from svmopt.robust.data import SAFE_MAGNITUDE


def _data(n=120, seed=0):
    rng = np.random.default_rng(seed)
    X = rng.normal(size=(n, 3))
    return X, (X[:, 0] + 0.5 * X[:, 1] ** 2 > 0.4).astype(int)


@pytest.mark.parametrize("k", [-1000, -600, 600, 1000])
@pytest.mark.parametrize("kw", [
    {"random_state": 0},  # the defaults: the width and nu cross-validated
    {"alpha": "paper", "nu": "grid", "selection": "training_error", "n_landmarks": None},
    {"n_landmarks": 20, "landmarks": "kmeans", "solver": "cutting_plane", "nu": 1.0, "random_state": 0},
    {"p": 2, "rho": 0.05, "nu": 1.0, "selection": "training_error"},
])
def test_the_rbf_model_of_x_times_a_power_of_two_is_the_model_of_x(kw, k):
    X, y = _data()
    c = 2.0**k
    ref = RobustSVC(**kw).fit(X, y)
    with warnings.catch_warnings():
        warnings.simplefilter("error", UserWarning)  # once: "predicts 0 for every training point ... raise nu"
        est = RobustSVC(**kw).fit(X * c, y)
    np.testing.assert_array_equal(est.predict(X * c), ref.predict(X))
    np.testing.assert_array_equal(est.decision_function(X * c), ref.decision_function(X))
    np.testing.assert_array_equal(est.dual_coef_, ref.dual_coef_)
    np.testing.assert_array_equal(est.support_vectors_, ref.support_vectors_ * c)  # in X's units
    assert est.kernel_.alpha == ref.kernel_.alpha * c
    if ref.landmarks_ is not None:
        np.testing.assert_array_equal(est.landmarks_, ref.landmarks_ * c)
    if ref.selection_ is not None:
        np.testing.assert_array_equal(est.selection_["alpha"], np.asarray(ref.selection_["alpha"]) * c)


def test_given_lengths_are_in_the_units_of_x():
    """A numeric alpha, eta and landmark points are lengths of X: scaled with X, they give X's model."""
    X, y = _data()
    c = 2.0**-900
    Z = X[:15] + 0.1
    kw = dict(nu=1.0, selection="training_error")
    for a, b in (({"alpha": 1.5}, {"alpha": 1.5 * c}), ({"kernel": Kernel("rbf", alpha=1.5)},
                                                        {"kernel": Kernel("rbf", alpha=1.5 * c)})):
        ref, est = RobustSVC(**a, **kw).fit(X, y), RobustSVC(**b, **kw).fit(X * c, y)
        np.testing.assert_array_equal(est.decision_function(X * c), ref.decision_function(X))
        assert est.kernel_.alpha == 1.5 * c and est.kernel_.name == "rbf"
    ref = RobustSVC(alpha=1.5, p=2, eta=0.05, n_landmarks=15, landmarks=Z, **kw).fit(X, y)
    est = RobustSVC(alpha=1.5 * c, p=2, eta=0.05 * c, n_landmarks=15, landmarks=Z * c, **kw).fit(X * c, y)
    np.testing.assert_array_equal(est.decision_function(X * c), ref.decision_function(X))
    np.testing.assert_array_equal(est.delta_, ref.delta_)
    np.testing.assert_array_equal(est.landmarks_, Z * c)


def test_the_usual_magnitudes_keep_their_bits():
    """Inside SAFE_MAGNITUDE nothing is divided: the model of X is computed on X itself."""
    X, y = _data()
    est = RobustSVC(nu=1.0, selection="training_error").fit(X, y)
    assert est._input_unit == 1.0 and SAFE_MAGNITUDE[0] < np.abs(X).max() < SAFE_MAGNITUDE[1]
    np.testing.assert_array_equal(est.support_vectors_, X[est.support_])


def test_a_dask_array_at_an_extreme_scale_fits_the_arrays_model():
    da = pytest.importorskip("dask.array")
    X, y = _data(n=400)
    c = 2.0**-1000
    kw = dict(n_landmarks=20, landmarks="kmeans", nu=1.0, selection="training_error", random_state=0)
    ref = RobustSVC(**kw).fit(X * c, y)
    lazy = RobustSVC(**kw).fit(da.from_array(X * c, chunks=(100, 3)), y)
    np.testing.assert_array_equal(lazy.landmarks_, ref.landmarks_)
    np.testing.assert_allclose(lazy.objective_, ref.objective_, rtol=1e-6)
    assert np.mean(lazy.predict(X * c) == RobustSVC(**kw).fit(X, y).predict(X)) >= 0.99


@pytest.mark.parametrize("kernel", ["linear", "poly", "inhom_poly", "sigmoid"])
def test_a_kernel_that_scales_with_x_names_its_magnitude(kernel):
    """At 1e-300 the LP of a kernel whose values scale with X has u = 0: the warning names X's magnitude and the
    remedy, not nu alone; above SAFE_MAGNITUDE the fit is refused, naming it, before any kernel is evaluated."""
    X, y = _data()
    kw = dict(kernel=kernel, degree=2, nu=1.0, selection="training_error")
    with pytest.warns(UserWarning, match=r"kernel's values depend on the scale of X, whose entries are at most "
                                         r"[0-9.]+e-300 in magnitude.*rescale X"):
        RobustSVC(**kw).fit(X * 1e-300, y)
    with pytest.raises(ValueError, match=r"X has entries of magnitude up to [0-9.]+e\+200: the .* kernel is "
                                         r"evaluated on X as it is.*rescale X"):
        RobustSVC(**kw).fit(X * 1e200, y)
    if kernel == "linear":
        with pytest.raises(ValueError, match=r"Gram matrix reach a magnitude of .*X has entries of magnitude up to "
                                             r"[0-9.]+e\+10"):
            RobustSVC(**kw).fit(X * 1e10, y)
