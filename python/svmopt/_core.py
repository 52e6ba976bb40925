"""svmopt's C++ core, in the best instruction-set variant this CPU supports.

The extension is built twice on x86-64 (``_core_baseline``: portable SSE2; ``_core_avx2``: AVX2 + FMA) as
separate shared objects. This module re-exports the variant chosen at import: AVX2 where the CPU has AVX2
and FMA, else the baseline. ``SVMOPT_ISA=baseline`` (or ``avx2``) forces a choice; ``isa`` tells which
one is loaded. Both variants compute the same functions; results may differ in the last bits (FMA).
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
