"""SIGKILL a multi-round, multi-base study in round 2 of its second seed, rerun: every seed's results equal an
uninterrupted run's, and the steps recorded before the kill are kept, not redone."""

from __future__ import annotations

import os
import signal
import time
from pathlib import Path
from typing import Any

import pytest
import yaml

from tests.helpers.checkpoints import checkpoint_keys, log_paths
from tfr_helpers.pipeline.engine.seed_dirs import seed_dir
from tfr_helpers.results_file import has_results

from .conftest import results_json
from .test_resume import tfr_stage_all

SEEDS = [0, 1, 2]  # the acceptance: rounds 3, seeds [0, 1, 2], killed in round 2 (of the second seed)
PARAMS: dict[str, Any] = {
    "run_name": "seeds_resume",
    "benchmarks": ["humaneval", "mbpp"],
    "tasks": {"humaneval": 3, "mbpp": 3},
    "models": {"coders": ["sim:weak"]},
    "ebts_per_task": 3,
    "pbts_per_task": 1,
    "screening": ["reject_test_code_errors"],
    "refinement": {"rounds": 3, "round_tests": "fresh", "stop_when_passing": True},
    "concurrency": {"checkpoint_every": 2, "sandbox_workers": 2},
    "sandbox": {"hypothesis_max_examples": 10},
    "model_settings": {"cache_mode": "off"},  # a call redone after the kill must not differ (``cached`` flag)
    "seeds": SEEDS,
}


def _all_results(run_dir: Path) -> dict[int, Any]:
    return {seed: results_json(seed_dir(run_dir, seed)) for seed in SEEDS}


@pytest.fixture(scope="module")
def baseline(tmp_path_factory: pytest.TempPathFactory, shared_benchmarks: Path) -> tuple[Path, dict[int, Any]]:
    """An uninterrupted multi-seed run: its params file and every seed's results without timing fields."""
    root = tmp_path_factory.mktemp("seeds_baseline")
    params = root / "params.yaml"
    params.write_text(yaml.safe_dump(PARAMS))
    os.environ.setdefault("TFR_BENCHMARK_DIR", str(shared_benchmarks))
    proc = tfr_stage_all(params, root / "run")
    _, err = proc.communicate(timeout=300)
    assert proc.returncode == 0, err.decode()[-2000:]
    return params, _all_results(root / "run")


def step_keys(run_dir: Path) -> list[str]:
    """The keys of one run directory's round-step checkpoint (``round_steps_<config hash>.jsonl``), in file order."""
    return checkpoint_keys(log_paths(run_dir, "checkpoints/round_steps_*.jsonl"))


@pytest.mark.slow
def test_sigkill_in_round_two_of_the_second_seed_then_rerun_equals_uninterrupted(
    baseline: tuple[Path, dict[int, Any]], tmp_path: Path
) -> None:
    params, expected = baseline
    run_dir = tmp_path / "run"
    second = seed_dir(run_dir, SEEDS[1])
    proc = tfr_stage_all(params, run_dir)
    deadline = time.monotonic() + 300
    # round 1 of the second seed's first chunk of chains is checkpointed: that seed is now working on round 2
    while not any(k.endswith("|r1") for k in step_keys(second)) and proc.poll() is None and time.monotonic() < deadline:
        time.sleep(0.002)
    proc.send_signal(signal.SIGKILL)
    proc.wait()
    assert proc.returncode == -signal.SIGKILL, "the run finished before it could be killed"
    killed = step_keys(second)
    assert killed and not any(k.endswith("|r3") for k in killed), "killed after round 2, not in it"
    assert has_results(seed_dir(run_dir, SEEDS[0])) and not has_results(second)

    rerun = tfr_stage_all(params, run_dir)
    out, err = rerun.communicate(timeout=300)
    assert rerun.returncode == 0, err.decode()[-2000:]
    assert _all_results(run_dir) == expected
    keys = step_keys(second)
    assert len(keys) == len(set(keys)) >= len(killed) and keys[: len(killed)] == killed  # kept, not redone
    again = tfr_stage_all(params, run_dir)  # finished: every seed reloaded, no work
    out, _ = again.communicate(timeout=120)
    assert "this invocation: 0 model calls, 0 sandbox runs" in out.decode()
