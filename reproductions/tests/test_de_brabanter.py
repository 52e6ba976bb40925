"""Paper 002 reproduction driver (reproductions.de_brabanter): results CSVs, the report built from them, the
synthetic covertype stand-in and the baselines' tuning wrappers (tiny data, 2 + 1 evaluation budgets)."""

import math
import os

import numpy as np
import pytest
from sklearn.datasets import make_classification, make_regression

from reproductions import de_brabanter as db


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
    r = db.baseline_run(method, "toy", 0, n_csa=2, n_simplex=1, folds=3, m=10, split=cls_split)
    assert 0.0 <= r["score"] <= 100.0
    assert r["method"] == method and r["budget"] == "2+1, 3-fold"
    assert r["n_sv"] >= (1 if "liblinear" not in method else 0)
    assert r["cpu"] >= r["tune_cpu"] >= 0 and math.isfinite(r["cpu_full_est"]) and r["cpu_full_est"] >= r["cpu"] - 1e-9
    assert len(r["params"].split()) == (1 if method.startswith("Lin") else 2)


def test_baseline_multiclass_and_fixed_parameters(mc_split):
    r = db.baseline_run("RBF C-SVC", "toy", 1, n_csa=2, n_simplex=1, folds=3, split=mc_split)
    assert r["score"] > 40.0
    f = db.baseline_run("RBF C-SVC", "toy", 1, fixed=(0.0, -1.0), split=mc_split, fit_subsample=50)
    assert f["budget"] == "fixed hyperparameters *, fit on 50 rows *" and f["tune_cpu"] < 1.0
    assert math.isnan(f["cpu_full_est"]) and f["params"] == "0 -1"
    s = db.baseline_run("RBF C-SVC", "toy", 1, n_csa=2, n_simplex=1, folds=3, tune_subsample=40, split=mc_split)
    assert "tuned on 40 rows" in s["budget"] and math.isnan(s["cpu_full_est"])


def test_baseline_cpu_cap_stops_with_the_best_point_so_far(cls_split, monkeypatch):
    """A capped tuning keeps the best of the points it evaluated, says so in the budget, and extrapolates."""
    seen = []
    orig = db._BestSoFar.__call__

    def spy(self, x):
        e = orig(self, x)
        seen.append((e, np.array(x)))
        return e

    monkeypatch.setattr(db._BestSoFar, "__call__", spy)
    r = db.baseline_run("RBF C-SVC", "toy", 0, n_csa=90, n_simplex=70, folds=3, split=cls_split, cpu_cap=0.0)
    assert r["capped"] and r["n_evals"] == 1 == len(seen)  # a zero cap: exactly one evaluation
    assert r["budget"] == "90+70, 3-fold, stopped at the 0 CPU-s cap after 1 evaluations"
    assert r["params"] == " ".join(f"{v:.3g}" for v in seen[0][1])
    assert r["cpu_full_est"] >= r["tune_cpu"] * 160 * 10 / 3 - 1e-9
    seen.clear()
    full = db.baseline_run("RBF C-SVC", "toy", 0, n_csa=3, n_simplex=2, folds=3, split=cls_split, cpu_cap=1e6)
    assert not full["capped"] and full["n_evals"] == len(seen) == 5
    assert full["params"] == " ".join(f"{v:.3g}" for v in min(seen, key=lambda t: t[0])[1])


def test_best_so_far_raises_only_after_one_evaluation():
    b = db._BestSoFar(lambda x: float(np.sum(x)), 0.0)
    assert b(np.array([2.0])) == 2.0 and b.n == 1
    with pytest.raises(db._CapReached):
        b(np.array([1.0]))
    assert b.n == 1 and b.fun == 2.0 and b.x.tolist() == [2.0]


@pytest.mark.parametrize("method", ["eps-SVR", "nu-SVR", "Nystroem+Ridge"])
def test_baseline_regression_tiny_budget(method, reg_split):
    r = db.baseline_run(method, "toy", 0, n_csa=2, n_simplex=1, folds=3, m=10, split=reg_split)
    assert r["score"] > 0 and r["l1"] > 0 and r["linf"] >= r["l1"]
    assert len(r["params"].split()) == (3 if method == "nu-SVR" else 2)


def test_baseline_unknown_method(cls_split):
    with pytest.raises(ValueError, match="unknown baseline"):
        db.baseline_run("LDA", "toy", 0, n_csa=2, n_simplex=1, folds=3, split=cls_split)


@pytest.mark.parametrize("kernel,mc", [("rbf", "ovo"), ("linear", "moc")])
def test_fs_lssvm_run_tiny(kernel, mc, mc_split):
    r = db.fs_lssvm_run("toy", 0, kernel=kernel, multiclass=mc, m=15, n_csa=2, n_simplex=1, split=mc_split)
    assert r["method"] == ("RBF FS-LSSVM (1vs1)" if kernel == "rbf" else "Lin FS-LSSVM (MOC)")
    assert r["m"] == (15 if kernel == "rbf" else 0) and 0 <= r["score"] <= 100 and r["cpu"] > 0
    assert "tuning_and_fit=" in r["phases"]


def test_run_table_appends_and_skips_done(tmp_path, monkeypatch, cls_split):
    monkeypatch.setattr(db, "_split", lambda name, seed: cls_split)
    monkeypatch.setitem(db.PAPER, "toy", dict(n_cv=60, n_test=30, m=12))
    kw = dict(methods=["RBF FS-LSSVM", "Maj. rule", "RBF C-SVC"], fs_budget=(2, 1), svm_budget=(2, 1, 3),
              log=lambda msg: None)
    rows = db.run_table("8", ["toy"], [0, 1], tmp_path, **kw)
    assert len(rows) == 6
    saved = db.read_rows(db.results_path(tmp_path, "binary"))
    assert [r["method"] for r in saved[:3]] == ["RBF FS-LSSVM", "Maj. rule", "RBF C-SVC"]
    assert saved[0]["m"] == 12 and saved[0]["seed"] == 0
    assert db.run_table("8", ["toy"], [0, 1], tmp_path, **kw) == []  # everything done: skipped
    assert len(db.run_table("8", ["toy"], [0, 1, 2], tmp_path, **kw)) == 3
    # The paper's whole SVM budget is another job than a reduced one: only the baseline runs again, then is done.
    calls = []

    def fake_baseline(meth, name, seed, *, n_csa, n_simplex, folds, **_):
        calls.append((meth, seed, n_csa, n_simplex, folds))
        return dict(table="8", data=name, method=meth, seed=seed, m=0, score=50.0, cpu=1.0, wall=1.0,
                    budget=f"{n_csa}+{n_simplex}, {folds}-fold")

    monkeypatch.setattr(db, "baseline_run", fake_baseline)
    full = dict(kw, svm_budget=(90, 70, 10))
    assert len(db.run_table("8", ["toy"], [0, 1], tmp_path, **full)) == 2
    assert calls == [("RBF C-SVC", 0, 90, 70, 10), ("RBF C-SVC", 1, 90, 70, 10)]
    assert db.run_table("8", ["toy"], [0, 1], tmp_path, **full) == []
    assert db.run_table("8", ["toy"], [0, 1], tmp_path, **kw) == []  # the reduced-budget rows still count


# ------------------------------------------------------------------------------------------- covertype stand-in
def test_synthetic_covertype_shape_dtype_balance_determinism(tmp_path):
    X, y = db.synthetic_covertype(5000, 3, directory=tmp_path / "a", block=1000)
    assert isinstance(X, np.memmap) and X.shape == (5000, 54) and X.dtype == np.float32
    assert y.shape == (5000,) and set(np.unique(y)) == {0, 1}
    assert 0.4 < y.mean() < 0.6
    np.testing.assert_array_equal(X[:, 10:14].sum(1), 1.0)  # one wilderness area
    np.testing.assert_array_equal(X[:, 14:].sum(1), 1.0)  # one soil type
    assert np.all(np.isin(X[:, 10:], (0.0, 1.0)))
    X2, y2 = db.synthetic_covertype(5000, 3, directory=tmp_path / "b", block=1000)
    np.testing.assert_array_equal(np.asarray(X), np.asarray(X2))
    np.testing.assert_array_equal(y, y2)
    _, y3 = db.synthetic_covertype(5000, 4, directory=tmp_path / "c", block=1000)
    assert not np.array_equal(y, y3)
    with pytest.raises(ValueError, match="n and block"):
        db.synthetic_covertype(0, 3, directory=tmp_path / "d")


def test_synthetic_covertype_is_learnable(tmp_path):
    """The rule is nonlinear: an RBF model beats a linear one and the majority rule on a small sample."""
    from sklearn.linear_model import LogisticRegression
    from sklearn.svm import SVC

    X, y = db.synthetic_covertype(4000, 0, directory=tmp_path)
    Xa = np.asarray(X, dtype=np.float64)
    Xa[:, :10] /= Xa[:, :10].std(0)
    rbf = SVC(C=3.0, gamma=0.05).fit(Xa[:3000], y[:3000]).score(Xa[3000:], y[3000:])
    lin = LogisticRegression(max_iter=500).fit(Xa[:3000], y[:3000]).score(Xa[3000:], y[3000:])
    assert rbf > lin + 0.03 and rbf > 0.75


# ------------------------------------------------------------------------------------------- report
def _fake(table, data, method, seed, score, cpu, **kw):
    r = dict(table=table, data=data, method=method, seed=seed, m=kw.pop("m", 0), n_train=100, n_test=50, score=score,
             l1=math.nan, linf=math.nan, n_sv=kw.pop("n_sv", math.nan), wall=cpu, cpu=cpu, tune_cpu=math.nan,
             fit_cpu=math.nan, cpu_full_est=kw.pop("est", math.nan), budget=kw.pop("budget", "90+70"), params="",
             phases="", peak_rss_mb=100.0, note="")
    r.update(kw)
    return r


def fake_results():
    t1 = [_fake("1", "boston_housing", meth, s, 0.12 + 0.01 * s + (0.02 if meth == "random" else 0), 2.0, m=200)
          for s in range(3) for meth in ("entropy", "random")]
    binary = [_fake("8", "pima", "RBF FS-LSSVM", s, 76.0 + s, 2.0, m=150, n_sv=150) for s in range(2)]
    binary += [_fake("8", "pima", "RBF C-SVC", 0, 75.0, 3.0, est=60.0, n_sv=290, budget="20+10, 5-fold"),
               _fake("8", "pima", "Maj. rule", 0, 65.0, 0.0),
               _fake("8", "pima", "RBF C-SVC", 1, 76.5, 30.0, est=400.0, n_sv=280,
                     budget="90+70, 10-fold, stopped at the 30 CPU-s cap after 12 evaluations"),
               _fake("8", "pima", "RBF nu-SVC", 0, 75.5, 24.0, n_sv=300, budget="90+70, 10-fold"),  # ran to the end
               _fake("8", "pima", "RBF FS-LSSVM", 0, 74.0, 0.5, m=50, n_sv=50),  # not the paper's m: own row
               _fake("12", "concrete", "RBF FS-LSSVM", 0, 0.15, 1.0, m=120, n_sv=120, l1=0.3, linf=1.5),
               _fake("12", "concrete", "eps-SVR", 0, 0.13, 2.0, n_sv=480, l1=0.25, linf=1.4, est=40.0),
               _fake("12", "concrete", "eps-SVR", 0, 0.14, 20.0, n_sv=470, l1=0.26, linf=1.3,
                     budget="90+70, 10-fold")]
    mc = [_fake("10", "optdigits", "RBF FS-LSSVM (1vs1)", 0, 98.0, 300.0, m=420, n_sv=420)]
    ftc = [_fake("ftc", "ftc", "RBF FS-LSSVM", 0, 88.0, 500.0, m=500, n_sv=500, phases="standardize=1.0"),
           _fake("ftc", "synthetic 1e6", "RBF FS-LSSVM", 0, 88.5, 200.0, m=500, n_sv=500)]
    timing = [dict(data="concrete", m=50.0, v=10.0, simple=0.085, fast=0.0067, speedup=12.7, agree="True")]
    return dict(table1=t1, binary=binary, multiclass=mc, ftc=ftc, cvtiming=timing)


def test_build_report_from_fake_results():
    text = db.build_report(fake_results(), figures_section="## Figures\n\nfig text", notes="## Discussion\n\nok")
    for heading in ("## Table 1", "## Tables 3–4", "## Table 8", "## Table 9", "## Table 10", "## Table 11",
                    "## Table 12", "## Table 13", "## Covertype stand-in", "## Discussion", "## Figures"):
        assert heading in text, heading
    assert "| entropy | 3 | 0.1300 (0.0100) | 0.1293 (0.0246) |" in text
    assert "Paired over the 3 common splits: random − entropy MSE = 0.0200" in text
    assert "| pid | RBF FS-LSSVM | 2 | 76.50 (0.71) | 76.7 (3.43) | 150 | 150 |" in text
    assert "| pid | RBF C-SVC | 1 | 75.00 | 75.1 (3.31) | 290 | 290 | 20+10, 5-fold |" in text
    assert "| pid | RBF FS-LSSVM [m = 50] | 1 | 74.00 | 76.7 (3.43) | 50 | 150 |" in text
    i = text.index("| pid | RBF FS-LSSVM | 2 |")
    assert i < text.index("| pid | RBF FS-LSSVM [m = 50]") < text.index("| pid | Lin FS-LSSVM")
    # time ratios: FS-LSSVM CPU 2.0 s vs the paper's 30.1 s x 4 cores, and vs our full-budget C-SVC's estimate
    assert "| ccs | RBF FS-LSSVM | 1 | 0.150 / 0.300 / 1.50 |" in text
    assert "| opt | RBF FS-LSSVM (1vs1) | 1 | 98.00 | 98.14 (0.1) | 420 | 420 |" in text
    assert "| adu | RBF C-SVC | 0 | not run |" in text
    assert "| ftc (synthetic) | RBF FS-LSSVM | 1 | 88.00 | 81.8 (0.52) |" in text  # the stand-in in Table 8
    assert text.index("## Discussion") < text.index("## Figures")
    # the full-budget SVC (stopped at a cap) is its own row and gets the lower-bound section; FS seed 1: 2.0 s, 77 %
    assert "| pid | RBF C-SVC [90+70 × 10-fold] | 1 | 76.50 | 75.1 (3.31) | 280 | 290 |" in text
    assert "| pid | RBF C-SVC | 1 | 12 of 160 (cap) | 30.0 | 400 | 76.50 | 2.0 | 77.00 | ≥ 15.0x | +0.50 |" in text
    assert "| pid | RBF nu-SVC | 0 | 160 | 24.0 | 24.0 | 75.50 | 2.0 | 76.00 | 12.0x | +0.50 |" in text  # exact
    # regression: the score is the test MSE, printed to 4 places (FS − SVM negative favours FS-LSSVM)
    assert "| ccs | eps-SVR | 0 | 160 | 20.0 | 20.0 | 0.1400 | 1.0 | 0.1500 | 20.0x | +0.0100 |" in text
    assert "| pid | RBF FS-LSSVM | 2 | 2.0 (0.0) | – | 30.1 (1.9) | 120 | 1/60 | 1/200 | 1.21 |" in text


def test_report_roundtrip_through_csv_and_cli(tmp_path):
    res = fake_results()
    for group in ("table1", "binary", "multiclass", "ftc"):
        db.append_rows(db.results_path(tmp_path, group), res[group])
    (tmp_path / "de_brabanter_cvtiming.csv").write_text("data,m,v,simple,fast,speedup,agree\n"
                                                       "concrete,50,10,0.085,0.0067,12.7,True\n")
    (tmp_path / "de_brabanter.md").write_text("# old\n\n## Figures\n\nkept figure text\n")
    (tmp_path / "de_brabanter_notes.md").write_text("## Discussion\n\nnotes here\n")
    back = db.load_results(tmp_path)
    assert len(back["table1"]) == 6 and back["binary"][0]["score"] == 76.0 and math.isnan(back["binary"][0]["l1"])
    assert db.main(["--from-results", str(tmp_path), "--out", str(tmp_path)]) == 0
    text = (tmp_path / "de_brabanter.md").read_text()
    assert "kept figure text" in text and "notes here" in text and "# old" not in text
    assert text == db.build_report(back, figures_section="## Figures\n\nkept figure text\n",
                                   notes="## Discussion\n\nnotes here\n")


def test_ftc_run_small(tmp_path):
    """The covertype protocol end to end at a toy size: tuned on a subsample, final fit streamed from the memmap."""
    rows = db.ftc_run(0, n_train=3000, n_test=1000, m=20, tune_rows=800, svc_rows=600, n_csa=2, n_simplex=1,
                      directory=tmp_path, svm_budget=(2, 1, 3))
    by = {r["method"]: r for r in rows}
    assert set(by) == {"Maj. rule", "RBF FS-LSSVM", "Lin FS-LSSVM", "RBF C-SVC", "Lin C-SVC (liblinear)"}
    fs = by["RBF FS-LSSVM"]
    assert fs["m"] == 20 and fs["n_train"] == 3000 and "streamed over 3000" in fs["budget"]
    assert "tuning_and_fit=" in fs["phases"] and fs["peak_rss_mb"] > 0 and fs["score"] > by["Maj. rule"]["score"]
    assert by["RBF C-SVC"]["budget"].endswith("fit on 600 of 3000 rows *") and by["RBF C-SVC"]["n_test"] == 1000
    fixed = db.ftc_run(0, n_train=3000, n_test=1000, m=20, directory=tmp_path, hyper=(10.0, 54.0), data="synthetic",
                       with_baselines=False)
    assert [r["method"] for r in fixed] == ["Maj. rule", "RBF FS-LSSVM"] and "fixed" in fixed[1]["budget"]


def test_ftc_run_tuned_on_all_rows_streams_and_reuses_the_tuned_fit(tmp_path):
    """tune_rows >= n_train (the paper's protocol): tuned on every training row straight from the memmap, and the
    tuned model is the final fit (no second fit); labelled apart from the subsample-tuned row, whose paper entries
    it shares."""
    rows = db.ftc_run(0, n_train=2000, n_test=500, m=20, tune_rows=2000, n_csa=2, n_simplex=1, directory=tmp_path,
                      with_baselines=False)
    assert [r["method"] for r in rows] == ["Maj. rule", "RBF FS-LSSVM [tuned on all rows]"]
    fs = rows[1]
    assert fs["budget"] == "2+1 on all 2000 rows (streamed), the tuned fit" and fs["fit_cpu"] < 0.5 * fs["tune_cpu"]
    assert fs["score"] > rows[0]["score"] and db._base(fs["method"]) == "RBF FS-LSSVM"


# ------------------------------------------------------------------------------- Tables 3-4, flops, throughput
def test_paper_flop_ratio_matches_the_papers_count():
    """Section 7.1: at n = 1030, m = 400, v = 10, simple 3.8 GFLOP against proposed 0.61 GFLOP, i.e. 6.3x; for
    n >> m the ratio tends to v - 1."""
    assert db.paper_flop_ratio(1030, 400, 10) == pytest.approx(6.29, abs=0.01)
    assert db.paper_flop_ratio(10**9, 50, 10) == pytest.approx(9.0, rel=1e-6)


def test_cv_flops_counts():
    f = db.cv_flops(n=100, m=10, m_eff=8, d=3, v=5, k=1)
    p = 9
    assert f["features"] == 2 * 100 * 10 * 8 and f["gram"] == 100 * p * (p + 1) and f["kernel"] == 3 * 100 * 10 * 3
    assert f["solves"] == pytest.approx(5 * (p**3 / 3 + 2 * p * p)) and f["predict"] == 2 * 100 * p
    assert f["eig"] == pytest.approx(4 / 3 * 1000 + 2 * 100 * 8)
    assert f["total"] == pytest.approx(sum(v for k, v in f.items() if k != "total"))


def test_dgemm_gflops_is_positive_and_finite():
    g = db.dgemm_gflops(size=200, reps=1)
    assert math.isfinite(g) and g > 0


def test_timing_and_throughput_sections():
    rows = [dict(data="concrete", m=400.0, v=10.0, simple=0.5, fast=0.05, speedup=10.0, agree="True"),
            dict(data="magic", m=50.0, v=50.0, simple=7.0, fast=0.15, speedup=46.7, agree="True")]
    text = "\n".join(db.timing_section(rows))
    assert "| concrete | 400 | 10 | 0.500 | 0.0500 | 10.0x | 7.27 / 0.45 | 16.2x | 6.3x | holdout | True |" in text
    assert "| magic | 50 | 50 | 7.000 | 0.1500 | 46.7x | 7.6 / 0.19 | 40.0x | 48.0x | v Cholesky | True |" in text
    assert "reaches the paper's in 1 of 2 cells" in text
    thr = [dict(data="magic", n=13000.0, d=10.0, m=1000.0, m_eff=990.0, v=10.0, holdout="False", cpu=2.0, gflop=40.0,
                gflops=20.0, dgemm_1core=32.0, gflop_kernel=0.4, gflop_features=25.7, gflop_gram=12.8,
                gflop_eig=3.3, gflop_solves=3.3, gflop_predict=0.03)]
    text = "\n".join(db.throughput_section(thr))
    assert "| mgt | 13,000 | 1000 (990) | 40.0 (25.7 / 12.8 / 3.3 / 3.3) | 2.00 | 20.0 | 32.0 | 62% | 6,400 |" in text
    assert db.timing_section([]) == [] and db.throughput_section([]) == []


@pytest.mark.skipif(not os.environ.get("SVMOPT_DATA"), reason="SVMOPT_DATA is not set: concrete is not bundled")
def test_tables_3_and_flops_cli_write_their_csvs(tmp_path):
    """``--tables 3`` replaces the timing rows of the (data set, m) it measures (others kept, the paper's cells in
    the paper's order first); ``--tables flops`` writes the throughput."""
    (tmp_path / "de_brabanter_cvtiming.csv").write_text("data,m,v,simple,fast,speedup,agree\n"
                                                       "magic,50,10,1.5,0.16,9.4,True\n"
                                                       "concrete,999,10,1.0,1.0,1.0,True\n")
    assert db.main(["--tables", "3", "--timing", "concrete", "--timing-m", "20", "--timing-reps", "1",
                    "--timing-min-seconds", "0", "--out", str(tmp_path)]) == 0
    rows = db._read_csv(tmp_path / "de_brabanter_cvtiming.csv")
    assert [(r["data"], int(r["m"]), int(r["v"])) for r in rows] == \
        [("magic", 50, 10)] + [("concrete", 20, v) for v in db.PAPER_FOLDS] + [("concrete", 999, 10)]
    assert all(r["agree"] == "True" for r in rows if int(r["m"]) == 20)
    assert db.main(["--tables", "flops", "--datasets", "pima", "--m", "20", "--out", str(tmp_path)]) == 0
    (thr,) = db._read_csv(tmp_path / "de_brabanter_throughput.csv")
    assert thr["data"] == "pima" and thr["m"] == 20 and thr["gflops"] > 0 and thr["n"] == 512
    text = (tmp_path / "de_brabanter.md").read_text()
    assert "## Flops per CV evaluation" in text and "| concrete | 20 | 50 |" in text
