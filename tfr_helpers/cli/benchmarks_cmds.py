"""CLI commands for benchmarks (registered on import)."""

from __future__ import annotations

from tfr_helpers.cli import benchmarks_app


@benchmarks_app.command("list")
def list_benchmarks() -> None:
    """Print each benchmark with its task count and where its data came from."""
    raise NotImplementedError
