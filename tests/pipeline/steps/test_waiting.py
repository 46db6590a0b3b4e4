"""Which work items wait rather than compute (their programs or tests sleep, start processes or open sockets), the
items a stage with chunks in flight starts early: a task's reference or benchmark tests, a code sample, a generated
test or a refined program that waits makes its item wait; one that only computes does not."""

from __future__ import annotations

from tfr_helpers.pipeline.steps.evaluate_refined import RefinedJob
from tfr_helpers.pipeline.steps.pair_runs import PairJob
from tfr_helpers.pipeline.steps.waiting import pair_job_waits, refined_job_waits, task_waits
from tfr_helpers.records import GeneratedCode, GeneratedTest, ModelCallRecord, Refinement, Task

COMPUTES = "def add(a, b):\n    return a + b\n"
SLEEPS = "import time\n\ndef add(a, b):\n    time.sleep(0.5)\n    return a + b\n"
SPAWNS = "import subprocess\n\ndef add(a, b):\n    return int(subprocess.check_output(['expr', str(a), '+', str(b)]))\n"
PLAIN_TEST = "def test_add():\n    assert add(1, 2) == 3\n"
CHECK = "def check(candidate):\n    assert candidate(1, 2) == 3\n"
CALL = ModelCallRecord(model="sim:default", role="coder", stage="generate_codes", template="codegen", template_version="1")


def task(reference: str = COMPUTES, tests: str = CHECK) -> Task:
    return Task(
        task_id="HumanEval/0",
        benchmark="humaneval",
        description="Add two numbers.",
        entry_point="add",
        signature="def add(a, b):",
        reference=reference,
        tests=tests,
        test_format="check",
    )


def code(text: str | None) -> GeneratedCode:
    return GeneratedCode(model="sim:default", task_id="HumanEval/0", code=text, call=CALL)


def gen_test(source: str) -> GeneratedTest:
    return GeneratedTest(
        test_id="sim:default|HumanEval/0|ebt|0",
        model="sim:default",
        task_id="HumanEval/0",
        kind="ebt",
        index=0,
        name="test_add",
        source=source,
        call=CALL,
    )


def refined(task_: Task, program: str | None, source: str = "def test_add():\n    assert add(1, 2) == 3\n") -> RefinedJob:
    refinement = Refinement(
        feedback_id="sim:default|HumanEval/0|ebt|0", model="sim:default", task_id="HumanEval/0", code=program, call=CALL
    )
    return RefinedJob(task_, refinement, gen_test(source), before=False)


def test_a_task_waits_when_its_reference_or_a_benchmark_test_waits() -> None:
    assert not task_waits(task())
    assert task_waits(task(reference=SLEEPS))
    assert task_waits(
        task(tests="import time\n\ndef check(candidate):\n    time.sleep(0.1)\n    assert candidate(1, 2) == 3\n")
    )


def test_an_rq1_unit_waits_when_its_task_a_code_sample_or_a_generated_test_waits() -> None:
    assert not pair_job_waits(PairJob(task(), (code(COMPUTES), code(None)), (gen_test(PLAIN_TEST),)))
    assert pair_job_waits(PairJob(task(reference=SLEEPS), (code(COMPUTES),), (gen_test(PLAIN_TEST),)))
    assert pair_job_waits(PairJob(task(), (code(COMPUTES), code(SPAWNS)), (gen_test(PLAIN_TEST),)))
    assert pair_job_waits(
        PairJob(task(), (code(COMPUTES),), (gen_test("import time\n\ndef test_add():\n    time.sleep(1)\n"),))
    )


def test_a_refinement_waits_when_its_task_its_program_or_its_generated_test_waits() -> None:
    assert not refined_job_waits(refined(task(), COMPUTES))
    assert not refined_job_waits(refined(task(), None))  # no program: nothing runs but the task's own checks
    assert refined_job_waits(refined(task(), SLEEPS))
    assert refined_job_waits(refined(task(reference=SPAWNS), COMPUTES))
    assert refined_job_waits(refined(task(), COMPUTES, "import socket\n\ndef test_add():\n    socket.socket()\n"))
