"""A step's RQ1 class from its logged failing tests as tfr's sandbox ran them, and what a step can be judged against.

- ``reliable``: every reproduced failing test passes the reference; ``unreliable``: every one fails it; ``mixed``;
- ``indeterminate``: the class depends on a failing test whose deciding outcome (on the code before, or on the
  reference once the code reproduced it) still depends on the machine after its run alone, by RQ1's rule
  (:func:`~tfr_helpers.pipeline.steps.labels.settle`): a timeout of the sandbox's wall-clock guard or a crash
  that happens again alone with 3x the budget. The base study sets such a pair aside; a step whose class would
  change with that verdict is set aside the same way, never counted as ``unreliable``;
- ``not_reproduced``: a harness fault, a feedback naming no failing test that can be run again, or none of the
  logged failing tests fails the code before in tfr's run;
- ``not_evaluable``: the task cannot be judged offline: a BigCodeBench task the selection excluded for a library
  that is not installed, the network or the sandbox (the selection's reason); one excluded only by the selection's
  size cut (``sample``) is judged, once its reference passes its own benchmark tests in this run.
"""

from __future__ import annotations

import hashlib
from collections.abc import Sequence

from tfr_helpers.arms.trajectories.records.trajectories import LoggedTestVerdict, StepClass
from tfr_helpers.benchmarks import load_tasks
from tfr_helpers.benchmarks.selection_file import load_selection
from tfr_helpers.errors import DataError
from tfr_helpers.pipeline.steps.time_limits import starved
from tfr_helpers.records import BenchmarkName, ProgramRun, Task, TestOutcome
from tfr_helpers.replay.trajectories.logged import LoggedTest, Trajectory
from tfr_helpers.sandbox import TestSpec

HARNESS_FAULT_REASON = "harness fault: the logging harness never ran the tests ('Expr' object has no attribute 'test')"
NO_TEST_REASON = "the feedback names no failing test that can be run again"
NOT_REPRODUCED_REASON = "no logged failing test fails the code before in tfr's run"
INDETERMINATE_REASON = (
    "a failing test's verdict depends on the machine: it hit the sandbox's wall-clock guard or crashed, on the code "
    "before or on the reference, and again when run alone with 3x the budget"
)


def spec_key(test: LoggedTest) -> str:
    """The key of the sandbox spec that runs ``test`` (:func:`logged_specs`): its assert, or its unittest module."""
    return f"{'a' if test.kind == 'assert' else 'u'}:{test.source}"


def _assert_name(test: LoggedTest) -> str:
    return f"logged_{hashlib.sha256(test.source.encode()).hexdigest()[:12]}"


def logged_specs(tests: Sequence[LoggedTest]) -> list[object]:
    """The sandbox specs of a step's logged tests: one snippet per assert, one unittest module per distinct module
    (its outcomes are named ``Class.method``)."""
    specs: dict[str, object] = {}
    for test in tests:
        if test.kind == "assert":
            specs.setdefault(spec_key(test), TestSpec(name=_assert_name(test), source=test.source, kind="snippet"))
        else:
            specs.setdefault(spec_key(test), TestSpec(name=f"module_{len(specs)}", source=test.source, kind="unittest"))
    return list(specs.values())


def outcome_of(run: ProgramRun | None, test: LoggedTest) -> TestOutcome | None:
    """The outcome of one logged test in a run of :func:`logged_specs` (the load error when the program did not
    load; None when the test is not in the run)."""
    if run is None:
        return None
    name = _assert_name(test) if test.kind == "assert" else test.name
    found = next((o for o in run.outcomes if o.name == name), None)
    return found if found is not None else run.load_error


SIZE_CUT = "sample"
"""The reason prefix of a task the BigCodeBench selection left out only to keep the study small."""


def evaluable_task(trajectory: Trajectory) -> Task | str:
    """The benchmark task a trajectory is judged against, or why it cannot be judged offline."""
    return evaluable_task_id(trajectory.benchmark, trajectory.task_id)


def evaluable_task_id(benchmark: BenchmarkName, task_id: str) -> Task | str:
    """The benchmark task of that id, or why it cannot be judged offline (:func:`evaluable_task`'s rule)."""
    every = {t.task_id: t for t in load_tasks(benchmark, selected=False)}
    selected = {t.task_id for t in load_tasks(benchmark, selected=True)}
    task = every[task_id]
    if task_id in selected or benchmark != "bigcodebench":
        return task
    try:
        reason = load_selection().excluded.get(task_id, "not in the selection")
    except DataError as exc:
        reason = str(exc)
    if reason.startswith(SIZE_CUT):
        return task
    return f"excluded from the study's BigCodeBench selection: {reason}"


def needs_alone(run: ProgramRun | None, test: LoggedTest, budget_s: float) -> bool:
    """Whether a logged test's outcome in ``run`` may be the machine's doing and runs again alone (RQ1's rule,
    :func:`~tfr_helpers.pipeline.steps.time_limits.starved`): a crash, a timeout of the wall-clock guard, or a
    test left ``not_run`` by a load that did either. A timeout the program's own time decided is final."""
    outcome = outcome_of(run, test)
    if run is None or outcome is None:
        return False
    if starved(outcome, budget_s):
        return True
    load = run.load_error
    return outcome.status == "not_run" and load is not None and starved(load, budget_s)


def classify(tests: Sequence[LoggedTest], verdicts: Sequence[LoggedTestVerdict]) -> tuple[StepClass, str]:
    """The class of a step whose feedback is not a harness fault, from its failing tests' verdicts, with the
    reason of a ``not_reproduced`` or ``indeterminate`` step (empty otherwise).

    A test whose verdict depends on the machine (``machine_dependent``) is set aside; the step keeps the class its
    other tests give only when no verdict of the set-aside ones could change it (``mixed`` stays mixed), and is
    ``indeterminate`` otherwise."""
    if not tests or not verdicts:
        return "not_reproduced", NO_TEST_REASON
    if any(v.machine_dependent for v in verdicts):
        settled, _ = classify(tests, [v for v in verdicts if not v.machine_dependent])
        return ("mixed", "") if settled == "mixed" else ("indeterminate", INDETERMINATE_REASON)
    reproduced = [v for v in verdicts if v.reproduced]
    if not reproduced:
        return "not_reproduced", NOT_REPRODUCED_REASON
    passes = [v.on_reference == "passed" for v in reproduced]
    if all(passes):
        return "reliable", ""
    if not any(passes):
        return "unreliable", ""
    return "mixed", ""
