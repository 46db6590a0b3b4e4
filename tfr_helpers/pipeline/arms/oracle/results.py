"""The oracle-repaired arm's records consolidated for ``results.json`` (``Results.oracle_repair``)."""

from __future__ import annotations

from tfr_helpers.pipeline.config import scope
from tfr_helpers.pipeline.config.experiment import ExperimentConfig
from tfr_helpers.pipeline.engine.stage import StageRecords, records_of
from tfr_helpers.records import OracleRefinedEvaluation, OracleRefinement, OracleRepairResults, RepairedTest


def oracle_results(config: ExperimentConfig, records: StageRecords) -> OracleRepairResults | None:
    """The arm's repairs, refinements and evaluations, and each coder's refinement status; None when it is off."""
    if not config.refinement.oracle_repair:
        return None
    return OracleRepairResults(
        repaired_tests=records_of(records, "oracle_repair_tests", RepairedTest),
        refinements=records_of(records, "oracle_refine_codes", OracleRefinement),
        refined_evaluations=records_of(records, "oracle_evaluate_refined", OracleRefinedEvaluation),
        refinement_status=scope.refinement_status(config),
    )
