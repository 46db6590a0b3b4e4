"""Batch mode (``model_settings.batch: {openai: true}``): a stage's calls to one model go out as one provider batch.

For each model whose provider has batch mode on, :func:`call_many_batched` sends the calls the response cache
cannot answer as one batch (:mod:`.batch_apis`), with ``custom_id`` = the call's cache key (identical requests go
once). The batch id is written to ``<run>/batches/<stage>.json`` right after creation, keyed by the hash of its
custom_ids, so a run killed while the batch is in flight polls the same batch when rerun instead of paying twice.
Answers are joined on ``custom_id`` and go through the same response cache, accounting (at
:data:`BATCH_PRICE_FACTOR` of the live price), budget and call log as live calls; items that errored, expired or
were canceled (or a batch that could not be created or read) fall back to live calls with the usual retries.
"""

from __future__ import annotations

import asyncio
import hashlib
import json
import logging
import time
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from tfr_helpers.fsutil import atomic_write_text
from tfr_helpers.models.base import ModelRequest, ModelSpec, ProviderReply
from tfr_helpers.models.budget import reservation
from tfr_helpers.models.cache import cache_key, cache_key_components
from tfr_helpers.models.errors import ModelError
from tfr_helpers.models.jobs import ModelReply, call_record
from tfr_helpers.models.sdk.batch_apis import batch_api
from tfr_helpers.records import Usage

log = logging.getLogger(__name__)
BATCH_PRICE_FACTOR = 0.5
"""Both providers bill batch input and output tokens at half the live price."""
FINAL = frozenset({"completed", "failed", "expired", "cancelled", "ended", "read"})
"""Batch statuses after which nothing is left to wait for (``read``: its results were joined)."""


def uses_batch(client: Any, spec: ModelSpec | str) -> bool:
    """Whether calls to ``spec`` go through its provider's Batch API."""
    spec = ModelSpec.parse(spec) if isinstance(spec, str) else spec
    return bool(client.settings.batch.get(spec.provider))


class BatchState:
    """The batch ids of one stage in the run directory (``batches/<stage>.json``: batch key -> id, model, size)."""

    def __init__(self, run_dir: Path | None, stage: str) -> None:
        self.path = Path(run_dir) / "batches" / f"{stage}.json" if run_dir is not None else None

    def _read(self) -> dict[str, Any]:
        if self.path is None or not self.path.is_file():
            return {}
        try:
            return dict(json.loads(self.path.read_text()))
        except ValueError:
            return {}

    def find(self, key: str) -> str | None:
        """The id of the batch already created for this set of requests, if any."""
        entry = self._read().get(key)
        return str(entry["batch_id"]) if entry else None

    def save(self, key: str, batch_id: str, model: str, size: int, status: str = "created") -> None:
        """Remember a batch and its last seen status (atomically)."""
        if self.path is None:
            return
        data = self._read()
        entry = data.get(key) or {"batch_id": batch_id, "model": model, "requests": size, "created": time.time()}
        data[key] = {**entry, "status": status}
        self.path.parent.mkdir(parents=True, exist_ok=True)
        atomic_write_text(self.path, json.dumps(data, indent=2))

    def pending(self) -> list[str]:
        """``<batch id> <status> (<n> requests to <model>)`` of each batch not finished yet (for live progress)."""
        return [
            f"{e['batch_id']} {e.get('status', 'created')} ({e['requests']} requests to {e['model']})"
            for e in self._read().values()
            if e.get("status") not in FINAL
        ]


async def call_many_batched(client: Any, items: Sequence[tuple[ModelSpec | str, ModelRequest]], stage: str) -> list[Any]:
    """Answer ``items`` (order preserved): batch-mode models through batches, the rest and cache hits live."""
    specs = [ModelSpec.parse(s) if isinstance(s, str) else s for s, _ in items]
    groups: dict[str, list[tuple[int, str, dict[str, object]]]] = {}
    live: list[int] = []
    for i, (spec, (_, request)) in enumerate(zip(specs, items, strict=True)):
        provider, _ = client._provider(spec.provider)
        params = client.settings.sampling_for(str(spec)).to_params()
        comps = cache_key_components(spec, request, params, base_url=provider.base_url, api_flavour=provider.api_flavour)
        key = cache_key(comps)
        cached = client.settings.cache_mode == "use" and client._cache.get_with_cost(key) is not None
        if not uses_batch(client, spec) or batch_api(provider) is None or cached or client.settings.cache_mode == "off":
            live.append(i)
        else:
            groups.setdefault(str(spec), []).append((i, key, comps))
    out: list[Any] = [None] * len(items)

    async def one(i: int) -> None:
        out[i] = await client.acall(specs[i], items[i][1], stage)

    async def group(spec: str, entries: list[tuple[int, str, dict[str, object]]]) -> None:
        answered = await _run_batch(client, ModelSpec.parse(spec), entries, items, stage)
        for i, reply in answered.items():
            out[i] = reply
        await asyncio.gather(*(one(i) for i, _, _ in entries if i not in answered))  # errored, expired: live

    await asyncio.gather(*(one(i) for i in live), *(group(s, e) for s, e in groups.items()))
    return out


async def _run_batch(
    client: Any,
    spec: ModelSpec,
    entries: list[tuple[int, str, dict[str, object]]],
    items: Sequence[tuple[Any, ModelRequest]],
    stage: str,
) -> dict[int, Any]:
    """One batch for one model: submit (or find), poll, join; returns the answered items' replies."""
    provider, _ = client._provider(spec.provider)
    api = batch_api(provider)
    params = client.settings.sampling_for(str(spec)).to_params()
    unique: dict[str, ModelRequest] = {key: items[i][1] for i, key, _ in entries}
    bodies = {key: provider.build_body(spec, request, params) for key, request in unique.items()}
    batch_key = hashlib.sha256("\n".join(sorted(unique)).encode()).hexdigest()[:24]
    state = BatchState(client.run_dir, stage)
    started = time.monotonic()
    try:
        client._failfast.check()
        held = _reserve(client, spec, unique, params.max_tokens)
        batch_id = state.find(batch_key)
        if batch_id is None:
            batch_id = await api.submit(provider, [api.line(key, body) for key, body in bodies.items()])  # type: ignore[union-attr]
            state.save(batch_key, batch_id, str(spec), len(unique))
            log.info("%s: batch %s created for %d requests to %s", stage, batch_id, len(unique), spec)
        else:
            log.info("%s: resuming batch %s (%d requests to %s)", stage, batch_id, len(unique), spec)
        seen = ""
        while True:
            status, done = await api.poll(provider, batch_id)  # type: ignore[union-attr]
            if status != seen:  # shown by the live progress of tfr run / tfr stage
                state.save(batch_key, batch_id, str(spec), len(unique), status)
                seen = status
            if done:
                break
            await asyncio.sleep(client.settings.batch_poll_s)
        answers = await api.results(provider, batch_id, bodies)  # type: ignore[union-attr]
        state.save(batch_key, batch_id, str(spec), len(unique), "read")
    except (ModelError, OSError, ValueError) as exc:
        log.warning("%s: the batch for %s failed (%s); its calls go live", stage, spec, exc)
        return {}
    latency, spent = time.monotonic() - started, 0.0
    replies: dict[int, Any] = {}
    for i, key, comps in entries:
        answer = answers.get(key)
        if isinstance(answer, ProviderReply):
            replies[i] = _finish(client, provider, spec, items[i][1], params, key, comps, answer, stage, latency)
            spent += replies[i].record.usage.cost_usd
        else:
            log.info("%s: batch item %s: %s; calling live", stage, key[:12], answer or "missing from the results")
    if client.budget is not None:
        client.budget.settle(held, spent)
    return replies


def _reserve(client: Any, spec: ModelSpec, unique: dict[str, ModelRequest], max_tokens: int) -> float:
    """Reserve the batch's upper-bound cost against the budget (all or nothing)."""
    if client.budget is None:
        return 0.0

    price = client.settings.prices.get(str(spec))
    total = sum(reservation(r, max_tokens, price) for r in unique.values()) * BATCH_PRICE_FACTOR
    return float(client.budget.reserve(total))


def _finish(
    client: Any,
    provider: Any,
    spec: ModelSpec,
    request: ModelRequest,
    params: Any,
    key: str,
    comps: dict[str, object],
    reply: ProviderReply,
    stage: str,
    latency: float,
) -> Any:
    """Cache, account (batch price), log and record one batch answer, as the live path does."""

    cost = client._cost(str(spec), reply) * BATCH_PRICE_FACTOR
    client._cache.put(key, comps, reply, cost)
    record = call_record(
        spec,
        request,
        stage,
        usage=Usage(input_tokens=reply.input_tokens, output_tokens=reply.output_tokens, cost_usd=cost),
        latency_s=round(latency, 4),
        finish_reason=reply.finish_reason,
        truncated=reply.truncated,
    )
    client._write_log(provider, spec, request, params, record, reply, key)
    client.keep(record)
    return ModelReply(text=reply.text, record=record)
