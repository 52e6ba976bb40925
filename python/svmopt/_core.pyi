"""Type stubs for svmopt's C++ extension (cpp/bindings/)."""

import enum
from typing import Any

import numpy as np
from numpy.typing import NDArray

eigen_version: str
isa: str  # 'baseline' or 'avx2': the variant loaded

def cpu_supports_avx2_fma() -> bool: ...

def openmp_enabled() -> bool: ...
def max_threads() -> int: ...
def simd_instruction_sets() -> str: ...

class KernelKind(enum.Enum):
    linear = 0
    poly = 1
    inhom_poly = 2
    rbf = 3
    sigmoid = 4

class KernelParams:
    kind: KernelKind
    degree: int
    c: float
    alpha: float
    a: float
    b: float
    def __init__(
        self, kind: KernelKind, degree: int = 1, c: float = 0.0, alpha: float = 1.0, a: float = 1.0, b: float = 0.0
    ) -> None: ...

def kernel_gram(
    X: NDArray[np.float64], params: KernelParams, n_threads: int = 0, block: int = 256
) -> NDArray[np.float64]: ...
def kernel_cross(
    X: NDArray[np.float64], Z: NDArray[np.float64], params: KernelParams, n_threads: int = 0, block: int = 256
) -> NDArray[np.float64]: ...
def kernel_diag(X: NDArray[np.float64], params: KernelParams) -> NDArray[np.float64]: ...
def kernel_matvec(
    X: NDArray[np.float64],
    Z: NDArray[np.float64],
    V: NDArray[np.float64],
    params: KernelParams,
    n_threads: int = 0,
    block: int = 256,
) -> NDArray[np.float64]: ...


# The model cores (robust LP and line searches, entropy/Nystrom/fast CV/CSA, PSO) are typed at their
# Python wrappers; the raw bindings are left untyped here.
def __getattr__(name: str) -> Any: ...
