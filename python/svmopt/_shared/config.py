"""Library-wide settings and guards: the memory budget for dense kernel matrices, atomic ``fit``."""

from __future__ import annotations

import functools
import numbers
import os
import re
import sys
import warnings
from collections.abc import Callable
from types import FrameType
from typing import Any, TypeVar, cast

from svmopt.exceptions import MemoryBudgetError

_F = TypeVar("_F", bound=Callable[..., Any])

_ENV_VAR = "SVMOPT_MEMORY_BUDGET"
_DEFAULT_BUDGET = 8 * 1024**3  # 8 GiB
_budget_override: int | None = None
_UNITS = {"": 1, "K": 1024, "M": 1024**2, "G": 1024**3, "T": 1024**4}


def parse_bytes(value: str | int | float, name: str = "budget") -> int:
    """Parse ``"512M"``, ``"8G"``, ``"1e9"`` or a number into a byte count (> 0)."""
    if isinstance(value, bool):
        raise TypeError(f"{name} must be a number of bytes or a string like '8G', got {value!r}")
    if isinstance(value, numbers.Real):  # int, float and numpy's scalars (np.int64, np.float32, ...)
        n = float(value)
    elif isinstance(value, str):
        m = re.fullmatch(r"\s*([0-9.eE+]+)\s*([KMGT]?)i?B?\s*", value.upper())
        if not m:
            raise ValueError(f"{name}={value!r} is not a size; use bytes or a suffix K/M/G/T, e.g. '8G'")
        try:
            n = float(m.group(1)) * _UNITS[m.group(2)]
        except ValueError:
            raise ValueError(f"{name}={value!r} is not a size; use bytes or a suffix K/M/G/T, e.g. '8G'") from None
    else:
        raise TypeError(f"{name} must be a number of bytes or a string like '8G', got {type(value).__name__}")
    if not n > 0 or n != n or n == float("inf"):
        raise ValueError(f"{name} must be a positive finite size, got {value!r}")
    return int(n)


def get_memory_budget() -> int:
    """Bytes a single dense kernel matrix may take (default 8 GiB).

    Resolution order: :func:`set_memory_budget`, then the ``SVMOPT_MEMORY_BUDGET`` environment variable.
    """
    if _budget_override is not None:
        return _budget_override
    env = os.environ.get(_ENV_VAR)
    if env:
        return parse_bytes(env, _ENV_VAR)
    return _DEFAULT_BUDGET


def set_memory_budget(budget: str | int | float | None) -> None:
    """Set the dense-matrix memory budget for this process (``None`` restores the default/env value)."""
    global _budget_override
    _budget_override = None if budget is None else parse_bytes(budget, "budget")


_BYTE_UNITS = ("B", "KiB", "MiB", "GiB", "TiB", "PiB", "EiB")

#: What a dense kernel matrix over the budget can be replaced by (the remedy of :func:`check_dense_allocation`).
KERNEL_REMEDY = ("use Kernel.matvec (never stores the matrix), or a fixed-size model (svmopt.FixedSizeLSSVC) for "
                 "data this large")


def format_bytes(n: float) -> str:
    """A byte count in the largest binary unit that keeps it at or above 1 (``"512 B"``, ``"3.00 KiB"``,
    ``"74.51 GiB"``): small budgets are not shown as ``0.00 GiB``. For messages."""
    n = float(n)
    k = 0
    while abs(n) >= 1024 and k < len(_BYTE_UNITS) - 1:
        n /= 1024
        k += 1
    return f"{int(n)} B" if k == 0 else f"{n:.2f} {_BYTE_UNITS[k]}"


def check_dense_allocation(rows: int, cols: int, what: str, remedy: str = KERNEL_REMEDY) -> None:
    """Raise :class:`svmopt.MemoryBudgetError` if a float64 rows x cols matrix exceeds the budget; the message
    names ``what`` needs it and ends with ``remedy`` (what else the user can do)."""
    need = 8 * int(rows) * int(cols)
    budget = get_memory_budget()
    if need > budget:
        raise MemoryBudgetError(
            f"{what} would need a dense {rows} x {cols} float64 matrix ({format_bytes(need)}), over the "
            f"memory budget of {format_bytes(budget)}. Raise it with svmopt.set_memory_budget(...) or the "
            f"{_ENV_VAR} environment variable, or {remedy}."
        )


def atomic_fit(fit: _F) -> _F:
    """Decorator for an estimator's ``fit``: learned attributes appear only on success.

    On any exception -- a ``ValueError`` half-way, a :class:`svmopt.SolverError`, a ``KeyboardInterrupt`` during a
    long solve -- the instance ``__dict__`` is restored to what it was before the call: a fresh estimator stays
    unfitted (no ``classes_`` or ``n_features_in_`` left behind by early validation), a fitted one keeps its
    previous model intact. The snapshot is shallow, which suffices because ``fit`` assigns new objects to its
    attributes rather than mutating the old ones in place.
    """

    @functools.wraps(fit)
    def wrapper(self: Any, *args: Any, **kwargs: Any) -> Any:
        saved = dict(self.__dict__)
        try:
            return fit(self, *args, **kwargs)
        except BaseException:
            self.__dict__.clear()
            self.__dict__.update(saved)
            raise

    return cast(_F, wrapper)  # the same signature as fit


_PACKAGE_DIR = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))  # python/svmopt, not _shared


def warn(message: str, category: type[Warning] = UserWarning) -> None:
    """``warnings.warn`` attributed to the first caller outside svmopt (the user's line, not the library's)."""
    frame: FrameType | None = sys._getframe(1)  # the caller of warn, at stacklevel 2
    level = 2
    while frame is not None and os.path.abspath(frame.f_code.co_filename).startswith(_PACKAGE_DIR + os.sep):
        frame = frame.f_back
        level += 1
    warnings.warn(message, category, stacklevel=level)
