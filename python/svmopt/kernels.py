"""The kernel description shared by every svmopt model (paper 000, Table 2).

========== ============================================ ==========================
name       k(x, z)                                       parameters
========== ============================================ ==========================
linear     <x, z>
poly       <x, z>^d   (homogeneous polynomial)           degree d >= 1
inhom_poly (c + <x, z>)^d                                 c >= 0 or "auto", d >= 1
rbf        exp(-||x - z||^2 / (2 alpha^2))               alpha > 0 or "auto"
sigmoid    tanh(a <x, z> + b)                            a, b real (not PSD in general)
========== ============================================ ==========================

The RBF uses paper 000's ``alpha`` (a length scale), not scikit-learn's ``gamma``:
``gamma = 1 / (2 alpha^2)``. ``"auto"`` is the paper's data-driven default: the maximum over features of
the sample standard deviation (ddof=1) of the training data; :meth:`Kernel.fit` resolves it.

All evaluations run in the C++ core (blocked GEMM tiles, OpenMP over row blocks, GIL released).
"""

from __future__ import annotations

import numbers
from collections.abc import Callable
from typing import Any

import numpy as np
from sklearn.utils import check_array

from svmopt import _core
from svmopt._shared import sparse
from svmopt._shared.config import check_dense_allocation

__all__ = ["KERNEL_NAMES", "Kernel", "as_kernel", "auto_scale"]

KERNEL_NAMES = ("linear", "poly", "inhom_poly", "rbf", "sigmoid")
_KIND = {
    "linear": _core.kernels.KernelKind.linear,
    "poly": _core.kernels.KernelKind.poly,
    "inhom_poly": _core.kernels.KernelKind.inhom_poly,
    "rbf": _core.kernels.KernelKind.rbf,
    "sigmoid": _core.kernels.KernelKind.sigmoid,
}
_AUTO = "auto"
# Squared row norms above this would overflow ||x||^2 + ||z||^2 - 2<x, z>.
_MAX_SQ_NORM = 1e300


def _is_real(value: Any) -> bool:
    return isinstance(value, numbers.Real) and not isinstance(value, bool)


def _check_degree(degree: Any) -> int:
    if isinstance(degree, bool) or not isinstance(degree, numbers.Integral):
        if _is_real(degree) and float(degree).is_integer():
            degree = int(degree)
        else:
            raise TypeError(f"degree must be an integer >= 1, got {degree!r}")
    if degree < 1:
        raise ValueError(f"degree must be an integer >= 1, got {degree}")
    return int(degree)


def _check_auto_or(name: str, value: Any, *, positive: bool) -> float | str:
    if isinstance(value, str):
        if value != _AUTO:
            raise ValueError(f"{name} must be a number or 'auto', got {value!r}")
        return value
    if not _is_real(value):
        raise TypeError(f"{name} must be a number or 'auto', got {type(value).__name__}")
    v = float(value)
    if not np.isfinite(v) or (v <= 0 if positive else v < 0):
        bound = "> 0" if positive else ">= 0"
        raise ValueError(f"{name} must be finite and {bound} (or 'auto'), got {value!r}")
    return v


def _check_real(name: str, value: Any) -> float:
    if not _is_real(value):
        raise TypeError(f"{name} must be a real number, got {type(value).__name__}")
    v = float(value)
    if not np.isfinite(v):
        raise ValueError(f"{name} must be finite, got {value!r}")
    return v


def auto_scale(X: Any) -> float:
    """Paper 000's data-driven kernel scale: max over features of the sample std (ddof=1) of ``X``.

    Raises ``ValueError`` if ``X`` has fewer than two rows or every feature is constant (the scale
    would be 0, an invalid RBF width).
    """
    X = check_array(X, dtype=np.float64, order=None, ensure_all_finite=True, input_name="X")
    if X.shape[0] < 2:
        raise ValueError(
            f"X has {X.shape[0]} sample(s); resolving alpha='auto' or c='auto' needs at least 2 "
            "(the sample standard deviation). Pass a number instead."
        )
    scale = float(np.max(np.std(X, axis=0, ddof=1)))
    if not scale > 0:
        raise ValueError("every feature of X is constant, so alpha='auto'/c='auto' would be 0; pass a number")
    return scale


class Kernel:
    """A validated kernel: name plus parameters, evaluated by the C++ core.

    Parameters
    ----------
    name : {"linear", "poly", "inhom_poly", "rbf", "sigmoid"}
    degree : int, default=3
        Degree ``d >= 1`` of the polynomial kernels (ignored otherwise).
    c : float or "auto", default="auto"
        Offset ``c >= 0`` of ``inhom_poly``; ``"auto"`` = max feature std of the training data.
    alpha : float or "auto", default="auto"
        RBF width ``alpha > 0`` in ``exp(-||x-z||^2 / (2 alpha^2))``; ``"auto"`` as for ``c``.
    a, b : float, default=1.0, 0.0
        Slope and offset of the sigmoid ``tanh(a <x,z> + b)``.

    Every parameter is validated whatever the kernel, so a typo never passes silently.
    Instances are immutable, hashable, picklable and comparable; a ``Kernel`` is also a callable
    ``kernel(X, Z=None)`` usable as ``sklearn.svm.SVC(kernel=Kernel(...))``.

    Examples
    --------
    >>> import numpy as np
    >>> from svmopt import Kernel
    >>> X = np.array([[0.0, 1.0], [1.0, 0.0], [2.0, 2.0]])
    >>> k = Kernel("rbf").fit(X)          # alpha = max std = 1.0
    >>> k.alpha
    1.0
    >>> k.gram(X).shape
    (3, 3)
    """

    __slots__ = ("_a", "_alpha", "_b", "_c", "_degree", "_name")
    _name: str
    _degree: int
    _c: float | str
    _alpha: float | str
    _a: float
    _b: float

    def __init__(self, name: str = "rbf", *, degree: int = 3, c: float | str = _AUTO,
                 alpha: float | str = _AUTO, a: float = 1.0, b: float = 0.0):
        if not isinstance(name, str) or name not in _KIND:
            raise ValueError(f"name must be one of {KERNEL_NAMES}, got {name!r}")
        object.__setattr__(self, "_name", name)
        object.__setattr__(self, "_degree", _check_degree(degree))
        object.__setattr__(self, "_c", _check_auto_or("c", c, positive=False))
        object.__setattr__(self, "_alpha", _check_auto_or("alpha", alpha, positive=True))
        object.__setattr__(self, "_a", _check_real("a", a))
        object.__setattr__(self, "_b", _check_real("b", b))

    # -- immutable value semantics -------------------------------------------------------------
    def __setattr__(self, key: str, value: Any) -> None:
        raise AttributeError("Kernel is immutable; use Kernel.replace(...) or Kernel.fit(X)")

    def __reduce__(self) -> tuple[Callable[[str, dict[str, Any]], Kernel], tuple[str, dict[str, Any]]]:
        return (_rebuild, (self._name, self.parameters()))

    @property
    def name(self) -> str:
        """Kernel name, one of KERNEL_NAMES."""
        return self._name

    @property
    def degree(self) -> int:
        """Polynomial degree."""
        return self._degree

    @property
    def c(self) -> float | str:
        """inhom_poly offset (float or 'auto')."""
        return self._c

    @property
    def alpha(self) -> float | str:
        """RBF width (float or 'auto')."""
        return self._alpha

    @property
    def a(self) -> float:
        """Sigmoid slope."""
        return self._a

    @property
    def b(self) -> float:
        """Sigmoid offset."""
        return self._b

    def parameters(self) -> dict[str, Any]:
        """Parameters (without the name) as a dict."""
        return {"degree": self._degree, "c": self._c, "alpha": self._alpha, "a": self._a, "b": self._b}

    def replace(self, **changes: Any) -> Kernel:
        """A copy with some parameters (or the name) changed, validated again."""
        params = {"name": self._name, **self.parameters(), **changes}
        return Kernel(params.pop("name"), **params)

    def _key(self) -> tuple[Any, ...]:
        return (self._name, *self.parameters().values())

    def __eq__(self, other: object) -> bool:
        return isinstance(other, Kernel) and self._key() == other._key()

    def __hash__(self) -> int:
        return hash(self._key())

    def __repr__(self) -> str:
        relevant = {
            "linear": (),
            "poly": ("degree",),
            "inhom_poly": ("degree", "c"),
            "rbf": ("alpha",),
            "sigmoid": ("a", "b"),
        }[self._name]
        args = "".join(f", {k}={getattr(self, k)!r}" for k in relevant)
        return f"Kernel({self._name!r}{args})"

    # -- data-driven parameters ----------------------------------------------------------------
    @property
    def is_resolved(self) -> bool:
        """False while a parameter this kernel uses is still ``"auto"``."""
        if self._name == "rbf":
            return self._alpha != _AUTO
        if self._name == "inhom_poly":
            return self._c != _AUTO
        return True

    def fit(self, X: Any) -> Kernel:
        """Return a copy with every ``"auto"`` parameter resolved on training data ``X``.

        ``alpha`` and ``c`` become the maximum over features of the sample standard deviation (ddof=1),
        as in paper 000 (Section 6: "the maximum value of the standard deviation across features").
        A kernel with nothing to resolve is returned unchanged. ``X`` is not stored.
        """
        if self._c != _AUTO and self._alpha != _AUTO:
            return self
        scale = auto_scale(X)
        return self.replace(
            c=scale if self._c == _AUTO else self._c,
            alpha=scale if self._alpha == _AUTO else self._alpha,
        )

    @property
    def core_params(self) -> _core.kernels.KernelParams:
        """The parameters as the core's ``KernelParams`` (requires a resolved kernel)."""
        if not self.is_resolved:
            missing = "alpha" if self._name == "rbf" else "c"
            raise ValueError(
                f"{missing}='auto' is unresolved; call kernel.fit(X_train) first or pass {missing} explicitly"
            )
        return _core.kernels.KernelParams(
            _KIND[self._name],
            degree=self._degree,
            c=self._c if isinstance(self._c, float) else 0.0,  # "auto" of a kernel that does not use it
            alpha=self._alpha if isinstance(self._alpha, float) else 1.0,
            a=self._a,
            b=self._b,
        )

    @property
    def gamma(self) -> float:
        """scikit-learn's RBF ``gamma = 1 / (2 alpha^2)`` (RBF kernels only)."""
        if self._name != "rbf":
            raise AttributeError("gamma is defined for the rbf kernel only")
        return 1.0 / (2.0 * self.core_params.alpha**2)

    # -- evaluation ----------------------------------------------------------------------------
    def _check(
        self, X: Any, name: str, params: _core.kernels.KernelParams, *, n_features: int | None = None
    ) -> np.ndarray:
        # Fast path for float64 2-D ndarrays (the estimators' own calls): the squared row norms below catch NaN and
        # inf too, and only then does check_array run, for its standard message. The time saved per call
        # matters on the paper's smallest problems, where a whole RobustSVC fit is short
        # (docs/performance.md#core-design-figures).
        fast = type(X) is np.ndarray and X.dtype == np.float64 and X.ndim == 2 and X.shape[0] > 0 and X.shape[1] > 0
        if not fast:
            X = check_array(X, dtype=np.float64, order=None, ensure_all_finite=True, input_name=name)
        if n_features is not None and X.shape[1] != n_features:
            raise ValueError(f"{name} has {X.shape[1]} features, but X has {n_features}")
        sq = np.einsum("ij,ij->i", X, X)
        if fast and not np.all(np.isfinite(sq)):
            check_array(X, dtype=np.float64, order=None, ensure_all_finite=True, input_name=name)  # NaN/inf message
        if not (np.all(np.isfinite(sq)) and (sq.size == 0 or sq.max() <= _MAX_SQ_NORM)):
            raise ValueError(
                f"{name} has values too large for kernel evaluation (squared row norms overflow float64); "
                "rescale the data, e.g. with sklearn.preprocessing.StandardScaler"
            )
        if self._name in ("poly", "inhom_poly") and not np.all(np.isfinite(_core.kernels.diag(X, params))):
            raise ValueError(
                f"{name}: k(x, x) overflows float64 for this degree; rescale the data or lower the degree"
            )
        return X

    def gram(self, X: Any, *, n_threads: int | None = None) -> np.ndarray:
        """Symmetric Gram matrix ``K[i, j] = k(x_i, x_j)`` (n x n, C order).

        Refuses (``svmopt.MemoryBudgetError``) when n x n float64 exceeds :func:`svmopt.get_memory_budget`.
        """
        if sparse.is_sparse(X):  # the n x n result is dense whatever X is: from X X^T over the nonzeros
            Xs = sparse.as_csr(X, "X")
            check_dense_allocation(Xs.shape[0], Xs.shape[0], "Kernel.gram")
            sq = sparse.row_sq_norms(Xs)
            if not (sq.max(initial=0.0) <= _MAX_SQ_NORM):
                raise ValueError("X has values too large for kernel evaluation (squared row norms overflow "
                                 "float64); rescale the data, e.g. with sklearn.preprocessing.MaxAbsScaler")
            return sparse.gram(self, Xs)
        p = self.core_params
        X = self._check(X, "X", p)
        check_dense_allocation(X.shape[0], X.shape[0], "Kernel.gram")
        return _core.kernels.gram(X, p, n_threads=_threads(n_threads))

    def _check_sparse(self, X: Any, Z: Any) -> tuple[Any, np.ndarray]:
        """A sparse ``X`` (CSR form, :func:`svmopt._shared.sparse.as_csr`) and a dense ``Z`` checked as for dense
        input: finite, squared row norms within float64, matching features."""
        X = sparse.as_csr(X, "X")
        if not (sparse.row_sq_norms(X).max(initial=0.0) <= _MAX_SQ_NORM):
            raise ValueError("X has values too large for kernel evaluation (squared row norms overflow float64); "
                             "rescale the data, e.g. with sklearn.preprocessing.MaxAbsScaler")
        if sparse.is_sparse(Z):
            raise TypeError("Z must be dense (landmarks, prototypes or support vectors); only X may be sparse")
        Z = self._check(Z, "Z", self.core_params, n_features=X.shape[1])
        return X, Z

    def cross(self, X: Any, Z: Any, *, n_threads: int | None = None) -> np.ndarray:
        """Cross Gram matrix ``K[i, j] = k(x_i, z_j)`` (n_x x n_z, C order). ``X`` may be a scipy sparse matrix
        (``Z`` dense): the inner products are taken over its nonzeros, a block of rows at a time."""
        if sparse.is_sparse(X):
            Xs, Zd = self._check_sparse(X, Z)
            check_dense_allocation(Xs.shape[0], Zd.shape[0], "Kernel.cross")
            return sparse.kernel_rows(self, Xs, Zd)
        p = self.core_params
        X = self._check(X, "X", p)
        Z = self._check(Z, "Z", p, n_features=X.shape[1])
        check_dense_allocation(X.shape[0], Z.shape[0], "Kernel.cross")
        return _core.kernels.cross(X, Z, p, n_threads=_threads(n_threads))

    def diag(self, X: Any) -> np.ndarray:
        """Diagonal ``k(x_i, x_i)`` of the Gram matrix, in O(n d)."""
        if sparse.is_sparse(X):
            Xs = sparse.as_csr(X, "X")
            return sparse.kernel_diag(self, Xs)
        p = self.core_params
        X = self._check(X, "X", p)
        return _core.kernels.diag(X, p)

    def matvec(self, X: Any, Z: Any, v: Any, *, n_threads: int | None = None) -> np.ndarray:
        """``K(X, Z) @ v`` without storing ``K(X, Z)``: memory O(threads * block * (block + d)).

        ``v`` has shape (n_z,) or (n_z, k); the result has shape (n_x,) or (n_x, k). The result is
        identical whatever the thread count. ``X`` may be a scipy sparse matrix (``Z`` dense): memory
        O(block * n_z) beyond the input.
        """
        p = self.core_params
        if sparse.is_sparse(X):
            X, Z = self._check_sparse(X, Z)
        else:
            X = self._check(X, "X", p)
            Z = self._check(Z, "Z", p, n_features=X.shape[1])
        v_arr = check_array(v, dtype=np.float64, order=None, ensure_2d=False, ensure_all_finite=True,
                            ensure_min_samples=0, input_name="v")
        if v_arr.ndim not in (1, 2):
            raise ValueError(f"v must be 1-D or 2-D, got ndim={v_arr.ndim}")
        if v_arr.shape[0] != Z.shape[0]:
            raise ValueError(f"v has {v_arr.shape[0]} rows but Z has {Z.shape[0]}; they must match")
        V = v_arr.reshape(v_arr.shape[0], -1) if v_arr.ndim == 1 else v_arr
        if sparse.is_sparse(X):
            out = sparse.kernel_matvec(self, X, Z, V)
        else:
            out = _core.kernels.matvec(X, Z, V, p, n_threads=_threads(n_threads))
        return out[:, 0] if v_arr.ndim == 1 else out

    def __call__(self, X: Any, Z: Any = None) -> np.ndarray:
        """``K(X, X)`` or ``K(X, Z)``; lets a Kernel serve as a scikit-learn callable kernel."""
        return self.gram(X) if Z is None else self.cross(X, Z)


def _threads(n_threads: int | None) -> int:
    if n_threads is None:
        return 0
    if isinstance(n_threads, bool) or not isinstance(n_threads, numbers.Integral) or n_threads < 0:
        raise ValueError(f"n_threads must be None or an integer >= 0 (0 = all cores), got {n_threads!r}")
    return int(n_threads)


def _rebuild(name: str, params: dict[str, Any]) -> Kernel:
    return Kernel(name, **params)


def as_kernel(kernel: str | Kernel, **params: Any) -> Kernel:
    """Coerce an estimator's ``kernel`` argument: a :class:`Kernel` is returned as is, a name is
    combined with ``params`` (e.g. ``degree``, ``c``, ``alpha``)."""
    if isinstance(kernel, Kernel):
        return kernel
    if isinstance(kernel, str):
        return Kernel(kernel, **params)
    raise TypeError(
        f"kernel must be a name in {KERNEL_NAMES} or a svmopt.Kernel, got {type(kernel).__name__}"
    )
