"""Provider registry: names mapped to lazily imported factories ``factory(settings) -> Provider``."""

from __future__ import annotations

import importlib
from collections.abc import Callable

from tfr_helpers.errors import ConfigError
from tfr_helpers.models.base import Provider
from tfr_helpers.models.settings import ModelSettings

ProviderFactory = Callable[[ModelSettings], Provider]

_LAZY: dict[str, str] = {
    "openai": "tfr_helpers.models.openai_chat:OpenAIChatProvider",
    "openai-compatible": "tfr_helpers.models.openai_chat:OpenAICompatibleProvider",
    "anthropic": "tfr_helpers.models.anthropic_messages:AnthropicProvider",
    "sim": "tfr_helpers.models.sim:SimProvider",
}
_REGISTERED: dict[str, ProviderFactory] = {}


def register_provider(name: str, factory: ProviderFactory) -> None:
    """Register (or replace) a provider factory, e.g. a test double."""
    _REGISTERED[name] = factory


def known_providers() -> list[str]:
    """Names of every provider that can be built."""
    return sorted(set(_LAZY) | set(_REGISTERED))


def _import(name: str, target: str) -> type:
    module_name, _, attr = target.partition(":")
    try:
        module = importlib.import_module(module_name)
        return getattr(module, attr)  # type: ignore[no-any-return]
    except (ImportError, AttributeError) as exc:
        raise ConfigError(
            f"provider {name!r} could not be loaded from {target} ({exc}); reinstall tfr"
        ) from exc


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
    if name in _REGISTERED:
        return _REGISTERED[name](settings)
    if name not in _LAZY:
        raise ConfigError(f"unknown model provider {name!r}; known providers: {', '.join(known_providers())}")
    cls = _import(name, _LAZY[name])
    if name == "sim":
        return cls(**settings.provider_options.get("sim", {}))  # type: ignore[no-any-return]
    return cls(settings)  # type: ignore[no-any-return]
