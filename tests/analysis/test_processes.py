"""The analysis's process pool: parts spread over forked workers, results in the parts' order, one process when
asked, a bad setting one clear error."""

from __future__ import annotations

import os
import sys

import pytest

from tfr_helpers.analysis import processes
from tfr_helpers.analysis.processes import analysis_processes, map_in_order
from tfr_helpers.errors import ConfigError

forks = pytest.mark.skipif(not sys.platform.startswith("linux"), reason="the pool forks on Linux only")


def _square_and_pid(item: int) -> tuple[int, int]:
    return item * item, os.getpid()


@forks
def test_the_parts_run_in_forked_workers_and_come_back_in_order() -> None:
    data = {"offset": 7}  # a closure over the parent's memory: read by the workers from the fork, never pickled
    out = map_in_order(lambda i: (i + data["offset"], os.getpid()), list(range(40)), processes=2)
    assert [value for value, _ in out] == [i + 7 for i in range(40)]
    assert os.getpid() not in {pid for _, pid in out}
    assert not processes._job  # cleared for the next map


def test_one_process_runs_every_part_here(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv(processes.ENV, "1")
    assert analysis_processes() == 1
    assert map_in_order(_square_and_pid, [1, 2, 3]) == [(1, os.getpid()), (4, os.getpid()), (9, os.getpid())]


@forks
def test_a_map_inside_a_worker_runs_in_that_worker() -> None:
    def inner(item: int) -> set[int]:
        return {pid for _, pid in map_in_order(_square_and_pid, [item, item + 1], processes=2)} | {os.getpid()}

    for pids in map_in_order(inner, [1, 2], processes=2):
        assert len(pids) == 1 and os.getpid() not in pids


@forks
def test_a_failing_part_raises_its_error_here() -> None:
    def fail(item: int) -> int:
        if item == 3:
            raise ValueError("part 3 broke")
        return item

    with pytest.raises(ValueError, match="part 3 broke"):
        map_in_order(fail, list(range(6)), processes=2)
    assert not processes._job


@pytest.mark.parametrize("value", ["0", "two", "-1"])
def test_a_bad_setting_is_one_clear_error(value: str, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv(processes.ENV, value)
    with pytest.raises(ConfigError, match=processes.ENV):
        analysis_processes()


def test_the_default_is_the_cores_this_process_may_use(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv(processes.ENV, raising=False)
    expected = len(os.sched_getaffinity(0)) if sys.platform.startswith("linux") else 1
    assert analysis_processes() == expected
