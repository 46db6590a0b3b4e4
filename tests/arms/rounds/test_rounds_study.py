"""Multi-round backprompting end to end (offline, simulated model): what the chains record, and a SIGKILL in
round 2 then rerun equals an uninterrupted run (nothing lost or doubled).

To add a variant (``seeds: [0, 1, 2]``), add it to ``STUDIES``: the helpers find every ``results.json`` and every
step checkpoint under the run directory, wherever a variant puts them.
"""

from __future__ import annotations

import signal
import time
from pathlib import Path
from typing import Any

import pytest
import yaml

from tests.helpers.checkpoints import checkpoint_keys, log_paths
from tests.pipeline.conftest import results_json
from tests.pipeline.test_resume import tfr_stage_all
from tfr_helpers.arms.rounds import ARM
from tfr_helpers.arms.rounds.stages.step import normal_code
from tfr_helpers.pipeline.engine.codec import load_results
from tfr_helpers.records import Results
from tfr_helpers.results_file import has_results

PARAMS: dict[str, Any] = {
    "run_name": "rounds",
    "seed": 1,
    "benchmarks": ["humaneval", "mbpp"],
    "tasks": {"humaneval": 3, "mbpp": 3},
    "models": {"coders": ["sim:default"]},
    "ebts_per_task": 3,
    "pbts_per_task": 1,
    "screening": ["reject_test_code_errors"],
    "refinement": {"rounds": 3, "round_tests": "fresh", "stop_when_passing": True},
    "concurrency": {"checkpoint_every": 2, "sandbox_workers": 2},
    "sandbox": {"hypothesis_max_examples": 10},
    "model_settings": {"cache_mode": "off"},  # a call redone after the kill must not differ (``cached`` flag)
}
STUDIES: dict[str, dict[str, Any]] = {"rounds": PARAMS}
"""Variants of the kill/resume acceptance, by name."""


def all_results(run_dir: Path) -> dict[str, Any]:
    """Every results file under ``run_dir`` (relative path of its run -> its timing-free content)."""
    runs = sorted({p.parent for p in [*run_dir.rglob("results.json"), *run_dir.rglob("results.json.gz")]})
    return {str(run.relative_to(run_dir)): results_json(run) for run in runs}


def step_keys(run_dir: Path) -> list[str]:
    """The keys of every round-step checkpoint line under ``run_dir``, in file order."""
    return checkpoint_keys(log_paths(run_dir, "checkpoints/round_steps_*.jsonl", recursive=True))


def _run(params: Path, run_dir: Path) -> str:
    proc = tfr_stage_all(params, run_dir)
    out, err = proc.communicate(timeout=400)
    assert proc.returncode == 0, err.decode()[-2000:]
    return out.decode()


@pytest.fixture(scope="module")
def baselines(tmp_path_factory: pytest.TempPathFactory, shared_benchmarks: Path) -> dict[str, tuple[Path, Path]]:
    """Each variant's params file and its uninterrupted run directory."""
    import os

    os.environ.setdefault("TFR_BENCHMARK_DIR", str(shared_benchmarks))
    out = {}
    for name, params in STUDIES.items():
        root = tmp_path_factory.mktemp(name)
        path = root / "params.yaml"
        path.write_text(yaml.safe_dump(params))
        _run(path, root / "run")
        out[name] = (path, root / "run")
    return out


@pytest.fixture(scope="module")
def results(baselines: dict[str, tuple[Path, Path]]) -> Results:
    return load_results(baselines["rounds"][1])


@pytest.mark.slow
def test_chains_run_up_to_three_rounds_with_fresh_suites(results: Results) -> None:
    rounds = results.part(ARM)
    assert rounds.rounds == 3 and rounds.round_tests == "fresh"
    assert len(rounds.chains) == sum(bool(c.code) for c in results.generated_codes) > 0
    assert all(
        1 <= len(c.steps) <= 3 and [s.round for s in c.steps] == list(range(1, len(c.steps) + 1)) for c in rounds.chains
    )
    fresh = {t.test_id for rt in rounds.round_tests_generated for t in rt.tests}
    assert fresh and all("|r2|" in i or "|r3|" in i for i in fresh)
    assert {(s.model, s.task_id, s.round) for s in rounds.suites} == {
        (rt.model, rt.task_id, rt.round) for rt in rounds.round_tests_generated
    }
    for chain in rounds.chains:  # round 1's suite is generate_tests'; later ones are fresh
        later = [i for s in chain.steps[1:] for i in s.failed]
        assert all(i in fresh for i in later) and not any(i in fresh for i in chain.steps[0].failed)


@pytest.mark.slow
def test_round_one_is_the_seed_studys_refinement_when_one_test_failed(results: Results) -> None:
    pairs = {p.pair_id: p for p in results.pair_evaluations}
    refined = {r.feedback_id: r for r in results.refinements}
    single = [c for c in results.part(ARM).chains if len(c.steps[0].failed) == 1]
    assert single
    for chain in single:
        step, fid = chain.steps[0], chain.steps[0].failed[0]
        assert step.feedback == pairs[fid].feedback.text  # type: ignore[union-attr]
        assert step.code == refined[fid].code  # the same request: the same answer


@pytest.mark.slow
def test_steps_record_unreliable_feedback_collisions_and_stops(results: Results) -> None:
    reliable = {p.test_id: p.reference.status == "passed" for p in results.pair_evaluations}
    fresh = {i: ok for s in results.part(ARM).suites for i, ok in zip(s.test_ids, s.reference_passed, strict=True)}
    codes = {(c.model, c.task_id, c.sample_index): c.code or "" for c in results.generated_codes}
    for chain in results.part(ARM).chains:
        seen = {normal_code(codes[(chain.model, chain.task_id, chain.code_index)])}
        for step in chain.steps:
            assert step.unreliable == [i for i in step.failed if not {**reliable, **fresh}[i]]
            if step.action == "refined":
                assert step.collision == (normal_code(step.code or "") in seen)
                seen.add(normal_code(step.code or ""))
            if step.action == "no_code":
                assert step.parse_error and step.code is None and step.benchmark_after == step.benchmark_before
            if step.action == "stopped":
                assert not step.failed and step.suite_size > 0 and step is chain.steps[-1]
    assert any(s.action == "stopped" for c in results.part(ARM).chains for s in c.steps)


@pytest.mark.slow
@pytest.mark.parametrize("study", list(STUDIES))
def test_sigkill_in_round_two_then_rerun_equals_uninterrupted(
    baselines: dict[str, tuple[Path, Path]], tmp_path: Path, study: str
) -> None:
    params, baseline = baselines[study]
    run_dir = tmp_path / "run"
    proc = tfr_stage_all(params, run_dir)
    deadline = time.monotonic() + 300
    # round 1 of the first chunk of chains is checkpointed: the stage is now working on round 2
    while not any(k.endswith("|r1") for k in step_keys(run_dir)) and proc.poll() is None and time.monotonic() < deadline:
        time.sleep(0.002)
    proc.send_signal(signal.SIGKILL)
    proc.wait()
    assert proc.returncode == -signal.SIGKILL, "the run finished before it could be killed"
    killed = step_keys(run_dir)
    assert killed and not all_results(run_dir)
    assert not any(k.endswith("|r3") for k in killed), "killed after round 2, not in it"

    _run(params, run_dir)
    assert all_results(run_dir) == all_results(baseline)
    keys = step_keys(run_dir)
    assert len(keys) == len(set(keys)) >= len(killed) and keys[: len(killed)] == killed  # kept, not redone
    assert "this invocation: 0 model calls, 0 sandbox runs" in _run(params, run_dir)


@pytest.mark.slow
def test_same_suite_without_stopping_and_replayed_coders_not_run(tmp_path: Path, shared_benchmarks: Path) -> None:
    import os

    os.environ.setdefault("TFR_BENCHMARK_DIR", str(shared_benchmarks))
    replayed = "replay:reflexion-gpt4-humaneval"
    params = {
        **PARAMS,
        "benchmarks": ["humaneval"],
        "tasks": {"humaneval": 3},
        "models": {"coders": ["sim:default", replayed]},
        "ebts_per_task": 3,
        "pbts_per_task": 0,
        "refinement": {"rounds": 2, "round_tests": "same", "stop_when_passing": False},
    }
    path = tmp_path / "params.yaml"
    path.write_text(yaml.safe_dump(params))
    _run(path, tmp_path / "run")
    results = load_results(tmp_path / "run")
    rounds = results.part(ARM)
    assert not rounds.round_tests_generated and not rounds.suites
    assert rounds.chains and {c.model for c in rounds.chains} == {"sim:default"}  # replayed: no refiner, no chain
    assert [(s.model, s.stage, s.reason) for s in rounds.not_run] == [(replayed, "backprompt_rounds", "not run: no refiner")]
    for chain in rounds.chains:
        suite = {t.test_id for t in results.generated_tests if (t.model, t.task_id) == (chain.model, chain.task_id)}
        assert len(chain.steps) == 2 and chain.round_tests == "same"  # no early stop
        assert all(s.suite_size == len(suite) and set(s.failed) <= suite for s in chain.steps)
        assert all(s.action != "stopped" for s in chain.steps)


@pytest.mark.slow
def test_a_round_two_call_without_reply_leaves_its_chains_undone_then_a_rerun_completes(
    baselines: dict[str, tuple[Path, Path]], tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    from tfr_helpers.models.jobs import CallResult
    from tfr_helpers.pipeline import run_stages
    from tfr_helpers.pipeline.config.experiment import config_from_dict
    from tfr_helpers.pipeline.engine.context import RunContext
    from tfr_helpers.pipeline.engine.faults import RunIncomplete

    real = RunContext.call_models

    def no_reply_in_round_two(self: RunContext, jobs: Any, stage: str) -> list[CallResult]:
        out = real(self, jobs, stage)
        if stage != "backprompt_rounds" or not jobs or jobs[0].sample_index != 1:
            return out
        return [
            CallResult(None, r.record.model_copy(update={"error": "ProviderUnavailable: injected"}), r.prompt) for r in out
        ]

    config, run_dir = config_from_dict(PARAMS), tmp_path / "run"
    monkeypatch.setattr(RunContext, "call_models", no_reply_in_round_two)
    with pytest.raises(RunIncomplete, match="backprompt_rounds"):
        run_stages(config, run_dir, progress=False)
    keys = step_keys(run_dir)
    assert any(k.endswith("|r1") for k in keys) and not any(k.endswith("|r2") for k in keys)
    assert not has_results(run_dir)

    monkeypatch.setattr(RunContext, "call_models", real)
    run_stages(config, run_dir, progress=False)
    assert all_results(run_dir) == all_results(baselines["rounds"][1])
    assert step_keys(run_dir)[: len(keys)] == keys
