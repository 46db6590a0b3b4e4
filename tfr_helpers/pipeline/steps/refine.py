"""One refinement request per test-fail feedback (the job, the call, the record), shared with the oracle-repaired arm."""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import TypeVar

from tfr_helpers.models import parse_code
from tfr_helpers.models.jobs import CallJob, task_variables
from tfr_helpers.pipeline.engine.artifacts import save_call
from tfr_helpers.pipeline.engine.context import RunContext
from tfr_helpers.pipeline.engine.faults import Undone, call_fault, note_truncation
from tfr_helpers.records import Feedback, GeneratedTest, Task, sample_suffix

R = TypeVar("R")


@dataclass(frozen=True)
class RefineJob:
    """Refine coder ``model``'s code for ``task`` with one feedback, asking ``refiner``."""

    model: str
    refiner: str
    task: Task
    code: str
    test: GeneratedTest
    feedback: Feedback

    @property
    def key(self) -> str:
        """Checkpoint key."""
        return self.feedback.feedback_id


def request_refinements(
    items: Sequence[RefineJob],
    ctx: RunContext,
    stage: str,
    record: Callable[..., R],
    names: Callable[[str], tuple[str, str]],
) -> list[R | Undone]:
    """The refinement requests of ``items`` (template ``refine``: the task's view, the code, the feedback text).

    Args:
        items: The jobs.
        ctx: The run context.
        stage: The stage the calls are logged under.
        record: The record built from each reply (``Refinement`` or an arm's own, with the same fields).
        names: ``names(stem) -> (call artifact name, refined code artifact path)`` for a test's stem.

    Returns:
        One record per job, or :class:`Undone` when the call got no reply.
    """

    jobs = [
        CallJob(
            item.refiner,
            "refiner",
            "refine",
            {**task_variables(item.task), "code": item.code, "feedback": item.feedback.text},
            item.task,
        )
        for item in items
    ]
    out: list[R | Undone] = []
    for item, result in zip(items, ctx.call_models(jobs, stage=stage), strict=True):
        fault = call_fault(result)
        if fault is not None:
            out.append(Undone(item.key, fault))
            continue
        call_name, code_path = names(f"{item.test.kind}_{item.test.index}" + sample_suffix(item.feedback.feedback_id))
        task_id = item.task.task_id
        call = save_call(ctx, item.model, task_id, call_name, result)
        parsed = parse_code(result.text or "", item.task.entry_point)
        path = ctx.store.artifact(item.model, task_id, code_path, parsed.code) if parsed.code else None
        out.append(
            record(
                feedback_id=item.feedback.feedback_id,
                model=item.model,
                task_id=task_id,
                code=parsed.code,
                parse_error=None if parsed.code else note_truncation(parsed.error or "no code in the response", call),
                call=call,
                code_path=path,
            )
        )
    return out
