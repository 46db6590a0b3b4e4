"""CLI commands for the notebooks layer (registered on import): ``tfr run``."""

from __future__ import annotations

from pathlib import Path
from typing import Annotated

import typer

from tfr_helpers.cli import app

ParamsOption = Annotated[Path, typer.Option("--params", help="Experiment params YAML (papermill_params/).")]
RunDirOption = Annotated[
    Path | None, typer.Option("--run-dir", help="Run directory (default: runs/<run_name> of the params).")
]


@app.command("run")
def run(params: ParamsOption = Path("papermill_params/default.yaml"), run_dir: RunDirOption = None) -> None:
    """Run the study: the notebook series with papermill, HTML exports, and a short summary.

    Exit codes: 0 done; 2 a user error or a failed notebook; 3 items left undone because their model calls
    failed (or a wrong key, unknown model or exhausted quota stopped the run): rerun to continue.
    """
    from tfr_helpers.notebooks import run_notebooks
    from tfr_helpers.pipeline.undone import EXIT_INCOMPLETE, RunIncomplete

    try:
        summary = run_notebooks(params, run_dir)
    except RunIncomplete as exc:
        typer.echo(f"tfr: error: {exc}", err=True)
        raise typer.Exit(EXIT_INCOMPLETE) from None
    for line in summary.lines():
        typer.echo(line)
