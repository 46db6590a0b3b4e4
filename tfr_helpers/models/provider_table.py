"""The table of model providers by name: which ``provider:`` prefixes exist, their credentials, and whether
their replies are simulated or replayed.

The built-in providers are listed in :data:`_BUILTIN` by import path, so their SDKs load only when used. A new
provider is one module that calls :func:`register_provider`; a package outside tfr makes that module load by
declaring it in the ``tfr.providers`` entry point group (``[project.entry-points."tfr.providers"]
replay = "mypkg.replay"``). :func:`tfr_helpers.models.provider_builder.make_provider` builds one.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from tfr_helpers.errors import ConfigError
from tfr_helpers.plugins import load_entry_points_once

if TYPE_CHECKING:
    from tfr_helpers.models.base import ModelSpec, Provider
    from tfr_helpers.models.settings import ModelSettings

ProviderFactory = Callable[["ModelSettings"], "Provider"]


ENTRY_POINT_GROUP = "tfr.providers"
"""Entry point group whose values are modules that register providers when imported."""


@dataclass(frozen=True)
class ProviderEntry:
    """One registered provider.

    Attributes:
        name: The ``provider`` part of ``provider:model`` specs.
        factory: ``factory(settings) -> Provider``, or ``"module:Class"`` of a Provider class taking the
            settings, imported on first use.
        simulated: True when the provider's replies are not a real model's (the simulated model, replayed
            or synthetic outputs): runs using it are demos, not evidence.
        replayed: True when the replies are real generations read back from files (the ``replay`` provider):
            evidence, but produced earlier by another model than the provider's name says.
        key_env: Environment variable holding its API key (None: it needs none).
        base_url_env: Environment variable holding its base URL (None: it has none).
        key_default: Key used when ``key_env`` is unset (None: the key is required).
        base_url_required: The base URL must be set (in settings or ``base_url_env``); local servers.
    """

    name: str
    factory: ProviderFactory | str
    simulated: bool = False
    replayed: bool = False
    key_env: str | None = None
    base_url_env: str | None = None
    key_default: str | None = None
    base_url_required: bool = False


_BUILTIN = (
    ProviderEntry(
        "openai",
        "tfr_helpers.models.sdk.openai_chat:OpenAIChatProvider",
        key_env="OPENAI_API_KEY",
        base_url_env="OPENAI_BASE_URL",
    ),
    ProviderEntry(
        "anthropic",
        "tfr_helpers.models.sdk.anthropic_messages:AnthropicProvider",
        key_env="ANTHROPIC_API_KEY",
        base_url_env="ANTHROPIC_BASE_URL",
    ),
    ProviderEntry(
        "openai-compatible",
        "tfr_helpers.models.sdk.openai_chat:OpenAICompatibleProvider",
        key_env="OPENAI_COMPATIBLE_API_KEY",
        base_url_env="OPENAI_COMPATIBLE_BASE_URL",
        key_default="EMPTY",
        base_url_required=True,
    ),
    ProviderEntry("sim", "tfr_helpers.models.provider_builder:sim_provider", simulated=True),
)


_REGISTRY: dict[str, ProviderEntry] = {entry.name: entry for entry in _BUILTIN}


PROVIDERS = tuple(entry.name for entry in _BUILTIN)
"""The built-in providers (:func:`known_providers` adds the registered ones)."""


def register_provider(
    name: str, factory: ProviderFactory | str, *, simulated: bool = False, replayed: bool = False, **env: Any
) -> None:
    """Register (or replace) a provider.

    Args:
        name: Provider name used in model specs (``name:model``); no ``:`` allowed.
        factory: ``factory(settings) -> Provider``, or ``"module:Class"`` imported on first use.
        simulated: Whether its replies are simulated (see :func:`is_simulated`).
        replayed: Whether its replies are recorded real generations read from files (see :func:`is_replayed`).
        **env: Its credentials: ``key_env``, ``base_url_env``, ``key_default``, ``base_url_required``
            (see :class:`ProviderEntry`); ``check_credentials`` and ``resolve_credentials`` read them.

    Raises:
        ConfigError: The name is empty or contains ``:``.
    """
    if not name or ":" in name:
        raise ConfigError(f"provider name {name!r} must be non-empty and contain no ':'")
    _REGISTRY[name] = ProviderEntry(name, factory, simulated, replayed, **env)


def _entries() -> dict[str, ProviderEntry]:
    """The registry, after importing the modules named in the ``tfr.providers`` entry point group (once)."""
    load_entry_points_once(ENTRY_POINT_GROUP)
    return _REGISTRY


def provider_entry(name: str) -> ProviderEntry | None:
    """The registered entry of a provider name (None when unknown)."""
    return _entries().get(name)


def known_providers() -> list[str]:
    """Names of every provider that can be built (built-in first, then registered ones in order)."""
    return list(_entries())


def is_simulated(spec: str | ModelSpec) -> bool:
    """Whether a model (``provider:model``, or a bare provider name) gives simulated replies.

    Unknown providers count as not simulated (a results file may name a provider this install lacks).
    """
    entry = _entries().get(str(spec).partition(":")[0])
    return entry is not None and entry.simulated


def is_replayed(spec: str | ModelSpec) -> bool:
    """Whether a model (``provider:model``, or a bare provider name) replays recorded real generations.

    Unknown providers count as not replayed.
    """
    entry = _entries().get(str(spec).partition(":")[0])
    return entry is not None and entry.replayed
