"""The control arm, declared once: its key, its part of ``results.json``, its stages, report, view and prompts."""

from __future__ import annotations

from tfr_helpers.arms.controls.records import ControlsResults
from tfr_helpers.arms.controls.settings import ControlsSettings
from tfr_helpers.records.arm_registry import ArmDeclaration

ARM: ArmDeclaration[ControlsResults, ControlsSettings] = ArmDeclaration(
    "controls",
    field="controls",
    part=ControlsResults,
    settings_model=ControlsSettings,
    is_on=lambda settings: bool(settings.controls),
    section="refinement",
    stages="tfr_helpers.arms.controls.stages",
    report="tfr_helpers.arms.controls.report",
    view="tfr_helpers.arms.controls.view",
    prompts="tfr_helpers.arms.controls.prompts",
    switch="refinement.controls: [resample, retry, placebo]",
    summarize=lambda settings: f"controls {', '.join(settings.controls)}",
)
"""The control arm of RQ2: the same refiner asked again on each refined feedback instance without the feedback's
content (``resample``, ``retry``, ``placebo``; docs/controls.md)."""
