"""The public estimators' docstrings are numpydoc-shaped and their Examples run.

(a) Each estimator's Examples section runs as a doctest (bundled data or generated points, a few seconds in all);
(b) each docstring has the sections Parameters, Attributes, See Also, References and Examples.
"""

from __future__ import annotations

import doctest
import re

import pytest

import svmopt

ESTIMATORS = (
    "RobustSVC",
    "RampLossSVC",
    "L1SVC",
    "FeatureBudgetSVC",
    "FixedSizeLSSVC",
    "FixedSizeLSSVR",
    "EllipsoidPSOClassifier",
)
SECTIONS = ("Parameters", "Attributes", "See Also", "References", "Examples")


def _class_doctest(cls) -> doctest.DocTest:
    tests = [t for t in doctest.DocTestFinder(recurse=False).find(cls, cls.__name__, globs={}) if t.examples]
    assert len(tests) == 1, f"{cls.__name__}: expected one docstring with examples, found {len(tests)}"
    return tests[0]


@pytest.mark.parametrize("name", ESTIMATORS)
def test_examples_run(name):
    cls = getattr(svmopt, name)
    test = _class_doctest(cls)
    runner = doctest.DocTestRunner(optionflags=doctest.NORMALIZE_WHITESPACE)
    report: list[str] = []
    runner.run(test, out=report.append)
    result = runner.summarize(verbose=False)
    assert result.failed == 0, "".join(report)
    assert result.attempted >= 3


@pytest.mark.parametrize("name", ESTIMATORS)
def test_numpydoc_sections(name):
    doc = getattr(svmopt, name).__doc__
    assert doc, f"{name} has no docstring"
    found = re.findall(r"^ *([A-Z][A-Za-z ]+)\n *-{3,}\s*$", doc, flags=re.MULTILINE)
    missing = [s for s in SECTIONS if s not in found]
    assert not missing, f"{name}: docstring lacks the section(s) {missing}"
    order = [s for s in found if s in SECTIONS]
    assert order == list(SECTIONS), f"{name}: sections out of the numpydoc order: {order}"


def test_references_name_the_paper():
    for name in ESTIMATORS:
        refs = getattr(svmopt, name).__doc__.split("References")[1].split("Examples")[0]
        assert ".. [1]" in refs and '"' in refs, f"{name}: References should cite the paper (authors, \"title\")"
