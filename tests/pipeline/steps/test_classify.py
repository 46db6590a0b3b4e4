"""RQ1 case, reliability and cause derivation from outcome records."""

from __future__ import annotations

import pytest

from tfr_helpers.pipeline.steps.labels import case_of, cause_of, reliability_of
from tfr_helpers.records import TestOutcome as Outcome


def out(status: str = "failed", **kw: object) -> Outcome:
    return Outcome(name="test_x", status=status, **kw)  # type: ignore[arg-type]


EBT = "def test_x():\n    assert f(1) == 2\n"
RAISES = "import pytest\ndef test_x():\n    with pytest.raises(ValueError):\n        f(-1)\n"


@pytest.mark.parametrize(
    ("gen", "ref", "case", "rel"),
    [
        (True, True, "pass_pass", None),
        (True, False, "pass_fail", None),
        (False, True, "fail_pass", "reliable"),
        (False, False, "fail_fail", "unreliable"),
    ],
)
def test_four_cases(gen: bool, ref: bool, case: str, rel: str | None) -> None:
    assert case_of(gen, ref) == case
    assert reliability_of(case) == rel  # type: ignore[arg-type]


def test_wrong_expected_value() -> None:
    ref = out(exc_type="AssertionError", expected="2", actual="3")
    assert cause_of("ebt", EBT, ref, out(exc_type="AssertionError")) == "wrong_expected_value"


def test_verdict_change_between_reference_runs_is_nondeterministic() -> None:
    assert cause_of("ebt", EBT, out(exc_type="AssertionError"), out("passed")) == "nondeterministic"


def test_exception_inside_the_function_is_invalid_input() -> None:
    ref = out("error", exc_type="IndexError", in_code_under_test=True)
    assert cause_of("ebt", EBT, ref, ref) == "invalid_input"


def test_expected_exception_that_did_not_come_is_wrong_exception() -> None:
    ref = out(exc_type="AssertionError", message="DID NOT RAISE ValueError")
    assert cause_of("ebt", RAISES, ref, ref) == "wrong_exception"


def test_other_exception_than_expected_is_wrong_exception() -> None:
    ref = out("error", exc_type="TypeError", in_code_under_test=True)
    assert cause_of("ebt", RAISES, ref, ref) == "wrong_exception"


@pytest.mark.parametrize("exc", ["NameError", "SyntaxError", "ImportError", "ModuleNotFoundError"])
def test_errors_outside_the_call_are_test_code_errors(exc: str) -> None:
    ref = out("error", exc_type=exc)
    assert cause_of("ebt", EBT, ref, ref) == "test_code_error"


@pytest.mark.parametrize(("status", "exc"), [("timeout", None), ("crashed", None), ("error", "MemoryError")])
def test_limits_are_timeout_or_resource(status: str, exc: str | None) -> None:
    ref = out(status, exc_type=exc)
    assert cause_of("pbt", EBT, ref, ref) == "timeout_or_resource"


def test_falsified_property() -> None:
    ref = out(exc_type="AssertionError")
    assert cause_of("pbt", "@given(st.integers())\ndef test_x(n):\n    assert f(n) >= 0\n", ref, ref) == (
        "property_falsified"
    )
