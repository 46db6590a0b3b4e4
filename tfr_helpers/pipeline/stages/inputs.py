"""The work items of each stage, derived from the configuration and the records of earlier stages.

Items come out in canonical order (coder models, then tasks in run order, then kinds and indices), so
``results.json`` does not depend on the order in which a resumed run finished its work.
"""

from __future__ import annotations

from tfr_helpers.models.registry import is_replayed
from tfr_helpers.pipeline.config import scope
from tfr_helpers.pipeline.engine.context import RunContext
from tfr_helpers.pipeline.screening.registry import ScreeningItem
from tfr_helpers.pipeline.stages.evaluate_code_test_pairs import PairJob
from tfr_helpers.pipeline.stages.evaluate_refined_codes import RefinedJob
from tfr_helpers.pipeline.stages.generate_codes import CodeJob
from tfr_helpers.pipeline.stages.generate_tests import TestJob
from tfr_helpers.pipeline.stages.refine_codes import RefineJob
from tfr_helpers.pipeline.stages.screen_feedback import ScreenJob
from tfr_helpers.records import (
    BenchmarkVerdict,
    Feedback,
    GeneratedCode,
    GeneratedTest,
    PairEvaluation,
    Refinement,
    TestKind,
    split_pair_id,
)


def code_jobs(ctx: RunContext) -> list[CodeJob]:
    """One job per (coder, task the coder is run on), with the coder's number of code samples."""
    config = ctx.config
    return [
        CodeJob(model, task, scope.code_samples(config, model, task.task_id))
        for model in config.models.coder_names
        for task in scope.coder_tasks(config, ctx.tasks, model)
    ]


def test_jobs(ctx: RunContext) -> list[TestJob]:
    """One job per (coder, task, kind) with a positive count and at least one test sample.

    A replayed tester's samples keep all their tests (``count`` None): they hold the tests as published.
    """
    config = ctx.config
    counts: list[tuple[TestKind, int]] = [("ebt", config.ebts_per_task), ("pbt", config.pbts_per_task)]
    jobs = []
    for model in config.models.coder_names:
        tester = config.models.tester_for(model)
        for task in scope.coder_tasks(config, ctx.tasks, model):
            for kind, n in counts:
                samples = scope.test_samples(config, model, task.task_id, kind) if n > 0 else 0
                if samples:
                    jobs.append(TestJob(model, tester, task, kind, None if is_replayed(tester) else n, samples))
    return jobs


def pair_jobs(ctx: RunContext, codes: list[GeneratedCode], tests: list[GeneratedTest]) -> list[PairJob]:
    """One job per (coder, task): its code samples with all its generated tests."""
    by_unit: dict[tuple[str, str], list[GeneratedTest]] = {}
    for test in tests:
        by_unit.setdefault((test.model, test.task_id), []).append(test)
    samples: dict[tuple[str, str], list[GeneratedCode]] = {}
    for code in codes:
        samples.setdefault((code.model, code.task_id), []).append(code)
    return [PairJob(ctx.tasks[key[1]], tuple(mine), tuple(by_unit.get(key, []))) for key, mine in samples.items()]


def _failed(pairs: list[PairEvaluation]) -> list[tuple[PairEvaluation, Feedback]]:
    return [(p, p.feedback) for p in pairs if p.feedback is not None]


def screen_jobs(
    ctx: RunContext, codes: list[GeneratedCode], tests: list[GeneratedTest], pairs: list[PairEvaluation]
) -> list[ScreenJob]:
    """One job per (strategy, test-fail feedback); the LLM strategies only for coders with a judge."""
    code_of = {(c.model, c.task_id, c.sample_index): c.code or "" for c in codes}
    test_of = {t.test_id: t for t in tests}
    items = [
        ScreeningItem(
            feedback=fb,
            task=ctx.tasks[p.task_id].view(),
            coder=p.model,  # type: ignore[arg-type]
            judge=ctx.config.models.judge_for(p.model),
            code=code_of[(p.model, p.task_id, p.code_index)],
            test=test_of[p.test_id],
            outcome=p.generated,
        )
        for p, fb in _failed(pairs)
    ]
    judged = {m: scope.judges(ctx.config, m) for m in ctx.config.models.coder_names}
    return [
        ScreenJob(strategy, item)
        for item in items
        for strategy in ctx.config.screening
        if judged[item.coder] or strategy not in scope.LLM_STRATEGIES
    ]


def refine_jobs(
    ctx: RunContext, codes: list[GeneratedCode], tests: list[GeneratedTest], pairs: list[PairEvaluation]
) -> list[RefineJob]:
    """One job per test-fail feedback of a coder that has a refiner (never a replay dataset)."""
    code_of = {(c.model, c.task_id, c.sample_index): c.code or "" for c in codes}
    refined = {m: scope.refines(ctx.config, m) for m in ctx.config.models.coder_names}
    test_of = {t.test_id: t for t in tests}
    return [
        RefineJob(
            p.model,
            ctx.config.models.refiner_for(p.model),
            ctx.tasks[p.task_id],
            code_of[(p.model, p.task_id, p.code_index)],
            test_of[p.test_id],
            fb,
        )
        for p, fb in _failed(pairs)
        if refined[p.model]
    ]


def refined_jobs(
    ctx: RunContext,
    tests: list[GeneratedTest],
    verdicts: list[BenchmarkVerdict],
    refinements: list[Refinement],
) -> list[RefinedJob]:
    """One job per refinement, with the generated code's benchmark verdict as ``before``."""
    before = {(v.model, v.task_id, v.code_index): v.passed for v in verdicts}
    test_of = {t.test_id: t for t in tests}
    jobs = []
    for r in refinements:
        test_id, code_index = split_pair_id(r.feedback_id)
        jobs.append(RefinedJob(ctx.tasks[r.task_id], r, test_of[test_id], before[(r.model, r.task_id, code_index)]))
    return jobs
