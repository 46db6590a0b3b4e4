"""Identical conditions: benchmark-only setup never reaches a generated test, and every generated test starts
from a freshly loaded program (no state a test leaves reaches the next one)."""

from __future__ import annotations

from pathlib import Path

from tests.labels.conftest import CALL, LIGHT, SMOKE
from tfr_helpers.benchmarks import get_task
from tfr_helpers.pipeline import load_config
from tfr_helpers.pipeline.engine.context import RunContext
from tfr_helpers.pipeline.stages.evaluate_code_test_pairs import PairJob
from tfr_helpers.pipeline.steps.pair_runs import run_pairs
from tfr_helpers.records import GeneratedCode, GeneratedTest
from tfr_helpers.sandbox import Limits, Sandbox, TestSpec

MUTATES = TestSpec("t0", "def test_append():\n    SEEN.append(1)\n    assert SEEN == [1]\n", kind="function")
READS = TestSpec("t1", "def test_empty():\n    assert SEEN == []\n", kind="function")
PROGRAM = "SEEN = []\n"


def test_a_mutating_test_does_not_change_the_next_tests_result(sandbox: Sandbox) -> None:
    fresh = sandbox.run(PROGRAM, [MUTATES, READS, MUTATES], Limits(timeout_s=10.0, fresh_per_test=True))
    assert [o.status for o in fresh.outcomes] == ["passed"] * 3, fresh.outcomes
    shared = sandbox.run(PROGRAM, [MUTATES, READS], Limits(timeout_s=10.0, fresh_per_test=False))
    assert shared.outcomes[1].status == "failed", "without a fresh program per test the state carries over"


def test_the_pipeline_runs_every_generated_test_on_a_fresh_program() -> None:
    ctx = RunContext(config=load_config(SMOKE, LIGHT), store=None, tasks={})  # type: ignore[arg-type]
    assert ctx.limits(generated=True).fresh_per_test
    assert ctx.limits(generated=True, rerun=True).fresh_per_test


def _job(task_id: str, program: str, source: str) -> PairJob:
    task = get_task(task_id)
    codes = tuple(
        GeneratedCode(model="sim:default", task_id=task_id, sample_index=i, code=program, call=CALL) for i in range(2)
    )
    test = GeneratedTest(
        test_id=f"sim:default|{task_id}|ebt|0",
        model="sim:default",
        task_id=task_id,
        kind="ebt",
        index=0,
        name="test_uses_math",
        source=source,
        call=CALL,
    )
    return PairJob(task=task, codes=codes, tests=(test,))


def test_mbpp_test_imports_never_reach_a_generated_test(tmp_path: Path) -> None:
    # MBPP/98 has test_imports ``import math``; with several code samples a program's benchmark tests and its
    # generated tests used to share one run, where the setup ran in the program's namespace first
    task = get_task("MBPP/98")
    assert any("math" in line for line in task.test_imports)
    ctx = RunContext(config=load_config(SMOKE, {**LIGHT, "code_samples_per_task": 2}), store=None, tasks={})  # type: ignore[arg-type]
    program = (
        "def multiply_num(numbers):\n    total = 1\n    for x in numbers:\n        total *= x\n"
        "    return total / len(numbers)\n"
    )
    probe = "def test_uses_math():\n    assert math.isclose(multiply_num((2, 4)), 4.0)\n"
    try:
        found = run_pairs(ctx, [_job("MBPP/98", program, probe)])
    finally:
        ctx.close()
    gen = found.gen[(program, probe)].outcomes[0]
    assert gen.status == "error" and gen.exc_type == "NameError", gen
    ref = found.gen[(task.reference, probe)].outcomes[0]
    assert ref.exc_type == "NameError", ref
    assert found.bench[(program, "MBPP/98")].passed, "the benchmark tests still get their setup"
