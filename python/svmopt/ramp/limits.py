"""The limits that stop the HiGHS solves of one fit of paper 001's estimators short, by stage.

Every LP and MILP of a fit is given the seconds left to the fit's ``max_time`` deadline (or a stage's own cap when
that is smaller: DAKS's ``t_limit``, Algorithm 1's share of DAKS's time), and each solve that ends short of optimal
is noted by its stage and HiGHS status. What stopped it decides how it is reported:

* the fit's deadline (``max_time``): the stage is named in the fit's ConvergenceWarning and ``max_time_reached_`` is
  set (:class:`svmopt._shared.runtime.TimeBudget`);
* a limit of ``solver_options`` (a node, iteration, leaf or solution limit, or its own ``time_limit``): the stage is
  named in one ConvergenceWarning of the estimator;
* a stage's own control (DAKS's ``t_limit``, ``t_fea``, ``t_inc`` of Sec. 4.5): part of the method, not reported.

Every stage returns a usable point at its limit (any ``(w, b)`` is feasible for these models, with its slacks and
outlier indicators set from its margins), so a limit is never an error here.
"""

from __future__ import annotations

import math
import time
from collections.abc import Mapping
from typing import Any

from sklearn.exceptions import ConvergenceWarning

from svmopt._shared.config import warn


class SolveLimits:
    """The stages of one fit that a limit stopped short, and the clock its solves read.

    ``deadline`` is the fit's ``time.perf_counter()`` deadline (None: no ``max_time``); ``options`` the fit's
    ``solver_options`` (their ``time_limit`` bounds every solve as well).
    """

    def __init__(self, deadline: float | None = None, options: Mapping[str, Any] | None = None):
        self.deadline = deadline
        self.option_time = float((options or {}).get("time_limit", math.inf))
        self.by_max_time: list[str] = []
        self.by_option: dict[str, list[str]] = {}  # stage -> the HiGHS statuses that stopped its solves

    def seconds(self, own: float | None = None) -> float | None:
        """The ``time_limit`` of the next solve: the seconds left to the deadline (never negative), or ``own`` (a
        stage's own cap) when smaller; None when there is neither."""
        left = None if self.deadline is None else max(0.0, self.deadline - time.perf_counter())
        if own is None:
            return left
        return own if left is None else min(own, left)

    def expired(self) -> bool:
        return self.deadline is not None and time.perf_counter() >= self.deadline

    def cut(self, stage: str) -> None:
        """``stage`` was cut short (or not run) by the fit's deadline."""
        if stage not in self.by_max_time:
            self.by_max_time.append(stage)

    def note(self, stage: str, status: str, time_limit: float | None = None) -> None:
        """A solve of ``stage`` given ``time_limit`` seconds ended short of optimal with HiGHS's ``status``: filed
        under the fit's deadline, a limit of ``solver_options``, or (not reported) the stage's own control."""
        s = status.lower()
        if "interrupt" in s:
            return  # DAKS's t_fea / t_inc (Sec. 4.5), enforced through HiGHS's interrupt callback
        if "time" in s:
            if self.option_time <= (math.inf if time_limit is None else time_limit):
                self._option(stage, f"{status}: solver_options time_limit={self.option_time:g}")
            elif self.expired():
                self.cut(stage)
            return  # otherwise the stage's own cap (DAKS's t_limit)
        self._option(stage, status)

    def _option(self, stage: str, status: str) -> None:
        statuses = self.by_option.setdefault(stage, [])
        if status not in statuses:
            statuses.append(status)

    def option_stages(self) -> list[str]:
        """The stages a limit of ``solver_options`` stopped, each with its HiGHS statuses."""
        return [f"{stage} (HiGHS: {', '.join(statuses)})" for stage, statuses in self.by_option.items()]

    def report(self, name: str, clock: Any) -> bool:
        """The deadline's stages passed to the fit's TimeBudget ``clock``; one ConvergenceWarning naming the stages
        that ``solver_options`` stopped. Returns whether there were any of the latter."""
        for stage in self.by_max_time:
            clock.cut(stage)
        stages = self.option_stages()
        if stages:
            warn(f"{name}: a limit of solver_options stopped solves short in {'; '.join(stages)}. The model is the "
                 "best point found there (usable; not certified optimal); raise or drop the limit for the full fit.",
                 ConvergenceWarning)
        return bool(stages)
