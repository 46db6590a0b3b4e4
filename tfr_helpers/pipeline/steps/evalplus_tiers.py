"""The study's benchmark verdicts at EvalPlus's two tiers, and RQ1 with EvalPlus's corrected reference.

A task of an EvalPlus benchmark (``humaneval_plus``, ``humaneval_plus_mini``, ``mbpp_plus``) is judged at both
tiers by its own benchmark tests (:func:`~tfr_helpers.benchmarks.evalplus.tier_verdicts`). With ``plus_tiers``
set (``mini`` or ``full``), a HumanEval or MBPP task is also judged by its EvalPlus *twin*, the same problem in
HumanEval+ Mini / HumanEval+ (``HumanEval+Mini/<n>``, ``HumanEval+/<n>``) or, with ``full`` only, MBPP+
(``Mbpp/<n>``; 378 of MBPP's tasks): the code's verdict stays the original tests', and :class:`TierVerdicts` adds
the twin's base and plus tiers; every generated test also runs on the twin's corrected reference (full
budget; a timeout or crash starved of CPU runs again alone with 3x the budget), so RQ1's labels can be
recomputed with that oracle.
"""

from __future__ import annotations

import dataclasses
import threading
from collections.abc import Sequence
from typing import Any

from tfr_helpers.benchmarks import get_benchmark, load_tasks
from tfr_helpers.benchmarks.evalplus import expected_outputs, is_evalplus, left_out, tier_verdicts
from tfr_helpers.pipeline.engine.context import RunContext
from tfr_helpers.pipeline.steps.time_limits import LOAD_BUDGET_FACTOR, run_benchmark, starved
from tfr_helpers.records import ProgramRun, Task, TestOutcome, TierVerdicts

TWINS = {
    "humaneval": {"mini": "humaneval_plus_mini", "full": "humaneval_plus"},
    "mbpp": {"full": "mbpp_plus"},
}
"""The EvalPlus benchmark holding each original benchmark's tasks, by ``plus_tiers`` size (MBPP+ has no reduced
set: ``mini`` leaves MBPP tasks without twins, so the main job's time stays within its budget)."""

_LOCK = threading.Lock()
_TWIN_TASKS: dict[str, dict[str, Task]] = {}


def twin_of(ctx: RunContext, task: Task) -> Task | None:
    """The EvalPlus twin of a HumanEval or MBPP task under ``plus_tiers`` (None: off, or no twin)."""
    name = TWINS.get(task.benchmark, {}).get(ctx.config.plus_tiers)
    if name is None:
        return None
    with _LOCK:
        if name not in _TWIN_TASKS:
            _TWIN_TASKS[name] = {t.task_id: t for t in load_tasks(name)}
    return _TWIN_TASKS[name].get(get_benchmark(name).id_prefix + task.task_id.split("/")[-1])


def twins_of(ctx: RunContext, tasks: Sequence[Task]) -> dict[str, Task]:
    """Task id -> its twin, for the tasks that have one, with the twins' expected outputs ready (computed in
    the sandbox on a cache miss, one batch per benchmark)."""
    twins = {t.task_id: twin for t in tasks if (twin := twin_of(ctx, t)) is not None}
    for name in sorted({twin.benchmark for twin in twins.values()}):
        with _LOCK:  # one chunk at a time computes what the cache lacks
            expected_outputs(name, task_ids={twin.task_id for twin in twins.values() if twin.benchmark == name})
    return twins


def tiers_of(
    ctx: RunContext, jobs: Sequence[tuple[str, Task]], runs: Sequence[ProgramRun], desc: str
) -> list[TierVerdicts | None]:
    """The tier verdicts of programs whose runs on their tasks' benchmark tests are ``runs`` (None: no tiers)."""
    out: list[TierVerdicts | None] = [None] * len(jobs)
    twin_jobs: list[tuple[int, str, Task]] = []
    twins = twins_of(ctx, [task for program, task in jobs if program and not is_evalplus(task.benchmark)])
    for i, ((program, task), run) in enumerate(zip(jobs, runs, strict=True)):
        if is_evalplus(task.benchmark):
            out[i] = TierVerdicts(benchmark=task.benchmark, left_out=left_out(task.task_id), **tier_verdicts(run))
        elif program and task.task_id in twins:
            twin_jobs.append((i, program, twins[task.task_id]))
    twin_runs = run_benchmark(ctx, [(program, twin) for _, program, twin in twin_jobs], desc)
    for (i, _, twin), run in zip(twin_jobs, twin_runs, strict=True):
        out[i] = TierVerdicts(benchmark=twin.benchmark, left_out=left_out(twin.task_id), **tier_verdicts(run))
    return out


def corrected_reference(ctx: RunContext, units: Sequence[tuple[Task, dict[str, Any]]]) -> dict[tuple[str, str], TestOutcome]:
    """(task id, test source) -> the test's outcome on the twin's corrected reference, for units given as
    (task, {test source: sandbox spec}); a timeout or crash starved of CPU is run again alone, serially, with
    3x the budget, and that outcome is kept."""
    twins = twins_of(ctx, [task for task, specs in units if specs])
    jobs = [(task, twins[task.task_id], specs) for task, specs in units if specs and task.task_id in twins]
    runs = ctx.run_programs(
        [(twin.reference, list(specs.values())) for _, twin, specs in jobs],
        desc="corrected reference: generated tests",
        generated=True,
    )
    budget = ctx.config.sandbox.generated_test_timeout_s
    out: dict[tuple[str, str], TestOutcome] = {}
    for (task, twin, specs), run in zip(jobs, runs, strict=True):
        for (source, spec), outcome in zip(specs.items(), run.outcomes, strict=False):
            if starved(outcome, budget):
                wider = dataclasses.replace(spec, timeout_s=LOAD_BUDGET_FACTOR * budget)
                (alone,) = ctx.run_programs(
                    [(twin.reference, [wider])], desc="timeouts run alone", generated=True, budget_factor=LOAD_BUDGET_FACTOR
                )
                outcome = alone.outcomes[0] if alone.outcomes else outcome
            out[(task.task_id, source)] = outcome
    return out
