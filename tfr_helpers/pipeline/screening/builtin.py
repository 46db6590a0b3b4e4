"""The built-in screeners: accept everything, reject broken test code, and the two LLM judges (they call the judge).

None of them states a score (a rule and a judge's Accept or Reject rank nothing) and none abstains: each declares
so, and each verdict's ``score`` is None and ``abstained`` False, explicitly."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Protocol

from tfr_helpers.models import parse_decision
from tfr_helpers.models.jobs import CallJob, CallResult, task_variables
from tfr_helpers.pipeline.screening.registry import ScreeningItem, Verdict, register_strategy
from tfr_helpers.records import TEST_CODE_ERRORS


class ModelCaller(Protocol):
    """What the LLM judges use of the stage's context (a ``RunContext``): its model calls."""

    def call_models(self, jobs: Sequence[CallJob], stage: str) -> list[CallResult]: ...


@register_strategy("accept_all")
def accept_all(items: Sequence[ScreeningItem], ctx: ModelCaller) -> list[Verdict]:
    """Baseline: use every feedback."""
    return [Verdict("accept", score=None, abstained=False) for _ in items]


@register_strategy("reject_test_code_errors")
def reject_test_code_errors(items: Sequence[ScreeningItem], ctx: ModelCaller) -> list[Verdict]:
    """Reject feedback whose failure is a syntax/name/import error raised in the test code itself."""
    out = []
    for item in items:
        broken = item.outcome.exc_type in TEST_CODE_ERRORS and not item.outcome.in_code_under_test
        out.append(
            Verdict(
                "reject" if broken else "accept",
                f"{item.outcome.exc_type} outside the code under test" if broken else None,
                score=None,
                abstained=False,
            )
        )
    return out


def _judge(template: str, items: Sequence[ScreeningItem], ctx: ModelCaller) -> list[Verdict]:
    jobs = [
        CallJob(
            item.judge,
            "judge",
            template,
            {**task_variables(item.task), "code": item.code, "feedback": item.feedback.text},
            item.task,
        )
        for item in items
    ]
    out = []
    for result in ctx.call_models(jobs, stage="screen_feedback"):
        parsed = parse_decision(result.text or "")
        out.append(Verdict(parsed.decision, parsed.reasoning, result, score=None, abstained=False))
    return out


@register_strategy("llm_judge", calls="judge")
def llm_judge(items: Sequence[ScreeningItem], ctx: ModelCaller) -> list[Verdict]:
    """The judge model answers Accept or Reject only."""
    return _judge("judge", items, ctx)


@register_strategy("llm_judge_reasoning", calls="judge")
def llm_judge_reasoning(items: Sequence[ScreeningItem], ctx: ModelCaller) -> list[Verdict]:
    """The judge model reasons first, then answers Accept or Reject."""
    return _judge("judge_reasoning", items, ctx)
