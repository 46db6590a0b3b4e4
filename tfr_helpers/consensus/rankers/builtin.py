"""Imports every built-in consensus strategy module, so each registers itself (in table order)."""

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
