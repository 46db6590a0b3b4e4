"""Feedback text comes from the generated code's outcome only."""

from __future__ import annotations

from tfr_helpers.pipeline.feedback import build_feedback
from tfr_helpers.records import TestOutcome as Outcome

SOURCE = "def test_add():\n    assert add(1, 2) == 3\n"


def test_feedback_holds_source_expected_actual_and_trimmed_traceback() -> None:
    tb = "\n".join(f"line {i}" for i in range(40))
    outcome = Outcome(
        name="test_add",
        status="failed",
        exc_type="AssertionError",
        message="assert 4 == 3",
        expected="3",
        actual="4",
        traceback=tb,
    )
    fb = build_feedback("m|HumanEval/0|ebt|0", SOURCE, outcome)
    assert fb.feedback_id == fb.test_id == "m|HumanEval/0|ebt|0"
    assert SOURCE.strip() in fb.text
    assert "Expected: 3" in fb.text and "Actual:   4" in fb.text
    assert "line 39" in fb.text and "line 0\n" not in fb.text


def test_feedback_for_a_program_that_did_not_load_names_the_load_error() -> None:
    outcome = Outcome(name="test_add", status="not_run")
    load = Outcome(name="<program>", status="error", exc_type="SyntaxError", message="invalid syntax")
    text = build_feedback("t", SOURCE, outcome, load).text
    assert "failed to load" in text and "SyntaxError: invalid syntax" in text


def test_timeout_feedback() -> None:
    assert "time limit" in build_feedback("t", SOURCE, Outcome(name="t", status="timeout")).text
