"""The provider interface every model backend implements (real SDKs and the simulated model alike)."""

from __future__ import annotations

from abc import ABC, abstractmethod
from collections.abc import Callable
from dataclasses import dataclass, field

from tfr_helpers.errors import ConfigError
from tfr_helpers.fsutil import path_name
from tfr_helpers.models.provider_table import known_providers
from tfr_helpers.prompts.messages import Message, ModelRequest
from tfr_helpers.records import Task

__all__ = [
    "Message",
    "ModelRequest",
    "ModelSpec",
    "Provider",
    "ProviderReply",
    "SamplingParams",
    "TaskLookup",
    "VerdictLookup",
]

TaskLookup = Callable[[str], Task]
"""Privileged: task id -> the full task, reference solution and benchmark tests included (raises KeyError)."""
VerdictLookup = Callable[[str, str], "bool | None"]
"""``(reference, test source) -> whether the reference passed that test`` as the study measured it (None: not
measured): granted with the task lookup, to the simulated judge only (its ground truth)."""


def model_dirname(spec: str) -> str:
    """Directory name of a model in a run directory (``sim:default`` -> ``sim_default``)."""
    return path_name(spec.replace(":", "_"))


@dataclass(frozen=True)
class ModelSpec:
    """A model addressed as ``provider:model`` (``openai:gpt-5-mini``, ``sim:default``)."""

    provider: str
    name: str

    @classmethod
    def parse(cls, spec: str) -> "ModelSpec":
        """Parse ``provider:model``; raises ConfigError naming the known providers."""

        known = known_providers()
        provider, sep, name = spec.partition(":")
        if not sep or not name or provider not in known:
            raise ConfigError(f"model {spec!r} is not 'provider:model' with provider one of {', '.join(known)}")
        return cls(provider, name)

    def __str__(self) -> str:
        return f"{self.provider}:{self.name}"

    @property
    def dirname(self) -> str:
        """Directory name of this model in a run directory (``sim_default``)."""
        return model_dirname(str(self))


@dataclass(frozen=True)
class SamplingParams:
    """Sampling settings from configuration; providers drop and record what they do not support."""

    temperature: float | None = 0.0
    max_tokens: int = 2048
    seed: int | None = None
    top_p: float | None = None


@dataclass(frozen=True)
class ProviderReply:
    """What a provider returns for one request."""

    text: str
    input_tokens: int = 0
    output_tokens: int = 0
    raw_response: dict[str, object] = field(default_factory=dict)
    unsupported_params: tuple[str, ...] = ()
    raw_request: dict[str, object] = field(default_factory=dict)
    """The request body as sent (never any key or header), for the run directory's call log."""
    finish_reason: str | None = None
    """Why generation stopped, as the provider says it (OpenAI ``finish_reason``, Anthropic ``stop_reason``)."""
    truncated: bool = False
    """The reply was cut at ``max_tokens`` (``finish_reason == "length"`` / ``stop_reason == "max_tokens"``)."""


class Provider(ABC):
    """A model backend. One abstract method; errors are raised as ``tfr_helpers.models`` error types.

    A provider sees only its :class:`ModelRequest`: the rendered messages and ``request.task``, a
    :class:`~tfr_helpers.records.TaskView` without the reference solution and the benchmark tests.
    """

    simulated: bool = False
    replayed: bool = False
    """Replies are recorded generations read from files (the ``replay`` provider): free, never cached, unpriced."""
    needs_reference: bool = False
    """Declared only by a provider built from the reference and the benchmark tests (the simulated model).
    The model client grants such a provider the full tasks through :meth:`grant_tasks`, and no other."""
    api_flavour: str = ""
    """Which API the provider speaks (``chat.completions``, ``messages``...); part of the cache key."""
    base_url: str | None = None
    """Where requests go; part of the cache key (None for local/simulated providers)."""

    def grant_tasks(self, lookup: TaskLookup) -> None:
        """Receive the privileged full-task lookup (the client calls this only when :attr:`needs_reference`).

        Raises:
            TypeError: This provider does not declare :attr:`needs_reference`.
        """
        raise TypeError(f"{type(self).__name__} does not declare needs_reference; it gets no full tasks")

    def grant_verdicts(self, lookup: VerdictLookup) -> None:  # noqa: B027 - optional hook, deliberately not abstract
        """Receive the study's measured reference verdicts (granted with the tasks, to ``needs_reference``
        providers only); a provider that has no use for them ignores them (the default)."""

    async def aclose(self) -> None:  # noqa: B027 - optional hook, deliberately not abstract
        """Release network clients (no-op by default)."""

    @abstractmethod
    async def generate(self, spec: ModelSpec, request: ModelRequest, params: SamplingParams) -> ProviderReply:
        """Answer one request."""
