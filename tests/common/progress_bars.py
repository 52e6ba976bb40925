"""A progress bar that records what an estimator shows on it, in place of tqdm (for the ``verbose`` tests), and the
parsing of the bars tqdm wrote to stderr."""

from __future__ import annotations

import re
from typing import Any


class RecordingBar:
    """Stands in for the tqdm bar of :func:`svmopt._shared.runtime.progress`: keeps the total, the count and the
    postfix after every call, and each run between two resets (``runs``: one list of (n, postfix) per reset)."""

    def __init__(self, total: float | None, desc: str):
        self.desc, self.total, self.n, self.postfix = desc, total, 0, ""
        self.totals: list[float | None] = [total]
        self.runs: list[list[tuple[float, str]]] = [[]]
        self.closed = False

    def update(self, n: float = 1) -> None:
        assert n >= 0, "a bar never goes back"
        self.n += n
        self.runs[-1].append((self.n, self.postfix))

    def set_postfix_str(self, s: str = "", refresh: bool = True) -> None:
        self.postfix = s

    def reset(self, total: float | None = None) -> None:
        self.n = 0
        if total is not None:
            self.total = None if total == float("inf") else total
        self.totals.append(self.total)
        self.runs.append([])

    def close(self) -> None:
        self.closed = True

    def __enter__(self) -> RecordingBar:
        return self

    def __exit__(self, *exc: Any) -> None:
        self.close()


def recorder(bars: list[RecordingBar]):
    """A stand-in for ``progress(verbose, total, desc)`` that appends a :class:`RecordingBar` to ``bars`` when
    ``verbose`` (and returns the quiet stand-in otherwise, as ``progress`` does)."""
    from svmopt._shared.runtime import progress

    def make(verbose: Any, total: float | None, desc: str) -> Any:
        if not verbose:
            return progress(verbose, total, desc)
        bar = RecordingBar(total, desc)
        bars.append(bar)
        return bar

    return make


def screens(err: str, desc: str) -> list[str]:
    """Every state of the tqdm bar ``desc`` written to ``err`` (tqdm redraws a line after a carriage return)."""
    return [s.strip() for s in re.split(r"[\r\n]", err) if s.strip().startswith(desc)]


def gaps(postfixes: list[str]) -> list[float]:
    """The ``gap=...`` values of postfixes (inf included)."""
    return [float(m.group(1)) for p in postfixes for m in [re.search(r"gap=([-+.\deinf]+)", p)] if m]
