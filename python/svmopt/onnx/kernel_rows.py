"""Kernel rows against stored points as ONNX operators: :func:`kernel_rows` builds ``K[i, j] = k(x_i, z_j)`` (N x m)
for every kernel of :class:`svmopt.Kernel` (paper 000, Table 2), the way svmopt's core evaluates it, and
:func:`kernel_expansion` the expansion ``K(X, Z) @ V`` with a bias.

========== ==================================================================================
linear     ``G = X Z^T``
poly       ``G^d``, the integer power by repeated squaring (``G * G``, ``G * G * G`` for d = 2, 3)
inhom_poly ``(G + c)^d``, likewise
rbf        ``exp(-max(||x||^2 + ||z||^2 - 2 G, 0) / (2 alpha^2))`` (the clamp as in the core)
sigmoid    ``tanh(a G + b)``
========== ==================================================================================

The stored points enter as constants (``Z^T`` and, for the RBF, their squared norms), the inputs' squared norms are
computed in the graph. In float64 the result equals the core's up to the order of the inner products' sums.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from svmopt.kernels import Kernel
from svmopt.onnx.graph import Graph


def int_power(g: Graph, T: str, degree: int) -> str:
    """``T ** degree`` elementwise by products, in the order of the core's integer power."""
    if degree == 1:
        return T
    if degree == 2:
        return g.node("Mul", [T, T], "square")
    if degree == 3:
        return g.node("Mul", [g.node("Mul", [T, T], "square"), T], "cube")
    result: str | None = None
    base, e = T, degree
    while e > 0:
        if e & 1:
            result = base if result is None else g.node("Mul", [result, base], "power")
        e >>= 1
        if e:
            base = g.node("Mul", [base, base], "power_base")
    assert result is not None
    return result


def kernel_rows(g: Graph, X: str, Z: np.ndarray, kernel: Kernel) -> str:
    """``K(X, Z)`` (N x m) for the input ``X`` (N x d) and the stored points ``Z`` (m x d), ``kernel`` resolved."""
    p = kernel.core_params  # a ValueError for an unresolved "auto" parameter
    Z = np.asarray(Z, dtype=np.float64)
    inner = g.node("MatMul", [X, g.const(Z.T, "points_t")], "inner")
    name = kernel.name
    if name == "linear":
        return inner
    if name == "poly":
        return int_power(g, inner, int(p.degree))
    if name == "inhom_poly":
        return int_power(g, g.node("Add", [inner, g.const(float(p.c), "offset")], "shifted"), int(p.degree))
    if name == "sigmoid":
        scaled = g.node("Mul", [inner, g.const(float(p.a), "slope")], "scaled")
        return g.node("Tanh", [g.node("Add", [scaled, g.const(float(p.b), "intercept")], "affine")], "sigmoid")
    if name == "rbf":
        alpha = float(p.alpha)
        scale = 1.0 / (2.0 * alpha * alpha)  # as the core computes it from alpha
        x_sq = g.node("ReduceSum", [g.node("Mul", [X, X], "x_squares"), g.ints([1], "axis1")], "x_sq_norms",
                      keepdims=1)
        z_sq = g.const(np.einsum("ij,ij->i", Z, Z)[None, :], "z_sq_norms")
        twice = g.node("Mul", [inner, g.const(2.0, "two")], "twice_inner")
        d2 = g.node("Sub", [g.node("Add", [x_sq, z_sq], "sq_norm_sum"), twice], "sq_dist")
        exponent = g.node("Mul", [g.node("Relu", [d2], "sq_dist_pos"), g.const(-scale, "minus_scale")], "exponent")
        return g.node("Exp", [exponent], "rbf")
    raise ValueError(f"kernel {name!r} has no ONNX form")  # unreachable: Kernel validates its name


def kernel_expansion(g: Graph, X: str, Z: np.ndarray, kernel: Kernel, V: np.ndarray, bias: Any, hint: str, *,
                     subtract: bool = False) -> str:
    """``K(X, Z) @ V + bias`` (``- bias`` with ``subtract``), V of shape (m, k): the real outputs of k models."""
    return g.affine(kernel_rows(g, X, Z, kernel), np.asarray(V, dtype=np.float64), bias, hint, subtract=subtract)
