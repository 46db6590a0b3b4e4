"""The trajectory arm, declared once: when it is on, its stages (the steps judged, then screened; every attempt
judged; the fixed test lists measured on the reference) and its part of ``Results`` (it calls no model)."""

from __future__ import annotations

from tfr_helpers.pipeline.arms.declaration import Arm
from tfr_helpers.pipeline.arms.trajectories import (
    evaluate_trajectory_steps,
    judge_trajectory_outcomes,
    measure_test_lists,
    screen_trajectory_steps,
)
from tfr_helpers.pipeline.arms.trajectories.results import trajectories_results
from tfr_helpers.pipeline.config.experiment import ExperimentConfig


def trajectories_enabled(config: ExperimentConfig) -> bool:
    """On when ``trajectories`` names a trajectory set."""
    return bool(config.trajectories)


ARM = Arm(
    "trajectories",
    enabled=trajectories_enabled,
    stages=(
        evaluate_trajectory_steps.STAGE,
        screen_trajectory_steps.STAGE,
        judge_trajectory_outcomes.STAGE,
        measure_test_lists.STAGE,
    ),
    field="trajectories",
    results=trajectories_results,
    switch="trajectories: [<trajectory set>]",
    summarize=lambda config: f"trajectory sets {', '.join(config.trajectories)}",
)
