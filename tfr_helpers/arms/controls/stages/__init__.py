"""The control arm's stages, in the order they run, and its part of ``results.json`` built from their records
(``ControlsResults``), the model calls it holds and its stages that ask a model once per feedback."""

from __future__ import annotations

from collections.abc import Iterable

from tfr_helpers.arms.controls.arm import ARM
from tfr_helpers.arms.controls.records import ControlRefinedEvaluation, ControlRefinement, ControlsResults
from tfr_helpers.arms.controls.stages import control_evaluate, control_refine
from tfr_helpers.pipeline.config import scope
from tfr_helpers.pipeline.config.experiment import ExperimentConfig
from tfr_helpers.pipeline.engine.stage import InputRecords, Stage
from tfr_helpers.records import ModelCallRecord

STAGES = (*control_refine.STAGES, control_evaluate.STAGE)
"""One stage per control (each with items only when listed), then the evaluation of every control attempt."""


def results(config: ExperimentConfig, records: InputRecords) -> ControlsResults:
    """The controls' attempts and evaluations and each coder's status (asked when a control is listed)."""
    return ControlsResults(
        controls=list(ARM.settings(config).controls),
        refinements=records.of(ControlRefinement),
        refined_evaluations=records.of(ControlRefinedEvaluation),
        refinement_status=scope.refinement_status(config),
    )


def calls(part: ControlsResults) -> Iterable[tuple[str, ModelCallRecord]]:
    """One call per control and refined feedback."""
    return ((f"control_{ctl.control}|{ctl.feedback_id}", ctl.call) for ctl in part.refinements)


def feedback_stages(config: ExperimentConfig) -> tuple[Stage, ...]:
    """The stages of the controls ``refinement.controls`` lists: each asks the refiner once per refined feedback."""
    listed = {control_refine.stage_name(control) for control in ARM.settings(config).controls}
    return tuple(stage for stage in control_refine.STAGES if stage.name in listed)
