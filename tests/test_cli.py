"""The svmopt command: main job on the bundled default, model selection, reproduce, clear errors for bad input."""

from __future__ import annotations

import io
import subprocess
import sys
import types
from pathlib import Path

import numpy as np
import pytest

from svmopt import cli
from svmopt.cli import CLIError, gram_timings, load_table, main


def test_run_default_prints_every_kernel(capsys):
    assert main(["run", "--size", "600", "--repeat", "1"]) == 0
    out = capsys.readouterr().out
    assert "wdbc" in out and "569 samples x 30 features" in out
    models, gram = out.split("Gram matrix", 1)
    assert "sklearn SVC" in models and "test accuracy" in models
    assert "failed" not in models and "skipped" not in models
    for _, label, _ in cli.model_zoo(0, n_samples=426, n_features=30):
        assert label in models  # every model of this version, RampLossSVC included once it exists
    for name in ("linear", "poly d=2", "inhom_poly d=3", "rbf", "sigmoid"):
        assert gram.count(name) == 2  # once per Gram table
    assert "m=600" in gram


def test_model_table_scores_every_available_model():
    import svmopt
    from svmopt.cli import model_table
    from svmopt.datasets import load_dataset

    X, y = load_dataset("iris")
    keep = y != y[0]  # a binary problem keeps this fast
    rows = model_table(X[keep], y[keep], seed=0, progress=False)
    assert rows[0]["model"].startswith("sklearn SVC") and rows[0]["name"] == "SVC"
    assert [r["name"] for r in rows] == cli.model_names()
    for name in ("RobustSVC", "RampLossSVC", "FixedSizeLSSVC", "EllipsoidPSOClassifier"):
        assert (name in cli.model_names()) == hasattr(svmopt, name)
    for r in rows:
        assert not r["size"].startswith("failed"), r
        assert 0.5 <= r["accuracy"] <= 1.0, r


def test_gram_timings_agree_with_sklearn():
    X = np.random.default_rng(0).normal(size=(50, 4))
    rows = gram_timings(X, repeat=1)
    assert [r["kernel"] for r in rows] == ["linear", "poly d=2", "inhom_poly d=3", "rbf", "sigmoid"]
    for r in rows:
        assert r["max_rel_diff"] < 1e-12
        assert r["svmopt_s"] > 0 and r["sklearn_s"] > 0


def test_csv_input(tmp_path, capsys):
    path = tmp_path / "d.csv"
    rng = np.random.default_rng(1)
    data = np.column_stack([rng.normal(size=(30, 3)), rng.integers(0, 2, 30)])
    np.savetxt(path, data, delimiter=",", header="a,b,c,label", comments="")
    X, y, _ = load_table(str(path), None)
    assert X.shape == (30, 3) and y.shape == (30,)
    X, y, _ = load_table(str(path), "a")
    assert X.shape == (30, 3)
    np.testing.assert_array_equal(y, data[:, 0])
    assert main(["run", "--data", str(path), "--size", "0", "--repeat", "1", "--no-gram", "--model", "SVC"]) == 0
    assert "30 samples x 3 features" in capsys.readouterr().out


@pytest.mark.parametrize(
    ("content", "args", "match"),
    [
        (None, [], "no such file"),
        ("a,b,label\n1,x,0\n2,y,1\n", [], "non-numeric feature column"),
        ("a,b,label\n1,,0\n2,3,1\n", [], "missing values"),
        ("a,b,label\n1,2,0\n2,3,1\n", ["--target", "zz"], "--target 'zz' is not a column"),
        ("label\n0\n1\n", [], "at least one feature"),
    ],
)
def test_bad_csv_is_a_clear_error(tmp_path, capsys, content, args, match):
    path = tmp_path / "bad.csv"
    if content is not None:
        path.write_text(content)
    assert main(["run", "--data", str(path), *args]) == 2
    err = capsys.readouterr().err
    assert err.startswith("svmopt: error:")
    assert match in err


def test_unknown_dataset_name():
    with pytest.raises(CLIError, match="neither a known data set"):
        load_table("no_such_set", None)


def test_bad_options_exit_with_usage():
    with pytest.raises(SystemExit) as exc:
        main(["run", "--jobs", "0"])
    assert exc.value.code == 2
    with pytest.raises(SystemExit):
        main([])


def test_python_dash_m_entry_point():
    res = subprocess.run(
        [sys.executable, "-m", "svmopt", "run", "--size", "0", "--repeat", "1", "--data", "iris", "--model", "SVC"],
        capture_output=True, text=True, timeout=120, check=False,
    )
    assert res.returncode == 0, res.stderr
    assert "rbf" in res.stdout


def test_table_printer_alignment():
    from svmopt.cli import _print_table

    buf = io.StringIO()
    _print_table([{"k": "a", "v": 1.0}, {"k": "bbb", "v": 22.5}], [("k", "K", "{}"), ("v", "V", "{:.1f}")], buf)
    assert buf.getvalue().splitlines()[-1] == "bbb  22.5"
    lines = buf.getvalue().splitlines()
    assert len({len(line) for line in lines}) == 1


# --- svmopt run --model ---------------------------------------------------------------------------------------


def test_model_selection_trains_only_the_named_models(capsys):
    assert main(["run", "--data", "iris", "--model", "svc", "--model", "EllipsoidPSOClassifier", "--no-gram"]) == 0
    captured = capsys.readouterr()
    models = captured.out.split("Models", 1)[1]
    assert "sklearn SVC" in models and "EllipsoidPSOClassifier" in models
    assert "RobustSVC" not in models and "FixedSizeLSSVC" not in models
    assert "fitting" in captured.err  # the progress bar over models


def test_select_models_is_case_insensitive_and_dedups():
    assert cli.select_models(None) is None
    assert cli.select_models(["svc", "SVC", "robustsvc"]) == ["SVC", "RobustSVC"]


def test_unknown_model_is_a_clear_error(capsys):
    assert main(["run", "--model", "NoSuchSVC", "--no-gram"]) == 2
    err = capsys.readouterr().err
    assert err.startswith("svmopt: error: --model: unknown model(s) 'NoSuchSVC'")
    for name in cli.model_names():
        assert name in err


def test_binary_only_model_on_multiclass_data(capsys):
    import svmopt

    if not hasattr(svmopt, "RampLossSVC"):
        pytest.skip("svmopt.RampLossSVC is not in this version")
    assert main(["run", "--data", "iris", "--model", "RampLossSVC", "--no-gram"]) == 2
    assert "binary classifiers only" in capsys.readouterr().err
    from svmopt.datasets import load_dataset

    X, y = load_dataset("iris")
    rows = cli.model_table(X, y, seed=0, models=["RampLossSVC"], progress=False)
    assert rows[0]["size"].startswith("skipped: binary only")


def test_run_passes_unknown_options_to_nobody():
    with pytest.raises(SystemExit) as exc:
        main(["run", "--no-gram", "--frobnicate"])
    assert exc.value.code == 2


# --- svmopt reproduce ---------------------------------------------------------------------------------------


@pytest.fixture
def fake_experiments(monkeypatch):
    """Replace the four experiment modules by fakes that record their argv and write a report."""
    calls: dict[str, list[str]] = {}
    behaviour: dict[str, object] = {}

    def make(module):
        def fake_main(argv):
            calls[module] = list(argv)
            what = behaviour.get(module)
            if isinstance(what, BaseException):
                raise what
            if what == "no-report":
                return 0
            out = argv[argv.index("--out") + 1]
            (Path(out) / f"{module}.md").write_text(f"# {module}\n")
            return what if isinstance(what, int) else 0

        return types.SimpleNamespace(main=fake_main)

    for module, _ in cli.REPRODUCTIONS.values():
        monkeypatch.setitem(sys.modules, f"svmopt.experiments.{module}", make(module))
    return calls, behaviour


def test_reproduce_dispatches_with_the_shared_flags(fake_experiments, tmp_path, capsys):
    calls, _ = fake_experiments
    out = tmp_path / "reports"
    assert main(["reproduce", "kumar-ramakrishnan", "--quick", "--out", str(out), "--jobs", "2", "--seed", "7"]) == 0
    assert calls == {"kumar_ramakrishnan": ["--quick", "--out", str(out), "--jobs", "2", "--seed", "7"]}
    assert (out / "kumar_ramakrishnan.md").is_file()
    text = capsys.readouterr().out
    assert "kumar-ramakrishnan" in text and "ok" in text and str(out / "kumar_ramakrishnan.md") in text


def test_reproduce_passes_module_options_through(fake_experiments, tmp_path):
    calls, _ = fake_experiments
    assert main(["reproduce", "de-brabanter", "--out", str(tmp_path), "--datasets", "pima", "--no-svm"]) == 0
    assert calls["de_brabanter"] == ["--out", str(tmp_path), "--datasets", "pima", "--no-svm"]
    assert main(["reproduce", "all", "--out", str(tmp_path), "--datasets", "pima"]) == 2  # not for all four


def test_reproduce_all_cores_and_stale_reports(fake_experiments, tmp_path, capsys):
    import os

    calls, behaviour = fake_experiments
    assert main(["reproduce", "maggioni-spinelli", "--out", str(tmp_path), "--jobs", "-1"]) == 0
    assert calls["maggioni_spinelli"] == ["--out", str(tmp_path), "--jobs", "-1"]
    old = tmp_path / "maggioni_spinelli.md"  # a report left by an earlier run is not this run's report
    os.utime(old, (old.stat().st_atime - 3600, old.stat().st_mtime - 3600))
    behaviour["maggioni_spinelli"] = "no-report"
    assert main(["reproduce", "maggioni-spinelli", "--out", str(tmp_path)]) == 1
    assert "wrote no report" in capsys.readouterr().err


def test_reproduce_all_runs_every_paper_in_order(fake_experiments, tmp_path):
    calls, _ = fake_experiments
    assert main(["reproduce", "all", "--quick", "--out", str(tmp_path)]) == 0
    assert list(calls) == [module for module, _ in cli.REPRODUCTIONS.values()]
    assert list(calls) == ["maggioni_spinelli", "baldomero_naranjo", "de_brabanter", "kumar_ramakrishnan"]
    for argv in calls.values():
        assert argv == ["--quick", "--out", str(tmp_path)]


def test_reproduce_all_goes_on_after_a_failure_and_names_it(fake_experiments, tmp_path, capsys):
    calls, behaviour = fake_experiments
    behaviour["maggioni_spinelli"] = FileNotFoundError("dataset 'arrhythmia' is not bundled; set SVMOPT_DATA")
    behaviour["de_brabanter"] = SystemExit(2)
    assert main(["reproduce", "all", "--out", str(tmp_path)]) == 1
    assert len(calls) == 4  # every protocol ran
    captured = capsys.readouterr()
    assert "reproduce maggioni-spinelli failed: missing data: dataset 'arrhythmia'" in captured.err
    assert "reproduce de-brabanter failed" in captured.err and "status 2" in captured.err
    assert "2 of 4 reproduction(s) failed: maggioni-spinelli, de-brabanter" in captured.err
    table = captured.out.split("Reproductions:", 1)[1]
    assert table.count("FAILED") == 2 and table.count(" ok ") == 2


@pytest.mark.parametrize(
    ("behaviour", "match"),
    [
        (RuntimeError("solver blew up"), "RuntimeError: solver blew up"),
        (ImportError("No module named 'matplotlib'"), "missing optional dependency"),
        (3, "exited with status 3"),
        ("no-report", "wrote no report"),
    ],
)
def test_reproduce_single_failure_is_a_clear_error(fake_experiments, tmp_path, capsys, behaviour, match):
    _, behaviours = fake_experiments
    behaviours["kumar_ramakrishnan"] = behaviour
    assert main(["reproduce", "kumar-ramakrishnan", "--out", str(tmp_path)]) == 1
    err = capsys.readouterr().err
    assert "svmopt: error: reproduce kumar-ramakrishnan failed" in err and match in err


def test_reproduce_missing_module_is_reported(monkeypatch, tmp_path, capsys):
    monkeypatch.setitem(sys.modules, "svmopt.experiments.baldomero_naranjo", None)  # import raises ImportError
    monkeypatch.setitem(cli.REPRODUCTIONS, "baldomero-naranjo", ("baldomero_naranjo", "paper 001"))
    assert cli.run_reproduction("baldomero-naranjo", ["--out", str(tmp_path)]) is not None
    monkeypatch.setitem(cli.REPRODUCTIONS, "baldomero-naranjo", ("no_such_module_xyz", "paper 001"))
    reason = cli.run_reproduction("baldomero-naranjo", ["--out", str(tmp_path)])
    assert reason == "svmopt.experiments.no_such_module_xyz is not part of this svmopt version"


def test_reproduce_bad_names_and_paths(tmp_path, capsys):
    with pytest.raises(SystemExit) as exc:
        main(["reproduce", "vapnik"])
    assert exc.value.code == 2
    assert "invalid choice: 'vapnik'" in capsys.readouterr().err
    with pytest.raises(SystemExit):
        main(["reproduce"])
    for jobs in ("0", "-2"):
        with pytest.raises(SystemExit):
            main(["reproduce", "all", "--jobs", jobs])
    afile = tmp_path / "f.md"
    afile.write_text("x")
    assert main(["reproduce", "kumar-ramakrishnan", "--out", str(afile)]) == 2
    assert "exists and is not a directory" in capsys.readouterr().err


def test_reproduce_kumar_ramakrishnan_for_real(tmp_path, capsys):
    """The real module end to end on its smallest settings (quick mode, one data set, one repetition)."""
    pytest.importorskip("matplotlib")
    argv = ["reproduce", "kumar-ramakrishnan", "--quick", "--out", str(tmp_path), "--seed", "0",
            "--datasets", "iris", "--reps", "1"]
    assert main(argv) == 0, capsys.readouterr().err
    report = tmp_path / "kumar_ramakrishnan.md"
    assert report.is_file()
    text = report.read_text()
    assert "iris" in text
    pngs = sorted(tmp_path.glob("*.png"))
    assert pngs, "the report's figures are written as PNG beside it"
    for png in pngs:
        assert png.stat().st_size > 1000 and f"]({png.name})" in text  # embedded in the Markdown


class _WarningModel:
    """A stand-in estimator whose fit emits a given warning."""

    def __init__(self, warning):
        self.warning = warning

    def fit(self, X, y):
        import warnings

        warnings.warn(self.warning, stacklevel=2)
        self.selected_features_ = np.array([0, 2])
        return self

    def score(self, X, y):
        return 1.0


def test_model_table_notes_time_limits_and_passes_other_warnings(monkeypatch):
    from sklearn.exceptions import ConvergenceWarning

    X = np.random.default_rng(0).normal(size=(40, 3))
    y = np.repeat([0, 1], 20)
    monkeypatch.setattr(cli, "model_zoo", lambda *a, **k: [
        ("A", "a", _WarningModel(ConvergenceWarning("A: time_limit reached; using the best solution found"))),
        ("B", "b", _WarningModel(ConvergenceWarning("B: did not converge"))),
        ("C", "c", _WarningModel(UserWarning("C: something else"))),
    ])
    with pytest.warns(UserWarning, match="C: something else"):
        rows = cli.model_table(X, y, seed=0, progress=False)
    assert [r["size"] for r in rows] == [
        "2 selected features (time limit)", "2 selected features (not converged)", "2 selected features"
    ]


def test_model_size_units():
    from types import SimpleNamespace

    from svmopt.cli import _model_size

    assert _model_size(SimpleNamespace(support_=[1, 2, 3])) == "3 support vectors"
    assert _model_size(SimpleNamespace(prototypes_=np.zeros((5, 2)))) == "5 prototypes"
    assert _model_size(SimpleNamespace(coef_=np.zeros((3, 4)))) == "3 hyperplanes"
    assert _model_size(SimpleNamespace(coef_=np.zeros(4))) == "1 hyperplane"
    assert _model_size(SimpleNamespace()) == "-"
