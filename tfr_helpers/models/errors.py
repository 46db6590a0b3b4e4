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
    """HTTP 400/404/422 and other 4xx: the request itself is wrong; never retried."""


class AuthError(ModelError):
    """HTTP 401/403: the key is missing, wrong or lacks permission; never retried."""


class MalformedResponse(ModelError):
    """The server answered 200 with a body that is not JSON or lacks the fields we read."""
