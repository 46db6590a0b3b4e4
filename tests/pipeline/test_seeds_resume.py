"""SIGKILL a multi-seed study inside its second seed, rerun: every seed's results equal an uninterrupted run's."""

from __future__ import annotations

import json
import os
import signal
import time
from pathlib import Path
from typing import Any

import pytest
import yaml

from tfr_helpers.pipeline.seeds import seed_dir

from .conftest import results_json
from .test_resume import lines, tfr_stage_all

SEEDS = [0, 1]
PARAMS: dict[str, Any] = {
    "run_name": "seeds_resume",
    "benchmarks": ["humaneval", "mbpp"],
    "tasks": {"humaneval": 3, "mbpp": 3},
    "models": {"coders": ["sim:weak"]},
    "ebts_per_task": 3,
    "pbts_per_task": 1,
    "screening": ["reject_test_code_errors"],
    "concurrency": {"checkpoint_every": 1, "sandbox_workers": 2},
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


@pytest.mark.slow
@pytest.mark.parametrize("checkpoint", ["refined_codes"])
def test_sigkill_in_the_second_seed_then_rerun_equals_uninterrupted(
    baseline: tuple[Path, dict[int, Any]], tmp_path: Path, checkpoint: str
) -> None:
    params, expected = baseline
    run_dir = tmp_path / "run"
    path = seed_dir(run_dir, SEEDS[1]) / "checkpoints" / f"{checkpoint}.jsonl"
    proc = tfr_stage_all(params, run_dir)
    deadline = time.monotonic() + 240
    while lines(path) < 1 and proc.poll() is None and time.monotonic() < deadline:
        time.sleep(0.001)
    proc.send_signal(signal.SIGKILL)
    proc.wait()
    assert proc.returncode == -signal.SIGKILL, "the run finished before it could be killed"
    killed_at = lines(path)
    assert (seed_dir(run_dir, SEEDS[0]) / "results.json").exists()
    assert not (seed_dir(run_dir, SEEDS[1]) / "results.json").exists()

    rerun = tfr_stage_all(params, run_dir)
    _, err = rerun.communicate(timeout=300)
    assert rerun.returncode == 0, err.decode()[-2000:]
    assert _all_results(run_dir) == expected
    keys = [json.loads(line)["key"] for line in path.read_text().splitlines() if line.strip()]
    assert len(keys) == len(set(keys)) > killed_at >= 1, (len(keys), killed_at)
