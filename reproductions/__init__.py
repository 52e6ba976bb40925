"""The papers' reproduction protocols: part of the repository, not of the installed package.

One module per paper, named by its model family (the subpackage of svmopt it reproduces), each runnable as
``python -m reproductions NAME [--quick] [--out DIR]`` from a checkout:

* :mod:`reproductions.robust` -- paper 000, Maggioni & Spinelli (RobustSVC)
* :mod:`reproductions.ramp` -- paper 001, Baldomero-Naranjo et al. (RampLossSVC and its comparison models)
* :mod:`reproductions.fixed_size` -- paper 002, De Brabanter et al. (FixedSizeLSSVC / FixedSizeLSSVR)
* :mod:`reproductions.ellipsoid` -- paper 003, Kumar & Ramakrishnan (EllipsoidPSOClassifier)

The family word names everything of a protocol: the command ``NAME``, the module, its report
``docs/reproductions/NAME.md`` and figures ``NAME_*.png``, its templates ``templates/NAME*.md``, the papers' tables
``tables/NAME_*.csv`` and its results ``results/NAME_*.csv[.gz]``.

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
    "robust": ("robust", "paper 000, Maggioni & Spinelli, RobustSVC"),
    "ramp": ("ramp", "paper 001, Baldomero-Naranjo et al., RampLossSVC"),
    "fixed_size": ("fixed_size", "paper 002, De Brabanter et al., FixedSizeLSSVC / FixedSizeLSSVR"),
    "ellipsoid": ("ellipsoid", "paper 003, Kumar & Ramakrishnan, EllipsoidPSOClassifier"),
}
"""Command names -> (module, what it reproduces), in paper order."""

__all__ = ["DOCS", "PROTOCOLS", "RESULTS", "ROOT", "TABLES", "TEMPLATES"]
