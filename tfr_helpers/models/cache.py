"""Persistent response cache: one JSON file per key, written atomically; errors are never cached.

An entry keeps the reply with the token usage, cost and finish reason of the call that produced it, so a run
rebuilt from the cache reports the original usage and cost (and, separately, that nothing was spent now).

The key is the sha256 of canonical JSON of everything that determines an answer (provider, base URL,
model, API flavour, messages, every sampling parameter, template name and version, sample index, cache
schema version) and nothing about transport (keys, timeouts, retries).
"""

from __future__ import annotations

import dataclasses
import hashlib
import json
import logging
from pathlib import Path

from tfr_helpers.fsutil import atomic_write_text
from tfr_helpers.models.base import ModelRequest, ModelSpec, ProviderReply, SamplingParams

CACHE_SCHEMA_VERSION = 1
log = logging.getLogger(__name__)


def cache_key_components(
    spec: ModelSpec,
    request: ModelRequest,
    params: SamplingParams,
    *,
    base_url: str | None,
    api_flavour: str,
) -> dict[str, object]:
    """Everything the cache key is made of, as a JSON-ready dict (print it to see why two keys differ)."""
    return {
        "cache_schema": CACHE_SCHEMA_VERSION,
        "provider": spec.provider,
        "base_url": (base_url or "").rstrip("/"),
        "model": spec.name,
        "api_flavour": api_flavour,
        "messages": [{"role": m.role, "content": m.content} for m in request.messages],
        "sampling": dataclasses.asdict(params),
        "template": request.template,
        "template_version": request.template_version,
        "sample_index": request.sample_index,
    }


def cache_key(components: dict[str, object]) -> str:
    """sha256 hex digest of the canonical JSON of the components."""
    canonical = json.dumps(components, sort_keys=True, separators=(",", ":"), ensure_ascii=False)
    return hashlib.sha256(canonical.encode("utf-8")).hexdigest()


def diff_key_components(a: dict[str, object], b: dict[str, object]) -> list[str]:
    """Human-readable reasons why two component dicts give different keys (empty when equal)."""
    return [f"{name}: {a.get(name)!r} != {b.get(name)!r}" for name in sorted(set(a) | set(b)) if a.get(name) != b.get(name)]


class ResponseCache:
    """Directory of cached successful replies, ``<dir>/<key[:2]>/<key>.json``."""

    def __init__(self, directory: Path) -> None:
        self.directory = Path(directory)

    def _path(self, key: str) -> Path:
        return self.directory / key[:2] / f"{key}.json"

    def get(self, key: str) -> ProviderReply | None:
        """The cached reply, or None (a corrupt entry is logged and treated as a miss)."""
        hit = self.get_with_cost(key)
        return hit[0] if hit is not None else None

    def get_with_cost(self, key: str) -> tuple[ProviderReply, float | None] | None:
        """The cached reply and the cost in USD of the call that produced it (None for entries without one)."""
        path = self._path(key)
        if not path.is_file():
            return None
        try:
            data = json.loads(path.read_text(encoding="utf-8"))
            if data.get("version") != CACHE_SCHEMA_VERSION:
                return None
            reply = ProviderReply(
                text=data["text"],
                input_tokens=data.get("input_tokens", 0),
                output_tokens=data.get("output_tokens", 0),
                raw_response=data.get("raw_response", {}),
                unsupported_params=tuple(data.get("unsupported_params", ())),
                finish_reason=data.get("finish_reason"),
                truncated=bool(data.get("truncated", False)),
            )
            cost = data.get("cost_usd")
            return reply, float(cost) if cost is not None else None
        except (OSError, ValueError, KeyError, TypeError) as exc:
            log.warning("ignoring corrupt cache entry %s: %s", path, exc)
            return None

    def put(self, key: str, components: dict[str, object], reply: ProviderReply, cost_usd: float | None = None) -> None:
        """Store a successful reply with its original usage and cost, atomically (``fsutil.atomic_write_text``)."""
        path = self._path(key)
        path.parent.mkdir(parents=True, exist_ok=True)
        data = {
            "version": CACHE_SCHEMA_VERSION,
            "key": key,
            "components": components,
            "text": reply.text,
            "input_tokens": reply.input_tokens,
            "output_tokens": reply.output_tokens,
            "cost_usd": cost_usd,
            "finish_reason": reply.finish_reason,
            "truncated": reply.truncated,
            "unsupported_params": list(reply.unsupported_params),
            "raw_response": reply.raw_response,
        }
        atomic_write_text(path, json.dumps(data, ensure_ascii=False))
