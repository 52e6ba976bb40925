"""Error types shared by every svmopt model."""

from __future__ import annotations

__all__ = ["MemoryBudgetError", "SolverError"]


class SolverError(RuntimeError):
    """HiGHS did not deliver a usable solution.

    Attributes
    ----------
    status : str
        The HiGHS model status (e.g. ``"Infeasible"``, ``"Time limit reached"``).
    """

    def __init__(self, message: str, status: str | None = None):
        self.status = status
        if status is not None and status not in message:
            message = f"{message} (HiGHS status: {status})"
        super().__init__(message)


class MemoryBudgetError(MemoryError, ValueError):
    """A dense kernel matrix would exceed the configured memory budget.

    Raised *before* any allocation. Raise the budget with :func:`svmopt.set_memory_budget` or the
    ``SVMOPT_MEMORY_BUDGET`` environment variable (bytes, or with a K/M/G suffix), or use a
    fixed-size model (:class:`svmopt.FixedSizeLSSVC`) that never forms the full Gram matrix.
    """
