"""The svmopt command: main job on the bundled default, model selection, clear errors for bad input."""

from __future__ import annotations

import io
import subprocess
import sys

import numpy as np
import pytest

from svmopt import cli
from svmopt.cli import CLIError, gram_timings, load_table, main


def test_run_default_prints_every_kernel(capsys):
    assert main(["run", "--size", "600", "--repeat", "1"]) == 0
    out = capsys.readouterr().out
    assert "wdbc" in out and "569 samples x 30 features" in out
    models, gram = out.split("Gram matrices", 1)
    assert "sklearn SVC" in models and "test accuracy" in models
    assert "failed" not in models and "skipped" not in models
    for _, label, _ in cli.model_zoo(0, n_samples=426, n_features=30):
        assert label in models  # every model of this version, RampLossSVC included once it exists
    for name in ("linear", "poly d=2", "inhom_poly d=3", "rbf", "sigmoid"):
        assert gram.count(name) == 2  # once per Gram table
    assert "resampled to 600 rows" in gram
    assert "speed-up: sklearn's time / svmopt's" in gram and "max rel diff: max |K_svmopt - K_sklearn|" in gram
    from svmopt import _core

    assert f"{_core.isa} variant" in out  # the instruction-set variant that loaded
    assert "np.float64" not in out and "Warning" not in models.split("Notes")[0]  # warnings only below the table


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
        ("a,b,label\n", [], "has a header but no data rows"),
        ("a,b,label\n1,inf,0\n2,3,1\n3,4,0\n", [], "hold an infinite value (column(s) b)"),
        ("a,b,label\n1,-inf,0\n2,3,1\n3,4,0\n", [], "infinite value"),
        ("a,b,label\n1,2,\n2,3,1\n3,4,0\n", [], "have no label in column 'label'"),
        ("a,b,label\n1,2,0\n2,3,1\n", ["--target", "zz"], "columns: a, b, label"),
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
    assert err.count("\n") == 1 and "Traceback" not in err  # one line, before any fit
    assert capsys.readouterr().out == ""


@pytest.mark.parametrize("sep", [";", "\t", "|"])
def test_csv_delimiter_is_detected(tmp_path, sep):
    rng = np.random.default_rng(2)
    data = np.column_stack([rng.normal(size=(12, 2)), np.tile([0, 1], 6)])
    path = tmp_path / "d.csv"
    lines = [sep.join(["a", "b", "label"])] + [sep.join(repr(float(v)) for v in row) for row in data]
    path.write_text("\n".join(lines) + "\n")
    X, y, _ = load_table(str(path), None)
    np.testing.assert_array_equal(X, data[:, :2])  # every digit as written (round trip)
    np.testing.assert_array_equal(y, data[:, 2])


def test_csv_reading_raises_no_pandas_warning(tmp_path):
    import warnings

    path = tmp_path / "d.csv"
    path.write_text("a,b,label\n0.1,0.2,0\n0.3,0.4,1\n")
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        load_table(str(path), None)


def test_unbundled_set_without_data_folder_is_one_line(monkeypatch, capsys):
    from svmopt.datasets import ENV_VAR

    monkeypatch.delenv(ENV_VAR, raising=False)
    assert main(["run", "--data", "adult", "--no-gram"]) == 2
    err = capsys.readouterr().err
    assert err.startswith("svmopt: error: --data adult:") and err.count("\n") == 1
    assert f"Set the {ENV_VAR} environment variable" in err and "data_home" not in err


def test_unknown_name_lists_what_this_install_can_load(monkeypatch, tmp_path):
    from svmopt.datasets import ENV_VAR, list_datasets

    monkeypatch.setenv(ENV_VAR, str(tmp_path))  # an empty data folder: only the bundled sets load
    (tmp_path / "sonar").mkdir()  # a folder without the set's file does not count
    assert list_datasets(loadable=True) == list_datasets(bundled=True)
    with pytest.raises(CLIError) as exc:
        load_table("no_such_set", None)
    text = str(exc.value)
    assert "neither a data set name nor a CSV file" in text
    for name in list_datasets(bundled=True):
        assert name in text
    assert "magic" not in text and "covertype" not in text and "mfeat" not in text
    n_more = len(list_datasets(loadable=False))
    assert f"{n_more} more of the papers' sets load once {ENV_VAR}" in text
    (tmp_path / "magic").mkdir()
    (tmp_path / "magic" / "magic04.data").write_text("")
    assert "magic" in list_datasets(loadable=True) and "magic" not in list_datasets(loadable=False)


def test_info_lists_loadable_sets(monkeypatch, capsys):
    from svmopt.datasets import ENV_VAR, list_datasets

    monkeypatch.delenv(ENV_VAR, raising=False)
    assert main(["info"]) == 0
    out = capsys.readouterr().out
    assert out.startswith("svmopt ") and "variant" in out and f"{ENV_VAR}: not set" in out
    loadable, rest = out.split("not found", 1)
    for name in list_datasets(bundled=True):
        assert f"  {name} " in loadable
    for name in ("adult", "covertype", "mfeat"):
        assert name in rest and f"  {name} " not in loadable


def test_unknown_dataset_name():
    with pytest.raises(CLIError, match="neither a data set name"):
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
    from svmopt.cli import print_table

    buf = io.StringIO()
    print_table([{"k": "a", "v": 1.0}, {"k": "bbb", "v": 22.5}], [("k", "K", "{}"), ("v", "V", "{:.1f}")], buf)
    assert buf.getvalue().splitlines()[-1] == "bbb  22.5"
    lines = buf.getvalue().splitlines()
    assert len({len(line) for line in lines}) == 1  # right-aligned last column: one width
    assert all(line == line.rstrip() for line in lines)
    buf = io.StringIO()
    print_table([{"k": "a", "v": "x"}, {"k": "bbb", "v": "yyyy"}], [("k", "K", "{}"), ("v", "V", "{}")], buf)
    assert buf.getvalue().splitlines()[2] == "a    x"  # a left-aligned last column has no trailing blanks


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


def test_reproduce_is_not_part_of_the_installed_command(capsys):
    """The protocols live in the repository's reproductions/ package, not in the wheel."""
    with pytest.raises(SystemExit) as exc:
        main(["reproduce", "robust"])
    assert exc.value.code == 2
    assert "invalid choice: 'reproduce'" in capsys.readouterr().err


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
        ("D", "d", _WarningModel(ConvergenceWarning("D: max_time=10 s reached after 10 s; cut short: DAKS"))),
    ])
    rows = cli.model_table(X, y, seed=0, progress=False)  # nothing is warned mid-table: each row keeps its notes
    assert [r["size"] for r in rows] == [
        "2 selected features (time limit)", "2 selected features (not converged)", "2 selected features",
        "2 selected features (time limit)",
    ]
    assert rows[2]["notes"] == ["UserWarning: C: something else"]
    out = io.StringIO()
    cli.print_notes(rows, out)
    assert "  c: UserWarning: C: something else" in out.getvalue()
    assert "  a: ConvergenceWarning: A: time_limit reached" in out.getvalue()


def test_a_failed_fit_keeps_its_whole_message(monkeypatch):
    class Failing(_WarningModel):
        def fit(self, X, y):
            raise ValueError("x" * 200)

    X = np.random.default_rng(0).normal(size=(40, 3))
    y = np.repeat([0, 1], 20)
    monkeypatch.setattr(cli, "model_zoo", lambda *a, **k: [("F", "f", Failing(None))])
    rows = cli.model_table(X, y, seed=0, progress=False)
    assert rows[0]["size"] == "failed (see below)"
    assert rows[0]["notes"] == ["failed: ValueError: " + "x" * 200]


def test_help_lists_every_sub_command(capsys):
    with pytest.raises(SystemExit):
        main(["--help"])
    out = capsys.readouterr().out
    assert "run" in out and "info" in out


def test_robust_row_is_not_a_constant_prediction():
    """The main job's robust row keeps support vectors on the bundled sets (rho=0.1 gave u = 0 on most)."""
    import warnings

    from svmopt.datasets import load_dataset

    est = dict((name, e) for name, _, e in cli.model_zoo(0))["RobustSVC-robust"]
    for name in ("wdbc", "sonar", "ionosphere", "pima"):
        X, y = load_dataset(name)
        with warnings.catch_warnings():
            warnings.simplefilter("error", UserWarning)  # the degenerate-fit warning
            est.fit(X, y)
        assert est[-1].support_.size > 0, name
        assert len(np.unique(est.predict(X))) == 2, name


def test_model_size_units():
    from types import SimpleNamespace

    from svmopt.cli import model_size

    assert model_size(SimpleNamespace(support_=[1, 2, 3])) == "3 support vectors"
    assert model_size(SimpleNamespace(prototypes_=np.zeros((5, 2)))) == "5 prototypes"
    assert model_size(SimpleNamespace(coef_=np.zeros((3, 4)))) == "3 hyperplanes"
    assert model_size(SimpleNamespace(coef_=np.zeros(4))) == "1 hyperplane"
    assert model_size(SimpleNamespace()) == "-"
