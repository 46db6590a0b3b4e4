"""Each stage declares the configuration it reads; the engine derives what a change makes stale.

For every fingerprinted leaf key of the configuration (``run_name``, ``concurrency`` and ``budget_usd`` are not in
the fingerprint), :data:`READERS` below says which stages read it, written from the stages' code. The engine's
``stale_stages`` must give exactly those stages and the stages after them (``Stage.after``, transitively): a stage
whose declared reads omit a key it uses, or a key that no stage declares, fails here. A finished run then checks
the engine's decision where it is taken: ``bind_config`` accepts a change no stage holding records reads and
refuses one they read, naming exactly those stages."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from tfr_helpers.errors import RunDirError
from tfr_helpers.pipeline import load_config, run_stages
from tfr_helpers.pipeline.config.experiment import ExperimentConfig
from tfr_helpers.pipeline.engine.stage import stale_stages
from tfr_helpers.pipeline.study import RUN_ORDER
from tfr_helpers.results_file import has_results

SMOKE = Path(__file__).resolve().parents[3] / "papermill_params" / "smoke.yaml"
BASE = ("generate_codes", "generate_tests", "evaluate_code_test_pairs", "screen_feedback", "refine_codes")
EVALUATIONS = ("evaluate_code_test_pairs", "evaluate_refined_codes", "oracle_evaluate_refined", "control_evaluate")
PROGRAM_RUNS = (*EVALUATIONS, "screen_feedback", "oracle_repair_tests", "evaluate_round_suites", "backprompt_rounds")
TRAJECTORY_STAGES = (
    "evaluate_trajectory_steps",
    "screen_trajectory_steps",
    "judge_trajectory_outcomes",
    "measure_test_lists",
)
RUNS = (*PROGRAM_RUNS, *TRAJECTORY_STAGES)
CALLS = BASE[:2] + ("screen_feedback", "refine_codes", "oracle_refine_codes", "control_resample", "control_retry")
CALLS += ("control_placebo", "generate_round_tests", "backprompt_rounds")
TESTERS = ("generate_tests", "generate_round_tests")
REFINERS = ("refine_codes", "oracle_refine_codes", "control_resample", "control_retry", "control_placebo")
REFINERS += ("backprompt_rounds",)

READERS: dict[str, tuple[str, ...]] = {
    "benchmarks": ("generate_codes", "generate_tests"),
    "tasks": ("generate_codes", "generate_tests"),
    "models.coders": ("generate_codes", *TESTERS),
    "models.tester": TESTERS,
    "models.judge": ("screen_feedback",),
    "models.refiner": REFINERS,
    "code_samples_per_task": ("generate_codes",),
    "test_samples_per_task": TESTERS,
    "ebts_per_task": TESTERS,
    "pbts_per_task": TESTERS,
    "sampling": CALLS,
    "model_settings": CALLS,
    "replay_datasets": CALLS,
    "seed": (*CALLS, *RUNS),
    "sandbox": RUNS,
    "plus_tiers": RUNS,
    # selects screen_feedback's items (one per strategy) and screen_trajectory_steps' (keyed by the strategy list):
    # recorded decisions stay valid, another list's are computed beside them
    "screening": (),
    "refinement.controls": (),  # selects the control stages' items: a control not listed has none
    "refinement.oracle_repair": ("oracle_repair_tests", "oracle_refine_codes", "oracle_evaluate_refined"),
    "refinement.rounds": ("generate_round_tests", "evaluate_round_suites", "backprompt_rounds"),
    "refinement.round_tests": ("generate_round_tests", "evaluate_round_suites", "backprompt_rounds"),
    "refinement.stop_when_passing": ("backprompt_rounds",),
    "trajectories": TRAJECTORY_STAGES,
}
"""Which stages read each configuration key (a key covers the keys under it), as their code does."""

OUTSIDE_STAGES = {"seeds": "each seed is a run directory of its own, whose configuration has seeds: null"}
"""Keys no stage reads, and why (a change of one makes every stage stale, as for any part no stage declares)."""

EVERY_ARM = {
    "refinement": {"rounds": 2, "oracle_repair": True, "controls": ["resample", "retry", "placebo"]},
    "seeds": [0, 1],
    "trajectories": ["replay:reflexion-gpt4-humaneval-2iters"],
}


def _full_config(tmp_path: Path) -> ExperimentConfig:
    """The smoke study with every arm and every optional key on, so that every key is a fingerprint part."""
    for name in ("c.jsonl", "t.jsonl"):
        (tmp_path / name).write_text("", encoding="utf-8")
    data: dict[str, Any] = {
        **EVERY_ARM,
        "replay_datasets": {"d": {"code": str(tmp_path / "c.jsonl"), "tests": str(tmp_path / "t.jsonl")}},
    }
    return load_config(SMOKE, data)


def _expected(part: str) -> list[str]:
    """The readers of ``part`` (from :data:`READERS`) and every stage after one of them, in run order."""
    key = next((k for k in READERS if part == k or part.startswith(k + ".")), None)
    assert key is not None, f"config key {part!r} has no entry in READERS: declare which stages read it"
    stale = set(READERS[key])
    for stage in RUN_ORDER:
        if any(name in stale for name in stage.after):
            stale.add(stage.name)
    return [s.name for s in RUN_ORDER if s.name in stale and s.checkpoint is not None]


def test_every_fingerprinted_config_key_makes_exactly_its_readers_and_what_follows_stale(
    tmp_path: Path, shared_benchmarks: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("TFR_BENCHMARK_DIR", str(shared_benchmarks))
    config = _full_config(tmp_path)
    # the configuration's keys: not the templates, the simulator, the selection or the files' hashes
    parts = [p for p in config.fingerprint() if ":" not in p and p not in ("sim", "bigcodebench_selection")]
    parts = [p for p in parts if not p.startswith("trajectories.")]
    assert {"sandbox.timeout_s", "refinement.controls", "model_settings.sampling.seed", "seeds"} <= set(parts)
    checkpointed = [s for s in RUN_ORDER if s.checkpoint is not None]
    derived = stale_stages(parts, checkpointed)
    for part in parts:
        if part in OUTSIDE_STAGES:
            assert derived[part] == [s.name for s in checkpointed], part
            continue
        assert derived[part] == _expected(part), part


def test_a_stage_reads_every_prompt_template_it_renders() -> None:
    readers = {s.name: {k for k in s.reads or () if k.startswith("template:")} for s in RUN_ORDER if s.checkpoint}
    assert readers["generate_codes"] == readers["control_resample"] == {"template:codegen"}
    assert readers["control_retry"] == {"template:retry"} and readers["control_placebo"] == {"template:placebo"}
    assert readers["screen_feedback"] == {"template:judge", "template:judge_reasoning"}
    assert all(readers[s] == {"template:refine"} for s in ("refine_codes", "oracle_refine_codes", "backprompt_rounds"))


def test_a_finished_run_accepts_a_change_no_stage_with_records_reads_and_refuses_one_they_read(
    tmp_path: Path, shared_benchmarks: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("TFR_BENCHMARK_DIR", str(shared_benchmarks))
    monkeypatch.setenv("TFR_CACHE_DIR", str(tmp_path / "cache"))
    tiny = {"benchmarks": ["humaneval"], "tasks": 1, "pbts_per_task": 0, "screening": []}
    run = tmp_path / "run"
    generated = run_stages(load_config(SMOKE, tiny), run, ["generate_codes", "generate_tests"], progress=False)
    assert generated.model_calls > 0
    # no stage holding records runs programs: a new time limit is accepted, and the stages run on
    again = run_stages(load_config(SMOKE, {**tiny, "sandbox.timeout_s": 5}), run, progress=False)
    assert again.model_calls > 0 and again.sandbox_runs > 0  # refinement's calls and every program run
    assert has_results(run)
    with pytest.raises(RunDirError) as refused:
        run_stages(load_config(SMOKE, {**tiny, "sandbox.timeout_s": 5, "ebts_per_task": 2}), run, progress=False)
    named = str(refused.value).split("records that depend on it: ", 1)[1]
    assert "generate_tests" in named and "evaluate_refined_codes" in named and "generate_codes" not in named
