"""Stages control_resample, control_retry, control_placebo: one control attempt per refined feedback instance.

Each control's stage has items only when ``refinement.controls`` lists it; its items are exactly the feedback
arm's (:func:`tfr_helpers.pipeline.steps.refine.refine_jobs`: every test-fail feedback of a coder that has a
refiner), asked of the same refiner with the same sampling; :mod:`.requests` builds what each control asks.
"""

from __future__ import annotations

from collections.abc import Sequence
from functools import partial

from tfr_helpers.arms.controls.arm import ARM
from tfr_helpers.arms.controls.records import Control, ControlRefinement
from tfr_helpers.arms.controls.stages.requests import REQUESTS, TEMPLATES
from tfr_helpers.pipeline.config.fingerprint import MODEL_CALL_PARTS
from tfr_helpers.pipeline.engine.codec import register_record_type
from tfr_helpers.pipeline.engine.context import RunContext
from tfr_helpers.pipeline.engine.faults import Undone
from tfr_helpers.pipeline.engine.stage import InputRecords, Inputs, Stage
from tfr_helpers.pipeline.steps.refine import RefineJob, refine_jobs, request_refinements
from tfr_helpers.records import GeneratedCode, GeneratedTest, PairEvaluation


def stage_name(control: Control) -> str:
    """The stage of one control (``control_retry``)."""
    return f"control_{control}"


def control_items(control: Control, ctx: RunContext, inputs: InputRecords) -> list[RefineJob]:
    """The feedback arm's jobs when ``control`` is listed in ``refinement.controls``, else none."""
    if control not in ARM.settings(ctx.config).controls:
        return []
    return refine_jobs(ctx, inputs.of(GeneratedCode), inputs.of(GeneratedTest), inputs.of(PairEvaluation))


def control_refine(control: Control, items: Sequence[RefineJob], ctx: RunContext) -> list[ControlRefinement | Undone]:
    """Ask the refiner once per job as ``control`` asks (no feedback content).

    Args:
        control: The control.
        items: One job per refined feedback instance.
        ctx: The run context.

    Returns:
        One :class:`ControlRefinement` per job (``code`` None when the response held no usable code), or
        :class:`Undone` when the call got no reply.
    """
    return request_refinements(
        items,
        ctx,
        stage_name(control),
        partial(ControlRefinement, control=control),
        lambda stem: (f"control_{control}_{stem}", f"controls/{stem}_{control}.py"),
        REQUESTS[control],
    )


def _stage(control: Control) -> Stage:
    return Stage(
        stage_name(control),
        partial(control_refine, control),
        partial(control_items, control),
        f"control_{control}_codes",
        lambda r: r.feedback_id,
        inputs=Inputs(
            records=(GeneratedCode, GeneratedTest, PairEvaluation),
            settings=("models.refiner", *MODEL_CALL_PARTS, f"template:{TEMPLATES[control]}"),
            selects=("refinement.controls",),  # a control's stage has no items unless its control is listed
        ),
        produces=(ControlRefinement,),
    )


register_record_type(ControlRefinement)
RESAMPLE_STAGE = _stage("resample")
RETRY_STAGE = _stage("retry")
PLACEBO_STAGE = _stage("placebo")
STAGES = (RESAMPLE_STAGE, RETRY_STAGE, PLACEBO_STAGE)
"""The three control stages, in the order they run."""
