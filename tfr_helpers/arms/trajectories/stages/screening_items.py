"""A trajectory step's reproduced failing tests as screening items: the feedback the model really received, in the
same reference-free form (:class:`~tfr_helpers.pipeline.screening.registry.ScreeningItem`) as the base study's.

An item holds the task as models see it (no reference), the code before the step, one logged failing test, tfr's
outcome of that test on the code before and the logged feedback text. The label (the reference fails the test too)
is returned beside the item, never in it. Used by the stage ``screen_trajectory_steps`` and by the learned
screener's training data (``screener.dataset``).
"""

from __future__ import annotations

from collections.abc import Sequence

from tfr_helpers.arms.trajectories.records.trajectories import LoggedTestVerdict, TrajectoryStepEvaluation, step_key
from tfr_helpers.arms.trajectories.records.trajectory_screening import TrajectoryStepScreening
from tfr_helpers.arms.trajectories.stages.step_class import logged_specs, outcome_of
from tfr_helpers.benchmarks import get_task
from tfr_helpers.pipeline.screening.registry import ScreeningItem, resolve_strategy
from tfr_helpers.records import Feedback, GeneratedTest, ModelCallRecord, ProgramRun, TaskView, TestOutcome
from tfr_helpers.replay.trajectories.feedback import failing
from tfr_helpers.replay.trajectories.logged import LoggedTest, Trajectory

SCREENED_CLASSES = ("reliable", "unreliable", "mixed")
"""Step classes whose failing tests were reproduced and judged against the reference: the steps screened."""


def trajectory_strategies(screening: Sequence[str]) -> list[str]:
    """``accept_all`` and the run's screeners that call no model, in the run's order: the screeners of the trajectory
    steps (a replayed log has no judge to ask)."""
    return list(dict.fromkeys(["accept_all", *(s for s in screening if not resolve_strategy(s).calls_model)]))


def current_screening(records: Sequence[TrajectoryStepScreening], screening: Sequence[str]) -> list[TrajectoryStepScreening]:
    """The records of the run's current ``screening`` list, one per step (a checkpoint keeps those of an earlier
    list too; a record from before the list was recorded has none and is kept)."""
    wanted = trajectory_strategies(screening)
    kept = {step_key(r.dataset, r.task_id, r.step): r for r in records if r.strategies in ([], wanted)}
    return list(kept.values())


def trajectory_coder(model: str) -> str:
    """The coder name a set's steps are screened under (the set's model; never ``sim:``)."""
    return f"trajectories:{model}"


def step_program(trajectory: Trajectory, step: int) -> tuple[str, list[object]]:
    """The sandbox job that reruns a step's logged failing tests on the code before (the evaluation's own job)."""
    return trajectory.program(step), logged_specs(failing(trajectory.attempts[step].tests))


def screening_item(
    trajectory: Trajectory,
    model: str,
    step: int,
    index: int,
    test: LoggedTest,
    outcome: TestOutcome,
    views: dict[str, TaskView],
) -> ScreeningItem:
    """One logged failing test of step ``step`` (its ``index``-th) as a screening item, with tfr's outcome of it on the
    code before. ``views``: task id -> task view, filled on demand."""
    attempt = trajectory.attempts[step]
    coder = trajectory_coder(model)
    view = views.setdefault(trajectory.task_id, get_task(trajectory.task_id).view())
    test_id = f"{coder}|{trajectory.task_id}|ebt|{step * 1000 + index}"
    call = ModelCallRecord(
        model=coder, role="tester", stage="evaluate_trajectory_steps", template="logged", template_version="log"
    )
    generated = GeneratedTest(
        test_id=test_id,
        model=coder,
        task_id=trajectory.task_id,
        kind="ebt",
        index=index,
        name=test.name,
        source=test.source,
        call=call,
    )
    feedback = Feedback(feedback_id=test_id, test_id=test_id, text=attempt.feedback or "")
    return ScreeningItem(feedback, view, coder, "", trajectory.program(step), generated, outcome, code_samples=1)


def step_items(
    trajectory: Trajectory, evaluation: TrajectoryStepEvaluation, run: ProgramRun, views: dict[str, TaskView]
) -> list[tuple[ScreeningItem, LoggedTestVerdict]]:
    """Each reproduced, labelled failing test of a judged step as a screening item, with its verdict (the label).

    Args:
        trajectory: The step's trajectory (its attempt ``evaluation.step`` is the code before).
        evaluation: The step as the trajectory arm judged it.
        run: :func:`step_program`'s job run in the sandbox (the outcomes the items carry).
        views: Task id -> task view, filled on demand.
    """
    if evaluation.step_class not in SCREENED_CLASSES:
        return []
    attempt = trajectory.attempts[evaluation.step]
    out = []
    for index, (test, verdict) in enumerate(zip(failing(attempt.tests), evaluation.tests, strict=False)):
        outcome = outcome_of(run, test)
        if not verdict.reproduced or verdict.on_reference is None or outcome is None or test.name != verdict.name:
            continue
        out.append((screening_item(trajectory, evaluation.model, evaluation.step, index, test, outcome, views), verdict))
    return out


def labels(pairs: Sequence[tuple[ScreeningItem, LoggedTestVerdict]]) -> list[int]:
    """1 for a test the reference fails too (unreliable feedback), 0 for one it passes."""
    return [int(v.on_reference != "passed") for _, v in pairs]
