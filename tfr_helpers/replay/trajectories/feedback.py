"""Reading the tests out of one logged feedback text, its format detected per feedback (one log mixes them).

- **asserts** (Reflexion's own tests): ``Tested passed:\\n<assert lines>\\n\\nTests failed:\\n<assert> # output: <x>``;
- **unittest** output (``TEST OUTPUT:``, ``test_x (builtins.TestY) ... FAIL``, ``FAIL: test_x (builtins.TestY)``
  blocks, ``FAILED TESTS:``): the tests are methods of the row's ``test_cases`` (unittest modules an LLM wrote);
- **harness fault**: a failing test whose output is ``'Expr' object has no attribute 'test'`` (the logging harness
  never ran the tests).
"""

from __future__ import annotations

import re
from collections.abc import Sequence

from tfr_helpers.replay.trajectories.logged import FeedbackFormat, LoggedTest

HARNESS_FAULT = "object has no attribute 'test'"
"""The message of the logging harness's fault: it failed to run the tests at all."""

_OUTPUT = " # output: "
_FAILED_HEADER = "Tests failed:"
_PASSED_HEADER = "Tested passed:"
_VERBOSE = re.compile(r"^(\w+) \([\w.]*?\.?(\w+)\) \.\.\. (ok|FAIL|ERROR|skipped.*)$", re.MULTILINE)
_BLOCK = re.compile(r"^(FAIL|ERROR): (\w+) \([\w.]*?\.?(\w+)\)\n-+\n(.*?)(?=\n\n|\n={20,}|\n-{20,}|\Z)", re.S | re.M)
_LISTED = re.compile(r"(\w+) \([\w.]*?\.?(\w+)\)")


def detect_format(text: str) -> FeedbackFormat:
    """The format of one feedback text (``none``: no test is named as failing)."""
    if HARNESS_FAULT in text:
        return "harness_fault"
    if "TEST OUTPUT:" in text or _VERBOSE.search(text) or "FAILED TESTS:" in text:
        return "unittest"
    if _FAILED_HEADER in text and _assert_lines(text.split(_FAILED_HEADER, 1)[1]):
        return "asserts"
    return "none"


def parse_feedback(text: str, test_cases: Sequence[str] = ()) -> tuple[FeedbackFormat, list[LoggedTest]]:
    """The format of one feedback and the tests it names (passing and failing), as runnable tests.

    Args:
        text: The feedback shown to the model.
        test_cases: The row's unittest modules (for unittest output: a test is the module defining its class).

    Returns:
        The format and the tests. A unittest test whose class is in no module of ``test_cases`` is left out.
    """
    fmt = detect_format(text)
    if fmt in ("asserts", "harness_fault"):
        return fmt, _asserts(text)
    if fmt == "unittest":
        return fmt, _unittests(text, test_cases)
    return fmt, []


def _assert_lines(block: str) -> list[tuple[str, str | None]]:
    """``(statement, logged output)`` of each test line of a block; a line without ``# output:`` continues the
    previous line's output (a multi-line value)."""
    out: list[tuple[str, str | None]] = []
    for line in block.split("\n"):
        if not line.strip():
            continue
        if _OUTPUT in line:
            stmt, _, output = line.partition(_OUTPUT)
            out.append((stmt.strip(), output))
        elif line.lstrip().startswith("assert ") or not out:
            out.append((line.strip(), None))
        else:
            stmt, prev = out[-1]
            out[-1] = (stmt, f"{prev}\n{line}" if prev is not None else None)
    return out


def _asserts(text: str) -> list[LoggedTest]:
    passed_block, _, failed_block = text.partition(_FAILED_HEADER)
    passed_block = passed_block.split(_PASSED_HEADER, 1)[-1]
    tests = [
        LoggedTest(name=stmt, kind="assert", source=stmt, logged_status="passed") for stmt, _ in _assert_lines(passed_block)
    ]
    tests += [
        LoggedTest(name=stmt, kind="assert", source=stmt, logged_status="failed", logged_output=output)
        for stmt, output in _assert_lines(failed_block)
    ]
    return tests


def _module_of(cls: str, test_cases: Sequence[str]) -> str | None:
    pattern = re.compile(rf"^class {re.escape(cls)}\b", re.MULTILINE)
    return next((m for m in test_cases if pattern.search(m)), None)


def _unittests(text: str, test_cases: Sequence[str]) -> list[LoggedTest]:
    status: dict[tuple[str, str], str] = {}
    output: dict[tuple[str, str], str] = {}
    for method, cls, result in _VERBOSE.findall(text):
        if result == "ok":
            status[(cls, method)] = "passed"
        elif result in ("FAIL", "ERROR"):
            status[(cls, method)] = "failed"
    for _, method, cls, body in _BLOCK.findall(text):
        status[(cls, method)] = "failed"
        lines = [ln for ln in body.strip().split("\n") if ln.strip()]
        output[(cls, method)] = lines[-1].strip() if lines else ""
    if "FAILED TESTS:" in text:
        for method, cls in _LISTED.findall(text.rsplit("FAILED TESTS:", 1)[1]):
            status[(cls, method)] = "failed"
    tests = []
    for (cls, method), st in status.items():
        module = _module_of(cls, test_cases)
        if module is None:
            continue
        tests.append(
            LoggedTest(
                name=f"{cls}.{method}",
                kind="unittest",
                source=module,
                logged_status=st,  # type: ignore[arg-type]
                logged_output=output.get((cls, method)),
            )
        )
    return tests


def failing(tests: Sequence[LoggedTest]) -> list[LoggedTest]:
    """The tests the feedback names as failing."""
    return [t for t in tests if t.logged_status == "failed"]
