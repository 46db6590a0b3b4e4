"""EvalPlus's per-input limits are CPU time: a program slower than its limit in CPU fails the plus tier with the
limit's message, one that blocks without using CPU is stopped by the sandbox's per-test budget, and a busy
machine fails neither the reference nor a program of ordinary speed."""

from __future__ import annotations

import subprocess
import sys
from collections.abc import Iterator

import pytest

from tests.benchmarks.programs import SPIN
from tfr_helpers.benchmarks.evalplus import expected_outputs, plus_specs, tier_verdicts
from tfr_helpers.benchmarks.evalplus.data import _PLUS, PlusData
from tfr_helpers.records import ProgramRun, Task
from tfr_helpers.sandbox import Limits, Sandbox

REFERENCE = "def triple(x):\n    return x * 3\n"
PROGRAMS = {
    "right": REFERENCE,
    # 0.4 s CPU per plus input: within the 1 s limit, but over 1 s of wall time once the cores are shared
    "steady": SPIN + "def triple(x):\n    if x > 2:\n        spin(0.4)\n    return x * 3\n",
    # correct, but 3 s CPU on one plus input: far over 4x the reference's time and over the 1 s minimum
    "slow": SPIN + "def triple(x):\n    if x == 4:\n        spin(3.0)\n    return x * 3\n",
}
BLOCKS = "import time\ndef triple(x):\n    if x == 4:\n        time.sleep(1000)\n    return x * 3\n"
"""Correct where it returns, but it sleeps on one plus input: no CPU used, so no harness limit fires."""


@pytest.fixture
def toy(tmp_path: object, monkeypatch: pytest.MonkeyPatch) -> Task:
    """A fast task of its own (five inputs), its expected outputs computed into this test's own cache."""
    from tfr_helpers.benchmarks.evalplus import expected as evalplus

    monkeypatch.setenv("TFR_CACHE_DIR", str(tmp_path))
    monkeypatch.setattr(evalplus, "_MEMORY", {})
    data = PlusData("ToyCpu/0", "toy_cpu", "humaneval", "triple", REFERENCE, [[1], [2]], [[3], [4], [5]], 0.0, "")
    monkeypatch.setitem(_PLUS, data.task_id, data)
    return Task(
        task_id=data.task_id,
        benchmark="toy_cpu",
        description="triple",
        entry_point="triple",
        signature="def triple(x):",
        reference=REFERENCE,
        tests="assert triple(1) == 3",
        test_format="asserts",
    )


@pytest.fixture
def busy_cores() -> Iterator[None]:
    """Six processes spinning on the two cores for the duration of a test."""
    spinners = [subprocess.Popen([sys.executable, "-c", "while True: pass"]) for _ in range(6)]
    try:
        yield
    finally:
        for proc in spinners:
            proc.kill()
        for proc in spinners:
            proc.wait()


def _plus_outcome(run: ProgramRun) -> str:
    return next(o.message or "" for o in run.outcomes if o.name.startswith("plus_") and o.status != "passed")


def _run(task: Task, programs: dict[str, str], timeout_s: float) -> dict[str, ProgramRun]:
    with Sandbox(Limits(timeout_s=timeout_s), workers=2, preload=("numpy",)) as sandbox:
        expected_outputs("toy_cpu", sandbox)
        specs = plus_specs(task)
        runs = sandbox.run_many([(p, specs) for p in programs.values()])
    return dict(zip(programs, runs, strict=True))


def test_a_program_over_its_cpu_limit_fails_the_plus_tier_and_one_that_blocks_hits_the_budget(toy: Task) -> None:
    runs = _run(toy, PROGRAMS, timeout_s=30.0)
    assert {name: tier_verdicts(run) for name, run in runs.items()} == {
        "right": {"base": True, "plus": True},
        "steady": {"base": True, "plus": True},
        "slow": {"base": True, "plus": False},
    }
    assert _plus_outcome(runs["slow"]) == "input #1: triple(4) gave no result within its CPU time limit of 1.00 s"
    (blocked,) = _run(toy, {"blocks": BLOCKS}, timeout_s=3.0).values()
    assert tier_verdicts(blocked) == {"base": True, "plus": False}
    plus = next(o for o in blocked.outcomes if o.name.startswith("plus_"))
    assert (
        plus.status == "timeout"
        and plus.message == "no result within 3 s of its own time (waits for a CPU excluded); process tree killed"
    )


@pytest.mark.slow
def test_a_busy_machine_fails_no_program_of_ordinary_speed(toy: Task, busy_cores: None) -> None:
    runs = _run(toy, PROGRAMS, timeout_s=60.0)
    verdicts = {name: tier_verdicts(run) for name, run in runs.items()}
    assert verdicts["right"] == verdicts["steady"] == {"base": True, "plus": True}, runs["steady"].outcomes
    assert verdicts["slow"] == {"base": True, "plus": False}
    assert _plus_outcome(runs["slow"]) == "input #1: triple(4) gave no result within its CPU time limit of 1.00 s"


def test_the_cache_key_names_the_clock(toy: Task, monkeypatch: pytest.MonkeyPatch) -> None:
    from tfr_helpers.benchmarks.evalplus import expected as evalplus

    data = _PLUS[toy.task_id]
    assert evalplus.CLOCK == "cpu"
    cpu = evalplus.content_key(data)
    monkeypatch.setattr(evalplus, "CLOCK", "wall")  # times of another clock: another cache entry
    assert evalplus.content_key(data) != cpu
