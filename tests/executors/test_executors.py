"""The executor choice: proportional split, the missing-extra error, the local executor, the fingerprint."""

from __future__ import annotations

import sys

import pytest

from tfr_helpers.errors import TfrError
from tfr_helpers.executors import make_executor
from tfr_helpers.executors.ray_executor import split
from tfr_helpers.pipeline.config.experiment import ExperimentConfig
from tfr_helpers.sandbox import Limits, TestSpec


def test_split_deals_in_proportion_to_cpus_and_keeps_order() -> None:
    shares = split(list(range(9)), [2, 1])
    assert shares == [[0, 1, 3, 4, 6, 7], [2, 5, 8]]
    assert sorted(i for share in shares for i in share) == list(range(9))


def test_split_of_fewer_jobs_than_cpus_leaves_shares_empty() -> None:
    assert split([5], [1, 1, 1]) == [[5], [], []]


def test_ray_executor_without_ray_names_the_extra(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setitem(sys.modules, "ray", None)  # `import ray` raises ImportError
    with pytest.raises(TfrError, match=r"uv sync --extra ray"):
        make_executor("ray", Limits(), 1, ("json",))


def test_local_executor_runs_a_batch_in_order() -> None:
    executor = make_executor("local", Limits(), 1, ("json",))
    try:
        jobs = [(f"def f():\n    return {i}\n", [TestSpec(name="t", source="assert f() == 1")]) for i in range(3)]
        runs = executor.run_many(jobs, "test", Limits())
    finally:
        executor.close()
    assert [r.outcomes[0].status for r in runs] == ["failed", "passed", "failed"]


def test_executor_settings_do_not_enter_the_fingerprint() -> None:
    local = ExperimentConfig()
    ray = ExperimentConfig(concurrency={"executor": "ray", "ray_address": "auto"})  # type: ignore[arg-type]
    assert local.config_hash() == ray.config_hash()


def test_node_env_hides_rfc3987_syntax_from_node_processes_only(monkeypatch: pytest.MonkeyPatch) -> None:
    import os
    import subprocess

    from tfr_helpers.executors.ray_start import node_env

    monkeypatch.setenv("PYTHONPATH", "/elsewhere")
    probe = [sys.executable, "-c", "import rfc3987_syntax"]
    with node_env():
        hidden = subprocess.run(probe, capture_output=True, text=True)
    assert hidden.returncode != 0 and "hidden from Ray node processes" in hidden.stderr
    assert os.environ["PYTHONPATH"] == "/elsewhere"
