"""CLI commands for the pipeline layer (registered on import): ``tfr stage NAME|all``."""

from __future__ import annotations

import logging
from pathlib import Path
from typing import Annotated, Optional

import typer

from tfr_helpers.cli import app
from tfr_helpers.pipeline import STAGES, load_config, run_stages


@app.command("stage")
def stage(
    name: Annotated[str, typer.Argument(help=f"A stage ({', '.join(STAGES)}) or 'all'.")],
    params: Annotated[Path, typer.Option(help="Experiment params YAML, e.g. papermill_params/smoke.yaml.")],
    run_dir: Annotated[
        Optional[Path],  # noqa: UP045 (typer needs Optional on 3.11)
        typer.Option(help="Run directory (default: runs/<run_name>)."),
    ] = None,
    progress: Annotated[bool, typer.Option(help="Show progress bars.")] = True,
) -> None:
    """Run one pipeline stage, or all of them, resuming work already recorded in the run directory."""
    logging.basicConfig(level=logging.WARNING, format="%(levelname)s %(name)s: %(message)s")
    config = load_config(params)
    summary = run_stages(config, run_dir, name, progress=progress)
    for line in summary.lines():
        typer.echo(line)
