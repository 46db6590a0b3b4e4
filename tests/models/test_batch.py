"""Batch mode through the real SDKs against the fake server's files and batch endpoints (both APIs' shapes)."""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest

from tests.helpers.fake_llm_server import FakeLLMServer
from tests.models.conftest import make_settings
from tfr_helpers.models import ModelClient, make_request

PROVIDERS = ["openai", "anthropic"]


def _requests(n: int) -> list:
    return [
        make_request(
            "codegen", role="coder", description=f"Task {i}: add two numbers.", entry_point="add", signature="def add(a, b):"
        )
        for i in range(n)
    ]


def _client(server: FakeLLMServer, tmp_path: Path, provider: str, run: str = "run") -> ModelClient:
    settings = make_settings(server, tmp_path).model_copy(update={"batch": {provider: True}, "batch_poll_s": 0.01})
    return ModelClient(settings, run_dir=tmp_path / run)


def _live(server: FakeLLMServer) -> list:
    return [r for r in server.requests if r.path.rstrip("/").endswith(("/messages", "/chat/completions"))]


@pytest.mark.parametrize("provider", PROVIDERS)
def test_one_batch_joined_on_custom_id_with_errored_and_expired_items_called_live(server, tmp_path, provider):
    server.responder = lambda body: "answer to " + re.findall(r"Task \d+", json.dumps(body))[0]
    requests = _requests(5)
    with _client(server, tmp_path, provider) as client:
        replies = client.call_many([(f"{provider}:m1", r) for r in requests], stage="generate_codes", progress=False)
    assert server.batches.created == 1
    assert len(_live(server)) == 2  # the errored and the expired item, nothing else
    assert all(r.text is not None and r.record.error is None for r in replies)
    texts = [r.text for r in replies]  # each answer names its request: the reversed results were joined right
    assert len(set(texts)) == 5
    with _client(server, tmp_path, provider, run="live") as live_client:  # same requests, live, fresh cache
        live_client.settings = live_client.settings.model_copy(update={"batch": {}, "cache_mode": "refresh"})
        live_replies = live_client.call_many([(f"{provider}:m1", r) for r in requests], stage="s", progress=False)
    assert texts == [r.text for r in live_replies]  # same answer to each request, in request order
    batch_costs = sorted(r.record.usage.cost_usd for r in replies)
    live_costs = sorted(r.record.usage.cost_usd for r in live_replies)
    assert batch_costs[:3] == pytest.approx([c / 2 for c in live_costs[:3]])  # three answered at the batch price
    log = [json.loads(line) for line in (tmp_path / "run" / "calls" / "generate_codes.jsonl").read_text().splitlines()]
    assert len(log) == 5 and sum("batch" in (e["response"] or {}) for e in log) == 3
    state = json.loads((tmp_path / "run" / "batches" / "generate_codes.json").read_text())
    assert [v["requests"] for v in state.values()] == [5]


@pytest.mark.parametrize("provider", PROVIDERS)
def test_a_second_run_is_served_by_the_cache_without_a_batch(server, tmp_path, provider):
    requests = _requests(3)
    with _client(server, tmp_path, provider) as client:
        client.call_many([(f"{provider}:m1", r) for r in requests], stage="s", progress=False)
    before = len(server.requests)
    with _client(server, tmp_path, provider, run="again") as client:
        replies = client.call_many([(f"{provider}:m1", r) for r in requests], stage="s", progress=False)
    assert len(server.requests) == before and server.batches.created == 1
    assert all(r.record.cached for r in replies)
