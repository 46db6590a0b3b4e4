"""Stage judge_trajectory_outcomes: every attempt of every trajectory on the benchmark tests, for RQ2's
intention-to-treat outcomes per task (:mod:`tfr_helpers.arms.trajectories.records.trajectory_outcomes`).

``evaluate_trajectory_steps`` judges the usable steps (attempts k and k + 1 of each); a trajectory that passed its
own tests first time has no step, and a step the reader could not use has no record, yet the final code of both
has a verdict. This stage gives each trajectory all of its attempts' verdicts. The programs and the benchmark
runs are the same as the step stage's (:func:`~tfr_helpers.pipeline.steps.time_limits.run_benchmark`, the run's
time-limit policy), so every attempt a step already ran is an execution-cache hit: the new work is the attempts no
usable step holds. A task is left out only when its benchmark cannot be judged offline (the step stage's rule).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from tfr_helpers.arms.trajectories.arm import ARM
from tfr_helpers.arms.trajectories.records.trajectory_outcomes import TrajectoryOutcome, outcome_key
from tfr_helpers.arms.trajectories.stages.evaluate_trajectory_steps import _broken_references as broken_references
from tfr_helpers.arms.trajectories.stages.step_class import evaluable_task
from tfr_helpers.pipeline.config.fingerprint import PROGRAM_RUN_PARTS
from tfr_helpers.pipeline.engine.codec import register_record_type
from tfr_helpers.pipeline.engine.context import RunContext
from tfr_helpers.pipeline.engine.stage import InputRecords, Inputs, Stage
from tfr_helpers.pipeline.steps.time_limits import run_benchmark
from tfr_helpers.records import Task
from tfr_helpers.replay.trajectories.logged import Trajectory
from tfr_helpers.replay.trajectories.sets import load_trajectories

CHECKPOINT = "trajectory_outcomes"
"""The stage's checkpoint (``checkpoints/trajectory_outcomes.jsonl``)."""


@dataclass(frozen=True)
class OutcomeJob:
    """One trajectory of one set."""

    dataset: str
    model: str
    trajectory: Trajectory

    @property
    def key(self) -> str:
        """Checkpoint key."""
        return outcome_key(self.dataset, self.trajectory.task_id)

    @property
    def unit(self) -> tuple[str, str]:
        """The unit a fault of this item blocks: the set and the task."""
        return f"trajectories:{self.dataset}", self.trajectory.task_id


def outcome_items(ctx: RunContext, inputs: InputRecords) -> list[OutcomeJob]:
    """One job per trajectory of every configured set, in configuration and log order."""
    jobs = []
    for entry in ARM.settings(ctx.config).trajectories:
        found = load_trajectories(entry)
        jobs += [OutcomeJob(found.name, found.model, t) for t in found.trajectories if t.attempts]
    return jobs


def judge_trajectory_outcomes(items: Sequence[OutcomeJob], ctx: RunContext) -> list[TrajectoryOutcome]:
    """Each trajectory's attempts on the benchmark tests.

    Args:
        items: The trajectories.
        ctx: The run context.

    Returns:
        One :class:`TrajectoryOutcome` per trajectory, in order.
    """
    judged: dict[str, Task | str] = {}
    for item in items:
        judged.setdefault(item.trajectory.task_id, evaluable_task(item.trajectory))
    judged.update(broken_references(ctx, [t for t in judged.values() if isinstance(t, Task)]))
    jobs: list[tuple[str, Task]] = []
    for item in items:
        task = judged[item.trajectory.task_id]
        if isinstance(task, Task):
            jobs += [(item.trajectory.program(k), task) for k in range(len(item.trajectory.attempts))]
    todo = list({(p, t.task_id): (p, t) for p, t in jobs}.values())
    runs = dict(zip([(p, t.task_id) for p, t in todo], run_benchmark(ctx, todo, "trajectories: every attempt"), strict=True))
    out = []
    for item in items:
        t = item.trajectory
        head: dict[str, Any] = {"dataset": item.dataset, "model": item.model, "task_id": t.task_id, "benchmark": t.benchmark}
        task = judged[t.task_id]
        if not isinstance(task, Task):
            out.append(TrajectoryOutcome(**head, not_evaluable=task))
            continue
        out.append(
            TrajectoryOutcome(**head, verdicts=[runs[(t.program(k), t.task_id)].passed for k in range(len(t.attempts))])
        )
    return out


register_record_type(TrajectoryOutcome)
STAGE = Stage(
    "judge_trajectory_outcomes",
    judge_trajectory_outcomes,
    outcome_items,
    CHECKPOINT,
    lambda r: r.key,
    inputs=Inputs(settings=("trajectories", *PROGRAM_RUN_PARTS)),
    produces=(TrajectoryOutcome,),
    sandboxed=True,
    parallel_chunks=True,
)
