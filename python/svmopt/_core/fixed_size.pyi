"""Paper 002's core: Nystrom features (5), the blockwise fold statistics and fast v-fold CV ((7), (19)-(21)), CSA
(the paper's Appendix) and the tuning in the core (cpp/include/svmopt/nystrom.hpp, fast_cv.hpp, csa.hpp, tuning.hpp);
the Renyi-entropy prototypes are in :mod:`svmopt._core.prototypes`. The dense products and factorizations run on the
BLAS :mod:`svmopt._core` finds on first use. Array policy: see :mod:`svmopt._core.kernels`."""

from collections.abc import Callable
from typing import ClassVar, Literal

import numpy as np
from numpy.typing import NDArray

from svmopt._core._enum import PybindEnum
from svmopt._core.kernels import KernelParams

# ------------------------------------------------------------------------------------------------ Nystrom, CV
def nystrom_features(
    X: NDArray[np.float64],
    PV: NDArray[np.float64],
    params: KernelParams,
    P: NDArray[np.float64],
    n_threads: int = 0,
    chunk: int = 0,
) -> NDArray[np.float64]:
    """K(X, PV) P (n x m'), eq. (5)."""

class FoldAccumulator:
    """Per-fold statistics G_u = Phi_u^T Phi_u, t_u = Phi_u^T Y_u of the extended features [phi(x), 1], one row block
    at a time."""

    def __init__(
        self,
        PV: NDArray[np.float64],
        params: KernelParams,
        P: NDArray[np.float64],
        n_folds: int = 1,
        n_targets: int = 1,
        n_features_linear: int = 0,
        n_threads: int = 0,
        chunk: int = 0,
        keep_features: bool = False,
        statistics: Literal["auto", "features", "kernel"] = "auto",
    ) -> None: ...
    @property
    def n_folds(self) -> int: ...
    @property
    def n_targets(self) -> int: ...
    @property
    def dim(self) -> int: ...
    @property
    def n_rows(self) -> int: ...
    @property
    def keeps_features(self) -> bool: ...
    @property
    def kernel_statistics(self) -> bool: ...
    def add(
        self,
        X: NDArray[np.float64],
        Y: NDArray[np.float64],
        folds: NDArray[np.int32] | None = None,
        out: NDArray[np.float64] | None = None,
        weights: NDArray[np.float64] | None = None,
    ) -> None:
        """Accumulate a row block (``folds``: its fold ids; None: fold 0); ``out`` (rows, dim), C-contiguous and
        writeable: also receives the block's features. ``weights`` (rows,), finite and > 0: the weighted sums
        Phi_u^T W_u Phi_u, Phi_u^T W_u Y_u, sum w y^2 (``out``, the kept features and ``counts`` unweighted)."""
    def features(self, X: NDArray[np.float64]) -> NDArray[np.float64]:
        """[phi(X), 1] of a block (nothing accumulated)."""
    def kept_features(self) -> NDArray[np.float64]:
        """The kept features of all rows added, in stream order (keep_features=True)."""
    def predict_kept(self, theta: NDArray[np.float64]) -> NDArray[np.float64]:
        """Every kept row predicted by its own fold's model theta[fold] (n_rows, c): c = theta.shape[2] columns."""
    def results(
        self, raw: bool = False
    ) -> tuple[NDArray[np.float64], NDArray[np.float64], NDArray[np.float64], NDArray[np.int64]]:
        """(G (v, p, p), t (v, p, k), yy (v, k), counts (v,)); raw=True (kernel statistics): C_u^T C_u, C_u^T Y_u of
        C = [K(X, PV), 1] instead of G, t."""
    def totals(self) -> tuple[NDArray[np.float64], NDArray[np.float64]]:
        """(G, t) summed over the folds: the statistics of the final fit (7)."""
    def fold_solve(self, gamma: float, regularize_bias: bool = True) -> NDArray[np.float64]:
        """The fold models theta (v, p, k) of (19)-(21) from the accumulated statistics."""

def kernel_statistics_preferred(P: NDArray[np.float64], n_targets: int = 1) -> bool:
    """Whether FoldAccumulator(statistics="auto") accumulates kernel statistics for the projection P."""

def project_statistics(
    G: NDArray[np.float64], t: NDArray[np.float64], P: NDArray[np.float64]
) -> tuple[NDArray[np.float64], NDArray[np.float64]]:
    """G_u = P~^T Gk_u P~, t_u = P~^T tk_u with P~ = [[P, 0], [0, 1]]: feature statistics from kernel statistics."""

def fast_cv_solve(
    G: NDArray[np.float64], t: NDArray[np.float64], gamma: float, regularize_bias: bool = True, n_threads: int = 0
) -> NDArray[np.float64]:
    """theta_v = (G - G_v + R/gamma)^{-1} (c - t_v) for every fold v, eqs. (19)-(21): (v, p, k)."""

def ridge_solve(
    G: NDArray[np.float64], t: NDArray[np.float64], gamma: float, regularize_bias: bool = True
) -> NDArray[np.float64]:
    """theta = (G + R/gamma)^{-1} t, eq. (7)."""

def fold_predict(
    Phi: NDArray[np.float64], folds: NDArray[np.int32], theta: NDArray[np.float64], n_threads: int = 0
) -> NDArray[np.float64]:
    """Row i: Phi[i] @ theta[folds[i]]."""

def fast_cv_holdout(
    Phi: NDArray[np.float64],
    Y: NDArray[np.float64],
    folds: NDArray[np.int32],
    n_folds: int,
    G: NDArray[np.float64],
    t: NDArray[np.float64],
    gamma: float,
    regularize_bias: bool = True,
    n_threads: int = 0,
) -> NDArray[np.float64]:
    """CV predictions by the holdout identity from the whole-data G, t (the same numbers as fast_cv_solve +
    fold_predict)."""

# ------------------------------------------------------------------------------------------------ CSA
def csa_acceptance(energies: NDArray[np.float64], Tac: float) -> tuple[NDArray[np.float64], float]:
    """CSA-MwVC acceptance probabilities A_i and their variance."""

def csa_update_tac(Tac: float, variance: float, q: int, alpha: float = 0.05, target_ratio: float = 0.99) -> float: ...

class CSAResult:
    @property
    def x(self) -> NDArray[np.float64]: ...
    @property
    def fun(self) -> float: ...
    @property
    def history(self) -> NDArray[np.float64]:
        """One row per evaluation: x..., cost."""
    @property
    def Tac(self) -> float: ...
    @property
    def n_stages(self) -> int: ...
    @property
    def timed_out(self) -> bool: ...

def csa_minimize(
    cost: Callable[[NDArray[np.float64]], float],
    x0: NDArray[np.float64],
    lower: NDArray[np.float64],
    upper: NDArray[np.float64],
    max_evals: int = 90,
    inner: int = 5,
    T0: float = 1.0,
    Tac0: float = 0.0,
    alpha: float = 0.05,
    target_ratio: float = 0.99,
    seed: int = 0,
    time_limit: float | None = None,
) -> CSAResult:
    """Coupled simulated annealing with variance control; ``cost(x)`` is called with the GIL held."""

# ------------------------------------------------------------------------------------------------ tuning in the core
def nystrom_projection(
    PV: NDArray[np.float64], params: KernelParams, n_threads: int = 0
) -> tuple[NDArray[np.float64], NDArray[np.float64]]:
    """(P, lambda): P = U' Lambda'^{-1/2} (m x m') from eig(K(PV, PV)), eigenpairs decreasing, those with
    lambda <= m eps lambda_max dropped (Section 3.1)."""

def holdout_cheaper(n: int, p: int, v: int) -> bool:
    """Whether the holdout identity beats v Cholesky solves (svmopt.fixed_size.cv_engine.holdout_cheaper)."""

class SearchResult:
    @property
    def x(self) -> NDArray[np.float64]: ...
    @property
    def fun(self) -> float: ...
    @property
    def history(self) -> NDArray[np.float64]:
        """One row per evaluation: x..., cost."""
    @property
    def n_csa(self) -> int: ...
    @property
    def n_simplex(self) -> int: ...
    @property
    def Tac(self) -> float: ...
    @property
    def n_stages(self) -> int: ...
    @property
    def timed_out(self) -> bool: ...

def nelder_mead(
    cost: Callable[[NDArray[np.float64]], float],
    x0: NDArray[np.float64],
    lower: NDArray[np.float64] | None = None,
    upper: NDArray[np.float64] | None = None,
    max_evals: int = 70,
    step: float = 0.5,
    tol: float = 1e-4,
    time_limit: float | None = None,
) -> SearchResult:
    """Nelder-Mead (1, 2, 0.5, 0.5) from the simplex x0, x0 + step e_i (Section 6.3), evaluated points clipped into
    the bounds; the same steps as scipy's with xatol = fatol = tol."""

def csa_simplex(
    cost: Callable[[NDArray[np.float64]], float],
    x0: NDArray[np.float64],
    lower: NDArray[np.float64],
    upper: NDArray[np.float64],
    n_csa: int = 90,
    n_simplex: int = 70,
    inner: int = 5,
    seed: int = 0,
    step: float = 0.5,
    time_limit: float | None = None,
) -> SearchResult:
    """CSA for n_csa costs (0: none) from the q initial states x0, then Nelder-Mead from the CSA best."""

class CVTask(PybindEnum):
    classification: ClassVar[CVTask]
    regression: ClassVar[CVTask]
    __members__: ClassVar[dict[str, CVTask]]

class CVCost:
    """The fast v-fold CV cost (19)-(21) of rows held in memory (the in-memory path of
    svmopt.fixed_size.cv_engine.CVEngine)."""

    def __init__(
        self,
        X: NDArray[np.float64],
        Y: NDArray[np.float64],
        folds: NDArray[np.int32],
        n_folds: int,
        PV: NDArray[np.float64],
        params: KernelParams,
        tune_rbf: bool,
        n_features_linear: int,
        task: CVTask,
        rows: NDArray[np.int64] | None = None,
        mean: NDArray[np.float64] | None = None,
        scale: NDArray[np.float64] | None = None,
        block: int = 65536,
        regularize_bias: bool = True,
        feature_budget: int = 1073741824,
        n_threads: int = 0,
        cache_size: int = 4,
        statistics: Literal["auto", "features", "kernel"] = "auto",
        weights: NDArray[np.float64] | None = None,
    ) -> None:
        """``weights`` (n,), finite and > 0 (None: unweighted): weighted fold sums and the weighted CV cost
        sum_i w_i L_i / (k sum_i w_i)."""
    def cost(self, gamma: float, sigma2: float) -> float: ...
    def fit(self, gamma: float, sigma2: float) -> tuple[NDArray[np.float64] | None, NDArray[np.float64]]: ...
    @property
    def n_rows(self) -> int: ...
    @property
    def n_passes(self) -> int: ...
    @property
    def n_evals(self) -> int: ...
    @property
    def holdout(self) -> bool: ...

def tune_cv(
    cv: CVCost,
    x0: NDArray[np.float64],
    lower: NDArray[np.float64],
    upper: NDArray[np.float64],
    tune_gamma: bool,
    tune_sigma2: bool,
    gamma: float,
    sigma2: float,
    n_csa: int = 90,
    n_simplex: int = 70,
    inner: int = 5,
    seed: int = 0,
    step: float = 0.5,
    time_limit: float | None = None,
) -> SearchResult:
    """CSA + simplex on cv.cost over (log gamma, log sigma2) -- the tuned ones -- all in the core, GIL released."""
