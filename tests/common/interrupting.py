"""A real SIGINT sent into a running call, for the tests of Ctrl-C in the estimators and in the core."""

from __future__ import annotations

import os
import signal
import threading
import time

import pytest


def interrupted(call, delay: float) -> float:
    """``call()`` with a real SIGINT sent ``delay`` seconds in; the seconds from the signal to the
    ``KeyboardInterrupt`` the call raised (a test failure if the call returns first).

    The signal comes from a timer thread through ``os.kill``, so that Python's C-level handler runs; it is not sent
    once the call has returned.
    """
    lock = threading.Lock()
    state = {"armed": True, "sent": None}

    def fire():
        with lock:
            if state["armed"]:
                state["sent"] = time.perf_counter()
                os.kill(os.getpid(), signal.SIGINT)

    timer = threading.Timer(delay, fire)
    t0 = time.perf_counter()
    timer.start()
    try:
        call()
    except KeyboardInterrupt:
        caught = time.perf_counter()
        assert state["sent"] is not None, "a KeyboardInterrupt before the SIGINT"
        return caught - state["sent"]
    finally:
        with lock:
            state["armed"] = False
        timer.cancel()
    pytest.fail(f"the call returned after {time.perf_counter() - t0:.2f} s, before the SIGINT at {delay} s")
