"""The per-test time limit of generated and refined code: the study's fixed budget, or EvalPlus's rule.

Under ``sandbox.time_limit.policy: evalplus`` a code's test gets ``max(min_limit, factor x the reference's own
time on the same test)``, at most the study's budget (which stays the outer guard), as the spec's own
``timeout_s``. The reference runs first, with the full budget; a test it did not pass (a generated test: did not
finish) gives the code the full budget. The reference's time is its own time (wall time less its waits for a
CPU, at least its CPU time: the clock the code's test is judged by), so a limit does not move with the machine's
load, and a reference that sleeps gives the code the time it slept.

Load-proofing, as for the fixed budgets: the sandbox judges every limit by the test's *own* time (wall time
less its waits for a CPU, ``sandbox.clock``), so a timeout is the program's own unless the sandbox's wall-clock
guard decided it (:func:`starved`). A guard timeout or a crash runs again alone, serially, with
:data:`LOAD_BUDGET_FACTOR` times its limit; the alone run's outcome decides (:func:`settle_benchmark` for
benchmark tests; ``labels.settle`` for generated tests).
"""

from __future__ import annotations

import dataclasses
from collections.abc import Sequence
from typing import Any

from tfr_helpers.benchmarks import benchmark_tests
from tfr_helpers.pipeline.config.sections import TimeLimitPolicy
from tfr_helpers.pipeline.engine.context import RunContext
from tfr_helpers.records import ProgramRun, Task, TestOutcome
from tfr_helpers.sandbox.clock import WALL_GUARD

LOAD_BUDGET_FACTOR = 3.0
"""A test that timed out or crashed runs again alone with this many times its budget."""
SPUN_SHARE = 0.9
"""Where the sandbox did not measure a test's wait for a CPU: a timeout whose process used at least this share
of its budget in CPU time had a core all along."""
OWN_SLACK_S = 1e-6
"""Rounding slack when a recorded time is compared with the budget the sandbox compared it with."""


def policy_on(ctx: RunContext) -> bool:
    """Whether the run derives code's time limits from the reference (``sandbox.time_limit.policy: evalplus``)."""
    return ctx.config.sandbox.time_limit.policy == "evalplus"


def limit_clock(outcome: TestOutcome) -> float:
    """A program's time on a test on the clock a time limit is set and judged by: its own time (wall time less
    its waits for a CPU) where the sandbox measured the waits, at least its CPU time; else its CPU time where
    measured, else its wall time. The reference's sets the code's limit (:func:`policy_limit`); the code's, run
    alone, is judged against it (:func:`settle_benchmark`). A reference that sleeps or waits on a child process
    uses almost no CPU: its CPU time alone (0.00 or 0.01 s, by the clock's ticks) would give the code the
    minimum limit for what takes the reference seconds of its own time."""
    own = own_time(outcome)
    if own is not None:
        return max(own, outcome.cpu_s)
    return outcome.cpu_s if outcome.cpu_s > 0 else outcome.duration_s


FINISHED = frozenset({"passed", "failed", "error"})
"""A generated test's outcomes on the reference whose own time sets the code's limit: the test ran to its end,
a verdict of its own. A timeout, a crash or a test that did not run leaves the code the cap."""


def policy_limit(
    policy: TimeLimitPolicy, budget_s: float, reference: TestOutcome | None, finished: bool = False
) -> float | None:
    """A code's limit on one test from the reference's outcome on it: ``max(min_limit, factor x its time)``, at
    most ``budget_s`` (None: the budget, under ``fixed``, or when the reference did not pass the test; with
    ``finished``, a generated test's, when it did not finish it: :data:`FINISHED`)."""
    if policy.policy == "fixed" or reference is None or reference.status not in (FINISHED if finished else {"passed"}):
        return None
    return min(budget_s, max(policy.min_limit, policy.factor * limit_clock(reference)))


def limit_for(ctx: RunContext, reference: TestOutcome | None, generated: bool) -> float | None:
    """:func:`policy_limit` with the run's policy and budget (generated tests' or benchmark tests'). A generated
    test the reference ran to its end, passed or failed, sets the code's limit by the reference's own time on it
    (a test that hangs the code where the reference fails it at once costs the floor and its band, not the cap);
    a benchmark test only by a pass (one the reference fails makes the task a broken oracle)."""
    s = ctx.config.sandbox
    budget = s.generated_test_timeout_s if generated else s.timeout_s
    return policy_limit(s.time_limit, budget, reference, finished=generated)


def with_limits(ctx: RunContext, specs: Sequence[Any], reference: ProgramRun | None, generated: bool) -> list[Any]:
    """``specs`` with each one's limit from the reference's run on the same specs (unchanged under ``fixed``).
    A generated test's spec gets the sandbox's kill, :func:`hard_limit` of the code's limit (the budget where the
    reference did not finish it)."""
    if reference is None or not policy_on(ctx) or len(reference.outcomes) != len(specs):
        return list(specs)
    if generated:
        cap = ctx.config.sandbox.generated_test_timeout_s
        return [
            dataclasses.replace(spec, timeout_s=hard_limit(ctx, limit_for(ctx, o, True) or cap))
            for spec, o in zip(specs, reference.outcomes, strict=True)
        ]
    return [
        dataclasses.replace(spec, timeout_s=limit) if (limit := limit_for(ctx, o, generated)) is not None else spec
        for spec, o in zip(specs, reference.outcomes, strict=True)
    ]


def margin(ctx: RunContext) -> float:
    """The near-limit band on generated tests (0 under ``fixed``)."""
    return ctx.config.sandbox.time_limit.margin if policy_on(ctx) else 0.0


def hard_limit(ctx: RunContext, limit_s: float) -> float:
    """Where the sandbox kills a program on a generated test whose limit is ``limit_s``: ``limit_s x (1 +
    margin)``, so that a program finishing just past its limit is seen to be near it (:func:`judge_near`)."""
    return limit_s * (1.0 + margin(ctx))


def reference_benchmark_runs(ctx: RunContext, tasks: Sequence[Task]) -> dict[str, ProgramRun]:
    """Task id -> the reference's run on its benchmark tests, full budget (none under ``fixed``)."""
    if not policy_on(ctx):
        return {}
    distinct = list({t.task_id: t for t in tasks}.values())
    runs = ctx.run_programs(
        [(t.reference, benchmark_tests(t)) for t in distinct], desc="reference: benchmark tests", generated=False
    )
    return {t.task_id: run for t, run in zip(distinct, runs, strict=True)}


def code_benchmark_specs(ctx: RunContext, task: Task, references: dict[str, ProgramRun]) -> list[Any]:
    """A code's benchmark tests, each with its limit under the policy."""
    return with_limits(ctx, benchmark_tests(task), references.get(task.task_id), generated=False)


def own_time(outcome: TestOutcome) -> float | None:
    """A test's own time: its wall time less its wait for a CPU (None where the sandbox did not measure it)."""
    return None if outcome.wait_s is None else max(0.0, outcome.duration_s - outcome.wait_s)


def starved(outcome: TestOutcome, budget_s: float) -> bool:
    """A verdict the machine, not the program, may have decided: a crash, or a timeout of the sandbox's
    wall-clock guard (its wall time reached :data:`~tfr_helpers.sandbox.clock.WALL_GUARD` times ``budget_s``,
    or its own time stayed under ``budget_s``: the load starved it). A timeout decided by own
    time is the program's own, final: a loop that never ends and a test that sleeps past its budget alike.
    Where the sandbox did not measure the wait: a timeout that used less than :data:`SPUN_SHARE` of the budget
    in CPU time."""
    if outcome.status == "timeout":
        own = own_time(outcome)
        if own is None:
            return outcome.cpu_s < SPUN_SHARE * budget_s
        return outcome.duration_s >= WALL_GUARD * budget_s - OWN_SLACK_S or own < budget_s - OWN_SLACK_S
    return outcome.status == "crashed"


def over_limit(outcome: TestOutcome, limit_s: float, unit: str) -> TestOutcome:
    """A finished outcome that needed more than its limit, as the timeout the limit makes it (the message in
    words that do not depend on the machine)."""
    return outcome.model_copy(
        update={"status": "timeout", "message": f"finished only past its limit of {limit_s:g} s of {unit}"}
    )


def settle_benchmark(ctx: RunContext, jobs: Sequence[tuple[str, Sequence[Any]]], runs: list[ProgramRun]) -> list[ProgramRun]:
    """Runs whose limited benchmark tests (a spec with its own ``timeout_s``) hit the wall-clock guard or
    crashed (:func:`starved`), with those tests run again alone, serially, with :data:`LOAD_BUDGET_FACTOR` times
    the limit. The alone run passes the test only when it passed within the limit on the clock the limit came from
    (:func:`limit_clock`); otherwise the test is a timeout."""
    out = []
    for (program, specs), run in zip(jobs, runs, strict=True):
        outcomes = list(run.outcomes)
        for i, (spec, outcome) in enumerate(zip(specs, run.outcomes, strict=False)):
            limit = getattr(spec, "timeout_s", None)
            if limit is None or not starved(outcome, limit):
                continue
            wider = dataclasses.replace(spec, timeout_s=LOAD_BUDGET_FACTOR * limit)
            (alone,) = ctx.run_programs(
                [(program, [wider])], desc="timeouts run alone", generated=False, budget_factor=LOAD_BUDGET_FACTOR
            )
            got = alone.outcomes[0] if alone.outcomes else outcome
            if got.status == "passed" and limit_clock(got) > limit:
                got = over_limit(got, limit, "CPU time" if got.cpu_s > limit else "its own time")
            outcomes[i] = got
        out.append(run.model_copy(update={"outcomes": outcomes}) if outcomes != run.outcomes else run)
    return out


def run_benchmark(ctx: RunContext, jobs: Sequence[tuple[str, Task]], desc: str) -> list[ProgramRun]:
    """Run generated or refined programs on their tasks' benchmark tests under the run's time-limit policy."""
    references = reference_benchmark_runs(ctx, [task for _, task in jobs])
    specs = [(program, code_benchmark_specs(ctx, task, references)) for program, task in jobs]
    runs = ctx.run_programs(specs, desc=desc, generated=False)
    return settle_benchmark(ctx, specs, runs) if references else runs


def judge_near(outcome: TestOutcome, limit_s: float, margin_s: float, below: bool) -> tuple[TestOutcome, bool]:
    """A generated test's deciding outcome judged against its limit, and whether it lies near the limit.

    A program that finished (passed or failed) past ``limit_s`` by the clock the limit is judged by
    (:func:`limit_clock`) is the timeout the limit makes it. A pass that took more than ``limit_s x (1 - margin_s)``
    (``below``) or more than ``limit_s`` (not ``below``), and finished before the sandbox's kill at ``limit_s x
    (1 + margin_s)``, is *near*: a faster or slower machine could have decided it the other way, so its label is
    set aside as ``indeterminate``. A failure fails either way (an assertion or a timeout), and a timeout the
    sandbox killed is past the band: both are decided.

    The reference is judged with ``below`` (its pass just under the cap would be a timeout on a slower machine,
    which turns reliable feedback into indeterminate); the code without it: its pass just under its limit is no
    feedback, as its timeout in the band above (indeterminate, left out of every reliability denominator) is not."""
    if outcome.status not in ("passed", "failed", "error"):
        return outcome, False
    took = limit_clock(outcome)
    near = margin_s > 0 and outcome.status == "passed" and took > limit_s * (1.0 - margin_s if below else 1.0)
    if took > limit_s + OWN_SLACK_S:
        return over_limit(outcome, limit_s, "CPU time" if outcome.cpu_s > limit_s else "its own time"), near
    return outcome, near
