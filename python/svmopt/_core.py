"""svmopt's C++ core, in the best instruction-set variant this CPU supports.

The extension is built twice on x86-64 (``_core_baseline``: portable SSE2; ``_core_avx2``: AVX2 + FMA) as
separate shared objects. This module re-exports the variant chosen at import: AVX2 where the CPU has AVX2
and FMA, else the baseline. ``SVMOPT_ISA=baseline`` (or ``avx2``) forces a choice; ``isa`` tells which
one is loaded. Both variants compute the same functions; results may differ in the last bits (FMA).

The fixed-size LS-SVM's two large products (Nyström features K P, Gram accumulation F^T F) run on the BLAS that
SciPy was built with (OpenBLAS in the wheels; its dgemm / dsyrk through ``scipy.linalg.cython_blas``), 1.5-2x
faster than Eigen's kernels here; ``SVMOPT_BLAS=0`` at import, or :func:`use_blas` (False), keeps them on Eigen.
The BLAS threads itself (``OPENBLAS_NUM_THREADS``, threadpoolctl), not through the core's ``n_threads``.
"""

from __future__ import annotations

import os
from types import ModuleType

from svmopt import _core_baseline

_CHOICES = ("auto", "baseline", "avx2")


def _select() -> ModuleType:
    want = os.environ.get("SVMOPT_ISA", "auto").strip().lower() or "auto"
    if want not in _CHOICES:
        raise ImportError(f"SVMOPT_ISA={want!r} is not one of {_CHOICES}")
    if want == "baseline":
        return _core_baseline
    if not _core_baseline.cpu_supports_avx2_fma():
        if want == "avx2":
            raise ImportError("SVMOPT_ISA=avx2, but this CPU lacks AVX2/FMA")
        return _core_baseline
    try:
        from svmopt import _core_avx2
    except ImportError:
        if want == "avx2":
            raise
        return _core_baseline
    return _core_avx2


_module = _select()
globals().update({k: v for k, v in vars(_module).items() if not k.startswith("__")})


def use_blas(enabled: bool = True) -> bool:
    """Run the fixed-size LS-SVM's feature and Gram products on SciPy's BLAS (True) or on Eigen (False); returns
    whether the BLAS is in use (False when SciPy's BLAS capsules cannot be had)."""
    if not isinstance(enabled, bool):
        raise TypeError(f"enabled must be a bool, got {enabled!r}")
    if not enabled:
        _module._set_blas(None, None)
        return False
    try:
        from scipy.linalg import cython_blas

        capi = cython_blas.__pyx_capi__
        _module._set_blas(capi["dsyrk"], capi["dgemm"])
    except (ImportError, KeyError, AttributeError, TypeError, ValueError):
        _module._set_blas(None, None)
    return bool(_module.blas_available())


use_blas(os.environ.get("SVMOPT_BLAS", "1").strip() != "0")
