"""Kernel parity: every C++ entry point against a plain numpy reference, plus bad input."""

from __future__ import annotations

import pickle
import threading

import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st
from hypothesis.extra import numpy as hnp

import svmopt
from svmopt import Kernel, MemoryBudgetError, _core
from svmopt.kernels import KERNEL_NAMES, as_kernel, auto_scale

# ----------------------------------------------------------------------------- references


def ref_kernel(k: Kernel, X: np.ndarray, Z: np.ndarray) -> np.ndarray:
    """Plain numpy definition of each kernel (paper 000, Table 2), distances computed directly."""
    G = X @ Z.T
    if k.name == "linear":
        return G
    if k.name == "poly":
        return G ** k.degree
    if k.name == "inhom_poly":
        return (k.c + G) ** k.degree
    if k.name == "rbf":
        d2 = ((X[:, None, :] - Z[None, :, :]) ** 2).sum(-1)
        return np.exp(-d2 / (2.0 * k.alpha**2))
    if k.name == "sigmoid":
        return np.tanh(k.a * G + k.b)
    raise AssertionError(k.name)


KERNELS = [
    Kernel("linear"),
    Kernel("poly", degree=1),
    Kernel("poly", degree=2),
    Kernel("poly", degree=3),
    Kernel("poly", degree=5),
    Kernel("inhom_poly", degree=2, c=0.3),
    Kernel("inhom_poly", degree=3, c=1.0),
    Kernel("inhom_poly", degree=4, c=0.0),
    Kernel("rbf", alpha=1.9),
    Kernel("rbf", alpha=0.05),
    Kernel("sigmoid", a=0.2, b=-0.1),
]


def assert_close(got, want, scale=1.0):
    want = np.asarray(want)
    tol = 1e-12 * max(1.0, float(np.abs(want).max(initial=0.0))) * scale
    np.testing.assert_allclose(got, want, rtol=1e-11, atol=tol)


SHAPES = [(1, 1), (1, 5), (7, 1), (300, 3), (5, 300), (257, 17), (513, 2)]


@pytest.mark.parametrize("kernel", KERNELS, ids=repr)
@pytest.mark.parametrize("shape", SHAPES, ids=str)
def test_gram_cross_diag_matvec_match_numpy(kernel, shape):
    rng = np.random.default_rng(hash((kernel.name, shape)) % 2**32)
    n, d = shape
    X = rng.normal(size=(n, d)) / np.sqrt(d)
    Z = rng.normal(size=(max(1, n // 2 + 3), d)) / np.sqrt(d)
    v = rng.normal(size=Z.shape[0])
    assert_close(kernel.gram(X), ref_kernel(kernel, X, X))
    assert_close(kernel.cross(X, Z), ref_kernel(kernel, X, Z))
    assert_close(kernel.diag(X), np.diag(ref_kernel(kernel, X, X)))
    assert_close(kernel.matvec(X, Z, v), ref_kernel(kernel, X, Z) @ v, scale=Z.shape[0])


@pytest.mark.parametrize("kernel", KERNELS, ids=repr)
def test_layouts_without_copies_give_identical_results(kernel):
    rng = np.random.default_rng(1)
    base = rng.normal(size=(90, 14))
    X_c = np.ascontiguousarray(base[:, :7])
    variants = {
        "F": np.asfortranarray(X_c),
        "col-slice": base[:, :7],
        "step-rows": np.repeat(X_c, 2, axis=0)[::2],
        "step-cols": np.ascontiguousarray(np.repeat(X_c, 2, axis=1))[:, ::2],
        "reversed": X_c[::-1][::-1],
        "neg-stride": X_c[::-1],
    }
    want = kernel.gram(X_c)
    for name, X in variants.items():
        got = kernel.gram(X)
        expect = want[::-1, ::-1] if name == "neg-stride" else want
        np.testing.assert_allclose(got, expect, rtol=1e-13, atol=1e-13, err_msg=name)
        assert got.flags.c_contiguous


def test_no_python_side_copy_for_f_order():
    # The core reads F-ordered and strided arrays through their strides: check_array must not copy.
    from sklearn.utils import check_array

    X = np.asfortranarray(np.random.default_rng(0).normal(size=(10, 3)))
    assert check_array(X, dtype=np.float64, order=None) is X


@pytest.mark.parametrize("kernel", KERNELS, ids=repr)
@pytest.mark.parametrize("block", [1, 3, 64])
def test_core_tile_edges(kernel, block):
    rng = np.random.default_rng(2)
    X = rng.normal(size=(67, 4)) * 0.5
    Z = rng.normal(size=(29, 4)) * 0.5
    V = rng.normal(size=(29, 3))
    p = kernel.core_params
    assert_close(_core.kernels.gram(X, p, block=block), ref_kernel(kernel, X, X))
    assert_close(_core.kernels.cross(X, Z, p, block=block), ref_kernel(kernel, X, Z))
    assert_close(_core.kernels.matvec(X, Z, V, p, block=block), ref_kernel(kernel, X, Z) @ V, scale=29)


def test_gram_is_exactly_symmetric_and_rbf_diagonal_is_one():
    X = np.random.default_rng(3).normal(size=(600, 9)) * 10
    for k in KERNELS:
        G = k.gram(X)
        assert np.array_equal(G, G.T), k
    G = Kernel("rbf", alpha=0.5).gram(X)
    assert np.all(np.diag(G) == 1.0)
    assert G.min() >= 0.0  # clamping of the GEMM-form distance at 0


def test_rbf_far_points_underflow_to_zero_not_nan():
    X = np.array([[0.0], [1e3], [-1e3]])
    G = Kernel("rbf", alpha=1.0).gram(X)
    assert np.all(np.isfinite(G))
    np.testing.assert_array_equal(G, np.eye(3))


def test_matvec_multiple_columns_and_thread_count_invariance():
    rng = np.random.default_rng(4)
    X, Z, V = rng.normal(size=(1000, 6)), rng.normal(size=(700, 6)), rng.normal(size=(700, 4))
    k = Kernel("rbf", alpha=1.2)
    outs = [k.matvec(X, Z, V, n_threads=t) for t in (1, 2, 3)]
    assert outs[0].shape == (1000, 4)
    for o in outs[1:]:
        assert np.array_equal(o, outs[0])  # bitwise: each row block is summed by one thread in order
    assert_close(outs[0], ref_kernel(k, X, Z) @ V, scale=700)
    for t in (1, 2):
        assert np.array_equal(k.gram(X, n_threads=t), k.gram(X, n_threads=2))


def test_concurrent_python_threads_agree():
    rng = np.random.default_rng(5)
    X = rng.normal(size=(400, 8))
    k = Kernel("inhom_poly", degree=2, c=1.0)
    want = k.gram(X)
    results = [None] * 4

    def work(i):
        results[i] = k.gram(X)

    threads = [threading.Thread(target=work, args=(i,)) for i in range(4)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    for r in results:
        assert np.array_equal(r, want)


def test_exp_accuracy_over_full_range():
    # The RBF's vectorised exp against numpy over the whole non-positive range. alpha = 0.5 makes the
    # scale 1/(2 alpha^2) = 2 exact, so the only difference left is the exp itself (<= 2 ulp).
    x = np.concatenate([np.linspace(0, 19, 20001), np.geomspace(1e-150, 1.0, 2001)])[:, None]
    got = Kernel("rbf", alpha=0.5).cross(x, np.zeros((1, 1)))[:, 0]
    want = np.exp(-2.0 * (x[:, 0] * x[:, 0]))
    normal = want >= np.finfo(float).tiny
    assert normal.sum() > 20000 and (~normal).sum() > 100
    np.testing.assert_allclose(got[normal], want[normal], rtol=4.5e-16, atol=0)
    assert np.all(got[~normal] <= np.finfo(float).tiny)


def test_tanh_accuracy_for_sigmoid():
    # The sigmoid's vectorised tanh (through expm1) against numpy: <= 4 ulp, exact sign, saturates at +-1.
    y = np.concatenate([np.linspace(-40, 40, 40001), np.geomspace(1e-300, 1.0, 3001), -np.geomspace(1e-300, 1, 3001)])
    got = Kernel("sigmoid", a=1.0, b=0.0).cross(y[:, None], np.ones((1, 1)))[:, 0]
    want = np.tanh(y)
    np.testing.assert_allclose(got, want, rtol=4 * np.finfo(float).eps, atol=0)
    assert np.all(np.abs(got) <= 1.0) and np.array_equal(np.sign(got), np.sign(want))


# ----------------------------------------------------------------------------- hypothesis

finite = st.floats(-1e3, 1e3, allow_nan=False, allow_infinity=False)


@st.composite
def data_pairs(draw):
    d = draw(st.integers(1, 6))
    X = draw(hnp.arrays(np.float64, (draw(st.integers(1, 25)), d), elements=finite))
    Z = draw(hnp.arrays(np.float64, (draw(st.integers(1, 25)), d), elements=finite))
    return X / 100.0, Z / 100.0


kernel_strategy = st.one_of(
    st.just(Kernel("linear")),
    st.builds(lambda d: Kernel("poly", degree=d), st.integers(1, 4)),
    st.builds(lambda d, c: Kernel("inhom_poly", degree=d, c=c), st.integers(1, 4), st.floats(0, 5)),
    st.builds(lambda a: Kernel("rbf", alpha=a), st.floats(1e-2, 1e2)),
    st.builds(lambda a, b: Kernel("sigmoid", a=a, b=b), st.floats(-3, 3), st.floats(-3, 3)),
)


@given(data_pairs(), kernel_strategy)
def test_property_parity(data, kernel):
    X, Z = data
    assert_close(kernel.cross(X, Z), ref_kernel(kernel, X, Z), scale=10)
    assert_close(kernel.gram(X), ref_kernel(kernel, X, X), scale=10)
    G = kernel.gram(X)
    assert np.array_equal(G, G.T)


@given(data_pairs(), st.sampled_from(["linear", "poly", "inhom_poly", "rbf"]))
def test_property_psd_kernels_give_psd_gram(data, name):
    X, _ = data
    k = Kernel(name, degree=2, c=1.0, alpha=1.0)
    G = k.gram(X)
    eig = np.linalg.eigvalsh(G)
    assert eig.min() >= -1e-9 * max(1.0, eig.max())


@given(data_pairs(), kernel_strategy)
def test_property_matvec_equals_cross_times_vector(data, kernel):
    X, Z = data
    v = np.linspace(-1, 1, Z.shape[0])
    K = kernel.cross(X, Z)
    # error bound of a length-n_z dot product: scale by |K| |v|, not by the (possibly cancelled) result
    bound = 1e-13 * Z.shape[0] * (np.abs(K) @ np.abs(v)) + 1e-300
    assert np.all(np.abs(kernel.matvec(X, Z, v) - K @ v) <= bound)


# ----------------------------------------------------------------------------- parameters


def test_auto_resolution_is_max_sample_std():
    rng = np.random.default_rng(6)
    X = rng.normal(size=(50, 4)) * np.array([1.0, 3.0, 0.5, 2.0])
    s = float(np.max(np.std(X, axis=0, ddof=1)))
    k = Kernel("rbf").fit(X)
    assert k.alpha == pytest.approx(s)
    assert Kernel("inhom_poly", degree=2).fit(X).c == pytest.approx(s)
    # standardized data (ddof=1) gives exactly alpha = c = 1 (paper 000 Section 6:
    # alpha and c are the largest feature standard deviation)
    Xs = (X - X.mean(0)) / X.std(0, ddof=1)
    assert Kernel("rbf").fit(Xs).alpha == pytest.approx(1.0, abs=1e-15)
    assert auto_scale(X) == pytest.approx(s)
    assert Kernel("rbf", alpha=2.0).fit(X).alpha == 2.0  # explicit values are kept


def test_unresolved_auto_is_a_clear_error():
    with pytest.raises(ValueError, match=r"alpha='auto'.*fit"):
        Kernel("rbf").gram(np.ones((2, 2)))
    with pytest.raises(ValueError, match=r"c='auto'"):
        Kernel("inhom_poly").gram(np.ones((2, 2)))
    assert Kernel("linear").is_resolved and Kernel("poly").is_resolved


def test_auto_needs_two_rows_and_nonconstant_data():
    with pytest.raises(ValueError, match="at least 2"):
        Kernel("rbf").fit(np.ones((1, 3)))
    with pytest.raises(ValueError, match="constant"):
        Kernel("rbf").fit(np.ones((5, 3)))


@pytest.mark.parametrize(
    ("kwargs", "exc", "match"),
    [
        ({"name": "gaussian"}, ValueError, "name must be one of"),
        ({"name": "poly", "degree": 0}, ValueError, "degree"),
        ({"name": "poly", "degree": -2}, ValueError, "degree"),
        ({"name": "poly", "degree": 2.5}, TypeError, "degree"),
        ({"name": "poly", "degree": True}, TypeError, "degree"),
        ({"name": "rbf", "alpha": 0.0}, ValueError, "alpha"),
        ({"name": "rbf", "alpha": -1.0}, ValueError, "alpha"),
        ({"name": "rbf", "alpha": np.inf}, ValueError, "alpha"),
        ({"name": "rbf", "alpha": "median"}, ValueError, "alpha"),
        ({"name": "rbf", "alpha": None}, TypeError, "alpha"),
        ({"name": "inhom_poly", "c": -0.1}, ValueError, "c must"),
        ({"name": "inhom_poly", "c": np.nan}, ValueError, "c must"),
        ({"name": "sigmoid", "a": np.nan}, ValueError, "a must"),
        ({"name": "sigmoid", "b": "x"}, TypeError, "b must"),
    ],
)
def test_bad_parameters_name_the_argument(kwargs, exc, match):
    with pytest.raises(exc, match=match):
        Kernel(**kwargs)


def test_core_params_are_validated_in_cpp_too():
    with pytest.raises(ValueError, match="alpha"):
        _core.kernels.KernelParams(_core.kernels.KernelKind.rbf, alpha=-1.0)
    with pytest.raises(ValueError, match="degree"):
        _core.kernels.KernelParams(_core.kernels.KernelKind.poly, degree=0)


BAD_X = [
    (np.array([[1.0, np.nan]]), "NaN"),
    (np.array([[1.0, np.inf]]), "infinity"),
    (np.array([1.0, 2.0]), "2D array"),
    (np.ones((2, 2, 2)), "dim"),
    (np.empty((0, 3)), "0 sample"),
    (np.empty((3, 0)), "0 feature"),
    (np.array([["a", "b"]], dtype=object), "could not convert|string"),
    (np.full((2, 2), 1e300), "too large"),
]


@pytest.mark.parametrize(("X", "match"), BAD_X, ids=lambda v: str(v)[:20])
@pytest.mark.parametrize("method", ["gram", "diag", "cross", "matvec"])
def test_bad_input_raises_value_error_naming_x(X, match, method):
    k = Kernel("rbf", alpha=1.0)
    good = np.ones((2, 2))
    with pytest.raises(ValueError, match=match):
        if method == "gram":
            k.gram(X)
        elif method == "diag":
            k.diag(X)
        elif method == "cross":
            k.cross(X, good)
        else:
            k.matvec(X, good, np.ones(2))


def test_mismatched_shapes_are_named():
    k = Kernel("linear")
    with pytest.raises(ValueError, match="Z has 3 features, but X has 2"):
        k.cross(np.ones((4, 2)), np.ones((4, 3)))
    with pytest.raises(ValueError, match="v has 3 rows but Z has 4"):
        k.matvec(np.ones((4, 2)), np.ones((4, 2)), np.ones(3))
    with pytest.raises(ValueError, match="Z.*NaN"):
        k.cross(np.ones((4, 2)), np.full((1, 2), np.nan))
    with pytest.raises(ValueError, match="v.*NaN"):
        k.matvec(np.ones((4, 2)), np.ones((4, 2)), np.full(4, np.nan))


def test_polynomial_overflow_is_refused():
    with pytest.raises(ValueError, match="overflow"):
        Kernel("poly", degree=9).gram(np.full((2, 3), 1e40))


def test_core_refuses_wrong_dtype_instead_of_copying():
    p = Kernel("linear").core_params
    with pytest.raises(TypeError):
        _core.kernels.gram(np.ones((3, 2), dtype=np.float32), p)
    with pytest.raises(TypeError):
        _core.kernels.gram(np.ones((3, 2), dtype=np.int64), p)
    with pytest.raises(ValueError, match="2-D"):
        _core.kernels.gram(np.ones(3), p)


def test_integer_and_float32_inputs_are_converted_exactly():
    Xi = np.arange(12).reshape(4, 3)
    k = Kernel("linear")
    np.testing.assert_array_equal(k.gram(Xi), (Xi @ Xi.T).astype(float))
    np.testing.assert_allclose(k.gram(Xi.astype(np.float32)), Xi @ Xi.T)


def test_memory_budget_guard():
    X = np.ones((100, 2))
    try:
        svmopt.set_memory_budget(100 * 100 * 8 - 1)
        with pytest.raises(MemoryBudgetError, match="memory budget"):
            Kernel("linear").gram(X)
        with pytest.raises(MemoryBudgetError):
            Kernel("linear").cross(X, X)
        # matvec never stores the matrix, so it is allowed
        assert Kernel("linear").matvec(X, X, np.ones(100)).shape == (100,)
        svmopt.set_memory_budget("1M")
        assert svmopt.get_memory_budget() == 1024**2
    finally:
        svmopt.set_memory_budget(None)


def test_memory_budget_from_environment(monkeypatch):
    monkeypatch.setenv("SVMOPT_MEMORY_BUDGET", "2K")
    assert svmopt.get_memory_budget() == 2048
    with pytest.raises(MemoryBudgetError, match="SVMOPT_MEMORY_BUDGET"):
        Kernel("linear").gram(np.ones((20, 2)))
    monkeypatch.setenv("SVMOPT_MEMORY_BUDGET", "lots")
    with pytest.raises(ValueError, match="SVMOPT_MEMORY_BUDGET"):
        svmopt.get_memory_budget()


def test_value_semantics_pickle_and_repr():
    k = Kernel("inhom_poly", degree=2, c=0.5)
    assert pickle.loads(pickle.dumps(k)) == k
    assert hash(k) == hash(Kernel("inhom_poly", degree=2, c=0.5))
    assert k != Kernel("inhom_poly", degree=3, c=0.5)
    assert repr(k) == "Kernel('inhom_poly', degree=2, c=0.5)"
    with pytest.raises(AttributeError):
        k.degree = 3
    assert k.replace(degree=3).degree == 3
    assert as_kernel("rbf", alpha=2.0) == Kernel("rbf", alpha=2.0)
    assert as_kernel(k) is k
    with pytest.raises(TypeError, match="kernel must be"):
        as_kernel(3)
    assert set(KERNEL_NAMES) == {"linear", "poly", "inhom_poly", "rbf", "sigmoid"}
    assert Kernel("rbf", alpha=2.0).gamma == pytest.approx(1 / 8)


def test_kernel_is_a_sklearn_callable_kernel():
    from sklearn.datasets import make_classification
    from sklearn.svm import SVC

    X, y = make_classification(n_samples=120, n_features=5, random_state=0)
    k = Kernel("rbf", alpha=2.0)
    ours = SVC(kernel=k).fit(X, y).decision_function(X)
    theirs = SVC(kernel="rbf", gamma=k.gamma).fit(X, y).decision_function(X)
    np.testing.assert_allclose(ours, theirs, rtol=1e-6, atol=1e-6)


def test_build_information():
    assert isinstance(_core.openmp_enabled(), bool)
    assert _core.max_threads() >= 1
    assert _core.eigen_version.startswith("3.4")


def test_isa_variants_agree():
    # svmopt._core re-exports the best ISA variant; every variant built must compute the same Gram.
    import importlib

    X = np.random.default_rng(7).normal(size=(300, 12))
    variants = []
    for name in ("_core_baseline", "_core_avx2"):
        try:
            variants.append(importlib.import_module(f"svmopt.{name}"))
        except ImportError:
            continue
    assert variants and _core.isa in {v.isa for v in variants}
    for k in KERNELS:
        want = ref_kernel(k, X, X)
        for mod in variants:
            if mod.__name__.endswith("avx2") and not variants[0].cpu_supports_avx2_fma():
                continue
            p = mod.kernels.KernelParams(getattr(mod.kernels.KernelKind, k.name), degree=k.degree,
                                         c=0.0 if k.c == "auto" else k.c, alpha=1.0 if k.alpha == "auto" else k.alpha,
                                         a=k.a, b=k.b)
            assert_close(mod.kernels.gram(X, p), want, scale=10)


def test_isa_can_be_forced_by_environment():
    import subprocess
    import sys

    code = "from svmopt import _core; print(_core.isa)"
    env = {**__import__("os").environ, "SVMOPT_ISA": "baseline"}
    out = subprocess.run([sys.executable, "-c", code], env=env, capture_output=True, text=True, check=True)
    assert out.stdout.strip() == "baseline"
    env["SVMOPT_ISA"] = "sse9"
    bad = subprocess.run([sys.executable, "-c", code], env=env, capture_output=True, text=True, check=False)
    assert bad.returncode != 0 and "SVMOPT_ISA" in bad.stderr


def test_kernel_object_survives_sklearn_clone():
    # An estimator parameter that is a Kernel must clone as a value, not be mistaken for an estimator.
    from sklearn.base import BaseEstimator, clone

    class Holder(BaseEstimator):
        def __init__(self, kernel=None):
            self.kernel = kernel

    k = Kernel("inhom_poly", degree=2, c=0.5)
    h = clone(Holder(kernel=k))
    assert h.kernel == k
    assert k.parameters() == {"degree": 2, "c": 0.5, "alpha": "auto", "a": 1.0, "b": 0.0}
