"""Stage screen_feedback: every configured strategy on every test-fail feedback, before refinement."""

from __future__ import annotations

import weakref
from collections.abc import Sequence
from dataclasses import dataclass

from tfr_helpers.pipeline.config import scope
from tfr_helpers.pipeline.config.fingerprint import MODEL_CALL_PARTS, PROGRAM_RUN_PARTS
from tfr_helpers.pipeline.engine.artifacts import save_call
from tfr_helpers.pipeline.engine.context import RunContext
from tfr_helpers.pipeline.engine.faults import Undone, call_fault
from tfr_helpers.pipeline.engine.stage import InputRecords, Inputs, Stage
from tfr_helpers.pipeline.screening.registry import ScreeningItem, Verdict, resolve_strategy
from tfr_helpers.pipeline.steps.lookups import code_texts, test_fail_feedback, tests_by_id
from tfr_helpers.records import GeneratedCode, GeneratedTest, PairEvaluation, ScreeningDecision, sample_suffix


@dataclass(frozen=True)
class ScreenJob:
    """Decide one feedback with one strategy."""

    strategy: str
    item: ScreeningItem

    @property
    def key(self) -> str:
        """Checkpoint key."""
        return f"{self.strategy}|{self.item.feedback.feedback_id}"

    @property
    def unit(self) -> tuple[str, str]:
        """The (coder, task id) whose undone items in earlier stages hold this one back."""
        return self.item.coder, self.item.task.task_id


def screen_feedback(items: Sequence[ScreenJob], ctx: RunContext) -> list[ScreeningDecision | Undone]:
    """Run each job's strategy (batched per strategy) and record the decisions.

    Args:
        items: One job per (strategy, feedback).
        ctx: The run context.

    Returns:
        One :class:`ScreeningDecision` per job, in order, or :class:`Undone` when a judge call got no reply
        (an answer that arrived but decides nothing is ``undecided``, a result).
    """
    _prepare(ctx)
    verdicts: dict[int, Verdict] = {}
    for name in dict.fromkeys(job.strategy for job in items):
        batch = [i for i, job in enumerate(items) if job.strategy == name]
        answers = resolve_strategy(name)([items[i].item for i in batch], ctx)
        verdicts.update(zip(batch, answers, strict=True))
    out: list[ScreeningDecision | Undone] = []
    for i, job in enumerate(items):
        verdict = verdicts[i]
        fault = call_fault(verdict.call) if verdict.call is not None else None
        if fault is not None:
            out.append(Undone(job.key, fault))
            continue
        test, coder, task_id = job.item.test, job.item.coder, job.item.task.task_id
        stem = f"{job.strategy}_{test.kind}_{test.index}" + sample_suffix(job.item.feedback.feedback_id)
        call = save_call(ctx, coder, task_id, f"screening_{stem}", verdict.call) if verdict.call else None
        text = f"# {job.strategy}: {verdict.decision}\n\n{verdict.reasoning or ''}\n"
        path = None
        if verdict.call is not None or not scope.compact_artifacts(ctx.config, coder):
            path = ctx.store.artifact(coder, task_id, f"screening/{stem}.md", text)
        out.append(
            ScreeningDecision(
                feedback_id=job.item.feedback.feedback_id,
                strategy=job.strategy,
                decision=verdict.decision,
                score=verdict.score,
                abstained=verdict.abstained,
                reasoning=verdict.reasoning,
                call=call,
                decision_path=path,
            )
        )
    return out


_STAGE_JOBS: list[tuple[weakref.ref[RunContext], list[ScreenJob]]] = []
"""The stage's jobs as :func:`screen_items` made them, until its first chunk runs (see :func:`_prepare`)."""


def _prepare(ctx: RunContext) -> None:
    """Before the stage's first chunk: give each screener that declares a ``prepare(items, ctx)`` all its pending
    items at once (the learned screener runs their prompt examples in one sandbox batch instead of one per chunk)."""
    made = [jobs for made_by, jobs in _STAGE_JOBS if made_by() is ctx]
    _STAGE_JOBS.clear()
    if not made:
        return
    done = ctx.store.done_keys(STAGE.checkpoint or "")
    pending = [job for job in made[0] if job.key not in done]
    for name in dict.fromkeys(job.strategy for job in pending):
        prepare = resolve_strategy(name).prepare
        if prepare is not None:
            prepare([job.item for job in pending if job.strategy == name], ctx)


def screen_jobs(
    ctx: RunContext, codes: list[GeneratedCode], tests: list[GeneratedTest], pairs: list[PairEvaluation]
) -> list[ScreenJob]:
    """One job per (strategy, test-fail feedback); a screener that calls a model only for coders with a judge."""
    code_of = code_texts(codes)
    test_of = tests_by_id(tests)
    samples = {(c.model, c.task_id): scope.code_samples(ctx.config, c.model, c.task_id) for c in codes}
    items = [
        ScreeningItem(
            feedback=fb,
            task=ctx.tasks[p.task_id].view(),
            coder=p.model,  # type: ignore[arg-type]
            judge=ctx.config.models.judge_for(p.model),
            code=code_of[(p.model, p.task_id, p.code_index)],
            test=test_of[p.test_id],
            outcome=p.generated,
            code_samples=samples[(p.model, p.task_id)],
        )
        for p, fb in test_fail_feedback(pairs)
    ]
    judged = {m: scope.judges(ctx.config, m) for m in ctx.config.models.coder_names}
    calls_model = {name: resolve_strategy(name).calls_model for name in ctx.config.screening}
    return [
        ScreenJob(strategy, item)
        for item in items
        for strategy in ctx.config.screening
        if judged[item.coder] or not calls_model[strategy]
    ]


def screen_items(ctx: RunContext, inputs: InputRecords) -> list[ScreenJob]:
    """One job per (strategy, test-fail feedback)."""
    codes, tests, pairs = inputs.of(GeneratedCode), inputs.of(GeneratedTest), inputs.of(PairEvaluation)
    source_of = {t.test_id: t.source for t in tests}
    ctx.measured_verdicts(  # the simulated judge's ground truth (privileged; no strategy sees it)
        (ctx.tasks[p.task_id].reference, source_of[p.test_id], p.reference.status == "passed") for p in pairs
    )
    jobs = screen_jobs(ctx, codes, tests, pairs)
    _STAGE_JOBS[:] = [(weakref.ref(ctx), jobs)]
    return jobs


# a decision is keyed by its strategy: another screening list reuses the decisions of those kept
STAGE = Stage(
    "screen_feedback",
    screen_feedback,
    screen_items,
    "screening_results",
    lambda r: f"{r.strategy}|{r.feedback_id}",
    inputs=Inputs(
        records=(GeneratedCode, GeneratedTest, PairEvaluation),
        settings=(
            "models.judge",
            "code_samples_per_task",
            *MODEL_CALL_PARTS,
            *PROGRAM_RUN_PARTS,
            "template:judge",
            "template:judge_reasoning",
        ),
        selects=("screening",),
    ),
    produces=(ScreeningDecision,),
)
