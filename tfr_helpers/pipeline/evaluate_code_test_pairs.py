"""Stage 3, evaluate_code_test_pairs: the generated code on the benchmark tests, and each generated test
against the generated code and the reference (rerun on a reference non-pass) -> RQ1 case, reliability,
cause and feedback."""

from __future__ import annotations

import json
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from tfr_helpers.pipeline import coverage
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
    pair_id,
)


@dataclass(frozen=True)
class PairJob:
    """Everything to evaluate for one (coder model, task): its code samples and its generated tests."""

    task: Task
    codes: tuple[GeneratedCode, ...]
    """The code samples, in sample order."""
    tests: tuple[GeneratedTest, ...]

    @property
    def model(self) -> str:
        """The coder."""
        return self.codes[0].model

    @property
    def key(self) -> str:
        """Checkpoint key."""
        return f"{self.model}|{self.task.task_id}"


def test_spec(test: GeneratedTest) -> object:
    """The sandbox spec of a generated test (a module of ``test_*`` functions)."""
    from tfr_helpers.sandbox import TestSpec

    return TestSpec(name=test.name, source=test.source, kind="function")


def benchmark_specs(task: Task) -> list[object]:
    """The task's benchmark tests as sandbox specs."""
    from tfr_helpers.benchmarks import benchmark_tests

    return list(benchmark_tests(task))


class _Batch:
    """Sandbox jobs keyed by what determines their outcome: an identical job is added (and run) once."""

    def __init__(self) -> None:
        self.jobs: dict[tuple[str, ...], tuple[str, list[object]]] = {}
        self.runs: dict[tuple[str, ...], ProgramRun] = {}

    def add(self, key: tuple[str, ...], program: str, specs: Sequence[object]) -> tuple[str, ...]:
        self.jobs.setdefault(key, (program, list(specs)))
        return key

    def run(self, ctx: RunContext, desc: str, generated: bool, rerun: bool = False) -> None:
        keys = list(self.jobs)
        done = ctx.run_programs([self.jobs[k] for k in keys], desc=desc, generated=generated, rerun=rerun)
        self.runs = dict(zip(keys, done, strict=True))


@dataclass
class _Outcomes:
    """Where each unit finds its runs once the batches ran."""

    bench: dict[tuple[str, ...], ProgramRun]
    """(program, task id) -> the program's run on the benchmark tests."""
    gen: dict[tuple[str, ...], ProgramRun]
    """(program, *distinct test sources) -> the program's run on those tests, in that order."""
    rerun: dict[tuple[str, str], TestOutcome]
    """(reference, test source) -> the reference's second outcome on a test it did not pass."""


def _unique_tests(item: PairJob) -> dict[str, GeneratedTest]:
    """Test source -> its first test, in order of first appearance (identical tests run once)."""
    first: dict[str, GeneratedTest] = {}
    for test in item.tests:
        first.setdefault(test.source, test)
    return first


def _split(run: ProgramRun, start: int, stop: int | None) -> ProgramRun:
    """The part of a run holding the outcomes of specs ``start:stop`` (one outcome per snippet or test spec)."""
    return run.model_copy(update={"outcomes": run.outcomes[start:stop]})


def _combined(ctx: RunContext, item: PairJob, bench_specs: list[Any]) -> bool:
    """Whether a unit's benchmark tests run in the same sandbox run as its generated tests (many samples:
    one run per program instead of two). Only when the limits agree and each benchmark spec gives exactly one
    outcome (snippets: HumanEval's ``check``, MBPP's asserts), so the outcomes split back by position."""
    limits = ctx.config.sandbox
    return (
        coverage.compact_artifacts(ctx.config, item.model)
        and limits.timeout_s == limits.generated_test_timeout_s
        and all(getattr(spec, "kind", None) == "snippet" for spec in bench_specs)
    )


def evaluate_code_test_pairs(items: Sequence[PairJob], ctx: RunContext) -> list[BenchmarkVerdict | PairEvaluation]:
    """Run and label one chunk of (coder, task) units.

    Every generated test runs against every code sample and the reference. One sandbox run per distinct
    program executes all of the unit's distinct tests (one outcome per test); identical programs and identical
    tests run once and their outcomes are shared by every pair they stand for.

    Args:
        items: One job per (coder model, task) with that unit's code samples and generated tests.
        ctx: The run context.

    Returns:
        Per job and code sample: one :class:`BenchmarkVerdict` (subject ``generated``) then one
        :class:`PairEvaluation` per generated test (none for a sample without usable code).
    """
    found = _run(ctx, items)
    out: list[BenchmarkVerdict | PairEvaluation] = []
    for item in items:
        out += _records(ctx, item, found)
    return out


def _run(ctx: RunContext, items: Sequence[PairJob]) -> _Outcomes:
    """Run every distinct program of the chunk on its benchmark tests and its distinct generated tests, the
    references on the generated tests, then the reference's non-passes again."""
    # round 1: benchmark tests on each distinct program; the distinct tests on each distinct program and the
    # reference (for many samples, a program's benchmark tests and generated tests in one run)
    bench, gen = _Batch(), _Batch()
    combined: dict[tuple[str, ...], int] = {}  # key of a combined run -> number of benchmark outcomes first
    for item in items:
        distinct = _unique_tests(item)
        sources, specs = tuple(distinct), [test_spec(t) for t in distinct.values()]
        bspecs = benchmark_specs(item.task)
        together = bool(sources) and _combined(ctx, item, bspecs)
        for code in item.codes:
            program = code.code or ""
            if together and code.code:
                key = ("+bench", item.task.task_id, program, *sources)
                combined[gen.add(key, program, bspecs + specs)] = len(bspecs)
                continue
            bench.add((program, item.task.task_id), program, bspecs)
            if code.code and sources:
                gen.add((program, *sources), program, specs)
        if any(c.code for c in item.codes) and sources:
            gen.add((item.task.reference, *sources), item.task.reference, specs)
    bench.run(ctx, "benchmark tests", generated=False)
    gen.run(ctx, "generated tests", generated=True)
    found = _Outcomes(bench=dict(bench.runs), gen={}, rerun={})
    for key, run in gen.runs.items():
        if key in combined:  # ("+bench", task id, program, *sources)
            found.bench[(key[2], key[1])] = _split(run, 0, combined[key])
            found.gen[key[2:]] = _split(run, combined[key], None)
        else:
            found.gen[key] = run

    # round 2: a reference non-pass runs again with another seed, to tell a wrong test from a nondeterministic
    # reference: alone per test (one sample), or all of a unit's non-passes in one run (many samples)
    reruns = _Batch()
    for item in items:
        sources = tuple(_unique_tests(item))
        ref_run = found.gen.get((item.task.reference, *sources))
        failing = [s for s, o in zip(sources, ref_run.outcomes, strict=True) if o.status != "passed"] if ref_run else []
        if failing and coverage.compact_artifacts(ctx.config, item.model):
            reruns.add(
                (item.task.reference, *failing), item.task.reference, [test_spec(_unique_tests(item)[s]) for s in failing]
            )
        else:
            for source in failing:
                reruns.add((item.task.reference, source), item.task.reference, [test_spec(_unique_tests(item)[source])])
    reruns.run(ctx, "reference reruns", generated=True, rerun=True)
    for key, run in reruns.runs.items():
        for source, outcome in zip(key[1:], run.outcomes, strict=False):
            found.rerun[(key[0], source)] = outcome
    return found


def _records(ctx: RunContext, item: PairJob, found: _Outcomes) -> list[Any]:
    """The verdict and pair records of one unit, from the shared runs."""
    task, model = item.task, item.model
    sources = tuple(_unique_tests(item))
    ref_run = found.gen.get((task.reference, *sources))
    per_pair = not coverage.compact_artifacts(ctx.config, model)
    out: list[Any] = []
    for code in item.codes:
        suffix = f"_s{code.sample_index}" if code.sample_index else ""
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
            )
        )
        if not code.code or ref_run is None:
            continue
        gen_run = found.gen[(code.code, *sources)]
        pairs = []
        for test in item.tests:
            j = sources.index(test.source)
            rerun = found.rerun.get((task.reference, test.source))
            pairs.append(_pair(item, code, test, gen_run, ref_run, j, rerun))
        out += _with_artifacts(ctx, pairs, per_pair, f"executions/pairs{suffix}.json")
    return out


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
    gen_run: ProgramRun,
    ref_run: ProgramRun,
    j: int,
    rerun: TestOutcome | None,
) -> PairEvaluation:
    generated, reference = gen_run.outcomes[j], ref_run.outcomes[j]
    case = case_of(generated.status == "passed", reference.status == "passed")
    reliability = reliability_of(case)
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
        case=case,
        reliability=reliability,
        cause=cause,
        feedback=feedback,
        isolation=gen_run.isolation,
    )


def pair_items(ctx: RunContext, records: StageRecords) -> list[PairJob]:
    """One job per (coder, task) with its code samples and its generated tests."""
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
