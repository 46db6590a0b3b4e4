"""``tfr select``: execution-consensus selection over replayed generations (registered on import)."""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING, Annotated, Optional, cast

import typer

from tfr_helpers.cli.apps import app
from tfr_helpers.errors import ConfigError

if TYPE_CHECKING:
    from tfr_helpers.consensus.matrix import Semantics


def _ks(text: str) -> list[int]:
    try:
        return [int(k) for k in text.split(",") if k.strip()]
    except ValueError:
        raise ConfigError(f"--k takes comma-separated integers (e.g. 1,2,10), not {text!r}") from None


@app.command("select")
def select_cmd(
    benchmark: Annotated[str, typer.Option(help="The benchmark the generations belong to (humaneval, mbpp, ...).")],
    replay: Annotated[
        Optional[str],  # noqa: UP045 (typer needs Optional on 3.11)
        typer.Option(help="A replay dataset name (codet-codegen16b-humaneval) or an import-format directory."),
    ] = None,
    codes: Annotated[Optional[Path], typer.Option(help="Code samples in the import format (code.jsonl).")] = None,  # noqa: UP045
    tests: Annotated[Optional[Path], typer.Option(help="Test samples in the import format (tests.jsonl).")] = None,  # noqa: UP045
    strategy: Annotated[
        list[str], typer.Option(help="Strategy name, repeatable or comma-separated; 'all' for every one.")
    ] = ["all"],  # noqa: B006 - typer needs a list default
    semantics: Annotated[
        str, typer.Option(help="single: one test at a time; packed: CodeT's released form (one function, 0.1 s alarms).")
    ] = "single",
    k: Annotated[str, typer.Option(help="The k values of pass@k, comma-separated.")] = "1,2,10",
    timeout: Annotated[float, typer.Option(help="Seconds per generated test (CodeT: 0.1).")] = 0.1,
    truth_timeout: Annotated[float, typer.Option(help="Seconds for a program's run on the benchmark tests.")] = 1.0,
    workers: Annotated[Optional[int], typer.Option(help="Sandbox workers (default: CPU count).")] = None,  # noqa: UP045
    run_dir: Annotated[
        Optional[Path], typer.Option(help="Where matrices are cached (default runs/select_<dataset>).")  # noqa: UP045
    ] = None,
    progress: Annotated[bool, typer.Option(help="Show a progress bar while executing.")] = False,
) -> None:
    """Rank each task's programs by execution consensus and print pass@k per strategy with the random baseline."""

    # the consensus package (pandas, its figures) loads in this command, not at every ``tfr`` start
    from tfr_helpers.consensus.selection_run import load_generations, run_selection

    if semantics not in ("single", "packed"):
        raise ConfigError(f"--semantics is single or packed, not {semantics!r}")
    names = [n.strip() for s in strategy for n in s.split(",") if n.strip()]
    dataset = load_generations(benchmark, replay, codes, tests)
    sel = run_selection(
        dataset,
        run_dir,
        names,
        cast("Semantics", semantics),
        _ks(k),
        timeout,
        truth_timeout,
        workers,
        progress,
    )
    s, report = sel.stats, sel.report
    typer.echo(f"{dataset.name}: {dataset.model} on {dataset.benchmark}, real generations ({dataset.origin})")
    typer.echo(
        f"{report.tasks} tasks, semantics {semantics}; matrices in {sel.run_dir} ({s.cached_tasks} tasks cached, "
        f"{s.program_runs} program runs, {s.executions} executions and {s.output_evaluations} output evaluations now, "
        f"{s.seconds:.1f} s)"
    )
    typer.echo(report.frame().round(2).to_string())
    typer.echo("pass@k in %; random = the unbiased estimator over all code samples; fallback tasks use it too")
    for row in report.rows:
        if row.info.get("not_converged"):
            typer.echo(f"{row.strategy}: did not converge within its iterations on {int(row.info['not_converged'])} tasks")
    for task_id, why in report.skipped.items():
        typer.echo(f"left out: {task_id} ({why})")
