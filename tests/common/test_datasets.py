"""Tests of svmopt.datasets against the shared dataset MANIFEST and the papers' cleaning rules.

The 15 bundled sets are always tested. The others are read from the directory named by ``SVMOPT_DATA``
(laid out as ``<dir>/<name>/<file>``); their tests are skipped when that variable is unset.
"""

from __future__ import annotations

import functools
import gzip
import os
import shutil
from importlib import resources

import numpy as np
import pytest

from svmopt import datasets
from svmopt.datasets import DATASETS, list_datasets, load_dataset

ENV = "SVMOPT_DATA"

# name -> (rows, features, class counts or None for regression) after the default cleaning.
# Numbers from MANIFEST.md ("rows x cols found", target counts) and the papers' data descriptions.
EXPECTED = {
    # paper 000 default: complete cases only (MANIFEST: the papers used 68 x 279, paper 000 Table 3)
    "arrhythmia": (68, 279, {1: 20, 2: 17, 3: 4, 4: 1, 5: 2, 6: 1, 8: 1, 9: 9, 10: 8, 14: 1, 16: 4}),
    "parkinsons": (195, 22, {0: 48, 1: 147}),
    # MANIFEST counts 0:164 1:55 2:36 3:35 4:13 are before the 6 '?' rows are dropped
    "heart_cleveland": (297, 13, {0: 160, 1: 54, 2: 35, 3: 35, 4: 13}),
    # MANIFEST counts 1:112 2:61 3:72 4:49 5:52 6:20 are before the 8 rows with missing age are dropped
    "dermatology": (358, 34, {1: 111, 2: 60, 3: 71, 4: 48, 5: 48, 6: 20}),
    "climate_crashes": (540, 18, {0: 46, 1: 494}),
    "wdbc": (569, 30, {"B": 357, "M": 212}),
    "breast_cancer_wisconsin": (683, 9, {2: 444, 4: 239}),
    "blood_transfusion": (748, 4, {0: 570, 1: 178}),
    "mammographic": (830, 5, {0: 427, 1: 403}),
    "iris": (150, 4, {"Iris-setosa": 50, "Iris-versicolor": 50, "Iris-virginica": 50}),
    "wine": (178, 13, {1: 59, 2: 71, 3: 48}),
    "pima": (768, 8, {0: 500, 1: 268}),
    "new_thyroid": (215, 5, {1: 150, 2: 35, 3: 30}),
    "sonar": (208, 60, {"M": 111, "R": 97}),
    "ionosphere": (351, 34, {"b": 126, "g": 225}),
    "colon": (62, 2000, {1: 40, 2: 22}),
    "leukemia": (72, 7129, {1: 25, 2: 47}),
    # MANIFEST mismatch: only the 5469-gene filtered DLBCL copy exists (paper 001: 7129)
    "dlbcl": (77, 5469, {0: 58, 1: 19}),
    # one-hot of the 22 attributes, '?' of stalk-root kept as a level (paper 001 keeps n = 8124)
    "mushroom": (8124, 117, {"e": 4208, "p": 3916}),
    "magic": (19020, 10, {"g": 12332, "h": 6688}),
    "spambase": (4601, 57, {0: 2788, 1: 1813}),
    # train + test, '?' rows dropped, trailing '.' of the test labels stripped (paper 002 Table 5:
    # n = 45,222 after removing unknown values; class counts 34014/11208)
    "adult": (45222, 14, {"<=50K": 34014, ">50K": 11208}),
    "letter": (20000, 16, None),  # 26 classes, checked separately
    "optdigits": (5620, 64, {0: 554, 1: 571, 2: 557, 3: 572, 4: 568, 5: 558, 6: 558, 7: 566, 8: 554, 9: 562}),
    "pendigits": (
        10992,
        16,
        {0: 1143, 1: 1143, 2: 1144, 3: 1055, 4: 1144, 5: 1055, 6: 1056, 7: 1142, 8: 1055, 9: 1055},
    ),
    "landsat": (6435, 36, {1: 1533, 2: 703, 3: 1358, 4: 626, 5: 707, 7: 1508}),
    # trn + mapped tst counts of MANIFEST added up
    "shuttle": (58000, 9, {1: 45586, 2: 50, 3: 171, 4: 8903, 5: 3267, 6: 10, 7: 13}),
    "boston_housing": (506, 13, None),
    "concrete": (1030, 8, None),
}
REGRESSION = {"boston_housing", "concrete"}
UNAVAILABLE = ("mfeat", "covertype")
BUNDLED = {
    "arrhythmia", "parkinsons", "heart_cleveland", "dermatology", "climate_crashes", "wdbc",
    "breast_cancer_wisconsin", "blood_transfusion", "mammographic", "iris", "wine", "pima", "new_thyroid",
    "sonar", "ionosphere",
}  # fmt: skip

# paper 000 Section 6 ("the first class of points" against "the remaining ones", m x n of Table 3): class sizes
# (first class, rest) for binary="first_vs_rest". The minority sizes agree with the majority-class error rates printed
# in paper 000's Tables 6-14 for all nine sets (the arrhythmia minority 20 is class 1 = normal).
PAPER000_BINARY = {
    "arrhythmia": (20, 48),
    "parkinsons": (147, 48),
    "heart_cleveland": (160, 137),
    "dermatology": (111, 247),
    "climate_crashes": (494, 46),
    "wdbc": (212, 357),
    "breast_cancer_wisconsin": (239, 444),
    "blood_transfusion": (178, 570),
    "mammographic": (403, 427),
}


@functools.cache
def _cached(name: str, items: tuple = ()):
    return load_dataset(name, **dict(items))


def load(name: str, **kw):
    """Cached load_dataset (the arrays are shared between tests: do not modify them)."""
    return _cached(name, tuple(sorted(kw.items())))


@pytest.fixture
def env_for(monkeypatch):
    """Prepare the environment for loading `name`: bundled sets with SVMOPT_DATA unset, else need it."""

    def prepare(name: str) -> None:
        if name in BUNDLED:
            monkeypatch.delenv(ENV, raising=False)
        elif not os.environ.get(ENV):
            pytest.skip(f"{name!r} is not bundled; set {ENV} to the shared dataset directory to test it")

    return prepare


def _counts(y) -> dict:
    values, counts = np.unique(y, return_counts=True)
    return dict(zip(values.tolist(), counts.tolist(), strict=True))


# ------------------------------------------------------------------------------------------------------------
def test_registry_covers_manifest():
    assert set(DATASETS) == set(EXPECTED) | set(UNAVAILABLE)
    assert {n for n, i in DATASETS.items() if i.bundled} == BUNDLED
    assert list_datasets() == sorted(EXPECTED)
    assert set(list_datasets(include_unavailable=True)) == set(DATASETS)
    assert list_datasets(paper="000") == sorted(PAPER000_BINARY)
    assert set(list_datasets(bundled=True)) == BUNDLED
    for name, info in DATASETS.items():
        assert info.name == name
        assert info.task in ("binary", "multiclass", "regression")
        assert (info.task == "regression") == (name in REGRESSION)
        assert (info.class_counts is None) == (name in REGRESSION)
        assert info.available == (name not in UNAVAILABLE)


@pytest.mark.parametrize("name", sorted(EXPECTED))
def test_shape_counts_and_array_contract(name, env_for):
    env_for(name)
    n, d, counts = EXPECTED[name]
    X, y = load(name)
    assert X.shape == (n, d)
    assert y.shape == (n,)
    assert X.dtype == np.float64 and X.flags.c_contiguous
    assert np.isfinite(X).all()
    info = DATASETS[name]
    assert (info.n_samples, info.n_features) == (n, d)
    if name in REGRESSION:
        assert y.dtype == np.float64 and np.isfinite(y).all()
        assert info.task == "regression"
        return
    if counts is not None:
        assert _counts(y) == counts
    assert dict(info.class_counts) == _counts(y)
    assert info.task == ("binary" if len(info.class_counts) == 2 else "multiclass")


def test_letter_classes(env_for):
    env_for("letter")
    counts = _counts(load("letter")[1])
    assert sorted(counts) == list("ABCDEFGHIJKLMNOPQRSTUVWXYZ")
    assert (counts["A"], counts["Z"]) == (789, 734)  # the two counts MANIFEST prints


def test_original_label_types():
    assert load("wdbc")[1].dtype.kind == "U"
    assert set(load("sonar")[1].tolist()) == {"M", "R"}
    assert load("heart_cleveland")[1].dtype == np.int64


@pytest.mark.parametrize("name", sorted(PAPER000_BINARY))
def test_first_vs_rest_spec000(name, monkeypatch):
    monkeypatch.delenv(ENV, raising=False)
    _, y = load(name, binary="first_vs_rest")
    assert y.dtype == np.int64 and set(y.tolist()) == {-1, 1}
    assert ((y == 1).sum(), (y == -1).sum()) == PAPER000_BINARY[name]
    assert "000" in DATASETS[name].papers


@pytest.mark.parametrize("name", sorted(set(EXPECTED) - REGRESSION - set(PAPER000_BINARY)))
def test_first_vs_rest_other(name, env_for):
    env_for(name)
    _, labels = load(name)
    _, y = load(name, binary="first_vs_rest")
    positive = DATASETS[name].positive
    expected_positive = {"leukemia": 1}.get(name, sorted(set(labels.tolist()))[0])  # smallest label
    assert positive == expected_positive
    assert set(y.tolist()) == {-1, 1}
    assert (y == 1).sum() == (labels == positive).sum()


def test_binary_explicit_label_and_errors(monkeypatch):
    monkeypatch.delenv(ENV, raising=False)
    _, y = load_dataset("iris", binary="Iris-virginica")
    assert _counts(y) == {-1: 100, 1: 50}
    with pytest.raises(ValueError, match="not found"):
        load_dataset("iris", binary="Iris-nonexistent")


def test_regression_rejects_binary(env_for):
    env_for("boston_housing")
    with pytest.raises(ValueError, match="regression"):
        load_dataset("boston_housing", binary="first_vs_rest")


def test_unknown_name_lists_valid_names():
    with pytest.raises(ValueError, match="unknown dataset") as err:
        load_dataset("no_such_set")
    for name in ("iris", "adult", "mushroom", "wdbc"):
        assert name in str(err.value)


def test_bad_variant_and_encoding():
    with pytest.raises(ValueError, match="variants"):
        load_dataset("arrhythmia", variant="999")
    with pytest.raises(ValueError, match="no variants"):
        load_dataset("iris", variant="000")
    with pytest.raises(ValueError, match="categorical"):
        load_dataset("iris", categorical="ordinal")


# ------------------------------------------------------------------------------------------------------------
# where the data come from
def test_unbundled_missing_names_data_home_and_env(monkeypatch):
    monkeypatch.delenv(ENV, raising=False)
    with pytest.raises(FileNotFoundError) as err:
        load_dataset("magic")
    msg = str(err.value)
    assert "magic" in msg and "data_home" in msg and ENV in msg


def test_env_dir_without_the_files(monkeypatch, tmp_path):
    monkeypatch.setenv(ENV, str(tmp_path))
    with pytest.raises(FileNotFoundError) as err:
        load_dataset("spambase")
    msg = str(err.value)
    assert "spambase" in msg and "data_home" in msg and ENV in msg


def test_bundled_ignores_env_but_not_data_home(monkeypatch, tmp_path):
    monkeypatch.setenv(ENV, str(tmp_path))  # empty directory: bundled sets must not look there
    assert load_dataset("iris")[0].shape == (150, 4)
    with pytest.raises(FileNotFoundError) as err:
        load_dataset("iris", data_home=tmp_path)
    assert "data_home" in str(err.value) and ENV in str(err.value)


def test_data_home_plain_or_gzipped(tmp_path):
    bundled = resources.files("svmopt.datasets").joinpath("data").joinpath("wine.data.gz")
    (tmp_path / "wine").mkdir()
    with resources.as_file(bundled) as src:
        shutil.copy(src, tmp_path / "wine" / "wine.data.gz")
        X_gz, y_gz = load_dataset("wine", data_home=tmp_path)
        with gzip.open(src, "rb") as fin:
            (tmp_path / "wine" / "wine.data").write_bytes(fin.read())
    (tmp_path / "wine" / "wine.data.gz").unlink()
    X, y = load_dataset("wine", data_home=str(tmp_path))
    np.testing.assert_array_equal(X, X_gz)
    np.testing.assert_array_equal(y, y_gz)
    np.testing.assert_array_equal(X, load("wine")[0])


@pytest.mark.parametrize("name", UNAVAILABLE)
def test_unavailable_sets_explain(name, monkeypatch, tmp_path):
    assert not DATASETS[name].available and not DATASETS[name].bundled
    monkeypatch.delenv(ENV, raising=False)
    with pytest.raises(FileNotFoundError, match="not available"):
        load_dataset(name)
    monkeypatch.setenv(ENV, str(tmp_path))
    with pytest.raises(FileNotFoundError, match="not available") as err:
        load_dataset(name)
    assert "data_home" in str(err.value) and ENV in str(err.value)


def test_mfeat_from_user_files(tmp_path):
    """mfeat loads if a user supplies the raw UCI files (synthetic, narrow stand-ins here)."""
    rng = np.random.default_rng(0)
    folder = tmp_path / "mfeat"
    folder.mkdir()
    widths = {"fou": 3, "fac": 2, "kar": 2, "pix": 1, "zer": 2, "mor": 1}
    for part, width in widths.items():
        np.savetxt(folder / f"mfeat-{part}", rng.normal(size=(2000, width)), fmt="%.6f")
    X, y = load_dataset("mfeat", data_home=tmp_path)
    assert X.shape == (2000, sum(widths.values()))
    assert _counts(y) == dict.fromkeys(range(10), 200)
    _, yb = load_dataset("mfeat", data_home=tmp_path, binary="first_vs_rest")
    assert (yb == 1).sum() == 200  # paper 001 Table 2: one digit (10/90) vs rest; it does not say which, we use 0


# ------------------------------------------------------------------------------------------------------------
# paper-specific variants and encodings
def test_arrhythmia_variants():
    X, y = load("arrhythmia", variant="001")  # drop attribute J, then incomplete rows: n = 420 (paper 001 Table 2)
    assert X.shape == (420, 278)
    assert ((y == 1).sum(), (y != 1).sum()) == (237, 183)
    assert load("arrhythmia", variant="001", drop_constant=True)[0].shape == (420, 258)  # paper 001 Table 2: d = 258
    X_all, _ = load("arrhythmia", drop_missing=False)
    assert X_all.shape == (452, 279)
    assert np.isnan(X_all).any(axis=1).sum() == 384  # MANIFEST: 384 rows have at least one '?'


def test_heart_keep_missing():
    X, y = load("heart_cleveland", drop_missing=False)
    assert X.shape == (303, 13) and np.isnan(X).any(axis=1).sum() == 6
    assert _counts(y) == {0: 164, 1: 55, 2: 36, 3: 35, 4: 13}  # MANIFEST raw counts


def test_ionosphere_constant_column():
    assert load("ionosphere", drop_constant=True)[0].shape == (351, 33)  # paper 001 Table 2: d = 33


def test_mushroom_encodings(env_for):
    env_for("mushroom")
    X, _ = load("mushroom")
    assert set(np.unique(X).tolist()) == {0.0, 1.0}
    np.testing.assert_array_equal(X.sum(axis=1), 22.0)  # one level per attribute
    # paper 001 Table 2 reports d = 109 for Lepiota; one-hot gives 117 columns, 116 without the constant veil-type
    # (no encoding we tried gives 109: binary attributes as one column -> 111, without '?' -> 110).
    assert load("mushroom", drop_constant=True)[0].shape == (8124, 116)
    Xc, _ = load("mushroom", categorical="codes")
    assert Xc.shape == (8124, 22) and Xc.min() == 0.0
    Xk, yk = load("mushroom", variant="complete")  # '?' as missing: the 2480 rows go (KEEL's 5644)
    assert Xk.shape[0] == 5644 and len(yk) == 5644


def test_adult_encodings(env_for):
    env_for("adult")
    X, y = load("adult")
    assert X.shape == (45222, 14)  # integer codes keep d = 14 (paper 002 Table 5)
    assert not any(label.endswith(".") for label in np.unique(y).tolist())
    assert load("adult", categorical="onehot")[0].shape[0] == 45222
    assert load("adult", drop_missing=False)[0].shape == (48842, 14)


def test_leukemia_golub_matches_csv(env_for):
    env_for("leukemia")
    X_csv, y_csv = load("leukemia")
    X_g, y_g = load("leukemia", variant="golub")
    assert X_g.shape == (72, 7129)
    assert _counts(y_g) == {"ALL": 47, "AML": 25}
    order_csv, order_g = np.lexsort(X_csv.T), np.lexsort(X_g.T)
    np.testing.assert_array_equal(X_csv[order_csv], X_g[order_g])
    np.testing.assert_array_equal(y_csv[order_csv] == 1, y_g[order_g] == "AML")  # 1 = AML in leukemia.csv
    b_csv = load("leukemia", binary="first_vs_rest")[1]
    b_g = load("leukemia", variant="golub", binary="first_vs_rest")[1]
    np.testing.assert_array_equal(b_csv[order_csv], b_g[order_g])


def test_return_record(monkeypatch):
    monkeypatch.delenv(ENV, raising=False)
    rec = load_dataset("parkinsons", return_X_y=False, binary="first_vs_rest")
    assert isinstance(rec, datasets.Dataset)
    assert rec.X.shape == (195, 22) and len(rec.feature_names) == 22
    assert "name" not in rec.feature_names and "status" not in rec.feature_names
    assert rec.target_name == "status" and rec.positive == 1 and rec.info is DATASETS["parkinsons"]
    rec = load_dataset("arrhythmia", return_X_y=False)
    assert rec.variant == "000" and rec.feature_names[:2] == ("x0", "x1")
