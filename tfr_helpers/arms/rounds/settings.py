"""Multi-round backprompting's configuration keys: ``refinement.rounds``, ``round_tests`` and ``stop_when_passing``."""

from __future__ import annotations

from typing import Literal

from pydantic import Field

from tfr_helpers.records.arm_registry import ArmSettings


class RoundsSettings(ArmSettings):
    """The keys of section ``refinement`` that multi-round backprompting owns."""

    rounds: int = Field(default=1, ge=1)
    """Refinement rounds per code sample (1: the seed study, one independent attempt per feedback). With R > 1,
    round r+1 refines round r's code with the feedback of round r+1's test suite (see ``round_tests``)."""
    round_tests: Literal["fresh", "same"] = "fresh"
    """Suite of each later round: ``fresh`` (the tester writes a new suite per round) or ``same`` (round 1's)."""
    stop_when_passing: bool = True
    """Stop a code sample's rounds early once its code passes every test of its own suite."""
