"""The simulated refiner (repair / overfit / mutant / no code) and judges (error rates, ground truth)."""

from __future__ import annotations

import pytest

from tests.models.sim.test_sim_support import ask, tasks
from tfr_helpers.benchmarks import benchmark_tests
from tfr_helpers.models.parse import parse_code, parse_decision
from tfr_helpers.models.sim import SimProvider, oracle
from tfr_helpers.models.sim.tester.examples import extract_examples
from tfr_helpers.pipeline.steps.feedback import build_feedback
from tfr_helpers.records import Task
from tfr_helpers.records import TestOutcome as Outcome
from tfr_helpers.sandbox import run_program

ONLY = {"refine_overfit": 0.0, "refine_mutant": 0.0, "refine_no_code": 0.0}


def _task() -> Task:
    return next(t for t in tasks("humaneval") if extract_examples(t))


def _feedback(task: Task, wrong: bool) -> str:
    """Feedback for a test on the task's first example, with a wrong (perturbed) or right expected value."""
    ex = extract_examples(task)[0]
    expected = f"({ex.expected},)" if wrong else ex.expected
    source = f"def test_example():\n    assert {ex.actual} == {expected}\n"
    outcome = Outcome(name="test_example", status="failed", exc_type="AssertionError")
    return build_feedback("t", source, outcome).text


def _refined(provider: SimProvider, task: Task, feedback: str) -> str | None:
    return parse_code(ask(provider, "refine", task, code=task.reference, feedback=feedback), task.entry_point).code


def test_repair_returns_the_reference_which_passes_the_benchmark() -> None:
    task = _task()
    code = _refined(SimProvider(**ONLY), task, _feedback(task, wrong=False))
    assert code is not None and run_program(code, benchmark_tests(task)).passed


def test_overfitting_to_a_wrong_expectation_breaks_correct_code() -> None:
    task = _task()
    code = _refined(SimProvider(**{**ONLY, "refine_overfit": 1.0}), task, _feedback(task, wrong=True))
    assert code is not None and "if [" in code
    assert not run_program(code, benchmark_tests(task)).passed


def test_refiner_mutant_and_no_code() -> None:
    task = _task()
    mutant = _refined(SimProvider(**{**ONLY, "refine_mutant": 1.0}), task, _feedback(task, wrong=True))
    assert mutant is not None and mutant.strip() != task.reference.strip()
    text = ask(SimProvider(**{**ONLY, "refine_no_code": 1.0}), "refine", task, code="", feedback="x")
    assert parse_code(text, task.entry_point).code is None and "simulated model" in text


@pytest.mark.parametrize("template", ["judge", "judge_reasoning"])
def test_judge_without_errors_accepts_right_tests_and_rejects_wrong_ones(template: str) -> None:
    task = _task()
    provider = SimProvider(judge_error=0.0, judge_reasoning_error=0.0, judge_undecided=0.0)
    right = parse_decision(ask(provider, template, task, feedback=_feedback(task, wrong=False)))
    wrong = parse_decision(ask(provider, template, task, feedback=_feedback(task, wrong=True)))
    assert (right.decision, wrong.decision) == ("accept", "reject")


def test_judge_with_certain_error_inverts_its_decision() -> None:
    task = _task()
    provider = SimProvider(judge_error=1.0, judge_undecided=0.0)
    assert parse_decision(ask(provider, "judge", task, feedback=_feedback(task, wrong=True))).decision == "accept"


def test_reasoning_judge_is_more_accurate_than_the_plain_one_by_default() -> None:
    task = _task()
    feedback = _feedback(task, wrong=True)
    provider = SimProvider()
    correct = {
        t: sum(
            parse_decision(ask(provider, t, task, sample_index=i, feedback=feedback)).decision == "reject" for i in range(60)
        )
        for t in ("judge", "judge_reasoning")
    }
    assert correct["judge_reasoning"] > correct["judge"]


def test_oracle_subprocess_fallback_gives_the_reference_verdict(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(oracle, "_run_in_sandbox", lambda reference, test: None)
    reference = "def f(x):\n    return x + 1\n"
    assert oracle.reference_passes(reference, "def test_a():\n    assert f(1) == 2\n")
    assert not oracle.reference_passes(reference, "def test_a():\n    assert f(1) == 3\n")
    assert not oracle.reference_passes(reference, "def test_a():\n    huge = [0] * 10 ** 10\n")
