"""The reduced LPs' cutting-plane pass (cpp/include/svmopt/reduced.hpp), shared by the reduced robust LP (paper 000)
and the l1-SVMs of paper 001 (``Phi = X``, margin offsets). Array policy: see :mod:`svmopt._core.kernels`."""

import numpy as np
from numpy.typing import NDArray

from svmopt._core.kernels import KernelParams

class CutSums:
    """One pass of the reduced model's cutting planes at (v, gamma): the aggregated cut and the hinge sum."""

    @property
    def a(self) -> NDArray[np.float64]:
        """sum_i c_i y_i Phi_i (L,)."""
    @property
    def b(self) -> float:
        """sum_i c_i y_i."""
    @property
    def e(self) -> float:
        """sum_i c_i delta_i."""
    @property
    def n_c(self) -> float:
        """sum_i c_i."""
    @property
    def hinge(self) -> float:
        """sum_i max(0, 1 + y_i gamma - y_i f_i + delta_i S)."""
    @property
    def a_groups(self) -> NDArray[np.float64]:
        """a per group of consecutive rows, group g = rows [g n / G, (g + 1) n / G) (G, L); likewise below (G,)."""
    @property
    def b_groups(self) -> NDArray[np.float64]: ...
    @property
    def e_groups(self) -> NDArray[np.float64]: ...
    @property
    def n_c_groups(self) -> NDArray[np.float64]: ...
    @property
    def hinge_groups(self) -> NDArray[np.float64]: ...

def cut_pass(
    y: NDArray[np.float64],
    v: NDArray[np.float64],
    gamma: float,
    S: float,
    *,
    Phi: NDArray[np.float64] | None = None,
    X: NDArray[np.float64] | None = None,
    Z: NDArray[np.float64] | None = None,
    params: KernelParams | None = None,
    delta: NDArray[np.float64] | None = None,
    offset: NDArray[np.float64] | None = None,
    scores_out: NDArray[np.float64] | None = None,
    n_threads: int = 0,
    block: int = 4096,
    n_groups: int = 1,
    row_offset: int = 0,
    n_total: int = -1,
    weight: NDArray[np.float64] | None = None,
) -> CutSums:
    """One pass at (v, gamma), S = sum_j sqrt(k(z_j, z_j)) |v_j|: c_i = [a_i + y_i gamma - y_i f_i + delta_i S > 0]
    (a = offset, default 1), f = Phi v with Phi given or K(X, Z) computed block by block; f written into scores_out."""
