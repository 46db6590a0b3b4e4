"""Writing the analysis of a run: ``analysis/summary.json``, the ``.tex`` tables and the figures."""

from __future__ import annotations

import json
import logging
import re
import textwrap
from dataclasses import dataclass, field
from pathlib import Path

import pandas as pd
from pandas.io.formats.style import Styler

from tfr_helpers.analysis import figures
from tfr_helpers.analysis.arms import REPORTS
from tfr_helpers.analysis.inference_tables import INFERENCE_TABLES
from tfr_helpers.analysis.sensitivity import evalplus_strength
from tfr_helpers.analysis.summary import build_summary
from tfr_helpers.analysis.tables import TABLES, caption_with
from tfr_helpers.fsutil import atomic_write_text
from tfr_helpers.pipeline.engine.codec import load_results
from tfr_helpers.records import Results

log = logging.getLogger(__name__)


@dataclass(frozen=True)
class AnalysisOutputs:
    """Paths written by :func:`analyze` (absolute)."""

    summary: Path
    tables: dict[str, Path] = field(default_factory=dict)
    figures: list[Path] = field(default_factory=list)


def escape_latex(text: str) -> str:
    """Escape LaTeX special characters in plain text (captions)."""
    out = text.replace("\\", r"\textbackslash ")
    for ch in "&%$#_{}":
        out = out.replace(ch, "\\" + ch)
    return out.replace("~", r"\textasciitilde ").replace("^", r"\textasciicircum ").replace(">", r"\textgreater ")


def _noted(styler: Styler, results: Results, label: str) -> str:
    """A table standing alone (LaTeX) carries the run's source note: its first sentence in the caption, the whole
    note (which datasets, by whom) in the ``%`` comments with the full caption, as summary.json has it."""
    return to_latex(styler, label, note=caption_with("", results).strip())


MAX_LATEX_COLUMNS = 7
"""Columns of one LaTeX table, row labels included: a wider table is split into parts that fit a page."""
CAPTION_SENTENCES = 2
"""Sentences of a LaTeX caption; the rest of the caption (definitions, provenance) goes to ``%`` comment lines."""


def sentences(text: str) -> list[str]:
    """``text`` cut into sentences (a full stop followed by a capital or a parenthesis)."""
    return [s for s in re.split(r"(?<=[.!?])\s+(?=[A-Z(])", text.strip()) if s]


def short_caption(text: str, note: str = "") -> str:
    """A caption of at most :data:`CAPTION_SENTENCES` sentences: the table's first sentence and the note's first
    (or the table's first two when there is no note)."""
    own, noted = sentences(text), sentences(note)
    return " ".join(own[:1] + noted[:1] if noted else own[:CAPTION_SENTENCES])


def to_latex(styler: Styler, label: str, note: str = "") -> str:
    """Render a table Styler as booktabs LaTeX tables of at most :data:`MAX_LATEX_COLUMNS` columns each (row labels
    kept in every part; parts labelled ``<label>``, ``<label>-2``...), captions of at most two sentences, the full
    caption in ``%`` comments above (cells and headers escaped, no extra packages).

    Args:
        styler: A table from :mod:`tfr_helpers.analysis.tables` (string cells, caption set).
        label: LaTeX label (``tab:<name>``).

    Returns:
        One ``table`` environment per part, needing only ``booktabs``.
    """
    full = " ".join(p for p in (note, str(styler.caption or "")) if p)
    head = short_caption(str(styler.caption or ""), note)
    frame = styler.data
    width = max(1, MAX_LATEX_COLUMNS - frame.index.nlevels)
    parts = [frame.iloc[:, i : i + width] for i in range(0, max(frame.shape[1], 1), width)] or [frame]
    comment = "\n".join("% " + line for line in textwrap.wrap(full, 110)) + "\n" if full != head else ""
    out = []
    for number, part in enumerate(parts, start=1):
        caption = head if len(parts) == 1 else f"Part {number} of {len(parts)}: {head}"
        out.append(_one_latex(part, caption, label if number == 1 else f"{label}-{number}"))
    return comment + "\n".join(out)


def _one_latex(frame: pd.DataFrame, caption: str, label: str) -> str:
    escaped = frame.copy()
    escaped.index = escaped.index.set_names([escape_latex(str(n)) if n else n for n in escaped.index.names])
    out = escaped.style.format(escape="latex").format_index(escape="latex", axis=0)
    out = out.format_index(escape="latex", axis=1)
    return out.to_latex(
        caption=escape_latex(caption),
        label=label,
        hrules=True,
        position="htbp",
        position_float="centering",
        multirow_align="naive",
        multicol_align="naive",
        column_format="l" * escaped.index.nlevels + "r" * escaped.shape[1],
    )


def analyze_run(run_dir: Path | str) -> AnalysisOutputs:
    """Write ``analysis/summary.json``, the six ``.tex`` tables and the figures of one finished run.

    Args:
        run_dir: A run directory holding ``results.json``.

    Returns:
        The paths written.

    Raises:
        RunDirError: If ``results.json`` is missing or invalid.
    """
    run = Path(run_dir)
    results = load_results(run)
    out_dir = run / "analysis"
    summary = atomic_write_text(out_dir / "summary.json", json.dumps(build_summary(results), indent=2))
    tables = {
        name: atomic_write_text(out_dir / f"{name}.tex", _noted(fn(results), results, f"tab:{name}"))
        for name, fn in (TABLES | INFERENCE_TABLES).items()
    }
    for arm in REPORTS:  # each arm's tables, only for runs that hold the arm
        for stem, table in (arm.tables(results) if arm.present(results) else {}).items():
            tables[stem] = atomic_write_text(out_dir / f"{stem}.tex", to_latex(table, f"tab:{stem}"))
    if evalplus_strength.present(results):  # EvalPlus's tiers or corrected reference in the records
        tables[evalplus_strength.TABLE] = atomic_write_text(
            out_dir / f"{evalplus_strength.TABLE}.tex",
            to_latex(evalplus_strength.strength_table(results), f"tab:{evalplus_strength.TABLE}"),
        )
    written = figures.save_figures(results, out_dir / "figures")
    log.info("analysis of %s written to %s", results.run_name, out_dir)
    return AnalysisOutputs(summary=summary, tables=tables, figures=written)
