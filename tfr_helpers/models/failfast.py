"""Fail fast on what retries cannot fix: the first fatal reply stops every further call of the client.

A wrong key (401/403), an unknown model (404) or an exhausted quota fails every call the same way, so after the
first such reply the client sends nothing more: calls already in flight finish, calls not yet sent come back
as :class:`~tfr_helpers.models.errors.NotSent` without a request. :class:`Stop` says why, in one message that
names the provider, the model and the setting to check, and never the key itself.
"""

from __future__ import annotations

import threading
from dataclasses import dataclass

from tfr_helpers.models.base import ModelSpec
from tfr_helpers.models.budget import BudgetExhausted
from tfr_helpers.models.calllog import scrub
from tfr_helpers.models.credentials import BASE_URL_VARS, KEY_VARS
from tfr_helpers.models.errors import AuthError, ModelError, ModelNotFound, NotSent, QuotaExhausted


@dataclass(frozen=True)
class Stop:
    """Why a client stopped calling: the first fatal error and the model that got it."""

    spec: ModelSpec
    error: ModelError

    @property
    def message(self) -> str:
        """One paragraph naming the provider, the model, the provider's own words and what to check."""
        provider, model = self.spec.provider, str(self.spec)
        key_var = KEY_VARS.get(provider, f"the {provider} API key")
        said = scrub(str(self.error))
        if isinstance(self.error, BudgetExhausted):
            return f"{said[:1].upper()}{said[1:]}. No further calls were sent."
        if isinstance(self.error, AuthError):
            what = f"{provider} rejected the API key for {model} ({said})"
            fix = f"check {key_var} (in the environment or .env): it is missing, wrong or lacks access to the model"
        elif isinstance(self.error, ModelNotFound):
            what = f"{provider} does not know the model {model} ({said})"
            url_var = BASE_URL_VARS.get(provider, "the base URL")
            fix = (
                f"check the model name in the params file and the base URL (models.base_urls or {url_var}); "
                f"the key in {key_var} may also lack access to it"
            )
        elif isinstance(self.error, QuotaExhausted):
            what = f"{provider} reports the quota of the account behind {key_var} exhausted for {model} ({said})"
            fix = f"add credit or raise the limit of that account, or set {key_var} to another key"
        else:
            what, fix = f"{provider} failed for {model} ({said})", "check the provider settings"
        return f"{what}; {fix}. No further calls were sent."


class FailFast:
    """Remembers the first fatal error of a client (thread-safe) and refuses calls after it."""

    def __init__(self) -> None:
        self._stop: Stop | None = None
        self._lock = threading.Lock()

    @property
    def stop(self) -> Stop | None:
        """The reason the client stopped, or None while it still calls."""
        return self._stop

    def observe(self, spec: ModelSpec, error: ModelError) -> None:
        """Stop on ``error`` when it is fatal (the first fatal error wins)."""
        if error.fatal:
            with self._lock:
                if self._stop is None:
                    self._stop = Stop(spec, error)

    def check(self) -> None:
        """Raise :class:`NotSent` once stopped (call it right before sending a request).

        Raises:
            NotSent: An earlier reply stopped the client.
        """
        stop = self._stop
        if stop is not None:
            raise NotSent(f"not sent: the run stopped after {stop.spec} answered {type(stop.error).__name__}")
