"""Multi-round backprompting, declared once: its keys, its part of ``results.json``, its stages, report and view."""

from __future__ import annotations

from tfr_helpers.arms.rounds.records import RoundsResults
from tfr_helpers.arms.rounds.settings import RoundsSettings
from tfr_helpers.records.arm_registry import ArmDeclaration

ARM: ArmDeclaration[RoundsResults, RoundsSettings] = ArmDeclaration(
    "rounds",
    field="rounds",
    part=RoundsResults,
    settings_model=RoundsSettings,
    is_on=lambda settings: settings.rounds > 1,
    section="refinement",
    stages="tfr_helpers.arms.rounds.stages",
    report="tfr_helpers.arms.rounds.report",
    view="tfr_helpers.arms.rounds.view",
    beyond_one=True,
    switch="refinement.rounds > 1",
    summarize=lambda settings: f"{settings.rounds} rounds",
)
"""Multi-round backprompting: with ``refinement.rounds`` > 1, each code sample's code is refined round after round
on the feedback of its round's suite (docs/rounds.md)."""
