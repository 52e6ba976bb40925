"""What every estimator's ``fit`` shares at run time: the ``max_time`` budget and the ``verbose`` progress bar.

``max_time`` (seconds, None = unlimited) bounds a whole ``fit``. Each long stage -- a HiGHS solve, the tuning's
evaluations, a cutting-plane pass, a swarm iteration -- asks :class:`TimeBudget` how much time is left, and stops
with its best point so far when none is; it then records what it cut short (:meth:`TimeBudget.cut`).
:meth:`TimeBudget.finish` stores ``max_time_reached_`` on the estimator (True: the model is usable but the named
stages stopped early) and issues one ``ConvergenceWarning`` naming them.

``verbose`` shows a tqdm bar for the stages that count their steps (tuning evaluations, interior-point iterations and
cutting-plane passes, CCCP steps, the kernel search's buckets, swarm iterations, the share of a MILP's gap closed),
on stderr and only when asked: :func:`progress` is a no-op otherwise. One convention for every estimator: the
bar's total is the stage's cap where one is known (``max_iter``, the steps of a path, a time limit), none otherwise;
a stage that starts again (the next ``nu``, CCCP start or DAKS pass) resets the bar (``reset``); its postfix holds
the iterate's bounds (a certified relative gap as ``gap=3.1e-03``, an incumbent). An estimator whose docstring says
so prints its step-by-step log on stdout from ``verbose >= 2`` (:func:`detailed`).
"""

from __future__ import annotations

import functools
import math
import time
from typing import Any

from sklearn.exceptions import ConvergenceWarning

from svmopt._shared.config import warn


class TimeBudget:
    """The clock of one ``fit`` under ``max_time`` seconds (None: unlimited)."""

    def __init__(self, max_time: float | None):
        self.max_time = None if max_time is None else float(max_time)
        self.start = time.perf_counter()
        self.stages: list[str] = []

    @property
    def deadline(self) -> float | None:
        """The ``time.perf_counter()`` value the fit must stop by (None: unlimited)."""
        return None if self.max_time is None else self.start + self.max_time

    def remaining(self) -> float:
        """Seconds left (``inf`` when unlimited, never negative)."""
        if self.max_time is None:
            return math.inf
        return max(0.0, self.start + self.max_time - time.perf_counter())

    def remaining_or_none(self) -> float | None:
        """Seconds left, or None when unlimited (the form HiGHS's ``time_limit`` and the core take)."""
        return None if self.max_time is None else self.remaining()

    def expired(self) -> bool:
        return self.max_time is not None and time.perf_counter() >= self.start + self.max_time

    def elapsed(self) -> float:
        return time.perf_counter() - self.start

    def cut(self, stage: str) -> None:
        """Record that ``stage`` stopped early because the budget ran out (each stage named once; ignored without a
        budget)."""
        if self.max_time is not None and stage not in self.stages:
            self.stages.append(stage)

    def finish(self, estimator: Any) -> None:
        """Set ``estimator.max_time_reached_`` and warn once when any stage was cut short."""
        estimator.max_time_reached_ = bool(self.stages)
        if self.stages and self.max_time is not None:
            warn(f"{type(estimator).__name__}: max_time={self.max_time:g} s reached after {self.elapsed():.3g} s; "
                 f"cut short: {'; '.join(self.stages)}. The model is the best found so far "
                 "(max_time_reached_ is True); raise max_time for the full fit.", ConvergenceWarning)


class _NoBar:
    """The progress bar of a quiet fit: accepts the calls, prints nothing."""

    def update(self, n: int = 1) -> None:
        pass

    def set_postfix_str(self, s: str = "", refresh: bool = True) -> None:
        pass

    def reset(self, total: float | None = None) -> None:
        pass

    def close(self) -> None:
        pass

    def __enter__(self) -> _NoBar:
        return self

    def __exit__(self, *exc: Any) -> None:
        pass


def progress(verbose: Any, total: int | None, desc: str) -> Any:
    """A tqdm bar on stderr when ``verbose`` (``total`` steps, None when unknown), else a silent stand-in."""
    if not verbose:
        return _NoBar()
    from tqdm.auto import tqdm

    return tqdm(total=total, desc=desc, leave=False, dynamic_ncols=True)


def detailed(verbose: Any) -> bool:
    """Whether ``verbose`` asks for the step-by-step log as well as the bars (``verbose >= 2``; True is 1)."""
    return bool(verbose) and int(verbose) >= 2


@functools.lru_cache(maxsize=1)
def blas_controller():
    """One threadpoolctl controller for the process: building one (``threadpool_limits``) scans every loaded
    library, which was most of a CV evaluation at small m; limiting through a kept one is far cheaper (figures in
    docs/performance.md#core-design-figures)."""
    from threadpoolctl import ThreadpoolController

    return ThreadpoolController()
