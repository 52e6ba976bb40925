"""svmopt's C++ core, in the best instruction-set variant this CPU supports.

The routines live in one submodule per concept, each with its stub (``*.pyi`` beside this file):
:mod:`~svmopt._core.kernels` (kernel matrices), :mod:`~svmopt._core.cutting_plane` (the reduced LPs' cutting-plane
pass, papers 000 and 001), :mod:`~svmopt._core.robust` (paper 000's LP and line searches),
:mod:`~svmopt._core.prototypes` (the Rényi-entropy prototypes of paper 002 and their plug-in bandwidths, shared by the
robust landmarks), :mod:`~svmopt._core.fixed_size` (paper 002's Nyström, fast CV and CSA),
:mod:`~svmopt._core.ellipsoid` (paper 003's swarms), :mod:`~svmopt._core.blas` (the BLAS the fixed-size products run
on). Options are bound enums and results are bound classes. Array policy: arrays must already have the dtype the core
computes in (float64; int32 fold ids; int64 indices), else TypeError; any memory layout is accepted.

The extension is built twice on x86-64 (``_core_baseline``: portable SSE2; ``_core_avx2``: AVX2 + FMA) as
separate shared objects. This package re-exports the variant chosen at import: AVX2 where the CPU has AVX2
and FMA, else the baseline. ``SVMOPT_ISA=baseline`` (or ``avx2``) forces a choice; ``isa`` tells which
one is loaded. Both variants compute the same functions; results may differ in the last bits (FMA).

The fixed-size LS-SVM's dense kernels (Nyström features K P, Gram accumulation F^T F, Cholesky of the ridge
systems) run on a BLAS already in the process: NumPy's bundled OpenBLAS where found, else SciPy's (its dgemm /
dsyrk / dpotrf through ``scipy.linalg.cython_blas`` / ``cython_lapack``): faster than Eigen's kernels
for the products and for the Cholesky factorizations from order 1024 (below, Eigen's are as fast; figures in
docs/performance.md#core-design-figures). The BLAS is looked for on the first call that needs one (not at import):
``SVMOPT_BLAS=0`` (or ``numpy``, ``scipy``) then chooses, or :func:`use_blas` at any time.
The BLAS threads itself (``OPENBLAS_NUM_THREADS``, threadpoolctl), not through the core's ``n_threads``.
"""

from __future__ import annotations

import os
import sys
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
isa: str = _module.isa
eigen_version: str = _module.eigen_version
cpu_supports_avx2_fma = _module.cpu_supports_avx2_fma
openmp_enabled = _module.openmp_enabled
max_threads = _module.max_threads
simd_instruction_sets = _module.simd_instruction_sets
kernels = _module.kernels
cutting_plane = _module.cutting_plane
robust = _module.robust
prototypes = _module.prototypes
fixed_size = _module.fixed_size
ellipsoid = _module.ellipsoid
blas = _module.blas
#: The submodules, one per concept; `import svmopt._core.kernels` works too.
for _name in ("kernels", "cutting_plane", "robust", "prototypes", "fixed_size", "ellipsoid", "blas"):
    sys.modules[f"{__name__}.{_name}"] = getattr(_module, _name)
del _name


_BLAS_PROVIDERS = ("auto", "numpy", "scipy")


def _numpy_blas_addresses() -> tuple[int, int, int, int] | None:
    """Addresses of dsyrk / dgemm / dpotrf / dsyevd in the OpenBLAS NumPy's wheels bundle (scipy-openblas64: 64-bit
    integers, symbols ``scipy_d*_64_``), found among the loaded libraries by threadpoolctl; None where NumPy uses
    another BLAS."""
    import ctypes

    import numpy as np

    try:
        config = np.show_config(mode="dicts")["Build Dependencies"]["blas"]
    except (KeyError, TypeError, AttributeError):
        return None
    if config.get("name") != "scipy-openblas" or "USE64BITINT" not in str(config.get("openblas configuration", "")):
        return None
    import warnings

    try:
        from threadpoolctl import threadpool_info
    except ImportError:
        return None
    numpy_root = os.path.dirname(os.path.dirname(os.path.abspath(np.__file__)))
    with warnings.catch_warnings():  # e.g. its notice of two OpenMP runtimes: not ours to report
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
                         for f in ("dsyrk", "dgemm", "dpotrf", "dsyevd"))
        except (OSError, AttributeError):
            return None
    return None


def _install_scipy_blas(target: ModuleType) -> bool:
    try:
        from scipy.linalg import cython_blas, cython_lapack

        target.set_lp64(cython_blas.__pyx_capi__["dsyrk"], cython_blas.__pyx_capi__["dgemm"],
                        cython_lapack.__pyx_capi__["dpotrf"], cython_lapack.__pyx_capi__["dsyevd"])
    except (ImportError, KeyError, AttributeError, TypeError, ValueError):
        target.clear()
    return bool(target.available())


def _install_blas(want: str | None, target: ModuleType) -> bool:
    """Install provider ``want`` (None: none) in the ``blas`` submodule ``target`` of a core variant."""
    target.clear()
    if want in ("auto", "numpy"):
        addrs = _numpy_blas_addresses()
        if addrs is not None and all(addrs):
            target.set_ilp64(*addrs)
    if not target.available() and want in ("auto", "scipy"):
        _install_scipy_blas(target)
    return bool(target.available())


def _first_use(target: ModuleType) -> None:
    """Called by the core (each variant with its own ``blas`` submodule) on the first call that needs a BLAS when
    none was chosen: ``SVMOPT_BLAS`` decides (unset: NumPy's, else SciPy's)."""
    env = os.environ.get("SVMOPT_BLAS", "1").strip().lower()
    _install_blas(None if env == "0" else env if env in ("numpy", "scipy") else "auto", target)


def use_blas(enabled: bool | str = True) -> bool:
    """Run the fixed-size LS-SVM's dense kernels (feature product K P, Gram F^T F, the ridge systems' Cholesky
    factorizations) on a BLAS already loaded in the process, or on Eigen (False); returns whether a BLAS is in use.

    ``"numpy"``: the OpenBLAS NumPy's wheels bundle (64-bit integers, reached through its library's symbols);
    ``"scipy"``: SciPy's (the PyCapsules of ``scipy.linalg.cython_blas`` / ``cython_lapack``); ``True`` or
    ``"auto"``: NumPy's where found (it is also the BLAS of ``P.T @ P`` in NumPy, and its dsyrk measured faster than
    SciPy's; docs/performance.md#core-design-figures), else SciPy's. A provider that cannot be had falls back to
    Eigen; :func:`blas_provider` tells which one is in use."""
    if isinstance(enabled, bool):
        want = "auto" if enabled else None
    elif isinstance(enabled, str) and enabled in _BLAS_PROVIDERS:
        want = enabled
    else:
        raise TypeError(f"enabled must be a bool or one of {_BLAS_PROVIDERS}, got {enabled!r}")
    return _install_blas(want, blas)


def blas_provider() -> str | None:
    """The BLAS the fixed-size LS-SVM's dense kernels run on: ``"numpy"``, ``"scipy"``, or None (Eigen). Told by
    the installed integer interface: only NumPy's OpenBLAS is installed with 64-bit integers, SciPy's with 32."""
    if not blas.configured():
        _first_use(blas)
    return {"ilp64": "numpy", "lp64": "scipy"}.get(blas.interface())
