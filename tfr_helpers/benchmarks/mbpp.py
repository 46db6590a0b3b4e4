"""MBPP, the hand-verified "sanitized" subset (427 tasks, CC BY 4.0): ``sanitized-mbpp.json``.

Mapping to :class:`~tfr_helpers.records.Task`:

- task_id ``MBPP/<n>``;
- entry_point: the function the asserts call, i.e. the top-level function of the reference that every
  assert calls (helpers defined next to it, such as ``rev`` in MBPP/56, are not called by the asserts);
- signature: that function's ``def`` header as in the reference (normalised by ``ast.unparse``);
- description, exactly these three parts separated by newlines (as the base study shows the model the
  prompt, the function to write and one example)::

      <prompt>
      The function should be named `<entry_point>`, with the signature `<signature>`.
      Your code should pass this example test:
      <first assert of test_list>

- examples: ``[first assert]``; tests: all asserts joined by newlines (the first one included);
- test_imports: the data's ``test_imports`` (run before the asserts); libraries: modules imported by the
  reference or by ``test_imports``; reference: the ``code`` field as is; test_format ``asserts``.
"""

from __future__ import annotations

import ast
from pathlib import Path
from typing import Any

from tfr_helpers.benchmarks._code import function_header, imported_modules, parse_module
from tfr_helpers.benchmarks.files import read_records
from tfr_helpers.benchmarks.registry import BenchmarkEntry, register_benchmark
from tfr_helpers.benchmarks.sources import MBPP
from tfr_helpers.errors import DataError
from tfr_helpers.records import Task

DESCRIPTION_TEMPLATE = (
    "{prompt}\n"
    "The function should be named `{entry_point}`, with the signature `{signature}`.\n"
    "Your code should pass this example test:\n"
    "{example}"
)
"""How an MBPP description is assembled from the data (see the module docstring)."""


def _called_names(assertion: str) -> list[str]:
    """Names called as plain functions in one assert line, in source order."""
    tree = parse_module(assertion)
    calls = [n for n in ast.walk(tree) if isinstance(n, ast.Call) and isinstance(n.func, ast.Name)]
    calls.sort(key=lambda n: (n.lineno, n.col_offset))
    return [n.func.id for n in calls if isinstance(n.func, ast.Name)]


def mbpp_entry_point(code: str, asserts: list[str]) -> str:
    """Derive the function under test: the reference's top-level function that the asserts call.

    Args:
        code: The reference solution.
        asserts: The task's assert lines.

    Returns:
        The function called by every assert (or, failing that, the first defined function any assert calls).

    Raises:
        ValueError: The code or an assert does not parse, or no defined function is called.
    """
    try:
        defined = [n.name for n in parse_module(code).body if isinstance(n, (ast.FunctionDef, ast.AsyncFunctionDef))]
        called = [_called_names(a) for a in asserts]
    except SyntaxError as exc:
        raise ValueError(f"code or asserts do not parse ({exc})") from exc
    in_all = [name for name in defined if called and all(name in names for names in called)]
    if len(in_all) == 1:
        return in_all[0]
    for names in called:
        for name in names:
            if name in defined:
                return name
    raise ValueError(f"no function defined by the reference ({defined}) is called by the asserts")


def mbpp_task(record: dict[str, Any]) -> Task:
    """Turn one sanitized-MBPP record into a :class:`Task`.

    Args:
        record: One element of ``sanitized-mbpp.json``.

    Returns:
        The task.

    Raises:
        ValueError: The record has no asserts or no derivable entry point.
    """
    task_id = f"MBPP/{record['task_id']}"
    asserts = [a.strip() for a in record["test_list"]]
    if not asserts:
        raise ValueError(f"{task_id} has no asserts")
    try:
        entry_point = mbpp_entry_point(record["code"], asserts)
        signature = function_header(record["code"], entry_point)
    except (ValueError, LookupError) as exc:
        raise ValueError(f"{task_id}: {exc}") from exc
    test_imports = list(record["test_imports"])
    description = DESCRIPTION_TEMPLATE.format(
        prompt=record["prompt"].strip(), entry_point=entry_point, signature=signature, example=asserts[0]
    )
    libraries = sorted(set(imported_modules(record["code"])) | set(imported_modules("\n".join(test_imports))))
    return Task(
        task_id=task_id,
        benchmark="mbpp",
        description=description,
        entry_point=entry_point,
        signature=signature,
        reference=record["code"],
        tests="\n".join(asserts),
        test_format="asserts",
        test_imports=test_imports,
        libraries=libraries,
        examples=[asserts[0]],
    )


def load_mbpp(path: Path) -> list[Task]:
    """Load all sanitized-MBPP tasks from a verified data file.

    Args:
        path: ``sanitized-mbpp.json``.

    Returns:
        427 tasks in file order.

    Raises:
        DataError: The file is unreadable, malformed or has the wrong count.
    """
    records = read_records(path, MBPP)
    try:
        return [mbpp_task(r) for r in records]
    except (ValueError, TypeError, AttributeError) as exc:
        raise DataError(f"mbpp data file {path}: {exc}") from exc


register_benchmark(BenchmarkEntry("mbpp", "MBPP", "MBPP/", MBPP, load_mbpp))
