"""reproductions.report: strict templates, the hand-typed-numeral detector and time bounds; the package boundary."""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

from reproductions import TEMPLATES
from reproductions.report import bounds_text, load_template, render, typed_numbers

ROOT = Path(__file__).resolve().parents[2]


def test_render_fills_and_refuses_missing_or_unused():
    assert render("a ${x} b $y", {"x": 1, "y": "two"}) == "a 1 b two"
    with pytest.raises(KeyError, match=r"without a value: \['y'\]"):
        render("${x} ${y}", {"x": 1})
    with pytest.raises(ValueError, match=r"without a placeholder .*\['z'\]"):
        render("${x}", {"x": 1, "z": 3})
    with pytest.raises(ValueError, match="line 2: a '\\$' that is not a placeholder"):
        render("ok\ncosts $5", {})
    assert render("costs $$5", {}) == "costs $5"


def test_load_template_names_the_missing_file(tmp_path):
    with pytest.raises(FileNotFoundError, match="no report template"):
        load_template("nope", tmp_path)


@pytest.mark.parametrize(
    ("text", "found"),
    [
        ("within 1 point on 8 of 9 datasets", ["1", "8", "9"]),
        ("Parkinson is 1.7 points worse (14.89 % vs 13.19 %)", ["1.7", "14.89", "13.19"]),
        ("Table 3 and Tables 6-8, Figure 5, eq. (23), Algorithm 1, p = 2 and p = inf", []),
        ("the l1-SVM and ℓ1 penalty, 10-fold CV, 1vs1, an M1 and a Q6600", []),
        ("${n_within} of ${n_sets} data sets, `run(reps=96)`, [link](a_1.md)", []),
        ("## Table 6 (heading)\n<!-- 12 in a comment -->", []),
        ("<!-- a comment\nover 12 lines -->", []),
        ("Tables 5-13 and eqs. (11)-(21); Sections 2 and 3", []),
        ("Table 2 and 40 runs", ["40"]),
        ("In Table 3, 12 of 14 data sets", ["12", "14"]),
        ("Figure 5 to 7 seconds", ["7"]),
        ("Pass 3, 5 sub-problems", ["5"]),
        ("in (2024) and (23)", ["2024"]),
    ],
)
def test_typed_numbers(text, found):
    assert [n for _, n in typed_numbers(text)] == found


def test_bounds_text():
    assert bounds_text(10.0, 40.0, 4) == "4.0–16.0×"
    assert bounds_text(0.0, 40.0, 4) == "–"
    assert bounds_text(10.0, 5.0, 8, digits=2) == "0.50–4.00×"


def test_templates_state_no_number_by_hand():
    """Every report template's prose: numbers come from the tables through placeholders, never typed."""
    offenders = {p.name: typed_numbers(p.read_text(encoding="utf-8"))
                 for p in sorted(TEMPLATES.glob("*.md"))}
    assert {k: v for k, v in offenders.items() if v} == {}


def _imported_modules(path: Path) -> set[str]:
    tree = ast.parse(path.read_text(encoding="utf-8"))
    names = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            names |= {a.name for a in node.names}
        elif isinstance(node, ast.ImportFrom) and node.module:
            names.add(node.module)
    return names


def test_the_library_and_its_tests_never_import_the_reproductions():
    offenders = []
    for base in ("python/svmopt", "tests", "benchmarks"):
        for path in sorted((ROOT / base).rglob("*.py")):
            mods = _imported_modules(path)
            if any(m == "reproductions" or m.startswith("reproductions.") for m in mods):
                offenders.append(str(path.relative_to(ROOT)))
    assert offenders == []


def test_the_wheel_holds_only_the_library():
    tomllib = pytest.importorskip("tomllib", reason="Python >= 3.11 reads TOML")
    config = tomllib.loads((ROOT / "pyproject.toml").read_text())
    assert config["tool"]["scikit-build"]["wheel"]["packages"] == ["python/svmopt"]
    assert not (ROOT / "python" / "svmopt" / "experiments").exists()
    deps = " ".join(config["project"]["dependencies"])
    assert "joblib" not in deps  # only the protocols use it (the repro extra)
