"""Waiting programs (sleep, child processes) get their own workers beyond one per core; TFR_SANDBOX_POOLS=old not."""

from __future__ import annotations

import threading

import pytest

from tfr_helpers.errors import SandboxError
from tfr_helpers.records import ProgramRun
from tfr_helpers.sandbox import Limits, Sandbox, TestSpec
from tfr_helpers.sandbox.pool import WAIT_FACTOR, waits

SLEEPY = ("import time\ndef f():\n    time.sleep(0.2)\n    return 1\n", [TestSpec("t", "assert f() == 1")])
BUSY = ("def f():\n    return sum(range(1000))\n", [TestSpec("t", "assert f() == 499500")])


def test_waiting_programs_are_recognised() -> None:
    assert waits(*SLEEPY) and not waits(*BUSY)
    assert waits("import subprocess\n", [TestSpec("t", "assert True")])
    assert waits("x = 1", [TestSpec("t", "import time\ntime.sleep(1)")])


def test_a_sleeping_program_runs_in_a_waiting_worker_and_passes(sandbox: Sandbox) -> None:
    runs = sandbox.run_many([SLEEPY, BUSY, SLEEPY], progress=False)
    assert [r.passed for r in runs] == [True, True, True]
    assert sandbox.wait_slots == WAIT_FACTOR * sandbox.n_workers
    assert sandbox._pools["one-wait"].all and sandbox._pools["one"].all


def concurrency(sb: Sandbox, jobs: list, monkeypatch: pytest.MonkeyPatch, barrier: int | None) -> int:  # type: ignore[type-arg]
    """Run ``jobs`` through ``run_many`` with ``Sandbox.run`` replaced by a recorder; the most jobs at once.

    With ``barrier``, the waiting jobs must all be running at the same time to get past it (else it breaks).
    """
    lock, now, peak = threading.Lock(), [0], [0]
    gate = threading.Barrier(barrier, timeout=60) if barrier else None
    real = sb.run

    def run(program: str, tests: list, limits: Limits | None = None, call: str = "") -> ProgramRun:  # type: ignore[type-arg]
        with lock:
            now[0] += 1
            peak[0] = max(peak[0], now[0])
        if gate is not None and waits(program, tests):
            gate.wait()
        try:
            return real(program, tests, limits)
        finally:
            with lock:
                now[0] -= 1

    monkeypatch.setattr(sb, "run", run)
    assert all(r.passed for r in sb.run_many(jobs, progress=False))
    return peak[0]


def test_waiting_jobs_run_together_beside_the_cpu_jobs(monkeypatch: pytest.MonkeyPatch) -> None:
    with Sandbox(Limits(timeout_s=5), workers=1, preload=()) as sb:
        # 4 sleeping jobs pass the 4-party barrier only if all run at once, though there is one worker per core
        assert concurrency(sb, [SLEEPY] * 4 + [BUSY] * 3, monkeypatch, barrier=4) >= 4


def test_the_old_sizing_runs_one_job_per_worker(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("TFR_SANDBOX_POOLS", "old")
    with Sandbox(Limits(timeout_s=5), workers=1, preload=()) as sb:
        assert sb.wait_slots == 0 and "one-wait" not in sb._pools
        assert concurrency(sb, [SLEEPY] * 3 + [BUSY] * 2, monkeypatch, barrier=None) == 1
    monkeypatch.setenv("TFR_SANDBOX_POOLS", "fast")
    with pytest.raises(SandboxError, match="use auto or old"):
        Sandbox(Limits(), workers=1, preload=())
