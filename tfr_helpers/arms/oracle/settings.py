"""The oracle-repaired arm's configuration key, ``refinement.oracle_repair``."""

from __future__ import annotations

from tfr_helpers.records.arm_registry import ArmSettings


class OracleSettings(ArmSettings):
    """The key of section ``refinement`` the oracle-repaired arm owns."""

    oracle_repair: bool = False
    """Also refine on oracle-repaired feedback: each unreliable EBT whose input the reference accepts gets the
    reference's output as its expected value (GenX stage 1). Uses the reference: an upper bound, never a screener."""
