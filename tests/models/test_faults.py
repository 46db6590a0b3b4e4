"""Faults through the real SDKs and the fake server: fail fast, truncation, honest counts, cached usage."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from tests.helpers.fake_llm_server import Action, FakeLLMServer
from tests.models.conftest import FAKE_KEY, make_settings
from tfr_helpers.models import ModelClient, make_request
from tfr_helpers.models.calllog import count_calls

PROVIDERS = ["openai", "anthropic", "openai-compatible"]


def _request(i: int = 0):
    return make_request(
        "codegen",
        role="coder",
        sample_index=i,
        description="Add two numbers.",
        entry_point="add",
        signature="def add(a, b):",
    )


def _client(server: FakeLLMServer, tmp_path: Path, **retry: float) -> ModelClient:
    return ModelClient(make_settings(server, tmp_path, **retry), run_dir=tmp_path / "run")


@pytest.mark.parametrize("provider", PROVIDERS)
def test_wrong_key_stops_the_client_after_the_first_401(tmp_path, provider):
    # a generous connect timeout: under load a 2 s connect could fail and be retried, and a retry refused by the
    # stop is a sent call (it is logged) whose request the server never saw
    with (
        FakeLLMServer(api_key="sk-the-right-key-0000") as server,
        _client(server, tmp_path, connect_timeout_s=30.0) as client,
    ):
        replies = client.call_many([(f"{provider}:m1", _request(i)) for i in range(12)], stage="s", progress=False)
        assert all(r.text is None for r in replies)
        # in-flight calls finish, no further call is sent: at most one request per concurrency slot
        assert 1 <= len(server.requests) <= client.settings.concurrency_for(provider)
        stop = client.stop
        assert stop is not None
        message = stop.message
        counts = client.call_counts()
    env = {"openai": "OPENAI_API_KEY", "anthropic": "ANTHROPIC_API_KEY"}.get(provider, "OPENAI_COMPATIBLE_API_KEY")
    assert env in message and f"{provider}:m1" in message and "Incorrect API key provided" in message
    assert FAKE_KEY not in message and "\n" not in message
    assert counts.sent == len(server.requests) and counts.failed == counts.sent
    assert counts.not_sent == 12 - counts.sent and counts.cached == 0
    not_sent = [r for r in replies if r.record.error.startswith("NotSent")]
    assert len(not_sent) == counts.not_sent
    logged = (tmp_path / "run" / "calls" / "s.jsonl").read_text().splitlines()
    assert len(logged) == counts.sent  # failed attempts are logged; refused calls never left the process


@pytest.mark.parametrize(
    "action,error,words",
    [
        (Action("status", status=404), "ModelNotFound", "does not know the model"),
        (Action("status", status=403), "AuthError", "rejected the API key"),
        (Action("status", status=402), "QuotaExhausted", "quota"),
    ],
)
def test_other_fatal_replies_stop_the_client(server, tmp_path, action, error, words):
    server.push(action)
    with _client(server, tmp_path) as client:
        first = client.call("openai:m1", _request(0), stage="s")
        second = client.call("openai:m1", _request(1), stage="s")
        assert first.record.error.startswith(error) and second.record.error.startswith("NotSent")
        assert len(server.requests) == 1 and words in client.stop.message
        assert "OPENAI_API_KEY" in client.stop.message


def test_insufficient_quota_429_is_fatal_but_a_plain_429_is_retried(server, tmp_path):
    with _client(server, tmp_path) as client:
        server.push(Action("status", status=429))  # the fake server's 429 body has no insufficient_quota code: retried
        assert client.call("openai:m1", _request(0), stage="s").text is not None and client.stop is None
    from tfr_helpers.models.sdk.sdk_errors import _status_error

    err = _status_error(429, "HTTP 429", None, {"error": {"code": "insufficient_quota", "message": "You exceeded"}})
    assert type(err).__name__ == "QuotaExhausted" and err.fatal and not err.retryable


@pytest.mark.parametrize("provider", PROVIDERS)
def test_truncated_reply_is_recorded_with_its_finish_reason(server, tmp_path, provider):
    server.push(Action("ok", text="def add(a, b):\n    return a +", finish="length"), Action("ok"))
    with _client(server, tmp_path) as client:
        cut = client.call(f"{provider}:m1", _request(0), stage="s")
        whole = client.call(f"{provider}:m1", _request(1), stage="s")
        again = client.call(f"{provider}:m1", _request(0), stage="s")  # from the cache: still truncated
    expected = "max_tokens" if provider == "anthropic" else "length"
    assert cut.record.truncated and cut.record.finish_reason == expected
    assert not whole.record.truncated and whole.record.finish_reason in ("stop", "end_turn")
    assert again.record.cached and again.record.truncated and again.record.finish_reason == expected
    lines = [json.loads(x) for x in (tmp_path / "run" / "calls" / "s.jsonl").read_text().splitlines()]
    assert [line["truncated"] for line in lines] == [True, False, True]


def test_counts_separate_sent_cached_failed_and_retries(server, tmp_path):
    server.push(Action("status", status=500), Action("ok"), *[Action("status", status=503)] * 3)
    with _client(server, tmp_path) as client:
        client.call("openai:m1", _request(0), stage="s")  # 1 retry, then ok
        client.call("openai:m1", _request(1), stage="s")  # 3 attempts, fails
        client.call("openai:m1", _request(0), stage="s")  # cache
        counts = client.call_counts()
        first_cost = client.records[0].usage.cost_usd
        recounted = count_calls(r.model_dump(mode="json") for r in client.records)
    assert counts == recounted  # the running counts equal a recount of the records
    assert (counts.sent, counts.cached, counts.failed, counts.retries) == (2, 1, 1, 3)
    assert counts.spent_usd == pytest.approx(first_cost) and first_cost > 0
    assert len(server.requests) == 5


def test_a_call_refused_after_a_failed_attempt_counts_as_sent():
    refused = {"error": "NotSent: not sent: the run stopped", "retries": 0}
    after_attempt = {"error": "NotSent: not sent: the run stopped", "retries": 1}
    counts = count_calls([refused, after_attempt])
    assert (counts.sent, counts.failed, counts.not_sent, counts.retries) == (1, 1, 1, 1)


def test_cached_reply_keeps_the_original_usage_and_cost_across_clients(server, tmp_path):
    with _client(server, tmp_path) as client:
        original = client.call("openai-compatible:m1", _request(), stage="s").record
    with _client(server, tmp_path) as rerun:
        cached = rerun.call("openai-compatible:m1", _request(), stage="s").record
        counts = rerun.call_counts()
    assert cached.cached and cached.usage == original.usage and original.usage.cost_usd > 0
    assert counts.sent == 0 and counts.cached == 1 and counts.spent_usd == 0
    assert len(server.requests) == 1


@pytest.mark.parametrize(
    "status,body,kind",
    [
        (429, {"error": {"code": "insufficient_quota", "message": "You exceeded your current quota"}}, "QuotaExhausted"),
        (
            400,
            {"type": "error", "error": {"type": "invalid_request_error", "message": "Your credit balance is too low"}},
            "QuotaExhausted",
        ),
        (404, {"error": {"code": "model_not_found", "message": "The model `m9` does not exist"}}, "ModelNotFound"),
        (429, {"error": {"code": "rate_limit_exceeded", "message": "Rate limit reached"}}, "RateLimited"),
        (400, {"error": {"code": "context_length_exceeded", "message": "too long"}}, "BadRequest"),
    ],
)
def test_error_bodies_decide_between_fatal_and_retryable(status, body, kind):
    from tfr_helpers.models.sdk.sdk_errors import _status_error

    err = _status_error(status, f"HTTP {status}", None, body)
    assert type(err).__name__ == kind
    assert err.fatal == (kind in ("QuotaExhausted", "ModelNotFound")) and err.retryable == (kind == "RateLimited")


def test_a_key_echoed_by_the_provider_never_reaches_the_record(server, tmp_path):
    server.push(Action("status", status=400, text=f"bad request for key {FAKE_KEY}"))  # some gateways do
    with _client(server, tmp_path) as client:
        reply = client.call("openai:m1", _request(), stage="s")
    assert reply.record.error.startswith("BadRequest") and FAKE_KEY not in reply.record.error
    assert "bad request for key ***" in reply.record.error
