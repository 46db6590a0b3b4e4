"""Fixtures of the learned screener's tests: benchmarks from the shared snapshots."""

from __future__ import annotations

from pathlib import Path

import pytest


@pytest.fixture
def benchmark_data(shared_benchmarks: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """Point the benchmark loader at the shared snapshots."""
    monkeypatch.setenv("TFR_BENCHMARK_DIR", str(shared_benchmarks))
    return shared_benchmarks
