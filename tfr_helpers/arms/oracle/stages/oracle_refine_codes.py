"""Stage oracle_refine_codes: the same refiner on each repaired feedback (the oracle-repaired arm).

The request is built exactly as in :mod:`.refine_codes` (template ``refine``, the task's view, the generated code,
the feedback text): the refiner never sees the reference, only the repaired test, whose expected value *is* the
reference's output. That is the point of the arm (what refinement does when the test is right) and why it is an
upper bound, never a screening strategy. Coders whose refiner is a replay dataset get no job: their repaired
feedback is reported with ``not run: no refiner`` (``OracleRepairResults.refinement_status``), never simulated.
"""

from __future__ import annotations

from collections.abc import Sequence

from tfr_helpers.arms.oracle.records import OracleRefinement, RepairedTest
from tfr_helpers.pipeline.config import scope
from tfr_helpers.pipeline.config.fingerprint import MODEL_CALL_PARTS
from tfr_helpers.pipeline.engine.codec import register_record_type
from tfr_helpers.pipeline.engine.context import RunContext
from tfr_helpers.pipeline.engine.faults import Undone
from tfr_helpers.pipeline.engine.stage import InputRecords, Inputs, Stage
from tfr_helpers.pipeline.steps.lookups import code_texts, tests_by_id
from tfr_helpers.pipeline.steps.refine import RefineJob, refine_job, request_refinements
from tfr_helpers.records import GeneratedCode, GeneratedTest

NAME = "oracle_refine_codes"


def repaired_test(test: GeneratedTest, repair: RepairedTest) -> GeneratedTest:
    """The generated test with its repaired source (same id, name, kind and index)."""
    return test.model_copy(update={"source": repair.source})


def oracle_refine_codes(items: Sequence[RefineJob], ctx: RunContext) -> list[OracleRefinement | Undone]:
    """Ask the refiner for a new program given the task, the generated code and one repaired feedback.

    Args:
        items: One job per repaired feedback (``test`` holds the repaired source).
        ctx: The run context.

    Returns:
        One :class:`OracleRefinement` per job (``code`` None when the response held no usable code), or
        :class:`Undone` when the call got no reply.
    """
    return request_refinements(
        items, ctx, NAME, OracleRefinement, lambda stem: (f"oracle_refine_{stem}", f"oracle/{stem}_refined.py")
    )


def oracle_refine_items(ctx: RunContext, inputs: InputRecords) -> list[RefineJob]:
    """One job per repaired feedback (the code failed the repaired test) of a coder that has a refiner."""
    code_of = code_texts(inputs.of(GeneratedCode))
    test_of = tests_by_id(inputs.of(GeneratedTest))

    def repaired(r: RepairedTest) -> GeneratedTest:
        return repaired_test(test_of[r.test_id], r)

    return [
        refine_job(ctx, r.model, r.task_id, code_of[(r.model, r.task_id, r.code_index)], repaired(r), r.feedback)
        for r in inputs.of(RepairedTest)
        if r.feedback is not None and scope.refines(ctx.config, r.model)
    ]


register_record_type(OracleRefinement)
# every repaired feedback is refined, whatever the screening
STAGE = Stage(
    NAME,
    oracle_refine_codes,
    oracle_refine_items,
    "oracle_refined_codes",
    lambda r: r.feedback_id,
    inputs=Inputs(
        records=(GeneratedCode, GeneratedTest, RepairedTest),
        settings=("refinement.oracle_repair", "models.refiner", *MODEL_CALL_PARTS, "template:refine"),
    ),
    produces=(OracleRefinement,),
)
