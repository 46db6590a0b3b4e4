"""Each arm declares when a configuration turns it on (``Arm.enabled``), and whoever asks asks the declaration: the
section study's "beyond one refinement" check and the estimate's per-feedback stages loop over the enabled arms, so a
new arm registered elsewhere is picked up without editing them; on every shipped params file the four arms'
declarations agree with the configuration keys they replace."""

from __future__ import annotations

import dataclasses
from pathlib import Path

import pytest

from tfr_helpers.arms.controls import ARM as CONTROLS
from tfr_helpers.arms.oracle import ARM as ORACLE
from tfr_helpers.arms.rounds import ARM as ROUNDS
from tfr_helpers.arms.trajectories import ARM as TRAJECTORIES
from tfr_helpers.errors import ConfigError
from tfr_helpers.launch import LAUNCH_VARIABLE
from tfr_helpers.pipeline.arms import declaration
from tfr_helpers.pipeline.arms.declaration import Arm, arm_parts, enabled_arms, registered_arms
from tfr_helpers.pipeline.config.experiment import ExperimentConfig, config_from_dict, load_config
from tfr_helpers.pipeline.estimate.dry_run import BASE_FEEDBACK_STAGES, feedback_stages
from tfr_helpers.pipeline.section import goes_beyond_one, resolve_section
from tfr_helpers.pipeline.stages import refine_codes
from tfr_helpers.pipeline.study import ARMS

ROOT = Path(__file__).resolve().parents[3]
PARAMS = sorted((ROOT / "papermill_params").glob("*.yaml"))
TOY_STAGE = dataclasses.replace(refine_codes.STAGE, name="toy_refine")
"""The toy arm's stage: asks the refiner once per feedback, as ``refine_codes`` does."""


def _toy_on(config: ExperimentConfig) -> bool:
    return config.run_name == "toy-on"


TOY = Arm(
    "toy",
    enabled=_toy_on,
    stages=(TOY_STAGE,),
    field="toy",
    results=lambda config, records: "toy part",
    feedback_stages=lambda config: (TOY_STAGE,),
    beyond_one=True,
    switch="run_name: toy-on",
    summarize=lambda config: "toy things",
)


def _config(run_name: str = "plain", **refinement: object) -> ExperimentConfig:
    return config_from_dict({"run_name": run_name, "models": {"coders": ["sim:default"]}, "refinement": refinement})


@pytest.fixture
def toy_registered(monkeypatch: pytest.MonkeyPatch) -> None:
    """The toy arm registered beside the study's (and gone after the test)."""
    monkeypatch.setitem(declaration._REGISTRY, TOY.name, TOY)


@pytest.mark.usefixtures("toy_registered")
def test_a_registered_arm_is_asked_by_the_loops_over_enabled_arms(tmp_path: Path) -> None:
    on, off = _config("toy-on"), _config("toy-off")
    assert TOY in registered_arms()
    assert enabled_arms(on) == [TOY] and enabled_arms(off) == []
    # the consolidation into results.json: its part is built only when it is on
    assert arm_parts(on, {})["toy"] == "toy part" and arm_parts(off, {})["toy"] is None
    # the section study: the toy arm goes beyond one refinement when on
    assert goes_beyond_one(on) and not goes_beyond_one(off)
    assert resolve_section(on, tmp_path).describe().startswith("section study from this run: toy things, seeds")
    with pytest.raises(ConfigError, match="run_name: toy-on"):  # the fix names how to turn the arm on
        resolve_section(off, tmp_path)
    # the estimate: its stage is projected from the feedback when on, not when off
    assert feedback_stages(on) == [*BASE_FEEDBACK_STAGES, "toy_refine"]
    assert feedback_stages(off) == list(BASE_FEEDBACK_STAGES)


def test_only_the_arms_declared_beyond_one_make_a_run_its_own_section_study(tmp_path: Path) -> None:
    assert goes_beyond_one(_config(rounds=2)) and goes_beyond_one(_config(oracle_repair=True))
    assert not goes_beyond_one(_config(controls=["retry"])) and not goes_beyond_one(_config())
    assert {arm.name for arm in ARMS if arm.beyond_one} == {"rounds", "oracle"}
    both = resolve_section(_config(rounds=3, oracle_repair=True), tmp_path).describe()
    assert "this run: 3 rounds, oracle-repaired arm, seeds [" in both
    with pytest.raises(ConfigError, match=r"seeds or refinement.rounds > 1 or refinement.oracle_repair: true$"):
        resolve_section(_config(controls=["retry"]), tmp_path)


def _old_checks(config: ExperimentConfig) -> dict[str, bool]:
    """Whether each arm is on, as the configuration keys were read before the arms declared it."""
    return {
        "oracle": ORACLE.settings(config).oracle_repair,
        "controls": bool(CONTROLS.settings(config).controls),
        "rounds": ROUNDS.settings(config).rounds > 1,
        "trajectories": bool(TRAJECTORIES.settings(config).trajectories),
    }


def test_the_arms_declarations_agree_with_the_keys_on_every_shipped_params_file(monkeypatch: pytest.MonkeyPatch) -> None:
    assert PARAMS, "no params files found"
    monkeypatch.setenv(LAUNCH_VARIABLE, str(ROOT))  # the files' relative paths are the checkout's, whatever ran before
    seen: dict[str, set[bool]] = {arm.name: set() for arm in ARMS}
    for path in PARAMS:
        config = load_config(path)
        old = _old_checks(config)
        assert {arm.name: arm.enabled(config) for arm in ARMS} == old, path.name
        assert goes_beyond_one(config) == (config.seeds is not None or old["rounds"] or old["oracle"]), path.name
        for name, on in old.items():
            seen[name].add(on)
    # the comparison is not vacuous: every arm is on in some shipped file and off in another
    assert all(values == {True, False} for values in seen.values()), seen
