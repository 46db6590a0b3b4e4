"""The oracle-repaired arm's records consolidated for ``results.json`` (``Results.oracle_repair``)."""

from __future__ import annotations

from tfr_helpers.pipeline.config import scope
from tfr_helpers.pipeline.engine.context import RunContext
from tfr_helpers.pipeline.engine.stage import StageRecords, records_of
from tfr_helpers.records import OracleRefinedEvaluation, OracleRefinement, OracleRepairResults, RepairedTest

"""Refinement status of a coder whose refiner is a replay dataset (its repaired tests are still reported)."""


def oracle_results(ctx: RunContext, records: StageRecords) -> OracleRepairResults | None:
    """The arm's repairs, refinements and evaluations, and each coder's refinement status; None when it is off."""
    if not ctx.config.refinement.oracle_repair:
        return None
    return OracleRepairResults(
        repaired_tests=records_of(records, "oracle_repair_tests", RepairedTest),
        refinements=records_of(records, "oracle_refine_codes", OracleRefinement),
        refined_evaluations=records_of(records, "oracle_evaluate_refined", OracleRefinedEvaluation),
        refinement_status={
            m: "run" if scope.refines(ctx.config, m) else scope.NO_REFINER for m in ctx.config.models.coder_names
        },
    )
