"""Stage evaluate_refined_codes: a refined program on the benchmark tests and the same generated test."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from tfr_helpers.pipeline.engine.context import RunContext
from tfr_helpers.pipeline.engine.stage import BASE_STUDY_UNAFFECTED_BY, Stage, StageRecords, records_of
from tfr_helpers.pipeline.steps.labels import transition_of
from tfr_helpers.pipeline.steps.lookups import tests_by_id
from tfr_helpers.pipeline.steps.pair_runs import test_spec
from tfr_helpers.pipeline.steps.test_strength import tiers_of
from tfr_helpers.pipeline.steps.time_limits import run_benchmark
from tfr_helpers.records import (
    BenchmarkVerdict,
    GeneratedTest,
    RefinedEvaluation,
    Refinement,
    Task,
    sample_suffix,
    split_pair_id,
)


@dataclass(frozen=True)
class RefinedJob:
    """Evaluate one refinement; ``before`` is the generated code's benchmark verdict."""

    task: Task
    refinement: Refinement
    test: GeneratedTest
    before: bool

    @property
    def key(self) -> str:
        """Checkpoint key."""
        return self.refinement.feedback_id


def evaluate_refined_codes(items: Sequence[RefinedJob], ctx: RunContext) -> list[RefinedEvaluation]:
    """Run each refined program on its task's benchmark tests and on the generated test behind its feedback.

    Args:
        items: One job per refinement.
        ctx: The run context.

    Returns:
        One :class:`RefinedEvaluation` per job, in order.
    """
    runnable = [item for item in items if item.refinement.code]
    jobs = [(i.refinement.code or "", i.task) for i in runnable]
    bench = run_benchmark(ctx, jobs, "refined: benchmark tests")
    tiers = tiers_of(ctx, jobs, bench, "refined: EvalPlus tiers")
    gen = ctx.run_programs(
        [(i.refinement.code or "", [test_spec(i.test)]) for i in runnable],
        desc="refined: generated test",
        generated=True,
    )
    runs = {id(item): (b, g) for item, b, g in zip(runnable, bench, gen, strict=True)}
    tiers_after = {id(item): t for item, t in zip(runnable, tiers, strict=True)}
    out = []
    for item in items:
        ref = item.refinement
        if id(item) not in runs:
            out.append(
                RefinedEvaluation(
                    feedback_id=ref.feedback_id,
                    model=ref.model,
                    task_id=ref.task_id,
                    benchmark_before=item.before,
                    benchmark_after=None,
                    generated_test_after=None,
                    transition="no_code",
                )
            )
            continue
        bench_run, gen_run = runs[id(item)]
        stem = f"{item.test.kind}_{item.test.index}" + sample_suffix(ref.feedback_id)
        path = ctx.store.artifact(
            ref.model,
            ref.task_id,
            f"executions/refined_{stem}_benchmark.json",
            bench_run.model_dump_json(indent=1),
        )
        ctx.store.artifact(ref.model, ref.task_id, f"executions/refined_{stem}_test.json", gen_run.model_dump_json(indent=1))
        out.append(
            RefinedEvaluation(
                feedback_id=ref.feedback_id,
                model=ref.model,
                task_id=ref.task_id,
                benchmark_before=item.before,
                benchmark_after=bench_run.passed,
                generated_test_after=gen_run.outcomes[0] if gen_run.outcomes else None,
                transition=transition_of(item.before, bench_run.passed),
                benchmark_run_path=path,
                tiers_after=tiers_after[id(item)],
            )
        )
    return out


def refined_jobs(
    ctx: RunContext,
    tests: list[GeneratedTest],
    verdicts: list[BenchmarkVerdict],
    refinements: list[Refinement],
) -> list[RefinedJob]:
    """One job per refinement, with the generated code's benchmark verdict as ``before``."""
    before = {(v.model, v.task_id, v.code_index): v.passed for v in verdicts}
    test_of = tests_by_id(tests)
    jobs = []
    for r in refinements:
        test_id, code_index = split_pair_id(r.feedback_id)
        jobs.append(RefinedJob(ctx.tasks[r.task_id], r, test_of[test_id], before[(r.model, r.task_id, code_index)]))
    return jobs


def refined_items(ctx: RunContext, records: StageRecords) -> list[RefinedJob]:
    """One job per refinement, with the generated code's benchmark verdict as ``before``."""
    tests = records_of(records, "generate_tests", GeneratedTest)
    verdicts = records_of(records, "evaluate_code_test_pairs", BenchmarkVerdict)
    return refined_jobs(ctx, tests, verdicts, records_of(records, "refine_codes"))


STAGE = Stage(
    "evaluate_refined_codes",
    evaluate_refined_codes,
    refined_items,
    "refined_evaluations",
    lambda r: r.feedback_id,
    sandboxed=True,
    unaffected_by=BASE_STUDY_UNAFFECTED_BY,  # every feedback is refined and evaluated, whatever the screening
    parallel_chunks=True,
)
