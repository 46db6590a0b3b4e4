"""The replayed trajectories arm, declared once: its key, its part of ``results.json``, its stages, report and view
(it calls no model)."""

from __future__ import annotations

from tfr_helpers.arms.trajectories.records.trajectories import TrajectoriesResults
from tfr_helpers.arms.trajectories.settings import TrajectoriesSettings
from tfr_helpers.records import Results
from tfr_helpers.records.arm_registry import ArmDeclaration

ARM: ArmDeclaration[TrajectoriesResults, TrajectoriesSettings] = ArmDeclaration(
    "trajectories",
    field="trajectories",
    part=TrajectoriesResults,
    settings_model=TrajectoriesSettings,
    is_on=lambda settings: bool(settings.trajectories),
    section="",
    stages="tfr_helpers.arms.trajectories.stages",
    report="tfr_helpers.arms.trajectories.report",
    view="tfr_helpers.arms.trajectories.view",
    examples="tfr_helpers.arms.trajectories.examples",
    switch="trajectories: [<trajectory set>]",
    summarize=lambda settings: f"trajectory sets {', '.join(settings.trajectories)}",
)
"""The replayed trajectories arm: the steps of published self-repair logs judged (RQ1 class, RQ2 transition) and
screened, every attempt judged, and the fixed test lists measured on the reference (docs/trajectories.md)."""


def part_in(results: Results) -> TrajectoriesResults | None:
    """The arm's part of ``results`` (None when the run did not turn it on)."""
    return results.part(ARM) if results.has(ARM) else None
