"""Assembling :class:`~tfr_helpers.records.Results`: the one builder, for ``finalize_results`` and for the view of
a run not finalized yet (its lists of stages not run yet are empty)."""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from typing import Any

from tfr_helpers.models.provider_table import is_simulated
from tfr_helpers.pipeline.config import scope
from tfr_helpers.pipeline.config.experiment import ExperimentConfig
from tfr_helpers.records import RESULTS_FIELDS, BenchmarkName, Results, Task


def result_lists(records: Iterable[Any]) -> dict[str, list[Any]]:
    """Checkpointed records sorted into the lists of :class:`Results` (:data:`~tfr_helpers.records.RESULTS_FIELDS`),
    in the order given; records of other types (the arms' own) are left out: the arms build their part."""
    lists: dict[str, list[Any]] = {name: [] for name in RESULTS_FIELDS.values()}
    for record in records:
        field = RESULTS_FIELDS.get(type(record))
        if field is not None:
            lists[field].append(record)
    return lists


def assemble_results(
    config: ExperimentConfig,
    config_json: dict[str, object],
    task_benchmarks: dict[str, BenchmarkName],
    tasks: Mapping[str, Task],
    lists: Mapping[str, list[Any]],
    **parts: object,
) -> Results:
    """The run's :class:`Results`.

    Args:
        config: The run's configuration.
        config_json: Its resolved form as results.json holds it (with ``config_hash``).
        task_benchmarks: Task id -> benchmark, in run order.
        tasks: The tasks, for the work the run leaves out (:func:`~tfr_helpers.pipeline.config.scope.skipped_work`).
        lists: The record lists (:func:`result_lists`).
        parts: Further fields (the stage times, the call totals, the arms' parts; ``skipped``: work a stage left
            out in this run, after the work the configuration leaves out).
    """
    skipped = [*scope.skipped_work(config, tasks), *parts.pop("skipped", [])]  # type: ignore[misc]
    return Results.model_validate(
        dict(
            run_name=config.run_name,
            simulated=any(is_simulated(spec) for spec in config.models.all_specs()),
            config=config_json,
            tasks=list(task_benchmarks),
            task_benchmarks=task_benchmarks,
            model_sources=scope.model_sources(config),
            skipped=skipped,
            **lists,
            **parts,
        )
    )
