"""The ``tfr`` command: one thin function per subcommand over the public ``tfr_helpers`` API."""

from __future__ import annotations

import sys

import typer

from tfr_helpers.errors import TfrError
from tfr_helpers.launch import pin_environment

app = typer.Typer(
    help="tfr: can we trust test-execution feedback from LLM-generated tests for code refinement?",
    no_args_is_help=True,
    pretty_exceptions_enable=False,
)
benchmarks_app = typer.Typer(help="Benchmarks: list tasks and verify reference solutions.", no_args_is_help=True)
app.add_typer(benchmarks_app, name="benchmarks")

# Each module registers its commands on `app` / `benchmarks_app`; imported for that side effect.
from tfr_helpers.cli import (  # noqa: E402,F401
    analysis_cmds,
    benchmarks_cmds,
    cache_cmds,
    estimate_cmds,
    models_cmds,
    notebooks_cmds,
    pipeline_cmds,
    replay_cmds,
    sandbox_cmds,
    select_cmds,
)


def main() -> None:
    """Entry point of the console script: user errors become one line on stderr and exit code 2."""
    from tfr_helpers.cli.log_lines import plain_progress

    pin_environment()  # relative data and cache paths: from here, in every kernel and worker too
    plain_progress()
    try:
        app()
    except TfrError as exc:
        print(f"tfr: error: {exc}", file=sys.stderr)
        sys.exit(2)
