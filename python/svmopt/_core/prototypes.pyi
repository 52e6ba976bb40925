"""The Renyi-entropy prototype selection of paper 002 (Section 4.1, Algorithm 1: the entropy (12) in the log domain,
O(m d) swap updates) and the kernel estimates (14) of the psi_r its plug-in bandwidths need
(cpp/include/svmopt/entropy.hpp), shared by the fixed-size LS-SVM's prototypes and the robust SVM's landmarks
(svmopt._shared.prototypes, svmopt._shared.bandwidth). Array policy: see :mod:`svmopt._core.kernels`."""

import numpy as np
from numpy.typing import NDArray

# ------------------------------------------------------------------------------------------------ entropy
def entropy_log_offdiag(Z: NDArray[np.float64], idx: NDArray[np.int64] | None, n_threads: int = 0) -> float:
    """log sum_{k != l} exp(-||Z_k - Z_l||^2) over the rows ``idx`` (None: all) of the scaled inputs Z = X / (2h)."""

def entropy_log_rowsum(Z: NDArray[np.float64], idx: NDArray[np.int64] | None, point: int, skip: int) -> float:
    """LSE_{l != skip}(-||Z_point - Z_{idx_l}||^2)."""

class EntropySelectResult:
    @property
    def idx(self) -> NDArray[np.int64]:
        """The m prototype indices (rows of Z)."""
    @property
    def log_offdiag(self) -> float: ...
    @property
    def n_proposals(self) -> int: ...
    @property
    def n_accepted(self) -> int: ...
    @property
    def n_recomputes(self) -> int: ...
    @property
    def n_row_recomputes(self) -> int: ...
    @property
    def n_kernel_evals(self) -> int: ...
    @property
    def stopped_early(self) -> bool: ...

def entropy_select(
    Z: NDArray[np.float64],
    m: int,
    labels: NDArray[np.int64] | None = None,
    init: NDArray[np.int64] | None = None,
    max_proposals: int = 0,
    window: int = 0,
    tol: float = 1e-5,
    seed: int = 0,
    recompute: bool = False,
) -> EntropySelectResult:
    """Renyi-entropy prototype selection (Algorithm 1) with O(m d) log-domain swap updates."""

# ------------------------------------------------------------------------------------------------ psi_r
def kde_psi(x_sorted: NDArray[np.float64], g: float, r: int, n_threads: int = 0) -> float:
    """Kernel estimate (14) of psi_r (r = 4 or 6) on sorted data."""

def kde_psi_with_derivative(x_sorted: NDArray[np.float64], g: float, n_threads: int = 0) -> tuple[float, float]:
    """(psi_4, d psi_4 / dg)."""
