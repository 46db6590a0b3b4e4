"""Building a provider from its entry in the provider table (:mod:`tfr_helpers.models.provider_table`).

Every model provider is one entry, ``name -> factory(settings) -> Provider``; :func:`make_provider` builds one.
The table says which names are valid in a model spec (:func:`known_providers`) and whether a model's outputs are
simulated rather than evidence (:func:`is_simulated`); they are re-exported here with :func:`register_provider`.
"""

from __future__ import annotations

from tfr_helpers.errors import ConfigError
from tfr_helpers.models.base import Provider
from tfr_helpers.models.provider_table import (
    PROVIDERS,
    ProviderEntry,
    _entries,
    is_replayed,
    is_simulated,
    known_providers,
    provider_entry,
    register_provider,
)
from tfr_helpers.models.settings import ModelSettings
from tfr_helpers.models.sim import SimProvider
from tfr_helpers.plugins import import_object


def sim_provider(settings: ModelSettings) -> Provider:
    """The offline simulated model; ``settings.provider_options['sim']`` are its keyword arguments."""
    return SimProvider(**settings.provider_options.get("sim", {}))


def make_provider(name: str, settings: ModelSettings) -> Provider:
    """Build one provider.

    Args:
        name: Provider name (``openai``, ``anthropic``, ``openai-compatible``, ``sim`` or a registered one).
        settings: Model settings; ``settings.provider_options['sim']`` is passed as keyword arguments to
            ``SimProvider``.

    Raises:
        ConfigError: Unknown provider (the message lists the known ones) or an import failure.
        CredentialsError: A real provider's key is missing.
    """
    entry = _entries().get(name)
    if entry is None:
        raise ConfigError(f"unknown model provider {name!r}; known providers: {', '.join(known_providers())}")
    if isinstance(entry.factory, str):
        factory = import_object(entry.factory, f"provider {name!r}")
        return factory(settings)  # type: ignore[no-any-return,operator]
    return entry.factory(settings)


__all__ = [
    "PROVIDERS",
    "ProviderEntry",
    "is_replayed",
    "is_simulated",
    "known_providers",
    "make_provider",
    "provider_entry",
    "register_provider",
    "sim_provider",
]
