"""A task's benchmark tests as sandbox test specs (the sandbox runs them; oracles stay here)."""

from __future__ import annotations

import ast

from tfr_helpers.benchmarks._code import parse_module
from tfr_helpers.benchmarks.registry import get_benchmark
from tfr_helpers.errors import DataError
from tfr_helpers.records import Task
from tfr_helpers.sandbox.spec import TestSpec


def _statements(source: str) -> list[str]:
    """Split assert lines into top-level statements (an assert may span lines); by line if unparsable."""
    try:
        body = parse_module(source).body
    except SyntaxError:
        return [line for line in source.split("\n") if line.strip()]
    return [ast.get_source_segment(source, node) or ast.unparse(node) for node in body]


def benchmark_tests(task: Task) -> list[TestSpec]:
    """Return the task's benchmark tests as sandbox specs (its registry entry's ``tests`` builder, if it has one).

    - HumanEval (``check``): one snippet spec ``check`` = the ``check`` source + ``check(<entry_point>)``;
    - MBPP (``asserts``): one snippet spec per assert line, ``assert_0``, ``assert_1``..., each with the
      task's ``test_imports`` (joined by newlines) as setup;
    - BigCodeBench (``unittest``): one unittest spec ``TestCases`` holding the whole test module.

    Args:
        task: Any loaded task.

    Returns:
        The specs, in the benchmark's order.

    Raises:
        DataError: The task's tests are empty.
    """
    if not task.tests.strip():
        raise DataError(f"task {task.task_id} has no benchmark tests; reload it from the benchmark data")
    custom = get_benchmark(task.benchmark).tests
    if custom is not None:
        return custom(task)
    if task.test_format == "check":
        source = f"{task.tests.rstrip()}\n\n\ncheck({task.entry_point})\n"
        return [TestSpec(name="check", source=source, kind="snippet")]
    if task.test_format == "asserts":
        setup = "\n".join(task.test_imports)
        lines = _statements(task.tests)
        return [TestSpec(name=f"assert_{i}", source=line, kind="snippet", setup=setup) for i, line in enumerate(lines)]
    return [TestSpec(name="TestCases", source=task.tests, kind="unittest")]
