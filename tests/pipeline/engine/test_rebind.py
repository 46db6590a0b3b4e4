"""A run directory accepts a change of only the screening list: the records kept stay, the new strategies run."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from tests.helpers.checkpoints import log_lines, log_paths
from tests.pipeline.conftest import results_json
from tfr_helpers.errors import RunDirError
from tfr_helpers.pipeline import load_config, run_stages
from tfr_helpers.pipeline.engine import stage as fp
from tfr_helpers.pipeline.engine.stage import Inputs, Stage, registered_stages
from tfr_helpers.pipeline.engine.store import RunStore
from tfr_helpers.records import GeneratedCode

SMOKE = Path(__file__).resolve().parents[3] / "papermill_params" / "smoke.yaml"


def _stage(
    name: str,
    reads: tuple[str, ...] | None = None,
    records: tuple[type, ...] = (),
    produces: tuple[type, ...] = (),
    checkpoint: str | None = "x",
) -> Stage:
    inputs = None if reads is None else Inputs(records=records, settings=reads)
    return Stage(name, lambda items, ctx: [], lambda ctx, recs: [], checkpoint and name, inputs=inputs, produces=produces)


def test_a_change_blocks_its_readers_the_stages_built_from_their_records_and_for_an_undeclared_part_every_stage() -> None:
    stages = [
        _stage("gen", ("models", "seed"), produces=(GeneratedCode,)),
        _stage("eval", ("sandbox",), records=(GeneratedCode,)),
        _stage("plugin"),  # declares nothing: reads every part
        _stage("final", checkpoint=None),
    ]
    blocked = fp.blocking_stages(["models.coders", "sandbox.timeout_s", "sim"], stages, lambda name: True)
    assert blocked == {
        "models.coders": ["gen", "eval", "plugin"],
        "sandbox.timeout_s": ["eval", "plugin"],
        "sim": ["gen", "eval", "plugin"],
    }


def test_a_stage_without_records_never_blocks() -> None:
    stages = [_stage("gen", ("seed",)), _stage("eval", ("seed",))]
    blocked = fp.blocking_stages(["seed"], stages, lambda name: name == "eval")
    assert blocked == {"seed": ["eval"]}


STUDY = ("generate_codes", "generate_tests", "evaluate_code_test_pairs", "screen_feedback", "refine_codes")


def test_the_study_stages_are_unaffected_by_screening_only() -> None:
    stages = [s for s in registered_stages() if s.name in (*STUDY, "evaluate_refined_codes", "finalize_results")]
    blocked = fp.blocking_stages(["screening", "seed", "sandbox.timeout_s"], stages, lambda name: True)
    assert blocked["screening"] == []
    assert "generate_codes" in blocked["seed"] and "evaluate_code_test_pairs" in blocked["sandbox.timeout_s"]


def test_turning_on_rounds_or_the_oracle_arm_keeps_the_seed_study_records() -> None:
    stages = list(registered_stages())
    held = {s.checkpoint for s in stages if s.name in (*STUDY, "evaluate_refined_codes")}  # a finished base study
    assert len(held) == 6
    parts = ["refinement.rounds", "refinement.oracle_repair", "refinement.round_tests"]
    blocked = fp.blocking_stages(parts, stages, lambda name: name in held)
    assert blocked == {part: [] for part in parts}
    # the arms' own records do depend on their own settings
    oracle = [s for s in stages if s.name.startswith("oracle_")]
    assert oracle and fp.blocking_stages(["refinement.oracle_repair"], oracle, lambda name: True)[
        "refinement.oracle_repair"
    ] == [s.name for s in oracle]


def test_bind_config_rebinds_a_safe_change_and_records_it(tmp_path: Path) -> None:
    RunStore(tmp_path).bind_config({"screening": ["a"]}, "hash-a", {"screening": '["a"]', "seed": "0"})
    no_blockers = lambda parts: {part: [] for part in parts}  # noqa: E731
    RunStore(tmp_path).bind_config({"screening": ["b"]}, "hash-b", {"screening": '["b"]', "seed": "0"}, no_blockers)
    stored = json.loads((tmp_path / "config.json").read_text())
    assert stored["config_hash"] == "hash-b" and stored["config"] == {"screening": ["b"]}
    assert stored["rebound"] == [{"from": "hash-a", "changed": ["screening"]}]


def test_bind_config_refuses_a_change_naming_the_part_and_the_stages(tmp_path: Path) -> None:
    RunStore(tmp_path).bind_config({"seed": 0}, "hash-a", {"seed": "0"})
    blockers = lambda parts: {part: ["generate_codes"] for part in parts}  # noqa: E731
    with pytest.raises(RunDirError, match="config key 'seed': 0 -> 1; records that depend on it: seed in generate_codes"):
        RunStore(tmp_path).bind_config({"seed": 1}, "hash-b", {"seed": "1"}, blockers)
    assert json.loads((tmp_path / "config.json").read_text())["config_hash"] == "hash-a"


@pytest.mark.slow
def test_a_screening_change_reruns_only_the_new_strategies_and_equals_a_fresh_run(
    pipeline_env: Path, tmp_path: Path
) -> None:
    tasks = {"benchmarks": ["humaneval", "mbpp"], "tasks": {"humaneval": 4, "mbpp": 4}}
    first = load_config(SMOKE, {**tasks, "screening": ["llm_judge", "reject_test_code_errors"]})
    changed = load_config(SMOKE, {**tasks, "screening": ["llm_judge_reasoning", "reject_test_code_errors"]})
    run_stages(first, tmp_path / "run", progress=False)
    checkpoints = tmp_path / "run" / "checkpoints"
    kept = {p.name: log_lines(p) for p in log_paths(checkpoints, "*.jsonl") if p.name != "screening_results.jsonl"}
    screened = log_lines(checkpoints / "screening_results.jsonl")
    again = run_stages(changed, tmp_path / "run", progress=False)
    assert {p.name: log_lines(p) for p in log_paths(checkpoints, "*.jsonl") if p.name in kept} == kept
    assert again.model_calls > 0  # the new strategy's judge calls, and nothing else
    added = log_lines(checkpoints / "screening_results.jsonl")[len(screened) :]
    assert added and all('"key": "llm_judge_reasoning|' in line for line in added)
    run_stages(changed, tmp_path / "fresh", progress=False)
    assert results_json(tmp_path / "run") == results_json(tmp_path / "fresh")
    with pytest.raises(RunDirError, match="config key 'seed'.*generate_codes"):
        run_stages(load_config(SMOKE, {**tasks, "seed": 1, "screening": changed.screening}), tmp_path / "run")
