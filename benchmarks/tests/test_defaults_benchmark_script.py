"""benchmarks/studies/defaults.py: its pool is the catalog's classification sets, each estimator gets the task of its
kind, records are keyed by task, and it runs end to end on two bundled sets at tiny settings; report_defaults.py
computes the three targets from the records (checked on a JSON built here) and renders what its JSON holds."""

from __future__ import annotations

import json
from types import SimpleNamespace

import numpy as np
import pytest

from benchmarks.studies import defaults, report_defaults
from benchmarks.studies.util import RESULTS
from svmopt.datasets import DATASETS

BINARY_ONLY = ("RampLossSVC", "L1SVC", "FeatureBudgetSVC")
SEVERAL_CLASSES = ("RobustSVC", "FixedSizeLSSVC", "EllipsoidPSOClassifier")


# --------------------------------------------------------------------------------------------- the pool and tasks
def test_pool_is_every_classification_set_of_the_catalog(monkeypatch):
    assert defaults.POOL == tuple(n for n, i in DATASETS.items() if i.task in ("binary", "multiclass"))
    assert {"iris", "letter", "shuttle", "adult", "sonar", "arrhythmia"} <= set(defaults.POOL)
    assert not {"boston_housing", "concrete"} & set(defaults.POOL)  # regression sets
    # a set added to the catalog joins the pool, and its paper's estimators flag it
    extra = {**DATASETS, "new_set": SimpleNamespace(task="multiclass", papers=("003",))}
    monkeypatch.setattr(defaults, "DATASETS", extra)
    assert defaults.classification_sets()[-1] == "new_set"
    assert "new_set" in defaults.paper_datasets()["EllipsoidPSOClassifier"]


def test_paper_sets_come_from_the_catalog():
    for est, paper in defaults.PAPER.items():
        assert set(defaults.PAPER_DATASETS[est]) == {n for n, i in DATASETS.items() if paper in i.papers}
    assert defaults.PAPER_DATASETS["L1SVC"] == defaults.PAPER_DATASETS["FeatureBudgetSVC"] \
        == defaults.PAPER_DATASETS["RampLossSVC"]
    assert {"landsat", "letter", "pima"} <= set(defaults.PAPER_DATASETS["FixedSizeLSSVC"])
    assert set(defaults.PAPER) == set(defaults.ESTIMATORS)


def test_estimators_and_their_peers():
    assert set(defaults.ESTIMATORS) == {*BINARY_ONLY, *SEVERAL_CLASSES}
    assert defaults.MULTICLASS == set(SEVERAL_CLASSES)
    for est in ("RobustSVC", "FixedSizeLSSVC"):
        assert defaults.ESTIMATORS[est][1] == "SVC-rbf-grid"
    for est in (*BINARY_ONLY, "EllipsoidPSOClassifier"):
        assert defaults.ESTIMATORS[est][1] == "LinearSVC-grid"


def test_the_task_of_each_estimator_kind():
    for est in defaults.ESTIMATORS:
        assert defaults.task_of(est, "binary") == "binary"
        assert defaults.task_of(est, "multiclass") == ("multiclass" if est in SEVERAL_CLASSES else "first_vs_rest")
    assert defaults.tasks_of("iris", ["EllipsoidPSOClassifier", "L1SVC", "RobustSVC"]) == {
        "multiclass": ["EllipsoidPSOClassifier", "RobustSVC"], "first_vs_rest": ["L1SVC"]}
    assert defaults.tasks_of("sonar", list(defaults.ESTIMATORS)) == {"binary": list(defaults.ESTIMATORS)}
    # the binary-only ones do refuse three classes (so they must get first_vs_rest)
    rng = np.random.default_rng(0)
    X, y = rng.normal(size=(30, 3)), np.repeat([0, 1, 2], 10)
    for est in BINARY_ONLY:
        with pytest.raises(ValueError):
            defaults.ESTIMATORS[est][0]().fit(X, y)


def test_load_task_labels():
    X, y, info = defaults.load_task("iris", "multiclass")
    assert X.shape == (150, 4) and sorted(set(y)) == ["Iris-setosa", "Iris-versicolor", "Iris-virginica"]
    assert info["positive"] is None
    X, y, info = defaults.load_task("iris", "first_vs_rest")
    assert set(y) == {-1, 1} and int(np.sum(y == 1)) == 50 and info["positive"] == "Iris-setosa"


def test_prepare_drops_the_classes_too_small_to_split():
    y = np.array([0] * 60 + [1] * 30 + [2] * 5 + [3])  # class 3: one row; class 2: below MIN_CLASS_ROWS
    idx, info = defaults.prepare(y, max_rows=1000)
    assert info["dropped_classes"] == {3: 1, 2: 5} and info["class_counts"] == {0: 60, 1: 30}
    assert info["n_used"] == idx.size == 90 and info["n_classes"] == 2 and set(y[idx]) == {0, 1}
    idx, info = defaults.prepare(y, max_rows=45)  # stratified over the 95 rows left: 29, 14 and 2 (then dropped)
    assert info["class_counts"] == {0: 29, 1: 14} and info["dropped_classes"] == {3: 1, 2: 2}
    assert np.all(np.diff(idx) > 0)
    reason = defaults.prepare(np.array([0] * 50 + [1] * 3), max_rows=1000)
    assert isinstance(reason, str) and "fewer than two classes" in reason
    assert defaults.majority_rate(np.array(["a", "b", "b", "c"])) == 0.5


def test_records_are_keyed_by_task():
    r = {"dataset": "iris", "task": "multiclass", "split": 0, "model": "LinearSVC-grid", "role": "peer"}
    assert defaults.record_key(r) == ("iris", "multiclass", 0, "LinearSVC-grid")
    other_task = {**r, "task": "first_vs_rest"}
    old = {"records": [r, other_task], "meta": {"runs": [{"n": 1}], "datasets": {}, "skipped_datasets": {},
                                                 "estimator_defaults": {}}}
    redone = {**r, "accuracy": 1.0}
    meta = {"runs": [{"n": 2}], "datasets": {"iris": {"tasks": {"multiclass": {}}}}, "skipped_datasets": {},
            "estimator_defaults": {}}
    merged = defaults.merge(old, [redone], meta)
    assert merged == [other_task, redone] and [x["n"] for x in meta["runs"]] == [1, 2]


def test_protocol_records_the_study():
    p = defaults.protocol(3, 2000)
    assert p["protocol_version"] == defaults.PROTOCOL_VERSION >= 2
    assert p["multiclass_estimators"] == sorted(SEVERAL_CLASSES) and set(p["tasks"]) == set(defaults.TASKS)
    assert p["estimator_peer"]["L1SVC"] == "LinearSVC-grid" and p["min_class_rows"] == defaults.MIN_CLASS_ROWS
    assert json.loads(json.dumps(p))["paper_datasets"]["L1SVC"] == list(defaults.PAPER_DATASETS["L1SVC"])


# --------------------------------------------------------------------------------------------------- the report
def _rec(model, dataset, acc, wall, *, role="ours", task="binary", paper=False, split=0, error=None):
    return {"dataset": dataset, "task": task, "split": split, "model": model, "role": role,
            "peer": None if role == "peer" else "LinearSVC-grid", "paper_set": paper, "accuracy": acc,
            "error": error, "wall_s": wall, "cpu_s": wall / 2, "n_used": 100, "n_original": 100, "d": 4,
            "n_classes": 2, "positive": 1, "majority_rate": 0.5, "n_warnings": 0, "warning_categories": {},
            "first_warning": None}


def synthetic() -> dict:
    """Four estimators against one peer (accuracy 0.80 everywhere, 1 s a fit) on sets s1, s2 (other) and p1 (each
    one's paper's): Good meets the targets, BadMean misses the mean, BadSet a set, Slow the time."""
    peer = "LinearSVC-grid"
    recs = [_rec(peer, "s1", 0.80, 1.0, role="peer", split=s) for s in (0, 1)]
    recs += [_rec(peer, "s2", 0.80, 1.0, role="peer", task="first_vs_rest"), _rec(peer, "p1", 0.80, 1.0, role="peer")]
    ours = {  # estimator -> (s1's two splits, s2, p1), accuracies; Slow's fits take 3 s
        "Good": ((0.81, 0.83), 0.78, 0.50),  # gaps: s1 +2 (mean of +1, +3), s2 -2 -> mean 0; p1 -30 apart
        "BadMean": ((0.785, 0.785), 0.785, 0.80),  # -1.5 and -1.5
        "BadSet": ((0.83, 0.83), 0.76, 0.80),  # +3 and -4: mean -0.5, s2 below -3
        "Slow": ((0.80, 0.80), 0.80, 0.80),
    }
    for est, (s1, s2, p1) in ours.items():
        wall = 3.0 if est == "Slow" else 1.0
        recs += [_rec(est, "s1", a, wall, split=s) for s, a in enumerate(s1)]
        recs += [_rec(est, "s2", s2, wall, task="first_vs_rest"), _rec(est, "p1", p1, wall, paper=True)]
    recs.append(_rec("Good", "s3", None, 9.0, error="ValueError: boom"))  # failed: no gap, its time counted
    proto = {"protocol_version": 2, "max_rows": 100, "splits": 2, "test_size": 0.3, "subsample_seed": 0,
             "split_seed": 0, "min_class_rows": 8, "tasks": {"binary": "b", "first_vs_rest": "f"},
             "multiclass_estimators": [], "peers": {peer: "grid"}, "paper_datasets": {e: ["p1"] for e in ours}}
    meta = {"protocol": proto, "runs": [], "datasets": {}, "machine": {}}
    return {"meta": meta, "records": recs}


def test_report_targets_on_the_other_sets():
    recs = synthetic()["records"]
    good = report_defaults.summary(recs, "Good")
    assert good["n_datasets"] == 3 and good["n_with_gap"] == 2 and good["mean_gap"] == pytest.approx(0.0)
    assert good["worst"] == "s2" and good["worst_task"] == "first_vs_rest" and good["worst_gap"] == pytest.approx(-2)
    assert good["n_failed"] == 1 and good["n_fits"] == 4
    assert good["wall_ratio"] == pytest.approx(12.0 / 3.0)  # the failed fit's 9 s count, its peer has none
    own = report_defaults.summary(recs, "Good", "paper")
    assert own["n_datasets"] == 1 and own["mean_gap"] == pytest.approx(-30) and own["wall_ratio"] == 1.0
    assert report_defaults.summary(recs, "Good", "all")["n_fits"] == 5
    with pytest.raises(ValueError, match="sets"):
        report_defaults.summary(recs, "Good", "mine")

    recs = [r for r in recs if r["dataset"] != "s3"]
    assert report_defaults.summary(recs, "Good")["missed"] == []
    assert report_defaults.summary(recs, "BadMean")["mean_gap"] == pytest.approx(-1.5)
    bad_set = report_defaults.summary(recs, "BadSet")
    assert bad_set["mean_gap"] == pytest.approx(-0.5) and bad_set["below_set_target"] == ["s2"]
    assert report_defaults.summary(recs, "Slow")["wall_ratio"] == pytest.approx(3.0)
    lines = report_defaults.check(recs)
    assert [line.split(":")[0] for line in lines] == ["BadMean", "BadSet", "Slow"]
    assert "mean gap -1.50" in lines[0] and "s2" in lines[1] and "wall-time ratio 3 > 2" in lines[2]
    assert len(lines[0].split("; ")) == len(lines[1].split("; ")) == len(lines[2].split("; ")) == 1


def test_report_check_exits_1_naming_the_estimators(tmp_path, capsys):
    data = synthetic()
    path, out = tmp_path / "d.json", tmp_path / "d.md"
    path.write_text(json.dumps(data))
    assert report_defaults.main(["--json", str(path), "--out", str(out), "--check"]) == 1
    printed = capsys.readouterr().out
    for est in ("Good", "BadMean", "BadSet", "Slow"):  # Good's failed s3 fit doubles its time: a ratio of 4
        assert f"target missed: {est}:" in printed
    md = out.read_text()
    assert "| s2 | first_vs_rest |" in md and "### Good: its paper's data sets" in md and "| p1 | binary |" in md
    assert "boom" in md and "| Good | LinearSVC-grid | 2 | +0.00 | -2.00 (s2) | 0 |" in md
    data["records"] = [r for r in data["records"] if r["model"] in ("Good", "LinearSVC-grid")
                       and r["dataset"] != "s3"]
    path.write_text(json.dumps(data))
    assert report_defaults.main(["--json", str(path), "--out", str(out), "--check"]) == 0


def test_report_reads_a_json_of_the_first_protocol():
    old = RESULTS / "defaults.json"
    if not old.is_file():
        pytest.skip("no committed defaults.json")
    data = json.loads(old.read_text())
    if "protocol_version" in data["meta"]["protocol"]:
        pytest.skip("the committed JSON is of a later protocol")
    md = report_defaults.markdown(data)
    for est in report_defaults.estimators(data["records"]):
        sm = report_defaults.summary(data["records"], est)
        assert sm["n_datasets"] > 0 and report_defaults.summary(data["records"], est, "paper")["n_datasets"] == 0
        assert f"## {est}" in md
    assert "| first_vs_rest |" in md


# --------------------------------------------------------------------------------------------------- end to end
def test_defaults_script_runs_and_reports(tmp_path, monkeypatch, capsys):
    monkeypatch.delenv("SVMOPT_DATA", raising=False)
    out = tmp_path / "defaults.json"
    ests = ["EllipsoidPSOClassifier", "L1SVC"]
    # spambase is not bundled: with SVMOPT_DATA unset it is skipped with a message, not an error
    assert defaults.main(["--datasets", "iris", "sonar", "spambase", "--splits", "1", "--max-rows", "150",
                          "--estimators", *ests, "--json", str(out)]) == 0
    printed = capsys.readouterr().out
    res = json.loads(out.read_text())
    recs, meta = res["records"], res["meta"]
    got = {(r["dataset"], r["task"], r["model"]): r for r in recs}
    # iris (multi-class): the multi-class estimator and its peer on all classes, the binary-only one on first_vs_rest
    assert set(got) == {("iris", "multiclass", "LinearSVC-grid"), ("iris", "multiclass", "EllipsoidPSOClassifier"),
                        ("iris", "first_vs_rest", "LinearSVC-grid"), ("iris", "first_vs_rest", "L1SVC"),
                        ("sonar", "binary", "LinearSVC-grid"), ("sonar", "binary", "EllipsoidPSOClassifier"),
                        ("sonar", "binary", "L1SVC")}
    assert len(recs) == 7 and sum(" split " in line for line in printed.splitlines()) == 7  # one line a fit
    # paper sets run and are flagged: iris is paper 003's, sonar paper 001's
    paper = {k: r["paper_set"] for k, r in got.items()}
    assert paper[("iris", "multiclass", "EllipsoidPSOClassifier")] and paper[("sonar", "binary", "L1SVC")]
    assert not paper[("sonar", "binary", "EllipsoidPSOClassifier")] and not paper[("iris", "first_vs_rest", "L1SVC")]
    assert paper[("iris", "multiclass", "LinearSVC-grid")] and not paper[("iris", "first_vs_rest", "LinearSVC-grid")]
    assert "spambase" in meta["skipped_datasets"] and "spambase: skipped" in printed
    assert got[("iris", "multiclass", "LinearSVC-grid")]["n_classes"] == 3
    assert got[("iris", "first_vs_rest", "L1SVC")]["positive"] == "Iris-setosa"
    for r in recs:
        assert r["n_train"] + r["n_test"] == r["n_used"] == min(150, r["n_original"])
        assert r["wall_s"] >= 0 and r["cpu_s"] >= 0 and r["n_warnings"] == sum(r["warning_categories"].values())
        assert r["error"] is None and 0.0 <= r["accuracy"] <= 1.0
        assert isinstance(r["best_params"] if r["role"] == "peer" else r["selected"], dict)
    assert set(meta["datasets"]["iris"]["tasks"]) == {"multiclass", "first_vs_rest"}
    assert meta["protocol"]["protocol_version"] == defaults.PROTOCOL_VERSION
    assert meta["svmopt_version"] and meta["git_commit"] and "--max-rows 150" in meta["command"]

    # the report: the gaps recomputed here from the records
    md_path = tmp_path / "defaults.md"
    assert report_defaults.main(["--json", str(out), "--out", str(md_path)]) == 0
    md = md_path.read_text()
    for est in ests:
        for sets, flag in (("other", False), ("paper", True)):
            (key, r), = [(k, r) for k, r in got.items() if k[2] == est and r["paper_set"] == flag]
            gap = 100 * (r["accuracy"] - got[key[0], key[1], "LinearSVC-grid"]["accuracy"])
            assert report_defaults.summary(recs, est, sets)["mean_gap"] == pytest.approx(gap)
            assert f"| {key[0]} | {key[1]} |" in md and f"{gap:+.2f}" in md
    capsys.readouterr()
    failing = report_defaults.check(recs)
    assert report_defaults.main(["--json", str(out), "--out", str(md_path), "--check"]) == (1 if failing else 0)

    # --append: L1SVC again on iris reuses its first_vs_rest peer (not the multi-class one) and replaces its record
    before = {defaults.record_key(r): r for r in recs}
    assert defaults.main(["--datasets", "iris", "--splits", "1", "--max-rows", "150", "--estimators", "L1SVC",
                          "--json", str(out), "--append"]) == 0
    printed = capsys.readouterr().out
    assert printed.count("reused from the existing JSON") == 1 and "first_vs_rest split 0 LinearSVC-grid" in printed
    merged = json.loads(out.read_text())
    assert len(merged["records"]) == len(recs) and len(merged["meta"]["runs"]) == 2
    for r in merged["records"]:
        if r["role"] == "peer":
            assert r == before[defaults.record_key(r)]
    assert set(merged["meta"]["datasets"]["iris"]["tasks"]) == {"multiclass", "first_vs_rest"}
    # another protocol is not merged, nor a JSON of an earlier protocol version
    assert defaults.main(["--datasets", "iris", "--splits", "2", "--max-rows", "150", "--estimators", "L1SVC",
                          "--json", str(out), "--append", "--quiet"]) == 2
    merged["meta"]["protocol"].pop("protocol_version")
    out.write_text(json.dumps(merged))
    assert defaults.main(["--datasets", "iris", "--splits", "1", "--max-rows", "150", "--estimators", "L1SVC",
                          "--json", str(out), "--append", "--quiet"]) == 2
    assert "version 1" in capsys.readouterr().err


def test_selected_values_records_what_exists():
    class Kernel:
        def __repr__(self):
            return "Kernel('rbf', alpha=2.0)"

    class Fitted:
        def __init__(self):
            self.nu_ = np.array([0.5])
            self.kernel_ = Kernel()
            self.C_ = np.float64(10.0)
            self.budget_ = np.arange(100)  # too long: left out
            self.alpha_ = None
            self.solver_ = np.str_("lp")
            self.cv_results_ = {"mean_test_score": np.array([0.5, 0.9]), "params": [{"C": 1}, {"C": 10}]}

        @property
        def rho_(self):
            raise AttributeError("not fitted with rho")

    got = defaults.selected_values(Fitted())
    assert got == {"nu_": 0.5, "kernel_": "Kernel('rbf', alpha=2.0)", "C_": 10.0, "solver_": "lp",
                   "cv_results_": {"n_candidates": 2, "best_mean_test_score": 0.9, "best_params": {"C": 10}}}
    assert type(got["solver_"]) is str
    json.dumps(got)
