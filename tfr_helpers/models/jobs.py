"""A model call a stage wants (``CallJob``), its answer (``CallResult``) and the prompt variables every task gives."""

from __future__ import annotations

from dataclasses import dataclass

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
