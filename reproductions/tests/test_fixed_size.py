"""Paper 002 reproduction driver (reproductions.fixed_size): the results store, the report computed from it, the
synthetic covertype stand-in and the baselines' tuning wrappers (tiny data, 2 + 1 evaluation budgets)."""

import math
import os
import re
import shutil
import sys

import numpy as np
import pytest
from sklearn.datasets import make_classification, make_regression

from reproductions import DOCS, RESULTS, TEMPLATES
from reproductions import fixed_size as fx
from reproductions.figures import FIGURES_HEADING, figures_markdown
from reproductions.report import typed_numbers

REPORT = DOCS / "fixed_size.md"


@pytest.fixture(scope="module")
def cls_split():
    X, y = make_classification(90, 4, n_informative=3, n_redundant=0, random_state=0)
    return X[:60], y[:60], X[60:], y[60:], "classification"


@pytest.fixture(scope="module")
def mc_split():
    X, y = make_classification(120, 4, n_informative=3, n_redundant=0, n_classes=3, n_clusters_per_class=1,
                               random_state=0)
    return X[:80], y[:80], X[80:], y[80:], "classification"


@pytest.fixture(scope="module")
def reg_split():
    X, y = make_regression(90, 3, noise=5.0, random_state=0)
    return X[:60], y[:60], X[60:], y[60:], "regression"


# ------------------------------------------------------------------------------------------- baselines
@pytest.mark.parametrize("method", ["RBF C-SVC", "Lin C-SVC", "Lin C-SVC (liblinear)", "RBF nu-SVC",
                                    "Nystroem+Ridge"])
def test_baseline_classification_tiny_budget(method, cls_split):
    r = fx.baseline_run(method, "toy", 0, n_csa=2, n_simplex=1, folds=3, m=10, split=cls_split)
    assert 0.0 <= r["score"] <= 100.0
    assert r["method"] == method and r["budget"] == "2+1, 3-fold"
    assert r["n_sv"] >= (1 if "liblinear" not in method else 0)
    assert r["cpu"] >= r["tune_cpu"] >= 0 and math.isfinite(r["cpu_full_est"]) and r["cpu_full_est"] >= r["cpu"] - 1e-9
    assert len(r["params"].split()) == (1 if method.startswith("Lin") else 2)


def test_baseline_multiclass_and_fixed_parameters(mc_split):
    r = fx.baseline_run("RBF C-SVC", "toy", 1, n_csa=2, n_simplex=1, folds=3, split=mc_split)
    assert r["score"] > 40.0
    f = fx.baseline_run("RBF C-SVC", "toy", 1, fixed=(0.0, -1.0), split=mc_split, fit_subsample=50)
    assert f["budget"] == "fixed hyperparameters *, fit on 50 rows *" and f["tune_cpu"] < 1.0
    assert math.isnan(f["cpu_full_est"]) and f["params"] == "0 -1"
    s = fx.baseline_run("RBF C-SVC", "toy", 1, n_csa=2, n_simplex=1, folds=3, tune_subsample=40, split=mc_split)
    assert "tuned on 40 rows" in s["budget"] and math.isnan(s["cpu_full_est"])


def test_baseline_cpu_cap_stops_with_the_best_point_so_far(cls_split, monkeypatch):
    """A capped tuning keeps the best of the points it evaluated, says so in the budget, and extrapolates."""
    seen = []
    orig = fx._BestSoFar.__call__

    def spy(self, x):
        e = orig(self, x)
        seen.append((e, np.array(x)))
        return e

    monkeypatch.setattr(fx._BestSoFar, "__call__", spy)
    r = fx.baseline_run("RBF C-SVC", "toy", 0, n_csa=90, n_simplex=70, folds=3, split=cls_split, cpu_cap=0.0)
    assert r["capped"] and r["n_evals"] == 1 == len(seen)  # a zero cap: exactly one evaluation
    assert r["budget"] == "90+70, 3-fold, stopped at the 0 CPU-s cap after 1 evaluations"
    assert r["params"] == " ".join(f"{v:.3g}" for v in seen[0][1])
    assert r["cpu_full_est"] >= r["tune_cpu"] * 160 * 10 / 3 - 1e-9
    seen.clear()
    full = fx.baseline_run("RBF C-SVC", "toy", 0, n_csa=3, n_simplex=2, folds=3, split=cls_split, cpu_cap=1e6)
    assert not full["capped"] and full["n_evals"] == len(seen) == 5
    assert full["params"] == " ".join(f"{v:.3g}" for v in min(seen, key=lambda t: t[0])[1])


def test_best_so_far_raises_only_after_one_evaluation():
    b = fx._BestSoFar(lambda x: float(np.sum(x)), 0.0)
    assert b(np.array([2.0])) == 2.0 and b.n == 1
    with pytest.raises(fx._CapReached):
        b(np.array([1.0]))
    assert b.n == 1 and b.fun == 2.0 and b.x.tolist() == [2.0]


@pytest.mark.parametrize("method", ["eps-SVR", "nu-SVR", "Nystroem+Ridge"])
def test_baseline_regression_tiny_budget(method, reg_split):
    r = fx.baseline_run(method, "toy", 0, n_csa=2, n_simplex=1, folds=3, m=10, split=reg_split)
    assert r["score"] > 0 and r["l1"] > 0 and r["linf"] >= r["l1"]
    assert len(r["params"].split()) == (3 if method == "nu-SVR" else 2)


def test_baseline_unknown_method(cls_split):
    with pytest.raises(ValueError, match="unknown baseline"):
        fx.baseline_run("LDA", "toy", 0, n_csa=2, n_simplex=1, folds=3, split=cls_split)


@pytest.mark.parametrize("kernel,mc", [("rbf", "ovo"), ("linear", "moc")])
def test_fs_lssvm_run_tiny(kernel, mc, mc_split):
    r = fx.fs_lssvm_run("toy", 0, kernel=kernel, multiclass=mc, m=15, n_csa=2, n_simplex=1, split=mc_split)
    assert r["method"] == ("RBF FS-LSSVM (1vs1)" if kernel == "rbf" else "Lin FS-LSSVM (MOC)")
    assert r["m"] == (15 if kernel == "rbf" else 0) and 0 <= r["score"] <= 100 and r["cpu"] > 0
    assert "tuning_and_fit=" in r["phases"]


def test_run_table_appends_and_skips_done(tmp_path, monkeypatch, cls_split):
    monkeypatch.setattr(fx, "paper_split", lambda name, seed: cls_split)
    monkeypatch.setitem(fx.paper().info, "toy", dict(n_cv=60, n_test=30, m=12, task="binary", short="toy"))
    kw = dict(methods=["RBF FS-LSSVM", "Maj. rule", "RBF C-SVC"], fs_budget=(2, 1), svm_budget=(2, 1, 3),
              log=lambda msg: None)
    rows = fx.run_table("8", ["toy"], [0, 1], tmp_path, **kw)
    assert len(rows) == 6
    saved = fx.read_group(tmp_path, "binary")
    assert [r["method"] for r in saved[:3]] == ["RBF FS-LSSVM", "Maj. rule", "RBF C-SVC"]
    assert saved[0]["m"] == 12 and saved[0]["seed"] == 0
    assert fx.run_table("8", ["toy"], [0, 1], tmp_path, **kw) == []  # everything done: skipped
    assert len(fx.run_table("8", ["toy"], [0, 1, 2], tmp_path, **kw)) == 3
    # The paper's whole SVM budget is another job than a reduced one: only the baseline runs again, then is done.
    calls = []

    def fake_baseline(meth, name, seed, *, n_csa, n_simplex, folds, **_):
        calls.append((meth, seed, n_csa, n_simplex, folds))
        return dict(table="8", data=name, method=meth, seed=seed, m=0, score=50.0, cpu=1.0, wall=1.0,
                    budget=f"{n_csa}+{n_simplex}, {folds}-fold")

    monkeypatch.setattr(fx, "baseline_run", fake_baseline)
    full = dict(kw, svm_budget=(90, 70, 10))
    assert len(fx.run_table("8", ["toy"], [0, 1], tmp_path, **full)) == 2
    assert calls == [("RBF C-SVC", 0, 90, 70, 10), ("RBF C-SVC", 1, 90, 70, 10)]
    assert fx.run_table("8", ["toy"], [0, 1], tmp_path, **full) == []
    assert fx.run_table("8", ["toy"], [0, 1], tmp_path, **kw) == []  # the reduced-budget rows still count


# ------------------------------------------------------------------------------------------- covertype stand-in
def test_synthetic_covertype_shape_dtype_balance_determinism(tmp_path):
    X, y = fx.synthetic_covertype(5000, 3, directory=tmp_path / "a", block=1000)
    assert isinstance(X, np.memmap) and X.shape == (5000, 54) and X.dtype == np.float32
    assert y.shape == (5000,) and set(np.unique(y)) == {0, 1}
    assert 0.4 < y.mean() < 0.6
    np.testing.assert_array_equal(X[:, 10:14].sum(1), 1.0)  # one wilderness area
    np.testing.assert_array_equal(X[:, 14:].sum(1), 1.0)  # one soil type
    assert np.all(np.isin(X[:, 10:], (0.0, 1.0)))
    X2, y2 = fx.synthetic_covertype(5000, 3, directory=tmp_path / "b", block=1000)
    np.testing.assert_array_equal(np.asarray(X), np.asarray(X2))
    np.testing.assert_array_equal(y, y2)
    _, y3 = fx.synthetic_covertype(5000, 4, directory=tmp_path / "c", block=1000)
    assert not np.array_equal(y, y3)
    with pytest.raises(ValueError, match="n and block"):
        fx.synthetic_covertype(0, 3, directory=tmp_path / "d")


def test_synthetic_covertype_is_learnable(tmp_path):
    """The rule is nonlinear: an RBF model beats a linear one and the majority rule on a small sample."""
    from sklearn.linear_model import LogisticRegression
    from sklearn.svm import SVC

    X, y = fx.synthetic_covertype(4000, 0, directory=tmp_path)
    Xa = np.asarray(X, dtype=np.float64)
    Xa[:, :10] /= Xa[:, :10].std(0)
    rbf = SVC(C=3.0, gamma=0.05).fit(Xa[:3000], y[:3000]).score(Xa[3000:], y[3000:])
    lin = LogisticRegression(max_iter=500).fit(Xa[:3000], y[:3000]).score(Xa[3000:], y[3000:])
    assert rbf > lin + 0.03 and rbf > 0.75


# ------------------------------------------------------------------------------------------- report
@pytest.fixture(scope="module")
def committed():
    return fx.load_results(RESULTS)


@pytest.fixture(scope="module")
def committed_text(committed):
    return fx.build_report(committed)


def test_templates_state_no_numbers():
    """Every number of the report's prose is computed: the templates type none by hand, nor cite the spec."""
    for name in ("fixed_size", "fixed_size_items"):
        text = (TEMPLATES / f"{name}.md").read_text()
        assert typed_numbers(text) == [], name
        assert not re.search(r"\bspec\b", text), name


def test_store_reads_the_committed_results(committed):
    assert {len(committed[g]) for g in ("table1", "cvtiming")} == {60, 36}
    r = committed["binary"][0]
    assert isinstance(r["seed"], float) and isinstance(r["budget"], str) and math.isnan(r["tune_cpu"])


def test_table1_counts_its_runs(committed_text):
    """Table 1's rows were relabelled as full-budget baselines and the table found none ("runs 0 / –")."""
    assert not fx._full_budget(dict(table="1", method="entropy", budget="90+70, 10-fold fast CV"))
    assert fx._full_budget(dict(table="8", method="RBF C-SVC", budget="90+70, 10-fold"))
    assert "| entropy | 30 | 0.1352 (0.0396) | 0.1293 (0.0246) |" in committed_text
    assert "| random | 30 | 0.1472 (0.0423) | 0.1433 (0.0323) |" in committed_text
    assert "| entropy | 0 |" not in committed_text


def test_one_paper_sd_rule_is_computed(committed, committed_text):
    """shu MOC and Lin MOC are 3.6 and 12 paper sds below: never "within one sd"."""
    cells = {(c["data"], c["method"]): c for c in fx._fs_cells(committed)}
    assert cells[("shuttle", "RBF FS-LSSVM (MOC)")]["z"] == pytest.approx((99.76 - 99.87) / 0.03, abs=0.2)
    assert cells[("shuttle", "Lin FS-LSSVM (MOC)")]["z"] < -12
    within = committed_text.split("Within one paper sd:")[1].split("Better than the paper")[0]
    assert "shu RBF FS-LSSVM (MOC)" not in within and "shu Lin FS-LSSVM (MOC)" not in within
    assert all(abs(float(z)) <= 1 for z in re.findall(r"\(([+-][0-9.]+)\)", within))
    assert "shu RBF FS-LSSVM (MOC): 99.76 vs 99.87 (-3.6)" in committed_text


def test_time_ratios_give_both_bounds(committed_text):
    """The paper's times are wall seconds on 4 cores: every ratio is given as ×1–×4 (paper / ours)."""
    assert fx.paper().cores == 4
    assert "| pid | RBF FS-LSSVM | full | 10 | 1.6 (0.2) | – | 30.1 (1.9) | 18.6–74.6× |" in committed_text
    assert "1/75" not in committed_text and "paper core-s" not in committed_text
    assert "| mgt | RBF C-SVC | reduced: 20 + 10 evaluations; reduced: 5-fold; reduced: tuned on a subsample |" \
        in committed_text
    assert "reduced: CPU cap" in committed_text
    assert "which favours svmopt" in committed_text


def test_not_reproduced_list_is_computed(committed_text):
    nr = committed_text.split("## Not reproduced / below the paper")[1].split("\n## ")[0]
    assert "let RBF FS-LSSVM (MOC): 86.05 (0.36) against the paper's 89.14 (0.22)** (14.0 paper sd below)" in nr
    assert "is better on 7 of 10 splits" in nr
    assert "our fast CV reaches the paper's speed-up in 9 of 36 cells" in nr
    assert "covertype only as a synthetic stand-in" in nr
    n = nr.count("\n* ")
    assert f"* {n} results are not reproduced" in committed_text


def test_report_commands_name_the_module(committed_text):
    assert "svmopt.experiments" not in committed_text and "--from-results" not in committed_text
    cmds = re.findall(r"`M (--tables [^`]*)`", committed_text)
    assert len(cmds) > 20 and "`M --tables 1 --datasets boston_housing --seeds 30`" in committed_text
    assert "--svm-budget 90 70 10 --svm-cpu-cap 3300" in committed_text
    assert "M = python -m reproductions fixed_size --jobs 1" in committed_text
    assert "svmopt.experiments" not in REPORT.read_text()


def test_report_only_regenerates_the_committed_report(tmp_path):
    shutil.copy(REPORT, tmp_path / "fixed_size.md")
    assert fx.main(["--report-only", "--out", str(tmp_path), "--results", str(RESULTS)]) == 0
    assert (tmp_path / "fixed_size.md").read_text() == REPORT.read_text()


def test_quick_run_without_matplotlib(tmp_path, monkeypatch):
    """The smallest quick run still writes its report, whose figures section is the one-line note."""
    monkeypatch.setitem(sys.modules, "matplotlib", None)
    assert fx.main(["--quick", "--out", str(tmp_path), "--timing", "pima", "--timing-m", "10", "--datasets", "pima",
                    "--no-svm", "--m", "20"]) == 0
    text = (tmp_path / "fixed_size.md").read_text()
    assert text.endswith(figures_markdown(None).rstrip("\n") + "\n")
    assert text.count(FIGURES_HEADING) == 1 and "Mode: quick" in text
    rows = fx.read_group(tmp_path / "results", "binary")
    assert {r["method"] for r in rows} == {"RBF FS-LSSVM", "Maj. rule"} and rows[0]["m"] == 20
    assert "| pima | 10 | 5 |" in text and "| pid | RBF FS-LSSVM [m = 20] | 1 |" in text
    assert not list(tmp_path.glob("*.png"))


def test_ftc_run_small(tmp_path):
    """The covertype protocol end to end at a toy size: tuned on a subsample, final fit streamed from the memmap."""
    rows = fx.ftc_run(0, n_train=3000, n_test=1000, m=20, tune_rows=800, svc_rows=600, n_csa=2, n_simplex=1,
                      directory=tmp_path, svm_budget=(2, 1, 3))
    by = {r["method"]: r for r in rows}
    assert set(by) == {"Maj. rule", "RBF FS-LSSVM", "Lin FS-LSSVM", "RBF C-SVC", "Lin C-SVC (liblinear)"}
    fs = by["RBF FS-LSSVM"]
    assert fs["m"] == 20 and fs["n_train"] == 3000 and "streamed over 3000" in fs["budget"]
    assert "tuning_and_fit=" in fs["phases"] and fs["peak_rss_mb"] > 0 and fs["score"] > by["Maj. rule"]["score"]
    assert by["RBF C-SVC"]["budget"].endswith("fit on 600 of 3000 rows *") and by["RBF C-SVC"]["n_test"] == 1000
    fixed = fx.ftc_run(0, n_train=3000, n_test=1000, m=20, directory=tmp_path, hyper=(10.0, 54.0), data="synthetic",
                       with_baselines=False)
    assert [r["method"] for r in fixed] == ["Maj. rule", "RBF FS-LSSVM"] and "fixed" in fixed[1]["budget"]


def test_ftc_run_tuned_on_all_rows_streams_and_reuses_the_tuned_fit(tmp_path):
    """tune_rows >= n_train (the paper's protocol): tuned on every training row straight from the memmap, and the
    tuned model is the final fit (no second fit); labelled apart from the subsample-tuned row, whose paper entries
    it shares."""
    rows = fx.ftc_run(0, n_train=2000, n_test=500, m=20, tune_rows=2000, n_csa=2, n_simplex=1, directory=tmp_path,
                      with_baselines=False)
    assert [r["method"] for r in rows] == ["Maj. rule", "RBF FS-LSSVM [tuned on all rows]"]
    fs = rows[1]
    assert fs["budget"] == "2+1 on all 2000 rows (streamed), the tuned fit" and fs["fit_cpu"] < 0.5 * fs["tune_cpu"]
    assert fs["score"] > rows[0]["score"] and fx._base(fs["method"]) == "RBF FS-LSSVM"


# ------------------------------------------------------------------------------- Tables 3-4, flops, throughput
def test_paper_flop_ratio_matches_the_papers_count():
    """Section 7.1: at n = 1030, m = 400, v = 10, simple 3.8 GFLOP against proposed 0.61 GFLOP, i.e. 6.3x; for
    n >> m the ratio tends to v - 1."""
    assert fx.paper_flop_ratio(1030, 400, 10) == pytest.approx(6.29, abs=0.01)
    assert fx.paper_flop_ratio(10**9, 50, 10) == pytest.approx(9.0, rel=1e-6)


def test_cv_flops_counts():
    f = fx.cv_flops(n=100, m=10, m_eff=8, d=3, v=5, k=1)
    p = 9
    assert f["features"] == 2 * 100 * 10 * 8 and f["gram"] == 100 * p * (p + 1) and f["kernel"] == 3 * 100 * 10 * 3
    assert f["solves"] == pytest.approx(5 * (p**3 / 3 + 2 * p * p)) and f["predict"] == 2 * 100 * p
    assert f["eig"] == pytest.approx(4 / 3 * 1000 + 2 * 100 * 8)
    assert f["total"] == pytest.approx(sum(v for k, v in f.items() if k != "total"))


def test_dgemm_gflops_is_positive_and_finite():
    g = fx.dgemm_gflops(size=200, reps=1)
    assert math.isfinite(g) and g > 0


def test_timing_and_throughput_tables():
    rows = [dict(data="concrete", m=400.0, v=10.0, simple=0.5, fast=0.05, speedup=10.0, agree="True"),
            dict(data="magic", m=50.0, v=50.0, simple=7.0, fast=0.15, speedup=46.7, agree="True")]
    text = fx.timing_table(rows)
    assert "| concrete | 400 | 10 | 0.500 | 0.0500 | 10.0x | 7.27 / 0.45 | 16.2x | 6.3x | holdout | True |" in text
    assert "| magic | 50 | 50 | 7.000 | 0.1500 | 46.7x | 7.6 / 0.19 | 40.0x | 48.0x | v Cholesky | True |" in text
    assert "reaches the paper's in 1 of 2 cells" in fx.timing_text(rows)
    thr = [dict(data="magic", n=13000.0, d=10.0, m=1000.0, m_eff=990.0, v=10.0, holdout="False", cpu=2.0, gflop=40.0,
                gflops=20.0, dgemm_1core=32.0, gflop_kernel=0.4, gflop_features=25.7, gflop_gram=12.8,
                gflop_eig=3.3, gflop_solves=3.3, gflop_predict=0.03)]
    text = fx.throughput_table(thr)
    assert "| mgt | 13,000 | 1000 (990) | 40.0 (25.7 / 12.8 / 3.3 / 3.3) | 2.00 | 20.0 | 32.0 | 62% | 6,400 |" in text
    assert fx.timing_text([]) == "" and "No throughput" in fx.throughput_table([])


@pytest.mark.skipif(not os.environ.get("SVMOPT_DATA"), reason="SVMOPT_DATA is not set: concrete is not bundled")
def test_tables_3_and_flops_cli_write_their_store_tables(tmp_path):
    """``--tables 3`` replaces the timing cells of the (data set, m) it measures (others kept); ``--tables flops``
    stores the throughput; both then write the report from the store."""
    fx.store_rows(tmp_path, "cvtiming", [dict(data="magic", m=50, v=10, simple=1.5, fast=0.16, speedup=9.4, agree=True),
                                         dict(data="concrete", m=20, v=10, simple=1.0, fast=1.0, speedup=1.0,
                                              agree=True)])
    assert fx.main(["--tables", "3", "--timing", "concrete", "--timing-m", "20", "--timing-reps", "1",
                    "--timing-min-seconds", "0", "--out", str(tmp_path), "--results", str(tmp_path)]) == 0
    rows = fx.read_group(tmp_path, "cvtiming")
    assert sorted((r["data"], int(r["m"]), int(r["v"])) for r in rows) == \
        sorted([("magic", 50, 10)] + [("concrete", 20, v) for v in fx.PAPER_FOLDS])
    assert all(r["agree"] == "True" for r in rows if r["data"] == "concrete")
    assert fx.main(["--tables", "flops", "--datasets", "pima", "--m", "20", "--out", str(tmp_path),
                    "--results", str(tmp_path)]) == 0
    (thr,) = fx.read_group(tmp_path, "throughput")
    assert thr["data"] == "pima" and thr["m"] == 20 and thr["gflops"] > 0 and thr["n"] == 512
    text = (tmp_path / "fixed_size.md").read_text()
    assert "## Flops per CV evaluation" in text and "| concrete | 20 | 50 |" in text
