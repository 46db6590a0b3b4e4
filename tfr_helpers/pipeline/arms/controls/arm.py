"""The control arm, declared once: its stages, its part of ``Results``, its calls."""

from __future__ import annotations

from collections.abc import Iterable

from tfr_helpers.pipeline.arms.controls import control_evaluate, control_refine
from tfr_helpers.pipeline.arms.controls.results import controls_results
from tfr_helpers.pipeline.arms.declaration import Arm
from tfr_helpers.records import ControlsResults, ModelCallRecord


def controls_calls(part: ControlsResults) -> Iterable[tuple[str, ModelCallRecord]]:
    """One call per control and refined feedback."""
    return ((f"control_{ctl.control}|{ctl.feedback_id}", ctl.call) for ctl in part.refinements)


ARM = Arm("controls", (*control_refine.STAGES, control_evaluate.STAGE), "controls", controls_results, controls_calls)
