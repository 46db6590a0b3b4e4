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


_CAUGHT_SIGTERM = """
import os, signal, sys
from tfr_helpers.analysis.processes import map_in_order
signal.signal(signal.SIGTERM, lambda *_: None)  # a handler that catches SIGTERM, as a library may install one

def part(i):
    if i == 5:
        raise ValueError("part 5")
    return i

print(map_in_order(lambda i: i * i, list(range(20)), processes=2)[-1])
try:
    map_in_order(part, list(range(20)), processes=2)
except ValueError as exc:
    print("raised", exc)
"""


@forks
def test_the_pool_ends_its_workers_even_where_the_parent_catches_sigterm() -> None:
    """A parent that catches SIGTERM passes its handler to the forked workers (a test worker that ran Ray's driver
    does). The pool now ends its workers without a signal once the parts are done, and after a failure by SIGTERM
    with its default action taken back in each worker. The hang this guards against (the pool's end signalling a
    worker that waits on the task queue's lock, held by a worker the signal killed, and which caught the signal) is
    a race this test cannot force; it checks both ways out with the handler in place."""
    import subprocess

    done = subprocess.run([sys.executable, "-c", _CAUGHT_SIGTERM], capture_output=True, text=True, timeout=120)
    assert done.returncode == 0, done.stderr
    assert done.stdout.split("\n")[:2] == ["361", "raised part 5"]
