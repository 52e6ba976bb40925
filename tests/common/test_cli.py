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
    from svmopt.cli import print_table

    buf = io.StringIO()
    print_table([{"k": "a", "v": 1.0}, {"k": "bbb", "v": 22.5}], [("k", "K", "{}"), ("v", "V", "{:.1f}")], buf)
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
    with pytest.warns(UserWarning, match="C: something else"):
        rows = cli.model_table(X, y, seed=0, progress=False)
    assert [r["size"] for r in rows] == [
        "2 selected features (time limit)", "2 selected features (not converged)", "2 selected features",
        "2 selected features (time limit)",
    ]


def test_model_size_units():
    from types import SimpleNamespace

    from svmopt.cli import model_size

    assert model_size(SimpleNamespace(support_=[1, 2, 3])) == "3 support vectors"
    assert model_size(SimpleNamespace(prototypes_=np.zeros((5, 2)))) == "5 prototypes"
    assert model_size(SimpleNamespace(coef_=np.zeros((3, 4)))) == "3 hyperplanes"
    assert model_size(SimpleNamespace(coef_=np.zeros(4))) == "1 hyperplane"
    assert model_size(SimpleNamespace()) == "-"
