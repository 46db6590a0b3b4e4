"""Stage evaluate_trajectory_steps: every step of the replayed trajectories judged (RQ1 class, RQ2 transition).

One item per usable step (attempt k, the feedback after it, attempt k+1) of each set named in ``trajectories``:

- **RQ1**: the feedback's failing tests (asserts, or unittest methods of the row's ``test_cases``) run in tfr's
  sandbox on attempt k (reproduced?) and on the reference; a guard timeout or crash on either runs again alone with
  3x the budget and, when the machine still decides it, the step is ``indeterminate`` (RQ1's rule); the
  reference's non-passes run again with another seed.
  The class (:data:`~.records.trajectories.StepClass`) and each wrong test's cause follow RQ1's rules
  (:func:`~tfr_helpers.pipeline.steps.labels.cause_of`);
- **RQ2**: attempt k and attempt k+1 on the benchmark tests (under the run's time-limit policy, plus EvalPlus's
  tiers under ``plus_tiers``): the transition; attempt k+1 on the reproduced failing tests: the generated-test
  diagnostic.

The reference and the benchmark tests come from the project's loaders (the benchmark's study selection: a
BigCodeBench task outside it is ``not_evaluable`` with the selection's reason).
"""

from __future__ import annotations

import json
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from tfr_helpers.arms.trajectories.arm import ARM
from tfr_helpers.arms.trajectories.records.trajectories import LoggedTestVerdict, TrajectoryStepEvaluation, step_key
from tfr_helpers.arms.trajectories.stages.step_class import (
    HARNESS_FAULT_REASON,
    classify,
    evaluable_task,
    logged_specs,
    needs_alone,
    outcome_of,
    spec_key,
)
from tfr_helpers.benchmarks import benchmark_tests
from tfr_helpers.pipeline.config.experiment import ExperimentConfig
from tfr_helpers.pipeline.config.fingerprint import PROGRAM_RUN_PARTS
from tfr_helpers.pipeline.engine.codec import register_record_type
from tfr_helpers.pipeline.engine.context import RunContext, register_program_benchmarks
from tfr_helpers.pipeline.engine.stage import InputRecords, Inputs, Stage
from tfr_helpers.pipeline.steps.evalplus_tiers import tiers_of
from tfr_helpers.pipeline.steps.labels import cause_of, settle, transition_of
from tfr_helpers.pipeline.steps.time_limits import LOAD_BUDGET_FACTOR, run_benchmark
from tfr_helpers.records import ProgramRun, Task, TestOutcome, TierVerdicts
from tfr_helpers.replay.trajectories.feedback import failing
from tfr_helpers.replay.trajectories.logged import LoggedTest, Trajectory, TrajectoryAttempt
from tfr_helpers.replay.trajectories.sets import load_trajectories
from tfr_helpers.sandbox.cache import spec_fields


@dataclass(frozen=True)
class StepJob:
    """One step of one trajectory: attempt ``step`` -> ``step + 1``."""

    dataset: str
    model: str
    trajectory: Trajectory
    step: int

    @property
    def key(self) -> str:
        """Checkpoint key."""
        return step_key(self.dataset, self.trajectory.task_id, self.step)

    @property
    def unit(self) -> tuple[str, str]:
        """The unit a fault of this step blocks: the set and the task."""
        return f"trajectories:{self.dataset}", self.trajectory.task_id

    @property
    def attempt(self) -> TrajectoryAttempt:
        """Attempt k: the code the feedback was about."""
        return self.trajectory.attempts[self.step]

    @property
    def next_attempt(self) -> TrajectoryAttempt:
        """Attempt k + 1: the code written after the feedback (and the reflection)."""
        return self.trajectory.attempts[self.step + 1]

    @property
    def before(self) -> str:
        """Attempt k as it runs (the trajectory's preamble, then its code)."""
        return self.trajectory.program(self.step)

    @property
    def after(self) -> str:
        """Attempt k + 1 as it runs."""
        return self.trajectory.program(self.step + 1)


@register_program_benchmarks
def trajectory_benchmarks(config: ExperimentConfig) -> list[str]:
    """The benchmarks of the configured sets' tasks: their steps' programs run in the run's sandbox (a BigCodeBench
    set's need the heavy workers' preload)."""
    return [t.benchmark for entry in ARM.settings(config).trajectories for t in load_trajectories(entry).trajectories]


def step_items(ctx: RunContext, inputs: InputRecords) -> list[StepJob]:
    """One job per usable step of every configured set, in configuration, log and step order."""
    jobs = []
    for entry in ARM.settings(ctx.config).trajectories:
        found = load_trajectories(entry)
        for trajectory in found.trajectories:
            jobs += [StepJob(found.name, found.model, trajectory, k) for k in trajectory.usable_steps]
    return jobs


Runs = dict[tuple[str, str], ProgramRun]
"""(program, task id) -> the program's run on the task's benchmark tests."""
Tiers = dict[tuple[str, str], TierVerdicts | None]
Alone = dict[str, ProgramRun]
"""Spec key (:func:`~.step_class.spec_key`) -> the spec's run alone, with 3x the budget, on one program."""
LoggedRuns = tuple[ProgramRun, ProgramRun, ProgramRun, ProgramRun | None, Alone, Alone]
"""A step's logged failing tests run on the code before, the reference and the code after, the reference's
second run (None when its first passed them all), and the runs alone of the code's and the reference's guard
timeouts and crashes."""


def _benchmark(ctx: RunContext, jobs: list[tuple[str, Task]], desc: str) -> tuple[Runs, Tiers]:
    """Each distinct (program, task) on the benchmark tests once, with its EvalPlus tiers (under ``plus_tiers``)."""
    todo = list({(p, t.task_id): (p, t) for p, t in jobs}.values())
    runs = run_benchmark(ctx, todo, desc)
    tiers = tiers_of(ctx, todo, runs, f"{desc}: EvalPlus tiers")
    keys = [(p, t.task_id) for p, t in todo]
    return dict(zip(keys, runs, strict=True)), dict(zip(keys, tiers, strict=True))


def evaluate_trajectory_steps(items: Sequence[StepJob], ctx: RunContext) -> list[TrajectoryStepEvaluation]:
    """Judge each step: its class from the logged failing tests, its transition from the benchmark tests.

    Args:
        items: The steps.
        ctx: The run context.

    Returns:
        One :class:`TrajectoryStepEvaluation` per step, in order.
    """
    judged: dict[str, Task | str] = {}  # task id -> its task, or why it cannot be judged
    for item in items:
        judged.setdefault(item.trajectory.task_id, evaluable_task(item.trajectory))
    broken = _broken_references(ctx, [t for t in judged.values() if isinstance(t, Task)])
    judged.update(broken)
    tasks = {item.key: judged[item.trajectory.task_id] for item in items}
    jobs: list[tuple[str, Task]] = []
    logged_jobs: list[tuple[str, list[object]]] = []
    where: dict[str, int] = {}  # step key -> index of its three logged-test jobs (code, reference, code after)
    for item in items:
        task = tasks[item.key]
        if not isinstance(task, Task):
            continue
        jobs += [(item.before, task), (item.after, task)]
        specs = logged_specs(failing(item.attempt.tests)) if item.attempt.feedback_format != "harness_fault" else []
        if specs:
            where[item.key] = len(logged_jobs)
            logged_jobs += [(p, specs) for p in (item.before, task.reference, item.after)]
    bench, tiers = _benchmark(ctx, jobs, "trajectories: benchmark tests")
    logged = ctx.run_programs(logged_jobs, desc="trajectories: logged tests", generated=True)
    reruns = _reference_reruns(ctx, {at: (logged_jobs[at + 1], logged[at + 1]) for at in where.values()})
    alone = _runs_alone(ctx, items, where, logged_jobs, logged)
    out = []
    for item in items:
        at = where.get(item.key)
        runs = None
        if at is not None:
            code, ref = logged_jobs[at][0], logged_jobs[at + 1][0]
            runs = (logged[at], logged[at + 1], logged[at + 2], reruns[at], alone.get(code, {}), alone.get(ref, {}))
        out.append(_evaluate(item, tasks[item.key], bench, tiers, runs, ctx.config.sandbox.generated_test_timeout_s))
    return out


def _runs_alone(
    ctx: RunContext,
    items: Sequence[StepJob],
    where: dict[str, int],
    logged_jobs: list[tuple[str, list[object]]],
    logged: list[ProgramRun],
) -> dict[str, Alone]:
    """Program -> its runs alone: every logged failing test that hit the wall-clock guard or crashed on the code
    before or on the reference (or was left ``not_run`` by a load that did), its spec run again alone, serially,
    each distinct (program, spec) once, with 3x the budget (RQ1's rule, :func:`~.step_class.needs_alone`)."""
    budget = ctx.config.sandbox.generated_test_timeout_s
    todo: dict[tuple[str, str], tuple[str, object]] = {}
    for item in items:
        at = where.get(item.key)
        if at is None:
            continue
        for offset in (0, 1):  # the code before, the reference
            program, specs = logged_jobs[at + offset]
            by_key = dict(zip(dict.fromkeys(spec_key(t) for t in failing(item.attempt.tests)), specs, strict=False))
            for test in failing(item.attempt.tests):
                if needs_alone(logged[at + offset], test, budget):
                    todo.setdefault((program, spec_key(test)), (program, by_key[spec_key(test)]))
    out: dict[str, Alone] = {}
    for (program, key), (_, spec) in todo.items():  # serially: each run alone is the only one this chunk makes
        (run,) = ctx.run_programs(
            [(program, [spec])], desc="trajectories: timeouts run alone", generated=True, budget_factor=LOAD_BUDGET_FACTOR
        )
        out.setdefault(program, {})[key] = run
    return out


def _evaluate(
    item: StepJob,
    task: Task | str,
    bench: Runs,
    tiers: Tiers,
    runs: LoggedRuns | None,
    budget_s: float,
) -> TrajectoryStepEvaluation:
    attempt = item.attempt
    head: dict[str, Any] = {
        "dataset": item.dataset,
        "model": item.model,
        "task_id": item.trajectory.task_id,
        "benchmark": item.trajectory.benchmark,
        "step": item.step,
        "feedback_format": attempt.feedback_format,
    }
    if isinstance(task, str):
        return TrajectoryStepEvaluation(**head, step_class="not_evaluable", reason=task)
    before, after = bench[(item.before, task.task_id)], bench[(item.after, task.task_id)]
    transition: dict[str, Any] = {
        "benchmark_before": before.passed,
        "benchmark_after": after.passed,
        "transition": transition_of(before.passed, after.passed),
        "tiers_before": tiers.get((item.before, task.task_id)),
        "tiers_after": tiers.get((item.after, task.task_id)),
        "failure_after": None if after.passed else after.failure_text(),
    }
    if attempt.feedback_format == "harness_fault":
        return TrajectoryStepEvaluation(**head, step_class="not_reproduced", reason=HARNESS_FAULT_REASON, **transition)
    tests = failing(attempt.tests)
    verdicts = logged_verdicts(tests, runs, budget_s) if runs is not None else []
    step_class, reason = classify(tests, verdicts)
    reproduced = [v for v in verdicts if v.reproduced]
    return TrajectoryStepEvaluation(
        **head,
        step_class=step_class,
        reason=reason,
        tests=verdicts,
        **transition,
        logged_tests_after=all(v.after == "passed" for v in reproduced) if reproduced else None,
    )


def _settled(run: ProgramRun, alone: Alone, test: LoggedTest, budget_s: float) -> tuple[TestOutcome | None, bool]:
    """A logged test's deciding outcome in ``run`` (its run alone's, where it ran alone) and whether it still
    depends on the machine (:func:`~tfr_helpers.pipeline.steps.labels.settle`)."""
    first = outcome_of(run, test)
    if first is None:
        return None, False
    return settle(first, outcome_of(alone.get(spec_key(test)), test), budget_s)


def logged_verdicts(tests: list[LoggedTest], runs: LoggedRuns, budget_s: float) -> list[LoggedTestVerdict]:
    """Each failing test's outcomes on the code before, the reference and the code after (a guard timeout or a
    crash settled by its run alone), with RQ1's cause of a test the reference fails (its second run, another
    seed, tells a nondeterministic reference) and whether a deciding outcome depends on the machine."""
    on_code, on_ref, on_after, reruns, code_alone, ref_alone = runs
    verdicts = []
    for test in tests:
        code_o, code_machine = _settled(on_code, code_alone, test, budget_s)
        ref_o, ref_machine = _settled(on_ref, ref_alone, test, budget_s)
        after_o = outcome_of(on_after, test)
        reproduced = code_o is not None and code_o.status != "passed"
        wrong = ref_o is not None and ref_o.status != "passed"
        verdicts.append(
            LoggedTestVerdict(
                name=test.name,
                kind=test.kind,
                on_code=code_o.status if code_o else None,
                on_reference=ref_o.status if ref_o else None,
                reproduced=reproduced,
                after=after_o.status if after_o else None,
                cause=cause_of("ebt", test.source, ref_o, outcome_of(reruns, test)) if wrong and ref_o else None,
                reference_message=(ref_o.message or ref_o.exc_type) if wrong and ref_o else None,
                machine_dependent=code_machine or (reproduced and ref_machine),
            )
        )
    return verdicts


def _broken_references(ctx: RunContext, tasks: list[Task]) -> dict[str, str]:
    """Task id -> why it cannot be judged, for each task whose reference fails its own benchmark tests (full
    budget, then once more alone with a wider one)."""
    runs = ctx.run_programs([(t.reference, benchmark_tests(t)) for t in tasks], desc="trajectories: references")
    failed = [t for t, run in zip(tasks, runs, strict=True) if not run.passed]
    again = ctx.run_programs(
        [(t.reference, benchmark_tests(t)) for t in failed],
        desc="trajectories: references, alone",
        budget_factor=LOAD_BUDGET_FACTOR,
    )
    return {
        t.task_id: f"the reference fails its own benchmark tests in this run ({_first_problem(run)})"
        for t, run in zip(failed, again, strict=True)
        if not run.passed
    }


def _first_problem(run: ProgramRun) -> str:
    bad = run.load_error or next((o for o in run.outcomes if o.status != "passed"), None)
    if bad is None:
        return "no benchmark test ran"
    return f"{bad.name}: {bad.status}"


def _reference_reruns(
    ctx: RunContext, firsts: dict[int, tuple[tuple[str, list[object]], ProgramRun]]
) -> dict[int, ProgramRun | None]:
    """Per step (its index in the logged-test jobs): the reference's second run (another seed) of the step's logged
    tests when its first run (``firsts``: the job and its run) did not pass one of them, else None.

    The second runs go to the sandbox as one batch, each distinct (reference, tests) once: a fixed suite logged
    after every attempt of a task is rerun once for the task, not once per step (a rerun bypasses the execution
    cache, so nothing else would share it)."""
    todo: dict[str, tuple[str, list[object]]] = {}
    keys: dict[int, str | None] = {}
    for at, (job, run) in firsts.items():
        if run.load_error is None and all(o.status == "passed" for o in run.outcomes):
            keys[at] = None
            continue
        keys[at] = key = json.dumps([job[0], [spec_fields(s) for s in job[1]]])  # type: ignore[arg-type]
        todo.setdefault(key, job)
    again = ctx.run_programs(list(todo.values()), desc="trajectories: reference reruns", generated=True, rerun=True)
    found = dict(zip(todo, again, strict=True))
    return {at: found[k] if k is not None else None for at, k in keys.items()}


CHECKPOINT = "trajectory_steps"
"""The arm's checkpoint (``checkpoints/trajectory_steps.jsonl``)."""

register_record_type(TrajectoryStepEvaluation)
STAGE = Stage(
    "evaluate_trajectory_steps",
    evaluate_trajectory_steps,
    step_items,
    CHECKPOINT,
    lambda r: r.key,
    inputs=Inputs(settings=("trajectories", *PROGRAM_RUN_PARTS)),
    produces=(TrajectoryStepEvaluation,),
    sandboxed=True,
    parallel_chunks=True,
)
