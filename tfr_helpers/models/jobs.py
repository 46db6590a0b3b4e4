"""One model call: the job a stage wants (``CallJob``, with the prompt variables every task gives), the answer
the client returns (``ModelReply``, its record built by :func:`call_record`) and the stage's view of it (``CallResult``)."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from tfr_helpers.models.base import ModelRequest, ModelSpec
from tfr_helpers.records import ModelCallRecord, Role, Task, TaskView


@dataclass(frozen=True)
class CallJob:
    """One model call a stage wants: which model, which template, with which variables."""

    model: str
    role: Role
    template: str
    variables: dict[str, str]
    task: Task | TaskView
    """The request carries only its view (``make_request`` drops the reference and benchmark tests)."""
    sample_index: int = 0


def task_variables(task: Task | TaskView) -> dict[str, str]:
    """The prompt variables every template may take from the task."""
    return {"description": task.description, "entry_point": task.entry_point, "signature": task.signature}


@dataclass(frozen=True)
class CallResult:
    """The text of one answer (None on a provider error) and its call record."""

    text: str | None
    record: ModelCallRecord
    prompt: str
    """The rendered prompt, for the human-readable artifact."""


@dataclass(frozen=True)
class ModelReply:
    """Answer of one call: ``text`` is None when the call failed (``record.error`` says why)."""

    text: str | None
    record: ModelCallRecord


def call_record(spec: ModelSpec, request: ModelRequest, stage: str, **fields: Any) -> ModelCallRecord:
    """The record of one call of ``request`` to ``spec`` (``fields``: cached, error, usage, latency_s, retries...)."""
    return ModelCallRecord(
        model=str(spec),
        role=request.role,
        stage=stage,
        template=request.template,
        template_version=request.template_version,
        **fields,
    )
