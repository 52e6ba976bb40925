"""Bad input is refused before any work, by a ValueError (or svmopt's MemoryBudgetError) that names the argument or
the cause: extreme or complex sample weights, complex or non-numeric data, data beyond float64's comfortable range
for the ellipsoid construction, dense matrices over the memory budget, HiGHS options of a wrong name, type or value
on every solver path, partial_fit without fixed hyperparameters, an empty prototype array."""

from __future__ import annotations

import warnings

import numpy as np
import pandas as pd
import pytest

import svmopt
from svmopt._shared import config

ESTIMATORS = {
    "RobustSVC": lambda: svmopt.RobustSVC(),
    "RampLossSVC": lambda: svmopt.RampLossSVC(C=1.0, max_time=30.0),
    "L1SVC": lambda: svmopt.L1SVC(),
    "FeatureBudgetSVC": lambda: svmopt.FeatureBudgetSVC(budget=2),
    "FixedSizeLSSVC": lambda: svmopt.FixedSizeLSSVC(random_state=0),
    "FixedSizeLSSVR": lambda: svmopt.FixedSizeLSSVR(random_state=0),
    "EllipsoidPSOClassifier": lambda: svmopt.EllipsoidPSOClassifier(random_state=0),
}
CLASSIFIERS = [name for name in ESTIMATORS if name != "FixedSizeLSSVR"]


def _data(name: str, n: int = 40, d: int = 3):
    rng = np.random.default_rng(0)
    X = rng.normal(size=(n, d))
    if name == "FixedSizeLSSVR":
        return X, X[:, 0] + 0.1 * rng.normal(size=n)
    return X, (X[:, 0] + 0.3 * rng.normal(size=n) > 0).astype(int)


def _fresh(name: str):
    return ESTIMATORS[name]()


# ------------------------------------------------------------------------------------- sample_weight
@pytest.mark.parametrize("name", ESTIMATORS)
@pytest.mark.parametrize("big", [1e16, 1e150, 1e300])
def test_weights_beyond_float64_resolution_are_refused_by_name(name, big):
    """Five rows weighing 1e16 ... 1e300 times the others: the others count for nothing in float64; refused, naming
    sample_weight (it was a HiGHS status, a kernel-magnitude message, a not-positive-definite ridge, or nothing)."""
    X, y = _data(name)
    w = np.ones(y.size)
    w[:5] = big
    est = _fresh(name)
    with pytest.raises(ValueError, match=r"sample_weight spans a ratio of .* at most 2\^52"):
        est.fit(X, y, sample_weight=w)
    assert not hasattr(est, "n_features_in_")


@pytest.mark.parametrize("name", ESTIMATORS)
def test_tiny_weights_beside_unit_ones_are_refused_by_name(name):
    X, y = _data(name)
    w = np.ones(y.size)
    w[:5] = 1e-200
    with pytest.raises(ValueError, match="sample_weight spans"):
        _fresh(name).fit(X, y, sample_weight=w)


@pytest.mark.parametrize("name", CLASSIFIERS)
def test_weights_times_class_weight_that_overflow_are_refused(name):
    """sample_weight 1e300 times class_weight 1e10 is inf: refused, naming both (it was taken as an inf weight)."""
    X, y = _data(name)
    est = _fresh(name).set_params(class_weight={0: 1e10, 1: 1.0})
    with pytest.raises(ValueError, match="sample_weight times class_weight overflows"):
        est.fit(X, y, sample_weight=np.full(y.size, 1e300))


@pytest.mark.parametrize("name", ESTIMATORS)
@pytest.mark.parametrize("weights", [np.ones(40) + 1j, [1 + 0j] * 40, np.array([1 + 1j] * 40, dtype=object)],
                         ids=["complex128", "complex-list", "complex-object"])
def test_complex_weights_are_refused_by_name(name, weights):
    """numpy drops the imaginary part of a complex weight when converting to float (it was accepted silently)."""
    X, y = _data(name)
    with pytest.raises(ValueError, match="sample_weight must be real numbers, got complex"):
        _fresh(name).fit(X, y, sample_weight=weights)


@pytest.mark.parametrize("name", ESTIMATORS)
def test_text_weights_are_refused_by_name(name):
    """numpy parses "2" as 2.0: text is not a weight (it was accepted silently)."""
    X, y = _data(name)
    with pytest.raises(ValueError, match="sample_weight must be an array of numbers, got dtype <U"):
        _fresh(name).fit(X, y, sample_weight=["2"] * y.size)


@pytest.mark.parametrize("name", ESTIMATORS)
@pytest.mark.parametrize("which", ["X", "y"])
def test_complex_data_is_refused_naming_x_or_y(name, which):
    """scikit-learn refuses complex data with the whole array printed, without saying which argument."""
    X, y = _data(name)
    args = (X + 1j, y) if which == "X" else (X, y + 1j)
    with pytest.raises(ValueError, match=f"^Complex data not supported: {which} is complex"):
        _fresh(name).fit(*args)


# ------------------------------------------------------------------------------------- DataFrames
def _frame(kind: str, X: np.ndarray) -> pd.DataFrame:
    df = pd.DataFrame({"a": X[:, 0], "b": X[:, 1]})
    df["t"] = {"datetime": pd.date_range("2020-01-01", periods=len(df)),
               "timedelta": pd.to_timedelta(np.arange(len(df)), unit="s"),
               "text": ["x"] * len(df),
               "category": pd.Categorical(["u", "v"] * (len(df) // 2))}[kind]
    return df


@pytest.mark.parametrize("name", ESTIMATORS)
@pytest.mark.parametrize("kind,dtype", [("datetime", "datetime64"), ("timedelta", "timedelta64"),
                                        ("text", "(object|str)"), ("category", "category")])
def test_a_non_numeric_column_is_named_with_its_dtype(name, kind, dtype):
    """numpy's DTypePromotionError (or "could not convert string to float") named neither the column nor its
    dtype."""
    X, y = _data(name)
    with pytest.raises(ValueError, match=f"X column 't' has dtype {dtype}"):
        _fresh(name).fit(_frame(kind, X), y)


@pytest.mark.parametrize("name", ["RobustSVC", "FixedSizeLSSVC", "FixedSizeLSSVR", "EllipsoidPSOClassifier"])
def test_a_date_column_at_prediction_is_named(name):
    X, y = _data(name)
    est = _fresh(name).fit(pd.DataFrame({"a": X[:, 0], "t": X[:, 1]}), y)
    bad = pd.DataFrame({"a": X[:, 0], "t": pd.date_range("2020-01-01", periods=len(y))})
    with pytest.raises(ValueError, match="X column 't' has dtype datetime64"):
        est.predict(bad)


def test_numeric_frames_still_fit():
    X, y = _data("L1SVC")
    df = pd.DataFrame({"a": X[:, 0], "b": pd.array(X[:, 1] > 0, dtype="boolean"), "c": X[:, 2].astype(object)})
    assert svmopt.L1SVC().fit(df, y).n_features_in_ == 3


# ------------------------------------------------------------------------------------- EllipsoidPSOClassifier scale
@pytest.mark.parametrize("projection", ["pair", "dataset"])
@pytest.mark.parametrize("k", [1000, 600, -600, -1000])
def test_ellipsoid_is_exactly_scale_invariant(projection, k):
    """X * 2^k (k = +-1000: the covariances overflowed to numpy's LinAlgError, or underflowed to "zero variance")
    gives the model of X: the same predictions, intercepts and coef_ * 2^k, bit for bit."""
    from svmopt.datasets import load_dataset

    X, y = load_dataset("wine")
    ref = svmopt.EllipsoidPSOClassifier(random_state=0, projection=projection).fit(X, y)
    c = 2.0**k
    est = svmopt.EllipsoidPSOClassifier(random_state=0, projection=projection).fit(X * c, y)
    np.testing.assert_array_equal(est.predict(X * c), ref.predict(X))
    np.testing.assert_array_equal(est.coef_ * c, ref.coef_)
    np.testing.assert_array_equal(est.intercept_, ref.intercept_)


@pytest.mark.parametrize("scale", [1e300, 1e-300])
def test_ellipsoid_fits_data_of_any_finite_scale(scale):
    from svmopt.datasets import load_dataset

    X, y = load_dataset("wine")
    ref = svmopt.EllipsoidPSOClassifier(random_state=0).fit(X, y)
    est = svmopt.EllipsoidPSOClassifier(random_state=0).fit(X * scale, y)
    assert np.mean(est.predict(X * scale) == ref.predict(X)) > 0.99


def test_ellipsoid_without_projection_refuses_extreme_scales_by_name():
    """projection="none" works in the input space (the swarms' craziness radius is absolute): no rescaling there."""
    X, y = _data("EllipsoidPSOClassifier")
    with pytest.raises(ValueError, match=r"X has entries of magnitude up to .*projection='none'"):
        svmopt.EllipsoidPSOClassifier(projection="none", random_state=0).fit(X * 1e300, y)


def test_ellipsoid_subnormal_data_is_refused_by_name():
    X, y = _data("EllipsoidPSOClassifier")
    with pytest.raises(ValueError, match="too small for the hyperplane's coefficients"):
        svmopt.EllipsoidPSOClassifier(random_state=0).fit(X * 1e-310, y)


@pytest.mark.parametrize("w,same_as", [(2.0**900, 2.0**60), (1e300, 2.0**60), (1e-300, 1.0)])
def test_ellipsoid_uniform_weights_of_any_magnitude(w, same_as):
    """Equal weights of any finite magnitude (the Ledoit-Wolf amount overflowed at 1e300 and divided by zero at
    1e-300; the means overflowed with larger data): the model of equal weights with the same covariance
    denominators -- ``W - 1``, which rounds to W above 2^53, or the reliability form ``W - w`` = (n - 1) w below 1."""
    X, y = _data("EllipsoidPSOClassifier", n=60)
    X = X * 1e5

    def fit(weight, shrinkage=0.0):
        return svmopt.EllipsoidPSOClassifier(random_state=0, shrinkage=shrinkage).fit(X, y, np.full(60, weight))

    ref, est = fit(same_as), fit(w)
    np.testing.assert_array_equal(est.predict(X), ref.predict(X))
    np.testing.assert_allclose(est.coef_ / np.linalg.norm(est.coef_), ref.coef_ / np.linalg.norm(ref.coef_),
                               rtol=1e-7, atol=1e-9)
    assert np.all(np.isfinite(fit(w, "ledoit_wolf").coef_))


def test_ellipsoid_margins_of_a_rescaled_fit():
    """decision_function's normalized margins for coef_ near 1e300 (||w_k|| overflowed to inf, the margins to 0):
    finite, and their argmax is the prediction."""
    from svmopt.datasets import load_dataset

    X, y = load_dataset("wine")
    c = 2.0**-1000
    est = svmopt.EllipsoidPSOClassifier(random_state=0).fit(X * c, y)
    with warnings.catch_warnings():
        warnings.simplefilter("error", RuntimeWarning)
        scores = est.decision_function(X * c)
    assert np.all(np.isfinite(scores))
    assert np.abs(scores - np.round(scores)).max() > 0  # the margins are there, not only the votes
    np.testing.assert_array_equal(est.classes_[np.argmax(scores, axis=1)], est.predict(X * c))


# ------------------------------------------------------------------------------------- memory budget
def test_ellipsoid_refuses_a_covariance_over_the_memory_budget():
    """d x d covariances of 500 features under a 1 MiB budget (100,000 features under the default 8 GiB was numpy's
    MemoryError for 74.5 GiB): svmopt's MemoryBudgetError naming n_features and the remedy, before any work."""
    rng = np.random.default_rng(0)
    X, y = rng.normal(size=(20, 500)), np.arange(20) % 2
    svmopt.set_memory_budget("1M")
    try:
        est = svmopt.EllipsoidPSOClassifier(random_state=0)
        with pytest.raises(svmopt.MemoryBudgetError, match=r"n_features=500 .*1\.91 MiB.*1\.00 MiB.*PCA"):
            est.fit(X, y)
        assert not hasattr(est, "n_features_in_")
    finally:
        svmopt.set_memory_budget(None)


@pytest.mark.parametrize("n,text", [(0, "0 B"), (1000, "1000 B"), (1024, "1.00 KiB"), (12800, "12.50 KiB"),
                                    (3 * 1024**2, "3.00 MiB"), (80e9, "74.51 GiB"), (5 * 1024**4, "5.00 TiB")])
def test_byte_sizes_use_adaptive_units(n, text):
    assert config.format_bytes(n) == text


def test_small_budget_message_shows_real_sizes():
    """It printed "0.00 GiB over the memory budget of 0.00 GiB"."""
    X, y = _data("RobustSVC")
    svmopt.set_memory_budget(1000)
    try:
        with pytest.raises(svmopt.MemoryBudgetError) as info:
            svmopt.RobustSVC(n_landmarks=None).fit(X, y)
    finally:
        svmopt.set_memory_budget(None)
    assert "0.00 GiB" not in str(info.value)
    assert "memory budget of 1000 B" in str(info.value)


# ------------------------------------------------------------------------------------- solver_options
SOLVER_OPTION_USERS = {
    "RobustSVC": lambda o: svmopt.RobustSVC(solver_options=o),
    "RampLossSVC": lambda o: svmopt.RampLossSVC(C=1.0, solver_options=o),
    "RampLossSVC-cccp": lambda o: svmopt.RampLossSVC(C=1.0, method="cccp", solver_options=o),
    "L1SVC-lp": lambda o: svmopt.L1SVC(solver="lp", solver_options=o),
    "L1SVC-cutting_plane": lambda o: svmopt.L1SVC(solver="cutting_plane", solver_options=o),
}
BAD_OPTIONS = [
    ({"time_limit": "abc"}, r"solver_options\['time_limit'\]: expected a number \(a HiGHS double option\), got 'abc'"),
    ({"time_limit": -1.0}, r"solver_options\['time_limit'\]: HiGHS refuses the value -1\.0"),
    ({"no_such_option": 1}, r"solver_options\['no_such_option'\]: not a HiGHS option"),
    ({"time_limt": 5.0}, r"not a HiGHS option \(did you mean 'time_limit'"),
    ({"presolve": 3}, r"solver_options\['presolve'\]: expected a string"),
    ({"threads": 2.5}, r"solver_options\['threads'\]: expected an integer"),
    ({"presolve": "maybe"}, r"solver_options\['presolve'\]: HiGHS refuses the value 'maybe'"),
]


@pytest.mark.parametrize("name", SOLVER_OPTION_USERS)
@pytest.mark.parametrize("options,message", BAD_OPTIONS, ids=[str(o) for o, _ in BAD_OPTIONS])
def test_bad_solver_options_are_named_on_every_solver_path(name, options, message):
    """The option, and the type expected, on every path that takes solver_options (L1SVC's cutting planes took
    unknown names, bad values and a negative time limit that its LP refused)."""
    X, y = _data("L1SVC")
    est = SOLVER_OPTION_USERS[name](options)
    with pytest.raises(ValueError, match=message):
        est.fit(X, y)
    assert not hasattr(est, "n_features_in_")


def test_good_solver_options_are_taken():
    X, y = _data("L1SVC")
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        est = svmopt.L1SVC(solver="lp", solver_options={"time_limit": 60, "threads": np.int64(1),
                                                        "output_flag": np.bool_(False), "presolve": "on"}).fit(X, y)
    assert est.status_ == "optimal"


# ------------------------------------------------------------------------------------- fixed-size models
@pytest.mark.parametrize("name", ["FixedSizeLSSVC", "FixedSizeLSSVR"])
@pytest.mark.parametrize("params,missing", [({}, "gamma and sigma2 are None"), ({"gamma": 1.0}, "sigma2 is None"),
                                            ({"sigma2": 1.0}, "gamma is None")])
def test_partial_fit_without_fixed_hyperparameters_is_a_value_error_naming_them(name, params, missing):
    """It was scikit-learn's "has no attribute 'partial_fit'", the names only in the chained cause."""
    X, y = _data(name)
    est = _fresh(name).set_params(**params)
    with pytest.raises(ValueError, match=f"partial_fit needs fixed hyperparameters, but {missing}"):
        est.partial_fit(X, y, **({"classes": [0, 1]} if name == "FixedSizeLSSVC" else {}))
    assert not hasattr(est, "partial_fit")  # still an AttributeError too: hasattr is False, as before


@pytest.mark.parametrize("name", ["FixedSizeLSSVC", "FixedSizeLSSVR"])
@pytest.mark.parametrize("streamed", [False, True])
def test_empty_prototypes_are_named(name, streamed):
    X, y = _data(name)
    est = _fresh(name).set_params(prototypes=np.empty((0, 3)))
    with pytest.raises(ValueError, match=r"prototypes is empty \(shape \(0, 3\)\)"):
        if streamed:
            est.set_params(gamma=1.0, sigma2=1.0).partial_fit(
                X, y, **({"classes": [0, 1]} if name == "FixedSizeLSSVC" else {}))
        else:
            est.fit(X, y)


# ------------------------------------------------------------------------------------- array parameters
@pytest.mark.parametrize("params,message", [
    ({"landmarks": np.empty((0, 3))}, r"landmarks is empty \(shape \(0, 3\)\)"),
    ({"landmarks": np.ones((5, 3)) + 1j, "n_landmarks": 5}, "landmarks must be real numbers, got complex"),
    ({"p": 2, "eta": np.full(40, 0.1) + 1j}, "eta must be real numbers, got complex"),
    ({"nu": ["1", "2"]}, r"nu must be a number > 0, .*got \['1', '2'\]"),
], ids=["empty-landmarks", "complex-landmarks", "complex-eta", "text-nu"])
def test_robust_array_parameters_are_named(params, message):
    """Arrays a float conversion took silently (the imaginary part dropped, text parsed), or an empty landmark
    array reported as scikit-learn's "Found array with 0 sample(s)"."""
    X, y = _data("RobustSVC")
    with pytest.raises(ValueError, match=message):
        svmopt.RobustSVC().set_params(**params).fit(X, y)


@pytest.mark.parametrize("name", ["FixedSizeLSSVC", "FixedSizeLSSVR"])
def test_complex_prototypes_are_named(name):
    X, y = _data(name)
    with pytest.raises(ValueError, match="prototypes must be real numbers, got complex"):
        _fresh(name).set_params(prototypes=np.ones((5, 3)) + 1j).fit(X, y)
