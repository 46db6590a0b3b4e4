"""Stage measure_test_lists: the dose, measured. Every test of every fixed test list a configured set ran on, run on
the reference in tfr's sandbox with the base study's labels (:mod:`tfr_helpers.arms.trajectories.records.list_doses`).

One item per (list, task), for the lists of the sets named in ``trajectories`` only (a set that wrote its own tests
has none). Each test (one unittest module) runs alone in its own sandbox run, so its outcome is its own whatever the
class names of the other tests; an identical (reference, test) runs once for every list that holds it (the execution
cache). The base study's rules, as for a generated test on the reference:

- a crash or a timeout of the sandbox's wall-clock guard (or a test left ``not_run`` by a load that did so) runs
  again alone, serially, with three times the budget, and :func:`~tfr_helpers.pipeline.steps.labels.settle` decides:
  a verdict that still depends on the machine is ``indeterminate``;
- a non-pass (but a timeout the reference's own time decided) runs again with another seed, and
  :func:`~tfr_helpers.pipeline.steps.labels.cause_of` names the cause of an invalid test (``nondeterministic``
  when the second run passes);
- a task whose reference cannot be judged offline (the trajectory arm's rule: outside the BigCodeBench selection
  for a library, the network or the sandbox, or a reference that fails its own benchmark tests in this run) is
  recorded with the reason and measures nothing.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from tfr_helpers.arms.trajectories.arm import ARM
from tfr_helpers.arms.trajectories.records.list_doses import ListTestVerdict, TaskDose, Validity, dose_key
from tfr_helpers.arms.trajectories.stages.evaluate_trajectory_steps import _broken_references as broken_references
from tfr_helpers.arms.trajectories.stages.step_class import evaluable_task_id
from tfr_helpers.pipeline.config.fingerprint import PROGRAM_RUN_PARTS
from tfr_helpers.pipeline.engine.codec import register_record_type
from tfr_helpers.pipeline.engine.context import RunContext
from tfr_helpers.pipeline.engine.stage import InputRecords, Inputs, Stage
from tfr_helpers.pipeline.steps.labels import cause_of, settle
from tfr_helpers.pipeline.steps.time_limits import LOAD_BUDGET_FACTOR, starved
from tfr_helpers.records import ProgramRun, Task, TestOutcome
from tfr_helpers.replay.trajectories.sets import fixed_list_of
from tfr_helpers.sandbox import TestSpec

CHECKPOINT = "test_list_doses"
"""The stage's checkpoint (``checkpoints/test_list_doses.jsonl``)."""


@dataclass(frozen=True)
class DoseJob:
    """One task of one list: its tests in the list's order."""

    test_list: str
    upstream: str
    task_id: str
    tests: tuple[str, ...]

    @property
    def key(self) -> str:
        """Checkpoint key."""
        return dose_key(self.test_list, self.task_id)

    @property
    def unit(self) -> tuple[str, str]:
        """The unit a fault of this item blocks: the list and the task."""
        return f"test_list:{self.test_list}", self.task_id


def dose_items(ctx: RunContext, inputs: InputRecords) -> list[DoseJob]:
    """One job per task of each list a configured set ran on, in configuration and list order (a list shared by
    two sets once)."""
    jobs: dict[str, DoseJob] = {}
    for entry in ARM.settings(ctx.config).trajectories:
        found = fixed_list_of(entry)
        if found is None:
            continue
        for task_id, tests in found.tasks.items():
            job = DoseJob(found.name, found.upstream, task_id, tests)
            jobs.setdefault(job.key, job)
    return list(jobs.values())


def _spec(source: str) -> TestSpec:
    return TestSpec(name="list_test", source=source, kind="unittest")


def _deciding(run: ProgramRun) -> TestOutcome:
    """A single-test run's deciding outcome: its first non-pass (the module's load error, the program's), else its
    first outcome."""
    if not run.outcomes:
        return run.load_error or TestOutcome(name="list_test", status="not_run", message="no outcome")
    return next((o for o in run.outcomes if o.status != "passed"), run.outcomes[0])


def _needs_alone(run: ProgramRun, budget: float) -> bool:
    """The base study's rule: a guard timeout or a crash (of the test, or of the load that left it ``not_run``)."""
    outcome = _deciding(run)
    load_hit = run.load_error is not None and starved(run.load_error, budget)
    return starved(outcome, budget) or (load_hit and outcome.status == "not_run")


def _needs_rerun(outcome: TestOutcome, run: ProgramRun, budget: float) -> bool:
    """A non-pass runs again with another seed, but a timeout the reference's own time decided (final)."""
    if outcome.status == "passed":
        return False
    if outcome.status == "timeout":
        return starved(outcome, budget)
    if outcome.status == "not_run" and run.load_error is not None and run.load_error.status == "timeout":
        return starved(run.load_error, budget)
    return True


def label_test(
    index: int, source: str, first: ProgramRun, alone: ProgramRun | None, rerun: ProgramRun | None, budget: float
) -> ListTestVerdict:
    """One test's label from the reference's runs: the first, the run alone (None when not made) and the second
    run with another seed (None when not made)."""
    decided, machine = settle(_deciding(first), _deciding(alone) if alone is not None else None, budget)
    validity: Validity = "indeterminate" if machine else ("valid" if decided.status == "passed" else "invalid")
    cause = None
    if validity == "invalid":
        cause = cause_of("ebt", source, decided, _deciding(rerun) if rerun is not None else None)
    names = [o.name for o in first.outcomes] or ["<module>"]
    return ListTestVerdict(
        index=index,
        name="+".join(names),
        validity=validity,
        status=decided.status,
        cause=cause,
        message=None
        if decided.status == "passed"
        else f"{decided.exc_type or decided.status}: {decided.message or ''}"[:300],
    )


def measure_test_lists(items: Sequence[DoseJob], ctx: RunContext) -> list[TaskDose]:
    """Run and label every test of each item on the reference.

    Args:
        items: The (list, task) jobs.
        ctx: The run context.

    Returns:
        One :class:`TaskDose` per item, in order.
    """
    judged: dict[str, Task | str] = {i.task_id: evaluable_task_id("bigcodebench", i.task_id) for i in items}
    judged.update(broken_references(ctx, [t for t in judged.values() if isinstance(t, Task)]))
    budget = ctx.config.sandbox.generated_test_timeout_s
    where = [(i, k) for i in items if isinstance(judged[i.task_id], Task) for k in range(len(i.tests))]
    jobs = [(_reference(judged, i), [_spec(i.tests[k])]) for i, k in where]
    firsts = dict(zip(where, ctx.run_programs(jobs, desc="test lists: the reference", generated=True), strict=True))
    alone: dict[tuple[DoseJob, int], ProgramRun] = {}
    for (i, k), run in firsts.items():  # serially: each run alone is the only one running
        if _needs_alone(run, budget):
            (alone[(i, k)],) = ctx.run_programs(
                [(_reference(judged, i), [_spec(i.tests[k])])],
                desc="test lists: timeouts run alone",
                generated=True,
                budget_factor=LOAD_BUDGET_FACTOR,
            )
    again = [
        (i, k)
        for (i, k), run in firsts.items()
        if _needs_rerun(
            settle(_deciding(run), _deciding(alone[(i, k)]) if (i, k) in alone else None, budget)[0], run, budget
        )
    ]
    reruns = ctx.run_programs(
        [(_reference(judged, i), [_spec(i.tests[k])]) for i, k in again],
        desc="test lists: reference reruns",
        generated=True,
        rerun=True,
    )
    second = dict(zip(again, reruns, strict=True))
    out = []
    for item in items:
        task = judged[item.task_id]
        head: dict[str, Any] = {"test_list": item.test_list, "upstream": item.upstream, "task_id": item.task_id}
        if not isinstance(task, Task):
            out.append(TaskDose(**head, not_evaluable=task))
            continue
        tests = [
            label_test(k, item.tests[k], firsts[(item, k)], alone.get((item, k)), second.get((item, k)), budget)
            for k in range(len(item.tests))
        ]
        out.append(TaskDose(**head, tests=tests))
    return out


def _reference(judged: dict[str, Task | str], item: DoseJob) -> str:
    task = judged[item.task_id]
    assert isinstance(task, Task)
    return task.reference


register_record_type(TaskDose)
STAGE = Stage(
    "measure_test_lists",
    measure_test_lists,
    dose_items,
    CHECKPOINT,
    lambda r: r.key,
    inputs=Inputs(settings=("trajectories", *PROGRAM_RUN_PARTS)),
    produces=(TaskDose,),
    sandboxed=True,
    parallel_chunks=True,
)
