"""The trajectory arm, declared once: its stages (the steps judged, then screened; every attempt judged; the fixed
test lists measured on the reference) and its part of ``Results`` (it calls no model)."""

from __future__ import annotations

from tfr_helpers.pipeline.arms.declaration import Arm
from tfr_helpers.pipeline.arms.trajectories import (
    evaluate_trajectory_steps,
    judge_trajectory_outcomes,
    measure_test_lists,
    screen_trajectory_steps,
)
from tfr_helpers.pipeline.arms.trajectories.results import trajectories_results

ARM = Arm(
    "trajectories",
    (
        evaluate_trajectory_steps.STAGE,
        screen_trajectory_steps.STAGE,
        judge_trajectory_outcomes.STAGE,
        measure_test_lists.STAGE,
    ),
    "trajectories",
    trajectories_results,
)
