"""The oracle-repaired arm, declared once: when it is on, its stages, its part of ``Results``, its calls."""

from __future__ import annotations

from collections.abc import Iterable

from tfr_helpers.pipeline.arms.declaration import Arm
from tfr_helpers.pipeline.arms.oracle import oracle_evaluate_refined, oracle_refine_codes, oracle_repair_tests
from tfr_helpers.pipeline.arms.oracle.results import oracle_results
from tfr_helpers.pipeline.config.experiment import ExperimentConfig
from tfr_helpers.records import ModelCallRecord, OracleRepairResults


def oracle_enabled(config: ExperimentConfig) -> bool:
    """On when ``refinement.oracle_repair`` is."""
    return config.refinement.oracle_repair


def oracle_calls(part: OracleRepairResults) -> Iterable[tuple[str, ModelCallRecord]]:
    """One refinement call per repaired feedback."""
    return ((f"oracle_refine|{ref.feedback_id}", ref.call) for ref in part.refinements)


ARM = Arm(
    "oracle",
    enabled=oracle_enabled,
    stages=(oracle_repair_tests.STAGE, oracle_refine_codes.STAGE, oracle_evaluate_refined.STAGE),
    field="oracle_repair",
    results=oracle_results,
    calls=oracle_calls,
    beyond_one=True,
    switch="refinement.oracle_repair: true",
    summarize=lambda config: "oracle-repaired arm",
)
