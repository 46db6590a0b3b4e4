"""Provider errors normalised into one small hierarchy shared by every SDK.

The call layer catches these, retries the retryable ones and turns the rest into
``ModelCallRecord.error`` strings such as ``"RateLimited: 429 ..."``; they never reach the pipeline.
"""

from __future__ import annotations


class ModelError(Exception):
    """Base of every provider failure.

    Attributes:
        retryable: Whether the call layer may try again.
        retry_after_s: Server-requested wait in seconds (``retry-after-ms`` / ``retry-after``), if any.
        status_code: HTTP status when the failure was an HTTP error.
    """

    retryable: bool = False
    fatal: bool = False
    """Retries cannot fix it and every further call would fail the same way: the run stops (fail fast)."""

    def __init__(
        self,
        message: str,
        *,
        retry_after_s: float | None = None,
        status_code: int | None = None,
        retryable: bool | None = None,
    ) -> None:
        super().__init__(message)
        self.retry_after_s = retry_after_s
        self.status_code = status_code
        if retryable is not None:
            self.retryable = retryable

    def describe(self) -> str:
        """One-line form stored in records: ``"<Class>: <message>"``."""
        return f"{type(self).__name__}: {self}"


class RateLimited(ModelError):
    """HTTP 429: too many requests or tokens."""

    retryable = True


class ProviderUnavailable(ModelError):
    """Connection failure or HTTP 408/409/5xx/529: the server could not answer now."""

    retryable = True


class Timeout(ModelError):
    """A socket read exceeded the per-read timeout, or the per-call deadline passed."""

    retryable = True


class BadRequest(ModelError):
    """HTTP 400/422 and other 4xx: the request itself is wrong; never retried."""


class AuthError(ModelError):
    """HTTP 401/403: the key is missing, wrong or lacks permission; never retried, stops the run."""

    fatal = True


class ModelNotFound(BadRequest):
    """HTTP 404 (``model_not_found``): the model name or the base URL is wrong; stops the run."""

    fatal = True


class QuotaExhausted(ModelError):
    """HTTP 429 ``insufficient_quota`` (or 402, or a too-low credit balance): billing, not load; stops the run."""

    fatal = True


class NotSent(ModelError):
    """The call was never sent because an earlier reply stopped the run (see :attr:`ModelError.fatal`)."""


class MalformedResponse(ModelError):
    """The server answered 200 with a body that is not JSON or lacks the fields we read."""
