"""CLI commands for the sandbox layer: ``tfr exec``, ``tfr evaluate``, ``tfr benchmarks verify``."""

from __future__ import annotations

import json
import logging
from collections import defaultdict
from pathlib import Path
from typing import Annotated, Any

import typer

from tfr_helpers.cli import app, benchmarks_app
from tfr_helpers.errors import ConfigError, DataError
from tfr_helpers.sandbox import Limits, Sandbox
from tfr_helpers.sandbox.evaluate import describe, first_problem, pass_at_k, tests_from_file

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


@benchmarks_app.command("verify")
def verify_cmd(
    benchmark: Annotated[list[str] | None, typer.Option(help="Benchmark(s) to verify (default: all).")] = None,
    runs: Annotated[int, typer.Option(help="Runs per reference; a reference must pass every run.")] = 1,
    timeout: Annotated[float, typer.Option(help="Wall-clock seconds per test.")] = 20.0,
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
    """Run every reference solution against its benchmark tests (BigCodeBench: the selection)."""
    from tfr_helpers.benchmarks import BENCHMARKS, benchmark_tests, load_tasks

    if update_selection:
        from tfr_helpers.benchmarks.selection import regenerate_with_stage2, selection_path

        with Sandbox(Limits(timeout_s=timeout), workers=workers) as sandbox:
            sel = regenerate_with_stage2(sandbox, runs=runs, progress=True)
        stage2 = {k: v for k, v in sel.excluded.items() if v.startswith("sandbox:")}
        typer.echo(f"{selection_path()}: {len(sel.selected)} selected; stage 2 excluded {len(stage2)}:")
        for task_id, reason in stage2.items():
            typer.echo(f"  {task_id}: {reason}")
        return

    names = benchmark or list(BENCHMARKS)
    for name in names:
        if name not in BENCHMARKS:
            raise ConfigError(f"unknown benchmark {name!r}; choose from {', '.join(BENCHMARKS)}")
    if runs < 1:
        raise ConfigError("--runs must be at least 1")
    failed_any = False
    with Sandbox(Limits(timeout_s=timeout), workers=workers) as sandbox:
        for name in names:
            tasks = load_tasks(name)
            jobs = [(t.reference, benchmark_tests(t)) for t in tasks]
            failures: dict[str, str] = {}
            for r in range(runs):
                results = sandbox.run_many(jobs, progress=True, desc=f"{name} run {r + 1}/{runs}")
                for task, run in zip(tasks, results, strict=True):
                    problem = first_problem(run)
                    if problem is not None and task.task_id not in failures:
                        failures[task.task_id] = f"run {r + 1}: {describe(problem)}"
            typer.echo(f"{name}: {len(tasks) - len(failures)}/{len(tasks)} reference solutions pass")
            for task_id, text in failures.items():
                typer.echo(f"  {task_id}: {text}")
            failed_any = failed_any or bool(failures)
    raise typer.Exit(1 if failed_any else 0)


@app.command("evaluate")
def evaluate_cmd(
    benchmark: Annotated[str, typer.Option(help="humaneval, mbpp or bigcodebench.")],
    samples: Annotated[Path, typer.Option(help="JSONL with task_id and completion (appended to the prompt) or solution.")],
    timeout: Annotated[float, typer.Option(help="Wall-clock seconds per test.")] = 10.0,
    workers: Annotated[int | None, typer.Option(help="Sandbox workers (default: CPU count).")] = None,
) -> None:
    """Evaluate a human-eval/evalplus samples file; write ``<samples>_results.jsonl``; print pass@k."""
    from tfr_helpers.benchmarks import BENCHMARKS, benchmark_tests, load_tasks

    if benchmark not in BENCHMARKS:
        raise ConfigError(f"unknown benchmark {benchmark!r}; choose from {', '.join(BENCHMARKS)}")
    tasks = {t.task_id: t for t in load_tasks(benchmark, selected=False)}
    rows = _read_samples(samples, tasks)
    jobs = []
    for row in rows:
        task = tasks[row["task_id"]]
        # human-eval: prompt + completion; BigCodeBench/MBPP: code prompt (signature) + completion
        prompt = task.description if task.benchmark == "humaneval" else task.signature
        program = row["solution"] if "solution" in row else prompt + row["completion"]
        jobs.append((program, benchmark_tests(task)))
    with Sandbox(Limits(timeout_s=timeout), workers=workers) as sandbox:
        results = sandbox.run_many(jobs, progress=True, desc=f"evaluate {samples.name}")
    out = samples.with_name(samples.name.removesuffix(".jsonl") + "_results.jsonl")
    per_task: dict[str, list[bool]] = defaultdict(list)
    with out.open("w", encoding="utf-8") as fh:
        for row, run in zip(rows, results, strict=True):
            problem = first_problem(run)
            per_task[row["task_id"]].append(run.passed)
            fh.write(
                json.dumps(
                    {
                        **row,
                        "passed": run.passed,
                        "result": "passed" if run.passed else describe(problem) if problem else "failed",
                        "outcomes": [o.model_dump() for o in run.outcomes],
                    }
                )
                + "\n"
            )
    counts = [(len(v), sum(v)) for v in per_task.values()]
    typer.echo(f"{len(rows)} samples on {len(per_task)} tasks; results: {out}")
    for k in [k for k in (1, 10, 100) if all(n >= k for n, _ in counts)]:
        value = sum(pass_at_k(n, c, k) for n, c in counts) / len(counts)
        typer.echo(f"pass@{k}: {100 * value:.2f}%")


def _read_samples(path: Path, tasks: dict[str, Any]) -> list[dict[str, Any]]:
    rows = []
    for lineno, line in enumerate(_read(path, "samples").splitlines(), 1):
        if not line.strip():
            continue
        try:
            row = json.loads(line)
        except ValueError as exc:
            raise DataError(f"{path}:{lineno}: not JSON ({exc}); one JSON object per line expected") from exc
        task_id = row.get("task_id")
        if task_id not in tasks:
            alt = _native_id(str(task_id))
            if alt not in tasks:
                raise DataError(f"{path}:{lineno}: unknown task_id {task_id!r} for this benchmark; fix the samples file")
            row["task_id"] = alt
        if "completion" not in row and "solution" not in row:
            raise DataError(f"{path}:{lineno}: needs a `completion` or a `solution` field")
        rows.append(row)
    if not rows:
        raise DataError(f"{path} holds no samples")
    return rows


def _native_id(task_id: str) -> str:
    """Map evalplus-style ids (``Mbpp/2``) to ours (``MBPP/2``)."""
    prefix, _, num = task_id.partition("/")
    return {"mbpp": "MBPP", "humaneval": "HumanEval", "bigcodebench": "BigCodeBench"}.get(prefix.lower(), prefix) + "/" + num
