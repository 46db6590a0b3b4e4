"""CLI command ``tfr estimate`` (registered on import): calls, tokens and cost of a study before any call."""

from __future__ import annotations

from pathlib import Path
from typing import Annotated, Optional

import typer

from tfr_helpers.cli.apps import app
from tfr_helpers.errors import ConfigError
from tfr_helpers.pipeline import load_config
from tfr_helpers.pipeline.estimate.dry_run import estimate as run_estimate


def parse_fail_rate(text: str) -> tuple[float, float]:
    """``0.1,0.5`` -> (0.1, 0.5).

    Raises:
        ConfigError: not two rates 0 <= low <= high <= 1.
    """
    try:
        low, high = (float(x) for x in text.split(","))
    except ValueError:
        raise ConfigError(f"--fail-rate {text!r}: give two rates LOW,HIGH, e.g. 0.1,0.5") from None
    if not 0 <= low <= high <= 1:
        raise ConfigError(f"--fail-rate {text!r}: need 0 <= LOW <= HIGH <= 1")
    return low, high


@app.command("estimate")
def estimate(
    params: Annotated[Path, typer.Option(help="Experiment params YAML, e.g. papermill_params/openai.yaml.")],
    run_dir: Annotated[
        Optional[Path],  # noqa: UP045 (typer needs Optional on 3.11)
        typer.Option(help="A run directory: its finished work is free, its evaluated outcomes make counts exact."),
    ] = None,
    fail_rate: Annotated[
        str, typer.Option(help="Assumed share of (test, code) pairs that fail, LOW,HIGH (without an evaluated run).")
    ] = "0.1,0.5",
) -> None:
    """Calls per stage and role, input/output tokens and cost in USD per model, with ranges; sends nothing."""

    result = run_estimate(load_config(params), run_dir, parse_fail_rate(fail_rate))
    for line in result.table():
        typer.echo(line)
