"""Multi-round backprompting's keys belong to its package: validated by its settings model inside the one
``refinement`` section, errors under their own key, written back with the section."""

from __future__ import annotations

import pytest

from tfr_helpers.arms.rounds import ARM
from tfr_helpers.arms.rounds.settings import RoundsSettings
from tfr_helpers.errors import ConfigError
from tfr_helpers.pipeline.config.experiment import config_from_dict
from tfr_helpers.pipeline.config.sections import RefinementSettings


def test_the_keys_are_the_arms_and_turn_it_on_above_one_round() -> None:
    config = config_from_dict({"refinement": {"rounds": 3, "round_tests": "same", "stop_when_passing": False}})
    assert ARM.settings(config) == RoundsSettings(rounds=3, round_tests="same", stop_when_passing=False)
    assert ARM.enabled(config) and ARM.summary(config) == "3 rounds"
    assert not ARM.enabled(config_from_dict({})) and ARM.settings(config_from_dict({})) == RoundsSettings()
    assert not {"rounds", "round_tests", "stop_when_passing"} & set(RefinementSettings.model_fields)
    written = config.model_dump()["refinement"]
    assert {k: written[k] for k in ("rounds", "round_tests", "stop_when_passing")} == {
        "rounds": 3,
        "round_tests": "same",
        "stop_when_passing": False,
    }
    assert config_from_dict(config.model_dump()) == config  # a resolved configuration reads back the same


@pytest.mark.parametrize(
    ("refinement", "message"),
    [
        ({"rounds": 0}, r"refinement\.rounds: Input should be greater than or equal to 1"),
        ({"round_tests": "other"}, r"refinement\.round_tests: Input should be 'fresh' or 'same'"),
        ({"roundz": 2}, r"refinement\.roundz: unknown key"),
    ],
)
def test_a_bad_key_is_reported_under_its_own_name(refinement: dict[str, object], message: str) -> None:
    with pytest.raises(ConfigError, match=message):
        config_from_dict({"refinement": refinement})
