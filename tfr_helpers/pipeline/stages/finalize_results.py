"""Stage finalize_results: every record of the run consolidated into ``results.json``."""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Sequence
from dataclasses import dataclass

from tfr_helpers.models.providers import is_simulated
from tfr_helpers.pipeline.arms.controls.results import controls_results
from tfr_helpers.pipeline.arms.oracle.results import oracle_results
from tfr_helpers.pipeline.arms.rounds.results import rounds_results
from tfr_helpers.pipeline.config import scope
from tfr_helpers.pipeline.engine.context import RunContext
from tfr_helpers.pipeline.engine.stage import Stage, StageRecords, records_of
from tfr_helpers.records import (
    BenchmarkVerdict,
    CallTotals,
    ControlsResults,
    GeneratedCode,
    GeneratedTest,
    ModelCallRecord,
    OracleRepairResults,
    PairEvaluation,
    RefinedEvaluation,
    Refinement,
    Results,
    Role,
    ScreeningDecision,
    TestGenerationFailure,
)
from tfr_helpers.records.rounds import RoundsResults


@dataclass(frozen=True)
class RunRecords:
    """All records of a run, each list in canonical (configuration) order."""

    generated_codes: list[GeneratedCode]
    generated_tests: list[GeneratedTest]
    test_generation_failures: list[TestGenerationFailure]
    benchmark_verdicts: list[BenchmarkVerdict]
    pair_evaluations: list[PairEvaluation]
    screening: list[ScreeningDecision]
    refinements: list[Refinement]
    refined_evaluations: list[RefinedEvaluation]
    stage_seconds: dict[str, float]
    rounds: RoundsResults | None = None
    """Multi-round backprompting, None unless ``refinement.rounds`` > 1."""
    oracle_repair: OracleRepairResults | None = None
    """The oracle-repaired arm, None unless ``refinement.oracle_repair``."""
    controls: ControlsResults | None = None
    """The control arm, None unless ``refinement.controls``."""


def call_totals(records: RunRecords) -> list[CallTotals]:
    """Calls, cache hits, errors, tokens and cost per (model, role, stage); one response counted once."""
    calls: dict[str, ModelCallRecord] = {}
    for code in records.generated_codes:
        calls[f"code|{code.model}|{code.task_id}|{code.sample_index}"] = code.call
    for test in records.generated_tests:
        calls[f"test|{test.model}|{test.task_id}|{test.kind}|{test.sample_index}"] = test.call
    for fail in records.test_generation_failures:
        calls[f"test|{fail.model}|{fail.task_id}|{fail.kind}|{fail.sample_index}"] = fail.call
    for dec in records.screening:
        if dec.call is not None:
            calls[f"screen|{dec.strategy}|{dec.feedback_id}"] = dec.call
    for ref in records.refinements:
        calls[f"refine|{ref.feedback_id}"] = ref.call
    for chain in records.rounds.chains if records.rounds else []:
        for step in chain.steps:
            if step.call is not None:
                calls[f"round_refine|{chain.chain_id}|{step.round}"] = step.call
    for suite in records.rounds.round_tests_generated if records.rounds else []:
        for t in suite.tests:
            calls[f"round_test|{t.model}|{t.task_id}|{t.kind}|{t.sample_index}"] = t.call
        for f in suite.failures:
            calls[f"round_test|{f.model}|{f.task_id}|{f.kind}|{f.sample_index}"] = f.call
    for ref in records.oracle_repair.refinements if records.oracle_repair else []:
        calls[f"oracle_refine|{ref.feedback_id}"] = ref.call
    for ctl in records.controls.refinements if records.controls else []:
        calls[f"control_{ctl.control}|{ctl.feedback_id}"] = ctl.call
    sums: dict[tuple[str, Role, str], list[float]] = defaultdict(lambda: [0, 0, 0, 0, 0, 0.0])
    for call in calls.values():
        acc = sums[(call.model, call.role, call.stage)]
        acc[0] += 1
        acc[1] += call.cached
        acc[2] += call.error is not None
        acc[3] += call.usage.input_tokens
        acc[4] += call.usage.output_tokens
        acc[5] += call.usage.cost_usd
    return [
        CallTotals(
            model=m,
            role=r,
            stage=s,
            calls=int(a[0]),
            cached=int(a[1]),
            errors=int(a[2]),  # type: ignore[arg-type]
            input_tokens=int(a[3]),
            output_tokens=int(a[4]),
            cost_usd=round(a[5], 6),
        )
        for (m, r, s), a in sorted(sums.items())
    ]


def finalize_results(items: Sequence[RunRecords], ctx: RunContext) -> list[Results]:
    """Build (and write) ``results.json`` from the run's records.

    Args:
        items: The run's records (one bundle).
        ctx: The run context.

    Returns:
        One :class:`Results` per bundle.
    """
    config = ctx.config
    out = []
    for records in items:
        results = Results(
            run_name=config.run_name,
            simulated=any(is_simulated(spec) for spec in config.models.all_specs()),
            config={**config.model_dump(mode="json"), "config_hash": config.config_hash()},
            tasks=list(ctx.tasks),
            task_benchmarks={tid: task.benchmark for tid, task in ctx.tasks.items()},
            generated_codes=records.generated_codes,
            generated_tests=records.generated_tests,
            test_generation_failures=records.test_generation_failures,
            benchmark_verdicts=records.benchmark_verdicts,
            pair_evaluations=records.pair_evaluations,
            screening=records.screening,
            refinements=records.refinements,
            refined_evaluations=records.refined_evaluations,
            model_sources=scope.model_sources(config),
            skipped=scope.skipped_work(config, ctx.tasks),
            call_totals=call_totals(records),
            stage_seconds=records.stage_seconds,
            rounds=records.rounds,
            oracle_repair=records.oracle_repair,
            controls=records.controls,
        )
        ctx.store.write_results(results)
        out.append(results)
    return out


def bundle_items(ctx: RunContext, records: StageRecords) -> list[RunRecords]:
    """The one item: every record of the run, plus the stage times recorded so far."""
    pairs = records_of(records, "evaluate_code_test_pairs")
    seconds = ctx.store.root / "stage_seconds.json"
    bundle = RunRecords(
        generated_codes=records_of(records, "generate_codes"),
        generated_tests=records_of(records, "generate_tests", GeneratedTest),
        test_generation_failures=records_of(records, "generate_tests", TestGenerationFailure),
        benchmark_verdicts=[r for r in pairs if isinstance(r, BenchmarkVerdict)],
        pair_evaluations=[r for r in pairs if isinstance(r, PairEvaluation)],
        screening=records_of(records, "screen_feedback"),
        refinements=records_of(records, "refine_codes"),
        refined_evaluations=records_of(records, "evaluate_refined_codes"),
        stage_seconds=ctx.store.read_json("stage_seconds.json") if seconds.exists() else {},
        rounds=rounds_results(ctx, records),
        oracle_repair=oracle_results(ctx, records),
        controls=controls_results(ctx, records),
    )
    return [bundle]


STAGE = Stage("finalize_results", finalize_results, bundle_items, None)
