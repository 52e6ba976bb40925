"""Ctrl-C during a HiGHS solve, which runs no Python code of its own: :class:`HighsRunner` runs ``Highs.run``.

Python runs a signal's handler between two bytecodes of the main thread. While HiGHS solves, the main thread is
inside one C++ call and runs Python only in the callbacks HiGHS makes (here: its simplex, interior-point and
branch-and-bound interrupt callbacks, :class:`InterruptPoll`); a handler that raised there would raise inside HiGHS,
which turns any exception of a callback into its own "Solve error" and drops it. :class:`SignalDeferral` therefore
replaces, for the duration of the run, the Python-level handlers (of SIGINT and of the signals programs commonly
handle) by one that only records the signal -- and, for SIGINT, sets ``stop``, which the polls answer by
interrupting the solve; when the run returns, the handlers are put back and handed the recorded signals in their
order of arrival: the default SIGINT handler raises ``KeyboardInterrupt`` then, as it would between two bytecodes.

Where HiGHS does not poll through every stage, :func:`run_aside` runs the solve on a helper thread while the main
thread waits, and handles a signal at once. Only the main thread receives Python's signals (and only it may install
handlers): elsewhere a run is left as it is.
"""

from __future__ import annotations

import signal
import threading
from collections.abc import Callable
from types import FrameType, TracebackType
from typing import Any, TypeVar

import highspy

_T = TypeVar("_T")
_INTERRUPTED = highspy.HighsModelStatus.kInterrupt

_SIGINT = signal.SIGINT
# The signals deferred: SIGINT, and those Python programs commonly handle (termination, timers, user signals). Not
# every signal: asking for a handler costs microseconds each, and a solve runs inside loops of many.
_SIGNALS = tuple(getattr(signal, name) for name in ("SIGINT", "SIGTERM", "SIGHUP", "SIGQUIT", "SIGALRM", "SIGVTALRM",
                                                    "SIGPROF", "SIGUSR1", "SIGUSR2") if hasattr(signal, name))

#: Seconds an interrupted call of :func:`run_aside` is given to stop before the exception is raised without it.
STOP_GRACE = 0.5


class SignalDeferral:
    """A reusable context manager: the signals that arrive inside are recorded, and handled at its exit.

    ``stop`` is True once a SIGINT arrived inside (read by the solver's interrupt polls, :class:`InterruptPoll`;
    :func:`run_aside` sets it too). At the exit every handler it replaced is restored, then called for each
    recorded signal in their order: the default SIGINT handler raises ``KeyboardInterrupt``, whether or not an
    exception is already propagating (it then becomes the new exception's context). Not reentrant, and a no-op off
    the main thread or when no Python-level handler is set.
    """

    __slots__ = ("_saved", "_seen", "stop")

    def __init__(self) -> None:
        self.stop = False
        self._saved: list[tuple[int, Any]] = []
        self._seen: list[tuple[int, FrameType | None]] = []

    def __enter__(self) -> SignalDeferral:
        self.stop = False
        self._seen = []
        self._saved = []
        if threading.current_thread() is not threading.main_thread():
            return self
        for signum in _SIGNALS:
            handler = signal.getsignal(signum)
            if callable(handler):
                self._saved.append((signum, handler))
        for signum, _ in self._saved:
            signal.signal(signum, self._record)
        return self

    def _record(self, signum: int, frame: FrameType | None) -> None:
        self._seen.append((signum, frame))
        if signum == _SIGINT:
            self.stop = True

    def __exit__(self, exc_type: type[BaseException] | None, exc: BaseException | None,
                 tb: TracebackType | None) -> None:
        saved, self._saved = self._saved, []
        handlers = dict(saved)
        for signum, handler in saved:
            signal.signal(signum, handler)
        seen, self._seen = self._seen, []
        first: BaseException | None = None
        for signum, frame in seen:  # every recorded signal is handled; the first exception a handler raised wins
            try:
                handlers[signum](signum, frame)
            except BaseException as raised:  # re-raised below, once the other handlers ran
                if first is None:
                    first = raised
        if first is not None:
            raise first


class InterruptPoll:
    """A HiGHS interrupt callback (simplex, interior point, branch and bound): stop once ``deferral.stop``.

    HiGHS keeps the interrupt flag its callbacks set until it clears its callback input, not at every run: a run
    after an interrupted one would stop at its first poll. :meth:`arm` before each run makes the first poll clear it.
    """

    __slots__ = ("deferral", "fresh")

    def __init__(self, deferral: SignalDeferral) -> None:
        self.deferral = deferral
        self.fresh = True

    def arm(self) -> None:
        self.fresh = True

    def __call__(self, event: Any) -> None:
        if self.deferral.stop:
            event.interrupt()
        elif self.fresh:
            self.fresh = False
            event.interrupt(False)


def run_aside(call: Callable[[], _T], deferral: SignalDeferral, stopping: Callable[[threading.Thread], None],
              finish: Callable[[], object] | None = None) -> _T:
    """``call()`` on a helper thread while this (the main) thread waits for it, handling signals as they come.

    When a handler raises (``KeyboardInterrupt``), ``deferral.stop`` is set -- the call's interrupt polls stop it --,
    the call is given :data:`STOP_GRACE` seconds, and the exception is raised; a call still running then is handed to
    ``stopping(thread)``, so that the caller waits for it before touching its state again. ``finish()`` runs on the
    helper thread once the call returned (its thread-local cleanup). The call's own exception is re-raised here."""
    done = threading.Event()
    out: list[Any] = []

    def work() -> None:
        try:
            out.append(call())
        except BaseException as exc:  # re-raised on the waiting thread
            out.append(exc)
        finally:
            if finish is not None:
                finish()
            done.set()

    deferral.stop = False
    worker = threading.Thread(target=work, name="svmopt-solver")
    worker.start()
    try:
        while not done.wait(0.1):
            pass
    except BaseException:
        deferral.stop = True
        if not done.wait(STOP_GRACE):
            stopping(worker)
        raise
    worker.join()
    if isinstance(out[0], BaseException):
        raise out[0]
    return out[0]


class HighsRunner:
    """Runs a ``highspy.Highs`` instance's ``run`` so that Ctrl-C interrupts it (:mod:`svmopt._shared.highs`).

    Off the main thread (no signals there) the run is as it is. On it, a run whose every stage HiGHS polls (simplex
    or interior point, presolve off) runs here under the :class:`SignalDeferral`: a SIGINT stops it at the next poll,
    then reaches Python's handler (``KeyboardInterrupt``; a user's handler that lets it pass lets the solve go on from
    where it stopped). The others (``aside``: a MILP's LP relaxations and heuristics' sub-MIPs, presolve, PDLP, which
    HiGHS does not poll: seconds on the MILPs of paper 001) run on a helper thread (:func:`run_aside`); one still
    stopping when ``KeyboardInterrupt`` is raised is waited for by :meth:`wait` before the instance is used again.
    """

    __slots__ = ("deferral", "poll", "polled", "worker")

    def __init__(self) -> None:
        self.deferral = SignalDeferral()
        self.poll = InterruptPoll(self.deferral)
        self.polled: Any = None  # the instance whose interrupt callbacks carry the poll
        self.worker: threading.Thread | None = None

    def wait(self) -> None:
        """Until an interrupted run aside has stopped."""
        if self.worker is not None:
            self.worker.join()
            self.worker = None

    def subscribe(self, h: Any) -> None:
        """The poll on ``h``'s simplex, interior-point and branch-and-bound interrupt callbacks (before any other)."""
        if self.polled is not h:
            for callback in (h.cbSimplexInterrupt, h.cbIpmInterrupt, h.cbMipInterrupt):
                callback.subscribe(self.poll)
            self.polled = h

    def run(self, h: Any, *, aside: bool) -> Any:
        """``h.run()``, interruptible; its ``HighsStatus``."""
        if threading.current_thread() is not threading.main_thread():
            return _run_once(h)
        self.subscribe(h)
        self.poll.arm()
        if aside:  # the helper thread's task scheduler goes with it
            return run_aside(lambda: _run_once(h), self.deferral, self._stopping, lambda: _reset_scheduler(False))
        while True:
            with self.deferral:
                status = _run_once(h)
            self.poll.arm()
            if not (self.deferral.stop and h.getModelStatus() == _INTERRUPTED):
                return status

    def _stopping(self, worker: threading.Thread) -> None:
        self.worker = worker


def _reset_scheduler(blocking: bool = True) -> bool:
    """Drop HiGHS's task scheduler so that the next run builds one for its own ``threads`` option.

    HiGHS sizes its task scheduler by the first run's ``threads`` option and refuses (``run`` returns kError before
    any work, model status kNotset) a later model whose ``threads`` differs, e.g. a MILP with ``threads=1`` after
    an LP at the default. The scheduler only holds worker threads, so resetting it and running again is what
    HiGHS's message recommends: highspy >= 1.16 keeps one scheduler per calling thread
    (``resetThreadScheduler``), older versions one per process (``resetGlobalScheduler``; svmopt runs HiGHS from
    one thread at a time; a helper thread that ran HiGHS drops its own, ``blocking=False``). False when this highspy
    has neither."""
    reset = getattr(highspy.Highs, "resetThreadScheduler", None) or getattr(highspy.Highs, "resetGlobalScheduler",
                                                                            None)
    if reset is None:
        return False
    reset(blocking)
    return True


def _run_once(h: Any) -> Any:
    """``h.run()``, again on a fresh task scheduler if HiGHS refused it before any work (:func:`_reset_scheduler`)."""
    run_status = h.run()
    refused = run_status == highspy.HighsStatus.kError and h.getModelStatus() == highspy.HighsModelStatus.kNotset
    if refused and _reset_scheduler():
        run_status = h.run()
    return run_status
