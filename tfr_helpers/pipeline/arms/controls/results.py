"""The control arm's records consolidated for ``results.json`` (``Results.controls``)."""

from __future__ import annotations

from tfr_helpers.pipeline.arms.controls.control_refine import STAGES as CONTROL_STAGES
from tfr_helpers.pipeline.config import scope
from tfr_helpers.pipeline.engine.context import RunContext
from tfr_helpers.pipeline.engine.stage import StageRecords, records_of
from tfr_helpers.records import ControlRefinedEvaluation, ControlRefinement, ControlsResults


def controls_results(ctx: RunContext, records: StageRecords) -> ControlsResults | None:
    """The controls' attempts and evaluations and each coder's status; None when no control is listed."""
    controls = ctx.config.refinement.controls
    if not controls:
        return None
    return ControlsResults(
        controls=list(controls),
        refinements=[r for stage in CONTROL_STAGES for r in records_of(records, stage.name, ControlRefinement)],
        refined_evaluations=records_of(records, "control_evaluate", ControlRefinedEvaluation),
        refinement_status={
            m: "run" if scope.refines(ctx.config, m) else scope.NO_REFINER for m in ctx.config.models.coder_names
        },
    )
