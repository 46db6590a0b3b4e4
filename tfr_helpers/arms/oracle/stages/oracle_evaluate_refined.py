"""Stage oracle_evaluate_refined: each oracle-repaired refinement on the benchmark tests and the repaired test.

Evaluated exactly like the original arm (:func:`..steps.evaluate_refined.evaluate_refined`): the benchmark tests decide the
transition from the generated code's verdict; the refined code's outcome on the (repaired) generated test is kept.
"""

from __future__ import annotations

from collections.abc import Sequence

from tfr_helpers.arms.oracle.records import OracleRefinedEvaluation, OracleRefinement, RepairedTest
from tfr_helpers.arms.oracle.stages.oracle_refine_codes import repaired_test
from tfr_helpers.arms.oracle.stages.oracle_repair_tests import repaired_spec
from tfr_helpers.pipeline.config.fingerprint import PROGRAM_RUN_PARTS
from tfr_helpers.pipeline.engine.codec import register_record_type
from tfr_helpers.pipeline.engine.context import RunContext
from tfr_helpers.pipeline.engine.stage import InputRecords, Inputs, Stage
from tfr_helpers.pipeline.steps.evaluate_refined import RefinedCheck, RefinedJob, evaluate_refined
from tfr_helpers.pipeline.steps.lookups import code_verdicts, tests_by_id
from tfr_helpers.pipeline.steps.waiting import refined_job_waits
from tfr_helpers.records import BenchmarkVerdict, GeneratedTest, sample_suffix


def oracle_evaluate_refined(items: Sequence[RefinedJob[OracleRefinement]], ctx: RunContext) -> list[OracleRefinedEvaluation]:
    """Run each refined program on its task's benchmark tests and on its repaired test.

    Args:
        items: One job per oracle-repaired refinement.
        ctx: The run context.

    Returns:
        One :class:`OracleRefinedEvaluation` per job, in order (``no_code`` when there was no refined program).
    """
    checks = []
    for item in items:
        stem = f"oracle/{item.test.kind}_{item.test.index}{sample_suffix(item.refinement.feedback_id)}"
        spec = repaired_spec(item.test, item.test.source)
        checks.append(RefinedCheck(item.refinement, item.task, spec, item.before, f"{stem}_refined_benchmark.json"))
    return evaluate_refined(checks, ctx, "oracle refined", OracleRefinedEvaluation)


def oracle_refined_items(ctx: RunContext, inputs: InputRecords) -> list[RefinedJob[OracleRefinement]]:
    """One job per oracle-repaired refinement, with the generated code's benchmark verdict as ``before``."""
    before = code_verdicts(inputs.of(BenchmarkVerdict))
    test_of = tests_by_id(inputs.of(GeneratedTest))
    repair_of = {r.feedback_id: r for r in inputs.of(RepairedTest)}
    jobs = []
    for ref in inputs.of(OracleRefinement):
        repair = repair_of[ref.feedback_id]
        test = repaired_test(test_of[repair.test_id], repair)
        jobs.append(RefinedJob(ctx.tasks[ref.task_id], ref, test, before[(ref.model, ref.task_id, repair.code_index)]))
    return jobs


register_record_type(OracleRefinedEvaluation)
STAGE = Stage(
    "oracle_evaluate_refined",
    oracle_evaluate_refined,
    oracle_refined_items,
    "oracle_refined_evaluations",
    lambda r: r.feedback_id,
    sandboxed=True,
    inputs=Inputs(
        records=(GeneratedTest, BenchmarkVerdict, RepairedTest, OracleRefinement),
        settings=("refinement.oracle_repair", *PROGRAM_RUN_PARTS),
    ),
    produces=(OracleRefinedEvaluation,),
    parallel_chunks=True,
    waits=refined_job_waits,
)
