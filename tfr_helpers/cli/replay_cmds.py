"""CLI commands for replayed generations: ``tfr replay list`` (registered on import)."""

from __future__ import annotations

from pathlib import Path
from typing import Annotated, Optional

import typer

from tfr_helpers.cli.apps import app
from tfr_helpers.replay import DATASETS, load_import_dir, load_replay, replay_source, summarize
from tfr_helpers.replay.trajectories.sets import (
    TRAJECTORY_SETS,
    describe,
    is_trajectory_dir,
    load_trajectories,
    trajectory_source,
)

replay_app = typer.Typer(help="Replayed real generations: published datasets and your own files.", no_args_is_help=True)
app.add_typer(replay_app, name="replay")


@replay_app.command("list")
def list_replay(
    dirs: Annotated[
        Optional[list[Path]],  # noqa: UP045 (typer needs Optional on 3.11)
        typer.Argument(
            help="Directories in the import format (code.jsonl / tests.jsonl), or of trajectories "
            "(trajectories.jsonl or Reflexion-format logs), to list as well."
        ),
    ] = None,
    replay_dir: Annotated[
        Optional[Path],  # noqa: UP045
        typer.Option(help="Directory holding <folder>/<file> (default: $TFR_REPLAY_DIR, then cache/download)."),
    ] = None,
) -> None:
    """Print each dataset (model, tasks, code and test samples per task, tests, license and source), then each
    trajectory set (model, protocol, tasks, steps)."""
    for name, spec in DATASETS.items():
        dataset = load_replay(name, replay_dir)
        typer.echo(f"{name}: {spec.model} on {spec.benchmark}, {summarize(dataset).line()}")
        typer.echo(f"  license {spec.license}; source {spec.source}; files: {replay_source(name, replay_dir)}")
    for directory in dirs or []:
        if is_trajectory_dir(directory):
            typer.echo(describe(load_trajectories(str(directory))))
            continue
        dataset = load_import_dir(directory)
        typer.echo(f"{dataset.name}: {dataset.model} on {dataset.benchmark}, {summarize(dataset).line()}")
        typer.echo(f"  license {dataset.license}; source {dataset.source}")
    for name, spec in TRAJECTORY_SETS.items():
        typer.echo(describe(load_trajectories(name, replay_dir)))
        typer.echo(f"  license {spec.license}; source {spec.source}; files: {trajectory_source(name, replay_dir)}")
