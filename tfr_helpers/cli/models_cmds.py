"""CLI commands for the models layer (registered on import)."""

from __future__ import annotations

from pathlib import Path
from typing import Annotated, Optional

import typer

from tfr_helpers.cli.apps import app
from tfr_helpers.errors import ConfigError
from tfr_helpers.models import Message, ModelClient, ModelRequest, ModelSettings, ModelSpec, check_credentials

_ROLES = ("coder", "tester", "refiner", "judge")


@app.command("llm")
def llm(
    model: Annotated[str, typer.Option(help="Model as provider:model, e.g. sim:default, openai:gpt-5-mini.")],
    prompt: Annotated[str, typer.Option(help="The user message to send.")],
    role: Annotated[str, typer.Option(help="Role recorded for accounting: coder, tester, refiner or judge.")] = "coder",
    run_dir: Annotated[
        Optional[Path],  # noqa: UP045 (typer needs Optional on 3.11)
        typer.Option(help="Run directory to append the raw call to (calls/llm.jsonl); none by default."),
    ] = None,
    cache: Annotated[str, typer.Option(help="Response cache mode: use, refresh or off.")] = "use",
) -> None:
    """One call through the model layer (credentials, cache, retries, accounting); print text and usage."""

    if role not in _ROLES:
        raise ConfigError(f"--role {role!r} is not one of {', '.join(_ROLES)}")
    if cache not in ("use", "refresh", "off"):
        raise ConfigError(f"--cache {cache!r} is not one of use, refresh, off")
    spec = ModelSpec.parse(model)
    settings = ModelSettings(cache_mode=cache)  # type: ignore[arg-type]
    check_credentials([spec], settings)
    request = ModelRequest(
        messages=(Message("user", prompt),),
        role=role,  # type: ignore[arg-type]
        template="adhoc",
        template_version="1",
    )
    with ModelClient(settings, run_dir=run_dir) as client:
        reply = client.call(spec, request, stage="llm")
    rec = reply.record
    if reply.text is not None:
        typer.echo(reply.text)
    usage = (
        f"model={rec.model} role={rec.role} cached={rec.cached} input_tokens={rec.usage.input_tokens} "
        f"output_tokens={rec.usage.output_tokens} cost_usd={rec.usage.cost_usd:.6f} "
        f"latency_s={rec.latency_s:.2f}"
    )
    typer.echo(f"[usage] {usage}", err=True)
    if rec.error is not None:
        typer.echo(f"tfr: call failed: {rec.error}", err=True)
        raise typer.Exit(1)
