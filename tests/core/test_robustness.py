"""Bad input, tried systematically (issue 6 §1).

Every public estimator and every entry point of ``svmopt._core`` and its submodules is driven with NaN and ±inf,
empty arrays, one sample, one class, one feature, constant features, duplicated rows, huge (1e300) and tiny values,
int / bool / float32 / object dtypes, F-ordered and non-contiguous arrays, pandas DataFrames with string columns,
string labels, mismatched lengths, and wrong parameter types and ranges. Each case must end in a ``ValueError`` /
``TypeError`` that names the argument (the core's dtype refusals excepted: a plain TypeError), or in a correct
result: never a crash, a hang, a NaN prediction or a silent coercion.

The core entry points also get hypothesis-generated shapes and values (derandomized "ci" profile of
``conftest.py``, no example database: CI sees the same examples every run). A core crash takes the whole pytest
process down, which fails the run as surely as an assertion.
"""

from __future__ import annotations

import math
import operator
import re
import warnings
from types import ModuleType

import numpy as np
import pandas as pd
import pytest
from hypothesis import HealthCheck, example, given, settings
from hypothesis import strategies as st
from hypothesis.extra import numpy as hnp
from sklearn.base import clone, is_classifier

import svmopt
from svmopt import _core

# ----------------------------------------------------------------------------------------------- estimators
# Small, fast configurations of every public estimator. The ramp-loss family solves MILPs: a time limit bounds
# those fits (a limit with an incumbent is a ConvergenceWarning, not an error; these small problems solve well
# within it).


def _estimators() -> dict:
    ests = {
        "RobustSVC": svmopt.RobustSVC(kernel="rbf"),
        "RobustSVC-robust": svmopt.RobustSVC(kernel="linear", p=2, rho=0.1, nu="grid"),
        "FixedSizeLSSVC": svmopt.FixedSizeLSSVC(n_prototypes=8, gamma=1.0, sigma2=2.0, random_state=0),
        "FixedSizeLSSVR": svmopt.FixedSizeLSSVR(n_prototypes=8, gamma=1.0, sigma2=2.0, random_state=0),
        "EllipsoidPSOClassifier": svmopt.EllipsoidPSOClassifier(max_iter=30, random_state=0),
        "RampLossSVC": svmopt.RampLossSVC(max_time=10.0, random_state=0),
        "L1SVC": svmopt.L1SVC(),
        "FeatureBudgetSVC": svmopt.FeatureBudgetSVC(budget=1, max_time=10.0, random_state=0),
    }
    return ests


ESTIMATOR_NAMES = list(_estimators())
# Estimators that need at least d + 1 samples per class (a covariance ellipsoid per class): the data below has
# enough; the one-feature and duplicated-row cases are the ones that stress it.
REGRESSORS = {"FixedSizeLSSVR"}


def make(name: str):
    return clone(_estimators()[name])


def estimator_data(name: str, n: int = 40, d: int = 3, seed: int = 0):
    """Two well separated blobs (labels 0/1), or a linear target for the regressor."""
    rng = np.random.default_rng(seed)
    X = rng.standard_normal((n, d))
    y = (np.arange(n) % 2).astype(int)
    X[y == 1] += 3.0
    if name in REGRESSORS:
        return X, X @ np.arange(1.0, d + 1.0) + 0.1 * rng.standard_normal(n)
    return X, y


def _outputs(est, X):
    """Predictions plus (where it exists) the decision function; both must be finite and well formed."""
    pred = est.predict(X)
    assert pred.shape == (X.shape[0],)
    if is_classifier(est):
        assert np.isin(pred, est.classes_).all(), "a prediction is not one of classes_"
        if hasattr(est, "decision_function"):
            dec = np.asarray(est.decision_function(X))
            assert np.all(np.isfinite(dec)), "NaN/inf decision values"
    else:
        assert np.all(np.isfinite(pred)), "NaN/inf regression predictions"
    return pred


def _fit_quiet(est, X, y):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # ConvergenceWarning at a solver limit is allowed here
        return est.fit(X, y)


def _accuracy(name, est, X, y) -> float:
    pred = est.predict(X)
    if name in REGRESSORS:
        return 1.0 - float(np.mean((pred - y) ** 2) / np.var(y))
    return float(np.mean(pred == y))


@pytest.fixture(params=ESTIMATOR_NAMES)
def name(request):
    return request.param


# -- non-finite, empty, tiny inputs: a ValueError naming X / y -----------------------------------------------
@pytest.mark.parametrize(("bad", "match"), [(np.nan, "NaN"), (np.inf, "infinity"), (-np.inf, "infinity")])
def test_fit_rejects_non_finite_X(name, bad, match):
    X, y = estimator_data(name)
    X[3, 1] = bad
    with pytest.raises(ValueError, match=match):
        make(name).fit(X, y)


def test_fit_rejects_non_finite_y(name):
    X, y = estimator_data(name)
    y = y.astype(float)
    y[2] = np.nan
    with pytest.raises(ValueError, match=r"(?i)nan|y|label"):
        make(name).fit(X, y)


@pytest.mark.parametrize("shape", [(0, 3), (40, 0)])
def test_fit_rejects_empty(name, shape):
    X = np.zeros(shape)
    y = np.arange(shape[0]) % 2
    with pytest.raises(ValueError, match=r"(?i)sample|feature|X"):
        make(name).fit(X, y)


def test_one_sample(name):
    """One sample: a classifier has one class (ValueError); a regressor may fit the constant, finitely."""
    X, y = estimator_data(name)
    try:
        est = _fit_quiet(make(name), X[:1], y[:1])
    except ValueError as exc:
        assert re.search(r"(?i)sample|class", str(exc)), exc
        return
    assert name in REGRESSORS, "a classifier fitted on one sample (one class)"
    np.testing.assert_allclose(_outputs(est, X), y[0], rtol=1e-6)


def test_fit_rejects_1d_and_3d_X(name):
    X, y = estimator_data(name)
    with pytest.raises(ValueError, match=r"(?i)2D|2-D|dimension"):
        make(name).fit(X[:, 0], y)
    with pytest.raises(ValueError, match=r"(?i)dim"):
        make(name).fit(X[:, :, None], y)


def test_fit_rejects_mismatched_lengths(name):
    X, y = estimator_data(name)
    with pytest.raises(ValueError, match=r"(?i)inconsistent|rows|length"):
        make(name).fit(X, y[:-1])


def test_fit_rejects_complex_X(name):
    X, y = estimator_data(name)
    with pytest.raises(ValueError, match=r"(?i)complex"):
        make(name).fit(X + 1j, y)


def test_fit_rejects_string_features(name):
    X, y = estimator_data(name)
    df = pd.DataFrame(X, columns=["a", "b", "c"])
    df["c"] = ["low", "high"] * (len(df) // 2)
    with pytest.raises(ValueError, match=r"(?i)string|convert|float"):
        make(name).fit(df, y)
    with pytest.raises(ValueError, match=r"(?i)string|convert|float"):
        make(name).fit(df.to_numpy(dtype=object), y)


# -- classifier-only label checks ------------------------------------------------------------------------------
def _classifier(name):
    if name in REGRESSORS:
        pytest.skip("label checks are for classifiers (the regressor's target is tested with NaN above)")


def test_fit_rejects_one_class(name):
    _classifier(name)
    X, _ = estimator_data(name)
    with pytest.raises(ValueError, match=r"(?i)class"):
        make(name).fit(X, np.ones(X.shape[0], dtype=int))


def test_fit_rejects_continuous_labels(name):
    _classifier(name)
    X, _ = estimator_data(name)
    y = np.linspace(0.0, 1.0, X.shape[0])
    with pytest.raises(ValueError, match=r"(?i)label|continuous|class"):
        make(name).fit(X, y)


def test_string_labels_round_trip(name):
    _classifier(name)
    X, y = estimator_data(name)
    labels = np.array(["neg", "pos"])[y]
    est = _fit_quiet(make(name), X, labels)
    assert list(est.classes_) == ["neg", "pos"]
    pred = _outputs(est, X)
    assert pred.dtype.kind in "UO"
    assert np.mean(pred == labels) >= 0.9
    # same model as with integer labels (the ±1 coding is internal)
    est_int = _fit_quiet(make(name), X, y)
    np.testing.assert_array_equal(pred, est.classes_[est_int.predict(X)])


def test_rejects_mixed_type_labels(name):
    _classifier(name)
    X, y = estimator_data(name)
    mixed = np.array(["a" if v else 1 for v in y], dtype=object)
    with pytest.raises((ValueError, TypeError), match=r"(?i)label|type|mix"):
        make(name).fit(X, mixed)


# -- degenerate but legal data: a correct result ------------------------------------------------------------
def test_one_feature(name):
    X, y = estimator_data(name, d=1)
    est = _fit_quiet(make(name), X, y)
    assert est.n_features_in_ == 1
    _outputs(est, X)
    assert _accuracy(name, est, X, y) >= 0.8


def test_constant_feature_among_informative_ones(name):
    X, y = estimator_data(name)
    X[:, 1] = 7.0
    est = _fit_quiet(make(name), X, y)
    _outputs(est, X)
    assert _accuracy(name, est, X, y) >= 0.8


def test_all_features_constant(name):
    """Nothing to learn: a clear ValueError, or a finite constant predictor -- never NaN."""
    X, y = estimator_data(name)
    X[:] = 2.5
    try:
        est = _fit_quiet(make(name), X, y)
    except (ValueError, svmopt.SolverError) as exc:
        assert str(exc), "an error without a message"
        return
    pred = _outputs(est, X)
    assert np.unique(pred).size == 1


def test_duplicated_rows(name):
    X, y = estimator_data(name, n=20)
    X2, y2 = np.vstack([X, X, X]), np.concatenate([y, y, y])
    est = _fit_quiet(make(name), X2, y2)
    _outputs(est, X2)
    assert _accuracy(name, est, X2, y2) >= 0.8


@pytest.mark.parametrize("scale", [1e300, 1e150, 1e-150, 1e-300])
def test_extreme_magnitudes(name, scale):
    """Huge or tiny values: a ValueError that says what is wrong, or finite predictions."""
    X, y = estimator_data(name)
    Xs = X * scale
    y_fit = y * scale if name in REGRESSORS and scale > 1 else y
    try:
        est = _fit_quiet(make(name), Xs, y_fit)
    except ValueError as exc:
        assert str(exc)
        return
    _outputs(est, Xs)


# -- dtypes and memory layouts: the same model as float64 C-ordered -------------------------------------------
@pytest.mark.parametrize("kind", ["int64", "float32", "object", "fortran", "strided", "negative_strides",
                                  "dataframe", "list"])
def test_dtypes_and_layouts_match_float64(name, kind):
    X, y = estimator_data(name)
    if kind in ("int64", "object", "list"):
        X = np.round(X * 4)  # exactly representable as int; same values as the float64 reference
    elif kind == "float32":
        X = X.astype(np.float32).astype(np.float64)
    if kind == "int64":
        Xk = X.astype(np.int64)
    elif kind == "float32":
        Xk = X.astype(np.float32)
    elif kind == "object":
        Xk = X.astype(object)
    elif kind == "fortran":
        Xk = np.asfortranarray(X)
    elif kind == "strided":
        wide = np.zeros((X.shape[0], 2 * X.shape[1]))
        wide[:, ::2] = X
        Xk = wide[:, ::2]
        assert not Xk.flags.c_contiguous and not Xk.flags.f_contiguous
    elif kind == "negative_strides":
        Xk = X[::-1][::-1]
        Xk = np.flip(np.flip(X, axis=1).copy(), axis=1)
        assert Xk.strides[1] < 0
    elif kind == "dataframe":
        Xk = pd.DataFrame(X, columns=[f"f{j}" for j in range(X.shape[1])])
    else:
        Xk = X.tolist()
    ref = _fit_quiet(make(name), X, y)
    est = _fit_quiet(make(name), Xk, y)
    if name in REGRESSORS:  # real-valued outputs: equal up to the last bits of a different summation order
        np.testing.assert_allclose(est.predict(Xk), ref.predict(X), rtol=1e-9, atol=1e-12)
    else:
        np.testing.assert_array_equal(est.predict(Xk), ref.predict(X))
    if hasattr(ref, "decision_function"):
        np.testing.assert_allclose(est.decision_function(Xk), ref.decision_function(X), rtol=1e-9, atol=1e-12)
    if kind == "dataframe":
        assert list(est.feature_names_in_) == list(Xk.columns)


def test_bool_features(name):
    """Booleans are read as 0/1 -- the same model as the float64 copy -- or refused with the same clear error
    (few distinct values can make a class covariance singular for the ellipsoid model)."""
    X, y = estimator_data(name)
    Xb = X > 1.5
    try:
        ref = _fit_quiet(make(name), Xb.astype(np.float64), y)
    except ValueError as exc:
        with pytest.raises(ValueError, match=re.escape(str(exc))):
            make(name).fit(Xb, y)
        return
    est = _fit_quiet(make(name), Xb, y)
    np.testing.assert_array_equal(est.predict(Xb), ref.predict(Xb.astype(np.float64)))


# -- prediction-time input ---------------------------------------------------------------------------------
def test_predict_rejects_bad_input(name):
    X, y = estimator_data(name)
    est = _fit_quiet(make(name), X, y)
    with pytest.raises(ValueError, match=r"(?i)feature"):
        est.predict(X[:, :2])
    Xn = X.copy()
    Xn[0, 0] = np.nan
    with pytest.raises(ValueError, match="NaN"):
        est.predict(Xn)
    with pytest.raises(ValueError, match=r"(?i)sample|0"):
        est.predict(X[:0])


def test_predict_before_fit(name):
    from sklearn.exceptions import NotFittedError

    X, _ = estimator_data(name)
    with pytest.raises(NotFittedError):
        make(name).predict(X)


# -- wrong parameter types and ranges: the parameter is named ------------------------------------------------
# A string is wrong for every numeric or enumerated parameter, NaN for every numeric one, -1 for every parameter
# that must be positive. Parameters that legitimately accept those values are listed per estimator.
_ACCEPTS_ANY = {"verbose"}  # truthiness flags


def _bad_values(name: str, param: str, default):
    if param in _ACCEPTS_ANY:
        return []
    out = ["__not_a_valid_value__"]
    if isinstance(default, (int, float)) and not isinstance(default, bool):
        out.append(float("nan"))
    return out


def _param_cases():
    cases = []
    for name, est in _estimators().items():
        for param, default in est.get_params(deep=False).items():
            for bad in _bad_values(name, param, default):
                cases.append(pytest.param(name, param, bad, id=f"{name}-{param}-{bad!r}"))
    return cases


@pytest.mark.parametrize(("name", "param", "bad"), _param_cases())
def test_bad_parameter_is_named(name, param, bad):
    X, y = estimator_data(name)
    est = make(name).set_params(**{param: bad})
    with pytest.raises((ValueError, TypeError)) as info:
        est.fit(X, y)
    assert param in str(info.value), f"the error does not name {param!r}: {info.value}"


# Range errors with values of the right type (chosen per estimator from its docstring).
_RANGE_CASES = [
    ("RobustSVC", {"nu": -1.0}), ("RobustSVC", {"nu": 0.0}), ("RobustSVC", {"nu": []}), ("RobustSVC", {"p": 0.5}),
    ("RobustSVC", {"degree": 0}), ("RobustSVC", {"alpha": -1.0}), ("RobustSVC", {"c": -1.0}),
    ("RobustSVC", {"n_grid": 1}), ("RobustSVC", {"rho": -0.1, "p": 2}), ("RobustSVC", {"eta": -1.0, "p": 2}),
    ("RobustSVC", {"eta": [0.1, 0.2], "p": 2}), ("RobustSVC", {"eta": 0.1}),
    ("RobustSVC", {"kernel": "sigmoid", "p": 2}), ("RobustSVC", {"solver_options": {"no_such_option": 1}}),
    ("FixedSizeLSSVC", {"n_prototypes": 0}), ("FixedSizeLSSVC", {"gamma": -1.0}), ("FixedSizeLSSVC", {"cv": 1}),
    ("FixedSizeLSSVC", {"sigma2": 0.0}), ("FixedSizeLSSVC", {"block_size": 0}),
    ("FixedSizeLSSVR", {"n_prototypes": -3}), ("FixedSizeLSSVR", {"gamma": np.inf}),
    ("EllipsoidPSOClassifier", {"n_particles": 0}), ("EllipsoidPSOClassifier", {"max_iter": -1}),
    ("EllipsoidPSOClassifier", {"w": -0.1}), ("EllipsoidPSOClassifier", {"gamma": 1.0}),
    ("EllipsoidPSOClassifier", {"s_init": 0.0}), ("EllipsoidPSOClassifier", {"random_state": -1}),
    ("EllipsoidPSOClassifier", {"n_particles": 2.5}),
]


@pytest.mark.parametrize(("name", "params"), _RANGE_CASES, ids=[f"{n}-{p}" for n, p in _RANGE_CASES])
def test_bad_parameter_range_is_named(name, params):
    X, y = estimator_data(name)
    est = make(name).set_params(**params)
    with pytest.raises((ValueError, TypeError)) as info:
        est.fit(X, y)
    named = [k for k in params if k in str(info.value)]
    assert named, f"the error names none of {list(params)}: {info.value}"


def test_init_stores_parameters_untouched(name):
    """scikit-learn convention: __init__ validates nothing, so even a bad value is stored as given."""
    est = make(name)
    bad = {k: "__not_a_valid_value__" for k in est.get_params(deep=False)}
    est2 = type(est)(**bad)
    assert est2.get_params(deep=False) == bad


# ----------------------------------------------------------------------------------------------- the core
kernels, cutting_plane, robust = _core.kernels, _core.cutting_plane, _core.robust
prototypes, fixed_size, ellipsoid, blas = _core.prototypes, _core.fixed_size, _core.ellipsoid, _core.blas
SUBMODULES = ("kernels", "cutting_plane", "robust", "prototypes", "fixed_size", "ellipsoid", "blas")
OBJECTIVES = [robust.Objective.paper, robust.Objective.decision]
KP = kernels.KernelParams(kernels.KernelKind.rbf, alpha=1.0)
_RNG = np.random.default_rng(0)
Z = _RNG.standard_normal((10, 2))
ZN = Z.copy()
ZN[3, 1] = np.nan
I32 = np.int32
Y2 = np.array([1.0, -1.0])


def _acc(**kw):
    return fixed_size.FoldAccumulator(Z[:3], KP, np.eye(3), **kw)


def _holdout(Phi=None, Y=None, folds=None, n_folds=1, G=None, t=None, gamma=1.0):
    """fast_cv_holdout on a well-formed 4 x 3 problem, one argument replaced."""
    return fixed_size.fast_cv_holdout(np.ones((4, 3)) if Phi is None else Phi, np.ones((4, 1)) if Y is None else Y,
                                      np.zeros(4, I32) if folds is None else folds, n_folds,
                                      np.eye(3) if G is None else G, np.ones((3, 1)) if t is None else t, gamma)


def _csa(x0=None, lower=None, upper=None, cost=lambda x: 0.0, **kw):
    """csa_minimize on a well-formed 2-D box, one argument replaced."""
    return fixed_size.csa_minimize(cost, np.zeros((3, 2)) if x0 is None else x0,
                                   -np.ones(2) if lower is None else lower,
                                   np.ones(2) if upper is None else upper, **kw)


def _search(fn, cost=lambda x: 0.0, x0=None, lower=None, upper=None, **kw):
    """nelder_mead / csa_simplex on a well-formed 2-D box, one argument replaced."""
    return fn(cost, (np.zeros(2) if fn is fixed_size.nelder_mead else np.zeros((3, 2))) if x0 is None else x0,
              -np.ones(2) if lower is None else lower, np.ones(2) if upper is None else upper, **kw)


def _cv(**over):
    """A CVCost on the 10 rows of Z (2 folds, 3 prototypes), one argument replaced."""
    a = dict(X=Z, Y=np.ones((10, 1)), folds=(np.arange(10) % 2).astype(I32), n_folds=2, PV=Z[:3].copy(), params=KP,
             tune_rbf=True, n_features_linear=0, task=fixed_size.CVTask.regression)
    a.update(over)
    return fixed_size.CVCost(**a)


def _tune(x0=None, lower=None, upper=None, tune_gamma=True, tune_sigma2=True, cv=None, **kw):
    """tune_cv over (log gamma, log sigma2) on _cv(), one argument replaced."""
    return fixed_size.tune_cv(_cv() if cv is None else cv, np.zeros((3, 2)) if x0 is None else x0,
                              -np.ones(2) if lower is None else lower, np.ones(2) if upper is None else upper,
                              tune_gamma, tune_sigma2, 1.0, 1.0, **kw)


def _two_swarm(mu1=None, P1=None, mu2=None, P2=None, **kw):
    """ellipsoid.two_swarm on two disjoint discs, one argument replaced."""
    return ellipsoid.two_swarm(np.zeros(2) if mu1 is None else mu1, np.eye(2) if P1 is None else P1,
                               np.full(2, 3.0) if mu2 is None else mu2, np.eye(2) if P2 is None else P2, **kw)


YZ = np.where(np.arange(10) % 2 == 0, 1.0, -1.0)


def _cut_pass(y=YZ, v=None, gamma=0.0, S=0.0, **over):
    """cut_pass streaming the 10 rows of Z against 3 landmarks, one argument replaced (None drops it)."""
    kw = dict(X=Z, Z=Z[:3].copy(), params=KP)
    kw.update(over)
    return cutting_plane.cut_pass(y, np.zeros(3) if v is None else v, gamma, S,
                                  **{k: a for k, a in kw.items() if a is not None})


def _normal_pass(**over):
    """reduced_normal_pass streaming the 10 rows of Z against 3 landmarks (G from theta), one argument replaced (None
    drops it)."""
    kw = dict(X=Z, Z=Z[:3].copy(), params=KP, theta=np.ones(10))
    kw.update(over)
    return robust.reduced_normal_pass(**{k: a for k, a in kw.items() if a is not None})


def _read_only(a):
    a.flags.writeable = False
    return a


def _rows(sub, rows):
    """The rows of one submodule, each entry point prefixed with the submodule's name."""
    return [(f"{sub}.{entry}", *rest) for entry, *rest in rows]


# One row per bad call of every entry point: (entry point "submodule.name[.method]", case id, call, exception, text
# the message names). A dtype other than the core's (float64; int32 fold ids; int64 indices and labels) or a string
# where an option enum belongs is a TypeError: the core converts nothing.
_KERNELS = [
    ("gram", "1d", lambda: kernels.gram(Z[:, 0], KP), ValueError, "X"),
    ("gram", "float32", lambda: kernels.gram(Z.astype(np.float32), KP), TypeError, ""),
    ("gram", "int", lambda: kernels.gram(Z.astype(int), KP), TypeError, ""),
    ("gram", "object", lambda: kernels.gram(Z.astype(object), KP), TypeError, ""),
    ("gram", "list", lambda: kernels.gram(Z.tolist(), KP), TypeError, ""),
    ("gram", "params", lambda: kernels.gram(Z, "rbf"), TypeError, ""),
    ("cross", "columns", lambda: kernels.cross(Z, Z[:, :1], KP), ValueError, "columns"),
    ("diag", "3d", lambda: kernels.diag(Z[None], KP), ValueError, "X"),
    ("matvec", "V rows", lambda: kernels.matvec(Z, Z, np.ones((3, 1)), KP), ValueError, "V"),
    ("matvec", "V 1d", lambda: kernels.matvec(Z, Z, np.ones(10), KP), ValueError, "V"),
    ("KernelParams", "alpha<0", lambda: kernels.KernelParams(kernels.KernelKind.rbf, alpha=-1.0), ValueError, "alpha"),
    ("KernelParams", "alpha nan", lambda: kernels.KernelParams(kernels.KernelKind.rbf, alpha=math.nan), ValueError,
     "alpha"),
    ("KernelParams", "degree 0", lambda: kernels.KernelParams(kernels.KernelKind.poly, degree=0), ValueError, "degree"),
    ("KernelParams", "c<0", lambda: kernels.KernelParams(kernels.KernelKind.inhom_poly, degree=2, c=-1.0), ValueError,
     "c "),
    ("KernelParams", "sigmoid inf", lambda: kernels.KernelParams(kernels.KernelKind.sigmoid, a=math.inf), ValueError,
     "a and b"),
    ("KernelParams", "kind", lambda: kernels.KernelParams("rbf"), TypeError, ""),
]
_ROBUST = [
    ("lp_matrix", "not square", lambda: robust.lp_matrix(np.ones((3, 2)), np.ones(3)), ValueError, "square"),
    ("lp_matrix", "y length", lambda: robust.lp_matrix(np.eye(3), np.ones(2)), ValueError, "y"),
    ("lp_matrix", "y not ±1", lambda: robust.lp_matrix(np.eye(2), np.array([1.0, 3.0])), ValueError, "y"),
    ("lp_matrix", "y int", lambda: robust.lp_matrix(np.eye(2), np.array([1, -1])), TypeError, ""),
    ("lp_matrix", "K nan", lambda: robust.lp_matrix(np.full((2, 2), np.nan), Y2), ValueError, "K"),
    ("lp_matrix", "delta<0", lambda: robust.lp_matrix(np.eye(2), Y2, np.array([-1.0, 0.0])), ValueError, "delta"),
    ("lp_matrix", "delta length", lambda: robust.lp_matrix(np.eye(2), Y2, np.ones(3)), ValueError, "delta"),
    ("line_search_count", "lengths", lambda: robust.line_search_count(np.zeros(3), np.ones(2), 0.0), ValueError, "y"),
    ("line_search_count", "nan", lambda: robust.line_search_count(np.array([np.nan]), np.ones(1), 0.0), ValueError,
     "s"),
    ("line_search_count", "objective name", lambda: robust.line_search_count(np.zeros(1), np.ones(1), 0.0, "paper"),
     TypeError, ""),
    ("line_search_exact", "2d", lambda: robust.line_search_exact(np.zeros((3, 1)), np.ones(3), -1, 1), ValueError,
     "s"),
    ("line_search_exact", "nan scores", lambda: robust.line_search_exact(np.array([np.nan, 1.0, 0.5] * 50),
                                                                         np.array([1.0, -1.0, 1.0] * 50), -1, 1),
     ValueError, "s"),
    ("line_search_exact", "labels 0/1", lambda: robust.line_search_exact(np.zeros(2), np.array([0.0, 1.0]), -1, 1),
     ValueError, "y"),
    ("line_search_exact", "nan end", lambda: robust.line_search_exact(np.zeros(2), np.ones(2), np.nan, 1),
     ValueError, "NaN"),
    ("line_search_exact", "int scores", lambda: robust.line_search_exact(np.zeros(2, int), np.ones(2), -1, 1),
     TypeError, ""),
    ("line_search_exact", "weight 0", lambda: robust.line_search_exact(np.zeros(2), np.ones(2), -1, 1,
                                                                        w=np.array([1.0, 0.0])), ValueError, "w"),
    ("line_search_exact", "weight length", lambda: robust.line_search_exact(np.zeros(2), np.ones(2), -1, 1,
                                                                             w=np.ones(3)), ValueError, "w"),
    ("line_search_grid", "weight inf", lambda: robust.line_search_grid(np.zeros(2), np.ones(2), -1, 1,
                                                                        w=np.array([1.0, np.inf])), ValueError, "w"),
    ("line_search_grid", "n_grid", lambda: robust.line_search_grid(np.zeros(2), np.ones(2), -1, 1, 1), ValueError,
     "n_grid"),
    ("line_search_grid", "inf end", lambda: robust.line_search_grid(np.zeros(2), np.ones(2), -np.inf, 1), ValueError,
     "finite"),
    ("line_search_grid", "nan scores", lambda: robust.line_search_grid(np.array([np.nan, 1.0]), np.ones(2), -1, 1),
     ValueError, "s"),
    ("line_search_grid", "objective name", lambda: robust.line_search_grid(np.zeros(2), np.ones(2), -1, 1,
                                                                           objective="decision"), TypeError, ""),
    ("line_search_grid_naive", "n_grid", lambda: robust.line_search_grid_naive(np.zeros(2), np.ones(2), -1, 1, 1),
     ValueError, "n_grid"),
    ("line_search_grid_naive", "nan scores",
     lambda: robust.line_search_grid_naive(np.array([np.nan, 1.0]), np.ones(2), -1, 1), ValueError, "s"),
    ("DenseLP", "non-square K", lambda: robust.DenseLP(np.zeros((2, 3)), np.ones(2), None), ValueError, "square"),
    ("DenseLP", "bad labels", lambda: robust.DenseLP(np.eye(2), np.array([1.0, 2.0]), None), ValueError, "y"),
    ("DenseLP", "inf in K", lambda: robust.DenseLP(np.array([[1.0, np.inf], [np.inf, 1.0]]), Y2, None), ValueError,
     "finite"),
    ("DenseLP", "negative delta", lambda: robust.DenseLP(np.eye(2), Y2, np.array([0.1, -0.1])), ValueError, "delta"),
    ("DenseLP", "wrong delta length", lambda: robust.DenseLP(np.eye(2), Y2, np.zeros(3)), ValueError, "delta"),
    ("DenseLP", "float32 K", lambda: robust.DenseLP(np.eye(2, dtype=np.float32), Y2, None), TypeError, ""),
    ("DenseLP.solve", "nu = 0", lambda: robust.DenseLP(np.eye(2), Y2, None).solve(0.0), ValueError, "nu"),
    ("DenseLP.solve", "nan nu", lambda: robust.DenseLP(np.eye(2), Y2, None).solve(np.nan), ValueError, "nu"),
    ("reduced_normal_pass", "Q shape", lambda: _normal_pass(V=np.ones((4, 1)), F_out=np.zeros((10, 1)),
                                                          Q=np.ones((10, 2))), ValueError, "Q"),
    ("reduced_normal_pass", "Q without V", lambda: _normal_pass(Q=np.ones((10, 3))), ValueError, "Q"),
    ("reduced_normal_pass", "Q nan", lambda: _normal_pass(V=np.ones((4, 1)), F_out=np.zeros((10, 1)),
                                                        Q=np.full((10, 3), np.nan)), ValueError, "Q"),
    ("reduced_normal_pass", "theta<0", lambda: _normal_pass(theta=-np.ones(10)), ValueError, "theta"),
    ("reduced_normal_pass", "theta nan", lambda: _normal_pass(theta=np.full(10, np.nan)), ValueError, "theta"),
    ("reduced_normal_pass", "theta length", lambda: _normal_pass(theta=np.ones(9)), ValueError, "theta"),
    ("reduced_normal_pass", "theta int", lambda: _normal_pass(theta=np.ones(10, int)), TypeError, ""),
    ("reduced_normal_pass", "extra inf", lambda: _normal_pass(extra=np.full(10, np.inf)), ValueError, "extra"),
    ("reduced_normal_pass", "extra length", lambda: _normal_pass(extra=np.ones(9)), ValueError, "extra"),
    ("reduced_normal_pass", "B rows", lambda: _normal_pass(B=np.ones((9, 2))), ValueError, "B must"),
    ("reduced_normal_pass", "B nan", lambda: _normal_pass(B=np.full((10, 2), np.nan)), ValueError, "B must"),
    ("reduced_normal_pass", "B 1d", lambda: _normal_pass(B=np.ones(10)), ValueError, "B"),
    ("reduced_normal_pass", "V rows", lambda: _normal_pass(V=np.ones((3, 1)), F_out=np.zeros((10, 1))), ValueError,
     "V must"),
    ("reduced_normal_pass", "V nan", lambda: _normal_pass(V=np.full((4, 1), np.nan), F_out=np.zeros((10, 1))),
     ValueError, "V must"),
    ("reduced_normal_pass", "V float32", lambda: _normal_pass(V=np.ones((4, 1), np.float32), F_out=np.zeros((10, 1))),
     TypeError, ""),
    ("reduced_normal_pass", "V without F_out", lambda: _normal_pass(V=np.ones((4, 1))), ValueError, "F_out"),
    ("reduced_normal_pass", "F_out without V", lambda: _normal_pass(F_out=np.zeros((10, 1))), ValueError, "F_out"),
    ("reduced_normal_pass", "F_out shape", lambda: _normal_pass(V=np.ones((4, 2)), F_out=np.zeros((10, 1))),
     ValueError, "F_out"),
    ("reduced_normal_pass", "F_out read-only",
     lambda: _normal_pass(V=np.ones((4, 1)), F_out=_read_only(np.zeros((10, 1)))), ValueError, "F_out"),
    ("reduced_normal_pass", "F_out Fortran",
     lambda: _normal_pass(V=np.ones((4, 2)), F_out=np.zeros((10, 2), order="F")), ValueError, "F_out"),
    ("reduced_normal_pass", "F_out float32",
     lambda: _normal_pass(V=np.ones((4, 1)), F_out=np.zeros((10, 1), np.float32)), TypeError, ""),
    ("reduced_normal_pass", "Phi and X", lambda: _normal_pass(Phi=np.ones((10, 3))), ValueError, "not both"),
    ("reduced_normal_pass", "no Z", lambda: _normal_pass(Z=None), ValueError, "Z"),
    ("reduced_normal_pass", "no params", lambda: _normal_pass(params=None), ValueError, "params"),
    ("reduced_normal_pass", "X nan", lambda: _normal_pass(X=ZN), ValueError, "X"),
    ("reduced_normal_pass", "Z inf", lambda: _normal_pass(Z=np.full((3, 2), np.inf)), ValueError, "Z"),
    ("reduced_normal_pass", "columns", lambda: _normal_pass(Z=Z[:3, :1]), ValueError, "columns"),
    ("reduced_normal_pass", "Phi nan", lambda: _normal_pass(X=None, Z=None, params=None, Phi=np.full((10, 3), np.nan)),
     ValueError, "Phi"),
    ("reduced_normal_pass", "Phi 1d", lambda: _normal_pass(X=None, Z=None, params=None, Phi=np.ones(10)), ValueError,
     "Phi"),
    ("reduced_normal_pass", "Phi int", lambda: _normal_pass(X=None, Z=None, params=None, Phi=np.ones((10, 3), int)),
     TypeError, ""),
    ("reduced_normal_pass", "block 0", lambda: _normal_pass(block=0), ValueError, "block"),
]
_CUTTING_PLANE = [
    ("cut_pass", "y 0/1", lambda: _cut_pass(y=(YZ > 0) * 1.0), ValueError, "y"),
    ("cut_pass", "y length", lambda: _cut_pass(y=YZ[:9]), ValueError, "y"),
    ("cut_pass", "y int", lambda: _cut_pass(y=YZ.astype(int)), TypeError, ""),
    ("cut_pass", "delta<0", lambda: _cut_pass(delta=-np.ones(10)), ValueError, "delta"),
    ("cut_pass", "delta nan", lambda: _cut_pass(delta=np.full(10, np.nan)), ValueError, "delta"),
    ("cut_pass", "delta length", lambda: _cut_pass(delta=np.ones(9)), ValueError, "delta"),
    ("cut_pass", "weight 0", lambda: _cut_pass(weight=np.zeros(10)), ValueError, "weight"),
    ("cut_pass", "weight nan", lambda: _cut_pass(weight=np.full(10, np.nan)), ValueError, "weight"),
    ("cut_pass", "weight length", lambda: _cut_pass(weight=np.ones(9)), ValueError, "weight"),
    ("cut_pass", "v length", lambda: _cut_pass(v=np.zeros(4)), ValueError, "v "),
    ("cut_pass", "v nan", lambda: _cut_pass(v=np.full(3, np.nan)), ValueError, "finite"),
    ("cut_pass", "v float32", lambda: _cut_pass(v=np.zeros(3, np.float32)), TypeError, ""),
    ("cut_pass", "gamma inf", lambda: _cut_pass(gamma=np.inf), ValueError, "finite"),
    ("cut_pass", "S nan", lambda: _cut_pass(S=np.nan), ValueError, "finite"),
    ("cut_pass", "Phi and X", lambda: _cut_pass(Phi=np.ones((10, 3))), ValueError, "not both"),
    ("cut_pass", "no Z", lambda: _cut_pass(Z=None), ValueError, "Z"),
    ("cut_pass", "no params", lambda: _cut_pass(params=None), ValueError, "params"),
    ("cut_pass", "X nan", lambda: _cut_pass(X=ZN), ValueError, "X"),
    ("cut_pass", "Z inf", lambda: _cut_pass(Z=np.full((3, 2), np.inf)), ValueError, "Z"),
    ("cut_pass", "columns", lambda: _cut_pass(Z=Z[:3, :1]), ValueError, "columns"),
    ("cut_pass", "Z float32", lambda: _cut_pass(Z=Z[:3].astype(np.float32)), TypeError, ""),
    ("cut_pass", "Phi 1d", lambda: _cut_pass(X=None, Z=None, params=None, Phi=np.ones(10)), ValueError,
     "Phi"),
    ("cut_pass", "Phi int", lambda: _cut_pass(X=None, Z=None, params=None, Phi=np.ones((10, 3), int)),
     TypeError, ""),
    ("cut_pass", "block 0", lambda: _cut_pass(block=0), ValueError, "block"),
    ("cut_pass", "scores_out length", lambda: _cut_pass(scores_out=np.zeros(9)), ValueError, "scores_out"),
    ("cut_pass", "scores_out read-only", lambda: _cut_pass(scores_out=_read_only(np.zeros(10))), ValueError,
     "scores_out"),
    ("cut_pass", "scores_out strided", lambda: _cut_pass(scores_out=np.zeros(20)[::2]), ValueError,
     "scores_out"),
    ("cut_pass", "scores_out float32", lambda: _cut_pass(scores_out=np.zeros(10, np.float32)), TypeError, ""),
]
_PROTOTYPES = [
    ("entropy_log_offdiag", "idx out of range", lambda: prototypes.entropy_log_offdiag(Z, np.array([0, 1, 1000])),
     ValueError, "idx"),
    ("entropy_log_offdiag", "negative idx", lambda: prototypes.entropy_log_offdiag(Z, np.array([0, -5])), ValueError,
     "idx"),
    ("entropy_log_offdiag", "2d idx", lambda: prototypes.entropy_log_offdiag(Z, np.zeros((2, 2), int)), ValueError,
     "1-D"),
    ("entropy_log_offdiag", "int32 idx", lambda: prototypes.entropy_log_offdiag(Z, np.array([0, 1], I32)), TypeError,
     ""),
    ("entropy_log_rowsum", "point", lambda: prototypes.entropy_log_rowsum(Z, np.array([0, 1]), 1000, 0), ValueError,
     "point"),
    ("entropy_log_rowsum", "idx", lambda: prototypes.entropy_log_rowsum(Z, np.array([0, 2000]), 0, 0), ValueError,
     "idx"),
    ("entropy_select", "m=0", lambda: prototypes.entropy_select(Z, 0), ValueError, "m "),
    ("entropy_select", "m>n", lambda: prototypes.entropy_select(Z, 11), ValueError, "m "),
    ("entropy_select", "labels", lambda: prototypes.entropy_select(Z, 3, labels=np.array([0, 1])), ValueError,
     "labels"),
    ("entropy_select", "negative labels", lambda: prototypes.entropy_select(Z, 3, labels=-np.ones(10, int)),
     ValueError, "labels"),
    ("entropy_select", "int32 labels", lambda: prototypes.entropy_select(Z, 3, labels=np.zeros(10, I32)), TypeError,
     ""),
    ("entropy_select", "init", lambda: prototypes.entropy_select(Z, 2, init=np.array([0, 0])), ValueError, "initial"),
    ("entropy_select", "init length", lambda: prototypes.entropy_select(Z, 2, init=np.array([0])), ValueError, "init"),
    ("kde_psi", "empty", lambda: prototypes.kde_psi(np.zeros(0), 1.0, 4), ValueError, "n >= 1"),
    ("kde_psi", "r", lambda: prototypes.kde_psi(np.arange(3.0), 1.0, 5), ValueError, "r must"),
    ("kde_psi", "g", lambda: prototypes.kde_psi(np.arange(3.0), -1.0, 4), ValueError, "g > 0"),
    ("kde_psi", "2d", lambda: prototypes.kde_psi(np.zeros((2, 2)), 1.0, 4), ValueError, "x_sorted must"),
    ("kde_psi", "int", lambda: prototypes.kde_psi(np.arange(3), 1.0, 4), TypeError, ""),
    ("kde_psi_with_derivative", "empty", lambda: prototypes.kde_psi_with_derivative(np.zeros(0), 1.0), ValueError,
     "n >= 1"),
    ("kde_psi_with_derivative", "g", lambda: prototypes.kde_psi_with_derivative(np.arange(3.0), 0.0), ValueError,
     "g > 0"),
    ("kde_psi_with_derivative", "2d", lambda: prototypes.kde_psi_with_derivative(np.zeros((2, 2)), 1.0), ValueError,
     "x_sorted must"),
]
_FIXED_SIZE = [
    ("nystrom_features", "P rows", lambda: fixed_size.nystrom_features(Z, Z[:3], KP, np.eye(4)), ValueError, "P "),
    ("nystrom_features", "PV columns", lambda: fixed_size.nystrom_features(Z, Z[:3, :1], KP, np.eye(3)), ValueError,
     "PV"),
    ("FoldAccumulator", "no prototypes", lambda: fixed_size.FoldAccumulator(Z[:0], KP, np.zeros((0, 0))), ValueError,
     "prototype"),
    ("FoldAccumulator", "P rows", lambda: fixed_size.FoldAccumulator(Z[:3], KP, np.eye(5)), ValueError, "P "),
    ("FoldAccumulator", "n_folds", lambda: _acc(n_folds=0), ValueError, "n_folds"),
    ("FoldAccumulator", "statistics", lambda: _acc(statistics="gram"), ValueError, "statistics"),
    ("FoldAccumulator.results", "raw of features", lambda: _acc(statistics="features").results(raw=True), ValueError,
     "feature statistics"),
    ("kernel_statistics_preferred", "P 1-d", lambda: fixed_size.kernel_statistics_preferred(np.ones(3)), ValueError,
     "P"),
    ("kernel_statistics_preferred", "P dtype", lambda: fixed_size.kernel_statistics_preferred(np.ones((3, 3), int)),
     TypeError, "incompatible"),
    ("project_statistics", "G rows", lambda: fixed_size.project_statistics(np.ones((1, 3, 3)), np.ones((1, 3, 1)),
                                                                          np.eye(3)), ValueError, "(m + 1)"),
    ("project_statistics", "folds", lambda: fixed_size.project_statistics(np.ones((2, 4, 4)), np.ones((1, 4, 1)),
                                                                         np.eye(3)), ValueError, "one entry per fold"),
    ("project_statistics", "2d", lambda: fixed_size.project_statistics(np.ones((4, 4)), np.ones((4, 1)), np.eye(3)),
     ValueError, "G"),
    ("FoldAccumulator", "n_targets", lambda: _acc(n_targets=0), ValueError, "n_targets"),
    ("FoldAccumulator.add", "columns", lambda: _acc().add(np.zeros((4, 7)), np.zeros((4, 1))), ValueError,
     "columns"),
    ("FoldAccumulator.predict_kept", "not kept", lambda: _acc().predict_kept(np.zeros((1, 4, 1))), ValueError,
     "keep_features"),
    ("FoldAccumulator.predict_kept", "theta shape", lambda: _acc(keep_features=True).predict_kept(np.zeros((1, 3, 1))),
     ValueError, "theta"),
    ("FoldAccumulator.add", "Y rows", lambda: _acc().add(Z[:4], np.zeros((3, 1))), ValueError, "Y"),
    ("FoldAccumulator.add", "fold ids", lambda: _acc(n_folds=2).add(Z[:4], np.zeros((4, 1)), np.arange(4, dtype=I32)),
     ValueError, "fold"),
    ("FoldAccumulator.add", "int64 folds", lambda: _acc(n_folds=2).add(Z[:4], np.zeros((4, 1)), np.zeros(4, int)),
     TypeError, ""),
    ("FoldAccumulator.add", "folds length", lambda: _acc(n_folds=2).add(Z[:4], np.zeros((4, 1)), np.zeros(3, I32)),
     ValueError, "folds"),
    ("FoldAccumulator.add", "out shape", lambda: _acc().add(Z[:4], np.zeros((4, 1)), out=np.zeros((4, 3))),
     ValueError, "out"),
    ("FoldAccumulator.add", "out order", lambda: _acc().add(Z[:4], np.zeros((4, 1)), out=np.zeros((4, 4), order="F")),
     ValueError, "out"),
    ("FoldAccumulator.add", "out dtype", lambda: _acc().add(Z[:4], np.zeros((4, 1)), out=np.zeros((4, 4), np.float32)),
     TypeError, ""),
    ("FoldAccumulator.features", "columns", lambda: _acc().features(np.zeros((4, 9))), ValueError, "columns"),
    ("FoldAccumulator.add", "zero weight", lambda: _acc().add(Z[:4], np.zeros((4, 1)), weights=np.r_[1.0, 0, 1, 1]),
     ValueError, "weights"),
    ("FoldAccumulator.add", "negative weight", lambda: _acc(n_folds=2).add(Z[:4], np.zeros((4, 1)), np.zeros(4, I32),
                                                                           weights=-np.ones(4)), ValueError, "weights"),
    ("FoldAccumulator.add", "nan weight", lambda: _acc(statistics="kernel").add(Z[:4], np.zeros((4, 1)),
                                                                                weights=np.r_[np.nan, 1, 1, 1]),
     ValueError, "weights"),
    ("FoldAccumulator.add", "inf weight", lambda: _acc().add(Z[:4], np.zeros((4, 1)), weights=np.r_[np.inf, 1, 1, 1]),
     ValueError, "weights"),
    ("FoldAccumulator.add", "weights length", lambda: _acc().add(Z[:4], np.zeros((4, 1)), weights=np.ones(3)),
     ValueError, "weights"),
    ("FoldAccumulator.add", "weights 2d", lambda: _acc().add(Z[:4], np.zeros((4, 1)), weights=np.ones((4, 1))),
     ValueError, "weights"),
    ("FoldAccumulator.add", "weights dtype", lambda: _acc().add(Z[:4], np.zeros((4, 1)), weights=np.ones(4, int)),
     TypeError, ""),
    ("fast_cv_solve", "t rows", lambda: fixed_size.fast_cv_solve(np.ones((2, 3, 3)), np.ones((2, 5, 1)), 1.0),
     ValueError, "t "),
    ("fast_cv_solve", "G not square", lambda: fixed_size.fast_cv_solve(np.ones((2, 3, 4)), np.ones((2, 3, 1)), 1.0),
     ValueError, "G "),
    ("fast_cv_solve", "folds", lambda: fixed_size.fast_cv_solve(np.ones((2, 3, 3)), np.ones((3, 3, 1)), 1.0),
     ValueError, "fold"),
    ("fast_cv_solve", "gamma", lambda: fixed_size.fast_cv_solve(np.ones((2, 3, 3)), np.ones((2, 3, 1)), 0.0),
     ValueError, "gamma"),
    ("fast_cv_solve", "2d", lambda: fixed_size.fast_cv_solve(np.ones((3, 3)), np.ones((3, 1)), 1.0), ValueError, "G "),
    # a numerical failure of the data, not a malformed argument: RuntimeError (the Python layer maps it)
    ("fast_cv_solve", "not SPD", lambda: fixed_size.fast_cv_solve(-np.ones((2, 3, 3)) * 1e3, np.ones((2, 3, 1)), 1.0),
     RuntimeError, "positive definite"),
    ("fast_cv_holdout", "G size", lambda: _holdout(G=np.eye(2), t=np.ones((2, 1))), ValueError, "G "),
    ("fast_cv_holdout", "Y rows", lambda: _holdout(Y=np.ones((3, 1))), ValueError, "Y "),
    ("fast_cv_holdout", "t cols", lambda: _holdout(t=np.ones((3, 2))), ValueError, "t "),
    ("fast_cv_holdout", "fold ids", lambda: _holdout(folds=np.array([0, 1, 2, 5], I32), n_folds=3), ValueError,
     "fold"),
    ("fast_cv_holdout", "folds length", lambda: _holdout(folds=np.zeros(3, I32)), ValueError, "folds"),
    ("fast_cv_holdout", "int64 folds", lambda: _holdout(folds=np.zeros(4, int)), TypeError, ""),
    ("fast_cv_holdout", "gamma", lambda: _holdout(gamma=0.0), ValueError, "gamma"),
    ("fast_cv_holdout", "n_folds", lambda: _holdout(n_folds=0), ValueError, "n_folds"),
    ("fast_cv_holdout", "not SPD", lambda: _holdout(G=-np.eye(3) * 1e3), RuntimeError, "positive definite"),
    ("ridge_solve", "not square", lambda: fixed_size.ridge_solve(np.ones((3, 4)), np.ones((3, 1)), 1.0), ValueError,
     "G "),
    ("ridge_solve", "t rows", lambda: fixed_size.ridge_solve(np.eye(3), np.ones((5, 1)), 1.0), ValueError, "t "),
    ("ridge_solve", "gamma nan", lambda: fixed_size.ridge_solve(np.eye(3), np.ones((3, 1)), np.nan), ValueError,
     "gamma"),
    ("fold_predict", "fold ids", lambda: fixed_size.fold_predict(np.ones((4, 3)), np.array([0, 1, 2, 5], I32),
                                                                 np.ones((2, 3, 1))), ValueError, "fold"),
    ("fold_predict", "theta rows", lambda: fixed_size.fold_predict(np.ones((4, 3)), np.zeros(4, I32),
                                                                   np.ones((2, 5, 1))), ValueError, "theta"),
    ("fold_predict", "theta empty", lambda: fixed_size.fold_predict(np.ones((4, 3)), np.zeros(4, I32),
                                                                    np.ones((0, 3, 1))), ValueError, "theta"),
    ("fold_predict", "folds length", lambda: fixed_size.fold_predict(np.ones((4, 3)), np.zeros(3, I32),
                                                                     np.ones((2, 3, 1))), ValueError, "folds"),
    ("fold_predict", "int64 folds", lambda: fixed_size.fold_predict(np.ones((4, 3)), np.zeros(4, int),
                                                                    np.ones((2, 3, 1))), TypeError, ""),
    ("csa_acceptance", "empty", lambda: fixed_size.csa_acceptance(np.zeros(0), 1.0), ValueError, "energy"),
    ("csa_acceptance", "Tac", lambda: fixed_size.csa_acceptance(np.zeros(3), 0.0), ValueError, "Tac"),
    ("csa_acceptance", "nan", lambda: fixed_size.csa_acceptance(np.array([np.nan, 1.0]), 1.0), ValueError, "energies"),
    ("csa_update_tac", "q", lambda: fixed_size.csa_update_tac(1.0, 0.1, 0), ValueError, "q "),
    ("csa_update_tac", "Tac", lambda: fixed_size.csa_update_tac(-1.0, 0.1, 3), ValueError, "Tac"),
    ("csa_update_tac", "variance", lambda: fixed_size.csa_update_tac(1.0, np.nan, 3), ValueError, "variance"),
    ("csa_minimize", "empty x0", lambda: _csa(x0=np.zeros((0, 2))), ValueError, "x0"),
    ("csa_minimize", "bounds", lambda: _csa(lower=np.array([np.nan, -1.0])), ValueError, "lower < upper"),
    ("csa_minimize", "bound length", lambda: _csa(lower=-np.ones(3), upper=np.ones(3)), ValueError, "lower"),
    ("csa_minimize", "max_evals", lambda: _csa(max_evals=2), ValueError, "max_evals"),
    ("csa_minimize", "int x0", lambda: _csa(x0=np.zeros((3, 2), int)), TypeError, ""),
    ("csa_minimize", "cost raises", lambda: _csa(cost=lambda x: 1 / 0), ZeroDivisionError, "division"),
    ("csa_minimize", "cost type", lambda: _csa(cost=lambda x: "cheap"), TypeError, "cost must return"),
    ("nystrom_projection", "no prototypes", lambda: fixed_size.nystrom_projection(Z[:0], KP), ValueError, "PV"),
    ("nystrom_projection", "1d", lambda: fixed_size.nystrom_projection(Z[0], KP), ValueError, "PV"),
    ("nystrom_projection", "nan", lambda: fixed_size.nystrom_projection(ZN[:5], KP), ValueError, "finite"),
    ("nystrom_projection", "zero kernel matrix", lambda: fixed_size.nystrom_projection(
        np.zeros((3, 2)), kernels.KernelParams(kernels.KernelKind.linear)), ValueError, "zero"),
    ("nystrom_projection", "int", lambda: fixed_size.nystrom_projection(Z.astype(int), KP), TypeError, ""),
    ("nystrom_projection", "params", lambda: fixed_size.nystrom_projection(Z, "rbf"), TypeError, ""),
    ("holdout_cheaper", "float n", lambda: fixed_size.holdout_cheaper(10.5, 3, 2), TypeError, ""),
    ("nelder_mead", "empty x0", lambda: _search(fixed_size.nelder_mead, x0=np.zeros(0), lower=np.zeros(0),
                                                upper=np.zeros(0)), ValueError, "x0"),
    ("nelder_mead", "2d x0", lambda: _search(fixed_size.nelder_mead, x0=np.zeros((1, 2))), ValueError, "x0"),
    ("nelder_mead", "int x0", lambda: _search(fixed_size.nelder_mead, x0=np.zeros(2, int)), TypeError, ""),
    ("nelder_mead", "lower only", lambda: fixed_size.nelder_mead(lambda x: 0.0, np.zeros(2), -np.ones(2)),
     ValueError, "lower"),
    ("nelder_mead", "bound length", lambda: _search(fixed_size.nelder_mead, lower=-np.ones(3)), ValueError, "lower"),
    ("nelder_mead", "cost raises", lambda: _search(fixed_size.nelder_mead, cost=lambda x: 1 / 0), ZeroDivisionError,
     "division"),
    ("nelder_mead", "cost type", lambda: _search(fixed_size.nelder_mead, cost=lambda x: "cheap"), TypeError,
     "cost must return"),
    ("csa_simplex", "empty x0", lambda: _search(fixed_size.csa_simplex, x0=np.zeros((0, 2))), ValueError, "x0"),
    ("csa_simplex", "empty x0, no CSA", lambda: _search(fixed_size.csa_simplex, x0=np.zeros((0, 2)), n_csa=0),
     ValueError, "x0"),
    ("csa_simplex", "bounds", lambda: _search(fixed_size.csa_simplex, lower=np.array([np.nan, -1.0])), ValueError,
     "lower < upper"),
    ("csa_simplex", "bound length", lambda: _search(fixed_size.csa_simplex, upper=np.ones(3)), ValueError, "upper"),
    ("csa_simplex", "int x0", lambda: _search(fixed_size.csa_simplex, x0=np.zeros((3, 2), int)), TypeError, ""),
    ("csa_simplex", "cost raises", lambda: _search(fixed_size.csa_simplex, cost=lambda x: 1 / 0), ZeroDivisionError,
     "division"),
    ("csa_simplex", "cost type", lambda: _search(fixed_size.csa_simplex, cost=lambda x: "cheap", n_csa=0),
     TypeError, "cost must return"),
    ("CVCost", "fold ids", lambda: _cv(folds=(np.arange(10) % 3).astype(I32)), ValueError, "fold ids"),
    ("CVCost", "folds length", lambda: _cv(folds=np.zeros(9, I32)), ValueError, "folds"),
    ("CVCost", "int64 folds", lambda: _cv(folds=np.zeros(10, int)), TypeError, ""),
    ("CVCost", "n_folds", lambda: _cv(n_folds=0), ValueError, "n_folds"),
    ("CVCost", "X rows", lambda: _cv(X=Z[:9]), ValueError, "X"),
    ("CVCost", "Y 1d", lambda: _cv(Y=np.ones(10)), ValueError, "Y"),
    ("CVCost", "rows order", lambda: _cv(X=np.vstack([Z, Z]), rows=np.arange(19, 9, -1)), ValueError, "rows"),
    ("CVCost", "rows range", lambda: _cv(rows=np.arange(1, 11)), ValueError, "rows"),
    ("CVCost", "int32 rows", lambda: _cv(rows=np.arange(10, dtype=I32)), TypeError, ""),
    ("CVCost", "mean only", lambda: _cv(mean=np.zeros(2)), ValueError, "mean"),
    ("CVCost", "mean length", lambda: _cv(mean=np.zeros(3), scale=np.ones(3)), ValueError, "mean"),
    ("CVCost", "PV columns", lambda: _cv(PV=np.zeros((3, 1))), ValueError, "PV"),
    ("CVCost", "linear features", lambda: _cv(PV=np.zeros((0, 2)), n_features_linear=3), ValueError,
     "n_features_linear"),
    ("CVCost", "block", lambda: _cv(block=0), ValueError, "block"),
    ("CVCost", "feature budget", lambda: _cv(feature_budget=10 * 4 * 8 - 1), ValueError, "feature budget"),
    ("CVCost", "task name", lambda: _cv(task="regression"), TypeError, ""),
    ("CVCost", "float32 X", lambda: _cv(X=Z.astype(np.float32)), TypeError, ""),
    ("CVCost", "zero weight", lambda: _cv(weights=np.r_[np.ones(9), 0.0]), ValueError, "weights"),
    ("CVCost", "nan weight", lambda: _cv(weights=np.r_[np.nan, np.ones(9)]), ValueError, "weights"),
    ("CVCost", "weights length", lambda: _cv(weights=np.ones(9)), ValueError, "weights"),
    ("CVCost", "weights dtype", lambda: _cv(weights=np.ones(10, int)), TypeError, ""),
    ("CVCost.cost", "nan X", lambda: _cv(X=ZN).cost(1.0, 1.0), ValueError, "X"),
    ("CVCost.cost", "gamma", lambda: _cv().cost(0.0, 1.0), ValueError, "gamma"),
    ("CVCost.cost", "zero kernel matrix", lambda: _cv(PV=np.zeros((3, 2)), tune_rbf=False,
                                                      params=kernels.KernelParams(kernels.KernelKind.linear)).cost(
        1.0, 1.0), ValueError, "zero"),
    ("CVCost.fit", "gamma", lambda: _cv().fit(np.nan, 1.0), ValueError, "gamma"),
    ("tune_cv", "nothing to tune", lambda: _tune(tune_gamma=False, tune_sigma2=False), ValueError, "nothing"),
    ("tune_cv", "x0 columns", lambda: _tune(tune_sigma2=False), ValueError, "x0"),
    ("tune_cv", "bound length", lambda: _tune(lower=-np.ones(3)), ValueError, "lower"),
    ("tune_cv", "bounds", lambda: _tune(upper=np.array([1.0, -2.0])), ValueError, "lower < upper"),
    ("tune_cv", "int x0", lambda: _tune(x0=np.zeros((3, 2), int)), TypeError, ""),
    ("tune_cv", "not a CVCost", lambda: _tune(cv="cv"), TypeError, ""),
    ("tune_cv", "negative time_limit", lambda: _tune(time_limit=-1.0), ValueError, "time_limit"),
    ("tune_cv", "nan time_limit", lambda: _tune(time_limit=np.nan), ValueError, "time_limit"),
    ("csa_simplex", "negative time_limit", lambda: _search(fixed_size.csa_simplex, time_limit=-1.0), ValueError,
     "time_limit"),
    ("nelder_mead", "nan time_limit", lambda: _search(fixed_size.nelder_mead, time_limit=np.nan), ValueError,
     "time_limit"),
    ("csa_minimize", "negative time_limit", lambda: _csa(time_limit=-0.5), ValueError, "time_limit"),
]
_ELLIPSOID = [
    ("two_swarm", "nan", lambda: _two_swarm(mu1=np.array([np.nan, 0.0])), ValueError, "non-finite"),
    ("two_swarm", "not PD", lambda: _two_swarm(P1=-np.eye(2)), ValueError, "positive definite"),
    ("two_swarm", "empty", lambda: _two_swarm(np.zeros(0), np.eye(0), np.zeros(0), np.eye(0)), ValueError,
     "coordinate"),
    ("two_swarm", "dimensions", lambda: _two_swarm(mu2=np.zeros(3), P2=np.eye(3)), ValueError, "mu2"),
    ("two_swarm", "P shape", lambda: _two_swarm(P1=np.eye(3)), ValueError, "P1"),
    ("two_swarm", "int mu", lambda: _two_swarm(mu2=np.full(2, 3)), TypeError, ""),
    ("two_swarm", "n_particles", lambda: _two_swarm(n_particles=0), ValueError, "n_particles"),
    ("two_swarm", "max_iter", lambda: _two_swarm(max_iter=-1), ValueError, "max_iter"),
    ("two_swarm", "s_init", lambda: _two_swarm(s_init=0.0), ValueError, "s_init"),
    ("two_swarm", "sync name", lambda: _two_swarm(sync="jacobi"), TypeError, ""),
    ("two_swarm", "rand_scope name", lambda: _two_swarm(rand_scope="particle"), TypeError, ""),
    ("two_swarm", "boundary name", lambda: _two_swarm(boundary="project"), TypeError, ""),
    ("two_swarm", "boundary_mode keyword", lambda: _two_swarm(boundary_mode=ellipsoid.Boundary.project), TypeError, ""),
    ("single_swarm", "a length", lambda: ellipsoid.single_swarm(np.zeros(2), np.eye(2), np.zeros(3)), ValueError,
     "a must have length 2"),
    ("single_swarm", "fitness name", lambda: ellipsoid.single_swarm(np.zeros(2), np.eye(2), np.zeros(2), "linear"),
     TypeError, ""),
    ("single_swarm", "a nan", lambda: ellipsoid.single_swarm(np.zeros(2), np.eye(2), np.array([np.nan, 0.0])),
     ValueError, "target a must be finite"),
    ("draws", "n_particles", lambda: ellipsoid.draws(0, 0, 0, -3, 2), ValueError, "n_particles"),
    ("draws", "n", lambda: ellipsoid.draws(0, 0, 0, 3, -2), ValueError, "n "),
    ("draws", "rand_scope name", lambda: ellipsoid.draws(0, 0, 0, 3, 2, "iteration"), TypeError, ""),
    ("uniform", "negative seed", lambda: ellipsoid.uniform(-1, 0, 0, 0, 0), TypeError, ""),
    ("particle_step", "lengths", lambda: ellipsoid.particle_step(
        np.zeros(2), np.zeros(2), np.zeros(2), np.zeros(2), np.zeros(3), 0.1, 0.1, 0.1, np.zeros(2), np.zeros(2),
        np.eye(2)), ValueError, "a must have length 2"),
    ("particle_step", "P shape", lambda: ellipsoid.particle_step(
        np.zeros(2), np.zeros(2), np.zeros(2), np.zeros(2), np.zeros(2), 0.1, 0.1, 0.1, np.zeros(2), np.zeros(2),
        np.eye(3)), ValueError, "P"),
    ("two_swarm", "negative time_limit", lambda: _two_swarm(time_limit=-1.0), ValueError, "time_limit"),
    ("two_swarm", "nan time_limit", lambda: _two_swarm(time_limit=np.nan), ValueError, "time_limit"),
    ("two_swarm", "time_limit string", lambda: _two_swarm(time_limit="1"), TypeError, ""),
    ("single_swarm", "negative time_limit", lambda: ellipsoid.single_swarm(np.zeros(2), np.eye(2), np.ones(2),
                                                                           time_limit=-0.5), ValueError, "time_limit"),
]
# refused installs leave the BLAS in use as it was
_BLAS = [
    ("set_lp64", "not capsules", lambda: blas.set_lp64(1, 2), TypeError, "PyCapsule"),
    ("set_ilp64", "null", lambda: blas.set_ilp64(0, 0, 0), ValueError, "non-null"),
]
CORE_BAD_CALLS = [
    *_rows("kernels", _KERNELS), *_rows("cutting_plane", _CUTTING_PLANE), *_rows("robust", _ROBUST),
    *_rows("prototypes", _PROTOTYPES), *_rows("fixed_size", _FIXED_SIZE), *_rows("ellipsoid", _ELLIPSOID),
    *_rows("blas", _BLAS),
    ("use_blas", "not a bool", lambda: _core.use_blas(1), TypeError, "enabled"),
]

# Entry points that take no array input (build information, the BLAS in use) and are exercised by calling them.
CORE_INFO = {"cpu_supports_avx2_fma", "openmp_enabled", "max_threads", "simd_instruction_sets", "blas_provider",
             "blas.available", "blas.configured", "blas.interface", "blas.potrf_available", "blas.syevd_available"}
# Values, option enums, result classes (built by the core only) and blas.clear (no argument; it changes the BLAS).
CORE_NO_INPUT = {"eigen_version", "isa", "kernels.KernelKind", "robust.Objective", "robust.DenseLPStatus",
                 "robust.DenseLPResult", "prototypes.EntropySelectResult", "fixed_size.CSAResult",
                 "ellipsoid.RandScope", "ellipsoid.Sync", "ellipsoid.Boundary", "ellipsoid.Fitness",
                 "ellipsoid.SwarmTrace", "ellipsoid.TwoSwarmResult", "blas.clear", "fixed_size.SearchResult",
                 "fixed_size.CVTask", "cutting_plane.CutSums"}


def _core_entry_points() -> set[str]:
    """Public names of svmopt._core (its own imports and the submodules aside) and of every submodule."""
    top = {n for n in dir(_core) if not n.startswith("_") and n not in ("annotations", "ModuleType")
           and not isinstance(getattr(_core, n), ModuleType)}
    return top | {f"{s}.{n}" for s in SUBMODULES for n in dir(getattr(_core, s)) if not n.startswith("_")}


def _entry_key(entry: str) -> str:
    """'fixed_size.FoldAccumulator.add' -> 'fixed_size.FoldAccumulator'; 'use_blas' -> 'use_blas'."""
    parts = entry.split(".")
    return ".".join(parts[:2]) if parts[0] in SUBMODULES else parts[0]


def test_every_core_entry_point_is_covered():
    """A new binding must get bad-input rows here before it lands; a row must name a binding that exists."""
    public = _core_entry_points()
    covered = {_entry_key(row[0]) for row in CORE_BAD_CALLS} | CORE_INFO | CORE_NO_INPUT
    assert public - covered == set(), f"core entry points without bad-input cases: {sorted(public - covered)}"
    assert covered - public == set(), f"rows for entry points the core does not have: {sorted(covered - public)}"
    for name in CORE_INFO:
        operator.attrgetter(name)(_core)()


@pytest.mark.parametrize(("entry", "case", "call", "exc", "match"), CORE_BAD_CALLS,
                         ids=[f"{r[0]}-{r[1]}" for r in CORE_BAD_CALLS])
def test_core_rejects_bad_input(entry, case, call, exc, match):
    with pytest.raises(exc) as info:
        call()
    assert match in str(info.value), f"{entry} ({case}): message does not name {match!r}: {info.value}"


def test_core_huge_thread_count_is_clamped():
    """n_threads far beyond the machine used to abort in libgomp (thread creation failed); now it is clamped."""
    ref = kernels.gram(Z, KP, n_threads=1)
    np.testing.assert_array_equal(kernels.gram(Z, KP, n_threads=100_000), ref)
    b = robust.line_search_grid(np.linspace(-1, 1, 50), np.where(np.arange(50) < 25, -1.0, 1.0), -1, 1, 200,
                                n_threads=100_000)
    assert b[1] == 0


def test_core_degenerate_shapes_give_correct_results():
    """Empty and featureless inputs are legal where the result is well defined (empty sums, k(x, x) = 1)."""
    assert kernels.gram(np.zeros((0, 3)), KP).shape == (0, 0)
    np.testing.assert_array_equal(kernels.gram(np.zeros((3, 0)), KP), np.ones((3, 3)))
    assert kernels.diag(np.zeros((0, 2)), KP).shape == (0,)
    assert kernels.matvec(Z, Z, np.zeros((10, 0)), KP).shape == (10, 0)
    np.testing.assert_array_equal(fixed_size.nystrom_features(Z, Z[:0], KP, np.zeros((0, 2))), np.zeros((10, 2)))
    start, index, value = robust.lp_matrix(np.zeros((0, 0)), np.zeros(0))
    assert start.tolist() == [0, 0] and index.size == 0 and value.size == 0
    assert robust.line_search_exact(np.zeros(0), np.zeros(0), -1.0, 1.0) == (0.0, 0)
    assert prototypes.entropy_log_offdiag(Z, np.array([], dtype=int)) == -np.inf
    assert prototypes.entropy_log_offdiag(Z, np.array([4])) == -np.inf
    # block sizes <= 0 mean the default; they must not divide by zero or loop forever
    for block in (0, -5, 1):
        np.testing.assert_array_equal(kernels.gram(Z, KP, block=block), kernels.gram(Z, KP))


def test_core_infinite_scores_are_legal_in_line_search():
    s = np.array([np.inf, -np.inf, 0.0, 1.0])
    y = np.array([1.0, -1.0, -1.0, 1.0])
    b, count = robust.line_search_exact(s, y, -np.inf, np.inf, 0.0, robust.Objective.decision)
    assert count == 0 and 0.0 <= b < 1.0


_HUGE = np.array([[1e300, 0.0], [1e300, 1.0]])  # finite, but ||x||^2 overflows: an RBF would read NaN as exp(0)


@pytest.mark.parametrize("bad", [ZN, np.where(np.isnan(ZN), np.inf, ZN), _HUGE], ids=["nan", "inf", "huge"])
@pytest.mark.parametrize("entry", ["gram", "cross X", "cross Z", "diag", "matvec", "nystrom X", "nystrom PV",
                                   "accumulator add", "accumulator features"])
def test_core_kernels_reject_non_finite_rows(entry, bad):
    """NaN/inf, or values whose squared norm overflows, used to come out of the RBF map as k = 1 (the clamp
    max(d2, 0) turns NaN into 0): a silent wrong kernel. Every kernel entry point now refuses them, naming the
    argument, before any work."""
    good = np.ones((bad.shape[0], bad.shape[1]))
    acc = fixed_size.FoldAccumulator(good[:1], KP, np.eye(1))
    calls = {
        "gram": (lambda: kernels.gram(bad, KP), "X"),
        "cross X": (lambda: kernels.cross(bad, good, KP), "X"),
        "cross Z": (lambda: kernels.cross(good, bad, KP), "Z"),
        "diag": (lambda: kernels.diag(bad, KP), "X"),
        "matvec": (lambda: kernels.matvec(good, bad, np.ones((bad.shape[0], 1)), KP), "Z"),
        "nystrom X": (lambda: fixed_size.nystrom_features(bad, good[:1], KP, np.eye(1)), "X"),
        "nystrom PV": (lambda: fixed_size.nystrom_features(good, bad, KP, np.eye(bad.shape[0])), "PV"),
        "accumulator add": (lambda: acc.add(bad, np.ones((bad.shape[0], 1))), "X"),
        "accumulator features": (lambda: acc.features(bad), "X"),
    }
    call, name = calls[entry]
    with pytest.raises(ValueError, match=rf"^{name} must be finite"):
        call()
    if entry == "accumulator add":  # nothing was accumulated by the refused block
        assert acc.n_rows == 0


def test_python_kernel_layer_rejects_what_the_core_would_propagate():
    k = svmopt.Kernel("rbf", alpha=1.0)
    with pytest.raises(ValueError, match="NaN"):
        k.gram(ZN)
    with pytest.raises(ValueError):
        k.gram(np.full((3, 2), 1e300))
    with pytest.raises(ValueError, match=r"(?i)feature"):
        k.cross(Z, Z[:, :1])
    np.testing.assert_array_equal(k.gram(Z.astype(np.float32).astype(np.float64)),
                                  k.gram(Z.astype(np.float32)))
    np.testing.assert_array_equal(k.gram(np.asfortranarray(Z)), k.gram(Z))


# -- hypothesis: generated shapes and values --------------------------------------------------------------
_finite = st.floats(-1e3, 1e3, allow_nan=False, allow_infinity=False, width=64)
_any_float = st.floats(allow_nan=True, allow_infinity=True, width=64)
_HYP = settings(database=None, suppress_health_check=[HealthCheck.too_slow, HealthCheck.differing_executors])


def _kernel_ref(X, Z_, alpha):
    d2 = ((X[:, None, :] - Z_[None, :, :]) ** 2).sum(-1)
    return np.exp(-d2 / (2 * alpha**2))


@_HYP
@given(X=hnp.arrays(np.float64, hnp.array_shapes(min_dims=2, max_dims=2, min_side=0, max_side=12), elements=_finite),
       order=st.sampled_from(["C", "F", "strided"]), alpha=st.floats(0.1, 10.0))
@example(X=np.zeros((0, 3)), order="C", alpha=1.0)
@example(X=np.ones((1, 1)), order="F", alpha=1.0)
def test_hyp_kernel_gram_matches_numpy(X, order, alpha):
    if order == "F":
        X = np.asfortranarray(X)
    elif order == "strided":
        wide = np.repeat(X, 2, axis=1)
        X = wide[:, ::2]
    kp = kernels.KernelParams(kernels.KernelKind.rbf, alpha=alpha)
    K = kernels.gram(X, kp, n_threads=2, block=3)
    np.testing.assert_allclose(K, _kernel_ref(X, X, alpha), rtol=1e-9, atol=1e-12)
    np.testing.assert_allclose(kernels.diag(X, kp), np.ones(X.shape[0]))
    v = np.arange(X.shape[0], dtype=np.float64)[:, None]
    # The matvec evaluates ||x||^2 + ||z||^2 - 2 x.z in tiles (no exact diagonal as the Gram has): near-duplicate
    # rows of large norm lose up to ~eps (||x||^2 + ||z||^2) in the squared distance, i.e. a relative error of
    # about eps max||x||^2 / alpha^2 in the kernel value (1.9e-9 for rows of 590.5s at alpha = 0.5).
    sq = float(np.max(np.einsum("ij,ij->i", X, X), initial=0.0))
    tol = 1e-9 + 8 * np.finfo(np.float64).eps * sq / alpha**2
    np.testing.assert_allclose(kernels.matvec(X, X, v, kp, block=5), K @ v, rtol=tol,
                               atol=tol * max(1.0, float(v.sum())))


@_HYP
@given(X=hnp.arrays(np.float64, st.tuples(st.integers(1, 6), st.integers(1, 3)), elements=_any_float),
       kind=st.sampled_from(list(kernels.KernelKind.__members__)))
def test_hyp_kernels_on_any_floats(X, kind):
    """Any float64 values: a ValueError naming X exactly when a row is non-finite or its squared norm exceeds
    1e300; otherwise a symmetric Gram that agrees with the cross kernel. No crash, no hang."""
    kp = kernels.KernelParams(kernels.KernelKind.__members__[kind], degree=2)
    with np.errstate(all="ignore"):
        sq = np.einsum("ij,ij->i", X, X)
    if not np.all(sq <= 1e300):
        with pytest.raises(ValueError, match="^X must be finite"):
            kernels.gram(X, kp)
        return
    with np.errstate(all="ignore"):
        K = kernels.gram(X, kp)
        C = kernels.cross(X, X, kp)
    assert K.shape == (X.shape[0], X.shape[0]) and C.shape == K.shape
    both = ~np.isnan(K) & ~np.isnan(K.T)
    np.testing.assert_array_equal(K[both], K.T[both])
    if kind == "rbf":
        assert np.all((K >= 0) & (K <= 1))


@_HYP
@given(s=hnp.arrays(np.float64, st.integers(0, 40), elements=st.floats(-1e6, 1e6) | st.sampled_from([np.inf,
                                                                                                      -np.inf])),
       seed=st.integers(0, 2**16), lo=_finite, hi=_finite, objective=st.sampled_from(OBJECTIVES))
def test_hyp_line_searches_agree_with_brute_force(s, seed, lo, hi, objective):
    y = np.where(np.random.default_rng(seed).random(s.shape[0]) < 0.5, -1.0, 1.0)
    b, count = robust.line_search_exact(s, y, lo, hi, 0.0, objective)
    assert count == robust.line_search_count(s, y, b, objective)
    L, R = min(lo, hi), max(lo, hi)
    grid = np.linspace(L, R, 201)
    brute = min(robust.line_search_count(s, y, t, objective) for t in grid)
    assert count <= brute
    assert L <= b <= R or count == robust.line_search_count(s, y, 0.0, objective)
    bg, cg = robust.line_search_grid(s, y, lo, hi, 50, 0.0, objective)
    assert cg >= count and cg == robust.line_search_count(s, y, bg, objective)


@_HYP
@given(s=hnp.arrays(np.float64, st.integers(1, 30), elements=_any_float), seed=st.integers(0, 2**16))
def test_hyp_line_search_nan_is_an_error(s, seed):
    y = np.where(np.random.default_rng(seed).random(s.shape[0]) < 0.5, -1.0, 1.0)
    if np.isnan(s).any():
        for call in (lambda: robust.line_search_exact(s, y, -1.0, 1.0),
                     lambda: robust.line_search_grid(s, y, -1.0, 1.0, 20),
                     lambda: robust.line_search_count(s, y, 0.0)):
            with pytest.raises(ValueError, match="NaN"):
                call()
    else:
        robust.line_search_exact(s, y, -1.0, 1.0)


@_HYP
@given(m=st.integers(0, 8), seed=st.integers(0, 2**16), with_delta=st.booleans(), order=st.sampled_from(["C", "F"]))
def test_hyp_robust_lp_matrix_matches_dense(m, seed, with_delta, order):
    rng = np.random.default_rng(seed)
    A = rng.standard_normal((m, 2))
    K = np.asarray(_kernel_ref(A, A, 1.0), order=order)
    y = np.where(rng.random(m) < 0.5, -1.0, 1.0)
    delta = rng.random(m) if with_delta else None
    start, index, value = robust.lp_matrix(K, y, delta)
    assert start.shape == (3 * m + 2,) and start[-1] == index.size == value.size
    dense = np.zeros((m, 3 * m + 1))
    for j in range(3 * m + 1):
        dense[index[start[j]:start[j + 1]], j] = value[start[j]:start[j + 1]]
    D = np.diag(y)
    r = np.sqrt(np.diag(K))
    dr = np.zeros((m, m)) if delta is None else np.outer(delta, r)
    np.testing.assert_allclose(dense[:, :m], D @ K @ D - dr, atol=1e-12)
    np.testing.assert_allclose(dense[:, m:2 * m], -D @ K @ D - dr, atol=1e-12)
    np.testing.assert_allclose(dense[:, 2 * m], -y)
    np.testing.assert_allclose(dense[:, 2 * m + 1:], np.eye(m))


@_HYP
@given(n=st.integers(0, 12), L=st.integers(0, 4), seed=st.integers(0, 2**16), with_delta=st.booleans(),
       block=st.integers(1, 5), stream=st.booleans(), scale=st.floats(1e-3, 1e3))
def test_hyp_cut_pass_matches_numpy(n, L, seed, with_delta, block, stream, scale):
    """Any shape (n or L = 0 included) and iterate scale: the cut's sums and the scores are numpy's (rbf rows)."""
    rng = np.random.default_rng(seed)
    A, B = rng.standard_normal((n, 2)), rng.standard_normal((L, 2))
    Phi = _kernel_ref(A, B, 1.0)
    y = np.where(rng.random(n) < 0.5, -1.0, 1.0)
    delta = rng.random(n) if with_delta else None
    v, gamma = scale * rng.standard_normal(L), float(rng.standard_normal())
    S = float(np.abs(v).sum())
    rows = {"X": A, "Z": B, "params": KP} if stream else {"Phi": Phi}
    scores = np.empty(n)
    c = cutting_plane.cut_pass(y, v, gamma, S, delta=delta, scores_out=scores, block=block, **rows)
    f = Phi @ v
    margin = 1 + y * gamma - y * f + (0 if delta is None else delta * S)
    on = margin > 0
    tol = 1e-12 * (1 + np.abs(v).sum()) * (1 + n)
    assert c.n_c == on.sum() and c.b == y[on].sum()
    np.testing.assert_allclose(c.a, Phi[on].T @ y[on], rtol=0, atol=tol)
    np.testing.assert_allclose(scores, f, rtol=0, atol=tol)
    assert c.hinge == pytest.approx(margin[on].sum(), rel=1e-12, abs=tol * (1 + S))
    assert c.e == pytest.approx(0.0 if delta is None else delta[on].sum(), rel=1e-12, abs=1e-12)


@_HYP
@given(n=st.integers(2, 15), d=st.integers(1, 3), m=st.integers(1, 15), seed=st.integers(0, 2**16),
       idx_shift=st.integers(-20, 20))
def test_hyp_entropy_indices_are_checked(n, d, m, seed, idx_shift):
    Zr = np.random.default_rng(seed).standard_normal((n, d))
    idx = np.arange(min(m, n)) + idx_shift
    if idx.min() < 0 or idx.max() >= n:
        with pytest.raises(ValueError, match="idx"):
            prototypes.entropy_log_offdiag(Zr, idx)
        return
    L = prototypes.entropy_log_offdiag(Zr, idx)
    P = Zr[idx]
    d2 = ((P[:, None] - P[None]) ** 2).sum(-1)
    off = d2[~np.eye(len(idx), dtype=bool)]
    ref = np.log(np.exp(-off).sum()) if off.size else -np.inf
    assert L == pytest.approx(ref, rel=1e-9, abs=1e-12)
    if m <= n:
        r = prototypes.entropy_select(Zr, m, seed=seed)
        assert sorted(set(r.idx.tolist())) == sorted(r.idx.tolist()) and len(r.idx) == m
        assert r.idx.min() >= 0 and r.idx.max() < n


@_HYP
@given(v=st.integers(1, 4), p=st.integers(1, 5), k=st.integers(1, 2), seed=st.integers(0, 2**16),
       gamma=st.floats(1e-3, 1e3))
def test_hyp_fast_cv_matches_numpy(v, p, k, seed, gamma):
    rng = np.random.default_rng(seed)
    Phi = [rng.standard_normal((6, p)) for _ in range(v)]
    G = np.stack([F.T @ F for F in Phi])
    t = np.stack([F.T @ rng.standard_normal((6, k)) for F in Phi])
    theta = fixed_size.fast_cv_solve(G, t, gamma, True)
    for u in range(v):
        ref = np.linalg.solve(G.sum(0) - G[u] + np.eye(p) / gamma, t.sum(0) - t[u])
        np.testing.assert_allclose(theta[u], ref, rtol=1e-6, atol=1e-8)
    np.testing.assert_allclose(fixed_size.ridge_solve(G[0], t[0], gamma),
                               np.linalg.solve(G[0] + np.eye(p) / gamma, t[0]), rtol=1e-6, atol=1e-8)


@_HYP
@given(n=st.integers(1, 4), seed=st.integers(0, 2**16), shift=st.floats(-50, 50), scale=st.floats(1e-3, 1e3))
def test_hyp_ellipsoid_two_swarm_finite_and_feasible(n, seed, shift, scale):
    rng = np.random.default_rng(seed)
    A = rng.standard_normal((n, n))
    P = A @ A.T + n * np.eye(n)
    mu2 = np.full(n, shift)
    r = ellipsoid.two_swarm(np.zeros(n), P * scale, mu2, P, n_particles=4, max_iter=10, seed=seed)
    assert np.isfinite(r.distance) and r.x.shape == (n,) and r.y.shape == (n,)
    # both points lie in their ellipsoids: (x - mu)^T P (x - mu) <= 1 (with rounding slack)
    assert r.x @ (P * scale) @ r.x <= 1 + 1e-9
    assert (r.y - mu2) @ P @ (r.y - mu2) <= 1 + 1e-9
