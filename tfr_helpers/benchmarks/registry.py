"""Benchmark registry: each benchmark is one module that registers a :class:`BenchmarkEntry` when imported.

The entry says everything the rest of the package needs to know about a benchmark: its name (used in configs
and records), its task-id prefix, its data file, how to turn that file into tasks, optionally which tasks the
study uses, and how its tests become sandbox specs when the generic ``test_format`` rules do not fit. The
built-in benchmarks (``humaneval.py``, ``mbpp.py``, ``bigcodebench.py``) register themselves; a package outside
tfr adds one by naming its module in the ``tfr.benchmarks`` entry point group.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Literal

from tfr_helpers.benchmarks.sources import DataSource
from tfr_helpers.errors import DataError
from tfr_helpers.plugins import load_entry_points_once
from tfr_helpers.records import Task

if TYPE_CHECKING:
    from tfr_helpers.sandbox.spec import TestSpec

ENTRY_POINT_GROUP = "tfr.benchmarks"
"""Entry point group whose values are modules that register benchmarks when imported."""


@dataclass(frozen=True)
class BenchmarkEntry:
    """One benchmark.

    Attributes:
        name: Lower-case name used in configs and records (``humaneval``).
        label: Display name (``HumanEval``).
        id_prefix: Prefix of its native task ids (``HumanEval/``).
        source: Where its data file comes from and how it is verified.
        loader: ``loader(path) -> tasks`` for the resolved data file, in benchmark order.
        select: ``select(all_tasks) -> tasks the study uses`` (None: all of them).
        tests: ``tests(task) -> sandbox specs`` when the generic rules for the task's ``test_format``
            (:func:`~tfr_helpers.benchmarks.specs.benchmark_tests`) do not fit (None: the generic rules).
        completion_prompt: The task field a bare completion continues (``signature``; HumanEval's
            completions continue the whole ``description`` prompt).
        in_default_study: Part of a study whose params name no ``benchmarks`` (the seed study's three);
            the EvalPlus benchmarks are chosen by name.
        id_aliases: Other prefixes of the same tasks' ids in samples files (EvalPlus writes ``HumanEval/0``
            for a HumanEval+ task, whose id here is ``HumanEval+/0``).
        heavy_programs: Its programs import the scientific stack (numpy, pandas, matplotlib...): a run executing
            them starts sandbox workers that import it once (the sandbox's default preload) instead of the light
            workers, so each program does not import it again in its own child.
        program_preloads: Modules every program of it imports through its benchmark tests' harness (EvalPlus's:
            numpy): a run on the light workers preloads them too, so no program imports them in its own child.
    """

    name: str
    label: str
    id_prefix: str
    source: DataSource
    loader: Callable[[Path], list[Task]]
    select: Callable[[list[Task]], list[Task]] | None = None
    tests: Callable[[Task], list[TestSpec]] | None = None
    completion_prompt: Literal["description", "signature"] = "signature"
    in_default_study: bool = True
    id_aliases: tuple[str, ...] = ()
    heavy_programs: bool = False
    program_preloads: tuple[str, ...] = ()


_REGISTRY: dict[str, BenchmarkEntry] = {}


def register_benchmark(entry: BenchmarkEntry) -> BenchmarkEntry:
    """Register (or replace) a benchmark; returns the entry.

    Raises:
        DataError: The name is not lower-case, or its data source names another benchmark.
    """
    if not entry.name or entry.name != entry.name.lower() or entry.source.benchmark != entry.name:
        raise DataError(
            f"benchmark {entry.name!r}: the name must be lower-case and equal to its DataSource.benchmark "
            f"({entry.source.benchmark!r})"
        )
    _REGISTRY[entry.name] = entry
    return entry


def _entries() -> dict[str, BenchmarkEntry]:
    """The registry, after importing the modules named in the ``tfr.benchmarks`` entry point group (once)."""
    load_entry_points_once(ENTRY_POINT_GROUP)
    return _REGISTRY


def benchmark_names(default_study: bool = False) -> tuple[str, ...]:
    """Every registered benchmark, in registration (reporting) order; ``default_study``: only those of a study
    whose params name none (:attr:`BenchmarkEntry.in_default_study`)."""
    return tuple(name for name, entry in _entries().items() if entry.in_default_study or not default_study)


def get_benchmark(name: str) -> BenchmarkEntry:
    """The entry of one benchmark.

    Raises:
        DataError: Unknown name (the message lists the known ones).
    """
    entry = _entries().get(name)
    if entry is None:
        raise DataError(f"unknown benchmark {name!r}; choose one of {', '.join(benchmark_names())}")
    return entry


def benchmark_of_id(task_id: str) -> BenchmarkEntry:
    """The benchmark a native task id belongs to, by its prefix (``MBPP/7`` -> mbpp).

    Raises:
        DataError: No registered benchmark has the id's prefix.
    """
    for entry in _entries().values():
        if task_id.startswith(entry.id_prefix):
            return entry
    prefixes = ", ".join(e.id_prefix for e in _entries().values())
    raise DataError(f"task id {task_id!r} has no known prefix; use one of {prefixes}")
