"""One refinement request per test-fail feedback (the job, the call, the record), shared with the arms.

:func:`refine_jobs` is the one list of the feedback instances the feedback arm refines (the control arm runs on
exactly these)."""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import TypeVar

from tfr_helpers.models.jobs import CallJob, task_variables
from tfr_helpers.pipeline.config import scope
from tfr_helpers.pipeline.engine.context import RunContext
from tfr_helpers.pipeline.engine.faults import Undone, call_fault
from tfr_helpers.pipeline.steps.code_reply import code_reply
from tfr_helpers.pipeline.steps.lookups import code_texts, test_fail_feedback, tests_by_id
from tfr_helpers.records import Feedback, GeneratedCode, GeneratedTest, PairEvaluation, Task, sample_suffix

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

    @property
    def unit(self) -> tuple[str, str]:
        """The (coder, task id) whose undone items in earlier stages hold this one back."""
        return self.model, self.task.task_id


def refine_jobs(
    ctx: RunContext, codes: list[GeneratedCode], tests: list[GeneratedTest], pairs: list[PairEvaluation]
) -> list[RefineJob]:
    """One job per test-fail feedback of a coder that has a refiner (never a replay dataset)."""
    code_of = code_texts(codes)
    refined = {m: scope.refines(ctx.config, m) for m in ctx.config.models.coder_names}
    test_of = tests_by_id(tests)
    return [
        refine_job(ctx, p.model, p.task_id, code_of[(p.model, p.task_id, p.code_index)], test_of[p.test_id], fb)
        for p, fb in test_fail_feedback(pairs)
        if refined[p.model]
    ]


def refine_job(ctx: RunContext, model: str, task_id: str, code: str, test: GeneratedTest, feedback: Feedback) -> RefineJob:
    """The job refining coder ``model``'s ``code`` for ``task_id`` with ``feedback``, asking the coder's refiner."""
    return RefineJob(model, ctx.config.models.refiner_for(model), ctx.tasks[task_id], code, test, feedback)


def refine_request(item: RefineJob) -> CallJob:
    """The feedback arm's request: template ``refine`` with the task's view, the code and the feedback text."""
    variables = {**task_variables(item.task), "code": item.code, "feedback": item.feedback.text}
    return CallJob(item.refiner, "refiner", "refine", variables, item.task)


def request_refinements(
    items: Sequence[RefineJob],
    ctx: RunContext,
    stage: str,
    record: Callable[..., R],
    names: Callable[[str], tuple[str, str]],
    request: Callable[[RefineJob], CallJob] = refine_request,
) -> list[R | Undone]:
    """The refinement requests of ``items`` (by default template ``refine``: the task's view, the code, the feedback).

    Args:
        items: The jobs.
        ctx: The run context.
        stage: The stage the calls are logged under.
        record: The record built from each reply (``Refinement`` or an arm's own, with the same fields).
        names: ``names(stem) -> (call artifact name, refined code artifact path)`` for a test's stem.
        request: The call of one job (the control arm asks without the feedback's content).

    Returns:
        One record per job, or :class:`Undone` when the call got no reply.
    """

    jobs = [request(item) for item in items]
    out: list[R | Undone] = []
    for item, result in zip(items, ctx.call_models(jobs, stage=stage), strict=True):
        fault = call_fault(result)
        if fault is not None:
            out.append(Undone(item.key, fault))
            continue
        call_name, code_path = names(f"{item.test.kind}_{item.test.index}" + sample_suffix(item.feedback.feedback_id))
        reply = code_reply(ctx, item.model, item.task, result, call_name, code_path)
        out.append(
            record(feedback_id=item.feedback.feedback_id, model=item.model, task_id=item.task.task_id, **reply.fields())
        )
    return out
