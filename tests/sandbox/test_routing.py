"""A program goes to the worker whose preloads it needs: Hypothesis alone forks from a light worker with it."""

from __future__ import annotations

import os
import time

import pytest

from tfr_helpers.records import Isolation, ProgramRun
from tfr_helpers.records import TestOutcome as Outcome
from tfr_helpers.sandbox import Limits, Sandbox, TestSpec
from tfr_helpers.sandbox import pool as pool_module
from tfr_helpers.sandbox.routing import HEAVY, HYPOTHESIS, imports, job_timing, worker_kind

PBT = "from hypothesis import given, strategies as st\n@given(st.integers())\ndef test_p(x):\n    assert x == x\n"
PROBE = "import sys\nPRELOADED = sorted(m for m in ('numpy', 'pandas', 'hypothesis') if m in sys.modules)\n"


def test_imports_pick_the_kind() -> None:
    assert imports(HYPOTHESIS, "x = 1", [TestSpec("p", PBT, "function")])
    assert not imports(HEAVY, "x = 1", [TestSpec("p", PBT, "function")])
    assert imports(HEAVY, "import numpy as np\n", [])
    assert not imports(HYPOTHESIS, "x = 1  # hypothesis\n", [TestSpec("t", "assert x == 1")])
    assert worker_kind("x = 1", [TestSpec("p", PBT, "function")]) == "hypothesis"
    assert worker_kind("import numpy as np\n", [TestSpec("p", PBT, "function")]) == "heavy"
    assert worker_kind("x = 1", [TestSpec("t", "assert x == 1")]) == "light"


def test_a_hypothesis_program_runs_where_only_hypothesis_is_preloaded(monkeypatch: pytest.MonkeyPatch) -> None:
    starts: list[float] = []  # how long each worker took to start, from its spawn to its hello
    spawn, ready = pool_module._WorkerHandle.__init__, pool_module._WorkerHandle.wait_ready
    spawned: dict[int, float] = {}

    def timed_spawn(handle: pool_module._WorkerHandle, cmd: list[str], **kw: bool) -> None:
        spawned[id(handle)] = time.perf_counter()
        spawn(handle, cmd, **kw)

    def timed_ready(handle: pool_module._WorkerHandle) -> None:
        ready(handle)
        starts.append(time.perf_counter() - spawned[id(handle)])

    monkeypatch.setattr(pool_module._WorkerHandle, "__init__", timed_spawn)
    monkeypatch.setattr(pool_module._WorkerHandle, "wait_ready", timed_ready)
    with Sandbox(Limits(timeout_s=10.0), workers=1) as sandbox:
        n_started = len(starts)  # the light worker of the sandbox's self-test
        probe = PBT + "def test_q():\n    assert PRELOADED == ['hypothesis']\n"
        run = sandbox.run(PROBE, [TestSpec("p", probe, "function")])
        assert [o.status for o in run.outcomes] == ["passed", "passed"], run.outcomes
        assert sandbox._pools["hypothesis"].all and not sandbox._pools["heavy"].all
        (timing,) = sandbox.take_timings()
        assert timing["job_s"] >= sum(t[1] for t in timing["tests"]) and len(timing["tests"]) == 2
        (hypothesis_start,) = starts[n_started:]
        assert timing["queue_s"] >= hypothesis_start  # the worker's start-up was the job's wait, not its own time
        assert "call" not in timing  # a run made alone, outside a named batch
        assert sandbox.take_timings() == []
        sandbox.run_many([(PROBE, [TestSpec("p", probe, "function")])], desc="probe batch")
        (timing,) = sandbox.take_timings()
        assert timing["call"] == "probe batch"
        assert len(starts) == n_started + 1  # the idle worker took the job: no start-up to wait for
        user, system = sandbox.cpu_times()
        # As root the workers are the caller's own processes and their times are read; as an unprivileged user
        # they run in a user namespace, where /proc reports their CPU times as zero to the caller.
        assert user + system > 0 if os.geteuid() == 0 else user >= 0 and system >= 0


def test_job_timing_leaves_out_tests_that_did_not_run() -> None:
    outcomes = [Outcome(name="a", status="passed", duration_s=0.5), Outcome(name="b", status="not_run")]
    run = ProgramRun(outcomes=outcomes, isolation=Isolation(network="none", uid_drop=False, rlimits=[]))
    assert job_timing(1.25, run) == {"job_s": 1.25, "tests": [["passed", 0.5]]}
    assert job_timing(1.25, run, "reference reruns")["call"] == "reference reruns"
    assert job_timing(1.25, run, queue_s=0.0312345678)["queue_s"] == 0.031235
