"""The papers' reproduction protocols: part of the repository, not of the installed package.

One module per paper, each runnable as ``python -m reproductions NAME [--quick] [--out DIR]`` from a checkout:

* :mod:`reproductions.maggioni_spinelli` -- paper 000 (RobustSVC)
* :mod:`reproductions.baldomero_naranjo` -- paper 001 (RampLossSVC and its comparison models)
* :mod:`reproductions.de_brabanter` -- paper 002 (FixedSizeLSSVC / FixedSizeLSSVR)
* :mod:`reproductions.kumar_ramakrishnan` -- paper 003 (EllipsoidPSOClassifier)

Beside them: ``tables/`` (the papers' published tables as CSV), ``templates/`` (the reports' fixed prose as
Markdown), ``results/`` (the results store, :mod:`reproductions.store`, from which every committed report in
``docs/reproductions/`` regenerates), :mod:`reproductions.report` (templates and the no-typed-figures rule) and
:mod:`reproductions.figures` (the figures of measured results; matplotlib optional).
"""

from pathlib import Path

ROOT = Path(__file__).resolve().parent
TABLES = ROOT / "tables"
TEMPLATES = ROOT / "templates"
RESULTS = ROOT / "results"
DOCS = ROOT.parent / "docs" / "reproductions"

PROTOCOLS: dict[str, tuple[str, str]] = {
    "maggioni-spinelli": ("maggioni_spinelli", "paper 000, RobustSVC"),
    "baldomero-naranjo": ("baldomero_naranjo", "paper 001, RampLossSVC"),
    "de-brabanter": ("de_brabanter", "paper 002, FixedSizeLSSVC / FixedSizeLSSVR"),
    "kumar-ramakrishnan": ("kumar_ramakrishnan", "paper 003, EllipsoidPSOClassifier"),
}
"""Command names -> (module, what it reproduces), in paper order."""

__all__ = ["DOCS", "PROTOCOLS", "RESULTS", "ROOT", "TABLES", "TEMPLATES"]
