"""The shipped replay params files: the smoke run offline twice gives identical results; the main job and the
paid example validate, name the datasets and leave no role to the simulator."""

from __future__ import annotations

from pathlib import Path

import pytest
import yaml

from tests.pipeline.conftest import results_json
from tfr_helpers.analysis import load_results
from tfr_helpers.arms.trajectories import ARM as TRAJECTORIES
from tfr_helpers.models.provider_table import is_replayed, is_simulated
from tfr_helpers.pipeline import load_config, run_stages
from tfr_helpers.pipeline.config import scope
from tfr_helpers.pipeline.engine.tasks import select_tasks

PARAMS = Path(__file__).resolve().parents[2] / "papermill_params"
CODET, REFLEXION = "replay:codet-codegen16b-humaneval", "replay:reflexion-gpt4-humaneval"


def test_default_adds_both_datasets_beside_the_simulated_study(replay_env: Path) -> None:
    config = load_config(PARAMS / "default.yaml")
    assert config.models.coder_names == ["sim:default", CODET, REFLEXION]
    assert (config.code_samples_for(CODET), config.test_samples_for(CODET)) == (10, 10)
    assert (config.code_samples_for(REFLEXION), config.test_samples_for(REFLEXION)) == (1, 1)
    assert config.benchmarks_for(CODET) == config.benchmarks_for(REFLEXION) == ["humaneval"]
    for coder in (CODET, REFLEXION):  # no role of a real dataset falls to the simulated model
        roles = [config.models.tester_for(coder), config.models.refiner_for(coder), config.models.judge_for(coder)]
        assert not any(is_simulated(r) for r in roles)
    assert {"accept_all", "reject_test_code_errors"} <= set(config.screening)


def test_the_main_job_samples_the_demonstration_only(replay_env: Path, shared_benchmarks: Path) -> None:
    """The main job's BigCodeBench sample leaves every replayed coder's tasks as the full demonstration has them
    (the real data complete, the README's real headline numbers unchanged); only the simulated model's shrink."""
    main, full = load_config(PARAMS / "default.yaml"), load_config(PARAMS / "full.yaml")
    main_tasks, full_tasks = select_tasks(main), select_tasks(full)
    for coder in (CODET, REFLEXION):
        mine = [t.task_id for t in scope.coder_tasks(main, main_tasks, coder)]
        assert mine == [t.task_id for t in scope.coder_tasks(full, full_tasks, coder)] and len(mine) == 164
    sim = {b: sum(t.benchmark == b for t in scope.coder_tasks(main, main_tasks, "sim:default")) for b in main.benchmarks}
    assert sim == {"humaneval": 164, "mbpp": 427, "bigcodebench": 40}
    assert len(scope.coder_tasks(full, full_tasks, "sim:default")) == 929
    assert TRAJECTORIES.settings(main).trajectories == TRAJECTORIES.settings(full).trajectories
    a, b = (yaml.safe_load((PARAMS / name).read_text()) for name in ("default.yaml", "full.yaml"))
    assert {k: v for k, v in a.items() if k not in ("run_name", "tasks")} == {
        k: v for k, v in b.items() if k not in ("run_name", "tasks")
    }


def test_the_sensitivity_to_test_strength_is_a_run_of_its_own(replay_env: Path) -> None:
    """The main job leaves the EvalPlus tiers out; replay_test_strength.yaml runs the main job's replayed coders
    under the EvalPlus time-limit rule with HumanEval+ Mini's tiers (the README's table)."""
    main, strength = load_config(PARAMS / "default.yaml"), load_config(PARAMS / "replay_test_strength.yaml")
    assert main.plus_tiers == "none" and strength.plus_tiers == "mini"
    assert strength.models.coder_names == [CODET, REFLEXION]
    for coder in (CODET, REFLEXION):
        assert (strength.code_samples_for(coder), strength.test_samples_for(coder)) == (
            main.code_samples_for(coder),
            main.test_samples_for(coder),
        )
    assert strength.sandbox.time_limit.policy == main.sandbox.time_limit.policy == "evalplus"


def test_replay_openai_names_a_real_refiner_and_judge(replay_env: Path) -> None:
    config = load_config(PARAMS / "replay_openai.yaml")
    for coder in config.models.coder_names:
        assert is_replayed(coder)
        assert config.models.refiner_for(coder) == config.models.judge_for(coder) == "openai:gpt-5-mini"


@pytest.mark.slow
def test_replay_smoke_runs_offline_and_twice_gives_identical_results(
    replay_env: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("TFR_REPLAY_MIRROR", "http://127.0.0.1:9/no-network")  # a download attempt would fail
    config = load_config(PARAMS / "replay_smoke.yaml")
    first = run_stages(config, tmp_path / "a", progress=False)
    run_stages(config, tmp_path / "b", progress=False)
    assert results_json(tmp_path / "a") == results_json(tmp_path / "b")
    results = load_results(tmp_path / "a")
    assert {s.model for s in results.model_sources} == {CODET, REFLEXION}
    assert {s.source for s in results.model_sources} == {"replayed"} and not results.simulated
    assert len(results.tasks) == 20 and first.cases and first.calls == 20 * (10 + 10) + 20 * (1 + 1)
    assert {(s.model, s.reason) for s in results.skipped if s.task_id is None} == {
        (CODET, "not run: no refiner"),
        (REFLEXION, "not run: no refiner"),
    }
