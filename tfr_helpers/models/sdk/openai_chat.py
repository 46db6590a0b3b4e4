"""OpenAI Chat Completions provider, also for OpenAI-compatible servers (vLLM, Ollama, DeepSeek...)."""

from __future__ import annotations

from typing import Any

from tfr_helpers.models.base import ModelRequest, ModelSpec, Provider, ProviderReply, SamplingParams
from tfr_helpers.models.credentials import resolve_credentials
from tfr_helpers.models.errors import MalformedResponse
from tfr_helpers.models.sdk.sdk_errors import normalise_sdk_error
from tfr_helpers.models.settings import ModelSettings


def _dump(obj: Any) -> dict[str, object]:
    try:
        dumped = obj.model_dump(mode="json", warnings=False)
        return dumped if isinstance(dumped, dict) else {"value": repr(obj)}
    except Exception:  # noqa: BLE001 - a raw dump is best effort; validation happens on the fields we read
        return {"unparsed": repr(obj)[:2000]}


def read_chat_completion(resp: Any) -> tuple[str, int, int]:
    """Text and usage of a ChatCompletion, validating every field we read.

    Raises:
        MalformedResponse: A field is missing or has the wrong type.
    """
    try:
        content = resp.choices[0].message.content
        usage = resp.usage
        in_tok = usage.prompt_tokens if usage is not None else 0
        out_tok = usage.completion_tokens if usage is not None else 0
    except (AttributeError, IndexError, TypeError, KeyError) as exc:
        raise MalformedResponse(f"chat completion lacks choices[0].message.content ({exc})") from exc
    if not isinstance(content, str):
        raise MalformedResponse(f"chat completion content is {type(content).__name__}, not text")
    if not isinstance(in_tok, int) or not isinstance(out_tok, int):
        raise MalformedResponse("chat completion usage is not integer token counts")
    return content, in_tok, out_tok


class OpenAIChatProvider(Provider):
    """``openai:<model>`` through ``AsyncOpenAI().chat.completions.create`` (``max_retries=0``; we retry)."""

    provider_name = "openai"
    api_flavour = "chat.completions"
    max_tokens_field = "max_completion_tokens"

    def __init__(self, settings: ModelSettings) -> None:
        import httpx2  # the SDKs load only when a live provider is used
        import openai

        creds = resolve_credentials(self.provider_name, settings)
        self.base_url = creds.base_url
        timeout = httpx2.Timeout(settings.retry.read_timeout_s, connect=settings.retry.connect_timeout_s)
        self._client = openai.AsyncOpenAI(api_key=creds.api_key, base_url=creds.base_url, timeout=timeout, max_retries=0)

    def build_body(self, spec: ModelSpec, request: ModelRequest, params: SamplingParams) -> dict[str, object]:
        """The request body (no credentials)."""
        body: dict[str, object] = {
            "model": spec.name,
            "messages": [{"role": m.role, "content": m.content} for m in request.messages],
            self.max_tokens_field: params.max_tokens,
        }
        for name in ("temperature", "top_p", "seed"):
            value = getattr(params, name)
            if value is not None:
                body[name] = value
        return body

    async def generate(self, spec: ModelSpec, request: ModelRequest, params: SamplingParams) -> ProviderReply:
        """One Chat Completions call; SDK failures are raised as our error types."""
        body = self.build_body(spec, request, params)
        try:
            resp = await self._client.chat.completions.create(**body)  # type: ignore[call-overload]
        except Exception as exc:
            err = normalise_sdk_error(exc)
            if err is None:
                raise
            raise err from exc
        text, in_tok, out_tok = read_chat_completion(resp)
        finish = getattr(resp.choices[0], "finish_reason", None)
        finish = finish if isinstance(finish, str) else None
        return ProviderReply(
            text=text,
            input_tokens=in_tok,
            output_tokens=out_tok,
            raw_response=_dump(resp),
            raw_request=body,
            finish_reason=finish,
            truncated=finish == "length",
        )

    async def aclose(self) -> None:
        """Close the HTTP client."""
        await self._client.close()


class OpenAICompatibleProvider(OpenAIChatProvider):
    """``openai-compatible:<model>``: the OpenAI SDK at a configured base URL (key defaults to ``EMPTY``)."""

    provider_name = "openai-compatible"
    max_tokens_field = "max_tokens"
