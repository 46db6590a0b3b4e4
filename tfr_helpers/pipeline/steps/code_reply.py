"""A model's reply that should hold a program, turned into the fields of a code record.

One function for every stage that asks for code: the generated code (``generate_codes``), the refinements of the
feedback, oracle and control arms (:mod:`.refine`) and the rounds of backprompting. Each saves the call, extracts
the code for the task's entry point, writes the code artifact and explains a reply without code the same way.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from tfr_helpers.models import parse_code
from tfr_helpers.models.jobs import CallResult
from tfr_helpers.pipeline.engine.artifacts import save_call
from tfr_helpers.pipeline.engine.context import RunContext
from tfr_helpers.pipeline.engine.faults import note_truncation
from tfr_helpers.records import ModelCallRecord, Task


@dataclass(frozen=True)
class CodeReply:
    """The code of one reply, with its call record, why there is no code, and where the code was written."""

    code: str | None
    """The program; None when the reply held no usable code."""
    parse_error: str | None
    """Why there is no code (None when there is)."""
    call: ModelCallRecord
    code_path: str | None
    """The code artifact's run-relative path (None: no code, or not written here)."""

    def fields(self) -> dict[str, Any]:
        """The fields every code record shares (``code``, ``parse_error``, ``call``, ``code_path``)."""
        return {"code": self.code, "parse_error": self.parse_error, "call": self.call, "code_path": self.code_path}


def code_reply(
    ctx: RunContext,
    model: str,
    task: Task,
    result: CallResult,
    call_name: str,
    code_artifact: str | None,
    *,
    durable: bool = True,
    unparsed: Callable[[str], str | None] | None = None,
) -> CodeReply:
    """Save the call under ``call_name``, extract the code and write it as ``code_artifact``.

    Args:
        ctx: The run context.
        model: The coder whose directory holds the artifacts.
        task: The task (its entry point guides the extraction).
        result: The call (it got a reply).
        call_name: The call's artifact stem (``codegen``, ``refine_ebt_0``...).
        code_artifact: The code's artifact name under ``<model>/<task>/`` (None: the caller writes it later).
        durable: Passed to the code artifact's write.
        unparsed: The program kept when the reply holds no extractable code (a replayed sample is kept as
            published); None: no program.

    Returns:
        The reply's code fields; ``parse_error`` names a truncated reply as such.
    """
    call = save_call(ctx, model, task.task_id, call_name, result)
    parsed = parse_code(result.text or "", task.entry_point)
    code = parsed.code
    if code is None and unparsed is not None:
        code = unparsed(result.text or "")
    path = ctx.store.artifact(model, task.task_id, code_artifact, code, durable) if code and code_artifact else None
    error = None if code else note_truncation(parsed.error or "no code in the response", call)
    return CodeReply(code, error, call, path)
