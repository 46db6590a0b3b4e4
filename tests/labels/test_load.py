"""Load never decides a label: a timeout is judged by the test's own time and is final; one the wall-clock guard
decided, or a crash, on either side runs again alone with 3x the budget; a verdict that still depends on the
machine is ``indeterminate``; a load error is a failure mode of its own."""

from __future__ import annotations

from tests.labels.conftest import CALL, LIGHT, SMOKE
from tfr_helpers.analysis.rq1_modes import by_failure_mode
from tfr_helpers.benchmarks import get_task
from tfr_helpers.pipeline import load_config
from tfr_helpers.pipeline.engine.context import RunContext
from tfr_helpers.pipeline.stages.evaluate_code_test_pairs import PairJob, _pair, label_pair
from tfr_helpers.pipeline.steps.labels import failure_mode_of, settle
from tfr_helpers.pipeline.steps.pair_runs import _needs_alone, run_pairs
from tfr_helpers.records import GeneratedCode, GeneratedTest, Isolation, ProgramRun
from tfr_helpers.records import TestOutcome as Outcome
from tfr_helpers.sandbox import Sandbox, TestSpec

TIMEOUT = Outcome(name="test_x", status="timeout", message="no result within 10 s of its own time")


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


def test_timeouts_by_their_own_time_are_final_on_both_sides_and_the_programs_own() -> None:
    # budget 1 s: a test sleeping 1.5 s, one sleeping 30 s and one spinning forever time out by their own time
    # on the code and on the reference; none runs again alone, and each pair is the program's own timeout
    config = load_config(SMOKE, {**LIGHT, "sandbox": {"timeout_s": 1.0, "generated_test_timeout_s": 1.0}})
    ctx = RunContext(config=config, store=None, tasks={})  # type: ignore[arg-type]
    task = get_task("HumanEval/0")
    slow = _test("import time\n\ndef test_x():\n    time.sleep(1.5)\n    assert False\n")
    hang = _test("import time\n\ndef test_x():\n    time.sleep(30)\n", index=1)
    spin = _test("def test_x():\n    while True:\n        pass\n", index=2)
    code = GeneratedCode(model="sim:default", task_id=task.task_id, code=task.reference, call=CALL)
    item = PairJob(task=task, codes=(code,), tests=(slow, hang, spin))
    try:
        found = run_pairs(ctx, [item])
        pairs = [label_pair(ctx, item, code, test, found) for test in (slow, hang, spin)]
    finally:
        ctx.close()
    first = found.gen[(task.reference, slow.source, hang.source, spin.source)].outcomes
    assert [o.status for o in first] == ["timeout"] * 3
    assert all("of its own time" in (o.message or "") for o in first), first
    assert found.alone == {}
    assert [(p.reliability, p.failure_mode, p.cause) for p in pairs] == [
        ("unreliable", "timeout", "timeout_or_resource")
    ] * 3


def test_a_load_that_times_out_by_its_own_time_is_final_and_a_load_error_pair() -> None:
    config = load_config(SMOKE, {**LIGHT, "sandbox": {"timeout_s": 1.0, "generated_test_timeout_s": 1.0}})
    ctx = RunContext(config=config, store=None, tasks={})  # type: ignore[arg-type]
    task = get_task("HumanEval/0")
    test = _test("def test_x():\n    assert has_close_elements([1.0, 2.0], 0.5) is False\n")
    code = GeneratedCode(model="sim:default", task_id=task.task_id, code="while True:\n    pass\n", call=CALL)
    item = PairJob(task=task, codes=(code,), tests=(test,))
    try:
        found = run_pairs(ctx, [item])
        pair = label_pair(ctx, item, code, test, found)
    finally:
        ctx.close()
    run = found.gen[(code.code, test.source)]
    assert run.load_error is not None and "of its own time" in (run.load_error.message or ""), run.load_error
    assert found.alone == {}
    assert (pair.failure_mode, pair.reliability) == ("load_error", "reliable")


def test_a_guard_timeout_runs_alone_and_is_settled_by_the_run_alone() -> None:
    # wall 10 s, 9.6 s of it waiting for a CPU: the wall-clock guard decided, not the test's own time
    guard = Outcome(name="test_x", status="timeout", duration_s=10.0, wait_s=9.6)
    own = Outcome(name="test_x", status="timeout", duration_s=4.0, wait_s=2.9)
    assert _needs_alone(guard, budget_s=1.0) and not _needs_alone(own, budget_s=1.0)
    fits = Outcome(name="test_x", status="passed", duration_s=2.5, wait_s=2.0)  # 0.5 s of its own time
    assert settle(guard, fits, budget_s=1.0) == (fits, False)
    past = Outcome(name="test_x", status="passed", duration_s=2.5, wait_s=0.5)  # 2 s of its own time
    settled, machine = settle(guard, past, budget_s=1.0)
    assert settled.status == "timeout" and not machine  # what a quiet first run would have given
    again = Outcome(name="test_x", status="timeout", duration_s=30.0, wait_s=29.0)  # the guard, again
    assert settle(guard, again, budget_s=1.0) == (again, True)
    alone_own = Outcome(name="test_x", status="timeout", duration_s=3.5, wait_s=0.2)
    assert settle(guard, alone_own, budget_s=1.0) == (alone_own, False)


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


def test_where_the_wait_was_not_measured_a_timeout_that_had_a_core_all_along_is_not_run_again() -> None:
    assert not _needs_alone(Outcome(name="t", status="timeout", cpu_s=9.8), budget_s=10.0)
    assert _needs_alone(Outcome(name="t", status="timeout", cpu_s=2.0), budget_s=10.0)
    assert _needs_alone(Outcome(name="t", status="crashed"), budget_s=10.0)
    assert not _needs_alone(Outcome(name="t", status="failed"), budget_s=10.0)


def test_a_timeout_records_the_cpu_its_process_used(sandbox: Sandbox) -> None:
    from tfr_helpers.sandbox import Limits

    spin = TestSpec("t", "def test_x():\n    while True:\n        pass\n", kind="function")
    outcome = sandbox.run("", [spin], Limits(timeout_s=1.0, fresh_per_test=True)).outcomes[0]
    assert outcome.status == "timeout" and outcome.cpu_s > 0.0, outcome
