"""docs/performance.md's generated tables are what benchmarks/studies/report_performance.py computes from the committed
JSON, every table it knows appears there once, and every citation of a section of performance.md or
performance_log.md (in the code, the benchmarks and the docs) names a heading that exists."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from benchmarks.studies import report_performance
from benchmarks.studies.util import ROOT

DOCS = ROOT / "docs"
CITATION = re.compile(r"(?P<page>performance(?:_log)?\.md)#(?P<anchor>[\w-]+)")


def slug(heading: str) -> str:
    """GitHub's anchor of a Markdown heading: lower case, punctuation dropped, spaces as hyphens."""
    return re.sub(r"[^\w\- ]", "", heading.strip().lower()).replace(" ", "-")


def anchors(page: Path) -> set[str]:
    text = re.sub(r"```.*?```", "", page.read_text(encoding="utf-8"), flags=re.S)
    return {slug(m[1]) for m in re.finditer(r"^#{1,6} (.+)$", text, flags=re.M)}


def test_regenerating_the_tables_gives_the_committed_text():
    text = report_performance.DOC.read_text(encoding="utf-8")
    assert report_performance.render(text) == text, (
        "docs/performance.md differs from its JSON: run python -m benchmarks.studies.report_performance")


def test_every_table_appears_once():
    names = report_performance.table_names(report_performance.DOC.read_text(encoding="utf-8"))
    assert sorted(names) == sorted(report_performance.TABLES)


def test_an_unknown_table_is_an_error():
    with pytest.raises(KeyError, match="no-such-table"):
        report_performance.render("<!-- generated: no-such-table -->\nold\n<!-- end generated -->\n")


def test_main_check_reports_a_stale_table(tmp_path, capsys):
    doc = tmp_path / "performance.md"
    doc.write_text("# t\n\n<!-- generated: ramp-daks -->\nstale\n<!-- end generated -->\n", encoding="utf-8")
    assert report_performance.main(["--doc", str(doc), "--check"]) == 1
    assert "differs" in capsys.readouterr().err
    assert report_performance.main(["--doc", str(doc)]) == 0
    assert report_performance.main(["--doc", str(doc), "--check"]) == 0
    assert "| 4,000 |" in doc.read_text(encoding="utf-8")


def test_citations_of_performance_sections_resolve():
    known = {name: anchors(DOCS / name) for name in ("performance.md", "performance_log.md")}
    files = [ROOT / "README.md", *(p for folder in ("python", "cpp", "benchmarks", "docs", "reproductions")
                                   for p in (ROOT / folder).rglob("*")
                                   if p.suffix in {".py", ".pyi", ".hpp", ".cpp", ".h", ".md"} and p.is_file())]
    broken = [f"{p.relative_to(ROOT)}: {m[0]}" for p in files for m in CITATION.finditer(p.read_text(encoding="utf-8"))
              if m["anchor"] not in known[m["page"]]]
    assert not broken, broken
