"""The replayed trajectories arm's stages, in the order they run (the steps judged, then screened; every attempt
judged; the fixed test lists measured on the reference), and its part of ``results.json`` built from their records
(``TrajectoriesResults``; the arm calls no model)."""

from __future__ import annotations

from collections.abc import Sequence

from tfr_helpers.arms.trajectories.arm import ARM
from tfr_helpers.arms.trajectories.records.list_doses import TaskDose
from tfr_helpers.arms.trajectories.records.trajectories import (
    TrajectoriesResults,
    TrajectorySetInfo,
    TrajectoryStepEvaluation,
    step_key,
)
from tfr_helpers.arms.trajectories.records.trajectory_outcomes import TrajectoryOutcome
from tfr_helpers.arms.trajectories.records.trajectory_screening import TrajectoryStepScreening
from tfr_helpers.arms.trajectories.stages import (
    evaluate_trajectory_steps,
    judge_trajectory_outcomes,
    measure_test_lists,
    screen_trajectory_steps,
)
from tfr_helpers.pipeline.config.experiment import ExperimentConfig
from tfr_helpers.pipeline.engine.stage import InputRecords
from tfr_helpers.replay.trajectories.sets import fixed_list_of, load_trajectories


def trajectories_part(
    entries: Sequence[str],
    steps: list[TrajectoryStepEvaluation],
    screening: list[TrajectoryStepScreening] | None = None,
    outcomes: list[TrajectoryOutcome] | None = None,
    doses: list[TaskDose] | None = None,
) -> TrajectoriesResults:
    """The sets named by ``entries`` (loaded: their identity and the steps their readers left out), the steps and
    their screening, every trajectory's attempts judged and the fixed test lists measured."""
    sets = [load_trajectories(entry) for entry in entries]
    order = {
        step_key(s.name, t.task_id, k): i
        for i, (s, t, k) in enumerate((s, t, k) for s in sets for t in s.trajectories for k in t.usable_steps)
    }

    def place(r: TrajectoryStepEvaluation | TrajectoryStepScreening) -> int:
        return order.get(step_key(r.dataset, r.task_id, r.step), len(order))

    names = {s.name: i for i, s in enumerate(sets)}
    steps = sorted(steps, key=place)  # the stage's item order, whatever order its chunks were checkpointed in
    screening = sorted(screening or [], key=place)
    return TrajectoriesResults(
        sets=[
            TrajectorySetInfo(
                name=s.name,
                benchmark=s.benchmark,
                model=s.model,
                protocol=s.protocol,
                source=s.source,
                license=s.license,
                origin=s.origin,
                tasks=sum(1 for t in s.trajectories if t.usable_steps),
                steps=s.steps,
            )
            for s in sets
        ],
        steps=steps,
        screening=screening,
        unusable=[u for s in sets for u in s.unusable],
        outcomes=sorted(outcomes or [], key=lambda o: (names.get(o.dataset, len(names)), o.task_id)),
        doses=sorted(doses or [], key=lambda d: (d.test_list, d.task_id)),
        test_lists={s.name: found.name for s in sets if (found := fixed_list_of(s.name)) is not None},
    )


def results(config: ExperimentConfig, records: InputRecords) -> TrajectoriesResults:
    """The sets, every judged step and the steps the readers left out (asked when the arm is on)."""
    return trajectories_part(
        ARM.settings(config).trajectories,
        records.of(TrajectoryStepEvaluation),
        records.of(TrajectoryStepScreening),
        records.of(TrajectoryOutcome),
        records.of(TaskDose),
    )


STAGES = (
    evaluate_trajectory_steps.STAGE,
    screen_trajectory_steps.STAGE,
    judge_trajectory_outcomes.STAGE,
    measure_test_lists.STAGE,
)
"""Judge the steps, screen them, judge every attempt, measure the fixed test lists."""
