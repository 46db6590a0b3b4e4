"""Fixtures for the pipeline's end-to-end tests: params files, run helpers, timing-free comparison."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
import yaml

TIMING_KEYS = {"duration_s", "cpu_s", "wait_s", "latency_s", "stage_seconds"}
"""Fields that legitimately differ between two runs of the same configuration."""


def without_timing(data: Any) -> Any:
    """``data`` with every timing field removed, recursively."""
    if isinstance(data, dict):
        return {k: without_timing(v) for k, v in data.items() if k not in TIMING_KEYS}
    if isinstance(data, list):
        return [without_timing(v) for v in data]
    return data


def results_json(run_dir: Path) -> Any:
    """``results.json`` of a run without timing fields, its shared values put back in place (which values two
    executions share can depend on their timing: equal durations merge)."""
    from tfr_helpers.pipeline.engine.codec import resolve_shared
    from tfr_helpers.results_file import read_results_bytes, results_file

    path = results_file(run_dir)
    assert path is not None, f"{run_dir} holds no results"
    return without_timing(resolve_shared(json.loads(read_results_bytes(path))))


@pytest.fixture
def write_params(tmp_path: Path):  # type: ignore[no-untyped-def]
    """Write a params dict to a YAML file and return its path."""

    def write(data: dict[str, Any], name: str = "params.yaml") -> Path:
        path = tmp_path / name
        path.write_text(yaml.safe_dump(data))
        return path

    return write


@pytest.fixture
def pipeline_env(shared_benchmarks: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """Benchmarks from the shared snapshots, a private response cache; returns the cache dir."""
    cache = tmp_path / "cache"
    monkeypatch.setenv("TFR_BENCHMARK_DIR", str(shared_benchmarks))
    monkeypatch.setenv("TFR_CACHE_DIR", str(cache))
    return cache
