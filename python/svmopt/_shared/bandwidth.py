"""Entropy bandwidths by the two-stage solve-the-equation plug-in (paper 002, Section 4.3, Algorithm 2).

Per input dimension, ``h`` solves (15) ``h = (R(kappa) / (mu_2^2 psi_4(g(h))))^{1/5} n^{-1/5}`` with the pilot
``g(h) = C h^{5/7}``; ``psi_4`` and ``psi_6`` are the kernel estimates (14) ("diagonals in") with the
AMSE-optimal pilots (16) from the normal reference (17). Exact O(n^2) sums in the C++ core
(``_core.prototypes.kde_psi``) for ``n <= exact_max_n`` (default 2,000 rather than 10^4: spiky count columns such as
spambase's make the exact sums slow well below 10^4, see docs/performance.md#core-design-figures; binning agrees to
< 1e-3), linear binning on a grid (``>= 4096`` points, bin width ``<= g/50``) with an FFT convolution above.
Newton-Raphson from the normal-reference bandwidth, with a Brent fallback; degenerate columns (constant, fewer than 5
distinct values, ``psi_6 >= 0`` or ``psi_4 <= 0``) return the normal-reference bandwidth
``h_NRR = (4/3)^{1/5} sd n^{-1/5}`` (decision: the plug-in is undefined or unstable on such columns, e.g. adult's
codes and spambase's counts; the number of fallbacks is returned).
"""

from __future__ import annotations

import logging
import math
from typing import Literal, overload

import numpy as np

from svmopt import _core

log = logging.getLogger(__name__)

_SQRT_PI = math.sqrt(math.pi)
_R_KAPPA = 1.0 / (2.0 * _SQRT_PI)
_INV_SQRT_2PI = 1.0 / math.sqrt(2.0 * math.pi)
C_H1 = 1.2406989799  # h_1 = C_H1 sd n^{-1/7}
C_H2 = 1.2304472300  # h_2 = C_H2 sd n^{-1/9}
C_G = 1.3572711157  # g(h) = C_G (psi_4/(-psi_6))^{1/7} h^{5/7}
C_NRR = 1.0592238  # (4/3)^{1/5}


def kappa_derivative(u: np.ndarray, r: int) -> np.ndarray:
    """r-th derivative of the standard normal density (r = 0, 4, 5, 6)."""
    u = np.asarray(u, dtype=np.float64)
    ph = _INV_SQRT_2PI * np.exp(-0.5 * u * u)
    u2 = u * u
    poly = {
        0: np.ones_like(u),
        4: u2 * u2 - 6.0 * u2 + 3.0,
        5: -(u2 * u2 * u - 10.0 * u2 * u + 15.0 * u),
        6: u2 * u2 * u2 - 15.0 * u2 * u2 + 45.0 * u2 - 15.0,
    }[r]
    return poly * ph


@overload
def psi_exact(x_sorted: np.ndarray, g: float, r: int, derivative: Literal[False] = False) -> float: ...
@overload
def psi_exact(x_sorted: np.ndarray, g: float, r: int, derivative: Literal[True]) -> tuple[float, float]: ...
@overload
def psi_exact(x_sorted: np.ndarray, g: float, r: int, derivative: bool) -> float | tuple[float, float]: ...
def psi_exact(x_sorted: np.ndarray, g: float, r: int, derivative: bool = False) -> float | tuple[float, float]:
    """Estimate (14) of psi_r (exact pair sums in the core); with ``derivative`` (r = 4 only) also d psi_4/dg."""
    x = np.asarray(x_sorted, dtype=np.float64)
    if not derivative:
        return _core.prototypes.kde_psi(x, float(g), int(r))
    if int(r) != 4:
        raise ValueError("kde_psi: the derivative is available for r = 4 only")
    return _core.prototypes.kde_psi_with_derivative(x, float(g))


class _Binned:
    """Linear binning of one column on an equispaced grid (KernSmooth / R bw.SJ approach). Every estimate is a sum
    over the grid's pairs of bins, sum_ij c_i c_j kappa((i - j) delta / g) = sum_l A(l) kappa(l delta / g), so the
    autocorrelation A of the counts is formed once (one FFT) and each psi_r(g) costs the 2 L + 1 lags within the
    kernel's reach (L = 12 g / delta), not a convolution of the whole grid per call."""

    def __init__(self, x: np.ndarray, g_min: float, grid_size: int = 4096):
        self.n = x.size
        lo, hi = float(x.min()), float(x.max())
        size = max(grid_size, math.ceil(50.0 * (hi - lo) / max(g_min, 1e-300)) + 1)
        size = min(size, 1 << 20)
        self.delta = (hi - lo) / (size - 1)
        pos = (x - lo) / self.delta
        left = np.clip(np.floor(pos).astype(np.int64), 0, size - 2)
        frac = pos - left
        self.counts = np.bincount(left, weights=1.0 - frac, minlength=size) + np.bincount(
            left + 1, weights=frac, minlength=size
        )
        self._autocorrelation: np.ndarray | None = None

    def autocorrelation(self) -> np.ndarray:
        """A(l) = sum_i c_i c_{i+l} for l = 0, ..., size - 1 (A(-l) = A(l)), by one zero-padded real FFT."""
        if self._autocorrelation is None:
            from scipy import fft

            size = self.counts.size
            nfft = fft.next_fast_len(2 * size, real=True)
            spectrum = fft.rfft(self.counts, nfft)
            self._autocorrelation = fft.irfft(spectrum.real ** 2 + spectrum.imag ** 2, nfft)[:size]
        return self._autocorrelation

    def psi(self, g: float, r: int, derivative: bool = False):
        size = self.counts.size
        lags = min(size - 1, math.ceil(12.0 * g / self.delta))
        A = self.autocorrelation()[:lags + 1]
        u = np.arange(lags + 1) * self.delta / g
        twice = np.full(lags + 1, 2.0)  # the lags -l and l
        twice[0] = 1.0
        Aw = A * twice
        n2 = float(self.n) ** 2
        psi = float(Aw @ kappa_derivative(u, r)) / (n2 * g ** (r + 1))
        if not derivative:
            return psi
        kd = 5.0 * kappa_derivative(u, 4) + u * kappa_derivative(u, 5)
        return psi, -float(Aw @ kd) / (n2 * g**6)


class _Tied:
    """The exact estimate (14) of a column with few distinct values: the pair sum over the distinct values x_u with
    their counts c_u, sum_uv c_u c_v kappa((x_u - x_v) / g) (U^2 terms for U values instead of n^2: a count column
    of 2,000 rows and 8 values costs 64). The same sum as the core's exact one, grouped (to rounding)."""

    def __init__(self, values: np.ndarray, counts: np.ndarray):
        self.n = float(counts.sum())
        self.diff = values[:, None] - values[None, :]
        self.weight = np.outer(counts, counts).astype(np.float64)

    def psi(self, g: float, r: int, derivative: bool = False):
        u = self.diff / g
        n2 = self.n**2
        psi = float(np.sum(self.weight * kappa_derivative(u, r))) / (n2 * g ** (r + 1))
        if not derivative:
            return psi
        kd = 5.0 * kappa_derivative(u, 4) + u * kappa_derivative(u, 5)
        return psi, -float(np.sum(self.weight * kd)) / (n2 * g**6)


#: The exact estimate groups equal values (:class:`_Tied`) when a column has at most this share of distinct values:
#: U^2 numpy terms then cost less than the core's n^2 pair sum (whose time ties do not shorten).
TIED_SHARE = 1.0 / 8.0


def psi_binned(x: np.ndarray, g: float, r: int, derivative: bool = False, grid_size: int = 4096):
    """Binned estimate of psi_r (grid with bin width <= g/50)."""
    return _Binned(np.asarray(x, dtype=np.float64), g, grid_size).psi(g, r, derivative)


def plugin_bandwidth(x, *, exact_max_n: int = 2_000, grid_size: int = 4096, return_info: bool = False):
    """Solve-the-equation plug-in bandwidth of one sample (Algorithm 2; Gaussian kernel).

    Returns ``h`` (and a dict of intermediate values when ``return_info``). Degenerate samples return the
    normal-reference bandwidth with ``info["fallback"]`` set.
    """
    x = np.sort(np.asarray(x, dtype=np.float64).ravel())
    n = x.size
    if n < 2 or not np.all(np.isfinite(x)):
        raise ValueError("plugin_bandwidth needs at least 2 finite values")
    sd = float(np.std(x, ddof=1))
    h_nrr = C_NRR * max(sd, 1e-300) * n ** (-0.2)
    info: dict = {"n": n, "sd": sd, "h_nrr": h_nrr, "fallback": None}

    def done(h, reason=None):
        info["fallback"] = reason
        return (h, info) if return_info else h

    if sd == 0.0 or np.unique(x).size < 5:  # (the distinct values are counted again below: cheap next to the sums)
        return done(h_nrr, "fewer than 5 distinct values")
    h1 = C_H1 * sd * n ** (-1.0 / 7.0)
    h2 = C_H2 * sd * n ** (-1.0 / 9.0)
    values, counts = np.unique(x, return_counts=True)
    if n <= exact_max_n and values.size <= TIED_SHARE * n:
        psi = _Tied(values, counts).psi
    elif n <= exact_max_n:
        def psi(g, r, derivative=False):
            return psi_exact(x, g, r, derivative)
    else:
        binned = _Binned(x, 0.3 * h_nrr, grid_size)
        psi = binned.psi
    p4, p6 = psi(h1, 4), psi(h2, 6)
    info.update(h1=h1, h2=h2, psi4=p4, psi6=p6)
    if not (p4 > 0.0 and p6 < 0.0):
        return done(h_nrr, "psi_4 <= 0 or psi_6 >= 0")
    C = C_G * (p4 / (-p6)) ** (1.0 / 7.0)
    info["C"] = C
    c1 = _R_KAPPA / n

    def F(h, with_derivative=False):
        g = C * h ** (5.0 / 7.0)
        if with_derivative:
            v, dv = psi(g, 4, True)
        else:
            v, dv = psi(g, 4), 0.0
        if not v > 0.0:
            return math.nan, math.nan
        root = (c1 / v) ** 0.2
        return h - root, 1.0 + 0.2 * root * (dv / v) * (5.0 / 7.0) * (g / h)

    h = h_nrr
    converged = False
    for it in range(50):
        f, df = F(h, True)
        if not (math.isfinite(f) and math.isfinite(df)) or df == 0.0:
            break
        h_new = h - f / df
        if not (math.isfinite(h_new) and h_new > 0.0):
            break
        if abs(h_new - h) <= 1e-10 * h:
            h, converged = h_new, True
            info["newton_iterations"] = it + 1
            break
        h = h_new
    if not converged:
        from scipy.optimize import brentq

        h_max = 1.144 * sd * n ** (-0.2)
        lo, hi = 0.1 * h_max, h_max
        for k in range(60):
            flo, fhi = F(lo)[0], F(hi)[0]
            if math.isfinite(flo) and math.isfinite(fhi) and flo * fhi < 0:
                h = brentq(lambda t: F(t)[0], lo, hi, xtol=1e-12 * hi, rtol=1e-12)
                converged = True
                break
            if k % 2 == 0:
                lo /= 1.2
            else:
                hi *= 1.2
        if not converged:
            return done(h_nrr, "root finding failed")
        info["newton_iterations"] = None
    return done(h)


def entropy_bandwidths(X, *, exact_max_n: int = 2_000, grid_size: int = 4096) -> tuple[np.ndarray, int]:
    """Per-dimension plug-in bandwidths h_1..h_d of the rows of X, and the number of fallbacks (Algorithm 2)."""
    X = np.asarray(X, dtype=np.float64)
    h = np.empty(X.shape[1])
    fallbacks = 0
    for j in range(X.shape[1]):
        hj, info = plugin_bandwidth(X[:, j], exact_max_n=exact_max_n, grid_size=grid_size, return_info=True)
        if info["fallback"]:
            fallbacks += 1
            log.info("entropy bandwidth of column %d: normal reference (%s)", j, info["fallback"])
        h[j] = hj if hj > 0 else 1.0
    return h, fallbacks
