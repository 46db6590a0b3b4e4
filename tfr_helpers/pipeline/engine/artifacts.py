"""Human-readable artifacts of model calls (prompt and response markdown next to the task's records)."""

from __future__ import annotations

from tfr_helpers.models.jobs import CallResult
from tfr_helpers.models.provider_table import is_simulated
from tfr_helpers.pipeline.config import scope
from tfr_helpers.pipeline.engine.context import RunContext
from tfr_helpers.records import ModelCallRecord


def save_call(ctx: RunContext, model: str, task_id: str, name: str, result: CallResult) -> ModelCallRecord:
    """Write ``prompt_<name>.md`` and ``response_<name>.md``; returns the call record pointing at them.

    Args:
        ctx: The run context.
        model: Coder model whose directory holds the artifacts.
        task_id: Task whose directory holds the artifacts.
        name: Artifact stem (``codegen``, ``ebt``, ``refine_<i>``...).
        result: The call.
    """
    record = result.record
    durable = not scope.compact_artifacts(ctx.config, model)
    prompt_path = ctx.store.artifact(model, task_id, f"prompt_{name}.md", result.prompt, durable)
    body = result.text if result.text is not None else f"(no response: {record.error})"
    head = f"<!-- model: {record.model}{' (simulated)' if is_simulated(record.model) else ''} -->\n\n"
    response_path = ctx.store.artifact(model, task_id, f"response_{name}.md", head + body, durable)
    return record.model_copy(
        update={
            "prompt_path": record.prompt_path or prompt_path,
            "response_path": record.response_path or response_path,
        }
    )
