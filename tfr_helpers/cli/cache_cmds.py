"""CLI commands for the execution cache: ``tfr cache info`` / ``tfr cache clear`` (registered on import)."""

from __future__ import annotations

import shutil
from pathlib import Path

import typer

from tfr_helpers.cli.apps import app
from tfr_helpers.sandbox.cache import ExecutionCache, enabled_by_env
from tfr_helpers.sandbox.pool import bytecode_dir

cache_app = typer.Typer(
    help="The execution cache: sandbox runs served instead of run again (model replies have their own cache).",
    no_args_is_help=True,
)
app.add_typer(cache_app, name="cache")


def warm_dirs() -> dict[str, Path]:
    """What warm sandbox workers keep beside the execution cache (rebuilt by the next worker that starts)."""

    bytecode = bytecode_dir()
    return {"preload bytecode": bytecode, "Hypothesis tables": bytecode.parent / "hypothesis"}


def _size(path: Path) -> int:
    return sum(f.stat().st_size for f in path.rglob("*") if f.is_file()) if path.is_dir() else 0


@cache_app.command("info")
def info() -> None:
    """Print where the execution cache is, how many runs it holds and their size, and the warm workers' files."""
    cache = ExecutionCache()
    entries, size = cache.size()
    state = "on" if enabled_by_env() else "off (TFR_EXEC_CACHE)"
    typer.echo(f"execution cache: {cache.root} ({state})")
    typer.echo(f"entries: {entries}, {size / 1e6:.1f} MB")
    for what, path in warm_dirs().items():
        typer.echo(f"{what}: {path}, {_size(path) / 1e6:.1f} MB")


@cache_app.command("clear")
def clear() -> None:
    """Delete every stored program run and the warm workers' files (the model response cache is left alone)."""
    cache = ExecutionCache()
    typer.echo(f"removed {cache.clear()} entries from {cache.root}")
    for what, path in warm_dirs().items():
        if path.is_dir():
            size = _size(path)
            shutil.rmtree(path)
            typer.echo(f"removed the {what} ({size / 1e6:.1f} MB) from {path}")
