"""File access and readers of the benchmark data sets of :mod:`svmopt.datasets`: where a set's files are found
(the package data or ``<root>/<name>/``, each plain or gzipped) and the readers that turn them into a raw features
frame and target series, before any cleaning."""

from __future__ import annotations

import warnings
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from importlib import resources
from pathlib import Path
from typing import Any

import numpy as np
import pandas as pd

#: Environment variable naming the directory that holds the non-bundled data sets.
ENV_VAR = "SVMOPT_DATA"

_PACKAGE = __name__.rpartition(".")[0] or "svmopt.datasets"


# ----------------------------------------------------------------------------------------------------------
# file access
# ----------------------------------------------------------------------------------------------------------
class DataSource:
    """Locates and parses the files of one data set (package data or ``<root>/<name>/``)."""

    def __init__(self, name: str, root: Path | None, hint: str):
        self.name, self.root, self.hint = name, root, hint

    def has(self, fname: str) -> bool:
        """Whether the file ``fname`` of this data set can be found (plain or gzipped); nothing is read."""
        try:
            self._locate(fname)
        except FileNotFoundError:
            return False
        return True

    def _locate(self, fname: str):
        if self.root is None:
            res = resources.files(_PACKAGE).joinpath("data").joinpath(fname + ".gz")
            if not res.is_file():
                raise FileNotFoundError(
                    f"bundled file {fname}.gz of dataset {self.name!r} is missing from the svmopt package "
                    f"installation; pass data_home=<dir> or set {ENV_VAR} to a directory holding "
                    f"{self.name}/{fname}"
                )
            return res
        stem = fname.removesuffix(".gz")
        candidates = [self.root / self.name / f for f in (fname, stem, stem + ".gz")]
        for path in candidates:
            if path.is_file():
                return path
        raise FileNotFoundError(
            f"dataset {self.name!r}: file {candidates[1]} (or .gz) not found. {self.hint}"
            f"Pass data_home=<dir> or set the {ENV_VAR} environment variable to a directory laid out as "
            f"<dir>/{self.name}/{stem}."
        )

    def read(self, fname: str, parser: Callable[..., pd.DataFrame] = pd.read_csv, **kw: Any) -> pd.DataFrame:
        with resources.as_file(self._locate(fname)) as path:
            return parser(path, **kw)


def _read_excel(path, **kw: Any) -> pd.DataFrame:
    with warnings.catch_warnings():  # pandas >= 3 flags the xlrd engine as deprecated
        warnings.filterwarnings("ignore", message=".*xlrd.*")
        return pd.read_excel(path, **kw)


# ----------------------------------------------------------------------------------------------------------
# readers: each returns (raw features frame, raw target series) before any cleaning
# ----------------------------------------------------------------------------------------------------------
RawData = tuple[pd.DataFrame, pd.Series]


def _column(df: pd.DataFrame, key: int | str):
    """A column label given by name (str) or by position (int, negative counts from the end)."""
    return key if isinstance(key, str) else df.columns[key]


@dataclass(frozen=True)
class TableReader:
    """One table (or several stacked row-wise) with a target column and columns to drop."""

    files: tuple[str, ...]
    target: int | str
    drop: tuple[int | str, ...] = ()
    kw: Mapping[str, Any] = field(default_factory=dict)
    label_map: Mapping[Any, Any] | None = None
    excel: bool = False
    positive: Any = None  # overrides DatasetInfo.positive for this variant

    def __call__(self, src: DataSource) -> RawData:
        parser = _read_excel if self.excel else pd.read_csv
        frames = [src.read(f, parser, **self.kw) for f in self.files]
        df = pd.concat(frames, ignore_index=True) if len(frames) > 1 else frames[0]
        target = _column(df, self.target)
        y = df[target]
        if self.label_map is not None:
            y = y.map(lambda v: self.label_map.get(v, v)).infer_objects()
        drop = [_column(df, c) for c in self.drop] + [target]
        return df.drop(columns=drop), y.rename(target if isinstance(target, str) else "target")


@dataclass(frozen=True)
class GolubReader:
    """Golub et al. genes x samples files with A/P/M call columns, plus actual.csv (patient, cancer)."""

    files: tuple[str, ...] = (
        "data_set_ALL_AML_train.csv.gz",
        "data_set_ALL_AML_independent.csv.gz",
        "actual.csv",  # patient, cancer (ALL / AML)
    )
    positive: Any = "AML"

    def __call__(self, src: DataSource) -> RawData:
        parts = [src.read(f).set_index("Gene Accession Number") for f in self.files[:-1]]
        samples = pd.concat([p.filter(regex=r"^\s*\d+\s*$").T for p in parts])
        samples.index = samples.index.astype(str).str.strip().astype(int)
        samples = samples.sort_index()
        labels = src.read(self.files[-1], skipinitialspace=True).set_index("patient")["cancer"]
        return samples, labels.loc[samples.index].astype(str).str.strip().rename("cancer")


@dataclass(frozen=True)
class MfeatReader:
    """UCI mfeat: six whitespace-separated files, 2000 rows each, 200 per digit in the order 0..9."""

    files: tuple[str, ...] = tuple(f"mfeat-{s}" for s in ("fou", "fac", "kar", "pix", "zer", "mor"))

    def __call__(self, src: DataSource) -> RawData:
        parts = [
            src.read(f, sep=r"\s+", header=None).add_prefix(f[len("mfeat-") :] + "_") for f in self.files
        ]
        X = pd.concat(parts, axis=1)
        return X, pd.Series(np.repeat(np.arange(10), len(X) // 10), name="digit")
