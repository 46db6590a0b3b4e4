"""The ``tfr`` command: one thin function per subcommand over the public ``tfr_helpers`` API."""

from __future__ import annotations

import sys

# Each module registers its commands on `app` / `benchmarks_app`; imported for that side effect.
from tfr_helpers.cli import (  # noqa: F401
    analysis_cmds,
    benchmarks_cmds,
    cache_cmds,
    estimate_cmds,
    models_cmds,
    notebooks_cmds,
    pipeline_cmds,
    replay_cmds,
    sandbox_cmds,
    screen_cmds,
    select_cmds,
)
from tfr_helpers.cli.apps import app, benchmarks_app
from tfr_helpers.cli.log_lines import plain_progress
from tfr_helpers.errors import TfrError
from tfr_helpers.launch import pin_environment

__all__ = ["app", "benchmarks_app", "main"]


def main() -> None:
    """Entry point of the console script: user errors become one line on stderr and exit code 2."""
    pin_environment()  # relative data and cache paths: from here, in every kernel and worker too
    plain_progress()
    try:
        app()
    except TfrError as exc:
        print(f"tfr: error: {exc}", file=sys.stderr)
        sys.exit(2)
