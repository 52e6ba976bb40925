"""Kernel matrices (cpp/include/svmopt/kernels.hpp): blocked, OpenMP over row tiles, GIL released.

Array policy of every ``_core`` routine: arrays must already have the dtype the core computes in (float64; int32 fold
ids; int64 indices) -- a wrong dtype is a TypeError, never a silent copy -- and may have any memory layout (2-D inputs
are read through their strides). Outputs are new C-ordered arrays.

Options are pybind11 enums (``py::enum_``, typed as they behave, not as ``enum.Enum``): members are class attributes
with ``name`` and ``value``, ``Cls.__members__`` maps names to members, and a string in their place is a TypeError.
"""

from typing import ClassVar

import numpy as np
from numpy.typing import NDArray

from svmopt._core._enum import PybindEnum

class KernelKind(PybindEnum):
    linear: ClassVar[KernelKind]
    poly: ClassVar[KernelKind]
    inhom_poly: ClassVar[KernelKind]
    rbf: ClassVar[KernelKind]
    sigmoid: ClassVar[KernelKind]
    __members__: ClassVar[dict[str, KernelKind]]

class KernelParams:
    @property
    def kind(self) -> KernelKind: ...
    @property
    def degree(self) -> int: ...
    @property
    def c(self) -> float: ...
    @property
    def alpha(self) -> float: ...
    @property
    def a(self) -> float: ...
    @property
    def b(self) -> float: ...
    def __init__(
        self, kind: KernelKind, degree: int = 1, c: float = 0.0, alpha: float = 1.0, a: float = 1.0, b: float = 0.0
    ) -> None: ...

def gram(X: NDArray[np.float64], params: KernelParams, n_threads: int = 0, block: int = 256) -> NDArray[np.float64]:
    """Symmetric K(X, X) (n x n)."""

def cross(
    X: NDArray[np.float64], Z: NDArray[np.float64], params: KernelParams, n_threads: int = 0, block: int = 256
) -> NDArray[np.float64]:
    """K(X, Z) (n_x x n_z)."""

def diag(X: NDArray[np.float64], params: KernelParams) -> NDArray[np.float64]:
    """k(x_i, x_i) for every row (n,)."""

def matvec(
    X: NDArray[np.float64],
    Z: NDArray[np.float64],
    V: NDArray[np.float64],
    params: KernelParams,
    n_threads: int = 0,
    block: int = 256,
) -> NDArray[np.float64]:
    """K(X, Z) @ V (n_x x k) without storing K(X, Z)."""
