"""The committed study reports are the output of their report scripts on the committed JSON: every figure of the
Markdown is computed from the data, so a report edited by hand, or data changed without its report, fails here."""

import json
from pathlib import Path

from benchmarks.studies import report_probability

RESULTS = Path(__file__).resolve().parents[2] / "benchmarks" / "results"


def test_probability_report_regenerates_from_its_json():
    data = json.loads((RESULTS / "probability.json").read_text(encoding="utf-8"))
    committed = (RESULTS / "probability.md").read_text(encoding="utf-8")
    assert "\n".join(report_probability.report(data)).strip() == committed.strip()


def test_probability_summary_counts_every_pair():
    data = json.loads((RESULTS / "probability.json").read_text(encoding="utf-8"))
    s = report_probability.summary(data)
    own = [r for r in data["records"] if r["model"] == "ours"]
    assert s["pairs"] == len({(r["dataset"], r["estimator"]) for r in own})
    assert max(r["argmax_disagreement"] for r in own) == 0.0  # argmax(predict_proba) == predict on every row
