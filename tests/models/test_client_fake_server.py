"""Acceptance: the real openai / anthropic SDKs through ModelClient against the fake server on 127.0.0.1."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from tests.helpers.fake_llm_server import Action, FakeLLMServer
from tests.models.conftest import FAKE_KEY, make_settings
from tfr_helpers.models import ModelClient, make_request

PROVIDERS = ["openai", "anthropic", "openai-compatible"]


def _request(sample_index: int = 0, description: str = "Add two numbers."):
    return make_request(
        "codegen",
        role="coder",
        sample_index=sample_index,
        description=description,
        entry_point="add",
        signature="def add(a, b):",
    )


def _client(server: FakeLLMServer, tmp_path: Path, **retry: float) -> ModelClient:
    return ModelClient(make_settings(server, tmp_path, **retry), run_dir=tmp_path / "run")


def _log_lines(tmp_path: Path, stage: str = "s") -> list[dict]:
    path = tmp_path / "run" / "calls" / f"{stage}.jsonl"
    return [json.loads(line) for line in path.read_text().splitlines()]


@pytest.mark.parametrize("provider", PROVIDERS)
def test_normal_answer_records_usage_cost_and_log(server, tmp_path, provider):
    with _client(server, tmp_path) as client:
        reply = client.call(f"{provider}:m1", _request(), stage="s")
    assert reply.text == server.default_text
    rec = reply.record
    assert rec.error is None and not rec.cached and rec.model == f"{provider}:m1" and rec.role == "coder"
    assert rec.usage.input_tokens > 0 and rec.usage.output_tokens > 0
    expected_cost = (rec.usage.input_tokens * 1.0 + rec.usage.output_tokens * 2.0) / 1e6
    assert rec.usage.cost_usd == pytest.approx(expected_cost)
    (req,) = server.requests
    assert req.path.endswith("/messages" if provider == "anthropic" else "/chat/completions")
    assert req.headers.get("authorization") == f"Bearer {FAKE_KEY}"
    assert req.headers.get("x-stainless-retry-count") == "0"
    (line,) = _log_lines(tmp_path)
    assert line["text"] == server.default_text and line["retries"] == 0 and line["cached"] is False
    assert line["request"]["model"] == "m1" and line["response"]
    if provider == "anthropic":
        assert "temperature" not in req.body and "seed" not in req.body and "top_p" not in req.body
        assert set(line["unsupported_params"]) == {"temperature", "seed"}
        assert req.body["system"]
    else:
        assert req.body["temperature"] == 0.7 and req.body["seed"] == 3
        assert line["unsupported_params"] == []


@pytest.mark.parametrize("provider", PROVIDERS)
def test_429_retry_after_is_honoured(server, tmp_path, provider):
    server.push(Action("status", status=429, headers={"retry-after": "0.4"}))
    with _client(server, tmp_path) as client:
        reply = client.call(f"{provider}:m1", _request(), stage="s")
    assert reply.text == server.default_text and reply.record.error is None
    first, second = server.requests
    assert second.time - first.time >= 0.35  # backoff alone would be <= 0.05 s
    assert second.headers.get("x-stainless-retry-count") == "0"  # the SDK does not retry; we do
    assert _log_lines(tmp_path)[0]["retries"] == 1


@pytest.mark.parametrize("provider", PROVIDERS)
def test_retry_after_is_clamped(server, tmp_path, provider):
    server.push(Action("status", status=503, headers={"retry-after": "3600"}))
    with _client(server, tmp_path, retry_after_max_s=0.1) as client:
        reply = client.call(f"{provider}:m1", _request(), stage="s")
    assert reply.record.error is None and len(server.requests) == 2
    assert server.requests[1].time - server.requests[0].time < 2


@pytest.mark.parametrize("provider", PROVIDERS)
def test_500_twice_then_success(server, tmp_path, provider):
    server.push(Action("status", status=500), Action("status", status=529 if provider == "anthropic" else 502))
    with _client(server, tmp_path) as client:
        reply = client.call(f"{provider}:m1", _request(), stage="s")
    assert reply.text == server.default_text and len(server.requests) == 3
    assert _log_lines(tmp_path)[0]["retries"] == 2


@pytest.mark.parametrize("provider", PROVIDERS)
def test_retries_exhausted_is_recorded_and_the_batch_goes_on(server, tmp_path, provider):
    server.push(*[Action("status", status=503)] * 6, *[Action("status", status=429)] * 3)
    with _client(server, tmp_path) as client:
        replies = client.call_many(
            [(f"{provider}:m1", _request(0)), (f"{provider}:m1", _request(1))], stage="s", progress=False
        )
        assert [r.text for r in replies] == [None, None]
        assert all(r.record.error.startswith("ProviderUnavailable: HTTP 503") for r in replies)
        assert len(server.requests) == 6
        limited = client.call(f"{provider}:m1", _request(2), stage="s")
        assert limited.text is None and limited.record.error.startswith("RateLimited: HTTP 429")
        later = client.call(f"{provider}:m1", _request(0), stage="s")
        assert later.text == server.default_text and not later.record.cached  # errors are not cached
        (totals,) = client.call_totals()
    assert totals.calls == 4 and totals.errors == 3 and totals.cached == 0
    assert [line["retries"] for line in _log_lines(tmp_path)][:3] == [2, 2, 2]


@pytest.mark.parametrize("provider", PROVIDERS)
@pytest.mark.parametrize("status,error", [(400, "BadRequest"), (401, "AuthError"), (404, "ModelNotFound")])
def test_client_errors_are_never_retried(server, tmp_path, provider, status, error):
    server.push(Action("status", status=status))
    with _client(server, tmp_path) as client:
        reply = client.call(f"{provider}:m1", _request(), stage="s")
    assert reply.text is None and reply.record.error.startswith(error + ":")
    assert len(server.requests) == 1


@pytest.mark.parametrize("provider", PROVIDERS)
def test_slow_response_beyond_the_read_timeout(server, tmp_path, provider):
    server.push(Action("slow", delay=2.0))
    with _client(server, tmp_path, read_timeout_s=0.3, max_attempts=1) as client:
        reply = client.call(f"{provider}:m1", _request(), stage="s")
    assert reply.text is None and reply.record.error.startswith("Timeout:")
    assert reply.record.latency_s < 1.5


@pytest.mark.parametrize("provider", PROVIDERS)
def test_slow_response_beyond_the_call_deadline(server, tmp_path, provider):
    server.push(Action("slow", delay=2.0))
    with _client(server, tmp_path, read_timeout_s=30, deadline_s=0.4) as client:
        reply = client.call(f"{provider}:m1", _request(), stage="s")
    assert reply.text is None and reply.record.error.startswith("Timeout:") and "deadline" in reply.record.error
    assert reply.record.latency_s < 1.5


@pytest.mark.parametrize("provider", PROVIDERS)
@pytest.mark.parametrize("kind", ["malformed", "wrongshape"])
def test_bad_body_is_a_malformed_response(server, tmp_path, provider, kind):
    server.push(Action(kind))
    with _client(server, tmp_path) as client:
        reply = client.call(f"{provider}:m1", _request(), stage="s")
    assert reply.text is None and reply.record.error.startswith("MalformedResponse:")


@pytest.mark.parametrize("provider", PROVIDERS)
def test_second_identical_call_is_answered_from_the_cache(server, tmp_path, provider):
    with _client(server, tmp_path) as client:
        first = client.call(f"{provider}:m1", _request(), stage="s")
        second = client.call(f"{provider}:m1", _request(), stage="s")
        assert len(server.requests) == 1
        assert second.text == first.text and second.record.cached
        assert second.record.usage == first.record.usage and first.record.usage.cost_usd > 0  # original usage
        other = client.call(f"{provider}:m1", _request(sample_index=1), stage="s")
        assert not other.record.cached and len(server.requests) == 2
    # a new client (a rerun) on the same cache dir makes no request either
    with _client(server, tmp_path) as rerun:
        assert rerun.call(f"{provider}:m1", _request(), stage="s").record.cached
    assert len(server.requests) == 2


@pytest.mark.parametrize("provider", PROVIDERS)
def test_concurrency_never_exceeds_the_limit(server, tmp_path, provider):
    settings = make_settings(server, tmp_path).model_copy(update={"concurrency": {provider: 2}})
    server.push(*[Action("ok", delay=0.2)] * 6)
    with ModelClient(settings, run_dir=tmp_path / "run") as client:
        replies = client.call_many([(f"{provider}:m1", _request(i)) for i in range(6)], stage="s", progress=False)
    assert all(r.text == server.default_text for r in replies)
    assert len(server.requests) == 6 and server.max_in_flight == 2


def test_no_key_in_any_file_under_run_dir_or_cache(server, tmp_path):
    server.push(Action("status", status=500), Action("malformed"))
    with _client(server, tmp_path) as client:
        for provider in PROVIDERS:
            for i in range(3):
                client.call(f"{provider}:m1", _request(i), stage="s")
        server.push(Action("status", status=401))  # last: a 401 stops the client (fail fast)
        assert client.call("openai:m1", _request(7), stage="s").record.error.startswith("AuthError")
    assert all(r.headers.get("authorization") == f"Bearer {FAKE_KEY}" for r in server.requests)
    files = [p for p in tmp_path.rglob("*") if p.is_file()]
    assert any("cache" in p.parts for p in files) and any("calls" in p.parts for p in files)
    for path in files:
        data = path.read_bytes()
        assert FAKE_KEY.encode() not in data, path
        assert b"Bearer" not in data and b"authorization" not in data.lower(), path
