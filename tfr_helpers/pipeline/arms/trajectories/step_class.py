"""A step's RQ1 class from its logged failing tests as tfr's sandbox ran them, and what a step can be judged against.

- ``reliable``: every reproduced failing test passes the reference; ``unreliable``: every one fails it; ``mixed``;
- ``not_reproduced``: a harness fault, a feedback naming no failing test that can be run again, or none of the
  logged failing tests fails the code before in tfr's run;
- ``not_evaluable``: the task cannot be judged offline: a BigCodeBench task the selection excluded for a library
  that is not installed, the network or the sandbox (the selection's reason); one excluded only by the selection's
  size cut (``sample``) is judged, once its reference passes its own benchmark tests in this run.
"""

from __future__ import annotations

import hashlib
from collections.abc import Sequence

from tfr_helpers.benchmarks import load_tasks
from tfr_helpers.benchmarks.selection_file import load_selection
from tfr_helpers.errors import DataError
from tfr_helpers.records import BenchmarkName, ProgramRun, Task, TestOutcome
from tfr_helpers.records.trajectories import LoggedTest, LoggedTestVerdict, StepClass, Trajectory
from tfr_helpers.sandbox import TestSpec

HARNESS_FAULT_REASON = "harness fault: the logging harness never ran the tests ('Expr' object has no attribute 'test')"
NO_TEST_REASON = "the feedback names no failing test that can be run again"
NOT_REPRODUCED_REASON = "no logged failing test fails the code before in tfr's run"


def _assert_name(test: LoggedTest) -> str:
    return f"logged_{hashlib.sha256(test.source.encode()).hexdigest()[:12]}"


def logged_specs(tests: Sequence[LoggedTest]) -> list[object]:
    """The sandbox specs of a step's logged tests: one snippet per assert, one unittest module per distinct module
    (its outcomes are named ``Class.method``)."""
    specs: dict[str, object] = {}
    for test in tests:
        if test.kind == "assert":
            specs.setdefault(f"a:{test.source}", TestSpec(name=_assert_name(test), source=test.source, kind="snippet"))
        else:
            key = f"u:{test.source}"
            specs.setdefault(key, TestSpec(name=f"module_{len(specs)}", source=test.source, kind="unittest"))
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


def classify(tests: Sequence[LoggedTest], verdicts: Sequence[LoggedTestVerdict]) -> tuple[StepClass, str]:
    """The class of a step whose feedback is not a harness fault, from its failing tests' verdicts, with the
    reason of a ``not_reproduced`` step (empty otherwise)."""
    if not tests or not verdicts:
        return "not_reproduced", NO_TEST_REASON
    reproduced = [v for v in verdicts if v.reproduced]
    if not reproduced:
        return "not_reproduced", NOT_REPRODUCED_REASON
    passes = [v.on_reference == "passed" for v in reproduced]
    if all(passes):
        return "reliable", ""
    if not any(passes):
        return "unreliable", ""
    return "mixed", ""
