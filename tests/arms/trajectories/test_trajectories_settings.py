"""The replayed trajectories arm's key sits at the top level of the configuration: validated by the arm's settings,
written back by ``model_dump``, left out of the fingerprint while empty, its sets' file hashes in it when set, and
read by a stage only when the stage declares it."""

from __future__ import annotations

from pathlib import Path

import pytest

from tfr_helpers.arms.trajectories import ARM
from tfr_helpers.errors import ConfigError
from tfr_helpers.pipeline.config.experiment import config_from_dict
from tfr_helpers.pipeline.engine.settings_view import SettingsView
from tfr_helpers.pipeline.engine.stage import UndeclaredInput

EXAMPLES = Path(__file__).parents[3] / "examples" / "seed_examples"
BASE = {"benchmarks": ["humaneval"], "tasks": 1, "models": {"coders": ["sim:default"]}}


def test_an_empty_key_stays_out_of_the_fingerprint_and_a_set_brings_its_hashes() -> None:
    off = config_from_dict(BASE)
    assert not ARM.enabled(off) and off.model_dump()["trajectories"] == []
    assert not any(part.startswith("trajectories") for part in off.fingerprint())
    on = config_from_dict({**BASE, "trajectories": [f"replay:{EXAMPLES}", f"replay:{EXAMPLES}"]})
    assert ARM.settings(on).trajectories == [f"replay:{EXAMPLES}"]  # a set named twice is replayed once
    parts = on.fingerprint()
    assert parts["trajectories"] == f'["replay:{EXAMPLES}"]'
    assert any(p.startswith("trajectories.") and p.endswith(".rules") for p in parts)
    assert on.config_hash() != off.config_hash()


def test_an_unknown_set_is_reported_under_its_key() -> None:
    with pytest.raises(ConfigError, match=r"trajectories: unknown trajectory set 'nope'"):
        config_from_dict({**BASE, "trajectories": ["replay:nope"]})


def test_a_stage_reads_the_key_only_when_it_declares_it() -> None:
    config = config_from_dict({**BASE, "trajectories": [f"replay:{EXAMPLES}"]})
    assert ARM.settings(SettingsView(config, "s", ["trajectories"])).trajectories == [f"replay:{EXAMPLES}"]
    with pytest.raises(UndeclaredInput, match="'trajectories' of arm 'trajectories'"):
        ARM.settings(SettingsView(config, "s", ["seed"]))


def test_the_screening_group_takes_the_arm_stage_that_screens_its_own_feedback() -> None:
    from tfr_helpers.pipeline.study import GROUPS, expand_groups

    assert GROUPS["screening"] == ("screen_feedback", "screen_trajectory_steps")
    assert expand_groups(["screening", "finalize_results"])[-1] == "finalize_results"
