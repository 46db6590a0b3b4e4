"""The provider interface every model backend implements (real SDKs and the simulated model alike)."""

from __future__ import annotations

from abc import ABC, abstractmethod
from dataclasses import dataclass, field
from typing import Literal

from tfr_helpers.errors import ConfigError
from tfr_helpers.records import Role, Task

PROVIDERS = ("openai", "anthropic", "openai-compatible", "sim")


@dataclass(frozen=True)
class ModelSpec:
    """A model addressed as ``provider:model`` (``openai:gpt-5-mini``, ``sim:default``)."""

    provider: str
    name: str

    @classmethod
    def parse(cls, spec: str) -> "ModelSpec":
        """Parse ``provider:model``; raises ConfigError naming the known providers."""
        from tfr_helpers.models.registry import known_providers

        known = list(PROVIDERS) + [p for p in known_providers() if p not in PROVIDERS]
        provider, sep, name = spec.partition(":")
        if not sep or not name or provider not in known:
            raise ConfigError(
                f"model {spec!r} is not 'provider:model' with provider one of {', '.join(known)}"
            )
        return cls(provider, name)

    def __str__(self) -> str:
        return f"{self.provider}:{self.name}"

    @property
    def dirname(self) -> str:
        """Directory name of this model in a run directory (``sim_default``)."""
        return str(self).replace(":", "_").replace("/", "_")


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


class Provider(ABC):
    """A model backend. One abstract method; errors are raised as ``tfr_helpers.models`` error types."""

    simulated: bool = False
    api_flavour: str = ""
    """Which API the provider speaks (``chat.completions``, ``messages``...); part of the cache key."""
    base_url: str | None = None
    """Where requests go; part of the cache key (None for local/simulated providers)."""

    async def aclose(self) -> None:  # noqa: B027 - optional hook, deliberately not abstract
        """Release network clients (no-op by default)."""

    @abstractmethod
    async def generate(self, spec: ModelSpec, request: ModelRequest, params: SamplingParams) -> ProviderReply:
        """Answer one request."""
