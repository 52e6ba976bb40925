"""svmopt's C++ core, in the best instruction-set variant this CPU supports.

The extension is built twice on x86-64 (``_core_baseline``: portable SSE2; ``_core_avx2``: AVX2 + FMA) as
separate shared objects. This module re-exports the variant chosen at import: AVX2 where the CPU has AVX2
and FMA, else the baseline. ``SVMOPT_ISA=baseline`` (or ``avx2``) forces a choice; ``isa`` tells which
one is loaded. Both variants compute the same functions; results may differ in the last bits (FMA).

The fixed-size LS-SVM's dense kernels (Nyström features K P, Gram accumulation F^T F, Cholesky of the ridge
systems) run on a BLAS already in the process: NumPy's bundled OpenBLAS where found, else SciPy's (its dgemm /
dsyrk / dpotrf through ``scipy.linalg.cython_blas`` / ``cython_lapack``): faster than Eigen's kernels
for the products and for the Cholesky factorizations from order 1024 (below, Eigen's are as fast; figures in
docs/performance.md).
``SVMOPT_BLAS=0`` (or ``numpy``, ``scipy``) at import, or :func:`use_blas`, chooses.
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


_BLAS_PROVIDERS = ("auto", "numpy", "scipy")


def _numpy_blas_addresses() -> tuple[int, int, int] | None:
    """Addresses of dsyrk / dgemm / dpotrf in the OpenBLAS NumPy's wheels bundle (scipy-openblas64: 64-bit integers,
    symbols ``scipy_d*_64_``), found among the loaded libraries by threadpoolctl; None where NumPy uses another BLAS."""
    import ctypes

    import numpy as np

    try:
        blas = np.show_config(mode="dicts")["Build Dependencies"]["blas"]
    except (KeyError, TypeError, AttributeError):
        return None
    if blas.get("name") != "scipy-openblas" or "USE64BITINT" not in str(blas.get("openblas configuration", "")):
        return None
    import warnings

    try:
        from threadpoolctl import threadpool_info
    except ImportError:
        return None
    numpy_root = os.path.dirname(os.path.dirname(os.path.abspath(np.__file__)))
    with warnings.catch_warnings():  # e.g. its notice of two OpenMP runtimes: not ours to report at import
        warnings.simplefilter("ignore")
        libs = threadpool_info()
    for info in libs:
        path = info.get("filepath") or ""
        name = os.path.basename(path)
        if info.get("internal_api") != "openblas" or not name.startswith("libscipy_openblas64_"):
            continue
        if not os.path.abspath(path).startswith(numpy_root) or "numpy" not in path:
            continue
        try:
            lib = ctypes.CDLL(path)
            return tuple(ctypes.cast(getattr(lib, f"scipy_{f}_64_"), ctypes.c_void_p).value
                         for f in ("dsyrk", "dgemm", "dpotrf"))
        except (OSError, AttributeError):
            return None
    return None


def _install_scipy_blas() -> bool:
    try:
        from scipy.linalg import cython_blas, cython_lapack

        _module._set_blas(cython_blas.__pyx_capi__["dsyrk"], cython_blas.__pyx_capi__["dgemm"],
                          cython_lapack.__pyx_capi__["dpotrf"])
    except (ImportError, KeyError, AttributeError, TypeError, ValueError):
        _module._set_blas(None, None)
    return bool(_module.blas_available())


def use_blas(enabled: bool | str = True) -> bool:
    """Run the fixed-size LS-SVM's dense kernels (feature product K P, Gram F^T F, the ridge systems' Cholesky
    factorizations) on a BLAS already loaded in the process, or on Eigen (False); returns whether a BLAS is in use.

    ``"numpy"``: the OpenBLAS NumPy's wheels bundle (64-bit integers, reached through its library's symbols);
    ``"scipy"``: SciPy's (the PyCapsules of ``scipy.linalg.cython_blas`` / ``cython_lapack``); ``True`` or
    ``"auto"``: NumPy's where found (it is also the BLAS of ``P.T @ P`` in NumPy, and its dsyrk measured faster than
    SciPy's; docs/performance.md), else SciPy's. A provider that cannot be had falls back to
    Eigen; :func:`blas_provider` tells which one is in use."""
    if isinstance(enabled, bool):
        want = "auto" if enabled else None
    elif isinstance(enabled, str) and enabled in _BLAS_PROVIDERS:
        want = enabled
    else:
        raise TypeError(f"enabled must be a bool or one of {_BLAS_PROVIDERS}, got {enabled!r}")
    _module._set_blas(None, None)
    if want in ("auto", "numpy"):
        addrs = _numpy_blas_addresses()
        if addrs is not None and all(addrs):
            _module._set_blas_ilp64(*addrs)
    if not _module.blas_available() and want in ("auto", "scipy"):
        _install_scipy_blas()
    return bool(_module.blas_available())


def blas_provider() -> str | None:
    """The BLAS the fixed-size LS-SVM's dense kernels run on: ``"numpy"``, ``"scipy"``, or None (Eigen). Told by
    the installed integer interface: only NumPy's OpenBLAS is installed with 64-bit integers, SciPy's with 32."""
    return {"ilp64": "numpy", "lp64": "scipy"}.get(_module.blas_interface())


_env_blas = os.environ.get("SVMOPT_BLAS", "1").strip().lower()
use_blas(False if _env_blas == "0" else _env_blas if _env_blas in ("numpy", "scipy") else True)
