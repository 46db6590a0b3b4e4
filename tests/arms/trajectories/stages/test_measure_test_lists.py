"""The dose's measurement: a fixed list's tests on the reference, labelled by the base study's rules.

Hand-made outcomes for the label of each kind of first run (a reference timeout of the wall-clock guard that times
out again alone, or a crash that crashes again, is ``indeterminate``; one that passes alone is ``valid``; a timeout
the reference's own time decided is final and ``invalid``), then a tiny hand-made list of three tests run in the real
sandbox on BigCodeBench/505's reference: one valid, one invalid, one that kills its process (``indeterminate``)."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest

from tfr_helpers.arms.trajectories.stages.measure_test_lists import DoseJob, label_test, measure_test_lists
from tfr_helpers.pipeline import load_config
from tfr_helpers.pipeline.engine.context import RunContext
from tfr_helpers.pipeline.engine.store import RunStore
from tfr_helpers.records import Isolation, ProgramRun
from tfr_helpers.records import TestOutcome as Outcome

SMOKE = Path(__file__).resolve().parents[4] / "papermill_params" / "smoke.yaml"
BUDGET = 10.0
ISOLATION = Isolation(network="none", uid_drop=False)


def _run(status: str, duration: float = 0.1, wait: float | None = 0.0, **kw: object) -> ProgramRun:
    outcome = Outcome(name="T.test_x", status=status, duration_s=duration, wait_s=wait, **kw)  # type: ignore[arg-type]
    return ProgramRun(outcomes=[outcome], isolation=ISOLATION)


GUARD = {"duration": 20 * BUDGET, "wait": 20 * BUDGET - 1}
"""A timeout of the wall-clock guard: it waited for a CPU almost all the time (own time under the budget)."""


def test_a_reference_timeout_of_the_guard_that_times_out_again_alone_is_indeterminate() -> None:
    again = _run("timeout", duration=60 * BUDGET, wait=60 * BUDGET - 1)  # starved even alone, with 3x the budget
    verdict = label_test(0, "src", _run("timeout", **GUARD), again, None, BUDGET)  # type: ignore[arg-type]
    assert (verdict.validity, verdict.status, verdict.cause) == ("indeterminate", "timeout", None)


def test_a_crash_that_crashes_again_is_indeterminate_and_one_that_passes_alone_is_valid() -> None:
    assert label_test(0, "src", _run("crashed"), _run("crashed"), None, BUDGET).validity == "indeterminate"
    assert label_test(0, "src", _run("timeout", **GUARD), _run("passed"), None, BUDGET).validity == "valid"  # type: ignore[arg-type]


def test_a_timeout_of_the_references_own_time_is_final_and_invalid() -> None:
    own = _run("timeout", duration=BUDGET + 0.5, wait=0.0)
    verdict = label_test(0, "src", own, None, None, BUDGET)
    assert (verdict.validity, verdict.cause) == ("invalid", "timeout_or_resource")


def test_a_failure_that_passes_with_another_seed_is_invalid_for_a_nondeterministic_reference() -> None:
    failed = _run("failed", exc_type="AssertionError", message="1 != 2")
    assert label_test(0, "src", failed, None, _run("passed"), BUDGET).cause == "nondeterministic"
    verdict = label_test(0, "src", failed, None, _run("failed", exc_type="AssertionError"), BUDGET)
    assert (verdict.validity, verdict.cause, verdict.message) == (
        "invalid",
        "wrong_expected_value",
        "AssertionError: 1 != 2",
    )


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


def _case(body: str) -> str:
    return f"import os\nimport unittest\n\nclass T(unittest.TestCase):\n    def test_x(self):\n        {body}\n"


@pytest.mark.slow
def test_a_tiny_list_on_the_reference_gives_a_valid_an_invalid_and_an_indeterminate_test(ctx: RunContext) -> None:
    tests = (
        _case("self.assertEqual(len(task_func('key', 'message')), 64)"),  # a sha256 hex digest: right
        _case("self.assertEqual(len(task_func('key', 'message')), 32)"),  # wrong expected value
        _case("os._exit(3)"),  # kills the process first time and alone: the machine cannot be ruled out
    )
    job = DoseJob("tiny", "hand-made", "BigCodeBench/505", tests)
    (dose,) = measure_test_lists([job], ctx)
    assert dose.key == "tiny|BigCodeBench/505" and not dose.not_evaluable
    assert [t.validity for t in dose.tests] == ["valid", "invalid", "indeterminate"]
    assert dose.tests[1].cause == "wrong_expected_value" and dose.tests[2].status == "crashed"
    assert dose.dose == 0.5  # one valid of the two decided tests; the indeterminate one counted apart
    (outside,) = measure_test_lists([DoseJob("tiny", "hand-made", "BigCodeBench/13", tests)], ctx)  # needs the network
    assert outside.not_evaluable.startswith("excluded from the study's BigCodeBench selection") and not outside.tests
