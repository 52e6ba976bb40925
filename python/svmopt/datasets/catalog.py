"""The catalog of the benchmark data sets of the four papers (000-003): one :class:`DatasetInfo` per set (shape and
class counts after the default cleaning, papers, variants, encoding, availability) with its readers, in the order of
the shared MANIFEST. :mod:`svmopt.datasets` loads from it and re-exports :class:`DatasetInfo`."""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from types import MappingProxyType
from typing import Any

from svmopt.datasets.readers import DataSource, GolubReader, MfeatReader, RawData, TableReader


# ----------------------------------------------------------------------------------------------------------
# public record (re-exported by svmopt.datasets)
# ----------------------------------------------------------------------------------------------------------
@dataclass(frozen=True)
class DatasetInfo:
    """Metadata of one data set; shapes and class counts are those after the default cleaning."""

    name: str
    files: tuple[str, ...]
    n_samples: int
    n_features: int
    class_counts: Mapping[Any, int] | None = field(hash=False)
    task: str  # "binary" | "multiclass" | "regression"
    bundled: bool
    papers: tuple[str, ...]
    description: str
    positive: Any = None  # the "first" class used by binary="first_vs_rest" (None for regression)
    variants: tuple[str, ...] = ()  # first entry = default variant; empty = no variants
    categorical: str | None = None  # default encoding for sets with categorical attributes
    available: bool = True  # False: no copy is known to the project (user must supply the files)


# ----------------------------------------------------------------------------------------------------------
# registry
# ----------------------------------------------------------------------------------------------------------
@dataclass(frozen=True)
class CatalogEntry:
    """One data set of the catalogue: its description, its readers (one per variant) and the hint a missing file
    names."""

    info: DatasetInfo
    readers: Mapping[str, Callable[[DataSource], RawData]]  # variant -> reader; single reader under key ""
    missing_hint: str = ""


#: Every data set of the catalogue by name, in the order of registration.
REGISTRY: dict[str, CatalogEntry] = {}

_NA = {"na_values": "?", "keep_default_na": False}
_NOHEAD = {"header": None}
_NOHEAD_NA = {**_NOHEAD, **_NA}

_MUSHROOM_NAMES = (
    "class", "cap-shape", "cap-surface", "cap-color", "bruises", "odor", "gill-attachment", "gill-spacing",
    "gill-size", "gill-color", "stalk-shape", "stalk-root", "stalk-surface-above-ring",
    "stalk-surface-below-ring", "stalk-color-above-ring", "stalk-color-below-ring", "veil-type", "veil-color",
    "ring-number", "ring-type", "spore-print-color", "population", "habitat",
)  # fmt: skip
_ADULT_NAMES = (
    "age", "workclass", "fnlwgt", "education", "education-num", "marital-status", "occupation",
    "relationship", "race", "sex", "capital-gain", "capital-loss", "hours-per-week", "native-country",
    "income",
)  # fmt: skip
_SHUTTLE_TEXT = {
    "Rad Flow": 1, "Radiator Flow": 1, "Fpv Close": 2, "Flow Proportioning Valve Close": 2, "Fpv Open": 3,
    "Flow Proportioning Valve Open": 3, "High": 4, "Bypass": 5, "Bpv Close": 6, "Bpv Open": 7,
}  # fmt: skip


def _counts(labels, counts) -> Mapping[Any, int]:
    return MappingProxyType(dict(zip(labels, counts, strict=True)))


def _register(
    name: str,
    reader: Callable[[DataSource], RawData] | Mapping[str, Callable[[DataSource], RawData]],
    *,
    shape: tuple[int, int],
    counts: Mapping[Any, int] | None,
    papers: tuple[str, ...],
    description: str,
    bundled: bool = False,
    positive: Any = None,
    categorical: str | None = None,
    available: bool = True,
    missing_hint: str = "",
) -> None:
    readers = dict(reader) if isinstance(reader, Mapping) else {"": reader}
    files: list[str] = []
    for r in readers.values():
        files += [f for f in getattr(r, "files", ()) if f not in files]
    if counts is None:
        task = "regression"
    else:
        task = "binary" if len(counts) == 2 else "multiclass"
        if positive is None:
            positive = sorted(counts)[0]
    info = DatasetInfo(
        name=name,
        files=tuple(files),
        n_samples=shape[0],
        n_features=shape[1],
        class_counts=counts,
        task=task,
        bundled=bundled,
        papers=papers,
        description=description,
        positive=positive,
        variants=tuple(v for v in readers if v),
        categorical=categorical,
        available=available,
    )
    REGISTRY[name] = CatalogEntry(info, MappingProxyType(readers), missing_hint)


def _table(name: str, file: str, labels: tuple, counts: tuple, *, target: int = -1, **info: Any) -> None:
    """Register a set read from one header-less file (its label in column ``target``), with its class counts."""
    _register(name, TableReader((file,), target=target, kw=_NOHEAD), counts=_counts(labels, counts), **info)


# --- paper 000 (arrhythmia and wdbc also in 001) -----------------------------------------------------------
_register(
    "arrhythmia",
    {
        "000": TableReader(("arrhythmia.data",), target=-1, kw=_NOHEAD_NA),
        "001": TableReader(("arrhythmia.data",), target=-1, drop=(13,), kw=_NOHEAD_NA),
    },
    shape=(68, 279),
    counts=_counts((1, 2, 3, 4, 5, 6, 8, 9, 10, 14, 16), (20, 17, 4, 1, 2, 1, 1, 9, 8, 1, 4)),
    papers=("000", "001"),
    bundled=True,
    description="UCI Arrhythmia (Guvenir et al. 1997), 16 classes coded 1..16 (1 = normal). Variant '000' "
    "(default): rows with any '?' dropped -> 68 x 279. Variant '001': attribute J (column 13, 376 '?') "
    "dropped, then incomplete rows -> 420 x 278 (class 1: 237, rest: 183; 258 non-constant columns).",
)
_register(
    "parkinsons",
    TableReader(("parkinsons.data",), target="status", drop=("name",)),
    shape=(195, 22),
    counts=_counts((0, 1), (48, 147)),
    papers=("000",),
    bundled=True,
    positive=1,
    description="UCI Parkinsons (Little et al. 2007): column 'name' dropped, label 'status' (1 = PD).",
)
_register(
    "heart_cleveland",
    TableReader(("processed.cleveland.data",), target=-1, kw=_NOHEAD_NA),
    shape=(297, 13),
    counts=_counts((0, 1, 2, 3, 4), (160, 54, 35, 35, 13)),
    papers=("000",),
    bundled=True,
    description="UCI Heart Disease, processed.cleveland (Detrano et al. 1989): 6 rows with '?' (ca, thal) "
    "dropped; label num 0..4; first class num = 0 (no disease) vs num > 0: 160 / 137.",
)
_register(
    "dermatology",
    TableReader(("dermatology.data",), target=-1, kw={"header": 0, **_NA}),
    shape=(358, 34),
    counts=_counts((1, 2, 3, 4, 5, 6), (111, 60, 71, 48, 48, 20)),
    papers=("000",),
    bundled=True,
    description="UCI Dermatology (Guvenir et al. 1998); the copy has a header row added by its owner; "
    "8 rows with missing age dropped; first class 1 = psoriasis.",
)
_register(
    "climate_crashes",
    TableReader(("pop_failures.dat",), target="outcome", drop=("Study", "Run"), kw={"sep": r"\s+"}),
    shape=(540, 18),
    counts=_counts((0, 1), (46, 494)),
    papers=("000",),
    bundled=True,
    positive=1,
    description="UCI Climate Model Simulation Crashes (Lucas et al. 2013): Study and Run dropped, "
    "label outcome (0 = crash, 1 = success; first class 1 for paper 000, see the module docstring).",
)
_register(
    "wdbc",
    TableReader(("wdbc.data",), target=1, drop=(0,), kw=_NOHEAD),
    shape=(569, 30),
    counts=_counts(("B", "M"), (357, 212)),
    papers=("000", "001"),
    bundled=True,
    positive="M",
    description="UCI Breast Cancer Wisconsin (Diagnostic) (Street et al. 1993): ID dropped; "
    "label 'M' (malignant) / 'B'; first class M for paper 000.",
)
_register(
    "breast_cancer_wisconsin",
    TableReader(("breast-cancer-wisconsin.data",), target=-1, drop=(0,), kw=_NOHEAD_NA),
    shape=(683, 9),
    counts=_counts((2, 4), (444, 239)),
    papers=("000",),
    bundled=True,
    positive=4,
    description="UCI Breast Cancer Wisconsin (Original) (Wolberg & Mangasarian 1990): ID dropped, 16 rows "
    "with '?' (bare nuclei) dropped; label 2 = benign, 4 = malignant (first class 4 for paper 000).",
)
_register(
    "blood_transfusion",
    TableReader(("transfusion.data",), target=-1),
    shape=(748, 4),
    counts=_counts((0, 1), (570, 178)),
    papers=("000",),
    bundled=True,
    positive=1,
    description="UCI Blood Transfusion Service Center (Yeh et al. 2009); label 1 = donated in March 2007 "
    "(first class for paper 000).",
)
_register(
    "mammographic",
    TableReader(("mammographic_masses.data",), target=-1, kw=_NOHEAD_NA),
    shape=(830, 5),
    counts=_counts((0, 1), (427, 403)),
    papers=("000",),
    bundled=True,
    positive=1,
    description="UCI Mammographic Mass (Elter et al. 2007): all 5 attributes kept, including BI-RADS "
    "(paper 000's Table 3: 830 x 5); 131 rows with '?' dropped; label severity (1 = malignant, first class).",
)
# --- paper 003 ---------------------------------------------------------------------------------------------
_table("iris", "iris.csv", ("Iris-setosa", "Iris-versicolor", "Iris-virginica"), (50, 50, 50), shape=(150, 4),
       papers=("003",), bundled=True,
       description="UCI Iris (Fisher 1936), the UCI iris.data values (not sklearn's corrected ones).")
_table("wine", "wine.data", (1, 2, 3), (59, 71, 48), target=0, shape=(178, 13), papers=("003",), bundled=True,
       description="UCI Wine (Forina et al.); the class is the FIRST column of the file.")
_table("pima", "pima-indians-diabetes.csv", (0, 1), (500, 268), shape=(768, 8), papers=("002", "003"), bundled=True,
       description="Pima Indians Diabetes (Smith et al. 1988); zeros that stand for missing values are kept "
       "as they are (neither paper 002 nor paper 003 imputes them; paper 002 keeps n = 768). first_vs_rest takes "
       "the smallest label, 0.")
_table("new_thyroid", "new-thyroid.csv", (1, 2, 3), (150, 35, 30), shape=(215, 5), papers=("003",), bundled=True,
       description="UCI Thyroid, new-thyroid (Coomans et al.); class LAST in this copy (1 normal, 2 hyper, "
       "3 hypo).")
# --- paper 001 ---------------------------------------------------------------------------------------------
_table("sonar", "sonar.csv", ("M", "R"), (111, 97), shape=(208, 60), papers=("001",), bundled=True,
       description="UCI Sonar, mines vs rocks (Gorman & Sejnowski 1988).")
_table("ionosphere", "ionosphere.csv", ("b", "g"), (126, 225), shape=(351, 34), papers=("001",), bundled=True,
       description="UCI Ionosphere (Sigillito et al. 1989); attribute 2 is constant 0 (drop_constant=True "
       "gives paper 001's d = 33). first_vs_rest takes the smallest label, 'b'.")
_table("colon", "colon.csv.gz", (1, 2), (40, 22), shape=(62, 2000), papers=("001",),
       description="Alon et al. 1999 colon tissue, sample x gene matrix; label 1 = tumour (40), "
       "2 = normal (22).")
_register(
    "leukemia",
    {"csv": TableReader(("leukemia.csv.gz",), target=-1, kw=_NOHEAD), "golub": GolubReader()},
    shape=(72, 7129),
    counts=_counts((1, 2), (25, 47)),
    papers=("001",),
    description="Golub et al. 1999 ALL/AML, 7129 probes (paper 001 used an unknown 5327-gene filter). "
    "Variant 'csv' (default): labels 1 = AML (25), 2 = ALL (47). Variant 'golub': the Broad files, labels "
    "'ALL'/'AML', first class 'AML'.",
)
_table("dlbcl", "DLBCL.csv.gz", (0, 1), (58, 19), shape=(77, 5469), papers=("001",),
       description="Shipp et al. 2002 DLBCL (0, 58) vs follicular lymphoma (1, 19). Only the filtered "
       "5469-gene version is available (paper 001: 7129).")
_register(
    "mushroom",
    {
        "001": TableReader(
            ("agaricus-lepiota.data",),
            target="class",
            kw={"header": None, "names": _MUSHROOM_NAMES, "dtype": str, "keep_default_na": False},
        ),
        "complete": TableReader(
            ("agaricus-lepiota.data",),
            target="class",
            kw={"header": None, "names": _MUSHROOM_NAMES, "dtype": str, **_NA},
        ),
    },
    shape=(8124, 117),
    counts=_counts(("e", "p"), (4208, 3916)),
    papers=("001",),
    categorical="onehot",
    description="UCI Mushroom (Schlimmer 1987), 22 categorical attributes. Variant '001' (default): '?' in "
    "stalk-root is a category of its own (n = 8124 as in paper 001); 'complete': those 2480 rows are "
    "dropped. One-hot gives 117 columns (116 non-constant: veil-type has one level); paper 001 reports "
    "d = 109, which no obvious encoding reproduces. categorical='codes' gives 22 columns.",
)
_register(
    "mfeat",
    MfeatReader(),
    shape=(2000, 649),
    counts=_counts(tuple(range(10)), (200,) * 10),
    papers=("001",),
    available=False,
    missing_hint="mfeat is not available: no original UCI mfeat-fou/fac/kar/pix/zer/mor files were found for "
    "the shared collection (only reformatted partial copies exist), so it is not bundled either. To use it, "
    "supply the six raw UCI files (mfeat-fou, mfeat-fac, mfeat-kar, mfeat-pix, mfeat-zer, mfeat-mor). ",
    description="UCI Multiple Features (Duin), NOT AVAILABLE in the shared collection; loads only from "
    "user-supplied raw files mfeat-{fou,fac,kar,pix,zer,mor} (2000 rows, digit k in rows 200k..200k+199).",
)
# --- paper 002 ---------------------------------------------------------------------------------------------
_table("magic", "magic04.data.gz", ("g", "h"), (12332, 6688), shape=(19020, 10), papers=("002",),
       description="UCI MAGIC Gamma Telescope (Bock et al. 2004); label g (gamma) / h (hadron).")
_register(
    "spambase",
    TableReader(("spambase.data",), target=-1),
    shape=(4601, 57),
    counts=_counts((0, 1), (2788, 1813)),
    papers=("002",),
    description="UCI Spambase (Hopkins et al. 1999); the copy has a header row '1..58' added by its owner; "
    "label 1 = spam. first_vs_rest takes the smallest label, 0.",
)
_register(
    "adult",
    TableReader(
        ("adult-train.csv.gz", "adult-test.csv.gz"),
        target="income",
        kw={"header": None, "names": _ADULT_NAMES, "skipinitialspace": True, **_NA},
        label_map={"<=50K.": "<=50K", ">50K.": ">50K"},
    ),
    shape=(45222, 14),
    counts=_counts(("<=50K", ">50K"), (34014, 11208)),
    papers=("002",),
    categorical="codes",
    description="UCI Adult (Kohavi 1996): adult.data and adult.test stacked (48842 rows), the test labels' "
    "trailing '.' stripped, rows with '?' dropped -> 45222. Default categorical encoding: integer codes "
    "(d = 14, as in paper 002's Table 5); categorical='onehot' gives 104 columns.",
)
_LETTER_COUNTS = (
    789, 766, 736, 805, 768, 775, 773, 734, 755, 747, 739, 761, 792,
    783, 753, 803, 783, 758, 748, 796, 813, 764, 752, 787, 786, 734,
)  # fmt: skip
_table("letter", "letter-recognition.data", tuple("ABCDEFGHIJKLMNOPQRSTUVWXYZ"), _LETTER_COUNTS, target=0,
       shape=(20000, 16), papers=("002",),
       description="UCI Letter Recognition (Frey & Slate 1991); the letter is the FIRST column.")
_register(
    "optdigits",
    TableReader(("optdigits.tra", "optdigits.tes"), target=-1, kw={"header": 0}),
    shape=(5620, 64),
    counts=_counts(tuple(range(10)), (554, 571, 557, 572, 568, 558, 558, 566, 554, 562)),
    papers=("002",),
    description="UCI Optical Recognition of Handwritten Digits (Alpaydin & Kaynak 1998): .tra (3823) and "
    ".tes (1797) stacked; the copies have a header row added by their owner.",
)
_register(
    "pendigits",
    TableReader(("pendigits.tra", "pendigits.tes"), target=-1, kw={"header": None, "skipinitialspace": True}),
    shape=(10992, 16),
    counts=_counts(tuple(range(10)), (1143, 1143, 1144, 1055, 1144, 1055, 1056, 1142, 1055, 1055)),
    papers=("002",),
    description="UCI Pen-Based Recognition of Handwritten Digits (Alpaydin & Alimoglu 1998): .tra (7494) "
    "and .tes (3498) stacked.",
)
_register(
    "landsat",
    TableReader(("sat.trn", "sat.tst"), target=-1, kw={"sep": "\t", "header": 0, "names": tuple(range(37))}),
    shape=(6435, 36),
    counts=_counts((1, 2, 3, 4, 5, 7), (1533, 703, 1358, 626, 707, 1508)),
    papers=("002",),
    description="UCI Statlog Landsat Satellite (Srinivasan 1993): sat.trn (4435) and sat.tst (2000) stacked; "
    "the copies are tab-separated with a (partly mistyped) header that is replaced. Labels 1..7, no 6.",
)
_register(
    "shuttle",
    TableReader(("shuttle.trn.gz", "shuttle.tst"), target=-1, kw=_NOHEAD, label_map=_SHUTTLE_TEXT),
    shape=(58000, 9),
    counts=_counts(tuple(range(1, 8)), (45586, 50, 171, 8903, 3267, 10, 13)),
    papers=("002",),
    description="UCI Statlog Shuttle (NASA, Catlett): shuttle.trn (43500) and shuttle.tst (14500) stacked; "
    "the test copy's text labels are mapped back to the codes 1..7 (Rad Flow = 1, ..., Bpv Open = 7).",
)
_table("covertype", "covtype.data.gz", tuple(range(1, 8)), (211840, 283301, 35754, 2747, 9493, 17367, 20510),
       shape=(581012, 54), papers=("002",), positive=2, available=False,
       missing_hint="covertype is not available: only fragments and stubs of covtype.data were found for the "
       "shared collection, so it is not bundled either. To use it, supply the raw UCI covtype.data(.gz). ",
       description="UCI Covertype (Blackard & Dean), NOT AVAILABLE in the shared collection; loads only from a "
       "user-supplied covtype.data(.gz) (55 columns, label last). first_vs_rest: class 2 vs rest (paper 002, "
       "Section 8).")
_register(
    "boston_housing",
    TableReader(("housing.data",), target=-1, kw={"header": None, "sep": r"\s+"}),
    shape=(506, 13),
    counts=None,
    papers=("002",),
    description="Boston Housing (Harrison & Rubinfeld 1978), regression target MEDV. Note the known "
    "ethical problem of feature B.",
)
_register(
    "concrete",
    TableReader(("Concrete_Data.xls",), target=-1, excel=True),
    shape=(1030, 8),
    counts=None,
    papers=("002",),
    description="UCI Concrete Compressive Strength (Yeh 1998), regression target strength in MPa; read "
    "from the original Excel file (needs xlrd).",
)
