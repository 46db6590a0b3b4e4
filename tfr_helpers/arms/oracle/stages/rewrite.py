"""Oracle repair of one generated EBT, as pure functions: which tests qualify, and the rewritten source.

GenX stage 1: an unreliable example-based test whose expected value is wrong gets the reference's
output as its expected value. Only ``assert <call side> == <expected side>`` statements are rewritten; the
reference's output is read from its failed outcome record (the sandbox stores the reprs of both sides of a failed
comparison, :mod:`tfr_helpers.sandbox.rewrite`: ``actual`` = left side, ``expected`` = right side) and must be a
Python literal. Everything else is reported with a reason, never repaired. The sandbox verification (the reference
must pass the repaired test) is the stage's job (:mod:`.oracle_repair`); this module runs nothing.
"""

from __future__ import annotations

import ast
import re
from dataclasses import dataclass

from tfr_helpers.records import Cause, TestKind, TestOutcome

NOT_EQUALITY = "not an equality assert"
"""Reason for a failure that is not an ``assert a == b`` comparison (``assert f(x)``, ``<``, ``in``, a raise)."""

CAUSE_REASONS: dict[str, str] = {
    "invalid_input": "invalid input: the reference raises inside the function under test",
    "wrong_exception": "expects an exception: no expected value to repair",
    "test_code_error": "test code error: the test fails outside the function under test",
    "property_falsified": "property-based test: no expected value to repair",
    "timeout_or_resource": "the reference hit a time or resource limit",
    "nondeterministic": "the reference's verdict changes between runs",
    "harness_unsupported": "the test needs pytest features the harness does not provide",
    "reference_not_run": "the reference did not run the test (it failed to load)",
}
"""Why an unreliable test of each cause other than ``wrong_expected_value`` is not repaired."""

PBT_REASON = "property-based test: no expected value to repair"

_TEST_FRAME = re.compile(r'test_\d+\.py", line (\d+)')


@dataclass(frozen=True)
class RepairPlan:
    """The outcome of one rewrite attempt: the repaired source, or why there is none."""

    source: str | None
    """The test with the failed assert's expected side replaced (None: not repaired)."""
    reason: str | None = None
    """Why not repaired (None when ``source`` is set)."""
    line: int | None = None
    """Line of the rewritten assert (1-based), so a repeated failure at the same line stops the repair."""


def ineligible(kind: TestKind, cause: Cause | None) -> str | None:
    """Why a test of this kind and unreliability cause is not repaired at all, or None when it may be.

    Property-based tests are never repaired (a property has no expected value); among EBTs only a wrong expected
    value is: an input the reference rejects (``invalid_input``) is reported, not repaired.
    """
    if kind == "pbt":
        return PBT_REASON
    if cause is None or cause == "wrong_expected_value":
        return None
    return CAUSE_REASONS[cause]


def failing_line(traceback: str | None) -> int | None:
    """The line of the test module where the test failed: its last frame in the test file, or None."""
    found = _TEST_FRAME.findall(traceback or "")
    return int(found[-1]) if found else None


def _is_literal(node: ast.expr) -> bool:
    try:
        ast.literal_eval(node)
    except (ValueError, TypeError, SyntaxError, MemoryError, RecursionError):
        return False
    return True


def _calls(node: ast.expr, entry_point: str) -> bool:
    for sub in ast.walk(node):
        if isinstance(sub, ast.Call):
            func = sub.func
            if (isinstance(func, ast.Name) and func.id == entry_point) or (
                isinstance(func, ast.Attribute) and func.attr == entry_point
            ):
                return True
    return False


def expected_side(left: ast.expr, right: ast.expr, entry_point: str) -> str | None:
    """``left`` or ``right``: the side of an equality holding the expected value, or None when unclear.

    The literal side when exactly one side is a literal; else the side that does not call the entry point when
    exactly one side does.
    """
    lit = (_is_literal(left), _is_literal(right))
    if lit == (False, True):
        return "right"
    if lit == (True, False):
        return "left"
    calls = (_calls(left, entry_point), _calls(right, entry_point))
    if calls == (True, False):
        return "right"
    if calls == (False, True):
        return "left"
    return None


def _offset(lines: list[str], lineno: int, col: int) -> int:
    """Character offset in the joined ``lines`` of (1-based line, UTF-8 byte column) as ``ast`` reports them."""
    start = sum(len(line) for line in lines[: lineno - 1])
    return start + len(lines[lineno - 1].encode("utf-8")[:col].decode("utf-8", errors="replace"))


def _replace(source: str, node: ast.expr, text: str) -> str:
    lines = source.splitlines(keepends=True)
    assert node.end_lineno is not None and node.end_col_offset is not None  # parsed nodes carry positions
    start = _offset(lines, node.lineno, node.col_offset)
    end = _offset(lines, node.end_lineno, node.end_col_offset)
    return source[:start] + text + source[end:]


def _failed_assert(tree: ast.Module, line: int | None) -> ast.Assert | None:
    asserts = [n for n in ast.walk(tree) if isinstance(n, ast.Assert)]
    if line is not None:
        at = [n for n in asserts if n.lineno <= line <= (n.end_lineno or n.lineno)]
        return at[0] if at else None
    return asserts[0] if len(asserts) == 1 else None


def repair_source(source: str, entry_point: str, outcome: TestOutcome) -> RepairPlan:
    """Rewrite the assert the reference failed so that it expects the reference's output.

    Args:
        source: The generated test (or an already partly repaired one).
        entry_point: The function under test (tells the call side from the expected side).
        outcome: The reference's outcome on ``source``: a failed comparison with ``expected``/``actual`` reprs.

    Returns:
        The plan: the repaired source, or the reason there is none (the reference raising means an input it
        rejects; a failure that is not an ``==`` comparison; no literal form of the reference's output...).
    """
    if outcome.in_code_under_test:
        return RepairPlan(None, CAUSE_REASONS["invalid_input"])
    if outcome.status != "failed" or outcome.exc_type != "AssertionError":
        return RepairPlan(None, f"the reference's outcome is {outcome.status} ({outcome.exc_type}), not a failed assert")
    if outcome.expected is None or outcome.actual is None:
        return RepairPlan(None, NOT_EQUALITY)
    try:
        tree = ast.parse(source)
    except SyntaxError:
        return RepairPlan(None, "the test does not parse")
    line = failing_line(outcome.traceback)
    node = _failed_assert(tree, line)
    if node is None:
        return RepairPlan(None, f"{NOT_EQUALITY}: the failure is not at an assert statement")
    test = node.test
    if not (isinstance(test, ast.Compare) and len(test.ops) == 1):
        return RepairPlan(None, NOT_EQUALITY)
    if not isinstance(test.ops[0], ast.Eq):
        return RepairPlan(None, f"{NOT_EQUALITY} ({type(test.ops[0]).__name__})")
    left, right = test.left, test.comparators[0]
    side = expected_side(left, right, entry_point)
    if side is None:
        return RepairPlan(None, "cannot tell the expected side of the assert")
    value = outcome.actual if side == "right" else outcome.expected  # the call side's value, as the reference gave it
    try:
        ast.literal_eval(value)
    except (ValueError, TypeError, SyntaxError, MemoryError, RecursionError):
        return RepairPlan(None, f"the reference's output has no literal form: {value[:80]}")
    target = right if side == "right" else left
    return RepairPlan(_replace(source, target, value), line=node.lineno)


REASON_KEYS = (
    "invalid_input",
    "wrong_exception",
    "test_code_error",
    "timeout_or_resource",
    "nondeterministic",
    "harness_unsupported",
    "reference_not_run",
    "not_equality_assert",
    "unclear_expected_side",
    "no_literal_output",
    "reference_fails_repaired",
    "other",
)
"""Short names of the reasons a test is not repaired, in report order (:func:`reason_key`)."""


def reason_key(reason: str) -> str:
    """The short name (one of :data:`REASON_KEYS`) of a not-repaired reason written by this module or the stage."""
    for cause, text in CAUSE_REASONS.items():
        if reason == text and cause in REASON_KEYS:
            return cause
    prefixes = {
        NOT_EQUALITY: "not_equality_assert",
        "cannot tell the expected side": "unclear_expected_side",
        "the reference's output has no literal form": "no_literal_output",
        "the reference fails the repaired test": "reference_fails_repaired",
    }
    return next((key for prefix, key in prefixes.items() if reason.startswith(prefix)), "other")
