"""Feedback text comes from the generated code's outcome only."""

from __future__ import annotations

from tfr_helpers.pipeline.steps.feedback import build_feedback
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


def test_one_traceback_header_when_the_sandbox_traceback_has_its_own() -> None:
    from tfr_helpers.sandbox import TestSpec, run_program

    program = "def add(a, b):\n    return helper(a) + b\n\ndef helper(x):\n    raise ValueError('boom')\n"
    run = run_program(program, [TestSpec(name="test_add", source=SOURCE, kind="function")])
    outcome = run.outcomes[0]
    assert outcome.status == "error" and "Traceback (most recent call last)" in (outcome.traceback or "")
    text = build_feedback("t", SOURCE, outcome).text
    assert text.count("Traceback (") == 1
    assert text.count("most recent call last") == 1
    assert "raise ValueError('boom')" in text and "cut" not in text


def test_a_long_traceback_says_how_many_lines_were_cut() -> None:
    tb = "Traceback (most recent call last):\n" + "\n".join(f"  frame {i}" for i in range(30))
    text = build_feedback("t", SOURCE, Outcome(name="t", status="error", exc_type="E", traceback=tb)).text
    assert text.count("Traceback (") == 1
    assert "Traceback (most recent call last; 18 earlier lines cut):" in text
    assert "frame 29" in text and "frame 17\n" not in text


def test_feedback_names_no_reader_and_each_prompt_words_it_for_its_own() -> None:
    from tfr_helpers.prompts import render_prompt

    outcome = Outcome(name="test_add", status="failed", exc_type="AssertionError", expected="3", actual="4")
    feedback = build_feedback("t", SOURCE, outcome).text
    assert "your" not in feedback.lower() and "under review" not in feedback
    common = {"description": "Add two numbers.", "code": "def add(a, b):\n    return a * b\n", "feedback": feedback}
    refine = render_prompt("refine", entry_point="add", **common)[-1].content
    assert "Your current implementation" in refine and "It failed this test:" in refine
    assert "under review" not in refine
    for judge in ("judge", "judge_reasoning"):
        view = render_prompt(judge, **common)[-1].content
        assert "A generated test failed on the implementation under review:" in view
        assert "your code" not in view.lower() and "your implementation" not in view.lower()
        assert feedback in view
