"""The replayed trajectories arm's configuration key, ``trajectories`` (at the top level of the configuration)."""

from __future__ import annotations

from typing import ClassVar

from pydantic import Field, field_validator

from tfr_helpers.errors import ConfigError
from tfr_helpers.records.arm_registry import ArmSettings
from tfr_helpers.replay.trajectories.sets import check_entry, trajectory_hashes


class TrajectoriesSettings(ArmSettings):
    """The top-level key the replayed trajectories arm owns."""

    LEFT_OUT_WHEN_DEFAULT: ClassVar[frozenset[str]] = frozenset({"trajectories"})

    trajectories: list[str] = Field(default_factory=list)
    """Real refinement trajectories to replay through RQ1 and RQ2, beside the study: registered sets
    (``replay:reflexion-gpt4o-bcb``) or directories holding a Reflexion-format log or ``trajectories.jsonl``
    (``replay:path/to/dir``); see docs/replay.md."""

    @field_validator("trajectories")
    @classmethod
    def _known_sets(cls, value: list[str]) -> list[str]:
        for entry in value:
            try:
                check_entry(entry)
            except ConfigError as exc:
                raise ValueError(str(exc)) from None
        return list(dict.fromkeys(value))

    def input_hashes(self) -> dict[str, str]:
        """The log files (pinned sha256, or a directory's own hashes) and readers' rules of each set."""
        parts: dict[str, str] = {}
        for entry in self.trajectories:
            parts.update(trajectory_hashes(entry))
        return parts
