"""CLI commands for the analysis layer (registered on import): ``tfr analyze`` and ``tfr cases``."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Annotated

import typer

from tfr_helpers.cli.apps import app

RunDirOption = Annotated[Path, typer.Option("--run-dir", help="Run directory holding results.json (runs/<run>).")]


@app.command("analyze")
def analyze_cmd(run_dir: RunDirOption) -> None:
    """Write analysis/summary.json, the LaTeX tables and the figures of a finished run; print RQ1's headline
    per model and source, and per replayed trajectory set its steps, step classes and P(Pass->Fail | passed); of
    a multi-seed run, each headline number as mean +- SE over seeds, then each seed's lines."""
    # the analysis stack (pandas, matplotlib, seaborn, statsmodels) loads in the commands that analyse, not at
    # every ``tfr`` start
    from tfr_helpers.analysis import analyze
    from tfr_helpers.analysis.runs import summary_lines

    out = analyze(run_dir)
    for line in summary_lines(json.loads(out.summary.read_text(encoding="utf-8")), run_dir):
        typer.echo(line)
    typer.echo(f"summary: {out.summary}")
    for path in out.tables.values():
        typer.echo(f"table:   {path}")
    typer.echo(f"figures: {len(out.figures)} files in {out.summary.parent / 'figures'}")


@app.command("cases")
def cases_cmd(
    run_dir: RunDirOption,
    out: Annotated[Path | None, typer.Option("--out", help="Output file (default: <run-dir>/refinement_cases.md).")] = None,
) -> None:
    """Write refinement_cases.md: every refinement attempt traced with links to its artifacts."""
    from tfr_helpers.analysis import write_refinement_cases  # the analysis stack loads only here (see above)

    typer.echo(str(write_refinement_cases(run_dir, out)))
