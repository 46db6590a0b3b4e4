"""The providers' Batch APIs through the official SDKs: OpenAI (files + ``/v1/batches``) and Anthropic Message Batches.

Each adapter turns request bodies into the API's batch lines, submits them, polls the batch and reads its results
as ``custom_id -> ProviderReply`` (answered) or ``custom_id -> error text`` (errored, expired, canceled). Results
come in any order; the caller joins them on ``custom_id``.
"""

from __future__ import annotations

import json
from typing import Any, Protocol

from tfr_helpers.models.base import Provider, ProviderReply
from tfr_helpers.models.sdk.anthropic_messages import AnthropicProvider, read_message
from tfr_helpers.models.sdk.openai_chat import OpenAIChatProvider, read_chat_completion

Answers = dict[str, ProviderReply | str]
"""custom_id -> the reply, or why the item has none."""


class BatchAPI(Protocol):
    """What the batch runner needs of one provider's Batch API."""

    def line(self, custom_id: str, body: dict[str, object]) -> dict[str, object]: ...
    async def submit(self, provider: Any, lines: list[dict[str, object]]) -> str: ...
    async def poll(self, provider: Any, batch_id: str) -> tuple[str, bool]: ...
    async def results(self, provider: Any, batch_id: str, bodies: dict[str, dict[str, object]]) -> Answers: ...


class OpenAIBatches:
    """``client.files.create(purpose="batch")`` + ``client.batches.create(endpoint="/v1/chat/completions")``."""

    endpoint = "/v1/chat/completions"
    done = frozenset({"completed", "failed", "expired", "cancelled"})

    def line(self, custom_id: str, body: dict[str, object]) -> dict[str, object]:
        """One JSONL line of the input file."""
        return {"custom_id": custom_id, "method": "POST", "url": self.endpoint, "body": body}

    async def submit(self, provider: Any, lines: list[dict[str, object]]) -> str:
        """Upload the input file and create the batch; returns its id."""
        data = "".join(json.dumps(line) + "\n" for line in lines).encode()
        upload = await provider._client.files.create(file=("batch.jsonl", data, "application/jsonl"), purpose="batch")
        batch = await provider._client.batches.create(
            input_file_id=upload.id, endpoint=self.endpoint, completion_window="24h"
        )
        return str(batch.id)

    async def poll(self, provider: Any, batch_id: str) -> tuple[str, bool]:
        """(status, whether it is final)."""
        batch = await provider._client.batches.retrieve(batch_id)
        return str(batch.status), batch.status in self.done

    async def results(self, provider: Any, batch_id: str, bodies: dict[str, dict[str, object]]) -> Answers:
        """Answers from the output file, errors from the error file."""
        from openai.types.chat import ChatCompletion  # the SDK loads only when a batch API is used

        batch = await provider._client.batches.retrieve(batch_id)
        out: Answers = {}
        for file_id in (batch.output_file_id, batch.error_file_id):
            if not file_id:
                continue
            content = await provider._client.files.content(file_id)
            for raw in content.text.splitlines():
                row = json.loads(raw) if raw.strip() else None
                if not row:
                    continue
                response, cid = row.get("response") or {}, str(row.get("custom_id"))
                if response.get("status_code") != 200:
                    out[cid] = _why(row.get("error") or response.get("body"), f"batch item failed ({batch.status})")
                    continue
                body = response["body"]
                try:
                    text, in_tok, out_tok = read_chat_completion(ChatCompletion.model_validate(body))
                except Exception as exc:  # an answer we cannot read is retried live, like a malformed reply
                    out[cid] = f"unreadable batch answer: {exc}"
                    continue
                finish = (body.get("choices") or [{}])[0].get("finish_reason")
                out[cid] = _reply((text, in_tok, out_tok), body, (batch_id, cid), bodies, finish, "length")
        return out


class AnthropicBatches:
    """``client.messages.batches.create(requests=[{custom_id, params}])``, ``retrieve``, ``results``."""

    def line(self, custom_id: str, body: dict[str, object]) -> dict[str, object]:
        """One request of the batch."""
        return {"custom_id": custom_id, "params": body}

    async def submit(self, provider: Any, lines: list[dict[str, object]]) -> str:
        """Create the batch; returns its id."""
        batch = await provider._client.messages.batches.create(requests=lines)
        return str(batch.id)

    async def poll(self, provider: Any, batch_id: str) -> tuple[str, bool]:
        """(processing status, whether it ended)."""
        batch = await provider._client.messages.batches.retrieve(batch_id)
        return str(batch.processing_status), batch.processing_status == "ended"

    async def results(self, provider: Any, batch_id: str, bodies: dict[str, dict[str, object]]) -> Answers:
        """Answers of the succeeded items; ``errored`` / ``expired`` / ``canceled`` for the others."""

        out: Answers = {}
        async for item in await provider._client.messages.batches.results(batch_id):
            result, cid = item.result, str(item.custom_id)
            if result.type != "succeeded":
                error = getattr(result, "error", None)
                out[cid] = f"batch item {result.type}" + (f": {_why(error.model_dump(), '')}" if error is not None else "")
                continue
            message = result.message
            text, in_tok, out_tok = read_message(message)
            body = message.model_dump(mode="json")
            out[cid] = _reply((text, in_tok, out_tok), body, (batch_id, cid), bodies, message.stop_reason, "max_tokens")
        return out


def _reply(
    read: tuple[str, int, int],
    body: dict[str, Any],
    ids: tuple[str, str],
    bodies: dict[str, dict[str, object]],
    finish: str | None,
    cut: str,
) -> ProviderReply:
    """A batch answer as a reply: the text and usage read by the live path's reader, the batch id in the raw response."""
    text, in_tok, out_tok = read
    return ProviderReply(
        text=text,
        input_tokens=in_tok,
        output_tokens=out_tok,
        raw_response={**body, "batch": {"id": ids[0], "custom_id": ids[1]}},
        raw_request=bodies.get(ids[1], {}),
        finish_reason=finish,
        truncated=finish == cut,
    )


def _why(error: Any, default: str) -> str:
    if isinstance(error, dict):
        inner = error.get("error", error)
        if isinstance(inner, dict):
            return str(inner.get("message") or inner.get("code") or inner.get("type") or default)
    return str(error or default)


def batch_api(provider: Provider) -> BatchAPI | None:
    """The Batch API adapter of a provider, or None when it has none (simulated, replayed, other providers)."""

    if isinstance(provider, OpenAIChatProvider):
        return OpenAIBatches()
    if isinstance(provider, AnthropicProvider):
        return AnthropicBatches()
    return None
