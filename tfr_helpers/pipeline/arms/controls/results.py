"""The control arm's records consolidated for ``results.json`` (``Results.controls``)."""

from __future__ import annotations

from tfr_helpers.pipeline.arms.controls.control_refine import STAGES as CONTROL_STAGES
from tfr_helpers.pipeline.config import scope
from tfr_helpers.pipeline.config.experiment import ExperimentConfig
from tfr_helpers.pipeline.engine.stage import StageRecords, records_of
from tfr_helpers.records import ControlRefinedEvaluation, ControlRefinement, ControlsResults


def controls_results(config: ExperimentConfig, records: StageRecords) -> ControlsResults | None:
    """The controls' attempts and evaluations and each coder's status; None when no control is listed."""
    controls = config.refinement.controls
    if not controls:
        return None
    return ControlsResults(
        controls=list(controls),
        refinements=[r for stage in CONTROL_STAGES for r in records_of(records, stage.name, ControlRefinement)],
        refined_evaluations=records_of(records, "control_evaluate", ControlRefinedEvaluation),
        refinement_status=scope.refinement_status(config),
    )
