"""The oracle-repaired arm, declared once: its key, its part of ``results.json``, its stages, report and view."""

from __future__ import annotations

from tfr_helpers.arms.oracle.records import OracleRepairResults
from tfr_helpers.arms.oracle.settings import OracleSettings
from tfr_helpers.records.arm_registry import ArmDeclaration

ARM: ArmDeclaration[OracleRepairResults, OracleSettings] = ArmDeclaration(
    "oracle",
    field="oracle_repair",
    part=OracleRepairResults,
    settings_model=OracleSettings,
    is_on=lambda settings: settings.oracle_repair,
    section="refinement",
    stages="tfr_helpers.arms.oracle.stages",
    report="tfr_helpers.arms.oracle.report",
    view="tfr_helpers.arms.oracle.view",
    beyond_one=True,
    switch="refinement.oracle_repair: true",
    summarize=lambda settings: "oracle-repaired arm",
)
"""The oracle-repaired arm: repair unreliable EBTs from the reference, refine on them, evaluate the refinements
(docs/oracle_repair.md). It uses the reference: an upper bound, never a screening strategy."""
