"""``tfr screen``: the screeners and what each declares; the learned gold-free screener's artefact (registered on
import)."""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path
from typing import Annotated, Optional

import typer

from tfr_helpers.cli.apps import app
from tfr_helpers.pipeline.engine.store import RunStore
from tfr_helpers.pipeline.screening.registry import FAMILIES, describe, registered_screeners
from tfr_helpers.records import ProgramRun
from tfr_helpers.sandbox import Limits, Sandbox, TestSpec
from tfr_helpers.sandbox.cache import ExecutionCache
from tfr_helpers.screener.artefact import DEFAULT_ARTEFACT, load_artefact, save_artefact

screen_app = typer.Typer(
    help="The screeners: list them; the learned gold-free screener: train its artefact, check it.", no_args_is_help=True
)
app.add_typer(screen_app, name="screen")


@screen_app.command("train")
def train_cmd(
    run_dir: Annotated[list[Path], typer.Option(help="A run directory with real (replayed or API) coders; repeatable.")],
    out: Annotated[Path, typer.Option(help="Where to write the artefact.")] = DEFAULT_ARTEFACT,
    workers: Annotated[Optional[int], typer.Option(help="Sandbox workers (default: CPU count).")] = None,  # noqa: UP045
) -> None:
    """Fit the screener on the labelled test-fail feedback of real coders (never sim) and write its JSON artefact."""
    # scikit-learn and pandas load in this command, not at every ``tfr`` start
    from tfr_helpers.screener.dataset import data_provenance, examples_of_runs
    from tfr_helpers.screener.train import train

    limits = Limits(timeout_s=10.0)
    cache = ExecutionCache()
    with Sandbox(limits, workers=workers) as sandbox:

        def execute(jobs: Sequence[tuple[str, Sequence[TestSpec]]]) -> list[ProgramRun]:
            """The prompt examples' runs, served by the execution cache where it holds them."""
            return cache.run_many(jobs, limits, lambda todo: sandbox.run_many(todo, desc="prompt examples"))

        examples = examples_of_runs(run_dir, execute)
    runs = [RunStore(d).read_json("config.json")["config"]["run_name"] for d in run_dir]
    provenance = {
        "runs": runs,
        "datasets": data_provenance(run_dir),
        "command": "tfr screen train " + " ".join(f"--run-dir <run {name}>" for name in runs),
    }
    body, _ = train(examples, provenance)
    save_artefact(body, out)
    sel = body["selection"]["grouped_cv_auroc"]
    typer.echo(
        f"{out}: {body['training']['items']} items, grouped CV AUROC {sel['calibrated_logistic_regression']:.3f} "
        f"(gradient boosting {sel['gradient_boosting']:.3f}), threshold {body['threshold']:.3f}, sha256 {body['sha256']}"
    )


@screen_app.command("check")
def check_cmd(
    artefact: Annotated[Path, typer.Option(help="The artefact to check.")] = DEFAULT_ARTEFACT,
) -> None:
    """Check an artefact's sha256 and print its provenance."""
    a = load_artefact(artefact)
    typer.echo(f"{artefact}: sha256 {a.sha256} ok; scikit-learn {a.sklearn_version}; threshold {a.threshold:.3f}")
    for source, facts in a.training.get("sources", {}).items():
        typer.echo(f"  trained on {source}: {facts}")


@screen_app.command("list")
def list_cmd() -> None:
    """Every screener a params file's ``screening`` list may name (built-ins and installed plugins) and what it
    declares: the model it calls, the code samples, sandbox and artefact it needs, whether it scores or abstains."""
    screeners = registered_screeners()
    width = max(len(s.name) for s in screeners)
    for screener in screeners:
        typer.echo(f"{screener.name:<{width}}  {describe(screener)}")
    families = ", ".join(f"{prefix}@<arg>" for prefix in sorted(FAMILIES))
    typer.echo(f"also: {families + ', ' if families else ''}or an import path package.module:function")
