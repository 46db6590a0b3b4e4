"""``settle_benchmark`` with a real run context and sandbox: a limited benchmark test that timed out starved of
CPU runs again alone, and that run decides (a pass within the limit, in its own time and in CPU time, passes; a
pass that needed more CPU than the limit stays a timeout); an unlimited test, or one that used its limit in CPU,
is never run again.

The first runs' timeouts are forced: a real run's record with its outcome replaced by a timeout that used the
CPU time this test gives it, passed in with the real jobs, so that which test counts as starved does not depend
on the load."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest

from tfr_helpers.pipeline import load_config
from tfr_helpers.pipeline.engine.context import RunContext
from tfr_helpers.pipeline.engine.store import RunStore
from tfr_helpers.pipeline.steps.time_limits import settle_benchmark
from tfr_helpers.records import ProgramRun
from tfr_helpers.records import TestOutcome as Outcome
from tfr_helpers.sandbox import TestSpec

SMOKE = Path(__file__).resolve().parents[3] / "papermill_params" / "smoke.yaml"
LIMIT = 1.0
QUICK = "def f():\n    return 1\n"
"""Passes its test in far less CPU than the limit."""
HUNGRY = (
    "import os, time\n\n"
    "_child = os.fork()\n"
    "if _child == 0:\n"
    "    _start = time.process_time()\n"
    "    while time.process_time() - _start < 1.5:\n"
    "        pass\n"
    "    os._exit(0)\n"
    "os.waitid(os.P_PID, _child, os.WEXITED | os.WNOWAIT)  # exited, not reaped yet\n\n"
    "def f():\n"
    "    os.waitpid(_child, 0)\n"
    "    return 1\n"
)
"""Passes its test, but with over 1.5 s of CPU: a child the program starts when it loads, whose CPU is counted
when the test reaps it. Over the 1 s limit in CPU time, the test itself takes almost no wall time, so the alone
run (3 s wall) finishes whatever the machine's load."""


def _spec(limit: float | None) -> TestSpec:
    return TestSpec(name="check", source="assert f() == 1", kind="snippet", timeout_s=limit)


def _timed_out(run: ProgramRun, cpu_s: float) -> ProgramRun:
    """``run`` with its one test a timeout that used ``cpu_s`` of CPU (a forced first-run outcome)."""
    forced = Outcome(
        name="check", status="timeout", message="no result within 1 s wall clock", duration_s=LIMIT, cpu_s=cpu_s
    )
    return run.model_copy(update={"outcomes": [forced]})


@pytest.fixture
def ctx(tmp_path: Path, shared_benchmarks: Path, monkeypatch: pytest.MonkeyPatch) -> Iterator[RunContext]:
    monkeypatch.setenv("TFR_BENCHMARK_DIR", str(shared_benchmarks))
    monkeypatch.setenv("TFR_CACHE_DIR", str(tmp_path / "cache"))
    light = {"benchmarks": ["humaneval"], "tasks": {"humaneval": 1}, "concurrency": {"sandbox_workers": 2}}
    context = RunContext(config=load_config(SMOKE, light), store=RunStore(tmp_path / "run"), tasks={})
    try:
        yield context
    finally:
        context.close()


def test_starved_limited_timeouts_are_settled_alone_and_others_are_kept(ctx: RunContext) -> None:
    jobs = [
        (QUICK, [_spec(LIMIT)]),  # starved: run alone, passes
        (HUNGRY, [_spec(LIMIT)]),  # starved: run alone, passes, but over its limit in CPU
        (QUICK, [_spec(None)]),  # no limit of its own: the run's budget decided, never run again
        (HUNGRY, [_spec(LIMIT)]),  # used its limit in CPU: the program's own timeout, never run again
    ]
    (real,) = ctx.run_programs([jobs[0]], desc="a real run")  # its record, with the outcome forced
    forced = [_timed_out(real, 0.01), _timed_out(real, 0.01), _timed_out(real, 0.01), _timed_out(real, LIMIT)]
    runs_before = ctx.counters.sandbox_runs

    settled = settle_benchmark(ctx, jobs, forced)

    assert ctx.counters.sandbox_runs - runs_before == 2  # the two starved limited tests, each once, alone
    quick, hungry, unlimited, spun = settled
    assert quick.outcomes[0].status == "passed" and quick.passed
    outcome = hungry.outcomes[0]
    assert outcome.status == "timeout" and not hungry.passed
    assert outcome.message == "finished only past its limit of 1 s of CPU time"  # no figure: the same in every run
    assert outcome.cpu_s > LIMIT
    assert unlimited is forced[2] and spun is forced[3]  # unchanged, the very records passed in
