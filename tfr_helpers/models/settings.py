"""Configuration of the model layer (embedded in the experiment configuration as ``models``)."""

from __future__ import annotations

from pathlib import Path
from typing import Literal

import platformdirs
from pydantic import BaseModel, ConfigDict, Field

from tfr_helpers.launch import env_path
from tfr_helpers.models.base import SamplingParams

CacheMode = Literal["use", "refresh", "off"]
"""``use``: read and write the cache; ``refresh``: ignore hits but write; ``off``: neither."""


class _Settings(BaseModel):
    model_config = ConfigDict(frozen=True, extra="forbid")


class RetryPolicy(_Settings):
    """How failed calls are retried (our own policy; the SDKs run with ``max_retries=0``)."""

    max_attempts: int = Field(default=5, ge=1)
    """Attempts per call, the first one included."""
    backoff_base_s: float = Field(default=1.0, ge=0)
    """Wait before the first retry; doubled on every further retry."""
    backoff_max_s: float = Field(default=30.0, ge=0)
    """Cap of the exponential backoff."""
    jitter: float = Field(default=0.25, ge=0, le=1)
    """The backoff is multiplied by a uniform factor in ``[1 - jitter, 1]``."""
    retry_after_max_s: float = Field(default=60.0, ge=0)
    """Server ``retry-after`` values are clamped to this many seconds."""
    deadline_s: float = Field(default=600.0, gt=0)
    """Overall deadline of one call, all attempts and waits included."""
    read_timeout_s: float = Field(default=120.0, gt=0)
    """Per socket-read timeout given to the SDK (it is not a deadline; see ``deadline_s``)."""
    connect_timeout_s: float = Field(default=10.0, gt=0)
    """Connection timeout given to the SDK."""


class SamplingSettings(_Settings):
    """Sampling parameters of one model; providers record those they do not support and never send them."""

    temperature: float | None = 0.0
    """Sampling temperature (unsupported by Anthropic 2.x)."""
    max_tokens: int = Field(default=2048, gt=0)
    """Maximum output tokens."""
    seed: int | None = None
    """Sampling seed where the provider supports it (OpenAI Chat Completions, vLLM)."""
    top_p: float | None = None
    """Nucleus sampling (unsupported by Anthropic 2.x)."""

    def to_params(self) -> SamplingParams:
        """The provider-facing form."""
        return SamplingParams(temperature=self.temperature, max_tokens=self.max_tokens, seed=self.seed, top_p=self.top_p)


class Price(_Settings):
    """Price of one model in USD per million tokens."""

    input_per_mtok: float = Field(ge=0)
    """USD per 1M input tokens."""
    output_per_mtok: float = Field(ge=0)
    """USD per 1M output tokens."""


def default_cache_dir() -> Path:
    """``$TFR_CACHE_DIR`` or ``<user cache dir>/tfr/responses``."""
    env = env_path("TFR_CACHE_DIR")
    return env if env is not None else Path(platformdirs.user_cache_dir("tfr")) / "responses"


class ModelSettings(_Settings):
    """Everything the call layer needs besides credentials (only from the environment or ``.env``)."""

    concurrency: dict[str, int] = Field(
        default_factory=lambda: {"openai": 8, "anthropic": 4, "openai-compatible": 8, "sim": 64}
    )
    """Maximum in-flight calls per provider name; providers not listed get ``default_concurrency``."""
    default_concurrency: int = Field(default=4, ge=1)
    """Concurrency limit of providers absent from ``concurrency``."""
    retry: RetryPolicy = Field(default_factory=RetryPolicy)
    """Retry, backoff, timeout and deadline policy."""
    sampling: SamplingSettings = Field(default_factory=SamplingSettings)
    """Default sampling parameters."""
    sampling_per_model: dict[str, SamplingSettings] = Field(default_factory=dict)
    """Overrides keyed by ``provider:model``."""
    prices: dict[str, Price] = Field(default_factory=dict)
    """Price table keyed by ``provider:model``; unlisted models cost 0 (logged once)."""
    cache_dir: Path | None = None
    """Response cache directory; None means :func:`default_cache_dir`."""
    cache_mode: CacheMode = "use"
    """Response cache mode."""
    base_urls: dict[str, str] = Field(default_factory=dict)
    """Base URL per provider (``openai-compatible`` needs one here or in ``OPENAI_COMPATIBLE_BASE_URL``)."""
    provider_options: dict[str, dict[str, object]] = Field(default_factory=dict)
    """Extra options per provider; ``provider_options["sim"]`` goes to ``SimProvider(**options)``."""
    batch: dict[str, bool] = Field(default_factory=dict)
    """Providers whose calls go through their Batch API, e.g. ``{openai: true}`` (half price, up to 24 h)."""
    batch_poll_s: float = Field(default=30.0, gt=0)
    """Seconds between two polls of a batch's status."""

    def sampling_for(self, model: str) -> SamplingSettings:
        """Sampling settings of one ``provider:model``."""
        return self.sampling_per_model.get(model, self.sampling)

    def concurrency_for(self, provider: str) -> int:
        """Concurrency limit of one provider."""
        return max(1, self.concurrency.get(provider, self.default_concurrency))

    def resolved_cache_dir(self) -> Path:
        """The cache directory in use."""
        return self.cache_dir if self.cache_dir is not None else default_cache_dir()
