"""Reports from Markdown templates: the fixed prose lives in ``templates/``, every figure comes from the tables.

A template is Markdown with ``${name}`` placeholders (:class:`string.Template`). :func:`render` fills them and
refuses both a placeholder without a value and a value without a placeholder, so a report cannot silently keep a
stale sentence or drop a computed one.

The rule the reports keep: every number and count in a summary or discussion is computed from the report's own
tables. :func:`typed_numbers` finds the numerals a template's prose states by hand (outside placeholders and outside
the names of things -- "Table 3", "Figure 5", "eq. (23)", "p = 2", ...), and the tests of each protocol assert that
its templates have none.
"""

from __future__ import annotations

import re
import string
from collections.abc import Mapping
from pathlib import Path
from typing import Any

import numpy as np

from reproductions import TEMPLATES

__all__ = ["bounds_text", "join_words", "load_items", "load_template", "render", "typed_numbers", "value_range"]


def load_template(name: str, directory: str | Path | None = None) -> str:
    """The text of ``templates/<name>.md``."""
    path = Path(directory or TEMPLATES) / f"{name}.md"
    if not path.is_file():
        raise FileNotFoundError(f"no report template {path}")
    return path.read_text(encoding="utf-8")


def load_items(name: str, directory: str | Path | None = None) -> dict[str, str]:
    """The item templates of ``templates/<name>.md``: each ``<!-- item: NAME -->`` line starts the text of the item
    NAME (one summary bullet, list entry or paragraph, rendered on its own and left out when its data are absent)."""
    parts = re.split(r"^<!-- item: (\w+) -->\n", load_template(name, directory), flags=re.M)
    return {key: body.strip() for key, body in zip(parts[1::2], parts[2::2], strict=True)}


def value_range(values, fmt: str = "{:.2f}", unit: str = "", *, empty: str = "–") -> str:
    """``"lo–hi"`` of the finite values in ``fmt`` (one value when both print alike), ``unit`` after it;
    ``empty`` when there is none."""
    v = [float(x) for x in values if x is not None and np.isfinite(x)]
    if not v:
        return empty
    lo, hi = fmt.format(min(v)), fmt.format(max(v))
    return f"{lo}{unit}" if lo == hi else f"{lo}–{hi}{unit}"


def join_words(items) -> str:
    """``"a"``, ``"a and b"``, ``"a, b and c"``; ``"none"`` for no item."""
    items = list(items)
    if not items:
        return "none"
    return items[0] if len(items) == 1 else ", ".join(items[:-1]) + " and " + items[-1]


def _placeholders(text: str) -> set[str]:
    names = set()
    for m in string.Template.pattern.finditer(text):
        name = m.group("named") or m.group("braced")
        if name:
            names.add(name)
        elif m.group("invalid") is not None:
            line = text[: m.start()].count("\n") + 1
            raise ValueError(f"template line {line}: a '$' that is not a placeholder (write '$$' for a dollar sign)")
    return names


def render(template: str, values: Mapping[str, Any]) -> str:
    """Fill ``template`` (its text, e.g. from :func:`load_template`) with ``values``.

    Raises ``KeyError`` naming the placeholders that have no value and ``ValueError`` naming the values that have no
    placeholder.
    """
    names = _placeholders(template)
    missing = sorted(names - set(values))
    if missing:
        raise KeyError(f"template placeholders without a value: {missing}")
    unused = sorted(set(values) - names)
    if unused:
        raise ValueError(f"values without a placeholder in the template: {unused}")
    return string.Template(template).substitute({k: str(v) for k, v in values.items()})


# Numerals that name a thing rather than state a result: table / figure / equation / section / algorithm numbers,
# the paper numbers, the norms and p of the uncertainty sets, l1 / l2 / l0, k-fold, and the like.
_NUM = r"\(?[0-9][0-9a-z.]*\)?"
_NAMES = re.compile(
    # a plural names a list or range of things: "Tables 5-13", "eqs. (11)-(21)", "Sections 2 and 3"
    r"(?:Tables|Figures|eqs\.|equations|Sections|Algorithms|Steps|papers|Experiments|[Cc]olumns)\s*" + _NUM
    + r"(?:\s*(?:[-–,]|and|to)\s*" + _NUM + r")*"
    # a singular names one thing: "Table 3", "eq. (23)", "Algorithm 1"
    r"|(?:Table|Figure|Fig\.|eq\.|equation|Section|§|Algorithm|Lemma|Theorem|Pseudocode|Appendix|Step|paper|"
    r"Experiment|Exp\.|Pass|Phase|[Cc]olumn)\s*" + _NUM
    + r"|\(\d{1,2}[a-z]?\)"                # equation references such as (23)
    r"|\b[lL][0-9∞]\b|ℓ[0-9₀₁₂∞]|\bL[0-9]-"  # norms
    r"|\bp\s*=\s*(?:1|2|inf|∞)\b"           # the uncertainty sets of paper 000
    r"|\b[0-9]+-fold\b|\b[0-9]+vs[0-9]+\b|\b1vs1\b|\bC-SVC\b"
    r"|\b[A-Za-z]+[0-9]+[A-Za-z]*\b"        # identifiers such as Q6600, M1, float64, x1
    r"|`[^`]*`"                             # code
    r"|\$\{[A-Za-z_][A-Za-z0-9_]*\}|\$[A-Za-z_][A-Za-z0-9_]*"  # placeholders
    r"|\]\([^)]*\)"                         # link targets
)
_NUMERAL = re.compile(r"(?<![A-Za-z_])[0-9]+(?:[.,][0-9]+)*")


def typed_numbers(text: str) -> list[tuple[int, str]]:
    """``[(line number, numeral)]`` of the numerals ``text`` states by hand (see the module docstring).

    Heading lines and HTML comments are skipped: headings name sections (``## Table 6 ...``).
    """
    text = re.sub(r"<!--.*?-->", lambda m: "\n" * m.group(0).count("\n"), text, flags=re.S)  # keeps line numbers
    out = []
    for k, line in enumerate(text.split("\n"), 1):
        if line.lstrip().startswith("#"):
            continue
        stripped = _NAMES.sub(" ", line)
        out += [(k, m.group(0)) for m in _NUMERAL.finditer(stripped)]
    return out


def bounds_text(ours_core_s: float, paper_wall_s: float, cores: int, *, digits: int = 1) -> str:
    """A time ratio given as the bounds it is: paper core-seconds / ours, with the paper's core-seconds between its
    wall time (×1, one core busy) and ``cores`` × its wall time (every core busy). ``"a–b×"``; > 1 means svmopt
    used fewer core-seconds."""
    if not (ours_core_s > 0 and paper_wall_s > 0 and cores >= 1):
        return "–"
    lo = paper_wall_s / ours_core_s
    hi = cores * paper_wall_s / ours_core_s
    return f"{lo:.{digits}f}–{hi:.{digits}f}×"
