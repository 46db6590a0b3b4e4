"""Stage refine_codes: one independent refinement per test-fail feedback."""

from __future__ import annotations

from collections.abc import Sequence

from tfr_helpers.pipeline.config.fingerprint import MODEL_CALL_PARTS
from tfr_helpers.pipeline.engine.context import RunContext
from tfr_helpers.pipeline.engine.faults import Undone
from tfr_helpers.pipeline.engine.stage import InputRecords, Inputs, Stage
from tfr_helpers.pipeline.steps.refine import RefineJob, refine_jobs, request_refinements
from tfr_helpers.records import GeneratedCode, GeneratedTest, PairEvaluation, Refinement


def refine_codes(items: Sequence[RefineJob], ctx: RunContext) -> list[Refinement | Undone]:
    """Ask the refiner for a new program given the task, the generated code and one feedback.

    Args:
        items: One job per test-fail feedback.
        ctx: The run context.

    Returns:
        One :class:`Refinement` per job (``code`` None when the response held no usable code), or
        :class:`Undone` when the call got no reply.
    """
    return request_refinements(
        items, ctx, "refine_codes", Refinement, lambda stem: (f"refine_{stem}", f"refinements/{stem}.py")
    )


def refine_items(ctx: RunContext, inputs: InputRecords) -> list[RefineJob]:
    """One job per test-fail feedback."""
    return refine_jobs(ctx, inputs.of(GeneratedCode), inputs.of(GeneratedTest), inputs.of(PairEvaluation))


# every test-fail feedback is refined, whatever the screening decisions
STAGE = Stage(
    "refine_codes",
    refine_codes,
    refine_items,
    "refined_codes",
    lambda r: r.feedback_id,
    inputs=Inputs(
        records=(GeneratedCode, GeneratedTest, PairEvaluation),
        settings=("models.refiner", *MODEL_CALL_PARTS, "template:refine"),
    ),
    produces=(Refinement,),
)
