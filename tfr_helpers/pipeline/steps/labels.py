"""RQ1 labels from execution records: the four cases, reliability and the cause of unreliable feedback.

Everything here reads the sandbox's outcome records (DESIGN.md section 1); nothing is guessed from text
the model wrote except whether the test *expects* an exception, which is read from the test source.
"""

from __future__ import annotations

import re

from tfr_helpers.records import TEST_CODE_ERRORS, Case, Cause, Reliability, TestKind, TestOutcome, Transition

RESOURCE_ERRORS = frozenset({"MemoryError", "RecursionError", "TimeoutError"})
"""Exceptions that mean a resource limit, not a verdict on the test."""

_EXPECTS_EXCEPTION = re.compile(r"pytest\.raises|assertRaises|\bexcept\b|\braises\(")
_NOT_RAISED = re.compile(r"did not raise|not raised|expected .*(error|exception)", re.IGNORECASE)


def case_of(generated_passed: bool, reference_passed: bool) -> Case:
    """The RQ1 case of one (generated test, generated code) pair with the reference as oracle."""
    return f"{'pass' if generated_passed else 'fail'}_{'pass' if reference_passed else 'fail'}"  # type: ignore[return-value]


def reliability_of(case: Case) -> Reliability | None:
    """Reliability of test-fail feedback: set only when the generated code failed."""
    return {"fail_pass": "reliable", "fail_fail": "unreliable"}.get(case)  # type: ignore[return-value]


def expects_exception(test_source: str) -> bool:
    """True when the test source states that an exception is expected."""
    return bool(_EXPECTS_EXCEPTION.search(test_source))


def cause_of(kind: TestKind, test_source: str, reference: TestOutcome, rerun: TestOutcome | None) -> Cause:
    """Why a test the reference fails is wrong, from the reference's (first and second) outcome records.

    Args:
        kind: ``ebt`` or ``pbt``.
        test_source: The generated test's source (read only for an expected-exception construct).
        reference: The reference's first, non-passing outcome.
        rerun: The reference's second outcome (None when no rerun was made).

    Returns:
        One cause; the checks run from the most to the least specific.
    """
    if rerun is not None and rerun.status == "passed":
        return "nondeterministic"
    if reference.status in ("timeout", "crashed") or reference.exc_type in RESOURCE_ERRORS:
        return "timeout_or_resource"
    if reference.status == "not_run":
        return "test_code_error"
    if expects_exception(test_source) and (
        reference.in_code_under_test
        or _NOT_RAISED.search(f"{reference.exc_type} {reference.message or ''}")
        or reference.exc_type == "Failed"
    ):
        return "wrong_exception"
    if reference.in_code_under_test:
        return "invalid_input"
    if reference.status == "error" or reference.exc_type in TEST_CODE_ERRORS:
        return "test_code_error"
    if kind == "pbt":
        return "property_falsified"
    return "wrong_expected_value"


def transition_of(before: bool, after: bool | None) -> Transition:
    """Benchmark transition of one refinement (``no_code`` when there was no refined program)."""
    if after is None:
        return "no_code"
    return f"{'pass' if before else 'fail'}->{'pass' if after else 'fail'}"  # type: ignore[return-value]
