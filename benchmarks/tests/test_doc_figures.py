"""The docs quote their results: every figure of docs/performance.md, docs/scale.md and the guide that
benchmarks/studies/doc_figures.py knows is what the committed JSON (or the library constant) gives at the precision
printed, a figure edited by hand fails, and every script or results file the docs and the results' reports cite
exists."""

from __future__ import annotations

import json
import re
import shutil
import string
from pathlib import Path

import pytest

from benchmarks.studies import doc_figures, fixed_size_costs, report_performance, robust_ipm_vs_highs
from benchmarks.studies.util import RESULTS, ROOT


def test_every_prose_figure_matches_its_results():
    failures = doc_figures.check()
    assert not failures, "\n".join(failures)


@pytest.mark.parametrize("fig", doc_figures.FIGURES, ids=lambda f: f"{f.doc}:{f.text[:40]}")
def test_a_figure_edited_by_hand_fails(fig, tmp_path):
    """Change the first digit of each figure in a copy of the page, one at a time: the check must see each."""
    values = fig.values(RESULTS)
    page = doc_figures.normalized((ROOT / fig.doc).read_text(encoding="utf-8"))
    start = page.index(doc_figures.normalized(fig.expected()))
    edited_any = False
    fields = {name for _, name, _, _ in string.Formatter().parse(fig.text) if name}
    for key, value in values.items():
        if key not in fields or not re.search(r"\d", value):
            continue
        marked = doc_figures.normalized(fig.text.format(**{**values, key: "\0"}))
        at = start + marked.index("\0") + re.search(r"\d", value).start()
        edited = page[:at] + str((int(page[at]) + 1) % 10) + page[at + 1:]
        (tmp_path / fig.doc).parent.mkdir(parents=True, exist_ok=True)
        (tmp_path / fig.doc).write_text(edited, encoding="utf-8")
        assert doc_figures.check(root=tmp_path, figures=[fig]), (fig.doc, key)
        edited_any = True
    assert edited_any or not any(re.search(r"\d", values[k]) for k in fields)


def test_a_rerun_that_changes_a_result_fails(tmp_path):
    """A results file whose figure changed (here the pipeline's peak memory at m = 1000) no longer matches the page."""
    results = tmp_path / "results"
    shutil.copytree(RESULTS, results, ignore=shutil.ignore_patterns("asv"))
    path = results / "peers_fixed_size_1m_m1000_sklearn.json"
    data = json.loads(path.read_text())
    for r in data["runs"]:
        if r["contender"] == "sklearn" and r["task"] == "classification":
            r["peak_rss_mib"] = 23.4 * 1024
    path.write_text(json.dumps(data))
    failures = doc_figures.check(results=results)
    assert any("23.4" in f for f in failures), failures


def test_generated_tables_of_every_page_match_their_json():
    assert report_performance.main(["--check"]) == 0


def test_scale_page_has_its_tables():
    names = report_performance.table_names(report_performance.SCALE_DOC.read_text(encoding="utf-8"))
    assert sorted(names) == sorted(report_performance.SCALE_TABLES)


def test_daks_sentence_counts_only_real_improvements():
    runs = [{"rows": 250, "heuristic": {"ub_history": [10.0, 10.0 - 1e-13], "objective": 10.0 - 1e-13}},
            {"rows": 500, "heuristic": {"ub_history": [20.0, 19.0], "objective": 19.0}},
            {"rows": 1000, "heuristic": {"ub_history": [30.0], "objective": 30.0}}]
    assert report_performance.daks_improvements(runs) == {500: (1.0, 0.05)}
    text = report_performance.daks_sentence(runs)
    assert text.startswith("DAKS improved on Algorithm 1's initial solution at 500 rows, by 1 (5 % of")
    assert text.endswith("and not at all at 250 and 1,000 rows.")
    assert "never" in report_performance.daks_sentence(runs[:1])


def test_ub_history_of_the_committed_runs_is_what_the_page_says():
    runs = json.loads((RESULTS / "scale_ramp_daks.json").read_text())
    improved = sorted(report_performance.daks_improvements(runs))
    for page in (report_performance.DOC, report_performance.SCALE_DOC):
        text = doc_figures.normalized(page.read_text(encoding="utf-8"))
        assert "never improved" not in text
        assert f"at {report_performance._join([f'{n:,}' for n in improved])} rows" in text


# ------------------------------------------------------------------------------------- cited paths exist
#: pages whose citations of scripts and results must resolve
CITING = [*sorted((ROOT / "docs").glob("*.md")), *sorted((ROOT / "docs" / "guide").glob("*.md")),
          *sorted(RESULTS.glob("*.md"))]
PATH = re.compile(r"(?<![\w/.-])((?:benchmarks|reproductions|python|tests|cpp|docs)/[\w./-]*\w)(?![\w*]|/NAME)")
MODULE = re.compile(r"python -m ((?:benchmarks|reproductions|svmopt)(?:\.\w+)+)")


def _module_exists(name: str) -> bool:
    p = Path(*name.split("."))
    return any((ROOT / base / p).with_suffix(".py").is_file() or (ROOT / base / p / "__init__.py").is_file()
               for base in (".", "python"))


@pytest.mark.parametrize("page", CITING, ids=lambda p: str(p.relative_to(ROOT)))
def test_cited_scripts_and_files_exist(page):
    text = page.read_text(encoding="utf-8")
    missing = sorted({m[1] for m in PATH.finditer(text) if "NAME" not in m[1]
                      and not (ROOT / m[1].split("::")[0]).exists()})
    missing += sorted({f"python -m {m[1]}" for m in MODULE.finditer(text) if not m[1].endswith(".NAME")
                       and not _module_exists(m[1])})
    assert not missing, f"{page.relative_to(ROOT)} cites what does not exist: {missing}"


# ------------------------------------------------------------------------------------- the two new studies
def test_ipm_vs_highs_study_writes_what_the_tables_read(tmp_path):
    out = tmp_path / "robust_ipm_vs_highs.json"
    assert robust_ipm_vs_highs.main(["--rows", "300", "--landmarks", "20", "--workdir", str(tmp_path),
                                     "--out", str(out)]) == 0
    data = json.loads(out.read_text())
    assert data["meta"]["command"].startswith("python -m benchmarks.studies.robust_ipm_vs_highs")
    for key in robust_ipm_vs_highs.DATASETS:
        (r,) = data[key]
        assert (r["n"], r["L"]) == (300, 20)
        assert abs(r["ipm"]["obj"] - r["highs"]["obj"]) <= 1e-5 * abs(r["highs"]["obj"])
        assert r["ipm"]["lb"] <= r["highs"]["obj"] * (1 + 1e-9) and r["ipm"]["passes"] >= r["ipm"]["iters"]
        assert len(r["highs_grid"]["objectives"]) == 5
    (tmp_path / "res").mkdir()
    out.rename(tmp_path / "res" / "robust_ipm_vs_highs.json")
    table = report_performance.robust_ipm_vs_highs(tmp_path / "res", key="scale_data_d20_alpha4")
    assert table[-1].startswith("| 300, 20 | ")


def test_fixed_size_costs_study_runs_at_tiny_sizes(tmp_path):
    out = tmp_path / "fixed_size_costs.json"
    assert fixed_size_costs.main(["--weight-rows", "1500", "--weight-m", "20", "--cv-rows", "1500", "--cv-m", "650",
                                  "--partial-rows", "1200", "--partial-m", "20", "--rounds", "1",
                                  "--workdir", str(tmp_path), "--out", str(out)]) == 0
    data = json.loads(out.read_text())
    assert set(data["weights"]["summary"]) == {"classifier unweighted", "classifier weighted",
                                               "regressor unweighted", "regressor weighted"}
    cv = data["cv_score"]["runs"]
    assert cv["cv=None (score skipped)"][0]["cv_score"] is None  # m = 650 with 10 folds: above FIXED_CV_FLOPS
    assert cv["cv=10 (score computed)"][0]["cv_score"] is not None
    assert len(data["partial_fit"]["runs"]["partial_fit"][0]["calls_s"]) == 4


def test_the_asv_history_table_is_what_the_results_give():
    """docs/development.md's table of the asv history is generated from benchmarks/results/asv/vm (every commit of
    history_commits.txt has a row; a figure edited by hand, or a result added without the page following, fails)."""
    from benchmarks.studies import asv_history

    assert asv_history.main(["--check"]) == 0
    page = asv_history.PAGE.read_text(encoding="utf-8")
    table = page[page.index(asv_history.START):page.index(asv_history.END)]
    for commit, _, _ in asv_history.history():
        assert f"`{commit[:7]}`" in table
    at = page.index(asv_history.START) + table.index(" / ")
    edited = page[:at] + " / 9" + page[at + 3:]  # a figure of the table edited by hand
    assert asv_history.block() in page and asv_history.block() not in edited
