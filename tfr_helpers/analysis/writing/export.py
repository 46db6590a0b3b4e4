"""Writing the analysis of a run: ``analysis/summary.json``, the ``.tex`` tables and the figures."""

from __future__ import annotations

import json
import logging
import re
from dataclasses import dataclass, field
from pathlib import Path

import pandas as pd
from pandas.io.formats.style import Styler

from tfr_helpers.analysis import figures
from tfr_helpers.analysis.arms import reports
from tfr_helpers.analysis.inference_tables import INFERENCE_TABLES
from tfr_helpers.analysis.sensitivity import evalplus_strength
from tfr_helpers.analysis.summary import build_summary
from tfr_helpers.analysis.tables import LATEX_SHAPES, PAPER_CAPTIONS, TABLES, caption_with
from tfr_helpers.analysis.tidy.sources import is_simulated_model, model_display, source_label
from tfr_helpers.analysis.writing import latex
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
    """Escape LaTeX special characters in plain text (captions, cells, headers)."""
    return latex.escape(text)


def _noted(styler: Styler, results: Results, name: str) -> str:
    """A table standing alone (LaTeX) carries the run's source note in its ``%`` comments; its caption names the
    source of its rows and what it shows (:data:`PAPER_CAPTIONS`)."""
    note = caption_with("", results).strip()
    return to_latex(styler, f"tab:{name}", note=note, results=results, short=PAPER_CAPTIONS.get(name, ""))


def _arm_latex(styler: Styler, name: str, results: Results) -> str:
    """An arm's table standing alone: the run's source note in its ``%`` comments (a report says it once, under its
    sources table), its caption its own first sentences."""
    own = sentences(str(styler.caption or ""))
    note = caption_with("", results).strip()
    return to_latex(styler, f"tab:{name}", note=note, results=results, short=" ".join(own[:CAPTION_SENTENCES]))


CAPTION_SENTENCES = 2
"""Sentences of a LaTeX caption; the rest of the caption (definitions, provenance) goes to ``%`` comment lines."""
MODEL_LEVELS = ("Model", "model", "Set", "set")
"""Row-label level or column naming the model (or trajectory set) of a row: real and simulated rows are split by it."""


def sentences(text: str) -> list[str]:
    """``text`` cut into sentences (a full stop followed by a capital or a parenthesis)."""
    return [s for s in re.split(r"(?<=[.!?])\s+(?=[A-Z(])", text.strip()) if s]


def short_caption(text: str, note: str = "") -> str:
    """A caption of at most :data:`CAPTION_SENTENCES` sentences: the table's first sentence and the note's first
    (or the table's first two when there is no note)."""
    own, noted = sentences(text), sentences(note)
    return " ".join(own[:1] + noted[:1] if noted else own[:CAPTION_SENTENCES])


def _names(results: Results) -> dict[str, str]:
    """Every way a table may write a model (its id, ``id (source label)``, its display name) -> its id."""
    models = {s.model for s in results.model_sources}
    out: dict[str, str] = {}
    for model in models:
        for key in (model, f"{model} ({source_label(results, model)})", model_display(results, model)):
            out[key] = model
    return out


def _model_level(frame: pd.DataFrame) -> str | None:
    return next((n for n in frame.index.names if n in MODEL_LEVELS), None)


def _by_source(frame: pd.DataFrame, results: Results) -> list[tuple[str, pd.DataFrame]]:
    """The rows of real models and those of simulated ones as separate frames (``real``, ``simulated``; one
    ``""`` frame when the table names no model), models written by their display names, the Source column
    dropped (the caption says it)."""
    level = _model_level(frame)
    if level is None:
        return [("", frame)]
    names = _names(results)
    ids = [names.get(str(v), str(v)) for v in frame.index.get_level_values(level)]
    simulated = [is_simulated_model(results, m) if m in names.values() else m.startswith("sim:") for m in ids]
    shown = [model_display(results, m) if m in names.values() else m for m in ids]
    out = frame.drop(columns=[c for c in frame.columns if c == "Source" or (isinstance(c, tuple) and c[-1] == "Source")])
    if isinstance(out.index, pd.MultiIndex):
        position = list(out.index.names).index(level)
        out.index = pd.MultiIndex.from_tuples(
            [(*t[:position], s, *t[position + 1 :]) for t, s in zip(out.index, shown, strict=True)], names=out.index.names
        )
    else:
        out.index = pd.Index(shown, name=level)
    mask = pd.Series(simulated, index=range(len(simulated))).to_numpy()
    blocks = [("real", out[~mask]), ("simulated", out[mask])]
    return [(kind, part) for kind, part in blocks if len(part)] or [("", out)]


def _source_sentence(kind: str, frame: pd.DataFrame) -> str:
    level = _model_level(frame)
    if not kind or level is None:
        return ""
    names = list(dict.fromkeys(str(v) for v in frame.index.get_level_values(level)))
    if kind == "simulated":
        return f"Demo numbers, not evidence: {', '.join(names)}."
    return f"Real generations: {', '.join(names)}."


def to_latex(styler: Styler, label: str, note: str = "", results: Results | None = None, short: str = "") -> str:
    """Render a table Styler as booktabs LaTeX that fits a 17 cm text width (:mod:`tfr_helpers.analysis.writing.latex`):
    with ``results``, real and simulated rows in separate tables (``<label>`` and ``<label>-simulated``), models
    by their display names; a table too wide is split by its declared column groups, never by a part counter. The
    caption is the rows' source and the table's first sentence; the full caption goes to ``%`` comments above.

    Args:
        styler: A table (string cells, caption set).
        label: LaTeX label (``tab:<name>``).
        note: The run's source note (comments only).
        results: The run, to tell real from simulated rows and name models.
        short: The caption's sentence on what the table shows (default: the Styler caption's first sentence).

    Returns:
        One or more ``table`` environments, needing only ``booktabs``.
    """
    own = str(styler.caption or "")
    full = " ".join(p for p in (note, own) if p)
    frame = styler.data
    blocks = _by_source(frame, results) if results is not None else [("", frame)]
    out = [latex.comment(full)]
    for kind, part in blocks:
        source = _source_sentence(kind, part)
        what = short or " ".join(sentences(own)[:1])
        head = f"{source} {what}".strip() if source else (short or short_caption(own, note))
        out.append(latex.tables(part, head, label if kind != "simulated" or len(blocks) == 1 else f"{label}-simulated"))
    return "\n".join(x for x in out if x)


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
        name: atomic_write_text(out_dir / f"{name}.tex", _noted(LATEX_SHAPES.get(name, fn)(results), results, name))
        for name, fn in (TABLES | INFERENCE_TABLES).items()
    }
    for arm in reports():  # each arm's tables, only for runs that hold the arm
        for stem, table in (arm.tables(results) if arm.present(results) else {}).items():
            tables[stem] = atomic_write_text(out_dir / f"{stem}.tex", _arm_latex(table, stem, results))
    if evalplus_strength.present(results):  # EvalPlus's tiers or corrected reference in the records
        tables[evalplus_strength.TABLE] = atomic_write_text(
            out_dir / f"{evalplus_strength.TABLE}.tex",
            _arm_latex(evalplus_strength.strength_table(results), evalplus_strength.TABLE, results),
        )
    written = figures.save_figures(results, out_dir / "figures")
    log.info("analysis of %s written to %s", results.run_name, out_dir)
    return AnalysisOutputs(summary=summary, tables=tables, figures=written)
