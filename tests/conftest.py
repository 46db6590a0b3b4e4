"""Shared fixtures: where the benchmark snapshots live, and an environment isolated from the user's caches."""

from __future__ import annotations

import os
from collections.abc import Iterator
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[1]


@pytest.fixture(scope="session")
def shared_benchmarks() -> Path:
    """The benchmark snapshots (``$TFR_BENCHMARK_DIR``, default ``../shared/benchmarks``); skips if absent."""
    path = Path(os.environ.get("TFR_BENCHMARK_DIR") or REPO.parent / "shared" / "benchmarks")
    if not (path / "mbpp" / "sanitized-mbpp.json").is_file():
        pytest.skip(f"benchmark snapshots not found in {path}; set TFR_BENCHMARK_DIR")
    return path


@pytest.fixture
def isolated_benchmarks(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Iterator[Path]:
    """Empty tmp cache, no override dir or URL overrides, fresh in-memory tasks; yields the cache root."""
    from tfr_helpers.benchmarks import clear_memory_cache

    cache = tmp_path / "cache"
    monkeypatch.setenv("TFR_CACHE_DIR", str(cache))
    monkeypatch.delenv("TFR_BENCHMARK_DIR", raising=False)
    for name in ("HUMANEVAL", "MBPP", "BIGCODEBENCH"):
        monkeypatch.delenv(f"TFR_BENCHMARK_URL_{name}", raising=False)
    clear_memory_cache()
    yield cache
    clear_memory_cache()
