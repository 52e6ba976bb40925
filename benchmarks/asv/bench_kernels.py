"""Gram-matrix assembly: svmopt's core against scikit-learn and the memory-bandwidth floor, same run.

Every benchmark is parametrised by ``impl`` so that one ``asv run`` measures the three side by side:

* ``svmopt``  -- ``svmopt.Kernel(...).gram(X)`` (C++ core, one triangle of tiles, OpenMP);
* ``sklearn`` -- ``sklearn.metrics.pairwise`` with the same kernel parameters (NumPy/BLAS);
* ``floor``   -- allocate the m x m float64 output and write it once (``np.empty`` + ``fill``): no
  implementation can be faster than this, so ``svmopt / floor`` is the distance to the bandwidth limit.

Run: ``asv run --python=same -b bench_kernels`` (installed package) or ``asv continuous main HEAD``.
"""

from __future__ import annotations

import numpy as np
from sklearn.metrics import pairwise

from svmopt import Kernel

KERNELS = ("linear", "poly", "inhom_poly", "rbf", "sigmoid")


def _pair(name: str, d: int):
    """(svmopt Kernel, sklearn callable) computing the same matrix."""
    alpha = float(np.sqrt(d))  # typical scale of standard-normal data
    if name == "linear":
        return Kernel("linear"), pairwise.linear_kernel
    if name == "poly":
        return Kernel("poly", degree=2), lambda X: pairwise.polynomial_kernel(X, degree=2, gamma=1.0, coef0=0.0)
    if name == "inhom_poly":
        return (
            Kernel("inhom_poly", degree=3, c=1.0),
            lambda X: pairwise.polynomial_kernel(X, degree=3, gamma=1.0, coef0=1.0),
        )
    if name == "rbf":
        return Kernel("rbf", alpha=alpha), lambda X: pairwise.rbf_kernel(X, gamma=1.0 / (2.0 * alpha**2))
    if name == "sigmoid":
        return (
            Kernel("sigmoid", a=1.0 / d, b=0.0),
            lambda X: pairwise.sigmoid_kernel(X, gamma=1.0 / d, coef0=0.0),
        )
    raise ValueError(name)


class GramAssembly:
    """K(X, X) for m x d standard-normal data."""

    params = (list(KERNELS), [1000, 4000, 10000], [10, 100], ["svmopt", "sklearn", "floor"])
    param_names = ("kernel", "m", "d", "impl")
    number = 1
    repeat = (1, 3, 20.0)
    timeout = 300

    def setup(self, kernel, m, d, impl):
        self.X = np.random.default_rng(0).standard_normal((m, d))
        k, sk = _pair(kernel, d)
        if impl == "svmopt":
            self.fn = lambda: k.gram(self.X)
        elif impl == "sklearn":
            self.fn = lambda: sk(self.X)
        else:
            if kernel != "linear" or d != 10:
                raise NotImplementedError  # the floor depends on m only: measure it once per m
            self.fn = lambda: np.empty((m, m)).fill(1.0)

    def time_gram(self, kernel, m, d, impl):
        self.fn()


class KernelMatvec:
    """K(X, Z) v for prediction on many rows: streamed matvec against the stored cross-Gram."""

    params = ([20000, 100000], ["svmopt_matvec", "svmopt_cross", "sklearn"])
    param_names = ("n", "impl")
    number = 1
    repeat = (1, 3, 20.0)

    def setup(self, n, impl):
        rng = np.random.default_rng(1)
        self.X = rng.standard_normal((n, 20))
        self.Z = rng.standard_normal((500, 20))
        self.v = rng.standard_normal(500)
        self.k = Kernel("rbf", alpha=4.0)
        self.gamma = self.k.gamma

    def time_matvec(self, n, impl):
        if impl == "svmopt_matvec":
            self.k.matvec(self.X, self.Z, self.v)
        elif impl == "svmopt_cross":
            self.k.cross(self.X, self.Z) @ self.v
        else:
            pairwise.rbf_kernel(self.X, self.Z, gamma=self.gamma) @ self.v

    def peakmem_matvec(self, n, impl):
        self.time_matvec(n, impl)
