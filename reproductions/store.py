"""The one results store of the protocols: keyed CSV tables, appended to safely.

Every protocol keeps its raw results (one row per fit, split or timing) as tables in one directory, by default
:data:`reproductions.RESULTS` (committed, so that every report regenerates from them). One format: a CSV file with a
header line, ``<name>.csv``, or ``<name>.csv.gz`` for the large ones (gzip without a time stamp, so the same rows
give the same bytes).

Appending is safe: :meth:`ResultsTable.append` takes an exclusive lock beside the table, reads it, puts the new rows
in (a row whose ``key`` columns equal an existing row's replaces it, so a rerun of the same fit never counts twice),
writes the whole table to a temporary file in the same directory and renames it over the old one. Concurrent runs
serialize on the lock, and a run killed mid-write leaves the previous table intact.
"""

from __future__ import annotations

import contextlib
import gzip
import io
import os
import stat
import tempfile
from collections.abc import Iterator, Mapping, Sequence
from pathlib import Path
from typing import Any

import pandas as pd

__all__ = ["ResultsTable", "open_table"]


@contextlib.contextmanager
def _exclusive(lock_path: Path) -> Iterator[None]:
    """An exclusive advisory lock on ``lock_path`` (``fcntl.flock``; on a platform without it, no lock)."""
    try:
        import fcntl
    except ImportError:  # pragma: no cover - Windows: the protocols run one writer at a time there
        yield
        return
    lock_path.parent.mkdir(parents=True, exist_ok=True)
    with open(lock_path, "w") as fh:
        fcntl.flock(fh, fcntl.LOCK_EX)
        try:
            yield
        finally:
            fcntl.flock(fh, fcntl.LOCK_UN)


class ResultsTable:
    """One keyed CSV table of the store.

    Parameters
    ----------
    path : path-like
        The file, ``*.csv`` or ``*.csv.gz``.
    key : sequence of str or None
        Columns that identify a row. Appending a row whose key equals an existing row's replaces it. ``None``:
        rows are only ever added.
    float_format : str or None
        ``None`` writes floats exactly (shortest round-trip repr); e.g. ``"%.6g"`` rounds them, for large tables
        whose measured columns carry no more precision than that.
    """

    def __init__(self, path: str | os.PathLike, key: Sequence[str] | None = None, *,
                 float_format: str | None = None) -> None:
        self.path = Path(path)
        if not (self.path.name.endswith(".csv") or self.path.name.endswith(".csv.gz")):
            raise ValueError(f"path must name a .csv or .csv.gz file, got {self.path.name!r}")
        self.key = None if key is None else list(key)
        self.float_format = float_format

    def __repr__(self) -> str:
        return f"ResultsTable({str(self.path)!r}, key={self.key!r})"

    @property
    def _lock(self) -> Path:
        return self.path.with_name(f".{self.path.name}.lock")

    def exists(self) -> bool:
        return self.path.is_file()

    def read(self) -> pd.DataFrame:
        """The table as a DataFrame (an empty one when the file does not exist)."""
        if not self.exists():
            return pd.DataFrame(columns=self.key or [])
        return pd.read_csv(self.path)

    def append(self, rows: pd.DataFrame | Sequence[Mapping[str, Any]]) -> pd.DataFrame:
        """Add ``rows`` (a DataFrame or dicts) under the lock and return the whole table as now stored.

        Columns new to the table are added (empty in the old rows); rows with the key of an existing row replace
        it. Raises ``ValueError`` when a row lacks a key column.
        """
        new = rows if isinstance(rows, pd.DataFrame) else pd.DataFrame(list(rows))
        if self.key is not None and len(new):
            missing = [k for k in self.key if k not in new.columns]
            if missing:
                raise ValueError(f"rows for {self.path.name} lack the key column(s) {missing}")
        # The new rows as the table will hold them (floats through float_format), so that their keys compare
        # equal to the stored ones and a first write looks like every later one.
        new = pd.read_csv(io.StringIO(new.to_csv(index=False, float_format=self.float_format))) if len(new) else new
        with _exclusive(self._lock):  # creates the table's folder
            old = self.read()
            both = new if len(old) == 0 else pd.concat([old, new], ignore_index=True, sort=False)
            if self.key is not None and len(both):
                both = both[~both[self.key].astype(str).duplicated(keep="last")]
            both = both.reset_index(drop=True)
            self._write(both)
        return both

    def replace(self, frame: pd.DataFrame) -> pd.DataFrame:
        """Store ``frame`` as the whole table (under the lock, atomically)."""
        with _exclusive(self._lock):
            self._write(frame.reset_index(drop=True))
        return frame

    def _write(self, frame: pd.DataFrame) -> None:
        data = frame.to_csv(index=False, float_format=self.float_format, lineterminator="\n").encode("utf-8")
        if self.path.name.endswith(".gz"):
            data = gzip.compress(data, mtime=0)  # no time stamp and no file name in the header: same rows, same bytes
        mode = stat.S_IMODE(self.path.stat().st_mode) if self.exists() else 0o644  # mkstemp's file is 0600
        fd, tmp = tempfile.mkstemp(prefix=f".{self.path.name}.", dir=self.path.parent)
        try:
            with os.fdopen(fd, "wb") as fh:
                fh.write(data)
            os.chmod(tmp, mode)
            os.replace(tmp, self.path)
        except BaseException:
            with contextlib.suppress(FileNotFoundError):
                os.unlink(tmp)
            raise


def open_table(directory: str | os.PathLike, name: str, key: Sequence[str] | None = None, *,
               compress: bool = False, float_format: str | None = None) -> ResultsTable:
    """The table ``name`` of the store in ``directory``: ``<name>.csv``, or ``<name>.csv.gz`` with ``compress``."""
    if not name or os.sep in name or "/" in name:
        raise ValueError(f"name must be a plain file stem, got {name!r}")
    suffix = ".csv.gz" if compress else ".csv"
    return ResultsTable(Path(directory) / f"{name}{suffix}", key, float_format=float_format)
