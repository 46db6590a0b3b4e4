"""Records of the control arm of RQ2: the same refiner asked again without the feedback's content.

Each control runs on exactly the feedback instances the feedback arm refines (``refinement.controls``):
``resample`` (a fresh generation from the task alone), ``retry`` (the task and the code with a neutral request to
check and fix it) and ``placebo`` (the refinement prompt with its test and failure replaced by content-free text of
the same shape). docs/controls.md says what each request holds.
"""

from __future__ import annotations

from typing import Literal

from pydantic import Field

from tfr_helpers.records.core import Record
from tfr_helpers.records.study import RefinedEvaluation, Refinement

Control = Literal["resample", "retry", "placebo"]
"""A control of the feedback arm (see docs/controls.md)."""


def control_key(control: str, feedback_id: str) -> str:
    """Checkpoint key of one control attempt: the control and the feedback instance it stands beside."""
    return f"{control}|{feedback_id}"


class ControlRefinement(Refinement):
    """One control attempt beside one test-fail feedback instance (``feedback_id``: the instance)."""

    control: Control

    @property
    def attempt_key(self) -> str:
        """Checkpoint key: the control and the feedback instance (:func:`control_key`)."""
        return control_key(self.control, self.feedback_id)


class ControlRefinedEvaluation(RefinedEvaluation):
    """A control attempt's code on the benchmark tests and on the generated test behind the instance."""

    control: Control


class ControlsResults(Record):
    """The control arm of a run (``refinement.controls``): its attempts, their evaluations, each coder's status."""

    controls: list[Control] = Field(default_factory=list)
    """The controls run, in the configured order."""
    refinements: list[ControlRefinement] = Field(default_factory=list)
    refined_evaluations: list[ControlRefinedEvaluation] = Field(default_factory=list)
    refinement_status: dict[str, str] = Field(default_factory=dict)
    """Coder -> ``run`` or why its feedback has no control attempts (``not run: no refiner``): the coders of
    ``Results.skipped``'s ``refine_codes`` entries, one source (``pipeline.config.scope.not_refined``)."""
