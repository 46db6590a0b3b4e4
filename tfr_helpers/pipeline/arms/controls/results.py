"""The control arm's records consolidated for ``results.json`` (``Results.controls``)."""

from __future__ import annotations

from tfr_helpers.pipeline.config import scope
from tfr_helpers.pipeline.config.experiment import ExperimentConfig
from tfr_helpers.pipeline.engine.stage import InputRecords
from tfr_helpers.records import ControlRefinedEvaluation, ControlRefinement, ControlsResults


def controls_results(config: ExperimentConfig, records: InputRecords) -> ControlsResults | None:
    """The controls' attempts and evaluations and each coder's status; None when no control is listed."""
    controls = config.refinement.controls
    if not controls:
        return None
    return ControlsResults(
        controls=list(controls),
        refinements=records.of(ControlRefinement),
        refined_evaluations=records.of(ControlRefinedEvaluation),
        refinement_status=scope.refinement_status(config),
    )
