"""Test-fail feedback text: built from the generated code's outcome record only, never the reference.

The text names no reader: it is the failing test and what happened. Each prompt template frames it for
its reader: the refiner's says "Your current implementation ... failed this test", the judges' say "a
generated test failed on the implementation under review".
"""

from __future__ import annotations

import re

from tfr_helpers.records import Feedback, TestOutcome

TRACEBACK_LINES = 12
"""Lines of traceback kept in feedback (the tail, where the failure is)."""
MESSAGE_CHARS = 600
_TB_HEADER = re.compile(r"^\s*Traceback \(most recent call last[^)]*\):\s*$")


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
        lines += ["", *traceback_block(outcome.traceback)]
    return "\n".join(lines)


def traceback_block(traceback: str) -> list[str]:
    """One ``Traceback`` header and the last :data:`TRACEBACK_LINES` lines of frames.

    The sandbox's traceback carries its own ``Traceback (most recent call last):`` header (chained
    exceptions carry several); they are dropped so the reader sees exactly one, which says when lines were cut.
    """
    frames = [line for line in traceback.strip().splitlines() if not _TB_HEADER.match(line)]
    tail = frames[-TRACEBACK_LINES:]
    cut = len(frames) - len(tail)
    header = (
        "Traceback (most recent call last):" if not cut else f"Traceback (most recent call last; {cut} earlier lines cut):"
    )
    return [header, *tail]


def build_feedback(
    test_id: str, test_source: str, generated: TestOutcome, load_error: TestOutcome | None = None
) -> Feedback:
    """The feedback the refiner and the judges see for one failed generated test (worded for neither: the
    templates say whose code it is).

    Args:
        test_id: Id of the generated test (also the feedback id).
        test_source: Source of the generated test.
        generated: The generated code's outcome on that test (must not be ``passed``).
        load_error: The generated program's load failure, when it did not load (``not_run``).

    Returns:
        The feedback record.
    """
    text = f"```python\n{test_source.strip()}\n```\n\n"
    text += failure_text(generated)
    if generated.status == "not_run" and load_error is not None:
        text += "\n\nLoading the program failed:\n" + failure_text(load_error)
    return Feedback(feedback_id=test_id, test_id=test_id, text=text)
