"""RQ1 labels from execution records: the four cases, reliability and the cause of unreliable feedback.

Everything here reads the sandbox's outcome records (docs/labels.md); nothing is guessed from text
the model wrote except what the test's syntax tree says (:mod:`.source_reading`): whether it *expects* an
exception, and whether it relies on pytest features the harness does not provide. How a label and its cause are
decided: ``docs/labels.md``.
"""

from __future__ import annotations

import re

from tfr_helpers.pipeline.steps.source_reading import expects_exception, unsupported_feature
from tfr_helpers.pipeline.steps.time_limits import LOAD_BUDGET_FACTOR, over_limit, own_time, starved
from tfr_helpers.records import TEST_CODE_ERRORS, Case, Cause, FailureMode, Reliability, TestKind, TestOutcome, Transition

RESOURCE_ERRORS = frozenset({"MemoryError", "RecursionError", "TimeoutError"})
"""Exceptions that mean a resource limit, not a verdict on the test."""

FLAKY_ERRORS = frozenset({"Flaky", "FlakyFailure", "FlakyReplay", "FlakyStrategyDefinition", "FlakyBackendFailure"})
"""Hypothesis's own report that a failing example did not fail again when replayed: a seed-dependent verdict."""

FALSIFIED_GROUPS = frozenset({"ExceptionGroup", "BaseExceptionGroup"})
"""What Hypothesis raises when it found several distinct falsifying examples."""

_FALSIFYING = ("Hypothesis found", "Falsifying example", "Failing test case")
_NOT_RAISED = re.compile(r"did not raise|not raised|expected .*(error|exception)", re.IGNORECASE)


def case_of(generated_passed: bool, reference_passed: bool) -> Case:
    """The RQ1 case of one (generated test, generated code) pair with the reference as oracle."""
    return f"{'pass' if generated_passed else 'fail'}_{'pass' if reference_passed else 'fail'}"  # type: ignore[return-value]


def reliability_of(case: Case) -> Reliability | None:
    """Reliability of test-fail feedback: set only when the generated code failed."""
    return {"fail_pass": "reliable", "fail_fail": "unreliable"}.get(case)  # type: ignore[return-value]


def failure_mode_of(generated: TestOutcome) -> FailureMode | None:
    """How the generated code failed a test (None when it passed): the program did not load, the test timed
    out or crashed, an assertion failed, or an exception came from the code under test or from the test."""
    if generated.status == "passed":
        return None
    if generated.status == "not_run":
        return "load_error"
    if generated.status in ("timeout", "crashed"):
        return generated.status  # type: ignore[return-value]
    if generated.in_code_under_test:
        return "exception_in_code"
    return "assertion" if generated.status == "failed" else "exception_in_test"


def settle(
    first: TestOutcome, alone: TestOutcome | None, budget_s: float, cpu_limit: bool = False
) -> tuple[TestOutcome, bool]:
    """The outcome that decides a label, and whether it still depends on the machine.

    ``alone`` is the same test run again alone, with :data:`LOAD_BUDGET_FACTOR` times the budget, after
    ``first`` hit the sandbox's wall-clock guard or crashed, or did not run because the program's load did
    (a timeout decided by the test's own time is final and never runs alone). Its outcome replaces the first:

    - it finished: judged against ``budget_s`` by its own time (wall time less its waits for a CPU; where the
      waits were not measured, by its CPU time under ``cpu_limit``, a limit the time-limit policy set from the
      reference's time), never by a wall time the load could inflate. Within it, it decides; past it, it is the
      program's own timeout. Only where the sandbox did not measure the wait does a wall time past the budget
      leave a verdict that depends on the machine (``indeterminate``);
    - it timed out again: the program's own timeout, unless the wall-clock guard decided again (the load
      starved it even alone: ``indeterminate``); where the wait was not measured, under ``cpu_limit``, one that
      spent less than the limit in CPU time is ``indeterminate``;
    - it crashed again (or did not run): ``indeterminate``.
    """
    if alone is None:
        return first, False
    if alone.status == "timeout":
        if alone.wait_s is None:
            return alone, cpu_limit and alone.cpu_s < budget_s
        return alone, starved(alone, LOAD_BUDGET_FACTOR * budget_s)
    if alone.status in ("crashed", "not_run"):
        return alone, True
    if cpu_limit and alone.cpu_s > 0 and alone.wait_s is None:
        return (over_limit(alone, budget_s, "CPU time"), False) if alone.cpu_s > budget_s else (alone, False)
    own = own_time(alone)
    if own is None:
        return alone, alone.duration_s > budget_s
    return (over_limit(alone, budget_s, "its own time"), False) if own > budget_s else (alone, False)


def harder_verdict(reference: TestOutcome, harder: TestOutcome | None) -> TestOutcome:
    """The reference's outcome on a PBT once the harder check ran: the harder run's when it found a falsifying
    example (Hypothesis replayed it, so the reference really violates the property), else ``reference``. A
    timeout or crash of the harder run changes nothing: it has more examples than the study's budget was for."""
    if reference.status == "passed" and harder is not None and harder.status in ("failed", "error"):
        if _falsified(harder) and harder.exc_type not in FLAKY_ERRORS:
            return harder
    return reference


def _falsified(reference: TestOutcome) -> bool:
    """Hypothesis found one or more falsifying examples (and replayed them: otherwise it reports ``Flaky``)."""
    text = reference.message or ""
    return any(mark in text for mark in _FALSIFYING)


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
    if unsupported_feature(test_source) is not None:
        return "harness_unsupported"
    if reference.exc_type in FLAKY_ERRORS:
        return "nondeterministic"
    # a failing example Hypothesis replayed: another seed explores other inputs and may miss it, which says
    # nothing about the reference's determinism
    falsified = kind == "pbt" and _falsified(reference)
    if rerun is not None and rerun.status == "passed" and not falsified:
        return "nondeterministic"
    if reference.status in ("timeout", "crashed") or reference.exc_type in RESOURCE_ERRORS:
        return "timeout_or_resource"
    if reference.status == "not_run":
        return "reference_not_run"
    if falsified and reference.exc_type in FALSIFIED_GROUPS:
        return "property_falsified"
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
