"""The oracle-repaired arm's stages, in the order they run, and its part of ``results.json`` built from their
records (``OracleRepairResults``) with the model calls it holds."""

from __future__ import annotations

from collections.abc import Iterable

from tfr_helpers.arms.oracle.records import (
    OracleRefinedEvaluation,
    OracleRefinement,
    OracleRepairResults,
    RepairedTest,
)
from tfr_helpers.arms.oracle.stages import oracle_evaluate_refined, oracle_refine_codes, oracle_repair_tests
from tfr_helpers.pipeline.config import scope
from tfr_helpers.pipeline.config.experiment import ExperimentConfig
from tfr_helpers.pipeline.engine.stage import InputRecords
from tfr_helpers.records import ModelCallRecord

STAGES = (oracle_repair_tests.STAGE, oracle_refine_codes.STAGE, oracle_evaluate_refined.STAGE)
"""Repair unreliable EBTs from the reference, refine on them, evaluate the refinements."""


def results(config: ExperimentConfig, records: InputRecords) -> OracleRepairResults:
    """The arm's repairs, refinements and evaluations, and each coder's refinement status (asked when it is on)."""
    return OracleRepairResults(
        repaired_tests=records.of(RepairedTest),
        refinements=records.of(OracleRefinement),
        refined_evaluations=records.of(OracleRefinedEvaluation),
        refinement_status=scope.refinement_status(config),
    )


def calls(part: OracleRepairResults) -> Iterable[tuple[str, ModelCallRecord]]:
    """One refinement call per repaired feedback."""
    return ((f"oracle_refine|{ref.feedback_id}", ref.call) for ref in part.refinements)
