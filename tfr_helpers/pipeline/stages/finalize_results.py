"""Stage finalize_results: every record of the run consolidated into ``results.json``."""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from tfr_helpers.pipeline.arms.declaration import arm_calls, arm_parts
from tfr_helpers.pipeline.config.experiment import ExperimentConfig
from tfr_helpers.pipeline.engine.assemble import assemble_results, result_lists
from tfr_helpers.pipeline.engine.context import RunContext
from tfr_helpers.pipeline.engine.stage import Stage, StageRecords
from tfr_helpers.records import (
    CallTotals,
    ModelCallRecord,
    Results,
    Role,
    SkippedWork,
    Task,
)


@dataclass(frozen=True)
class RunRecords:
    """All records of a run: the lists of :class:`Results` by field name, each in canonical (configuration) order."""

    lists: dict[str, list[Any]]
    stage_seconds: dict[str, float]
    skipped: list[SkippedWork] = field(default_factory=list)
    """Tasks a stage excluded in this run, with the reason (a reference failing its own benchmark tests)."""
    parts: dict[str, Any] = field(default_factory=dict)
    """Each arm's part of :class:`Results` by field (``arms.declaration.arm_parts``; None when the arm is off)."""


def call_totals(records: RunRecords) -> list[CallTotals]:
    """Calls, cache hits, errors, tokens and cost per (model, role, stage); one response counted once."""
    calls: dict[str, ModelCallRecord] = {}
    lists = records.lists
    for code in lists["generated_codes"]:
        calls[f"code|{code.model}|{code.task_id}|{code.sample_index}"] = code.call
    for test in lists["generated_tests"]:
        calls[f"test|{test.model}|{test.task_id}|{test.kind}|{test.sample_index}"] = test.call
    for fail in lists["test_generation_failures"]:
        calls[f"test|{fail.model}|{fail.task_id}|{fail.kind}|{fail.sample_index}"] = fail.call
    for dec in lists["screening"]:
        if dec.call is not None:
            calls[f"screen|{dec.strategy}|{dec.feedback_id}"] = dec.call
    for ref in lists["refinements"]:
        calls[f"refine|{ref.feedback_id}"] = ref.call
    calls.update(arm_calls(records.parts))
    sums: dict[tuple[str, Role, str], list[float]] = defaultdict(lambda: [0, 0, 0, 0, 0, 0.0])
    for call in calls.values():
        acc = sums[(call.model, call.role, call.stage)]
        acc[0] += 1
        acc[1] += call.cached
        acc[2] += call.error is not None
        acc[3] += call.usage.input_tokens
        acc[4] += call.usage.output_tokens
        acc[5] += call.usage.cost_usd
    return [
        CallTotals(
            model=m,
            role=r,
            stage=s,
            calls=int(a[0]),
            cached=int(a[1]),
            errors=int(a[2]),  # type: ignore[arg-type]
            input_tokens=int(a[3]),
            output_tokens=int(a[4]),
            cost_usd=round(a[5], 6),
        )
        for (m, r, s), a in sorted(sums.items())
    ]


def finalize_results(items: Sequence[RunRecords], ctx: RunContext) -> list[Results]:
    """Build (and write) ``results.json`` from the run's records.

    Args:
        items: The run's records (one bundle).
        ctx: The run context.

    Returns:
        One :class:`Results` per bundle.
    """
    out = []
    for records in items:
        results = build_results(ctx.config, ctx.tasks, records)
        ctx.store.write_results(results)
        out.append(results)
    return out


def run_records(config: ExperimentConfig, records: StageRecords, stage_seconds: dict[str, float]) -> RunRecords:
    """Every record so far, by stage, sorted into a :class:`RunRecords` (the arms build their parts)."""
    return RunRecords(
        lists=result_lists(r for stage in records.values() for r in stage),
        stage_seconds=stage_seconds,
        skipped=[r for stage in records.values() for r in stage if isinstance(r, SkippedWork)],
        parts=arm_parts(config, records),
    )


def build_results(config: ExperimentConfig, tasks: Mapping[str, Task], records: RunRecords) -> Results:
    """The run's :class:`Results` from its records: what ``finalize_results`` writes, and the view of a run not
    finalized yet (``views.progress.results_so_far``: the lists of stages not run yet are empty)."""
    return assemble_results(
        config,
        {**config.model_dump(mode="json"), "config_hash": config.config_hash()},
        {tid: task.benchmark for tid, task in tasks.items()},
        tasks,
        records.lists,
        call_totals=call_totals(records),
        stage_seconds=records.stage_seconds,
        skipped=records.skipped,
        time_limit=config.sandbox.time_limit.describe(),
        **records.parts,
    )


def bundle_items(ctx: RunContext, records: StageRecords) -> list[RunRecords]:
    """The one item: every record of the run, plus the stage times recorded so far."""
    seconds = ctx.store.root / "stage_seconds.json"
    return [run_records(ctx.config, records, ctx.store.read_json("stage_seconds.json") if seconds.exists() else {})]


STAGE = Stage("finalize_results", finalize_results, bundle_items, None)
