"""tfr_helpers.models: providers, the call layer (cache, retries, accounting), prompts, parsing.

Usage::

    settings = ModelSettings(concurrency={"openai": 8}, prices={"openai:gpt-5-mini": Price(...)})
    check_credentials(["openai:gpt-5-mini"], settings)          # CredentialsError before any work
    request = make_request("codegen", role="coder", task=task, **variables)  # description, entry_point...
    with ModelClient(settings, run_dir) as client:              # run_dir/calls/<stage>.jsonl gets every call
        replies = client.call_many([("openai:gpt-5-mini", request)], stage="generate_codes")
    replies[0].text, replies[0].record.error                    # text None + "RateLimited: ..." on failure
    parse_code(replies[0].text, task.entry_point)

Providers: ``openai`` and ``openai-compatible`` (Chat Completions), ``anthropic`` (Messages; temperature,
top_p and seed are recorded as unsupported and never sent), ``sim`` (offline; bypasses the response cache).
Keys only from the environment or ``.env``: OPENAI_API_KEY, ANTHROPIC_API_KEY, OPENAI_COMPATIBLE_API_KEY
(default ``EMPTY``); base URLs from settings or OPENAI_BASE_URL, ANTHROPIC_BASE_URL,
OPENAI_COMPATIBLE_BASE_URL.
"""

from tfr_helpers.models.base import (
    Message,
    ModelRequest,
    ModelSpec,
    Provider,
    ProviderReply,
    SamplingParams,
)
from tfr_helpers.models.cache import ResponseCache, cache_key, cache_key_components, diff_key_components
from tfr_helpers.models.client import ModelClient
from tfr_helpers.models.credentials import check_credentials
from tfr_helpers.models.errors import (
    AuthError,
    BadRequest,
    MalformedResponse,
    ModelError,
    ProviderUnavailable,
    RateLimited,
    Timeout,
)
from tfr_helpers.models.jobs import ModelReply
from tfr_helpers.models.parse import (
    ParsedCode,
    ParsedDecision,
    ParsedTest,
    ParsedTests,
    parse_code,
    parse_decision,
    parse_tests,
)
from tfr_helpers.models.provider_builder import make_provider
from tfr_helpers.models.provider_table import PROVIDERS, is_replayed, is_simulated, known_providers, register_provider
from tfr_helpers.models.settings import CacheMode, ModelSettings, Price, RetryPolicy, SamplingSettings
from tfr_helpers.prompts import make_request, render_prompt, template_versions, templates


def __getattr__(name: str) -> object:
    """``TEMPLATES`` and ``TEMPLATE_VERSIONS`` (``prompts.templates``, ``prompts.template_versions``), on first use:
    the templates include each arm's own, read off the arms' registry, whose arms import this package."""
    if name == "TEMPLATES":
        return templates()
    if name == "TEMPLATE_VERSIONS":
        return template_versions()
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")


__all__ = [
    "PROVIDERS",
    "AuthError",
    "BadRequest",
    "CacheMode",
    "MalformedResponse",
    "Message",
    "ModelClient",
    "ModelError",
    "ModelReply",
    "ModelRequest",
    "ModelSettings",
    "ModelSpec",
    "ParsedCode",
    "ParsedDecision",
    "ParsedTest",
    "ParsedTests",
    "Price",
    "Provider",
    "ProviderReply",
    "ProviderUnavailable",
    "RateLimited",
    "ResponseCache",
    "RetryPolicy",
    "SamplingParams",
    "SamplingSettings",
    "Timeout",
    "cache_key",
    "cache_key_components",
    "check_credentials",
    "diff_key_components",
    "is_replayed",
    "is_simulated",
    "known_providers",
    "make_provider",
    "make_request",
    "parse_code",
    "parse_decision",
    "parse_tests",
    "register_provider",
    "render_prompt",
]
