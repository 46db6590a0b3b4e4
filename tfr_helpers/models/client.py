"""The one call layer: cache, per-provider concurrency, retries, accounting and the run's call log."""

from __future__ import annotations

import asyncio
import dataclasses
import logging
import threading
import time
import uuid
from collections.abc import Coroutine, Sequence
from pathlib import Path
from typing import Any, TypeVar

from tqdm.auto import tqdm

from tfr_helpers.models.base import (
    ModelRequest,
    ModelSpec,
    Provider,
    ProviderReply,
    SamplingParams,
    TaskLookup,
    VerdictLookup,
)
from tfr_helpers.models.batch import call_many_batched, uses_batch
from tfr_helpers.models.budget import Budget, reservation
from tfr_helpers.models.cache import ResponseCache, cache_key, cache_key_components
from tfr_helpers.models.calllog import CallCounts, CallLog, count_calls, count_one, read_call_log, scrub
from tfr_helpers.models.errors import ModelError, NotSent
from tfr_helpers.models.failfast import FailFast, Stop
from tfr_helpers.models.jobs import ModelReply, call_record
from tfr_helpers.models.provider_builder import make_provider
from tfr_helpers.models.provider_table import is_replayed, is_simulated
from tfr_helpers.models.retry import call_with_retries
from tfr_helpers.models.settings import ModelSettings
from tfr_helpers.records import CallTotals, ModelCallRecord, Usage

T = TypeVar("T")
log = logging.getLogger(__name__)
_COUNTED = {"cached", "error", "retries", "usage"}
"""The record fields :func:`~tfr_helpers.models.calllog.count_one` reads."""


class _BackgroundLoop:
    """An event loop on a daemon thread, so the sync facade works inside Jupyter's running loop."""

    def __init__(self) -> None:
        self.loop = asyncio.new_event_loop()
        self.thread = threading.Thread(target=self.loop.run_forever, name="tfr-models", daemon=True)
        self.thread.start()

    def run(self, coro: Coroutine[Any, Any, T]) -> T:
        return asyncio.run_coroutine_threadsafe(coro, self.loop).result()

    def stop(self) -> None:
        self.loop.call_soon_threadsafe(self.loop.stop)
        self.thread.join(timeout=5)
        self.loop.close()


class ModelClient:
    """Calls models through cache, concurrency limits, retries and accounting; never raises provider errors.

    Args:
        settings: Model settings (defaults when None).
        run_dir: Run directory; when given every call is appended to ``run_dir/calls/<stage>.jsonl``.
        tasks: Privileged lookup of full tasks, granted only to providers that declare ``needs_reference``
            (the simulated model); every other provider sees only the request's task view.
        budget_usd: A spending cap for the run (:mod:`.budget`): a call that could pass it is not sent and
            stops the client like a fatal reply; spending already logged in ``run_dir`` counts against it.
        verdicts: Privileged lookup of the reference's measured verdict on a test (``(reference, test source)
            -> passed``, None when not measured), granted with ``tasks``: the simulated judge's ground truth.

    The simulated provider bypasses the response cache (it is deterministic and free, and caching it would
    hide changes to the simulator); so do replayed generations (``replayed``: read from files whose content the
    cache key does not hold); their calls are still logged and counted.

    Fail fast: after the first reply that retries cannot fix (wrong key, unknown model, exhausted quota) the
    client sends nothing more; later calls come back with a ``NotSent`` error and :attr:`stop` says why.
    """

    def __init__(
        self,
        settings: ModelSettings | None = None,
        run_dir: Path | None = None,
        tasks: TaskLookup | None = None,
        budget_usd: float | None = None,
        verdicts: VerdictLookup | None = None,
    ) -> None:
        self.settings = settings or ModelSettings()
        self._tasks = tasks
        self._verdicts = verdicts
        self.run_dir = Path(run_dir) if run_dir is not None else None
        self._log = CallLog(self.run_dir) if self.run_dir is not None else None
        self._cache = ResponseCache(self.settings.resolved_cache_dir())
        self._providers: dict[tuple[int, str], Provider] = {}
        self._semaphores: dict[tuple[int, str], asyncio.Semaphore] = {}
        self._records: list[ModelCallRecord] = []
        self._counts = CallCounts()  # of _records, summed unrounded as they come (the progress reads it every second)
        self._lock = threading.Lock()
        self._bg: _BackgroundLoop | None = None
        self._unpriced: set[str] = set()
        self._failfast = FailFast()
        spent = count_calls(read_call_log(self.run_dir)).spent_usd if self.run_dir is not None else 0.0
        self.budget = Budget(budget_usd, spent) if budget_usd is not None else None
        """The spending cap (``budget_usd``; see :mod:`.budget`), or None."""

    # -- per-event-loop resources ----------------------------------------------------------------------
    def _provider(self, name: str) -> tuple[Provider, asyncio.Semaphore]:
        key = (id(asyncio.get_running_loop()), name)
        with self._lock:
            if key not in self._providers:
                self._providers[key] = make_provider(name, self.settings)
                if self._providers[key].needs_reference and self._tasks is not None:
                    self._providers[key].grant_tasks(self._tasks)  # the simulated model only
                    if self._verdicts is not None:
                        self._providers[key].grant_verdicts(self._verdicts)
                self._semaphores[key] = asyncio.Semaphore(self.settings.concurrency_for(name))
            return self._providers[key], self._semaphores[key]

    @property
    def stop(self) -> Stop | None:
        """Why this client stopped calling (the first fatal reply), or None."""
        return self._failfast.stop

    def _cost(self, model: str, reply: ProviderReply) -> float:
        price = self.settings.prices.get(model)
        if price is None:
            if model not in self._unpriced and not is_simulated(model) and not is_replayed(model):
                self._unpriced.add(model)
                log.warning("no price for %s in models.prices; its cost is counted as 0", model)
            return 0.0
        return (reply.input_tokens * price.input_per_mtok + reply.output_tokens * price.output_per_mtok) / 1e6

    # -- the call --------------------------------------------------------------------------------------
    async def acall(self, spec: ModelSpec | str, request: ModelRequest, stage: str) -> ModelReply:
        """Answer one request (async).

        Args:
            spec: ``ModelSpec`` or ``provider:model``.
            request: The rendered prompt and its cache-relevant metadata.
            stage: Pipeline stage making the call (accounting and log file name).

        Returns:
            The reply; provider failures land in ``reply.record.error`` with ``text=None``.

        Raises:
            ConfigError: Unknown provider. CredentialsError: a key is missing.
        """
        spec = ModelSpec.parse(spec) if isinstance(spec, str) else spec
        provider, semaphore = self._provider(spec.provider)
        params = self.settings.sampling_for(str(spec)).to_params()
        components = cache_key_components(
            spec, request, params, base_url=provider.base_url, api_flavour=provider.api_flavour
        )
        key = cache_key(components)
        use_cache = not provider.simulated and not provider.replayed and self.settings.cache_mode != "off"
        started = time.monotonic()
        reply, error, retries, cached, cost = None, None, 0, False, None
        if use_cache and self.settings.cache_mode == "use":
            hit = self._cache.get_with_cost(key)
            if hit is not None:
                (reply, cost), cached = hit, True
        if reply is None:

            async def attempt() -> ProviderReply:
                async with semaphore:
                    self._failfast.check()
                    if self.budget is None:
                        return await provider.generate(spec, request, params)
                    price = self.settings.prices.get(str(spec))
                    held = self.budget.reserve(reservation(request, params.max_tokens, price))
                    answer: ProviderReply | None = None
                    try:
                        answer = await provider.generate(spec, request, params)
                        return answer
                    finally:
                        self.budget.settle(held, self._cost(str(spec), answer) if answer is not None else 0.0)

            try:
                reply, retries = await call_with_retries(attempt, self.settings.retry)
            except ModelError as err:
                error, retries = err, getattr(err, "retries", 0)
                self._failfast.observe(spec, err)
            if reply is not None:
                cost = self._cost(str(spec), reply)
                if use_cache:
                    self._cache.put(key, components, reply, cost)
        latency = time.monotonic() - started
        usage = Usage()
        if reply is not None:
            # a cache hit keeps the original call's usage and cost (entries without a cost are priced now)
            usage = Usage(
                input_tokens=reply.input_tokens,
                output_tokens=reply.output_tokens,
                cost_usd=cost if cost is not None else self._cost(str(spec), reply),
            )
        record = call_record(
            spec,
            request,
            stage,
            cached=cached,
            error=scrub(error.describe()) if error is not None else None,  # a provider may echo the key
            usage=usage,
            latency_s=round(latency, 4),
            retries=retries,
            finish_reason=reply.finish_reason if reply is not None else None,
            truncated=reply.truncated if reply is not None else False,
        )
        if not isinstance(error, NotSent) or retries > 0:  # a call refused before any request is not logged
            self._write_log(provider, spec, request, params, record, reply, key)
        self.keep(record)
        return ModelReply(text=reply.text if reply is not None else None, record=record)

    def _write_log(
        self,
        provider: Provider,
        spec: ModelSpec,
        request: ModelRequest,
        params: SamplingParams,
        record: ModelCallRecord,
        reply: ProviderReply | None,
        key: str,
    ) -> None:
        if self._log is None:
            return
        build = getattr(provider, "build_body", None)
        body = (reply.raw_request if reply is not None and reply.raw_request else None) or (
            build(spec, request, params)
            if build
            else {"messages": [dataclasses.asdict(m) for m in request.messages], **dataclasses.asdict(params)}
        )
        entry = {
            "call_id": uuid.uuid4().hex,
            "time": time.time(),
            **record.model_dump(mode="json"),
            "sample_index": request.sample_index,
            "task_id": request.task.task_id if request.task is not None else None,
            "cache_key": key,
            "base_url": provider.base_url,
            "api_flavour": provider.api_flavour,
            "unsupported_params": list(reply.unsupported_params) if reply is not None else [],
            "request": body,
            "response": reply.raw_response if reply is not None else None,
            "text": reply.text if reply is not None else None,
        }
        self._log.append(record.stage, entry)

    # -- sync facade -----------------------------------------------------------------------------------
    def _run(self, coro: Coroutine[Any, Any, T]) -> T:
        if self._bg is None:
            with self._lock:
                if self._bg is None:
                    self._bg = _BackgroundLoop()
        return self._bg.run(coro)

    def call(self, spec: ModelSpec | str, request: ModelRequest, stage: str) -> ModelReply:
        """Sync :meth:`acall`; runs on a background loop, so it also works inside a running event loop."""
        return self._run(self.acall(spec, request, stage))

    def call_many(
        self,
        items: Sequence[tuple[ModelSpec | str, ModelRequest]],
        stage: str,
        progress: bool = True,
    ) -> list[ModelReply]:
        """Answer many requests concurrently (limited per provider); order preserved, progress with tqdm.

        Models whose provider has batch mode on (``settings.batch``) are answered through one provider batch per
        model (:mod:`.batch`), the rest live.
        """

        if any(uses_batch(self, spec) for spec, _ in items):
            return self._run(call_many_batched(self, items, stage))

        async def run_all() -> list[ModelReply]:
            with tqdm(total=len(items), desc=stage, disable=not progress) as bar:

                async def one(spec: ModelSpec | str, request: ModelRequest) -> ModelReply:
                    reply = await self.acall(spec, request, stage)
                    bar.update(1)
                    return reply

                return list(await asyncio.gather(*(one(s, r) for s, r in items)))

        return self._run(run_all())

    # -- accounting and lifecycle ----------------------------------------------------------------------
    @property
    def records(self) -> list[ModelCallRecord]:
        """Every call record made through this client, in completion order."""
        with self._lock:
            return list(self._records)

    def keep(self, record: ModelCallRecord) -> None:
        """Add a finished call's record (and its counts)."""
        counts = count_one(record.model_dump(mode="json", include=_COUNTED))
        with self._lock:
            self._records.append(record)
            self._counts = self._counts + counts

    def call_counts(self) -> CallCounts:
        """Calls sent, served from the cache, failed, refused after a stop, retries and cost spent now."""
        with self._lock:
            return self._counts.rounded()

    def call_totals(self) -> list[CallTotals]:
        """Calls, cache hits, errors, tokens and cost per (model, role, stage), sorted."""
        groups: dict[tuple[str, str, str], list[ModelCallRecord]] = {}
        for rec in self.records:
            groups.setdefault((rec.model, rec.role, rec.stage), []).append(rec)
        return [
            CallTotals(
                model=model,
                role=role,  # type: ignore[arg-type]
                stage=stage,
                calls=len(recs),
                cached=sum(r.cached for r in recs),
                errors=sum(r.error is not None for r in recs),
                input_tokens=sum(r.usage.input_tokens for r in recs),
                output_tokens=sum(r.usage.output_tokens for r in recs),
                cost_usd=round(sum(r.usage.cost_usd for r in recs), 6),
            )
            for (model, role, stage), recs in sorted(groups.items())
        ]

    async def aclose(self) -> None:
        """Close the providers created on the current event loop."""
        loop_id = id(asyncio.get_running_loop())
        with self._lock:
            mine = [k for k in self._providers if k[0] == loop_id]
            providers = [self._providers.pop(k) for k in mine]
            for k in mine:
                self._semaphores.pop(k, None)
        for p in providers:
            await p.aclose()

    def close(self) -> None:
        """Close the background loop's providers and stop its thread."""
        if self._bg is not None:
            self._bg.run(self.aclose())
            self._bg.stop()
            self._bg = None

    def __enter__(self) -> ModelClient:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()
