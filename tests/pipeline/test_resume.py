"""SIGKILL during a stage, then rerun: results.json equals an uninterrupted run's, nothing lost or doubled."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

from .conftest import results_json

PARAMS = {
    "run_name": "resume",
    "seed": 3,
    "benchmarks": ["humaneval", "mbpp"],
    "tasks": {"humaneval": 3, "mbpp": 3},
    "models": {"coders": ["sim:weak"]},
    "ebts_per_task": 3,
    "pbts_per_task": 1,
    "screening": ["reject_test_code_errors"],
    "concurrency": {"checkpoint_every": 1, "sandbox_workers": 2},
    "sandbox": {"hypothesis_max_examples": 10},
    # no response cache: a call redone after the kill must not differ from the first (``cached`` flag)
    "model_settings": {"cache_mode": "off"},
}


def tfr_stage_all(params: Path, run_dir: Path) -> subprocess.Popen[bytes]:
    """Start ``tfr stage all`` in a subprocess (the real command line)."""
    cmd = [
        str(Path(sys.executable).parent / "tfr"),
        "stage",
        "all",
        "--params",
        str(params),
        "--run-dir",
        str(run_dir),
        "--no-progress",
    ]
    return subprocess.Popen(cmd, stdout=subprocess.PIPE, stderr=subprocess.PIPE, env=os.environ.copy())


def lines(path: Path) -> int:
    return path.read_bytes().count(b"\n") if path.exists() else 0


@pytest.fixture(scope="module")
def baseline(tmp_path_factory: pytest.TempPathFactory, shared_benchmarks: Path) -> tuple[Path, object]:
    """An uninterrupted run of PARAMS, its params file, and its results without timing fields."""
    import yaml

    root = tmp_path_factory.mktemp("baseline")
    params = root / "params.yaml"
    params.write_text(yaml.safe_dump(PARAMS))
    os.environ.setdefault("TFR_BENCHMARK_DIR", str(shared_benchmarks))
    proc = tfr_stage_all(params, root / "run")
    out, err = proc.communicate(timeout=300)
    assert proc.returncode == 0, err.decode()[-2000:]
    return params, results_json(root / "run")


@pytest.mark.slow
@pytest.mark.parametrize(
    "checkpoint",
    ["generated_tests", "test_execution_feedback", "refined_codes"],
)
def test_sigkill_mid_stage_then_rerun_equals_uninterrupted(
    baseline: tuple[Path, object], tmp_path: Path, checkpoint: str
) -> None:
    params, expected = baseline
    run_dir = tmp_path / "run"
    path = run_dir / "checkpoints" / f"{checkpoint}.jsonl"
    proc = tfr_stage_all(params, run_dir)
    deadline = time.monotonic() + 240
    while lines(path) < 1 and proc.poll() is None and time.monotonic() < deadline:
        time.sleep(0.001)
    proc.send_signal(signal.SIGKILL)
    proc.wait()
    assert proc.returncode == -signal.SIGKILL, "the run finished before it could be killed"
    killed_at = lines(path)
    assert not (run_dir / "results.json").exists()

    rerun = tfr_stage_all(params, run_dir)
    out, err = rerun.communicate(timeout=300)
    assert rerun.returncode == 0, err.decode()[-2000:]
    assert results_json(run_dir) == expected
    keys = [json.loads(line)["key"] for line in path.read_text().splitlines() if line.strip()]
    assert len(keys) == len(set(keys)) > killed_at >= 1, (len(keys), killed_at)

    # a rerun of the finished run does no work
    again = tfr_stage_all(params, run_dir)
    out, _ = again.communicate(timeout=120)
    assert "this invocation: 0 model calls, 0 sandbox runs" in out.decode()
