"""Resume never mixes versions: the config hash covers templates, the simulator, sandbox limits and the
BigCodeBench selection, and a refused resume names the part that changed."""

from __future__ import annotations

import json
import shutil
from collections.abc import Iterator
from pathlib import Path

import pytest

from tfr_helpers.errors import RunDirError
from tfr_helpers.models.sim import version as sim_version_module
from tfr_helpers.pipeline import run_stages
from tfr_helpers.pipeline.config import fingerprint as fp
from tfr_helpers.pipeline.config.experiment import ExperimentConfig, config_from_dict
from tfr_helpers.pipeline.engine.store import RunStore
from tfr_helpers.prompts import render

PARAMS = {
    "run_name": "fingerprint",
    "benchmarks": ["humaneval"],
    "tasks": 1,
    "models": {"coders": ["sim:default"]},
    "ebts_per_task": 0,
    "pbts_per_task": 0,
    "screening": [],
}


def config(**changes: object) -> ExperimentConfig:
    return config_from_dict({**PARAMS, **changes})


@pytest.fixture
def edited_templates(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Iterator[Path]:
    """A copy of the prompt templates that the renderer loads from (edit a file, then clear the cache)."""
    copy = tmp_path / "prompts"
    shutil.copytree(Path(render.__file__).parent, copy, ignore=shutil.ignore_patterns("*.py", "__pycache__"))
    monkeypatch.setattr(render, "_DIR", copy)
    render.load_template.cache_clear()
    yield copy
    render.load_template.cache_clear()


def test_an_unchanged_configuration_resumes(pipeline_env: Path, tmp_path: Path) -> None:
    run_dir = tmp_path / "run"
    first = run_stages(config(), run_dir, stages="generate_codes", progress=False)
    again = run_stages(config(), run_dir, stages="generate_codes", progress=False)
    assert first.model_calls > 0 and again.model_calls == 0
    stored = json.loads((run_dir / "config.json").read_text())
    assert stored["fingerprint"] == config().fingerprint() and stored["config_hash"] == config().config_hash()


def test_a_changed_template_text_refuses_the_resume_naming_the_template(
    pipeline_env: Path, tmp_path: Path, edited_templates: Path
) -> None:
    run_dir = tmp_path / "run"
    run_stages(config(), run_dir, stages="generate_codes", progress=False)
    path = edited_templates / "codegen.txt"
    path.write_text(path.read_text().replace("--- user", "--- user\nThink step by step.", 1))
    render.load_template.cache_clear()
    with pytest.raises(RunDirError, match="prompt template 'codegen'") as err:
        run_stages(config(), run_dir, stages="generate_codes", progress=False)
    assert "new --run-dir" in str(err.value) and "template 'ebt'" not in str(err.value)


def test_a_changed_sandbox_limit_refuses_the_resume_naming_it(pipeline_env: Path, tmp_path: Path) -> None:
    # no stage holding records runs a program yet: the change is safe and the run goes on under it
    run_dir = tmp_path / "run"
    run_stages(config(ebts_per_task=1), run_dir, stages="generate_codes", progress=False)
    run_stages(config(ebts_per_task=1, sandbox={"timeout_s": 5}), run_dir, stages="generate_codes", progress=False)
    # once a stage that runs programs holds records, the same kind of change is refused, naming the key and the stage
    stages = ["generate_tests", "evaluate_code_test_pairs"]
    run_stages(config(ebts_per_task=1, sandbox={"timeout_s": 5}), run_dir, stages=stages, progress=False)
    with pytest.raises(RunDirError, match=r"config key 'sandbox\.timeout_s': 5\.0 -> 10\.0") as err:
        run_stages(config(ebts_per_task=1), run_dir, stages="generate_codes", progress=False)
    assert "sandbox.timeout_s in evaluate_code_test_pairs)" in str(err.value)
    assert "generate_codes" not in str(err.value) and "generate_tests" not in str(err.value)


def test_a_new_simulator_version_refuses_the_resume(
    pipeline_env: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    run_dir = tmp_path / "run"
    run_stages(config(), run_dir, stages="generate_codes", progress=False)
    monkeypatch.setattr(sim_version_module, "sim_version", lambda: "0123456789abcdef")
    with pytest.raises(RunDirError, match=r"simulated model's code \(sim version\): \w+ -> 0123456789abcdef"):
        run_stages(config(), run_dir, stages="generate_codes", progress=False)


def test_the_sim_version_counts_only_when_a_role_is_simulated() -> None:
    assert "sim" in config().fingerprint()
    real = config(models={"coders": ["openai:gpt-5-mini"]})
    assert "sim" not in real.fingerprint()


def test_the_bigcodebench_selection_file_is_part_of_the_hash(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    selection = tmp_path / "selection.json"
    selection.write_text('{"version": 1}\n')
    monkeypatch.setenv("TFR_SELECTION_FILE", str(selection))
    with_bcb = config(benchmarks=["humaneval", "bigcodebench"])
    before = with_bcb.fingerprint()
    selection.write_text('{"version": 1, "changed": true}\n')
    after = with_bcb.fingerprint()
    assert before["bigcodebench_selection"] != after["bigcodebench_selection"]
    assert fp.describe_changes(before, after) == [
        f"the BigCodeBench selection file: {before['bigcodebench_selection']} -> {after['bigcodebench_selection']}"
    ]
    assert "bigcodebench_selection" not in config().fingerprint()


def test_a_registered_hash_input_is_hashed_and_named(monkeypatch: pytest.MonkeyPatch) -> None:
    datasets = {"replay:codet-humaneval": "aaaa"}
    monkeypatch.setitem(fp.HASH_INPUTS, "replay", lambda cfg: dict(datasets))
    before_hash, before = config().config_hash(), config().fingerprint()
    datasets["replay:codet-humaneval"] = "bbbb"
    assert config().config_hash() != before_hash
    assert fp.describe_changes(before, config().fingerprint()) == ["replay input 'codet-humaneval': aaaa -> bbbb"]


def test_transport_settings_are_not_part_of_the_hash() -> None:
    moved = config(concurrency={"model_calls": 2}, model_settings={"retry": {"max_attempts": 2}}, run_name="other")
    assert moved.config_hash() == config().config_hash()


def test_a_run_without_stored_parts_still_refuses_and_says_why(tmp_path: Path) -> None:
    RunStore(tmp_path).bind_config({"seed": 0}, "hash-a")
    with pytest.raises(RunDirError, match="cannot be named.*new --run-dir"):
        RunStore(tmp_path).bind_config({"seed": 1}, "hash-b", {"seed": "1"})
