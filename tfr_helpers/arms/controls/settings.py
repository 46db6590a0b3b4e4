"""The control arm's configuration key, ``refinement.controls``."""

from __future__ import annotations

from typing import Any, get_args

from pydantic import Field, field_validator

from tfr_helpers.arms.controls.records import Control
from tfr_helpers.records.arm_registry import ArmSettings


class ControlsSettings(ArmSettings):
    """The key of section ``refinement`` the control arm owns."""

    controls: list[Control] = Field(default_factory=list)
    """Controls of the feedback arm, run on exactly the feedback instances it refines with the same refiner and
    sampling: ``resample`` (a fresh generation from the task alone), ``retry`` (the task and the code, a neutral
    request to check and fix it, no test or failure), ``placebo`` (the refinement prompt with its test and failure
    replaced by content-free text of the same shape). See docs/controls.md."""

    @field_validator("controls", mode="before")
    @classmethod
    def _known_controls(cls, value: Any) -> Any:
        known = get_args(Control)
        if not isinstance(value, list | tuple):
            raise ValueError(f"give a list of controls, e.g. [{', '.join(known)}]; got {value!r}")
        unknown = [v for v in value if v not in known]
        if unknown:
            raise ValueError(f"unknown control {unknown[0]!r}; use any of {', '.join(known)}")
        if len(set(value)) != len(value):
            raise ValueError(f"a control is listed twice in {list(value)}; list each once")
        return value
