"""Each stage declares what it reads (``Stage.inputs``: earlier stages' record types and settings); the engine
derives from the declarations what a change of configuration makes stale, and holds every stage to them.

No map of who reads what is written here: the expected stages come from the declarations, and the declarations
are checked against what the stages do. A run refuses a stage that reads a configuration key or renders a template
it does not declare (``SettingsView``), or asks for records it does not declare (``InputRecords``), so every run of
the study (each test that runs stages, each smoke run) checks that the declared reads are complete. Here a run
directory whose every stage holds records is then rebound to a configuration with one part changed, part after
part: it must refuse exactly the stages that declare the part and those built from their records, and accept a
change that no stage reads."""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path
from typing import Any

import pytest

from tfr_helpers.errors import ConfigError, RunDirError
from tfr_helpers.models.jobs import CallJob
from tfr_helpers.pipeline import load_config, run_stages
from tfr_helpers.pipeline.config.experiment import ExperimentConfig
from tfr_helpers.pipeline.config.fingerprint import covers
from tfr_helpers.pipeline.engine.context import RunContext
from tfr_helpers.pipeline.engine.runner import _blockers
from tfr_helpers.pipeline.engine.settings_view import SettingsView
from tfr_helpers.pipeline.engine.stage import (
    InputRecords,
    Inputs,
    Stage,
    UndeclaredInput,
    check_inputs,
    registered_stages,
    upstream,
)
from tfr_helpers.pipeline.engine.store import RunStore
from tfr_helpers.pipeline.study import RUN_ORDER
from tfr_helpers.records import GeneratedCode, GeneratedTest, PairEvaluation, Refinement
from tfr_helpers.results_file import has_results

SMOKE = Path(__file__).resolve().parents[3] / "papermill_params" / "smoke.yaml"

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


def _checkpointed() -> list[Stage]:
    return [s for s in RUN_ORDER if s.checkpoint is not None]


def _declared_stale(part: str, stages: Sequence[Stage]) -> list[str]:
    """From the declarations alone: the stages whose settings cover ``part`` (every stage for a part none
    declares), then every stage that reads a record type one of those, or of the stages so added, produces."""
    declared = any(covers(key, part) for s in stages for key in (*(s.reads or ()), *s.selects))
    stale = {s.name for s in stages if not declared or s.reads is None or any(covers(k, part) for k in s.reads)}
    for i, stage in enumerate(stages):
        made = {t for earlier in stages[:i] if earlier.name in stale for t in earlier.produces}
        if stage.inputs is not None and made & set(stage.inputs.records):
            stale.add(stage.name)
    return [s.name for s in stages if s.name in stale]


def test_every_fingerprinted_config_key_is_declared_by_a_stage(tmp_path: Path, shared_benchmarks: Path) -> None:
    config = _full_config(tmp_path)
    parts = [p for p in config.fingerprint() if ":" not in p and p not in ("sim", "bigcodebench_selection")]
    parts = [p for p in parts if not p.startswith("trajectories.")]
    assert {"sandbox.timeout_s", "refinement.controls", "model_settings.sampling.seed", "seeds"} <= set(parts)
    declared = [key for s in _checkpointed() for key in (*(s.reads or ()), *s.selects)]
    undeclared = sorted({p for p in parts if not any(covers(k, p) for k in declared)} - set(OUTSIDE_STAGES))
    assert not undeclared, f"no stage declares {undeclared}: add each to the Inputs(settings=...) of its readers"


def test_every_stage_declares_its_inputs_and_outputs_and_its_record_inputs_come_before_it() -> None:
    check_inputs(registered_stages())
    for stage in _checkpointed():
        assert stage.inputs is not None and stage.produces, stage.name
    assert upstream(RUN_ORDER[3], RUN_ORDER) == ("generate_codes", "generate_tests", "evaluate_code_test_pairs")


@pytest.fixture
def held_run(tmp_path: Path, shared_benchmarks: Path) -> tuple[ExperimentConfig, dict[str, Any], dict[str, str]]:
    config = _full_config(tmp_path)
    return config, config.model_dump(mode="json"), config.fingerprint()


def test_a_changed_part_refuses_exactly_its_declared_readers_and_what_is_built_from_their_records(
    tmp_path: Path, held_run: tuple[ExperimentConfig, dict[str, Any], dict[str, str]]
) -> None:
    """Every part of the fingerprint (configuration keys, templates, the simulator, the selection, the replayed
    files), changed alone in a run directory whose every stage holds records."""
    _, resolved, fingerprint = held_run
    assert {"template:refine", "sandbox.timeout_s", "screening", "sim"} <= set(fingerprint)
    stages = _checkpointed()
    seen_empty = seen_all = 0
    for n, part in enumerate(sorted(fingerprint)):
        store = RunStore(tmp_path / f"run{n}")
        store.bind_config(resolved, "before", fingerprint)
        for stage in stages:
            assert stage.checkpoint is not None
            store.checkpoint_path(stage.checkpoint).parent.mkdir(parents=True, exist_ok=True)
            store.checkpoint_path(stage.checkpoint).write_text('{"key": "k", "data": []}\n', encoding="utf-8")
        changed = {**fingerprint, part: fingerprint[part] + "-changed"}
        expected = _declared_stale(part, stages)
        if not expected:  # selects only (screening, refinement.controls): the run is rebound, its records kept
            store.bind_config(resolved, "after", changed, _blockers(store))
            seen_empty += 1
            continue
        with pytest.raises(RunDirError) as refused:
            store.bind_config(resolved, "after", changed, _blockers(store))
        named = str(refused.value).split("records that depend on it: ", 1)[1].split(")", 1)[0]
        assert named == f"{part} in {', '.join(expected)}", part
        seen_all += len(expected) == len(stages)
    assert seen_empty >= 2 and seen_all >= 3  # the selects; the simulator, the selection, the seeds at least


@pytest.mark.slow
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


# undeclared reads raise ------------------------------------------------------------------------------------


def test_a_stage_gets_only_the_record_types_it_declares() -> None:
    code = GeneratedCode.model_construct(model="m", task_id="T")
    records = {"generate_codes": [code], "generate_tests": []}
    inputs = InputRecords("evaluate_it", records, (GeneratedCode, GeneratedTest))
    assert inputs.of(GeneratedCode) == [code] and inputs.of(GeneratedTest) == []
    with pytest.raises(UndeclaredInput, match=r"'evaluate_it' asked for PairEvaluation records.*Inputs\(records="):
        inputs.of(PairEvaluation)
    assert InputRecords("all", records, None).of(GeneratedCode) == [code]  # the whole run's consolidation


def test_a_record_type_no_earlier_stage_produces_is_refused() -> None:
    def nothing(*args: object) -> list[Any]:
        return []

    first = Stage("first", nothing, nothing, "a", inputs=Inputs(), produces=(GeneratedCode,))
    second = Stage("second", nothing, nothing, "b", inputs=Inputs(records=(GeneratedCode, Refinement)))
    with pytest.raises(ConfigError, match="'second' reads Refinement records, which no stage before it produces"):
        check_inputs([first, second])
    assert upstream(second, [first, second]) == ("first",)


def test_a_stage_reads_only_the_settings_it_declares(tmp_path: Path, shared_benchmarks: Path) -> None:
    config = _full_config(tmp_path)
    view: Any = SettingsView(
        config, "refine_it", ("models.refiner", "sampling", "model_settings", "seed", "template:refine")
    )
    assert view.models is config.models and view.sampling is config.sampling
    assert view.concurrency is config.concurrency and view.run_name == config.run_name  # outside the fingerprint
    assert view.resolved_model_settings() == config.resolved_model_settings()  # it declares what it reads
    with pytest.raises(
        UndeclaredInput,
        match=r"called the configuration's code_samples_for\(\), which reads the key 'code_samples_per_task'",
    ):
        view.code_samples_for("sim:default")
    with pytest.raises(UndeclaredInput, match=r"fingerprint\(\), which reads the key"):  # declares nothing: reads all
        view.fingerprint()
    with pytest.raises(UndeclaredInput, match=r"'refine_it' read the configuration key 'sandbox'.*Inputs\(settings="):
        view.sandbox  # noqa: B018
    view.require_template("refine")
    with pytest.raises(UndeclaredInput, match="rendered the prompt template 'judge'"):
        view.require_template("judge")


def test_the_run_context_checks_the_template_a_stage_renders_and_the_sandbox_limits_it_reads(
    tmp_path: Path, shared_benchmarks: Path
) -> None:
    config = _full_config(tmp_path)
    ctx = RunContext(config, RunStore(tmp_path / "run"), {})
    job = CallJob("sim:default", "judge", "judge", {}, None)  # type: ignore[arg-type]
    with ctx.reading(SettingsView(config, "refine_it", ("models.refiner", "template:refine"))):
        with pytest.raises(UndeclaredInput, match="template 'judge'"):
            ctx.call_models([job], stage="refine_it")
        with pytest.raises(UndeclaredInput, match="key 'sandbox'"):
            ctx.limits(generated=True)
    assert ctx.config is config and ctx.limits(generated=True).timeout_s == config.sandbox.generated_test_timeout_s
