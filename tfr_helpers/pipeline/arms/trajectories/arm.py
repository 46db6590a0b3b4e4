"""The trajectory arm, declared once: its stages (the steps judged, then screened) and its part of ``Results``
(it calls no model)."""

from __future__ import annotations

from tfr_helpers.pipeline.arms.declaration import Arm
from tfr_helpers.pipeline.arms.trajectories import evaluate_trajectory_steps, screen_trajectory_steps
from tfr_helpers.pipeline.arms.trajectories.results import trajectories_results

ARM = Arm(
    "trajectories", (evaluate_trajectory_steps.STAGE, screen_trajectory_steps.STAGE), "trajectories", trajectories_results
)
