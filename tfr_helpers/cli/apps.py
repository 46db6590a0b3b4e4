"""The ``tfr`` Typer apps every command module registers on: the top-level ``app`` and ``tfr benchmarks``."""

from __future__ import annotations

import typer

app = typer.Typer(
    help="tfr: can we trust test-execution feedback from LLM-generated tests for code refinement?",
    no_args_is_help=True,
    pretty_exceptions_enable=False,
)
benchmarks_app = typer.Typer(help="Benchmarks: list tasks and verify reference solutions.", no_args_is_help=True)
app.add_typer(benchmarks_app, name="benchmarks")
