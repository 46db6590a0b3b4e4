"""``refinement.controls``: validated with one clear message, and ``tfr estimate`` prints the control calls apart."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from tests.pipeline.estimate.test_estimate import tfr_estimate
from tfr_helpers.arms.controls import ARM
from tfr_helpers.errors import ConfigError
from tfr_helpers.pipeline.config.experiment import config_from_dict


@pytest.mark.parametrize(
    ("value", "message"),
    [
        (["resample", "bogus"], "unknown control 'bogus'; use any of resample, retry, placebo"),
        ("retry", "give a list of controls, e.g. \\[resample, retry, placebo\\]"),
        (["retry", "retry"], "a control is listed twice"),
    ],
)
def test_bad_controls_give_one_clear_message(value: object, message: str, shared_benchmarks: Path) -> None:
    with pytest.raises(ConfigError, match=message) as info:
        config_from_dict({"refinement": {"controls": value}})
    assert "refinement.controls" in str(info.value)


def test_controls_default_to_none_and_keep_their_order() -> None:
    assert ARM.settings(config_from_dict({})).controls == [] and not ARM.enabled(config_from_dict({}))
    config = config_from_dict({"refinement": {"controls": ["placebo", "resample"]}})
    assert ARM.settings(config).controls == ["placebo", "resample"] and ARM.enabled(config)
    assert config.model_dump()["refinement"]["controls"] == ["placebo", "resample"]  # the params file's shape


@pytest.mark.slow
def test_estimate_of_the_paid_recipe_prints_the_control_calls_separately(tmp_path: Path, shared_benchmarks: Path) -> None:
    replay = os.environ.get("TFR_REPLAY_DIR", "")
    proc = tfr_estimate("papermill_params/controls_openai.yaml", tmp_path, shared_benchmarks, TFR_REPLAY_DIR=replay)
    assert proc.returncode == 0, proc.stderr
    lines = {ln.split()[0]: ln for ln in proc.stdout.splitlines() if ln.startswith(("refine_codes", "control_"))}
    assert set(lines) == {"refine_codes", "control_resample", "control_retry", "control_placebo"}
    calls = {stage: ln.split()[3] for stage, ln in lines.items()}
    assert len(set(calls.values())) == 1 and int(calls["refine_codes"]) > 0  # once per refined instance, each
    assert "of which controls (control_resample, control_retry, control_placebo):" in proc.stdout
