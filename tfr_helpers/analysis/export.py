"""Writing the analysis of a run: ``analysis/summary.json``, the ``.tex`` tables and the figures."""

from __future__ import annotations

import json
import logging
from dataclasses import dataclass, field
from pathlib import Path

from pandas.io.formats.style import Styler

from tfr_helpers.analysis import figures
from tfr_helpers.analysis.arms import (
    controls,
    controls_report,
    oracle,
    rounds,
    test_strength,
    trajectories,
    trajectories_report,
)
from tfr_helpers.analysis.inference_tables import INFERENCE_TABLES
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


def _noted(styler: Styler, results: Results) -> Styler:
    """A table standing alone (LaTeX) carries the run's source note in its caption, as summary.json does."""
    return styler.set_caption(caption_with(str(styler.caption or ""), results))


def to_latex(styler: Styler, label: str) -> str:
    """Render a table Styler as a booktabs LaTeX table (cells and headers escaped, no extra packages).

    Args:
        styler: A table from :mod:`tfr_helpers.analysis.tables` (string cells, caption set).
        label: LaTeX label (``tab:<name>``).

    Returns:
        A ``table`` environment needing only ``booktabs``.
    """
    escaped = styler.data.copy()
    escaped.index = escaped.index.set_names([escape_latex(str(n)) if n else n for n in escaped.index.names])
    out = escaped.style.format(escape="latex").format_index(escape="latex", axis=0)
    out = out.format_index(escape="latex", axis=1)
    return out.to_latex(
        caption=escape_latex(str(styler.caption or "")),
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
        name: atomic_write_text(out_dir / f"{name}.tex", to_latex(_noted(fn(results), results), f"tab:{name}"))
        for name, fn in (TABLES | INFERENCE_TABLES).items()
    }
    if oracle.present(results):  # the oracle-repaired arm's table, only for runs that have the arm
        tables[oracle.TABLE] = atomic_write_text(
            out_dir / f"{oracle.TABLE}.tex", to_latex(oracle.oracle_table(results), f"tab:{oracle.TABLE}")
        )
    if rounds.present(results):  # multi-round backprompting's table, only for runs with rounds
        tables[rounds.TABLE] = atomic_write_text(
            out_dir / f"{rounds.TABLE}.tex", to_latex(rounds.rounds_table(results), f"tab:{rounds.TABLE}")
        )
    if test_strength.present(results):  # EvalPlus's tiers or corrected reference in the records
        tables[test_strength.TABLE] = atomic_write_text(
            out_dir / f"{test_strength.TABLE}.tex",
            to_latex(test_strength.strength_table(results), f"tab:{test_strength.TABLE}"),
        )
    if controls.present(results):  # RQ2 with controls, only for runs that have the control arm
        tables[controls_report.TABLE] = atomic_write_text(
            out_dir / f"{controls_report.TABLE}.tex",
            to_latex(controls_report.controls_table(results), f"tab:{controls_report.TABLE}"),
        )
    if trajectories.present(results):  # real refinement trajectories, only for runs that replay them
        tables[trajectories_report.TABLE] = atomic_write_text(
            out_dir / f"{trajectories_report.TABLE}.tex",
            to_latex(trajectories_report.trajectories_table(results), f"tab:{trajectories_report.TABLE}"),
        )
    written = figures.save_figures(results, out_dir / "figures")
    log.info("analysis of %s written to %s", results.run_name, out_dir)
    return AnalysisOutputs(summary=summary, tables=tables, figures=written)
