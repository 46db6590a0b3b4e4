"""The control arm, declared once: when it is on, its stages, its part of ``Results``, its calls, its stages that
run per feedback."""

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


def controls_enabled(config: ExperimentConfig) -> bool:
    """On when ``refinement.controls`` lists a control."""
    return bool(config.refinement.controls)


def listed_stages(config: ExperimentConfig) -> tuple[Stage, ...]:
    """The stages of the controls ``refinement.controls`` lists: each asks the refiner once per refined feedback."""
    listed = {stage_name(control) for control in config.refinement.controls}
    return tuple(stage for stage in control_refine.STAGES if stage.name in listed)


ARM = Arm(
    "controls",
    enabled=controls_enabled,
    stages=(*control_refine.STAGES, control_evaluate.STAGE),
    field="controls",
    results=controls_results,
    calls=controls_calls,
    feedback_stages=listed_stages,
    switch="refinement.controls: [resample, retry, placebo]",
    summarize=lambda config: f"controls {', '.join(config.refinement.controls)}",
)
