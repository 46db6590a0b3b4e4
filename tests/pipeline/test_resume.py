"""SIGKILL during a stage, then rerun: results.json equals an uninterrupted run's, nothing lost or doubled."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from tests.helpers.checkpoints import checkpoint_keys
from tfr_helpers.results_file import has_results

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


def shrunk(path: Path, run_name: str, tasks: dict[str, int]) -> dict[str, Any]:
    """A params file made small for a kill test: fewer tasks, one item per checkpoint flush (a kill lands between
    items), two sandbox workers, few Hypothesis examples and no response cache (a redone call must not differ)."""
    import yaml

    data = yaml.safe_load(path.read_text())
    return data | {
        "run_name": run_name,
        "tasks": tasks,
        "concurrency": {"checkpoint_every": 1, "sandbox_workers": 2},
        "sandbox": {"hypothesis_max_examples": 10},
        "model_settings": {"cache_mode": "off"},
    }


def finished_run(data: dict[str, Any], root: Path, shared_benchmarks: Path, timeout: int = 300) -> tuple[Path, Path]:
    """Write ``data`` to ``root/params.yaml`` and run ``tfr stage all`` into ``root/run`` to the end: (params, run)."""
    import yaml

    params = root / "params.yaml"
    params.write_text(yaml.safe_dump(data))
    os.environ.setdefault("TFR_BENCHMARK_DIR", str(shared_benchmarks))
    proc = tfr_stage_all(params, root / "run")
    _, err = proc.communicate(timeout=timeout)
    assert proc.returncode == 0, err.decode()[-2000:]
    return params, root / "run"


def kill_then_rerun(
    params: Path,
    run_dir: Path,
    checkpoint: str,
    after_kill: Callable[[Path], None] | None = None,
    wait_s: float = 240,
    timeout: int = 300,
) -> None:
    """Start ``tfr stage all``, SIGKILL it once ``checkpoints/<checkpoint>.jsonl`` holds a line, rerun it to the end;
    the checkpoint then holds every item once, more than at the kill (``after_kill(run_dir)`` runs in between)."""
    path = run_dir / "checkpoints" / f"{checkpoint}.jsonl"
    proc = tfr_stage_all(params, run_dir)
    deadline = time.monotonic() + wait_s
    while lines(path) < 1 and proc.poll() is None and time.monotonic() < deadline:
        time.sleep(0.001)
    proc.send_signal(signal.SIGKILL)
    proc.wait()
    assert proc.returncode == -signal.SIGKILL, "the run finished before it could be killed"
    killed_at = lines(path)
    assert not has_results(run_dir)
    if after_kill is not None:
        after_kill(run_dir)
    rerun = tfr_stage_all(params, run_dir)
    _, err = rerun.communicate(timeout=timeout)
    assert rerun.returncode == 0, err.decode()[-2000:]
    keys = checkpoint_keys([path])  # the kill may have torn a line, which the rerun left in place
    assert len(keys) == len(set(keys)) > killed_at >= 1, (len(keys), killed_at)


@pytest.fixture(scope="module")
def baseline(tmp_path_factory: pytest.TempPathFactory, shared_benchmarks: Path) -> tuple[Path, object]:
    """An uninterrupted run of PARAMS, its params file, and its results without timing fields."""
    params, run = finished_run(PARAMS, tmp_path_factory.mktemp("baseline"), shared_benchmarks)
    return params, results_json(run)


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
    kill_then_rerun(params, run_dir, checkpoint)
    assert results_json(run_dir) == expected

    # a rerun of the finished run does no work
    again = tfr_stage_all(params, run_dir)
    out, _ = again.communicate(timeout=120)
    assert "this invocation: 0 model calls, 0 sandbox runs" in out.decode()
