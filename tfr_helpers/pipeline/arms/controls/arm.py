"""The control arm, declared once: its stages, its part of ``Results``, its calls, its stages that run per feedback."""

from __future__ import annotations

from collections.abc import Iterable

from tfr_helpers.pipeline.arms.controls import control_evaluate, control_refine
from tfr_helpers.pipeline.arms.controls.control_refine import stage_name
from tfr_helpers.pipeline.arms.controls.results import controls_results
from tfr_helpers.pipeline.arms.declaration import Arm
from tfr_helpers.pipeline.config.experiment import ExperimentConfig
from tfr_helpers.pipeline.engine.stage import Stage
from tfr_helpers.records import ControlsResults, ModelCallRecord


def controls_calls(part: ControlsResults) -> Iterable[tuple[str, ModelCallRecord]]:
    """One call per control and refined feedback."""
    return ((f"control_{ctl.control}|{ctl.feedback_id}", ctl.call) for ctl in part.refinements)


def listed_stages(config: ExperimentConfig) -> tuple[Stage, ...]:
    """The stages of the controls ``refinement.controls`` lists: each asks the refiner once per refined feedback."""
    listed = {stage_name(control) for control in config.refinement.controls}
    return tuple(stage for stage in control_refine.STAGES if stage.name in listed)


ARM = Arm(
    "controls",
    (*control_refine.STAGES, control_evaluate.STAGE),
    "controls",
    controls_results,
    controls_calls,
    listed_stages,
)
