"""Known answers of the oracle rewrite on hand-written tests and outcome records (no sandbox: the pure part)."""

from __future__ import annotations

from tfr_helpers.arms.oracle.stages.rewrite import (
    NOT_EQUALITY,
    PBT_REASON,
    failing_line,
    ineligible,
    reason_key,
    repair_source,
)
from tfr_helpers.records import TestOutcome as Outcome


def failed(line: int, actual: str | None, expected: str | None) -> Outcome:
    """The reference's outcome on a failed comparison at ``line`` of the test module, as the sandbox writes it."""
    tb = f'Traceback (most recent call last):\n  File "test_0.py", line {line}, in test_x\nAssertionError'
    return Outcome(name="test_x", status="failed", exc_type="AssertionError", traceback=tb, actual=actual, expected=expected)


def test_equality_assert_gets_the_reference_output_as_expected_value() -> None:
    source = "def test_x():\n    assert add(2, 2) == 5  # wrong\n"
    plan = repair_source(source, "add", failed(2, "4", "5"))
    assert plan.source == "def test_x():\n    assert add(2, 2) == 4  # wrong\n" and plan.reason is None and plan.line == 2


def test_expected_value_on_the_left_is_replaced_from_the_right_side() -> None:
    source = "def test_x():\n    assert [1, 2] == add([1], [3])\n"
    plan = repair_source(source, "add", failed(2, "[1, 2]", "[1, 3]"))
    assert plan.source == "def test_x():\n    assert [1, 3] == add([1], [3])\n"


def test_only_the_failed_assert_is_rewritten() -> None:
    source = "def test_x():\n    assert add(1, 1) == 2\n    assert add(2, 2) == 5\n    assert add(3, 3) == 7\n"
    plan = repair_source(source, "add", failed(3, "4", "5"))
    assert plan.source == "def test_x():\n    assert add(1, 1) == 2\n    assert add(2, 2) == 4\n    assert add(3, 3) == 7\n"


def test_a_result_variable_compared_with_a_literal_is_repaired() -> None:
    source = "def test_x():\n    result = add(2, 2)\n    assert result == 'x'\n"
    assert repair_source(source, "add", failed(3, "4", "'x'")).source == source.replace("'x'", "4")


def test_invalid_input_is_not_repaired() -> None:
    raised = Outcome(name="test_x", status="error", exc_type="ValueError", in_code_under_test=True)
    plan = repair_source("def test_x():\n    assert add(-1, 2) == 1\n", "add", raised)
    assert plan.source is None and plan.reason is not None and reason_key(plan.reason) == "invalid_input"
    assert ineligible("ebt", "invalid_input") == plan.reason


def test_non_equality_assert_is_reported() -> None:
    plan = repair_source("def test_x():\n    assert add(2, 2) > 5\n", "add", failed(2, "4", "5"))
    assert plan.source is None and plan.reason == f"{NOT_EQUALITY} (Gt)"
    bare = Outcome(name="test_x", status="failed", exc_type="AssertionError", message="assert False")
    plan = repair_source("def test_x():\n    assert add(2, 2)\n", "add", bare)
    assert plan.source is None and plan.reason == NOT_EQUALITY and reason_key(plan.reason) == "not_equality_assert"


def test_pbt_is_never_repaired() -> None:
    assert ineligible("pbt", None) == PBT_REASON
    assert ineligible("pbt", "property_falsified") == PBT_REASON
    assert ineligible("pbt", "wrong_expected_value") == PBT_REASON
    assert ineligible("ebt", "wrong_expected_value") is None


def test_every_other_cause_is_reported_with_its_reason() -> None:
    for cause in ("wrong_exception", "test_code_error", "timeout_or_resource", "nondeterministic"):
        reason = ineligible("ebt", cause)
        assert reason is not None and reason_key(reason) == cause


def test_output_without_literal_form_is_not_repaired() -> None:
    plan = repair_source("def test_x():\n    assert add(2, 2) == 5\n", "add", failed(2, "<Foo object at 0x7f>", "5"))
    assert plan.source is None and reason_key(plan.reason or "") == "no_literal_output"
    capped = repair_source("def test_x():\n    assert add(2, 2) == 5\n", "add", failed(2, "[1, 2, 3...", "5"))
    assert capped.source is None and reason_key(capped.reason or "") == "no_literal_output"


def test_two_calls_leave_the_expected_side_unclear() -> None:
    plan = repair_source("def test_x():\n    assert add(1, 1) == add(0, 1)\n", "add", failed(2, "2", "1"))
    assert plan.source is None and reason_key(plan.reason or "") == "unclear_expected_side"


def test_failing_line_is_the_last_frame_in_the_test_module() -> None:
    tb = 'File "test_3.py", line 4, in test_x\n  File "solution.py", line 2, in add\n  File "test_3.py", line 9, in h'
    assert failing_line(tb) == 9 and failing_line(None) is None
