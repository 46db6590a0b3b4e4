"""Screening strategies: the registry and the non-LLM heuristic."""

from __future__ import annotations

from collections.abc import Sequence

import pytest

from tfr_helpers.errors import ConfigError
from tfr_helpers.pipeline import STRATEGIES, ScreeningItem, Verdict, register_strategy
from tfr_helpers.pipeline.config.experiment import config_from_dict
from tfr_helpers.records import Feedback, GeneratedTest, ModelCallRecord, Task
from tfr_helpers.records import TestOutcome as Outcome

TASK = Task(
    task_id="HumanEval/0",
    benchmark="humaneval",
    description="d",
    entry_point="f",
    signature="def f(x):",
    reference="def f(x):\n    return x\n",
    tests="",
    test_format="check",
)
CALL = ModelCallRecord(model="sim:default", role="tester", stage="generate_tests", template="ebt", template_version="1")


def item(outcome: Outcome) -> ScreeningItem:
    test = GeneratedTest(
        test_id="t",
        model="sim:default",
        task_id=TASK.task_id,
        kind="ebt",
        index=0,
        name="test_x",
        source="def test_x():\n    assert g(1) == 1\n",
        call=CALL,
    )
    return ScreeningItem(
        Feedback(feedback_id="t", test_id="t", text="..."),
        TASK.view(),
        "sim:default",
        "sim:default",
        "def f(x):\n    return x\n",
        test,
        outcome,
        code_samples=1,
    )


def test_reject_test_code_errors_rejects_only_errors_outside_the_code() -> None:
    outcomes = [
        Outcome(name="t", status="error", exc_type="NameError"),
        Outcome(name="t", status="error", exc_type="NameError", in_code_under_test=True),
        Outcome(name="t", status="failed", exc_type="AssertionError"),
    ]
    verdicts = STRATEGIES["reject_test_code_errors"]([item(o) for o in outcomes], None)  # type: ignore[arg-type]
    assert [v.decision for v in verdicts] == ["reject", "accept", "accept"]


def test_a_registered_function_becomes_a_configurable_strategy() -> None:
    with pytest.raises(ConfigError):
        config_from_dict({"screening": ["reject_everything"]})

    @register_strategy("reject_everything")
    def reject_everything(items: Sequence[ScreeningItem], ctx: object) -> list[Verdict]:
        return [Verdict("reject") for _ in items]

    try:
        assert config_from_dict({"screening": ["reject_everything"]}).screening == [
            "accept_all",
            "reject_everything",
        ]
    finally:
        STRATEGIES.pop("reject_everything")
