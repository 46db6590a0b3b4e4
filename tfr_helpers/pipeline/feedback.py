"""Test-fail feedback text: built from the generated code's outcome record only, never the reference."""

from __future__ import annotations

from tfr_helpers.records import Feedback, TestOutcome

TRACEBACK_LINES = 12
"""Lines of traceback kept in feedback (the tail, where the failure is)."""
MESSAGE_CHARS = 600


def _trim(text: str, limit: int) -> str:
    return text if len(text) <= limit else text[: limit - 3] + "..."


def failure_text(outcome: TestOutcome) -> str:
    """Describe one failed outcome: status, exception, expected vs actual, trimmed traceback."""
    lines = []
    if outcome.status == "timeout":
        lines.append("The test did not finish within the time limit (timeout).")
    elif outcome.status == "crashed":
        lines.append("The test process was killed (crash or resource limit).")
    elif outcome.status == "not_run":
        lines.append("The program failed to load, so the test did not run.")
    else:
        kind = "assertion failed" if outcome.status == "failed" else "error"
        exc = outcome.exc_type or "Exception"
        msg = _trim((outcome.message or "").strip(), MESSAGE_CHARS)
        lines.append(f"The test failed ({kind}): {exc}" + (f": {msg}" if msg else ""))
    if outcome.expected is not None or outcome.actual is not None:
        lines.append(f"Expected: {outcome.expected}")
        lines.append(f"Actual:   {outcome.actual}")
    if outcome.traceback:
        tail = outcome.traceback.strip().splitlines()[-TRACEBACK_LINES:]
        lines += ["", "Traceback (most recent call last, trimmed):", *tail]
    return "\n".join(lines)


def build_feedback(
    test_id: str, test_source: str, generated: TestOutcome, load_error: TestOutcome | None = None
) -> Feedback:
    """The feedback the refiner and the judges see for one failed generated test.

    Args:
        test_id: Id of the generated test (also the feedback id).
        test_source: Source of the generated test.
        generated: The generated code's outcome on that test (must not be ``passed``).
        load_error: The generated program's load failure, when it did not load (``not_run``).

    Returns:
        The feedback record.
    """
    text = f"The following test failed on your code.\n\n```python\n{test_source.strip()}\n```\n\n"
    text += failure_text(generated)
    if generated.status == "not_run" and load_error is not None:
        text += "\n\nLoading the program failed:\n" + failure_text(load_error)
    return Feedback(feedback_id=test_id, test_id=test_id, text=text)
