"""Stage 3, evaluate_code_test_pairs: the generated code on the benchmark tests, and each generated test
against the generated code and the reference (rerun on a reference non-pass) -> RQ1 case, reliability,
cause and feedback."""

from __future__ import annotations

import json
from collections.abc import Sequence
from dataclasses import dataclass

from tfr_helpers.pipeline.classify import case_of, cause_of, reliability_of
from tfr_helpers.pipeline.context import RunContext
from tfr_helpers.pipeline.feedback import build_feedback
from tfr_helpers.pipeline.stages import Stage, StageRecords, records_of, register_stage
from tfr_helpers.records import (
    BenchmarkVerdict,
    GeneratedCode,
    GeneratedTest,
    PairEvaluation,
    ProgramRun,
    Task,
    TestOutcome,
)


@dataclass(frozen=True)
class PairJob:
    """Everything to evaluate for one (coder model, task)."""

    task: Task
    code: GeneratedCode
    tests: tuple[GeneratedTest, ...]

    @property
    def key(self) -> str:
        """Checkpoint key."""
        return f"{self.code.model}|{self.task.task_id}"


def test_spec(test: GeneratedTest) -> object:
    """The sandbox spec of a generated test (a module of ``test_*`` functions)."""
    from tfr_helpers.sandbox import TestSpec

    return TestSpec(name=test.name, source=test.source, kind="function")


def benchmark_specs(task: Task) -> list[object]:
    """The task's benchmark tests as sandbox specs."""
    from tfr_helpers.benchmarks import benchmark_tests

    return list(benchmark_tests(task))


def evaluate_code_test_pairs(items: Sequence[PairJob], ctx: RunContext) -> list[BenchmarkVerdict | PairEvaluation]:
    """Run and label one chunk of (coder, task) units.

    Args:
        items: One job per (coder model, task) with that unit's generated tests.
        ctx: The run context.

    Returns:
        Per job: one :class:`BenchmarkVerdict` (subject ``generated``) then one :class:`PairEvaluation`
        per generated test (none when the coder gave no usable code).
    """
    # round 1: benchmark tests, generated tests on the generated code and on the reference
    bench_jobs = [(item.code.code or "", benchmark_specs(item.task)) for item in items]
    pair_items = [item for item in items if item.code.code and item.tests]
    gen_jobs = [(item.code.code or "", [test_spec(t) for t in item.tests]) for item in pair_items]
    ref_jobs = [(item.task.reference, [test_spec(t) for t in item.tests]) for item in pair_items]
    bench_runs = ctx.run_programs(bench_jobs, desc="benchmark tests", generated=False)
    runs = ctx.run_programs(gen_jobs + ref_jobs, desc="generated tests", generated=True)
    gen_runs, ref_runs = runs[: len(pair_items)], runs[len(pair_items) :]

    # round 2: a reference non-pass runs again, alone and with another seed, to tell a wrong test from a
    # nondeterministic reference
    rerun_keys = [(i, j) for i, run in enumerate(ref_runs) for j, o in enumerate(run.outcomes) if o.status != "passed"]
    rerun_jobs = [(pair_items[i].task.reference, [test_spec(pair_items[i].tests[j])]) for i, j in rerun_keys]
    reruns = dict(
        zip(rerun_keys, ctx.run_programs(rerun_jobs, desc="reference reruns", generated=True, rerun=True), strict=True)
    )

    out: list[BenchmarkVerdict | PairEvaluation] = []
    pair_index = {id(item): i for i, item in enumerate(pair_items)}
    for item, bench_run in zip(items, bench_runs, strict=True):
        model, task_id = item.code.model, item.task.task_id
        run_path = ctx.store.artifact(
            model, task_id, "executions/benchmark_generated.json", bench_run.model_dump_json(indent=1)
        )
        out.append(
            BenchmarkVerdict(
                model=model,
                task_id=task_id,
                subject="generated",
                passed=bench_run.passed,
                run=bench_run,
                run_path=run_path,
            )
        )
        if id(item) not in pair_index:
            continue
        i = pair_index[id(item)]
        for j, test in enumerate(item.tests):
            rerun = reruns.get((i, j))
            out.append(_pair(ctx, item, test, gen_runs[i], ref_runs[i], j, rerun.outcomes[0] if rerun else None))
    return out


def _pair(
    ctx: RunContext,
    item: PairJob,
    test: GeneratedTest,
    gen_run: ProgramRun,
    ref_run: ProgramRun,
    j: int,
    rerun: TestOutcome | None,
) -> PairEvaluation:
    generated, reference = gen_run.outcomes[j], ref_run.outcomes[j]
    case = case_of(generated.status == "passed", reference.status == "passed")
    reliability = reliability_of(case)
    cause = cause_of(test.kind, test.source, reference, rerun) if reliability == "unreliable" else None
    feedback = None
    model, task_id = item.code.model, item.task.task_id
    if generated.status != "passed":
        feedback = build_feedback(test.test_id, test.source, generated, gen_run.load_error)
        ctx.store.artifact(model, task_id, f"feedback/{test.kind}_{test.index}.md", feedback.text)
    record = {
        "test_id": test.test_id,
        "generated": generated.model_dump(mode="json"),
        "reference": reference.model_dump(mode="json"),
        "reference_rerun": rerun.model_dump(mode="json") if rerun else None,
        "case": case,
        "cause": cause,
    }
    path = ctx.store.artifact(model, task_id, f"executions/{test.kind}_{test.index}.json", json.dumps(record, indent=1))
    return PairEvaluation(
        test_id=test.test_id,
        model=model,
        task_id=task_id,
        benchmark=item.task.benchmark,
        kind=test.kind,
        generated=generated,
        reference=reference,
        reference_rerun=rerun,
        case=case,
        reliability=reliability,
        cause=cause,
        feedback=feedback,
        isolation=gen_run.isolation,
        record_path=path,
    )


def pair_items(ctx: RunContext, records: StageRecords) -> list[PairJob]:
    """One job per generated code with its generated tests."""
    from tfr_helpers.pipeline import inputs  # local: inputs imports this module's job type

    codes = records_of(records, "generate_codes", GeneratedCode)
    return inputs.pair_jobs(ctx, codes, records_of(records, "generate_tests", GeneratedTest))


register_stage(
    Stage(
        "evaluate_code_test_pairs",
        30,
        evaluate_code_test_pairs,
        pair_items,
        "test_execution_feedback",
        lambda r: f"{r.model}|{r.task_id}",
        sandboxed=True,
    )
)
