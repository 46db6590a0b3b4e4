"""CLI commands for the pipeline layer (registered on import): ``tfr stage NAME|all``."""

from __future__ import annotations

import logging
from pathlib import Path
from typing import Annotated, Optional

import typer

from tfr_helpers.cli.apps import app
from tfr_helpers.cli.live import live_progress
from tfr_helpers.pipeline import STAGES, default_run_dir, load_config, run_stages
from tfr_helpers.pipeline.engine.faults import EXIT_INCOMPLETE, RunIncomplete


@app.command("stage")
def stage(
    name: Annotated[str, typer.Argument(help=f"A stage ({', '.join(STAGES)}) or 'all'.")],
    params: Annotated[Path, typer.Option(help="Experiment params YAML, e.g. papermill_params/smoke.yaml.")],
    run_dir: Annotated[
        Optional[Path],  # noqa: UP045 (typer needs Optional on 3.11)
        typer.Option(help="Run directory (default: runs/<run_name>)."),
    ] = None,
    progress: Annotated[
        bool, typer.Option(help="Show live progress (stage, done/total, calls and sandbox runs per second, cost, ETA).")
    ] = True,
) -> None:
    """Run one pipeline stage, or all of them, resuming work already recorded in the run directory.

    Exit codes: 0 done; 2 a user error (bad params, missing key); 3 items left undone because their model calls
    failed (or a wrong key, unknown model or exhausted quota stopped the run): rerun to continue.
    """
    logging.basicConfig(level=logging.WARNING, format="%(levelname)s %(name)s: %(message)s")
    config = load_config(params)
    try:
        with live_progress(run_dir or default_run_dir(config), enabled=progress):
            summary = run_stages(config, run_dir, name, progress=False)
    except RunIncomplete as exc:
        for line in exc.summary.lines() if exc.summary is not None else []:
            typer.echo(line)
        typer.echo(f"tfr: error: {exc}", err=True)
        raise typer.Exit(EXIT_INCOMPLETE) from None
    for line in summary.lines():
        typer.echo(line)
