"""Stage evaluate_code_test_pairs: the generated code on the benchmark tests, and each generated test
against every code sample and the reference (rerun on a reference non-pass; a timeout or crash on either side
run again alone with 3x the budget) -> RQ1 case, reliability, cause, failure mode and feedback. How the runs
are made (each distinct program once): :mod:`.pair_runs`."""

from __future__ import annotations

import json
from collections.abc import Sequence
from typing import Any

from tfr_helpers.pipeline.config import scope
from tfr_helpers.pipeline.config.fingerprint import PROGRAM_RUN_PARTS
from tfr_helpers.pipeline.engine.codec import register_record_type
from tfr_helpers.pipeline.engine.context import RunContext
from tfr_helpers.pipeline.engine.stage import InputRecords, Inputs, Stage
from tfr_helpers.pipeline.steps.feedback import build_feedback
from tfr_helpers.pipeline.steps.labels import (
    case_of,
    cause_of,
    failure_mode_of,
    harder_verdict,
    reliability_of,
    settle,
)
from tfr_helpers.pipeline.steps.pair_runs import PairJob, PairRuns, reference_hard_limit, run_pairs, unique_tests
from tfr_helpers.pipeline.steps.time_limits import hard_limit, judge_near, margin, policy_on
from tfr_helpers.pipeline.steps.waiting import pair_job_waits
from tfr_helpers.records import (
    BenchmarkVerdict,
    GeneratedCode,
    GeneratedTest,
    PairEvaluation,
    ProgramRun,
    SkippedWork,
    TestOutcome,
    pair_id,
    sample_index_suffix,
)

STAGE_NAME = "evaluate_code_test_pairs"

register_record_type(SkippedWork)  # a task whose reference fails its own benchmark tests in the run


def evaluate_code_test_pairs(
    items: Sequence[PairJob], ctx: RunContext
) -> list[BenchmarkVerdict | PairEvaluation | SkippedWork]:
    """Run and label one chunk of (coder, task) units.

    Every generated test runs against every code sample and the reference. One sandbox run per distinct
    program executes all of the unit's distinct tests (one outcome per test); identical programs and identical
    tests run once and their outcomes are shared by every pair they stand for.

    Args:
        items: One job per (coder model, task) with that unit's code samples and generated tests.
        ctx: The run context.

    Returns:
        Per job and code sample: one :class:`BenchmarkVerdict` (subject ``generated``) then one
        :class:`PairEvaluation` per generated test (none for a sample without usable code); for a task whose
        reference fails its own benchmark tests in this run, one :class:`SkippedWork` with the reason instead.
    """
    found = run_pairs(ctx, items)
    out: list[BenchmarkVerdict | PairEvaluation | SkippedWork] = []
    for item in items:
        out += _records(ctx, item, found)
    return out


def _records(ctx: RunContext, item: PairJob, found: PairRuns) -> list[Any]:
    """The verdict and pair records of one unit, from the shared runs."""
    task, model = item.task, item.model
    if task.task_id in found.broken_oracle:  # reported (results.json ``skipped``, the run summary) and excluded
        return [SkippedWork(model=model, task_id=task.task_id, stage=STAGE_NAME, reason=found.broken_oracle[task.task_id])]
    sources = tuple(unique_tests(item))
    ref_run = found.gen.get((task.reference, *sources))
    per_pair = not scope.compact_artifacts(ctx.config, model)
    out: list[Any] = []
    for code in item.codes:
        suffix = sample_index_suffix(code.sample_index)
        bench_run = found.bench[(code.code or "", task.task_id)]
        run_path = ctx.store.artifact(
            model,
            task.task_id,
            f"executions/benchmark_generated{suffix}.json",
            bench_run.model_dump_json(indent=1),
            per_pair,
        )
        out.append(
            BenchmarkVerdict(
                model=model,
                task_id=task.task_id,
                subject="generated",
                code_index=code.sample_index,
                passed=bench_run.passed,
                run=bench_run,
                run_path=run_path,
                tiers=found.tiers.get((code.code or "", task.task_id)),
            )
        )
        if not code.code or ref_run is None:
            continue
        pairs = [label_pair(ctx, item, code, test, found) for test in item.tests]
        out += _with_artifacts(ctx, pairs, per_pair, f"executions/pairs{suffix}.json")
    return out


def label_pair(ctx: RunContext, item: PairJob, code: GeneratedCode, test: GeneratedTest, found: PairRuns) -> PairEvaluation:
    """The labelled pair of one code sample (with usable code) and one generated test of ``item``, from the
    unit's runs: the deciding outcomes (a timeout or crash settled by its run alone, a PBT the reference passed
    by its harder check), the case, reliability, cause and failure mode."""
    task = item.task
    sources = tuple(unique_tests(item))
    ref_run, gen_run = found.gen[(task.reference, *sources)], found.gen[(code.code or "", *sources)]
    budget = ctx.config.sandbox.generated_test_timeout_s
    j = sources.index(test.source)
    rerun = found.rerun.get((task.reference, test.source))
    limit = found.limits.get((task.reference, test.source))  # the time-limit policy's, judged in CPU time
    alone = found.alone.get((code.code or "", test.source))
    hard = hard_limit(ctx, limit) if limit is not None else budget
    generated, gen_machine = settle(gen_run.outcomes[j], alone, hard, cpu_limit=limit is not None)
    reference, ref_machine = settle(
        ref_run.outcomes[j], found.alone.get((task.reference, test.source)), reference_hard_limit(ctx)
    )
    if policy_on(ctx):  # a verdict near its limit is the machine's to decide: set aside
        generated, gen_near = judge_near(generated, limit or budget, margin(ctx), below=False)
        reference, ref_near = judge_near(reference, budget, margin(ctx), below=True)
        gen_machine, ref_machine = gen_machine or gen_near, ref_machine or ref_near
    settled = reference
    harder = found.harder.get((task.reference, test.source))
    reference = harder_verdict(reference, harder)
    pair = _pair(item, code, test, generated, gen_run, reference, rerun, gen_machine or ref_machine)
    extra = {
        "generated_first": gen_run.outcomes[j] if generated is not gen_run.outcomes[j] else None,
        "reference_first": ref_run.outcomes[j] if settled is not ref_run.outcomes[j] else None,
        "reference_harder": harder,
        "reference_corrected": found.corrected.get((task.task_id, test.source)),
    }
    return pair.model_copy(update=extra) if any(extra.values()) else pair


def _with_artifacts(ctx: RunContext, pairs: list[PairEvaluation], per_pair: bool, shared: str) -> list[PairEvaluation]:
    """Write the pairs' human-readable records: one file per pair (and per feedback), or one file for all the
    pairs of a code sample (many samples: thousands of pairs would otherwise be thousands of files)."""
    if not pairs:
        return []
    if not per_pair:
        rows = [p.model_dump(mode="json", exclude={"isolation", "record_path"}) for p in pairs]
        path = ctx.store.artifact(pairs[0].model, pairs[0].task_id, shared, json.dumps(rows, indent=1), False)
        return [p.model_copy(update={"record_path": path}) for p in pairs]
    out = []
    for p in pairs:
        stem = f"{p.kind}_{p.test_id.rsplit('|', 1)[1]}"
        if p.feedback is not None:
            ctx.store.artifact(p.model, p.task_id, f"feedback/{stem}.md", p.feedback.text)
        record = {
            "test_id": p.test_id,
            "generated": p.generated.model_dump(mode="json"),
            "reference": p.reference.model_dump(mode="json"),
            "reference_rerun": p.reference_rerun.model_dump(mode="json") if p.reference_rerun else None,
            "case": p.case,
            "cause": p.cause,
        }
        path = ctx.store.artifact(p.model, p.task_id, f"executions/{stem}.json", json.dumps(record, indent=1))
        out.append(p.model_copy(update={"record_path": path}))
    return out


def _pair(
    item: PairJob,
    code: GeneratedCode,
    test: GeneratedTest,
    generated: TestOutcome,
    gen_run: ProgramRun,
    reference: TestOutcome,
    rerun: TestOutcome | None,
    machine_dependent: bool,
) -> PairEvaluation:
    case = case_of(generated.status == "passed", reference.status == "passed")
    reliability = reliability_of(case)
    if machine_dependent and reliability is not None:
        reliability = "indeterminate"
    cause = cause_of(test.kind, test.source, reference, rerun) if reliability == "unreliable" else None
    fid = pair_id(test.test_id, code.sample_index)
    feedback = None
    if generated.status != "passed":
        feedback = build_feedback(test.test_id, test.source, generated, gen_run.load_error)
        feedback = feedback.model_copy(update={"feedback_id": fid})
    return PairEvaluation(
        test_id=test.test_id,
        code_index=code.sample_index,
        model=code.model,
        task_id=item.task.task_id,
        benchmark=item.task.benchmark,
        kind=test.kind,
        generated=generated,
        reference=reference,
        reference_rerun=rerun,
        failure_mode=failure_mode_of(generated),
        case=case,
        reliability=reliability,
        cause=cause,
        feedback=feedback,
        isolation=gen_run.isolation,
    )


def pair_jobs(ctx: RunContext, codes: list[GeneratedCode], tests: list[GeneratedTest]) -> list[PairJob]:
    """One job per (coder, task): its code samples with all its generated tests."""
    by_unit: dict[tuple[str, str], list[GeneratedTest]] = {}
    for test in tests:
        by_unit.setdefault((test.model, test.task_id), []).append(test)
    samples: dict[tuple[str, str], list[GeneratedCode]] = {}
    for code in codes:
        samples.setdefault((code.model, code.task_id), []).append(code)
    return [PairJob(ctx.tasks[key[1]], tuple(mine), tuple(by_unit.get(key, []))) for key, mine in samples.items()]


def pair_items(ctx: RunContext, inputs: InputRecords) -> list[PairJob]:
    """One job per (coder, task) with its code samples and its generated tests."""
    return pair_jobs(ctx, inputs.of(GeneratedCode), inputs.of(GeneratedTest))


STAGE = Stage(
    STAGE_NAME,
    evaluate_code_test_pairs,
    pair_items,
    "test_execution_feedback",
    lambda r: f"{r.model}|{r.task_id}",
    sandboxed=True,
    inputs=Inputs(records=(GeneratedCode, GeneratedTest), settings=PROGRAM_RUN_PARTS),
    produces=(PairEvaluation, BenchmarkVerdict, SkippedWork),
    parallel_chunks=True,
    waits=pair_job_waits,
)
