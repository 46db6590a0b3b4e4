"""Overlapping chunks of the sandbox stages: the same results as one chunk at a time (the shared smoke study), and no
lost chunk on an error."""

from __future__ import annotations

import threading
import time
from pathlib import Path
from typing import Any

import pytest

from tests.helpers.smoke import SmokeStudy
from tests.pipeline.conftest import results_json
from tfr_helpers.errors import ConfigError
from tfr_helpers.pipeline import load_config, run_stages
from tfr_helpers.pipeline.engine import runner as runner_mod

SMOKE = Path(__file__).resolve().parents[3] / "papermill_params" / "smoke.yaml"


@pytest.mark.slow
def test_smoke_results_are_identical_with_chunks_in_flight_and_one_at_a_time(
    pipeline_env: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch, smoke_study: SmokeStudy
) -> None:
    # one at a time: the shared smoke study (TFR_CHUNKS_IN_FLIGHT=1, the execution cache off, tests/helpers/smoke.py)
    monkeypatch.setenv("TFR_EXEC_CACHE", "0")  # this run executes everything too
    config = load_config(SMOKE, {"concurrency.checkpoint_every": 3})  # many small chunks per stage
    monkeypatch.setenv("TFR_CHUNKS_IN_FLIGHT", "4")
    seen: list[int] = []
    real = runner_mod._run_in_flight

    def spy(ctx: Any, fn: Any, chunks: list[list[Any]], finished: Any) -> None:
        seen.append(len(chunks))
        real(ctx, fn, chunks, finished)

    monkeypatch.setattr(runner_mod, "_run_in_flight", spy)
    many = run_stages(config, tmp_path / "many", progress=False)
    assert seen and max(seen) > 4  # the pair and refined stages really overlapped several chunks
    assert many.sandbox_runs == smoke_study.summary.sandbox_runs
    results = results_json(tmp_path / "many")
    assert results["config"]["concurrency"].pop("checkpoint_every") == 3  # the one setting the two runs differ in
    one = {**smoke_study.results, "config": {**smoke_study.results["config"]}}
    one["config"]["concurrency"] = {**one["config"]["concurrency"]}
    assert one["config"]["concurrency"].pop("checkpoint_every") is None
    assert results == one


def test_a_failing_chunk_stops_new_chunks_and_the_chunks_in_flight_are_recorded(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.setenv("TFR_CHUNKS_IN_FLIGHT", "2")
    started: list[int] = []

    def fn(chunk: list[int], ctx: Any) -> list[int]:
        started.append(chunk[0])
        if chunk[0] == 1:
            time.sleep(1.0)  # still running when chunk 2 fails at once (the main thread sees that first)
            return chunk
        if chunk[0] == 2:
            raise RuntimeError("chunk 2 broke")
        return chunk

    recorded: list[list[int]] = []
    with pytest.raises(RuntimeError, match="chunk 2 broke"):
        runner_mod._run_in_flight(None, fn, [[0], [1], [2], [3], [4]], lambda chunk, out: recorded.append(out))  # type: ignore[arg-type]
    assert recorded == [[0], [1]]  # chunk 0 ran alone, chunk 1 was in flight: recorded; after the error nothing new
    assert sorted(started) == [0, 1, 2]


def test_the_first_chunk_runs_alone_then_the_others_overlap(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("TFR_CHUNKS_IN_FLIGHT", "3")
    lock, active, seen = threading.Lock(), [0], []

    def fn(chunk: list[int], ctx: Any) -> list[int]:
        with lock:
            active[0] += 1
            seen.append((chunk[0], active[0]))
        time.sleep(0.2)
        with lock:
            active[0] -= 1
        return chunk

    recorded: list[list[int]] = []
    runner_mod._run_in_flight(None, fn, [[0], [1], [2], [3]], lambda chunk, out: recorded.append(out))  # type: ignore[arg-type]
    assert seen[0] == (0, 1) and max(n for _, n in seen) == 3  # chunk 0 alone, then three at once
    assert sorted(c[0] for c in recorded) == [0, 1, 2, 3]


@pytest.mark.parametrize("value", ["0", "-1", "two"])
def test_a_bad_chunks_in_flight_setting_is_one_clear_error(value: str, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("TFR_CHUNKS_IN_FLIGHT", value)
    with pytest.raises(ConfigError, match="TFR_CHUNKS_IN_FLIGHT"):
        runner_mod.chunks_in_flight()


def test_the_first_chunks_grow_from_one_per_worker_to_the_full_size_and_keep_every_item_once() -> None:
    items = list(range(100))
    chunks = runner_mod.split_chunks(items, 32, first=2)
    assert [len(c) for c in chunks] == [2, 4, 8, 16, 32, 32, 6]
    assert [i for c in chunks for i in c] == items
    assert [len(c) for c in runner_mod.split_chunks(items, 32, first=32)] == [32, 32, 32, 4]
    assert runner_mod.split_chunks([], 32, first=2) == []


def test_waiting_items_start_right_after_the_quick_first_chunk_and_every_item_stays_once() -> None:
    items = list(range(20))
    waits = {5, 17, 18}.__contains__
    ordered = runner_mod.waiting_early(items, waits, first=2)
    assert ordered == [0, 1, 5, 17, 18, 2, 3, 4, *range(6, 17), 19]
    chunks = runner_mod.split_chunks(ordered, 8, first=2)
    assert chunks[0] == [0, 1] and set(chunks[1]) >= {5, 17}  # the first chunk runs alone: it waits on nothing
    assert runner_mod.waiting_early(items, lambda i: False, first=2) == items
    assert runner_mod.waiting_early(items, lambda i: True, first=2) == items
