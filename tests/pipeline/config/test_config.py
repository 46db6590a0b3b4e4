"""ExperimentConfig and load_config: validation errors name the key; params files load."""

from __future__ import annotations

from pathlib import Path

import pytest

from tfr_helpers.errors import ConfigError
from tfr_helpers.pipeline import load_config
from tfr_helpers.pipeline.config.experiment import config_from_dict

PARAMS = Path(__file__).resolve().parents[3] / "papermill_params"


@pytest.mark.parametrize("name", ["default", "smoke", "openai", "anthropic", "openai_compatible"])
def test_shipped_params_files_are_valid(name: str) -> None:
    config = load_config(PARAMS / f"{name}.yaml")
    assert config.screening[0] == "accept_all"


def test_unknown_top_level_key_is_named() -> None:
    with pytest.raises(ConfigError, match=r"ebts_per_tsk: unknown key"):
        config_from_dict({"ebts_per_tsk": 3})


def test_unknown_nested_key_is_named() -> None:
    with pytest.raises(ConfigError, match=r"sandbox\.timeout: unknown key"):
        config_from_dict({"sandbox": {"timeout": 3}})


def test_bad_value_is_named() -> None:
    with pytest.raises(ConfigError, match=r"pbts_per_task: .*greater than or equal to 0"):
        config_from_dict({"pbts_per_task": -1})


def test_bad_model_spec_is_named() -> None:
    with pytest.raises(ConfigError, match=r"models\.coders.*'gpt4' is not 'provider:model'"):
        config_from_dict({"models": {"coders": ["gpt4"]}})


def test_unknown_strategy_lists_known_ones() -> None:
    with pytest.raises(ConfigError, match=r"screening: unknown strategy 'vibes'; known: .*accept_all"):
        config_from_dict({"screening": ["vibes"]})


def test_accept_all_is_always_first_and_not_duplicated() -> None:
    config = config_from_dict({"screening": ["llm_judge", "accept_all", "llm_judge"]})
    assert config.screening == ["accept_all", "llm_judge"]


def test_tasks_for_benchmark_not_configured_is_an_error() -> None:
    with pytest.raises(ConfigError, match=r"tasks names benchmark 'mbpp'"):
        config_from_dict({"benchmarks": ["humaneval"], "tasks": {"mbpp": 3}})


def test_overrides_use_dotted_keys(tmp_path: Path) -> None:
    params = tmp_path / "p.yaml"
    params.write_text("run_name: x\n")
    config = load_config(params, {"sandbox.timeout_s": 3, "tasks": 2})
    assert config.sandbox.timeout_s == 3 and config.tasks == 2


def test_missing_file_and_non_mapping_are_config_errors(tmp_path: Path) -> None:
    with pytest.raises(ConfigError, match="does not exist"):
        load_config(tmp_path / "nope.yaml")
    bad = tmp_path / "bad.yaml"
    bad.write_text("- a\n- b\n")
    with pytest.raises(ConfigError, match="must be a mapping"):
        load_config(bad)


def test_roles_default_to_the_coder() -> None:
    config = config_from_dict({"models": {"coders": ["sim:default", "sim:weak"], "judge": "sim:strong"}})
    assert config.models.tester_for("sim:weak") == "sim:weak"
    assert config.models.judge_for("sim:weak") == "sim:strong"
    assert config.models.all_specs() == ["sim:default", "sim:strong", "sim:weak"]


def test_hash_ignores_run_name_and_concurrency_but_not_the_seed() -> None:
    base = config_from_dict({})
    assert config_from_dict({"run_name": "b", "concurrency": {"model_calls": 2}}).config_hash() == base.config_hash()
    assert config_from_dict({"seed": 1}).config_hash() != base.config_hash()


def test_run_seed_reaches_the_model_sampling() -> None:
    assert config_from_dict({"seed": 7}).resolved_model_settings().sampling.seed == 7
