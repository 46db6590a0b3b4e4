"""Credentials and base URLs, read only from the environment or a ``.env`` file (never from parameters)."""

from __future__ import annotations

import os
from collections.abc import Iterable
from dataclasses import dataclass

from dotenv import find_dotenv, load_dotenv

from tfr_helpers.errors import CredentialsError
from tfr_helpers.models.base import ModelSpec
from tfr_helpers.models.settings import ModelSettings

KEY_VARS = {
    "openai": "OPENAI_API_KEY",
    "anthropic": "ANTHROPIC_API_KEY",
    "openai-compatible": "OPENAI_COMPATIBLE_API_KEY",
}
"""Environment variable holding each provider's API key."""

BASE_URL_VARS = {
    "openai": "OPENAI_BASE_URL",
    "anthropic": "ANTHROPIC_BASE_URL",
    "openai-compatible": "OPENAI_COMPATIBLE_BASE_URL",
}
"""Environment variable holding each provider's base URL."""

_dotenv_loaded = False


def load_env() -> None:
    """Load ``.env`` from the working directory upwards once (existing variables win)."""
    global _dotenv_loaded
    if not _dotenv_loaded:
        path = find_dotenv(usecwd=True)
        if path:
            load_dotenv(path, override=False)
        _dotenv_loaded = True


@dataclass(frozen=True, repr=False)
class Credentials:
    """Resolved key and base URL of one provider (repr hides the key)."""

    api_key: str
    base_url: str | None

    def __repr__(self) -> str:
        return f"Credentials(api_key='***', base_url={self.base_url!r})"


def _missing(provider: str, settings: ModelSettings) -> list[str]:
    if provider == "openai-compatible":
        if not (settings.base_urls.get(provider) or os.environ.get(BASE_URL_VARS[provider])):
            return [f"{BASE_URL_VARS[provider]} (or models.base_urls['openai-compatible'])"]
        return []
    var = KEY_VARS.get(provider)
    return [var] if var and not os.environ.get(var) else []


def check_credentials(specs: Iterable[ModelSpec | str], settings: ModelSettings | None = None) -> None:
    """Check that every model's credentials are present; call this before any work.

    Args:
        specs: Models of the run (``ModelSpec`` or ``provider:model`` strings).
        settings: Model settings (base URLs); defaults used when None.

    Raises:
        CredentialsError: One error naming every missing variable.
    """
    load_env()
    settings = settings or ModelSettings()
    missing: dict[str, list[str]] = {}
    for spec in specs:
        spec = ModelSpec.parse(spec) if isinstance(spec, str) else spec
        for var in _missing(spec.provider, settings):
            missing.setdefault(var, []).append(str(spec))
    if missing:
        parts = [f"{var} is not set (needed by {', '.join(sorted(set(models)))})" for var, models in missing.items()]
        raise CredentialsError("; ".join(parts) + "; export it or put it in .env, or use the offline model sim:default")


def resolve_credentials(provider: str, settings: ModelSettings) -> Credentials:
    """Key and base URL of one real provider.

    Raises:
        CredentialsError: When the key (or the openai-compatible base URL) is missing.
    """
    check_credentials([ModelSpec(provider, "any")], settings)
    base_url = settings.base_urls.get(provider) or os.environ.get(BASE_URL_VARS[provider]) or None
    default_key = "EMPTY" if provider == "openai-compatible" else ""
    return Credentials(api_key=os.environ.get(KEY_VARS[provider]) or default_key, base_url=base_url)


def secret_values() -> list[str]:
    """Every API key currently set, so writers can scrub them defensively."""
    values = [os.environ.get(v, "") for v in KEY_VARS.values()]
    values += [os.environ.get("ANTHROPIC_AUTH_TOKEN", "")]
    return [v for v in values if len(v) >= 6 and v != "EMPTY"]
