"""The work items of each stage, derived from the configuration and the records of earlier stages.

Items come out in canonical order (coder models, then tasks in run order, then kinds and indices), so
``results.json`` does not depend on the order in which a resumed run finished its work.
"""

from __future__ import annotations

from tfr_helpers.pipeline.context import RunContext
from tfr_helpers.pipeline.evaluate_code_test_pairs import PairJob
from tfr_helpers.pipeline.evaluate_refined_codes import RefinedJob
from tfr_helpers.pipeline.generate_codes import CodeJob
from tfr_helpers.pipeline.generate_tests import TestJob
from tfr_helpers.pipeline.refine_codes import RefineJob
from tfr_helpers.pipeline.screen_feedback import ScreenJob
from tfr_helpers.pipeline.strategies import ScreeningItem
from tfr_helpers.records import (
    BenchmarkVerdict,
    Feedback,
    GeneratedCode,
    GeneratedTest,
    PairEvaluation,
    Refinement,
    TestKind,
)


def code_jobs(ctx: RunContext) -> list[CodeJob]:
    """One job per (coder, task)."""
    return [CodeJob(model, task) for model in ctx.config.models.coders for task in ctx.tasks.values()]


def test_jobs(ctx: RunContext) -> list[TestJob]:
    """One job per (coder, task, kind) with a positive count."""
    counts: list[tuple[TestKind, int]] = [
        ("ebt", ctx.config.ebts_per_task),
        ("pbt", ctx.config.pbts_per_task),
    ]
    return [
        TestJob(model, ctx.config.models.tester_for(model), task, kind, n)
        for model in ctx.config.models.coders
        for task in ctx.tasks.values()
        for kind, n in counts
        if n > 0
    ]


def pair_jobs(ctx: RunContext, codes: list[GeneratedCode], tests: list[GeneratedTest]) -> list[PairJob]:
    """One job per (coder, task): its generated code with all its generated tests."""
    by_unit: dict[str, list[GeneratedTest]] = {}
    for test in tests:
        by_unit.setdefault(f"{test.model}|{test.task_id}", []).append(test)
    return [PairJob(ctx.tasks[code.task_id], code, tuple(by_unit.get(f"{code.model}|{code.task_id}", []))) for code in codes]


def _failed(pairs: list[PairEvaluation]) -> list[tuple[PairEvaluation, Feedback]]:
    return [(p, p.feedback) for p in pairs if p.feedback is not None]


def screen_jobs(
    ctx: RunContext, codes: list[GeneratedCode], tests: list[GeneratedTest], pairs: list[PairEvaluation]
) -> list[ScreenJob]:
    """One job per (strategy, test-fail feedback)."""
    code_of = {(c.model, c.task_id): c.code or "" for c in codes}
    test_of = {t.test_id: t for t in tests}
    items = [
        ScreeningItem(
            feedback=fb,
            task=ctx.tasks[p.task_id].view(),
            coder=p.model,  # type: ignore[arg-type]
            judge=ctx.config.models.judge_for(p.model),
            code=code_of[(p.model, p.task_id)],
            test=test_of[p.test_id],
            outcome=p.generated,
        )
        for p, fb in _failed(pairs)
    ]
    return [ScreenJob(strategy, item) for item in items for strategy in ctx.config.screening]


def refine_jobs(
    ctx: RunContext, codes: list[GeneratedCode], tests: list[GeneratedTest], pairs: list[PairEvaluation]
) -> list[RefineJob]:
    """One job per test-fail feedback."""
    code_of = {(c.model, c.task_id): c.code or "" for c in codes}
    test_of = {t.test_id: t for t in tests}
    return [
        RefineJob(
            p.model,
            ctx.config.models.refiner_for(p.model),
            ctx.tasks[p.task_id],
            code_of[(p.model, p.task_id)],
            test_of[p.test_id],
            fb,
        )
        for p, fb in _failed(pairs)
    ]


def refined_jobs(
    ctx: RunContext,
    tests: list[GeneratedTest],
    verdicts: list[BenchmarkVerdict],
    refinements: list[Refinement],
) -> list[RefinedJob]:
    """One job per refinement, with the generated code's benchmark verdict as ``before``."""
    before = {(v.model, v.task_id): v.passed for v in verdicts}
    test_of = {t.test_id: t for t in tests}
    return [RefinedJob(ctx.tasks[r.task_id], r, test_of[r.feedback_id], before[(r.model, r.task_id)]) for r in refinements]
