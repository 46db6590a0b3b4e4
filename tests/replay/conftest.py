"""Fixtures of the replay tests: the shared published files, an isolated cache, a loopback file server."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest

from tests.benchmarks.conftest import LoopbackServer, loopback_server  # noqa: F401 (fixture re-exported)
from tests.helpers.env import replay_dir
from tfr_helpers.replay import clear_replay_cache

REPO = Path(__file__).resolve().parents[2]


@pytest.fixture(autouse=True)
def benchmark_data(shared_benchmarks: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """Every replay test reads the benchmarks from the shared snapshots (task ids are checked against them)."""
    monkeypatch.setenv("TFR_BENCHMARK_DIR", str(shared_benchmarks))
    return shared_benchmarks


@pytest.fixture(scope="session")
def shared_replay() -> Path:
    """The published generations (``$TFR_REPLAY_DIR``, set by CI to the snapshot directory); missing -> skip (CI: fail)."""
    return replay_dir()


@pytest.fixture
def replay_env(shared_replay: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Iterator[Path]:
    """``TFR_REPLAY_DIR`` at the shared files, an empty tmp cache, no mirror; yields the shared directory.

    Datasets loaded in memory stay loaded: their cache key is the files' paths, sizes and mtimes.
    """
    monkeypatch.setenv("TFR_REPLAY_DIR", str(shared_replay))
    monkeypatch.setenv("TFR_CACHE_DIR", str(tmp_path / "cache"))
    monkeypatch.delenv("TFR_REPLAY_MIRROR", raising=False)
    yield shared_replay


@pytest.fixture
def isolated_replay(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Iterator[Path]:
    """No override directory, no mirror, an empty tmp cache; yields the cache root."""
    cache = tmp_path / "cache"
    monkeypatch.setenv("TFR_CACHE_DIR", str(cache))
    monkeypatch.delenv("TFR_REPLAY_DIR", raising=False)
    monkeypatch.delenv("TFR_REPLAY_MIRROR", raising=False)
    clear_replay_cache()
    yield cache
    clear_replay_cache()


def codet_raw(shared: Path, kind: str, task_id: str) -> list[str]:
    """The raw samples CodeT published for one task (``kind``: ``code`` or ``test``), found by exact prompt."""
    import json

    tasks = shared / "codet" / f"HumanEval_for_{'code' if kind == 'code' else 'test_case'}_generation.jsonl"
    prompt = next(r["prompt"] for r in map(json.loads, tasks.open()) if r["task_id"] == task_id)
    name = "code_solution" if kind == "code" else "test_case"
    data = shared / "codet" / f"HumanEval_codegen16B_temp0.8_topp0.95_num100_max300_{name}.jsonl"
    return next(r["samples"] for r in map(json.loads, data.open()) if r["prompt"] == prompt)
