"""Stage 1, generate_codes: one code sample per coder model and task."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from tfr_helpers.pipeline._artifacts import save_call
from tfr_helpers.pipeline.context import CallJob, RunContext, task_variables
from tfr_helpers.pipeline.stages import Stage, StageRecords, register_stage
from tfr_helpers.pipeline.undone import Undone, call_fault, note_truncation
from tfr_helpers.records import GeneratedCode, Task


@dataclass(frozen=True)
class CodeJob:
    """Generate code for ``task`` with coder ``model``."""

    model: str
    task: Task

    @property
    def key(self) -> str:
        """Checkpoint key."""
        return f"{self.model}|{self.task.task_id}"


def generate_codes(items: Sequence[CodeJob], ctx: RunContext) -> list[GeneratedCode | Undone]:
    """Ask each coder for a solution and extract the code (a response without code is kept as such).

    Args:
        items: One job per (coder model, task).
        ctx: The run context.

    Returns:
        One :class:`GeneratedCode` per job, in order, or :class:`Undone` when the call got no reply.
    """
    from tfr_helpers.models import parse_code

    jobs = [CallJob(item.model, "coder", "codegen", task_variables(item.task), item.task) for item in items]
    out: list[GeneratedCode | Undone] = []
    for item, result in zip(items, ctx.call_models(jobs, stage="generate_codes"), strict=True):
        fault = call_fault(result)
        if fault is not None:
            out.append(Undone(item.key, fault))
            continue
        task_id = item.task.task_id
        call = save_call(ctx, item.model, task_id, "codegen", result)
        parsed = parse_code(result.text or "", item.task.entry_point)
        code_path = ctx.store.artifact(item.model, task_id, "code.py", parsed.code) if parsed.code else None
        out.append(
            GeneratedCode(
                model=item.model,
                task_id=task_id,
                code=parsed.code,
                parse_error=None if parsed.code else note_truncation(parsed.error or "no code in the response", call),
                call=call,
                code_path=code_path,
            )
        )
    return out


def code_items(ctx: RunContext, records: StageRecords) -> list[CodeJob]:
    """One job per (coder, task, sample)."""
    from tfr_helpers.pipeline import inputs  # local: inputs imports this module's job type

    return inputs.code_jobs(ctx)


register_stage(
    Stage("generate_codes", 10, generate_codes, code_items, "generated_codes", lambda r: f"{r.model}|{r.task_id}")
)
