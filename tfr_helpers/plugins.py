"""Extension points outside the package: entry point groups and ``module:attribute`` import paths.

Registries (providers, benchmarks, screening strategies) use these two loaders so a plugin fails the same way
everywhere: one :class:`~tfr_helpers.errors.ConfigError` naming the plugin and what to do.
"""

from __future__ import annotations

import importlib
from importlib.metadata import entry_points

from tfr_helpers.errors import ConfigError


def load_entry_points(group: str) -> dict[str, object]:
    """Load every entry point of ``group`` (its module is imported, so module-level registrations run).

    Args:
        group: Entry point group, e.g. ``tfr.providers``.

    Returns:
        Entry point name -> the loaded object, in discovery order.

    Raises:
        ConfigError: An entry point fails to load (names it, its value and the error).
    """
    loaded = {}
    for ep in entry_points(group=group):
        try:
            loaded[ep.name] = ep.load()
        except Exception as exc:
            raise ConfigError(
                f"plugin {ep.name!r} of entry point group {group} ({ep.value}) failed to load: {exc}; "
                "fix or uninstall the package that declares it"
            ) from exc
    return loaded


_LOADED: dict[str, dict[str, object]] = {}
"""Group -> its loaded entry points, for :func:`load_entry_points_once`."""


def load_entry_points_once(group: str) -> dict[str, object]:
    """:func:`load_entry_points` of ``group`` the first time a registry asks for it in this process; later calls
    return the same objects (a group that failed to load fails again, with the same message)."""
    if group not in _LOADED:
        _LOADED[group] = load_entry_points(group)
    return _LOADED[group]


def import_object(path: str, what: str) -> object:
    """Import ``module:attribute`` (the attribute may be dotted: ``module:Class.method``).

    Args:
        path: The import path.
        what: What the object is, for the error message (``screening strategy``).

    Raises:
        ConfigError: The path is not ``module:attribute``, or the module or attribute cannot be loaded.
    """
    module_name, sep, attr = path.partition(":")
    if not sep or not module_name or not attr:
        raise ConfigError(f"{what} {path!r} is not an import path of the form 'package.module:function'")
    try:
        obj: object = importlib.import_module(module_name)
    except ImportError as exc:
        raise ConfigError(
            f"{what} {path!r}: cannot import {module_name} ({exc}); is it installed or on PYTHONPATH?"
        ) from exc
    for part in attr.split("."):
        try:
            obj = getattr(obj, part)
        except AttributeError as exc:
            raise ConfigError(f"{what} {path!r}: {module_name} has no attribute {attr!r}") from exc
    return obj
