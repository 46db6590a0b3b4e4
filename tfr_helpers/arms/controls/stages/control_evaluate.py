"""Stage control_evaluate: every control attempt's code on the benchmark tests and on the generated test.

Evaluated exactly like the feedback arm's refined code (:func:`tfr_helpers.pipeline.steps.evaluate_refined`):
the benchmark tests decide the transition from the generated code's verdict; the outcome on the generated test
behind the feedback instance is kept.
"""

from __future__ import annotations

from collections.abc import Sequence

from tfr_helpers.arms.controls.records import ControlRefinedEvaluation, ControlRefinement, control_key
from tfr_helpers.pipeline.config.fingerprint import PROGRAM_RUN_PARTS
from tfr_helpers.pipeline.engine.codec import register_record_type
from tfr_helpers.pipeline.engine.context import RunContext
from tfr_helpers.pipeline.engine.stage import InputRecords, Inputs, Stage
from tfr_helpers.pipeline.steps.evaluate_refined import RefinedCheck, RefinedJob, evaluate_refined
from tfr_helpers.pipeline.steps.lookups import code_verdicts, tests_by_id
from tfr_helpers.pipeline.steps.pair_runs import test_spec
from tfr_helpers.pipeline.steps.waiting import refined_job_waits
from tfr_helpers.records import BenchmarkVerdict, GeneratedTest, sample_suffix, split_pair_id


def control_evaluate(items: Sequence[RefinedJob[ControlRefinement]], ctx: RunContext) -> list[ControlRefinedEvaluation]:
    """Run each control attempt's program on its task's benchmark tests and on the instance's generated test.

    Args:
        items: One job per control attempt.
        ctx: The run context.

    Returns:
        One :class:`ControlRefinedEvaluation` per job, in order (``no_code`` when there was no program).
    """
    checks = []
    for item in items:
        ref = item.refinement
        stem = f"controls/{item.test.kind}_{item.test.index}{sample_suffix(ref.feedback_id)}_{ref.control}"
        checks.append(
            RefinedCheck(
                ref,
                item.task,
                test_spec(item.test),
                item.before,
                f"{stem}_benchmark.json",
                f"{stem}_test.json",
                {"control": ref.control},
            )
        )
    return evaluate_refined(checks, ctx, "controls", ControlRefinedEvaluation)


def control_jobs(ctx: RunContext, inputs: InputRecords) -> list[RefinedJob[ControlRefinement]]:
    """One job per control attempt, controls in run order, with the generated code's benchmark verdict."""
    before = code_verdicts(inputs.of(BenchmarkVerdict))
    test_of = tests_by_id(inputs.of(GeneratedTest))
    refs = inputs.of(ControlRefinement)  # stage after stage: the controls in run order
    return [RefinedJob(ctx.tasks[r.task_id], r, test_of[split_pair_id(r.feedback_id)[0]], before[_code(r)]) for r in refs]


def _code(ref: ControlRefinement) -> tuple[str, str, int]:
    """The code sample a control attempt stands beside: (coder, task id, code sample index)."""
    return ref.model, ref.task_id, split_pair_id(ref.feedback_id)[1]


register_record_type(ControlRefinedEvaluation)
STAGE = Stage(
    "control_evaluate",
    control_evaluate,
    control_jobs,
    "control_evaluations",
    lambda r: control_key(r.control, r.feedback_id),
    sandboxed=True,
    inputs=Inputs(
        records=(GeneratedTest, BenchmarkVerdict, ControlRefinement),
        settings=PROGRAM_RUN_PARTS,
        selects=("refinement.controls",),
    ),
    produces=(ControlRefinedEvaluation,),
    parallel_chunks=True,
    waits=refined_job_waits,
)
