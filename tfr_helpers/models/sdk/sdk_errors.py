"""Map exceptions of the official openai / anthropic SDKs to :mod:`tfr_helpers.models.errors`."""

from __future__ import annotations

import email.utils
import json
import time
from collections.abc import Mapping

from tfr_helpers.models import errors as me

_RETRYABLE_STATUS = {408, 409, 429}


def parse_retry_after(headers: Mapping[str, str] | None) -> float | None:
    """Seconds to wait from ``retry-after-ms``, else ``retry-after`` (seconds or date); None if invalid."""
    if not headers:
        return None
    ms = headers.get("retry-after-ms")
    if ms:
        try:
            value = float(ms) / 1000
            return value if value > 0 else None
        except ValueError:
            pass
    ra = headers.get("retry-after")
    if not ra:
        return None
    try:
        value = float(ra)
    except ValueError:
        parsed = email.utils.parsedate_to_datetime(ra) if ra else None
        if parsed is None:
            return None
        value = parsed.timestamp() - time.time()
    return value if value > 0 else None


def _error_fields(body: object) -> tuple[str, str]:
    """``(code or type, message)`` of an error body (OpenAI ``{"error": {...}}``, Anthropic ``{"type", "error"}``)."""
    error = body.get("error", body) if isinstance(body, dict) else None
    if not isinstance(error, dict):
        return "", str(body or "")
    code = error.get("code") or error.get("type") or ""
    return str(code), str(error.get("message") or "")


def _status_error(status: int, message: str, headers: Mapping[str, str] | None, body: object = None) -> me.ModelError:
    retry_after = parse_retry_after(headers)
    should = (headers or {}).get("x-should-retry")
    override = {"true": True, "false": False}.get(should.lower()) if should else None
    kw = {"retry_after_s": retry_after, "status_code": status, "retryable": override}
    code, text = _error_fields(body)
    if status == 402 or code == "insufficient_quota" or "credit balance" in text.lower():
        return me.QuotaExhausted(message, status_code=status)
    if status == 429:
        return me.RateLimited(message, **kw)  # type: ignore[arg-type]
    if status in _RETRYABLE_STATUS or status >= 500:
        return me.ProviderUnavailable(message, **kw)  # type: ignore[arg-type]
    if status in (401, 403):
        return me.AuthError(message, status_code=status)
    if status == 404:
        return me.ModelNotFound(message, status_code=status)
    return me.BadRequest(message, **kw)  # type: ignore[arg-type]


def normalise_sdk_error(exc: BaseException) -> me.ModelError | None:
    """Our error type for an SDK exception, or None when it is not a provider failure (a bug: re-raise)."""
    import anthropic  # the SDKs load only when a live provider is used
    import openai

    if isinstance(exc, me.ModelError):
        return exc
    if isinstance(exc, (openai.APITimeoutError, anthropic.APITimeoutError)):
        return me.Timeout(f"read timed out ({type(exc).__name__})")
    if isinstance(exc, (openai.APIConnectionError, anthropic.APIConnectionError)):
        return me.ProviderUnavailable(f"connection failed: {exc}")
    if isinstance(exc, (openai.APIStatusError, anthropic.APIStatusError)):
        headers = getattr(exc.response, "headers", None)
        message = f"HTTP {exc.status_code}: {str(exc)[:300]}"
        return _status_error(exc.status_code, message, headers, getattr(exc, "body", None))
    if isinstance(exc, (openai.APIResponseValidationError, anthropic.APIResponseValidationError)):
        return me.MalformedResponse(f"response failed validation: {str(exc)[:300]}")
    if isinstance(exc, json.JSONDecodeError):
        return me.MalformedResponse(f"response body is not JSON: {exc}")
    return None
