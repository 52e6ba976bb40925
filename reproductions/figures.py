"""Figures and report sections of the protocols' results (matplotlib optional).

The figure functions draw the measured results of a protocol, not a fitted model (those live in
:mod:`svmopt.plotting`): each draws on ``ax`` when given, else on a new pyplot-free figure, and returns the axes.

* :func:`plot_error_vs_rho` -- paper 000, Figure 5: mean test error against rho (log scale) per holdout, overall
  with the deterministic error as a horizontal line (5a), or per class (5b).
* :func:`plot_cv_time_vs_folds` -- paper 002, Figures 3-4 (Tables 3-4): seconds of one CV evaluation against the
  number of folds, simple implementation (full line) and the fast Algorithm 3 (dashed), one colour per m.
  Decision: time is on the (log) y axis and the folds on x; the paper draws the folds as a function of time, which
  shows the same curves with the axes swapped.
* :func:`plot_performance_vs_prototypes` -- paper 002, Figure 2: test performance against the number of prototype
  vectors m, with the full LS-SVM as a horizontal baseline.

Without matplotlib a protocol still writes its report: :func:`have_matplotlib` tells, and
:func:`figures_markdown` replaces the figures by :data:`NO_FIGURES_NOTE`.
"""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path

import numpy as np

from svmopt.plotting import new_axes, set_labels

__all__ = ["FIGURES_HEADING", "NO_FIGURES_NOTE", "figures_markdown", "figures_section", "have_matplotlib",
           "plot_cv_time_vs_folds", "plot_error_vs_rho", "plot_performance_vs_prototypes", "write_figures_section"]

NO_FIGURES_NOTE = "Figures not drawn: matplotlib is not installed (`pip install matplotlib`, then run again)."


def have_matplotlib() -> bool:
    """True when matplotlib can be imported (the figures are drawn), False otherwise (the report says so)."""
    try:
        import matplotlib  # noqa: F401
    except ImportError:
        return False
    return True


def _require_columns(df, cols: Sequence[str], name: str = "df"):
    import pandas as pd

    if not isinstance(df, pd.DataFrame):
        try:
            df = pd.DataFrame(df)
        except Exception as exc:
            raise TypeError(f"{name} must be a pandas DataFrame or a list of dicts, got {type(df).__name__}") from exc
    missing = [c for c in cols if c not in df.columns]
    if missing:
        raise ValueError(f"{name} lacks the column(s) {missing}; it has {list(df.columns)}")
    if df.empty:
        raise ValueError(f"{name} is empty: nothing to plot")
    return df


# ------------------------------------------------------------------------------------------ paper 000
def plot_error_vs_rho(df, ax=None, *, by: str = "overall", p: float | None = None, title: str | None = None):
    """Figure 5 of paper 000: mean test error (%) against rho (log scale), one colour per holdout.

    ``df`` has one row per fit with columns ``holdout`` (training %), ``model`` (``"det"`` / ``"rob"``),
    ``rho``, ``test_error`` (a proportion), and for ``by="class"`` also ``error_A`` and ``error_B`` (test error
    within class A and class B); a ``p`` column, when present, is filtered with ``p`` (required when ``df`` holds
    several p). ``by="overall"`` (5a) draws the deterministic error of each holdout as a horizontal line;
    ``by="class"`` (5b) draws class A with filled and class B with open markers. Means are over repetitions.
    """
    if by not in ("overall", "class"):
        raise ValueError(f"by must be 'overall' or 'class', got {by!r}")
    cols = ["holdout", "model", "rho", "test_error"] + (["error_A", "error_B"] if by == "class" else [])
    df = _require_columns(df, cols)
    rob = df[df["model"] == "rob"]
    if "p" in df.columns:
        ps = sorted(set(rob["p"].dropna().tolist()))
        if p is None and len(ps) > 1:
            raise ValueError(f"df holds several p {ps}; choose one with p=")
        if p is not None:
            if float(p) not in ps:
                raise ValueError(f"p={p!r} is not in df (p values: {ps})")
            rob = rob[rob["p"] == float(p)]
    if rob.empty:
        raise ValueError("df has no robust rows (model == 'rob'): nothing to plot against rho")
    if not np.all(rob["rho"].to_numpy(dtype=float) > 0):
        raise ValueError("rho must be > 0 for a log axis")
    ax = new_axes(ax)
    colors = ["tab:blue", "tab:orange", "tab:green", "tab:red", "tab:purple"]
    for k, (h, g) in enumerate(sorted(rob.groupby("holdout"), key=lambda t: -t[0])):
        c = colors[k % len(colors)]
        label = f"{int(h)}%-{100 - int(h)}%"
        if by == "overall":
            mean = g.groupby("rho")["test_error"].mean() * 100
            ax.plot(mean.index, mean.values, "o", ms=4, color=c, label=f"robust, holdout {label}")
            det = df[(df["model"] == "det") & (df["holdout"] == h)]["test_error"]
            if len(det):
                ax.axhline(100 * det.mean(), color=c, lw=1.2, label=f"deterministic, {label}")
        else:
            ma = g.groupby("rho")["error_A"].mean() * 100
            mb = g.groupby("rho")["error_B"].mean() * 100
            ax.plot(ma.index, ma.values, "o", ms=4, color=c, label=f"class A, {label}")
            ax.plot(mb.index, mb.values, "o", ms=4, mfc="none", color=c, label=f"class B, {label}")
    ax.set_xscale("log")
    set_labels(ax, "ρ", "test error (%)" if by == "overall" else "test error within the class (%)", title)
    ax.grid(True, which="major", alpha=0.3)
    ax.legend(fontsize=7)
    return ax


# ------------------------------------------------------------------------------------------ paper 002
def plot_cv_time_vs_folds(rows, ax=None, *, reference=None, title: str | None = None):
    """Figures 3-4 of paper 002: seconds of one CV evaluation against the number of folds v, per m.

    ``rows``: dicts (or a DataFrame) with ``m``, ``v``, ``simple`` and ``fast`` seconds, as returned by
    :func:`reproductions.fixed_size.cv_timing`. Simple = full line, fast (Algorithm 3) = dashed, as in
    the paper; log time axis. ``reference``: rows of the same form (e.g. the paper's Tables 3-4) drawn thin and
    pale in the colour of the same m, without markers.
    """
    df = _require_columns(rows, ["m", "v", "simple", "fast"], "rows")
    ref = None if reference is None else _require_columns(reference, ["m", "v", "simple", "fast"], "reference")
    for name, d in (("rows", df), ("reference", ref)):
        if d is not None and not (np.all(d["simple"].to_numpy(float) > 0) and np.all(d["fast"].to_numpy(float) > 0)):
            raise ValueError(f"{name}: the times 'simple' and 'fast' must be > 0 (log axis)")
    ax = new_axes(ax)
    colors = ["tab:blue", "tab:orange", "tab:green", "tab:red", "tab:purple", "tab:brown"]
    ms_all = sorted(set(df["m"].tolist()) | (set(ref["m"].tolist()) if ref is not None else set()))
    for m, g in df.sort_values("v").groupby("m"):
        c = colors[ms_all.index(m) % len(colors)]
        ax.plot(g["v"], g["simple"], "-o", color=c, ms=4, label=f"m = {int(m)}, simple")
        ax.plot(g["v"], g["fast"], "--s", color=c, ms=4, label=f"m = {int(m)}, fast (Alg. 3)")
    if ref is not None:
        for m, g in ref.sort_values("v").groupby("m"):
            c = colors[ms_all.index(m) % len(colors)]
            ax.plot(g["v"], g["simple"], "-", color=c, lw=0.9, alpha=0.45, label=f"m = {int(m)}, paper")
            ax.plot(g["v"], g["fast"], "--", color=c, lw=0.9, alpha=0.45)
    ax.set_yscale("log")
    set_labels(ax, "number of folds v", "time of one CV evaluation (s)", title)
    ax.grid(True, which="major", alpha=0.3)
    ax.legend(fontsize=7, loc="upper left", bbox_to_anchor=(1.01, 1.0), borderaxespad=0.0)
    return ax


def plot_performance_vs_prototypes(rows, ax=None, *, baseline: float | None = None, ylabel: str = "test performance",
                                   title: str | None = None, baseline_label: str = "LS-SVM (all n points)"):
    """Figure 2 of paper 002: test performance against the number of prototype vectors m.

    ``rows``: dicts (or a DataFrame) with ``m`` and ``score`` (several rows per m, e.g. seeds, are averaged and
    drawn with their min-max range). ``baseline``: the full LS-SVM's score, a horizontal line as in the paper.
    """
    df = _require_columns(rows, ["m", "score"], "rows")
    if baseline is not None and not np.isfinite(baseline):
        raise ValueError(f"baseline must be a finite number or None, got {baseline!r}")
    ax = new_axes(ax)
    g = df.groupby("m")["score"].agg(["mean", "min", "max"]).sort_index()
    ax.plot(g.index, g["mean"], "-o", ms=4, color="tab:blue", label="FS-LSSVM")
    if (g["max"] > g["min"]).any():
        ax.fill_between(g.index, g["min"], g["max"], color="tab:blue", alpha=0.15, lw=0)
    if baseline is not None:
        ax.axhline(baseline, color="k", lw=1.2, label=baseline_label)
    set_labels(ax, "number of prototype vectors m", ylabel, title)
    ax.grid(True, alpha=0.3)
    ax.legend(fontsize=8)
    return ax


# ------------------------------------------------------------------------------------------ report sections
FIGURES_HEADING = "## Figures"


def figures_markdown(figures: Sequence[tuple[str, str]] | None, *, heading: str = FIGURES_HEADING,
                     intro: str = "") -> str:
    """A Markdown section embedding ``figures`` = ``[(file name relative to the report, caption), ...]``.

    ``figures=None`` means they could not be drawn (no matplotlib): the section holds :data:`NO_FIGURES_NOTE`.
    Square brackets in a caption become parentheses in the image's alt text (they would end it).
    """
    lines = [heading, ""]
    if figures is None:
        return "\n".join([*lines, NO_FIGURES_NOTE, ""])
    if intro:
        lines += [intro, ""]
    for fname, caption in figures:
        alt = caption.replace("[", "(").replace("]", ")")  # brackets would end the image's alt text
        lines += [f"![{alt}]({fname})", "", f"*{caption}*", ""]
    return "\n".join(lines)


def figures_section(text: str, *, heading: str = FIGURES_HEADING) -> str | None:
    """The ``heading`` section of a report's text (up to the next heading of its level), ending in one newline;
    None when the report has none."""
    level = heading.split(" ", 1)[0] + " "
    lines = text.split("\n")
    start = next((i for i, ln in enumerate(lines) if ln.strip() == heading), None)
    if start is None:
        return None
    end = next((j for j in range(start + 1, len(lines)) if lines[j].startswith(level)), len(lines))
    return "\n".join(lines[start:end]).rstrip("\n") + "\n"


def write_figures_section(report: str | Path, section: str, *, heading: str = FIGURES_HEADING) -> Path:
    """Put ``section`` (starting with ``heading``) into the Markdown file ``report``.

    An existing section with the same heading is replaced up to the next heading of the same level; otherwise
    the section is appended. A missing file is created with the section alone. The rest of the file is kept
    byte for byte, so measured tables written earlier survive a figures-only run.
    """
    report = Path(report)
    if not section.startswith(heading):
        raise ValueError(f"section must start with its heading {heading!r}")
    level = heading.split(" ", 1)[0] + " "
    text = report.read_text() if report.exists() else ""
    lines = text.split("\n")
    start = next((i for i, ln in enumerate(lines) if ln.strip() == heading), None)
    body = section.rstrip("\n").split("\n")
    if start is None:
        out = (text.rstrip("\n") + "\n\n" if text.strip() else "") + "\n".join(body) + "\n"
    else:
        end = next((j for j in range(start + 1, len(lines)) if lines[j].startswith(level)), len(lines))
        tail = lines[end:]
        out = "\n".join(lines[:start] + body + (["", *tail] if tail else [])).rstrip("\n") + "\n"
    report.parent.mkdir(parents=True, exist_ok=True)
    report.write_text(out)
    return report
