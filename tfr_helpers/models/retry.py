"""Our retry policy, the same for every SDK: capped exponential backoff, jitter, clamped retry-after."""

from __future__ import annotations

import asyncio
import logging
import random
import time
from collections.abc import Awaitable, Callable
from typing import TypeVar

from tfr_helpers.models.errors import ModelError, Timeout
from tfr_helpers.models.settings import RetryPolicy

T = TypeVar("T")
log = logging.getLogger(__name__)


def backoff_s(policy: RetryPolicy, retry: int, rng: random.Random | None = None) -> float:
    """Wait before retry ``retry`` (0-based) without a server hint: ``min(base*2^k, max)`` times jitter."""
    raw = min(policy.backoff_base_s * (2**retry), policy.backoff_max_s)
    factor = 1 - policy.jitter * (rng or random).random()
    return raw * factor


def wait_before_retry(policy: RetryPolicy, error: ModelError, retry: int) -> float:
    """Server ``retry-after`` clamped to ``retry_after_max_s`` when present, else :func:`backoff_s`."""
    if error.retry_after_s is not None:
        return min(error.retry_after_s, policy.retry_after_max_s)
    return backoff_s(policy, retry)


async def call_with_retries(attempt: Callable[[], Awaitable[T]], policy: RetryPolicy) -> tuple[T, int]:
    """Run ``attempt`` until it succeeds, fails non-retryably, runs out of attempts or passes the deadline.

    Args:
        attempt: Coroutine factory making one try; raises :class:`ModelError` on provider failures.
        policy: Attempts, backoff and deadline.

    Returns:
        The result and the number of retries made (0 when the first attempt succeeded).

    Raises:
        ModelError: The last error, with ``retries`` attribute set; :class:`Timeout` when the deadline passed.
    """
    start = time.monotonic()
    retries = 0
    try:
        async with asyncio.timeout(policy.deadline_s):
            while True:
                try:
                    return await attempt(), retries
                except ModelError as err:
                    err.retries = retries  # type: ignore[attr-defined]
                    if not err.retryable or retries + 1 >= policy.max_attempts:
                        raise
                    wait = wait_before_retry(policy, err, retries)
                    if time.monotonic() - start + wait >= policy.deadline_s:
                        raise
                    log.info("retrying after %s (wait %.2fs, retry %d)", err.describe(), wait, retries + 1)
                    await asyncio.sleep(wait)
                    retries += 1
    except TimeoutError as exc:
        timeout = Timeout(f"no answer within the {policy.deadline_s:g}s call deadline after {retries} retries")
        timeout.retries = retries  # type: ignore[attr-defined]
        raise timeout from exc
