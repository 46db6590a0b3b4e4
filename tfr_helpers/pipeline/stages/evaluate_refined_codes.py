"""Stage evaluate_refined_codes: a refined program on the benchmark tests and the same generated test."""

from __future__ import annotations

from collections.abc import Sequence

from tfr_helpers.pipeline.config.fingerprint import PROGRAM_RUN_PARTS
from tfr_helpers.pipeline.engine.context import RunContext
from tfr_helpers.pipeline.engine.stage import InputRecords, Inputs, Stage
from tfr_helpers.pipeline.steps.evaluate_refined import RefinedCheck, RefinedJob, evaluate_refined
from tfr_helpers.pipeline.steps.lookups import code_verdicts, tests_by_id
from tfr_helpers.pipeline.steps.pair_runs import test_spec
from tfr_helpers.pipeline.steps.waiting import refined_job_waits
from tfr_helpers.records import (
    BenchmarkVerdict,
    GeneratedTest,
    RefinedEvaluation,
    Refinement,
    sample_suffix,
    split_pair_id,
)


def evaluate_refined_codes(items: Sequence[RefinedJob[Refinement]], ctx: RunContext) -> list[RefinedEvaluation]:
    """Run each refined program on its task's benchmark tests and on the generated test behind its feedback.

    Args:
        items: One job per refinement.
        ctx: The run context.

    Returns:
        One :class:`RefinedEvaluation` per job, in order.
    """
    checks = []
    for item in items:
        stem = f"{item.test.kind}_{item.test.index}" + sample_suffix(item.refinement.feedback_id)
        checks.append(
            RefinedCheck(
                item.refinement,
                item.task,
                test_spec(item.test),
                item.before,
                f"executions/refined_{stem}_benchmark.json",
                f"executions/refined_{stem}_test.json",
            )
        )
    return evaluate_refined(checks, ctx, "refined", RefinedEvaluation)


def refined_jobs(
    ctx: RunContext,
    tests: list[GeneratedTest],
    verdicts: list[BenchmarkVerdict],
    refinements: list[Refinement],
) -> list[RefinedJob[Refinement]]:
    """One job per refinement, with the generated code's benchmark verdict as ``before``."""
    before = code_verdicts(verdicts)
    test_of = tests_by_id(tests)
    jobs = []
    for r in refinements:
        test_id, code_index = split_pair_id(r.feedback_id)
        jobs.append(RefinedJob(ctx.tasks[r.task_id], r, test_of[test_id], before[(r.model, r.task_id, code_index)]))
    return jobs


def refined_items(ctx: RunContext, inputs: InputRecords) -> list[RefinedJob[Refinement]]:
    """One job per refinement, with the generated code's benchmark verdict as ``before``."""
    return refined_jobs(ctx, inputs.of(GeneratedTest), inputs.of(BenchmarkVerdict), inputs.of(Refinement))


STAGE = Stage(
    "evaluate_refined_codes",
    evaluate_refined_codes,
    refined_items,
    "refined_evaluations",
    lambda r: r.feedback_id,
    sandboxed=True,
    inputs=Inputs(records=(GeneratedTest, BenchmarkVerdict, Refinement), settings=PROGRAM_RUN_PARTS),
    produces=(RefinedEvaluation,),
    parallel_chunks=True,
    waits=refined_job_waits,
)
