"""CLI commands for the execution cache: ``tfr cache info`` / ``tfr cache clear`` (registered on import)."""

from __future__ import annotations

import typer

from tfr_helpers.cli import app
from tfr_helpers.sandbox.cache import ExecutionCache, enabled_by_env

cache_app = typer.Typer(
    help="The execution cache: sandbox runs served instead of run again (model replies have their own cache).",
    no_args_is_help=True,
)
app.add_typer(cache_app, name="cache")


@cache_app.command("info")
def info() -> None:
    """Print where the execution cache is, how many runs it holds and their size."""
    cache = ExecutionCache()
    entries, size = cache.size()
    state = "on" if enabled_by_env() else "off (TFR_EXEC_CACHE)"
    typer.echo(f"execution cache: {cache.root} ({state})")
    typer.echo(f"entries: {entries}, {size / 1e6:.1f} MB")


@cache_app.command("clear")
def clear() -> None:
    """Delete every stored program run (the model response cache is left alone)."""
    cache = ExecutionCache()
    typer.echo(f"removed {cache.clear()} entries from {cache.root}")
