"""Our retry policy: backoff bounds, retry-after parsing and clamping, attempts and deadline."""

from __future__ import annotations

import asyncio
import random

import pytest

from tfr_helpers.models.errors import BadRequest, ProviderUnavailable, RateLimited, Timeout
from tfr_helpers.models.retry import backoff_s, call_with_retries, wait_before_retry
from tfr_helpers.models.sdk.sdk_errors import parse_retry_after
from tfr_helpers.models.settings import RetryPolicy


def test_backoff_is_exponential_capped_and_jittered_down():
    policy = RetryPolicy(backoff_base_s=1, backoff_max_s=8, jitter=0.25)
    rng = random.Random(0)
    for retry, raw in enumerate([1, 2, 4, 8, 8]):
        wait = backoff_s(policy, retry, rng)
        assert 0.75 * raw <= wait <= raw


def test_retry_after_parsing_prefers_ms_and_rejects_nonsense():
    assert parse_retry_after({"retry-after-ms": "250", "retry-after": "9"}) == pytest.approx(0.25)
    assert parse_retry_after({"retry-after": "1.5"}) == 1.5
    assert parse_retry_after({"retry-after": "Wed, 21 Oct 2015 07:28:00 GMT"}) is None  # in the past
    assert parse_retry_after({"retry-after": "-3"}) is None and parse_retry_after({}) is None


def test_retry_after_is_clamped():
    policy = RetryPolicy(retry_after_max_s=5)
    assert wait_before_retry(policy, RateLimited("x", retry_after_s=3600), 0) == 5


def _flaky(errors):
    calls = []

    async def attempt():
        calls.append(1)
        if errors:
            raise errors.pop(0)
        return "ok"

    return attempt, calls


FAST = dict(backoff_base_s=0.001, backoff_max_s=0.002)


def test_retryable_errors_are_retried_until_success():
    attempt, calls = _flaky([RateLimited("a"), ProviderUnavailable("b")])
    assert asyncio.run(call_with_retries(attempt, RetryPolicy(max_attempts=3, **FAST))) == ("ok", 2)


def test_exhausted_attempts_raise_the_last_error_with_retry_count():
    attempt, calls = _flaky([ProviderUnavailable("a")] * 5)
    with pytest.raises(ProviderUnavailable) as info:
        asyncio.run(call_with_retries(attempt, RetryPolicy(max_attempts=3, **FAST)))
    assert len(calls) == 3 and info.value.retries == 2


def test_non_retryable_errors_are_not_retried():
    attempt, calls = _flaky([BadRequest("bad"), RateLimited("x", retryable=False)])
    with pytest.raises(BadRequest):
        asyncio.run(call_with_retries(attempt, RetryPolicy(**FAST)))
    with pytest.raises(RateLimited):  # x-should-retry: false
        asyncio.run(call_with_retries(attempt, RetryPolicy(**FAST)))
    assert len(calls) == 2


def test_a_wait_beyond_the_deadline_gives_up_at_once():
    attempt, calls = _flaky([RateLimited("x", retry_after_s=30)])
    with pytest.raises(RateLimited):
        asyncio.run(call_with_retries(attempt, RetryPolicy(deadline_s=1, retry_after_max_s=60)))
    assert len(calls) == 1


def test_the_deadline_cuts_a_hanging_attempt():
    async def hang():
        await asyncio.sleep(30)

    with pytest.raises(Timeout, match="deadline"):
        asyncio.run(call_with_retries(hang, RetryPolicy(deadline_s=0.05)))
