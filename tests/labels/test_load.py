"""Load never decides a label: a timeout or crash on either side runs again alone with 3x the budget; a
verdict that still needs more than the budget is ``indeterminate``; a load error is a failure mode of its own."""

from __future__ import annotations

from tests.labels.conftest import CALL, LIGHT, SMOKE
from tfr_helpers.analysis.rq1_modes import by_failure_mode
from tfr_helpers.benchmarks import get_task
from tfr_helpers.pipeline import load_config
from tfr_helpers.pipeline.engine.context import RunContext
from tfr_helpers.pipeline.stages.evaluate_code_test_pairs import PairJob, _pair
from tfr_helpers.pipeline.steps.labels import failure_mode_of, settle
from tfr_helpers.pipeline.steps.pair_runs import run_pairs
from tfr_helpers.records import GeneratedCode, GeneratedTest, Isolation, ProgramRun
from tfr_helpers.records import TestOutcome as Outcome
from tfr_helpers.sandbox import Sandbox, TestSpec

TIMEOUT = Outcome(name="test_x", status="timeout", message="no result within 10 s wall clock")


def _test(source: str, index: int = 0) -> GeneratedTest:
    return GeneratedTest(
        test_id=f"sim:default|HumanEval/0|ebt|{index}",
        model="sim:default",
        task_id="HumanEval/0",
        kind="ebt",
        index=index,
        name="test_x",
        source=source,
        call=CALL,
    )


def _pair_of(generated: Outcome, reference: Outcome, machine: bool = False, load_error: Outcome | None = None):  # type: ignore[no-untyped-def]
    task = get_task("HumanEval/0")
    code = GeneratedCode(model="sim:default", task_id=task.task_id, code="x = 1\n", call=CALL)
    test = _test("def test_x():\n    assert f(1) == 1\n")
    run = ProgramRun(outcomes=[generated], load_error=load_error, isolation=Isolation(network="none", uid_drop=False))
    return _pair(PairJob(task=task, codes=(code,), tests=(test,)), code, test, generated, run, reference, TIMEOUT, machine)


def test_a_reference_timeout_that_passes_alone_within_the_budget_is_reliable() -> None:
    alone = Outcome(name="test_x", status="passed", duration_s=0.2)
    reference, machine = settle(TIMEOUT, alone, budget_s=10.0)
    assert reference is alone and not machine
    pair = _pair_of(Outcome(name="test_x", status="failed", exc_type="AssertionError"), reference, machine)
    assert pair.reliability == "reliable" and pair.cause is None


def test_a_verdict_that_needs_more_than_the_budget_is_indeterminate_never_nondeterministic() -> None:
    alone = Outcome(name="test_x", status="failed", exc_type="AssertionError", duration_s=14.0)
    reference, machine = settle(TIMEOUT, alone, budget_s=10.0)
    assert machine
    pair = _pair_of(Outcome(name="test_x", status="failed", exc_type="AssertionError"), reference, machine)
    assert pair.reliability == "indeterminate" and pair.cause is None


def test_a_timeout_again_with_three_times_the_budget_is_the_programs_own() -> None:
    alone = Outcome(name="test_x", status="timeout", duration_s=30.0)
    assert settle(TIMEOUT, alone, budget_s=10.0) == (alone, False)


def test_both_sides_timing_out_are_run_alone_with_three_times_the_budget() -> None:
    # budget 1 s: a test sleeping 1.5 s times out on the code and on the reference, runs alone with 3 s, and
    # finishes: more than the budget, so its label depends on the machine; one sleeping 30 s times out again
    config = load_config(SMOKE, {**LIGHT, "sandbox": {"timeout_s": 1.0, "generated_test_timeout_s": 1.0}})
    ctx = RunContext(config=config, store=None, tasks={})  # type: ignore[arg-type]
    task = get_task("HumanEval/0")
    slow = _test("import time\n\ndef test_x():\n    time.sleep(1.5)\n    assert False\n")
    hang = _test("import time\n\ndef test_x():\n    time.sleep(30)\n", index=1)
    code = GeneratedCode(model="sim:default", task_id=task.task_id, code=task.reference, call=CALL)
    try:
        found = run_pairs(ctx, [PairJob(task=task, codes=(code,), tests=(slow, hang))])
    finally:
        ctx.close()
    first = found.gen[(task.reference, slow.source, hang.source)].outcomes
    assert [o.status for o in first] == ["timeout", "timeout"]
    assert found.alone[(task.reference, slow.source)].status == "failed"
    assert found.alone[(task.reference, hang.source)].status == "timeout"
    reference, machine = settle(first[0], found.alone[(task.reference, slow.source)], 1.0)
    assert machine and reference.status == "failed"


def test_a_program_that_fails_to_load_gives_a_load_error_pair(sandbox: Sandbox) -> None:
    run = sandbox.run("import no_such_module_here\n", [TestSpec("t", "def test_x():\n    assert True\n", kind="function")])
    generated = run.outcomes[0]
    assert generated.status == "not_run" and run.load_error is not None
    assert failure_mode_of(generated) == "load_error"
    pair = _pair_of(generated, Outcome(name="test_x", status="passed"), load_error=run.load_error)
    assert pair.failure_mode == "load_error" and pair.reliability == "reliable"
    assert pair.feedback is not None and "ModuleNotFoundError" in pair.feedback.text


def test_failure_modes() -> None:
    assert failure_mode_of(Outcome(name="t", status="failed", exc_type="AssertionError")) == "assertion"
    assert failure_mode_of(Outcome(name="t", status="error", exc_type="KeyError", in_code_under_test=True)) == (
        "exception_in_code"
    )
    assert failure_mode_of(Outcome(name="t", status="error", exc_type="NameError")) == "exception_in_test"
    assert failure_mode_of(Outcome(name="t", status="timeout")) == "timeout"
    assert failure_mode_of(Outcome(name="t", status="passed")) is None


def test_rq1_by_failure_mode_keeps_indeterminate_out_of_the_denominator() -> None:
    from tfr_helpers.records import Results

    pairs = [
        _pair_of(Outcome(name="test_x", status="failed", exc_type="AssertionError"), TIMEOUT),
        _pair_of(Outcome(name="test_x", status="failed", exc_type="AssertionError"), Outcome(name="t", status="passed")),
        _pair_of(Outcome(name="test_x", status="failed", exc_type="AssertionError"), TIMEOUT, machine=True),
    ]
    table = by_failure_mode(Results.model_construct(pair_evaluations=pairs, model_sources=[], generated_codes=[]))
    row = table[table["failure_mode"] == "assertion"].iloc[0]
    assert (row["k"], row["n"], row["indeterminate"]) == (1, 2, 1)


def test_a_timeout_that_had_a_core_all_along_is_not_run_again() -> None:
    from tfr_helpers.pipeline.steps.pair_runs import _needs_alone

    assert not _needs_alone(Outcome(name="t", status="timeout", cpu_s=9.8), budget_s=10.0)
    assert _needs_alone(Outcome(name="t", status="timeout", cpu_s=2.0), budget_s=10.0)
    assert _needs_alone(Outcome(name="t", status="crashed"), budget_s=10.0)
    assert not _needs_alone(Outcome(name="t", status="failed"), budget_s=10.0)


def test_a_timeout_records_the_cpu_its_process_used(sandbox: Sandbox) -> None:
    from tfr_helpers.sandbox import Limits

    spin = TestSpec("t", "def test_x():\n    while True:\n        pass\n", kind="function")
    outcome = sandbox.run("", [spin], Limits(timeout_s=1.0, fresh_per_test=True)).outcomes[0]
    assert outcome.status == "timeout" and outcome.cpu_s > 0.0, outcome
