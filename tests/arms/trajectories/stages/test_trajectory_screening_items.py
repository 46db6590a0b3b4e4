"""A trajectory step's reproduced failing tests as reference-free screening items, and the strategies that screen them."""

from __future__ import annotations

from pathlib import Path

import pytest

from tfr_helpers.arms.trajectories.records.trajectories import LoggedTestVerdict, TrajectoryStepEvaluation
from tfr_helpers.arms.trajectories.stages.screening_items import labels, step_items, step_program, trajectory_strategies
from tfr_helpers.records import Isolation, ProgramRun, TaskView
from tfr_helpers.records import TestOutcome as Outcome
from tfr_helpers.replay.trajectories.logged import LoggedTest, Trajectory, TrajectoryAttempt

WRONG = "assert add(2, 2) == 5"
RIGHT = "assert add(1, 1) == 2"
GONE = "assert add(0, 0) == 0"


@pytest.fixture
def benchmark_data(shared_benchmarks: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    monkeypatch.setenv("TFR_BENCHMARK_DIR", str(shared_benchmarks))
    return shared_benchmarks


def _trajectory() -> Trajectory:
    tests = [
        LoggedTest(name=s, kind="assert", source=s, logged_status="failed", logged_output="x") for s in (WRONG, RIGHT, GONE)
    ]
    tests.append(LoggedTest(name="ok", kind="assert", source="assert add(3, 3) == 6", logged_status="passed"))
    attempts = [
        TrajectoryAttempt(index=0, code="def add(a, b):\n    return a - b\n", feedback="Tested passed: ...", tests=tests),
        TrajectoryAttempt(index=1, code="def add(a, b):\n    return a + b\n"),
    ]
    return Trajectory(dataset="s", task_id="HumanEval/53", benchmark="humaneval", entry_point="add", attempts=attempts)


def _evaluation(step_class: str = "mixed") -> TrajectoryStepEvaluation:
    verdicts = [
        LoggedTestVerdict(name=WRONG, kind="assert", on_code="failed", on_reference="failed", reproduced=True),
        LoggedTestVerdict(name=RIGHT, kind="assert", on_code="failed", on_reference="passed", reproduced=True),
        LoggedTestVerdict(name=GONE, kind="assert", on_code="passed", on_reference="passed", reproduced=False),
    ]
    return TrajectoryStepEvaluation(
        dataset="s",
        model="M",
        task_id="HumanEval/53",
        benchmark="humaneval",
        step=0,
        feedback_format="asserts",
        step_class=step_class,  # type: ignore[arg-type]
        tests=verdicts,
    )


def _run(trajectory: Trajectory) -> ProgramRun:
    """The rerun of the logged failing tests on the code before, named as the sandbox names them."""
    _, specs = step_program(trajectory, 0)
    status = {WRONG: "failed", RIGHT: "failed", GONE: "passed"}
    outcomes = [
        Outcome(name=spec.name, status=status[spec.source], exc_type="AssertionError", expected="5", actual="0")  # type: ignore[attr-defined]
        for spec in specs
    ]
    return ProgramRun(outcomes=outcomes, isolation=Isolation(network="none", uid_drop=False))


def test_each_reproduced_failing_test_is_an_item_without_the_reference(benchmark_data: Path) -> None:
    trajectory = _trajectory()
    pairs = step_items(trajectory, _evaluation(), _run(trajectory), {})
    assert [item.test.source for item, _ in pairs] == [WRONG, RIGHT]  # the test that did not fail again is left out
    assert labels(pairs) == [1, 0]
    item = pairs[0][0]
    assert isinstance(item.task, TaskView) and not hasattr(item.task, "reference")
    assert item.coder == "trajectories:M" and item.code == trajectory.attempts[0].code
    assert item.outcome.expected == "5" and item.feedback.text == "Tested passed: ..."


def test_a_step_without_a_reproduced_judgement_gives_no_item(benchmark_data: Path) -> None:
    trajectory = _trajectory()
    assert step_items(trajectory, _evaluation("not_reproduced"), _run(trajectory), {}) == []


def test_the_llm_judges_are_left_out_and_accept_all_comes_first() -> None:
    assert trajectory_strategies(["llm_judge", "reject_test_code_errors", "llm_judge_reasoning", "accept_all"]) == [
        "accept_all",
        "reject_test_code_errors",
    ]
