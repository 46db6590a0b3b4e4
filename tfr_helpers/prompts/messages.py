"""The request types a rendered prompt becomes: chat messages and the model request that carries them.

They live beside the templates (not in :mod:`tfr_helpers.models`) so that rendering a prompt never imports the
model layer; :mod:`tfr_helpers.models.base` re-exports both.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Literal

from tfr_helpers.records import Role, Task


@dataclass(frozen=True)
class Message:
    """One chat message."""

    role: Literal["system", "user", "assistant"]
    content: str


@dataclass(frozen=True)
class ModelRequest:
    """Everything that determines a model's answer, plus the context the simulated model needs.

    Attributes:
        messages: The rendered prompt.
        role: What the model is used for.
        template: Prompt template name (``codegen``, ``ebt``, ``pbt``, ``refine``, ``judge``,
            ``judge_reasoning``).
        template_version: Version of that template (part of the cache key).
        sample_index: Index of this sample among identical requests (part of the cache key).
        variables: The template's inputs (task description, code, test, feedback), for the simulated model.
        task: The benchmark task; real providers ignore it, the simulated model reads it.
    """

    messages: tuple[Message, ...]
    role: Role
    template: str
    template_version: str
    sample_index: int = 0
    variables: tuple[tuple[str, str], ...] = ()
    task: Task | None = None

    def var(self, key: str, default: str = "") -> str:
        """Value of one template variable."""
        return dict(self.variables).get(key, default)
