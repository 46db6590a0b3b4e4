"""Fixtures of the consensus tests: benchmarks from the shared snapshots (truth runs need the HumanEval tests)."""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.replay.conftest import shared_replay  # noqa: F401 (fixture re-exported)


@pytest.fixture
def benchmark_data(shared_benchmarks: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """Point the benchmark loader at the shared snapshots."""
    monkeypatch.setenv("TFR_BENCHMARK_DIR", str(shared_benchmarks))
    return shared_benchmarks
