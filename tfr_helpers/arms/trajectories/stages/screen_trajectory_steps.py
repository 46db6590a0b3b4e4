"""Stage screen_trajectory_steps: RQ3's reference-free screeners on the real trajectory steps.

One item per judged step (class ``reliable``, ``unreliable`` or ``mixed``) of ``evaluate_trajectory_steps``. Its
reproduced failing tests become screening items (:mod:`.screening_items`: the logged feedback, the code before, tfr's
outcome of the test on it; no reference) and every reference-free strategy of the run decides each one:
``accept_all`` and the run's ``screening`` list without the LLM judges (a replayed log has no judge to ask). The
consensus screeners see one code sample per step, so they accept everything, each with the reason. The step rule
(screened out when every reproduced failing test is rejected) is :mod:`..records.trajectory_screening`'s.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from tfr_helpers.arms.trajectories.records.trajectories import TrajectoryStepEvaluation
from tfr_helpers.arms.trajectories.records.trajectory_screening import ScreenedFailingTest, TrajectoryStepScreening
from tfr_helpers.arms.trajectories.stages.evaluate_trajectory_steps import StepJob
from tfr_helpers.arms.trajectories.stages.evaluate_trajectory_steps import step_items as all_steps
from tfr_helpers.arms.trajectories.stages.screening_items import (
    SCREENED_CLASSES,
    step_items,
    step_program,
    trajectory_strategies,
)
from tfr_helpers.pipeline.config.fingerprint import PROGRAM_RUN_PARTS
from tfr_helpers.pipeline.engine.codec import register_record_type
from tfr_helpers.pipeline.engine.context import RunContext
from tfr_helpers.pipeline.engine.stage import InputRecords, Inputs, Stage
from tfr_helpers.pipeline.screening.registry import resolve_strategy
from tfr_helpers.records import TaskView


@dataclass(frozen=True)
class ScreenStepJob:
    """One judged step and its evaluation."""

    job: StepJob
    evaluation: TrajectoryStepEvaluation
    strategies: tuple[str, ...]

    @property
    def key(self) -> str:
        """Checkpoint key: the step's and the strategies' (:attr:`TrajectoryStepScreening.key`)."""
        return f"{self.job.key}|{'+'.join(self.strategies)}"

    @property
    def unit(self) -> tuple[str, str]:
        """The unit a fault of this step blocks (the trajectory arm's: the set and the task)."""
        return self.job.unit


def screen_step_items(ctx: RunContext, inputs: InputRecords) -> list[ScreenStepJob]:
    """One job per judged step, in the trajectory arm's order."""
    judged = {e.key: e for e in inputs.of(TrajectoryStepEvaluation) if e.step_class in SCREENED_CLASSES}
    if not judged:
        return []
    strategies = tuple(trajectory_strategies(ctx.config.screening))
    return [ScreenStepJob(job, judged[job.key], strategies) for job in all_steps(ctx, inputs) if job.key in judged]


def screen_trajectory_steps(items: Sequence[ScreenStepJob], ctx: RunContext) -> list[TrajectoryStepScreening]:
    """Every strategy's decision on each reproduced failing test of each step.

    Args:
        items: The judged steps.
        ctx: The run context.

    Returns:
        One :class:`TrajectoryStepScreening` per step, in order.
    """
    runs = ctx.run_programs(
        [step_program(i.job.trajectory, i.job.step) for i in items], desc="trajectories: screened tests", generated=True
    )
    views: dict[str, TaskView] = {}
    pairs = [step_items(i.job.trajectory, i.evaluation, run, views) for i, run in zip(items, runs, strict=True)]
    flat = [item for step in pairs for item, _ in step]
    names = trajectory_strategies(ctx.config.screening)
    verdicts = {name: resolve_strategy(name)(flat, ctx) for name in names}
    out, at = [], 0
    for i, step in zip(items, pairs, strict=True):
        tests = []
        for item, verdict in step:
            mine = {name: v[at] for name, v in verdicts.items()}
            tests.append(
                ScreenedFailingTest(
                    name=verdict.name,
                    outcome=item.outcome.model_copy(update={"traceback": None, "stdout": "", "stderr": ""}),
                    unreliable=verdict.on_reference != "passed",
                    decisions={name: v.decision for name, v in mine.items()},
                    scores={name: v.score for name, v in mine.items() if v.score is not None},
                    abstained={name: v.abstained for name, v in mine.items()},
                    reasons={name: v.reasoning for name, v in mine.items() if v.reasoning},
                )
            )
            at += 1
        e = i.evaluation
        out.append(
            TrajectoryStepScreening(
                dataset=e.dataset, model=e.model, task_id=e.task_id, step=e.step, tests=tests, strategies=names
            )
        )
    return out


SCREENING_CHECKPOINT = "trajectory_screening"
"""The checkpoint of the steps' screening."""

register_record_type(TrajectoryStepScreening)
STAGE = Stage(
    "screen_trajectory_steps",
    screen_trajectory_steps,
    screen_step_items,
    SCREENING_CHECKPOINT,
    lambda r: r.key,
    inputs=Inputs(
        records=(TrajectoryStepEvaluation,),
        settings=("trajectories", *PROGRAM_RUN_PARTS),
        # keyed by the strategy list: another list screens again, the old records stay unread
        selects=("screening",),
    ),
    produces=(TrajectoryStepScreening,),
    sandboxed=True,
)
