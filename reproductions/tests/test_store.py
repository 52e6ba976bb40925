"""reproductions.store: one keyed CSV format, appends that replace by key, atomic writes, concurrent writers."""

from __future__ import annotations

import gzip
import multiprocessing as mp

import numpy as np
import pandas as pd
import pytest

from reproductions.store import ResultsTable, open_table


def test_append_adds_and_replaces_by_key(tmp_path):
    t = open_table(tmp_path, "runs", key=["data", "seed"])
    assert t.read().empty and not t.exists()
    t.append([{"data": "a", "seed": 0, "score": 0.5}, {"data": "a", "seed": 1, "score": 0.6}])
    t.append([{"data": "a", "seed": 1, "score": 0.7, "wall": 2.0}])  # same key: replaced; new column added
    df = t.read()
    assert len(df) == 2
    assert df.set_index("seed").loc[1, "score"] == 0.7
    assert np.isnan(df.set_index("seed").loc[0, "wall"])
    assert (tmp_path / "runs.csv").is_file()


def test_without_key_rows_only_accumulate(tmp_path):
    t = open_table(tmp_path, "log")
    t.append([{"x": 1}])
    t.append(pd.DataFrame({"x": [1, 2]}))
    assert t.read()["x"].tolist() == [1, 1, 2]


def test_floats_round_trip_exactly_unless_asked(tmp_path):
    x = [1 / 3, 2.0 ** -40, 1e300, 0.1 + 0.2]
    exact = open_table(tmp_path, "exact")
    exact.append(pd.DataFrame({"x": x}))
    assert exact.read()["x"].tolist() == x
    rounded = open_table(tmp_path, "rounded", float_format="%.6g")
    rounded.append(pd.DataFrame({"x": x}))
    assert rounded.read()["x"].tolist()[0] == 0.333333


def test_gzip_is_deterministic(tmp_path):
    a = open_table(tmp_path / "a", "t", key=["k"], compress=True)
    b = open_table(tmp_path / "b", "t", key=["k"], compress=True)
    rows = [{"k": i, "v": i * 0.5} for i in range(50)]
    a.append(rows)
    b.append(rows)
    assert a.path.name == "t.csv.gz"
    assert a.path.read_bytes() == b.path.read_bytes()  # no time stamp in the gzip header
    assert gzip.decompress(a.path.read_bytes()).startswith(b"k,v\n")


def test_missing_key_column_and_bad_names(tmp_path):
    t = open_table(tmp_path, "runs", key=["data", "seed"])
    with pytest.raises(ValueError, match=r"lack the key column\(s\) \['seed'\]"):
        t.append([{"data": "a"}])
    with pytest.raises(ValueError, match="plain file stem"):
        open_table(tmp_path, "../escape")
    with pytest.raises(ValueError, match=r"\.csv or \.csv\.gz"):
        ResultsTable(tmp_path / "runs.json")


def test_a_failed_write_keeps_the_old_table(tmp_path, monkeypatch):
    t = open_table(tmp_path, "runs", key=["k"])
    t.append([{"k": 1, "v": 1.0}])
    before = t.path.read_bytes()

    def boom(*args, **kwargs):
        raise OSError("disk full")

    monkeypatch.setattr(pd.DataFrame, "to_csv", boom)
    with pytest.raises(OSError, match="disk full"):
        t.append([{"k": 2, "v": 2.0}])
    assert t.path.read_bytes() == before
    assert sorted(p.name for p in tmp_path.iterdir() if not p.name.startswith(".runs.csv.lock")) == ["runs.csv"]


def _writer(args):
    directory, worker = args
    t = open_table(directory, "shared", key=["worker", "i"])
    for i in range(15):
        t.append([{"worker": worker, "i": i, "v": worker * 100 + i}])


def test_concurrent_writers_lose_nothing(tmp_path):
    ctx = mp.get_context("spawn")
    with ctx.Pool(3) as pool:
        pool.map(_writer, [(str(tmp_path), w) for w in range(3)])
    df = open_table(tmp_path, "shared", key=["worker", "i"]).read()
    assert len(df) == 45
    assert sorted(df["v"].tolist()) == sorted(w * 100 + i for w in range(3) for i in range(15))


def test_rounded_keys_are_recognised_and_the_first_write_is_formatted(tmp_path):
    """With float_format a float key is stored rounded: appending the same fit again replaces its row, and the
    first write already holds the rounded value (same rows, same bytes, whatever the order of the writes)."""
    t = open_table(tmp_path, "rounded", key=["param"], float_format="%.6g")
    t.append([{"param": 1 / 3, "score": 0.5}])
    first = t.path.read_bytes()
    assert b"0.333333," in first and b"0.3333333333" not in first
    t.append([{"param": 1 / 3, "score": 0.5}])
    assert len(t.read()) == 1
    assert t.path.read_bytes() == first


def test_tables_keep_a_readable_mode(tmp_path):
    import stat

    t = open_table(tmp_path, "mode")
    t.append([{"x": 1}])
    assert stat.S_IMODE(t.path.stat().st_mode) == 0o644
