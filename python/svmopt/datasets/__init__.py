"""Loaders for the benchmark data sets used by the four reproduced papers.

Paper ids: ``"000"`` robust nonlinear SVM, ``"001"`` ramp-loss SVM with feature selection,
``"002"`` fixed-size LS-SVM, ``"003"`` QCQP/PSO hyperplane.

Public API
----------
``DATASETS``
    Read-only mapping ``name -> DatasetInfo`` (metadata only; nothing is read from disk).
``list_datasets(*, paper=None, bundled=None, include_unavailable=False, loadable=None, data_home=None)``
    Sorted list of names (``loadable=True``: only the sets whose files this installation finds now).
``load_dataset(name, *, data_home=None, variant=None, binary=None, drop_missing=True,
categorical="auto", drop_constant=False, return_X_y=True)``
    ``(X, y)`` with ``X`` a C-contiguous float64 2-D array and ``y`` the labels as they appear in the
    file (integers or strings; float64 targets for regression), or a :class:`Dataset` record.

Where the data come from
------------------------
Fifteen small UCI sets ship inside the package (``svmopt/data/*.gz``, see the README there). They are read
from the package unless ``data_home`` is passed explicitly. All other sets are read from ``data_home`` or,
if that is not given, from the directory named by the ``SVMOPT_DATA`` environment variable. That directory
holds one sub-folder per data set (``<root>/<name>/<file>``); every file may be stored plain or gzipped
(``file`` or ``file.gz``).

Cleaning conventions (all documented per set in ``DATASETS[name].description``)
-------------------------------------------------------------------------------
* ``drop_missing=True`` removes every row with a missing value (``?`` in the UCI files), as the papers
  state; with ``False`` missing entries are ``NaN`` in ``X``.
* ID / name / bookkeeping columns are dropped (wdbc and breast_cancer_wisconsin ID, parkinsons ``name``,
  climate_crashes ``Study`` and ``Run``).
* ``variant`` picks a paper-specific reading where the papers differ:

  - arrhythmia ``"000"`` (default): complete cases, 68 x 279 (paper 000);
    ``"001"``: attribute J (column 13) is dropped first, then incomplete rows: 420 x 278 (paper 001;
    ``drop_constant=True`` then gives its d = 258).
  - mushroom ``"001"`` (default): ``?`` in stalk-root is kept as its own category, 8124 rows, as paper 001
    (n = 8124); ``"complete"``: ``?`` is missing, so 5644 complete rows remain.
  - leukemia ``"csv"`` (default): the sample x gene file ``leukemia.csv.gz`` (labels 1 = AML, 2 = ALL);
    ``"golub"``: the Golub/Broad files (genes x samples with call columns) plus ``actual.csv``, samples in
    patient order 1..72, labels ``"ALL"`` / ``"AML"``. Both hold the same 72 x 7129 values.

* ``categorical``: ``"onehot"`` (one 0/1 column per observed level, levels sorted, columns named
  ``attr=level``), ``"codes"`` (one column per attribute holding the integer code of the level in sorted
  order), or ``"auto"``: the convention of the paper that uses the set, i.e. integer codes for adult (paper
  002; decision: integer codes keep d = 14 as in its Table 5) and one-hot for mushroom (paper 001, d = 117).
* ``binary="first_vs_rest"`` maps the labels to +1 (the set's first class, ``DATASETS[name].positive``) and
  -1 (all others). The first class is the smallest label in sorted order unless a paper fixes it.
  For paper 000 (whose class A is the "positive" one) we take the disease/positive class: parkinsons status 1, climate
  outcome 1 (success), wdbc ``"M"``, breast_cancer_wisconsin 4 (malignant), blood_transfusion 1 and mammographic 1
  (malignant); paper 002 (Section 8) separates covertype class 2. For leukemia ``"golub"`` the first class is ``"AML"``
  so that both variants agree (label 1 of leukemia.csv is AML). ``binary`` may also be any label of the set (that label
  vs rest).
* ``drop_constant=True`` drops columns with a single value after cleaning (ionosphere 34 -> 33,
  arrhythmia "001" 278 -> 258, mushroom one-hot 117 -> 116).
"""

from __future__ import annotations

import os
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path
from types import MappingProxyType
from typing import Any, Literal, overload

import numpy as np
import pandas as pd

from svmopt.datasets.catalog import REGISTRY, CatalogEntry, DatasetInfo
from svmopt.datasets.readers import ENV_VAR, DataSource

__all__ = ["DATASETS", "ENV_VAR", "Dataset", "DatasetInfo", "list_datasets", "load_dataset"]

_FIRST_VS_REST = "first_vs_rest"
_CATEGORICAL_MODES = ("auto", "onehot", "codes")


# ----------------------------------------------------------------------------------------------------------
# public records
# ----------------------------------------------------------------------------------------------------------
@dataclass(frozen=True)
class Dataset:
    """Returned by ``load_dataset(..., return_X_y=False)``."""

    X: np.ndarray
    y: np.ndarray
    feature_names: tuple[str, ...]
    target_name: str
    info: DatasetInfo
    variant: str | None
    positive: Any = None  # set when binary labels were requested


#: name -> :class:`DatasetInfo`, in the order of the shared MANIFEST (read-only).
DATASETS: Mapping[str, DatasetInfo] = MappingProxyType({k: e.info for k, e in REGISTRY.items()})


# ----------------------------------------------------------------------------------------------------------
# public functions
# ----------------------------------------------------------------------------------------------------------
def list_datasets(
    *,
    paper: str | None = None,
    bundled: bool | None = None,
    include_unavailable: bool = False,
    loadable: bool | None = None,
    data_home: str | os.PathLike[str] | None = None,
) -> list[str]:
    """Sorted names of the known data sets, optionally only those of one paper or only (non-)bundled ones.

    mfeat and covertype (no copy known) are listed only with ``include_unavailable=True`` (or when they are
    found, with ``loadable=True``). ``loadable=True`` keeps only the sets whose files this installation can find
    now, as :func:`load_dataset` with the same ``data_home`` would read them: the bundled sets from the package and the
    others from the ``SVMOPT_DATA`` folder (when it is set), or every set from ``data_home`` when it is given, with
    every file of the set present (for a set with variants, a file of at least one); ``loadable=False`` keeps the
    others. Nothing is read but the directory entries.
    """
    def found(name: str) -> bool:
        entry = REGISTRY[name]
        try:
            source = _source(entry, data_home)
        except FileNotFoundError:  # not bundled and no folder to look in
            return False
        files = entry.info.files
        if entry.info.variants:
            return any(source.has(f) for f in files)
        return all(source.has(f) for f in files)

    names = sorted(
        name
        for name, info in DATASETS.items()
        if (include_unavailable or info.available or loadable is True)
        and (paper is None or paper in info.papers)
        and (bundled is None or info.bundled == bundled)
    )
    if loadable is None:
        return names
    return [name for name in names if found(name) == loadable]


def _get_entry(name: str) -> CatalogEntry:
    try:
        return REGISTRY[name]
    except KeyError:
        valid = ", ".join(sorted(REGISTRY))
        raise ValueError(f"unknown dataset {name!r}; valid names: {valid}") from None


def _source(entry: CatalogEntry, data_home: str | os.PathLike[str] | None) -> DataSource:
    name, hint = entry.info.name, entry.missing_hint
    if data_home is not None:
        return DataSource(name, Path(data_home).expanduser(), hint)
    if entry.info.bundled:
        return DataSource(name, None, hint)
    env = os.environ.get(ENV_VAR)
    if env:
        return DataSource(name, Path(env).expanduser(), hint)
    raise FileNotFoundError(
        f"dataset {name!r} is not bundled with svmopt. {hint}Pass data_home=<dir> or set the {ENV_VAR} "
        f"environment variable to a directory holding {name}/{'|'.join(entry.info.files)} "
        "(files may be gzipped)."
    )


def _encode(X: pd.DataFrame, mode: str) -> pd.DataFrame:
    """Encode non-numeric columns (levels in sorted order); missing entries stay NaN."""
    if all(pd.api.types.is_numeric_dtype(t) for t in X.dtypes):
        return X
    parts: list[pd.DataFrame | pd.Series] = []
    for col in X.columns:
        s = X[col]
        if pd.api.types.is_numeric_dtype(s):
            parts.append(s.astype(np.float64))
            continue
        cat = pd.Categorical(s)
        if mode == "codes":
            codes = cat.codes.astype(np.float64)
            codes[cat.codes < 0] = np.nan
            parts.append(pd.Series(codes, index=X.index, name=col))
        else:
            dummies = pd.get_dummies(cat, prefix=str(col), prefix_sep="=", dtype=np.float64)
            dummies.index = X.index
            dummies.loc[s.isna().to_numpy()] = np.nan
            parts.append(dummies)
    return pd.concat(parts, axis=1)


def _labels(y: pd.Series, regression: bool) -> np.ndarray:
    if regression:
        return y.to_numpy(dtype=np.float64)
    if pd.api.types.is_numeric_dtype(y):
        values = y.to_numpy()
        if np.all(np.mod(values, 1) == 0):
            return values.astype(np.int64)
        return values.astype(np.float64)
    return y.to_numpy(dtype=str)


def _binarize(y: np.ndarray, positive: Any, name: str) -> np.ndarray:
    classes = np.unique(y).tolist()
    if positive not in classes:
        raise ValueError(f"dataset {name!r}: class {positive!r} not found; labels are {classes}")
    return np.where(y == positive, 1, -1).astype(np.int64)


@overload
def load_dataset(
    name: str,
    *,
    data_home: str | os.PathLike[str] | None = None,
    variant: str | None = None,
    binary: Any = None,
    drop_missing: bool = True,
    categorical: str = "auto",
    drop_constant: bool = False,
    return_X_y: Literal[True] = True,
) -> tuple[np.ndarray, np.ndarray]: ...
@overload
def load_dataset(
    name: str,
    *,
    data_home: str | os.PathLike[str] | None = None,
    variant: str | None = None,
    binary: Any = None,
    drop_missing: bool = True,
    categorical: str = "auto",
    drop_constant: bool = False,
    return_X_y: Literal[False],
) -> Dataset: ...
@overload
def load_dataset(
    name: str,
    *,
    data_home: str | os.PathLike[str] | None = None,
    variant: str | None = None,
    binary: Any = None,
    drop_missing: bool = True,
    categorical: str = "auto",
    drop_constant: bool = False,
    return_X_y: bool,
) -> tuple[np.ndarray, np.ndarray] | Dataset: ...
def load_dataset(
    name: str,
    *,
    data_home: str | os.PathLike[str] | None = None,
    variant: str | None = None,
    binary: Any = None,
    drop_missing: bool = True,
    categorical: str = "auto",
    drop_constant: bool = False,
    return_X_y: bool = True,
) -> tuple[np.ndarray, np.ndarray] | Dataset:
    """Load a benchmark data set, cleaned as the papers describe (see the module docstring).

    Parameters
    ----------
    name : one of ``list_datasets(include_unavailable=True)``; an unknown name raises ``ValueError``.
    data_home : directory laid out as ``<data_home>/<name>/<file>[.gz]``. Defaults to the package data for
        bundled sets, else to ``$SVMOPT_DATA``; ``FileNotFoundError`` if neither holds the files.
    variant : paper-specific reading (arrhythmia ``"000"``/``"001"``, mushroom ``"001"``/``"complete"``,
        leukemia ``"csv"``/``"golub"``); ``None`` = the first of ``DATASETS[name].variants``.
    binary : ``None`` keeps the original labels; ``"first_vs_rest"`` returns +1 for
        ``DATASETS[name].positive`` and -1 otherwise; any other value is taken as the positive label.
    drop_missing : drop the rows with a missing value (else they are NaN in ``X``).
    categorical : ``"auto"``, ``"onehot"`` or ``"codes"`` for sets with categorical attributes.
    drop_constant : drop feature columns holding a single value after cleaning.
    return_X_y : return ``(X, y)``; with ``False`` a :class:`Dataset` record.

    Returns
    -------
    ``X`` float64, C-contiguous, shape (n, d); ``y`` shape (n,): original labels (int64 or str), +1/-1
    int64 when ``binary`` is given, float64 for regression.
    """
    entry = _get_entry(name)
    info = entry.info
    if variant is None:
        variant = info.variants[0] if info.variants else ""
    if variant not in entry.readers:
        valid = f"variants {list(info.variants)}" if info.variants else "no variants (use variant=None)"
        raise ValueError(f"dataset {name!r} has {valid}; got {variant!r}")
    if categorical not in _CATEGORICAL_MODES:
        raise ValueError(f"categorical must be one of {_CATEGORICAL_MODES}; got {categorical!r}")
    regression = info.task == "regression"
    if binary is not None and regression:
        raise ValueError(f"dataset {name!r} is a regression set; binary labels are not defined")

    reader = entry.readers[variant]
    X, y = reader(_source(entry, data_home))
    if drop_missing:
        drop = X.isna().to_numpy().any(axis=1) | y.isna().to_numpy()
        if drop.any():
            X, y = X.loc[~drop], y.loc[~drop]
    if categorical == "auto":
        categorical = info.categorical or "onehot"
    X = _encode(X, categorical)
    if drop_constant:
        X = X.loc[:, (X.nunique(dropna=False) > 1).to_numpy()]

    header_less = all(isinstance(c, (int, np.integer)) for c in X.columns)
    feature_names = tuple(f"x{j}" for j in range(X.shape[1])) if header_less else tuple(map(str, X.columns))
    X_arr = np.ascontiguousarray(X.to_numpy(dtype=np.float64))
    y_arr = _labels(y, regression)
    positive = None
    if isinstance(binary, str) and binary == _FIRST_VS_REST:
        positive = getattr(reader, "positive", None)
        positive = info.positive if positive is None else positive
    elif binary is not None:
        positive = binary
    if positive is not None:
        y_arr = _binarize(y_arr, positive, name)
    if return_X_y:
        return X_arr, y_arr
    return Dataset(X_arr, y_arr, feature_names, str(y.name), info, variant or None, positive)
