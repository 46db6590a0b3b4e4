"""Every built-in consensus strategy, registered by importing its module, and the strategies by name (table order)."""

from tfr_helpers.consensus.rankers import (  # noqa: F401
    b4,
    codet,
    dawid_skene,
    dual_critic,
    maxpass,
    mbr_exec,
    mbr_outputs,
    menet,
)
from tfr_helpers.consensus.ranking import SELECTORS, Selector
from tfr_helpers.errors import ConfigError

TABLE_ORDER = (
    "codet",
    "codet_paper",
    "mbr_exec_hard",
    "mbr_exec_soft",
    "mbr_outputs_hard",
    "mbr_outputs_soft",
    "maxpass_hard",
    "maxpass_soft",
    "codet_hard",
    "codet_soft",
    "b4",
    "dual_critic",
    "dawid_skene",
)
"""The built-in strategies in the order tables show them."""


def resolve_selector(name: str) -> Selector:
    """The strategy called ``name``.

    Raises:
        ConfigError: Unknown name (the message lists the known ones).
    """
    if name not in SELECTORS:
        raise ConfigError(f"unknown consensus strategy {name!r}; known: {', '.join(selector_names())} (or 'all')")
    return SELECTORS[name]


def selector_names() -> list[str]:
    """Every registered strategy's name, in table order, then the others in registration order."""
    return [n for n in TABLE_ORDER if n in SELECTORS] + [n for n in SELECTORS if n not in TABLE_ORDER]
