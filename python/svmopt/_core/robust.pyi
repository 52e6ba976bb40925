"""Paper 000's core: the constraint matrix of LP (23) / model (6), the misclassification line searches of Section 6,
the dense primal simplex for small m and the reduced LP's interior-point pass (cpp/include/svmopt/robust.hpp,
line_search.hpp, dense_lp.hpp, reduced.hpp; its cutting-plane pass is :mod:`svmopt._core.cutting_plane`).
Array policy: see :mod:`svmopt._core.kernels`."""

from typing import ClassVar

import numpy as np
from numpy.typing import NDArray

from svmopt._core._enum import PybindEnum
from svmopt._core.kernels import KernelParams

class Objective(PybindEnum):
    """What a line search counts: ``paper`` = (10)/(27), ``decision`` = the test-time rule sign(s - b)."""

    paper: ClassVar[Objective]
    decision: ClassVar[Objective]
    __members__: ClassVar[dict[str, Objective]]

def lp_matrix(
    K: NDArray[np.float64], y: NDArray[np.float64], delta: NDArray[np.float64] | None = None, n_threads: int = 0
) -> tuple[NDArray[np.int32], NDArray[np.int32], NDArray[np.float64]]:
    """CSC (start, index, value) of A = [DKD - delta r^T, -DKD - delta r^T, -y, I], columns [u+, u-, gamma, xi]."""

def line_search_count(
    s: NDArray[np.float64],
    y: NDArray[np.float64],
    b: float,
    objective: Objective = Objective.paper,
    w: NDArray[np.float64] | None = None,
) -> int | float: ...
def line_search_grid(
    s: NDArray[np.float64],
    y: NDArray[np.float64],
    lo: float,
    hi: float,
    n_grid: int = 10000,
    b_init: float = 0.0,
    objective: Objective = Objective.paper,
    n_threads: int = 0,
    w: NDArray[np.float64] | None = None,
) -> tuple[float, int | float]:
    """The paper's grid search: (b, count)."""

def line_search_grid_naive(
    s: NDArray[np.float64],
    y: NDArray[np.float64],
    lo: float,
    hi: float,
    n_grid: int = 10000,
    b_init: float = 0.0,
    objective: Objective = Objective.paper,
    n_threads: int = 0,
    w: NDArray[np.float64] | None = None,
) -> tuple[float, int | float]:
    """The O(n_grid m) scan the grid search is checked against: (b, count)."""

def line_search_exact(
    s: NDArray[np.float64],
    y: NDArray[np.float64],
    lo: float,
    hi: float,
    b_init: float = 0.0,
    objective: Objective = Objective.paper,
    w: NDArray[np.float64] | None = None,
) -> tuple[float, int | float]:
    """Exact O(m log m) search over [min(lo, hi), max(lo, hi)]: (b, count); with weights w the count is the
    misclassified points' weight sum (a float)."""

class DenseLPStatus(PybindEnum):
    optimal: ClassVar[DenseLPStatus]
    iteration_limit: ClassVar[DenseLPStatus]
    unbounded: ClassVar[DenseLPStatus]
    certificate_failed: ClassVar[DenseLPStatus]
    __members__: ClassVar[dict[str, DenseLPStatus]]

class DenseLPResult:
    @property
    def status(self) -> DenseLPStatus: ...
    @property
    def x(self) -> NDArray[np.float64]:
        """[u+, u-, gamma, xi] (3m + 1)."""
    @property
    def dual(self) -> NDArray[np.float64]: ...
    @property
    def objective(self) -> float: ...
    @property
    def dual_objective(self) -> float: ...
    @property
    def iterations(self) -> int: ...
    @property
    def primal_infeasibility(self) -> float: ...
    @property
    def dual_infeasibility(self) -> float: ...

class DenseLP:
    """Dense primal simplex for LP (23) (delta=None: model (6)), warm-started across nu."""

    def __init__(
        self, K: NDArray[np.float64], y: NDArray[np.float64], delta: NDArray[np.float64] | None = None
    ) -> None: ...
    @property
    def m(self) -> int: ...
    def solve(self, nu: float, max_iter: int = 0, tol: float = 1e-7) -> DenseLPResult: ...

def reduced_normal_pass(
    *,
    Phi: NDArray[np.float64] | None = None,
    X: NDArray[np.float64] | None = None,
    Z: NDArray[np.float64] | None = None,
    params: KernelParams | None = None,
    extra: NDArray[np.float64] | None = None,
    theta: NDArray[np.float64] | None = None,
    B: NDArray[np.float64] | None = None,
    V: NDArray[np.float64] | None = None,
    F_out: NDArray[np.float64] | None = None,
    Q: NDArray[np.float64] | None = None,
    n_threads: int = 0,
    block: int = 4096,
) -> tuple[NDArray[np.float64] | None, ...]:
    """The interior-point pass over u_i = [Phi_i, 1, extra_i]: (G, H) with G = sum_i theta_i u_i u_i' (None without
    theta) and H = U'B (None without B); F = U V written into F_out (n x V's columns); with Q = [g, h, k] (n x 3)
    a third output Hq = U'b, b_i = g_i e_i (1 + k_i e_i), e_i = h_i - F_i0."""
