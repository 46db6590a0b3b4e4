"""BigCodeBench v0.1.0 (1140 tasks, Apache-2.0), the Hugging Face format file ``BigCodeBench.jsonl.gz``.

Mapping to :class:`~tfr_helpers.records.Task`: description = ``instruct_prompt`` (the natural-language
"instruct" split); signature = ``code_prompt`` (imports + ``def task_func(...):``); reference =
code_prompt + canonical_solution; tests = ``test`` (a unittest module defining ``TestCases``);
test_format ``unittest``; libraries = ``libs`` (stored as a Python list literal in the file); examples = the
docstring's ``Example:`` doctest session (``doc_struct``; the ``complete_prompt`` split shows it, the instruct
split does not), which the learned screener runs on the generated code.
"""

from __future__ import annotations

import ast
import json
from pathlib import Path
from typing import Any

from tfr_helpers.benchmarks.files import read_records
from tfr_helpers.benchmarks.registry import BenchmarkEntry, register_benchmark
from tfr_helpers.benchmarks.selection_file import load_selection
from tfr_helpers.benchmarks.sources import BIGCODEBENCH
from tfr_helpers.errors import DataError
from tfr_helpers.records import Task


def parse_libs(value: object) -> list[str]:
    """Return BigCodeBench ``libs`` as a list of names (the file stores a literal like ``"['os', 're']"``).

    Args:
        value: The raw ``libs`` value (a list or its Python literal).

    Returns:
        Library names in the data's order.

    Raises:
        ValueError: The value is neither a list of strings nor its literal.
    """
    libs = ast.literal_eval(value) if isinstance(value, str) else value
    if not isinstance(libs, (list, tuple)) or not all(isinstance(x, str) for x in libs):
        raise ValueError(f"libs is not a list of names: {value!r}")
    return list(libs)


def bigcodebench_task(record: dict[str, Any]) -> Task:
    """Turn one BigCodeBench record into a :class:`Task`.

    Args:
        record: A line of ``BigCodeBench.jsonl.gz``.

    Returns:
        The task.

    Raises:
        ValueError: ``libs`` is malformed.
    """
    return Task(
        task_id=record["task_id"],
        benchmark="bigcodebench",
        description=record["instruct_prompt"],
        entry_point=record["entry_point"],
        signature=record["code_prompt"],
        reference=record["code_prompt"] + record["canonical_solution"],
        tests=record["test"],
        test_format="unittest",
        libraries=parse_libs(record["libs"]),
        examples=doc_examples(record),
    )


def doc_examples(record: dict[str, Any]) -> list[str]:
    """The ``Example:`` doctest session of the task's docstring (``doc_struct.examples``, as ``complete_prompt``
    shows it), as one block of lines; empty when the record has none."""
    raw = record.get("doc_struct")
    try:
        doc = json.loads(raw) if isinstance(raw, str) else raw
    except json.JSONDecodeError:
        return []
    lines = doc.get("examples") if isinstance(doc, dict) else None
    if not isinstance(lines, list) or not any(isinstance(x, str) and x.strip().startswith(">>>") for x in lines):
        return []
    return ["\n".join(str(x) for x in lines)]


def load_bigcodebench(path: Path) -> list[Task]:
    """Load all 1140 BigCodeBench tasks from a verified data file.

    Args:
        path: ``BigCodeBench.jsonl.gz``.

    Returns:
        1140 tasks in file order.

    Raises:
        DataError: The file is unreadable, malformed or has the wrong count.
    """
    records = read_records(path, BIGCODEBENCH)
    try:
        return [bigcodebench_task(r) for r in records]
    except (ValueError, SyntaxError, TypeError) as exc:
        raise DataError(f"bigcodebench data file {path}: {exc}") from exc


def select_bigcodebench(tasks: list[Task]) -> list[Task]:
    """The committed selection (``benchmarks/bigcodebench_selection.json``) out of all 1140 tasks.

    Raises:
        DataError: The selection names tasks absent from the data, or its file is invalid.
    """

    wanted = set(load_selection().selected)
    chosen = [t for t in tasks if t.task_id in wanted]
    missing = wanted - {t.task_id for t in chosen}
    if missing:
        raise DataError(
            f"the BigCodeBench selection names tasks absent from the data: {sorted(missing)[:5]}; "
            "regenerate it with `python -m tfr_helpers.benchmarks.subsets.selection`"
        )
    return chosen


register_benchmark(
    BenchmarkEntry(
        "bigcodebench",
        "BigCodeBench",
        "BigCodeBench/",
        BIGCODEBENCH,
        load_bigcodebench,
        select_bigcodebench,
        heavy_programs=True,
    )
)
