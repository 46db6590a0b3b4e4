"""The execution cache: identical runs are served, a corrupt entry is a miss, clock-dependent runs are not stored."""

from __future__ import annotations

import dataclasses
from pathlib import Path

from tfr_helpers.records import ProgramRun
from tfr_helpers.sandbox import Limits, Sandbox, TestSpec
from tfr_helpers.sandbox.cache import ExecutionCache, job_key

LIMITS = Limits(timeout_s=3.0)
GOOD = ("def add(a, b):\n    return a + b\n", [TestSpec("t", "assert add(1, 2) == 3")])
BAD = ("def add(a, b):\n    return a - b\n", [TestSpec("t", "assert add(1, 2) == 3")])


class Counting:
    """``Sandbox.run_many`` that remembers which programs it was given."""

    def __init__(self, sandbox: Sandbox, limits: Limits = LIMITS) -> None:
        self.sandbox, self.limits, self.programs = sandbox, limits, []  # type: ignore[var-annotated]

    def __call__(self, jobs: list) -> list[ProgramRun]:  # type: ignore[type-arg]
        self.programs.extend(p for p, _ in jobs)
        return self.sandbox.run_many(jobs, limits=self.limits)


def statuses(runs: list[ProgramRun]) -> list[list[str]]:
    return [[o.status for o in r.outcomes] for r in runs]


def test_a_second_identical_run_is_served_from_the_store(sandbox: Sandbox, tmp_path: Path) -> None:
    run = Counting(sandbox)
    first = ExecutionCache(tmp_path).run_many([GOOD, BAD, GOOD], LIMITS, run)
    assert run.programs == [GOOD[0], BAD[0]]  # the duplicate of the batch ran once
    again = ExecutionCache(tmp_path)  # a new process's cache over the same directory
    second = again.run_many([BAD, GOOD], LIMITS, run)
    assert run.programs == [GOOD[0], BAD[0]] and (again.stats.hits, again.stats.misses) == (2, 0)
    assert statuses(first) == [["passed"], ["failed"], ["passed"]] and statuses(second) == [["failed"], ["passed"]]
    assert second[0] == first[1]  # the stored record, field for field


def test_a_corrupted_entry_is_detected_and_executed_again(sandbox: Sandbox, tmp_path: Path) -> None:
    cache = ExecutionCache(tmp_path)
    cache.run_many([BAD], LIMITS, Counting(sandbox))
    entry = cache.path(job_key(BAD[0], BAD[1], LIMITS))
    # flip the stored verdict without fixing the checksum: served, it would turn a failing program into a pass
    entry.write_bytes(entry.read_bytes().replace(b'"status": "failed"', b'"status": "passed"'))
    run, fresh = Counting(sandbox), ExecutionCache(tmp_path)
    assert statuses(fresh.run_many([BAD], LIMITS, run)) == [["failed"]]
    assert run.programs == [BAD[0]] and fresh.stats.corrupt == 1 and fresh.stats.hits == 0
    entry.write_bytes(entry.read_bytes()[:-20])  # truncated: also a miss
    fresh = ExecutionCache(tmp_path)
    assert statuses(fresh.run_many([BAD], LIMITS, Counting(sandbox))) == [["failed"]] and fresh.stats.corrupt == 1
    assert ExecutionCache(tmp_path).get(job_key(BAD[0], BAD[1], LIMITS)) is not None  # rewritten whole


def test_timeouts_are_not_stored_and_bypassed_runs_always_execute(sandbox: Sandbox, tmp_path: Path) -> None:
    quick = Limits(timeout_s=0.5)
    slow = ("import time\n", [TestSpec("t", "time.sleep(5)")])
    cache = ExecutionCache(tmp_path)
    assert statuses(cache.run_many([slow], quick, Counting(sandbox, quick))) == [["timeout"]]
    assert cache.stats.stored == 0 and cache.entries() == []
    cache.run_many([GOOD], LIMITS, Counting(sandbox))
    run = Counting(sandbox)
    cache.run_many([GOOD], LIMITS, run, use=False)  # e.g. the reference's nondeterminism rerun
    assert run.programs == [GOOD[0]]


def test_the_key_covers_program_tests_limits_seed_and_context() -> None:
    program, tests = GOOD
    base = job_key(program, tests, LIMITS)
    others = {
        job_key(program + "\n", tests, LIMITS),
        job_key(program, [TestSpec("t", "assert add(2, 2) == 4")], LIMITS),
        job_key(program, [dataclasses.replace(tests[0], kind="function")], LIMITS),
        job_key(program, tests, dataclasses.replace(LIMITS, seed=1)),
        job_key(program, tests, dataclasses.replace(LIMITS, timeout_s=4.0)),
        job_key(program, tests, LIMITS, context="preload"),
    }
    assert base not in others and len(others) == 6


def test_clear_and_the_environment_switch(sandbox: Sandbox, tmp_path: Path, monkeypatch) -> None:  # type: ignore[no-untyped-def]
    cache = ExecutionCache(tmp_path)
    cache.run_many([GOOD, BAD], LIMITS, Counting(sandbox))
    assert cache.size()[0] == 2 and cache.clear() == 2 and cache.size() == (0, 0)
    monkeypatch.setenv("TFR_EXEC_CACHE", "0")
    off = ExecutionCache(tmp_path)
    run = Counting(sandbox)
    off.run_many([GOOD, GOOD], LIMITS, run)
    assert run.programs == [GOOD[0], GOOD[0]] and off.entries() == []
