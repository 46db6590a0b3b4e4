"""Load never decides a time limit: the sandbox judges each phase (the program's load, one test) by the child's
own time, wall time less its waits for a CPU, so a CPU-bound program passes on a machine kept busy by spinners,
while a loop that never ends and a sleep past the budget still time out, by their own time."""

from __future__ import annotations

import subprocess
import sys
import time
from collections.abc import Iterator

import pytest

from tfr_helpers.pipeline.steps.time_limits import starved
from tfr_helpers.sandbox import Limits, Sandbox, TestSpec
from tfr_helpers.sandbox.clock import WALL_GUARD, PhaseClock, Reading, run_queue_wait

SPINNERS = 6
"""Busy loops beside the sandbox on a 2-core machine: a child gets a fraction of a core."""
CPU_HALF = "import time\n_t = time.process_time()\nwhile time.process_time() - _t < 0.75:\n    pass\n"
"""Code that needs 0.75 s of CPU time, whatever the load (it counts its own CPU time): half of :data:`BUDGET`.
Beside the spinners it gets about a tenth of a core, so its wall time is several times the budget."""
BUDGET = 1.5


@pytest.fixture
def busy() -> Iterator[None]:
    """Both cores kept busy by :data:`SPINNERS` processes for the test's duration."""
    procs = [subprocess.Popen([sys.executable, "-c", "while True: pass"]) for _ in range(SPINNERS)]
    try:
        yield
    finally:
        for proc in procs:
            proc.kill()
        for proc in procs:
            proc.wait()


def _fn(name: str, body: str) -> TestSpec:
    return TestSpec(name, f"def {name}():\n" + "".join(f"    {line}\n" for line in body.splitlines()), kind="function")


def test_the_worker_can_read_a_childs_wait_for_a_cpu() -> None:
    # the rest of this file needs the measure: without it the sandbox falls back to wall time
    proc = subprocess.Popen([sys.executable, "-c", "import time; time.sleep(2)"])
    try:
        assert run_queue_wait(proc.pid) is not None
        assert PhaseClock(proc.pid).measured
    finally:
        proc.kill()
        proc.wait()


def test_a_cpu_bound_test_within_its_budget_passes_on_a_busy_machine(sandbox: Sandbox, busy: None) -> None:
    spec = _fn("test_cpu", CPU_HALF + "assert True")
    outcome = sandbox.run("", [spec], Limits(timeout_s=BUDGET, fresh_per_test=True)).outcomes[0]
    assert outcome.status == "passed", outcome
    assert outcome.wait_s is not None


def test_a_program_whose_load_needs_cpu_loads_and_passes_on_a_busy_machine(sandbox: Sandbox, busy: None) -> None:
    program = CPU_HALF + "def f():\n    return 1\n"
    run = sandbox.run(program, [_fn("test_f", "assert f() == 1")], Limits(timeout_s=BUDGET, fresh_per_test=True))
    assert run.load_error is None, run.load_error
    assert [o.status for o in run.outcomes] == ["passed"]


def test_a_loop_that_never_ends_times_out_by_its_own_time_and_is_final(sandbox: Sandbox) -> None:
    spin = _fn("test_spin", "while True:\n    pass")
    outcome = sandbox.run("", [spin], Limits(timeout_s=1.0, fresh_per_test=True)).outcomes[0]
    assert outcome.status == "timeout", outcome
    assert "within 1 s of its own time" in (outcome.message or ""), outcome.message
    assert outcome.wait_s is not None and not starved(outcome, 1.0)  # the program's own: not run again alone


def test_a_sleep_past_the_budget_times_out_by_its_own_time(sandbox: Sandbox) -> None:
    outcome = sandbox.run("import time\n", [_fn("test_nap", "time.sleep(5)")], Limits(timeout_s=1.0)).outcomes[0]
    assert outcome.status == "timeout" and "of its own time" in (outcome.message or ""), outcome
    assert not starved(outcome, 1.0)


def test_a_load_that_never_ends_is_a_load_error_decided_by_own_time(sandbox: Sandbox) -> None:
    run = sandbox.run("while True:\n    pass\n", [_fn("test_x", "assert True")], Limits(timeout_s=1.0))
    assert run.load_error is not None and run.load_error.status == "timeout", run.load_error
    assert "of its own time" in (run.load_error.message or "") and not starved(run.load_error, 1.0)
    assert [o.status for o in run.outcomes] == ["not_run"]


STARVED = """import os
for _ in range(6):  # nice-0 spinners of its own, then the test's process at nice 19: it gets almost no CPU
    if os.fork() == 0:
        while True:
            pass
os.nice(19)
while True:
    pass"""


def test_a_phase_starved_of_cpu_is_killed_by_the_wall_clock_guard_and_runs_again_alone(sandbox: Sandbox) -> None:
    outcome = sandbox.run("", [_fn("test_starved", STARVED)], Limits(timeout_s=0.25, fresh_per_test=True)).outcomes[0]
    assert outcome.status == "timeout", outcome
    assert f"wall-clock guard of {WALL_GUARD * 0.25:g} s" in (outcome.message or ""), outcome.message
    assert starved(outcome, 0.25)  # the machine decided: the pipeline runs it again alone


def test_own_time_excludes_the_wait_and_the_guard_decides_a_starved_phase() -> None:
    assert Reading(wall_s=6.25, wait_s=4.15, budget_s=3.0).expired is None  # 2.1 s of its own time
    assert Reading(wall_s=3.2, wait_s=0.1, budget_s=3.0).expired == "own"
    starving = Reading(wall_s=WALL_GUARD * 3.0, wait_s=WALL_GUARD * 3.0 - 1.0, budget_s=3.0)
    assert starving.expired == "guard" and f"wall-clock guard of {WALL_GUARD * 3.0:g} s" in starving.message()
    assert Reading(wall_s=3.0, wait_s=None, budget_s=3.0).expired == "own"  # not measured: the wall clock
    assert "3 s wall clock" in Reading(wall_s=3.0, wait_s=None, budget_s=3.0).message()
    # a wake-up no earlier than own time could reach the budget: phase start + budget + the wait so far
    assert Reading(wall_s=2.0, wait_s=1.5, budget_s=3.0).sleep_s == pytest.approx(2.5)


def test_a_poll_below_the_budget_reads_no_counter_and_decides_nothing() -> None:
    proc = subprocess.Popen([sys.executable, "-c", "import time; time.sleep(2)"])
    try:
        clock = PhaseClock(proc.pid, 60.0)
        early = clock.poll()  # own time is at most the wall time: no read needed, no timeout possible
        assert early.wait_s is None and early.expired is None and early.sleep_s <= 60.0
        assert clock.read().wait_s is not None  # a reading to record is always read
        clock.start(0.05)
        time.sleep(0.1)
        late = clock.poll()  # past the budget: read, and the sleeping child's own time decides
        assert late.wait_s is not None and late.expired == "own", late
    finally:
        proc.kill()
        proc.wait()
