"""The oracle-repaired arm's records consolidated for ``results.json`` (``Results.oracle_repair``)."""

from __future__ import annotations

from tfr_helpers.pipeline.config import scope
from tfr_helpers.pipeline.config.experiment import ExperimentConfig
from tfr_helpers.pipeline.engine.stage import InputRecords
from tfr_helpers.records import OracleRefinedEvaluation, OracleRefinement, OracleRepairResults, RepairedTest


def oracle_results(config: ExperimentConfig, records: InputRecords) -> OracleRepairResults | None:
    """The arm's repairs, refinements and evaluations, and each coder's refinement status; None when it is off."""
    if not config.refinement.oracle_repair:
        return None
    return OracleRepairResults(
        repaired_tests=records.of(RepairedTest),
        refinements=records.of(OracleRefinement),
        refined_evaluations=records.of(OracleRefinedEvaluation),
        refinement_status=scope.refinement_status(config),
    )
