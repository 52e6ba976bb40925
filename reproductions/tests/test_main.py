"""python -m reproductions: dispatch to the protocols with the shared flags, failures named, ``all`` in order."""

from __future__ import annotations

import subprocess
import sys
import types
from pathlib import Path

import pytest

from reproductions import PROTOCOLS
from reproductions.__main__ import main, run_reproduction

ROOT = Path(__file__).resolve().parents[2]


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

    for module, _ in PROTOCOLS.values():
        monkeypatch.setitem(sys.modules, f"reproductions.{module}", make(module))
    return calls, behaviour


def test_reproduce_dispatches_with_the_shared_flags(fake_experiments, tmp_path, capsys):
    calls, _ = fake_experiments
    out = tmp_path / "reports"
    assert main(["ellipsoid", "--quick", "--out", str(out), "--jobs", "2", "--seed", "7"]) == 0
    assert calls == {"ellipsoid": ["--quick", "--out", str(out), "--jobs", "2", "--seed", "7"]}
    assert (out / "ellipsoid.md").is_file()
    text = capsys.readouterr().out
    assert "ellipsoid" in text and "ok" in text and str(out / "ellipsoid.md") in text


def test_reproduce_passes_module_options_through(fake_experiments, tmp_path):
    calls, _ = fake_experiments
    assert main(["fixed_size", "--out", str(tmp_path), "--datasets", "pima", "--no-svm"]) == 0
    assert calls["fixed_size"] == ["--out", str(tmp_path), "--datasets", "pima", "--no-svm"]
    assert main(["all", "--out", str(tmp_path), "--datasets", "pima"]) == 2  # not for all four


def test_reproduce_all_cores_and_stale_reports(fake_experiments, tmp_path, capsys):
    import os

    calls, behaviour = fake_experiments
    assert main(["robust", "--out", str(tmp_path), "--jobs", "-1"]) == 0
    assert calls["robust"] == ["--out", str(tmp_path), "--jobs", "-1"]
    old = tmp_path / "robust.md"  # a report left by an earlier run is not this run's report
    os.utime(old, (old.stat().st_atime - 3600, old.stat().st_mtime - 3600))
    behaviour["robust"] = "no-report"
    assert main(["robust", "--out", str(tmp_path)]) == 1
    assert "wrote no report" in capsys.readouterr().err


def test_reproduce_all_runs_every_paper_in_order(fake_experiments, tmp_path):
    calls, _ = fake_experiments
    assert main(["all", "--quick", "--out", str(tmp_path)]) == 0
    assert list(calls) == [module for module, _ in PROTOCOLS.values()]
    assert list(calls) == ["robust", "ramp", "fixed_size", "ellipsoid"]
    for argv in calls.values():
        assert argv == ["--quick", "--out", str(tmp_path)]


def test_reproduce_all_goes_on_after_a_failure_and_names_it(fake_experiments, tmp_path, capsys):
    calls, behaviour = fake_experiments
    behaviour["robust"] = FileNotFoundError("dataset 'arrhythmia' is not bundled; set SVMOPT_DATA")
    behaviour["fixed_size"] = SystemExit(2)
    assert main(["all", "--out", str(tmp_path)]) == 1
    assert len(calls) == 4  # every protocol ran
    captured = capsys.readouterr()
    assert "robust failed: missing data: dataset 'arrhythmia'" in captured.err
    assert "fixed_size failed" in captured.err and "status 2" in captured.err
    assert "2 of 4 protocol(s) failed: robust, fixed_size" in captured.err
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
    behaviours["ellipsoid"] = behaviour
    assert main(["ellipsoid", "--out", str(tmp_path)]) == 1
    err = capsys.readouterr().err
    assert "reproductions: error: ellipsoid failed" in err and match in err


def test_reproduce_missing_module_is_reported(monkeypatch, tmp_path, capsys):
    monkeypatch.setitem(sys.modules, "reproductions.ramp", None)  # import raises ImportError
    monkeypatch.setitem(PROTOCOLS, "ramp", ("ramp", "paper 001"))
    assert run_reproduction("ramp", ["--out", str(tmp_path)]) is not None
    monkeypatch.setitem(PROTOCOLS, "ramp", ("no_such_module_xyz", "paper 001"))
    reason = run_reproduction("ramp", ["--out", str(tmp_path)])
    assert reason == "reproductions.no_such_module_xyz does not exist in this checkout"


def test_reproduce_bad_names_and_paths(tmp_path, capsys):
    with pytest.raises(SystemExit) as exc:
        main(["vapnik"])
    assert exc.value.code == 2
    assert "invalid choice: 'vapnik'" in capsys.readouterr().err
    with pytest.raises(SystemExit):
        main([])
    for jobs in ("0", "-2"):
        with pytest.raises(SystemExit):
            main(["all", "--jobs", jobs])
    afile = tmp_path / "f.md"
    afile.write_text("x")
    assert main(["ellipsoid", "--out", str(afile)]) == 2
    assert "exists and is not a directory" in capsys.readouterr().err


def test_reproduce_ellipsoid_for_real(tmp_path, capsys):
    """The real module end to end on its smallest settings (quick mode, one data set, one repetition)."""
    pytest.importorskip("matplotlib")
    argv = ["ellipsoid", "--quick", "--out", str(tmp_path), "--seed", "0",
            "--datasets", "iris", "--reps", "1"]
    assert main(argv) == 0, capsys.readouterr().err
    report = tmp_path / "ellipsoid.md"
    assert report.is_file()
    text = report.read_text()
    assert "iris" in text
    pngs = sorted(tmp_path.glob("*.png"))
    assert pngs, "the report's figures are written as PNG beside it"
    for png in pngs:
        assert png.stat().st_size > 1000 and f"]({png.name})" in text  # embedded in the Markdown


def test_python_dash_m_from_the_checkout(tmp_path):
    r = subprocess.run([sys.executable, "-m", "reproductions", "ellipsoid", "--help"], cwd=ROOT,
                       capture_output=True, text=True, timeout=120)
    assert r.returncode == 0, r.stderr
    assert "--quick" in r.stdout and "--out" in r.stdout


def test_a_quick_run_never_writes_into_the_committed_reports(fake_experiments):
    from reproductions import DOCS
    from reproductions._cli import QUICK_OUT

    calls, _ = fake_experiments
    assert main(["ellipsoid", "--quick"]) == 0
    argv = calls["ellipsoid"]
    assert argv[argv.index("--out") + 1] == str(QUICK_OUT) != str(DOCS)
