"""Credentials and base URLs, read only from the environment or a ``.env`` file (never from parameters)."""

from __future__ import annotations

import os
from collections.abc import Iterable
from dataclasses import dataclass

from dotenv import find_dotenv, load_dotenv

from tfr_helpers.errors import CredentialsError
from tfr_helpers.models.base import ModelSpec
from tfr_helpers.models.provider_table import _BUILTIN, known_providers, provider_entry
from tfr_helpers.models.settings import ModelSettings

KEY_VARS = {e.name: e.key_env for e in _BUILTIN if e.key_env}
"""Environment variable holding each built-in provider's API key (registered ones: their registry entry)."""

BASE_URL_VARS = {e.name: e.base_url_env for e in _BUILTIN if e.base_url_env}
"""Environment variable holding each built-in provider's base URL (registered ones: their registry entry)."""

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
    entry = provider_entry(provider)
    if entry is None:
        return []
    if entry.base_url_required:
        if not (settings.base_urls.get(provider) or (entry.base_url_env and os.environ.get(entry.base_url_env))):
            return [f"{entry.base_url_env} (or models.base_urls['{provider}'])"]
        return []
    var = entry.key_env
    return [var] if var and entry.key_default is None and not os.environ.get(var) else []


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
    entry = provider_entry(provider)
    if entry is None:
        raise CredentialsError(f"unknown model provider {provider!r}; register it with its key_env first")
    base_url = settings.base_urls.get(provider) or (entry.base_url_env and os.environ.get(entry.base_url_env)) or None
    key = (entry.key_env and os.environ.get(entry.key_env)) or entry.key_default or ""
    return Credentials(api_key=key, base_url=base_url)


def secret_values() -> list[str]:
    """Every API key currently set, so writers can scrub them defensively."""
    values = [os.environ.get(v, "") for v in {e.key_env for e in map(provider_entry, known_providers()) if e and e.key_env}]
    values += [os.environ.get("ANTHROPIC_AUTH_TOKEN", "")]
    return [v for v in values if len(v) >= 6 and v != "EMPTY"]
