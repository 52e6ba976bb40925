"""The svmopt command: main job on the bundled default and clear errors for bad input."""

from __future__ import annotations

import io
import subprocess
import sys

import numpy as np
import pytest

from svmopt.cli import CLIError, gram_timings, load_table, main


def test_run_default_prints_every_kernel(capsys):
    assert main(["run", "--size", "600", "--repeat", "1"]) == 0
    out = capsys.readouterr().out
    assert "wdbc" in out and "569 samples x 30 features" in out
    models, gram = out.split("Gram matrix", 1)
    assert "sklearn SVC" in models and "test accuracy" in models
    for name in ("linear", "poly d=2", "inhom_poly d=3", "rbf", "sigmoid"):
        assert gram.count(name) == 2  # once per Gram table
    assert "m=600" in gram


def test_model_table_scores_every_available_model():
    import svmopt
    from svmopt.cli import model_table
    from svmopt.datasets import load_dataset

    X, y = load_dataset("iris")
    keep = y != y[0]  # a binary problem keeps this fast
    rows = model_table(X[keep], y[keep], seed=0)
    assert rows[0]["model"].startswith("sklearn SVC")
    if hasattr(svmopt, "RobustSVC"):
        assert any(r["model"].startswith("RobustSVC") for r in rows)
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
    assert main(["run", "--data", str(path), "--size", "0", "--repeat", "1", "--no-gram"]) == 0
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
        [sys.executable, "-m", "svmopt", "run", "--size", "0", "--repeat", "1", "--data", "iris"],
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
