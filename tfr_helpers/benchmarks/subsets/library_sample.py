"""A benchmark's stratified sample by library group: one task per group, chosen by a hash of its id.

The rule (``tasks: {bigcodebench: sample}``): a task's *library group* is the set of third-party libraries it
names (its ``libraries`` less Python's standard library, ``sys.stdlib_module_names``); the tasks that name only
standard-library modules form one group. Of each group the task with the smallest ``sha256(task_id)`` is taken,
and the sample keeps the benchmark's order. Nothing about a task's outcome or its speed enters the rule, so the
sample is the same on every machine and for every model. On BigCodeBench's committed selection (338 tasks) the
groups number 40, so the sample holds 40 tasks (docs/performance.md lists them).
"""

from __future__ import annotations

import hashlib
import sys
from collections.abc import Sequence

from tfr_helpers.errors import ConfigError
from tfr_helpers.records import Task

SAMPLE = "sample"
"""The selection word (``tasks: {bigcodebench: sample}``)."""
SAMPLED_BENCHMARKS = ("bigcodebench",)
"""The benchmarks with a sample: their tasks name the libraries they exercise (HumanEval's and MBPP's name at most
the imports of a prompt)."""


def library_group(task: Task) -> tuple[str, ...]:
    """The task's third-party libraries, sorted (``()``: standard library only)."""
    return tuple(sorted({lib for lib in task.libraries if lib not in sys.stdlib_module_names}))


def check_sampled(benchmark: str) -> None:
    """Raise ``ConfigError`` unless ``benchmark`` has a sample (:data:`SAMPLED_BENCHMARKS`)."""
    if benchmark not in SAMPLED_BENCHMARKS:
        raise ConfigError(
            f"tasks: {SAMPLE!r} (one task per library group) is defined for {', '.join(SAMPLED_BENCHMARKS)} only, "
            f"not {benchmark}; select {benchmark}'s tasks as all, a number or ids, e.g. tasks: {{bigcodebench: sample}}"
        )


def _hash(task_id: str) -> str:
    return hashlib.sha256(task_id.encode()).hexdigest()


def library_sample(tasks: Sequence[Task], benchmark: str) -> list[Task]:
    """One task per library group (the smallest ``sha256(task_id)`` of the group), in ``tasks``' order.

    Raises:
        ConfigError: ``benchmark`` is not one of :data:`SAMPLED_BENCHMARKS`.
    """
    check_sampled(benchmark)
    chosen: dict[tuple[str, ...], Task] = {}
    for task in tasks:
        group = library_group(task)
        if group not in chosen or _hash(task.task_id) < _hash(chosen[group].task_id):
            chosen[group] = task
    ids = {t.task_id for t in chosen.values()}
    return [t for t in tasks if t.task_id in ids]
