"""The Ray executor on a real two-node cluster on this machine: the smoke study gives the local executor's
results, and a node removed while a stage runs loses or duplicates no outcome."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
import yaml

from tests.helpers.env import missing
from tests.pipeline.conftest import results_json
from tfr_helpers.errors import TfrError

SMOKE = Path(__file__).resolve().parents[2] / "papermill_params" / "smoke.yaml"
TFR = str(Path(sys.executable).parent / "tfr")
RUN_TIMEOUT_S = 300
"""Time box of one ``tfr stage all`` (a hung cluster fails the test instead of blocking CI)."""

try:
    from tfr_helpers.executors.ray_start import import_ray

    ray = import_ray()  # the first import of ray (with RAY_ENABLE_UV_RUN_RUNTIME_ENV=0)
except TfrError:
    ray = None


@pytest.fixture(scope="module")
def cluster() -> Iterator[Any]:
    """A head and a second node, one CPU each (``tests/executors/cluster.py``)."""
    if ray is None:
        missing("ray is not installed: uv sync --extra ray")
    from tests.executors.cluster import start_cluster

    started = start_cluster()
    yield started
    started.shutdown()


def small_smoke(tmp_path: Path, **concurrency: Any) -> Path:
    """papermill_params/smoke.yaml on 4 HumanEval and 4 MBPP tasks (light workers only: each node starts its
    own pool, and BigCodeBench's heavy preload twice over would double the test's time on 2 cores), in
    checkpoints of 4 items (so a stage has several batches and a node can go away between them)."""
    params = yaml.safe_load(SMOKE.read_text())
    params["benchmarks"] = ["humaneval", "mbpp"]
    params["tasks"] = {"humaneval": 4, "mbpp": 4}
    params["concurrency"] = {"checkpoint_every": 4, **concurrency}
    path = tmp_path / f"smoke-{concurrency.get('executor', 'local')}.yaml"
    path.write_text(yaml.safe_dump(params))
    return path


def stage_all(params: Path, run_dir: Path, cache: Path) -> subprocess.Popen[str]:
    """``tfr stage all`` in a subprocess (the driver), with its own caches."""
    env = {**os.environ, "TFR_CACHE_DIR": str(cache)}
    return subprocess.Popen(
        [TFR, "stage", "all", "--params", str(params), "--run-dir", str(run_dir), "--no-progress"],
        stdout=subprocess.PIPE,
        stderr=subprocess.STDOUT,
        text=True,
        env=env,
    )


def finish(proc: subprocess.Popen[str]) -> tuple[int, str]:
    """Exit code and output of a driver, time-boxed."""
    try:
        out, _ = proc.communicate(timeout=RUN_TIMEOUT_S)
    except subprocess.TimeoutExpired:
        proc.kill()
        out, _ = proc.communicate()
        pytest.fail(f"tfr stage all did not finish in {RUN_TIMEOUT_S} s:\n{out[-3000:]}")
    return proc.returncode, out


def canonical(run_dir: Path) -> str:
    """results.json without timing fields (as tests/pipeline/test_determinism.py compares runs) and without the
    executor settings echoed in its configuration (the one input the two runs differ in, by design)."""
    data = results_json(run_dir)
    for key in ("executor", "ray_address"):
        data["config"]["concurrency"].pop(key)
    return json.dumps(data, indent=1, sort_keys=True)


@pytest.fixture(scope="module")
def local_results(tmp_path_factory: pytest.TempPathFactory, shared_benchmarks: Path) -> str:
    """The small smoke study's results through the local executor."""
    tmp = tmp_path_factory.mktemp("local")
    os.environ["TFR_BENCHMARK_DIR"] = str(shared_benchmarks)
    code, out = finish(stage_all(small_smoke(tmp), tmp / "run", tmp / "cache"))
    assert code == 0, out[-3000:]
    return canonical(tmp / "run")


@pytest.mark.slow
def test_smoke_study_on_two_nodes_equals_local(cluster: Any, local_results: str, tmp_path: Path) -> None:
    params = small_smoke(tmp_path, executor="ray", ray_address=cluster.address)
    code, out = finish(stage_all(params, tmp_path / "run", tmp_path / "cache"))
    assert code == 0, out[-3000:]
    assert canonical(tmp_path / "run") == local_results


@pytest.mark.slow
def test_node_removed_mid_stage_loses_no_outcome(cluster: Any, local_results: str, tmp_path: Path) -> None:
    params = small_smoke(tmp_path, executor="ray", ray_address=cluster.address)
    run_dir, cache = tmp_path / "run", tmp_path / "cache"
    proc = stage_all(params, run_dir, cache)
    checkpoint = run_dir / "checkpoints" / "test_execution_feedback.jsonl"
    deadline = time.monotonic() + RUN_TIMEOUT_S
    while not checkpoint.exists() and proc.poll() is None and time.monotonic() < deadline:
        time.sleep(0.2)  # the first chunk of evaluate_code_test_pairs is checkpointed: the stage is running
    assert proc.poll() is None, "the run ended before its evaluation stage could be interrupted"
    second = next(node for node in cluster.list_all_nodes() if node is not cluster.head_node)
    cluster.remove_node(second)
    code, out = finish(proc)
    assert "left the pool" in out, out[-3000:]  # the driver saw the node go (the executor's warning)
    if code != 0:  # the stage may stop with items undone: a rerun with the same run dir resumes
        code, out = finish(stage_all(params, run_dir, cache))
    assert code == 0, out[-3000:]
    assert canonical(run_dir) == local_results
