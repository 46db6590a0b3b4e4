"""CLI commands for benchmarks (registered on import)."""

from __future__ import annotations

from pathlib import Path
from typing import Annotated, Optional

import typer

from tfr_helpers.benchmarks import benchmark_names, data_source, load_selection, load_tasks, selection_path
from tfr_helpers.cli.apps import benchmarks_app


@benchmarks_app.command("list")
def list_benchmarks(
    data_dir: Annotated[
        Optional[Path],  # noqa: UP045 (typer needs Optional on 3.11)
        typer.Option(help="Directory holding <benchmark>/<file> (default: $TFR_BENCHMARK_DIR, then cache/download)."),
    ] = None,
) -> None:
    """Print each benchmark with its task count and data source, then the BigCodeBench selection."""
    for benchmark in benchmark_names():
        tasks = load_tasks(benchmark, selected=False, data_dir=data_dir)
        typer.echo(f"{benchmark} {len(tasks)} ({data_source(benchmark, data_dir)})")
    selection = load_selection()
    selected = load_tasks("bigcodebench", selected=True, data_dir=data_dir)
    where = _display(selection_path())
    typer.echo(f"bigcodebench-selected {len(selected)} ({where}; {len(selection.excluded)} excluded)")


def _display(path: Path) -> str:
    """Show a path relative to the working directory when it lies below it."""
    try:
        return str(path.resolve().relative_to(Path.cwd().resolve()))
    except ValueError:
        return str(path)
