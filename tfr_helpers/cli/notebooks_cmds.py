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
    """Run the study: the notebook series with papermill, HTML exports, and a short summary."""
    from tfr_helpers.notebooks import run_notebooks

    summary = run_notebooks(params, run_dir)
    for line in summary.lines():
        typer.echo(line)
