"""The simulated tester's corruptions really make the reference fail, with the cause they are meant for."""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterator

import pytest

from tests.models.sim.test_sim_support import ask, tasks
from tfr_helpers.models.parse import parse_code, parse_tests
from tfr_helpers.models.sim import SimProvider
from tfr_helpers.models.sim.misconception import shared_mutant
from tfr_helpers.models.sim.tester.examples import extract_examples
from tfr_helpers.pipeline.steps.labels import cause_of
from tfr_helpers.records import Task
from tfr_helpers.sandbox import Limits, Sandbox, TestSpec

NONE = {
    "ebt_wrong_expected": 0.0,
    "ebt_invalid_input": 0.0,
    "ebt_wrong_exception": 0.0,
    "ebt_test_code_error": 0.0,
    "ebt_resource": 0.0,
    "misconception_tasks": 0.0,
}
CAUSE = {
    "wrong_expected": "wrong_expected_value",
    "invalid_input": "invalid_input",
    "wrong_exception": "wrong_exception",
    "test_code_error": "test_code_error",
    "resource": "timeout_or_resource",
}


@pytest.fixture(scope="module")
def sandbox() -> Iterator[Sandbox]:
    with Sandbox(Limits(timeout_s=10, hypothesis_max_examples=20), workers=2) as box:
        yield box


def _example_tasks() -> list[Task]:
    return [t for b in ("humaneval", "mbpp") for t in tasks(b) if extract_examples(t)][:12]


def _reference_outcomes(box: Sandbox, tasks_: list[Task], kind: str, provider: SimProvider):
    """Generated tests of ``kind`` for each task, run against the reference: (test source, outcome) pairs."""
    jobs, sources = [], []
    for task in tasks_:
        parsed = parse_tests(ask(provider, kind, task, n_tests=2), kind, task.entry_point)
        specs = [TestSpec(name=t.name, source=t.source, kind="function") for t in parsed.tests]
        jobs.append((task.reference, specs))
        sources.append([t.source for t in parsed.tests])
    runs = box.run_many(jobs)
    return [(s, o) for run, srcs in zip(runs, sources, strict=True) for s, o in zip(srcs, run.outcomes, strict=True)]


@pytest.mark.slow
def test_uncorrupted_ebts_and_true_properties_pass_on_the_reference(sandbox: Sandbox) -> None:
    provider = SimProvider(**NONE, pbt_falsified=0.0)
    for kind in ("ebt", "pbt"):
        results = _reference_outcomes(sandbox, _example_tasks(), kind, provider)
        failed = [(s, o.status, o.message) for s, o in results if o.status != "passed"]
        assert results and not failed


@pytest.mark.parametrize("corruption", list(CAUSE))
def test_each_ebt_corruption_fails_the_reference_with_its_cause(sandbox: Sandbox, corruption: str) -> None:
    provider = SimProvider(**{**NONE, f"ebt_{corruption}": 1.0})
    results = _reference_outcomes(sandbox, _example_tasks(), "ebt", provider)
    assert results and all(o.status != "passed" for _, o in results)
    causes = Counter(cause_of("ebt", s, o, None) for s, o in results)
    # invalid input may be tolerated by a reference that then returns a wrong value instead
    assert causes[CAUSE[corruption]] >= 0.75 * len(results), causes


def test_false_properties_are_falsified_by_the_reference(sandbox: Sandbox) -> None:
    results = _reference_outcomes(sandbox, _example_tasks(), "pbt", SimProvider(pbt_falsified=1.0))
    assert results and all(cause_of("pbt", s, o, None) == "property_falsified" for s, o in results)


def test_misconception_tests_fail_the_reference_but_pass_the_shared_mutant(sandbox: Sandbox) -> None:
    provider = SimProvider(**{**NONE, "misconception_tasks": 1.0, "ebt_misconception": 1.0})
    wrong_pass = 0
    for task in _example_tasks()[:8]:
        mutant = shared_mutant(task, 0)
        parsed = parse_tests(ask(provider, "ebt", task, n_tests=3), "ebt", task.entry_point)
        specs = [TestSpec(name=t.name, source=t.source, kind="function") for t in parsed.tests]
        ref, mut = sandbox.run_many([(task.reference, specs), (mutant, specs)])
        assert all(o.status != "passed" for o in ref.outcomes)
        wrong_pass += sum(o.status == "passed" for o in mut.outcomes)
    assert wrong_pass > 0


def test_coder_writes_the_shared_misconception_on_confusing_tasks() -> None:
    provider = SimProvider(misconception_tasks=1.0, coder_misconception=1.0, coder_no_code=0.0)
    task = tasks("humaneval")[0]
    code = parse_code(ask(provider, "codegen", task), task.entry_point).code
    assert code is not None and shared_mutant(task, 0) in code
