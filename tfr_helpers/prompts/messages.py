"""The request types a rendered prompt becomes: chat messages and the model request that carries them.

They live beside the templates (not in :mod:`tfr_helpers.models`) so that rendering a prompt never imports the
model layer; :mod:`tfr_helpers.models.base` re-exports both.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Literal

from tfr_helpers.records import Role, TaskView, require_view


@dataclass(frozen=True)
class Message:
    """One chat message."""

    role: Literal["system", "user", "assistant"]
    content: str


@dataclass(frozen=True)
class ModelRequest:
    """Everything that determines a model's answer, plus the public facts of its task.

    A request never carries the reference solution or the benchmark tests: :attr:`task` is a
    :class:`~tfr_helpers.records.TaskView`, which has no field for them (a full ``Task`` is refused, by mypy
    and at construction). Only the simulated model, which declares ``needs_reference``, resolves the full
    task, through a lookup the model client grants it (see :class:`tfr_helpers.models.base.Provider`).

    Attributes:
        messages: The rendered prompt.
        role: What the model is used for.
        template: Prompt template name (``codegen``, ``ebt``, ``pbt``, ``refine``, ``judge``,
            ``judge_reasoning``).
        template_version: Version of that template (part of the cache key).
        sample_index: Index of this sample among identical requests (part of the cache key).
        variables: The template's inputs (task description, code, test, feedback), for the simulated model.
        task: What the model may know of the benchmark task (id, description, entry point, signature...).
    """

    messages: tuple[Message, ...]
    role: Role
    template: str
    template_version: str
    sample_index: int = 0
    variables: tuple[tuple[str, str], ...] = ()
    task: TaskView | None = None

    def __post_init__(self) -> None:
        require_view(self.task, "ModelRequest")

    def var(self, key: str, default: str = "") -> str:
        """Value of one template variable."""
        return dict(self.variables).get(key, default)
