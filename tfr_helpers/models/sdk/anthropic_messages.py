"""Anthropic Messages API provider (2.x: temperature/top_p/seed are unsupported: recorded, never sent)."""

from __future__ import annotations

from typing import Any

from tfr_helpers.models.base import ModelRequest, ModelSpec, Provider, ProviderReply, SamplingParams
from tfr_helpers.models.credentials import resolve_credentials
from tfr_helpers.models.errors import MalformedResponse
from tfr_helpers.models.sdk.openai_chat import _dump
from tfr_helpers.models.sdk.sdk_errors import normalise_sdk_error
from tfr_helpers.models.settings import ModelSettings

UNSUPPORTED = ("temperature", "top_p", "seed")
"""Sampling parameters the Messages API of anthropic 2.x rejects."""


def read_message(resp: Any) -> tuple[str, int, int]:
    """Text (all text blocks joined) and usage of a Message, validating what we read.

    Raises:
        MalformedResponse: A field is missing or has the wrong type.
    """
    try:
        blocks = [b for b in resp.content if getattr(b, "type", None) == "text"]
        texts = [b.text for b in blocks]
        usage = resp.usage
        in_tok = (usage.input_tokens or 0) + (getattr(usage, "cache_read_input_tokens", 0) or 0)
        in_tok += getattr(usage, "cache_creation_input_tokens", 0) or 0
        out_tok = usage.output_tokens or 0
    except (AttributeError, TypeError, KeyError) as exc:
        raise MalformedResponse(f"message lacks content[].text or usage ({exc})") from exc
    if not blocks or not all(isinstance(t, str) for t in texts):
        raise MalformedResponse("message has no text content block")
    if not isinstance(in_tok, int) or not isinstance(out_tok, int):
        raise MalformedResponse("message usage is not integer token counts")
    return "".join(texts), in_tok, out_tok


class AnthropicProvider(Provider):
    """``anthropic:<model>`` through ``AsyncAnthropic().messages.create`` (``max_retries=0``; we retry)."""

    api_flavour = "messages"

    def __init__(self, settings: ModelSettings) -> None:
        import anthropic  # the SDKs load only when a live provider is used
        import httpx2

        creds = resolve_credentials("anthropic", settings)
        self.base_url = creds.base_url
        # An explicit timeout also skips the SDK's "streaming is required" guard for large max_tokens.
        self._timeout = httpx2.Timeout(settings.retry.read_timeout_s, connect=settings.retry.connect_timeout_s)
        self._client = anthropic.AsyncAnthropic(
            api_key=creds.api_key, base_url=creds.base_url, timeout=self._timeout, max_retries=0
        )

    def build_body(self, spec: ModelSpec, request: ModelRequest, params: SamplingParams) -> dict[str, object]:
        """The request body (system messages joined into ``system``; no credentials)."""
        system = "\n\n".join(m.content for m in request.messages if m.role == "system")
        body: dict[str, object] = {
            "model": spec.name,
            "max_tokens": params.max_tokens,
            "messages": [{"role": m.role, "content": m.content} for m in request.messages if m.role != "system"],
        }
        if system:
            body["system"] = system
        return body

    async def generate(self, spec: ModelSpec, request: ModelRequest, params: SamplingParams) -> ProviderReply:
        """One Messages call; SDK failures are raised as our error types."""
        body = self.build_body(spec, request, params)
        unsupported = tuple(n for n in UNSUPPORTED if getattr(params, n) is not None)
        try:
            resp = await self._client.messages.create(**body, timeout=self._timeout)  # type: ignore[call-overload]
        except Exception as exc:
            err = normalise_sdk_error(exc)
            if err is None:
                raise
            raise err from exc
        text, in_tok, out_tok = read_message(resp)
        stop = getattr(resp, "stop_reason", None)
        stop = stop if isinstance(stop, str) else None
        return ProviderReply(
            text=text,
            input_tokens=in_tok,
            output_tokens=out_tok,
            raw_response=_dump(resp),
            raw_request=body,
            unsupported_params=unsupported,
            finish_reason=stop,
            truncated=stop == "max_tokens",
        )

    async def aclose(self) -> None:
        """Close the HTTP client."""
        await self._client.close()
