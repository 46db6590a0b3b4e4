"""Stage generate_codes: ``code_samples_per_task`` code samples per coder model and task (default one)."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from tfr_helpers.models.jobs import CallJob, CallResult, task_variables
from tfr_helpers.models.provider_table import is_replayed
from tfr_helpers.pipeline.config import scope
from tfr_helpers.pipeline.config.fingerprint import MODEL_CALL_PARTS, TASK_PARTS
from tfr_helpers.pipeline.engine.context import RunContext
from tfr_helpers.pipeline.engine.faults import Undone, item_replies
from tfr_helpers.pipeline.engine.stage import InputRecords, Inputs, Stage
from tfr_helpers.pipeline.steps.code_reply import code_reply
from tfr_helpers.records import GeneratedCode, Task, sample_index_suffix
from tfr_helpers.replay.units import published_program


@dataclass(frozen=True)
class CodeJob:
    """Generate ``samples`` code samples for ``task`` with coder ``model`` (sample ``i`` asks with sample index ``i``)."""

    model: str
    task: Task
    samples: int = 1

    @property
    def key(self) -> str:
        """Checkpoint key."""
        return f"{self.model}|{self.task.task_id}"

    @property
    def unit(self) -> tuple[str, str]:
        """The (coder, task id) whose undone items in earlier stages hold this one back."""
        return self.model, self.task.task_id


def generate_codes(items: Sequence[CodeJob], ctx: RunContext) -> list[GeneratedCode | Undone]:
    """Ask each coder for a solution and extract the code (a response without code is kept as such).

    A replayed sample that does not compile is kept as published: generated code that fails to load.

    Args:
        items: One job per (coder model, task), each with its number of samples.
        ctx: The run context.

    Returns:
        ``samples`` :class:`GeneratedCode` per job (sample order), in order, or one :class:`Undone` for a job
        one of whose calls got no reply.
    """
    jobs = [
        CallJob(item.model, "coder", "codegen", task_variables(item.task), item.task, sample_index=i)
        for item in items
        for i in range(item.samples)
    ]
    out: list[GeneratedCode | Undone] = []
    for item, mine in item_replies(items, ctx.call_models(jobs, stage="generate_codes")):
        if isinstance(mine, Undone):
            out.append(mine)
            continue
        out += [_code(ctx, item, i, result) for i, result in enumerate(mine)]
    return out


def _code(ctx: RunContext, item: CodeJob, index: int, result: CallResult) -> GeneratedCode:
    suffix = sample_index_suffix(index)
    reply = code_reply(
        ctx,
        item.model,
        item.task,
        result,
        f"codegen{suffix}",
        f"code{suffix}.py",
        durable=not scope.compact_artifacts(ctx.config, item.model),
        unparsed=published_program if is_replayed(item.model) else None,  # does not compile: runs, fails to load
    )
    return GeneratedCode(model=item.model, task_id=item.task.task_id, sample_index=index, **reply.fields())


def code_jobs(ctx: RunContext) -> list[CodeJob]:
    """One job per (coder, task the coder is run on), with the coder's number of code samples."""
    config = ctx.config
    return [
        CodeJob(model, task, scope.code_samples(config, model, task.task_id))
        for model in config.models.coder_names
        for task in scope.coder_tasks(config, ctx.tasks, model)
    ]


def code_items(ctx: RunContext, inputs: InputRecords) -> list[CodeJob]:
    """One job per (coder, task, sample)."""
    return code_jobs(ctx)


STAGE = Stage(
    "generate_codes",
    generate_codes,
    code_items,
    "generated_codes",
    lambda r: f"{r.model}|{r.task_id}",
    inputs=Inputs(settings=(*TASK_PARTS, "models.coders", "code_samples_per_task", *MODEL_CALL_PARTS, "template:codegen")),
    produces=(GeneratedCode,),
)
