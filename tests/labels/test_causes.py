"""The right cause: Hypothesis's own reports read as property failures, expected exceptions read from the
test's syntax tree, pytest features the harness lacks blamed on the harness, never on the test."""

from __future__ import annotations

import pytest

from tfr_helpers.pipeline.steps.labels import cause_of
from tfr_helpers.pipeline.steps.source_reading import expects_exception, unsupported_feature
from tfr_helpers.records import TestOutcome as Outcome
from tfr_helpers.sandbox import Limits, Sandbox, TestSpec

PBT = (
    "from hypothesis import given, strategies as st\n\n"
    "@given(st.integers())\n"
    "def test_p(x):\n"
    "    y = f(x)\n"
    "    assert y < 5\n"
)
RAISES_ON_BIG = "def f(x):\n    if x > 10:\n        raise ValueError('big')\n    return x\n"
IDENTITY = "def f(x):\n    return x\n"
PBT_IMPORTS_PROGRAM = "import hypothesis\n"


def run_one(sandbox: Sandbox, program: str, source: str, seed: int = 0) -> Outcome:
    run = sandbox.run(program, [TestSpec("t", source, kind="function")], Limits(timeout_s=10.0, seed=seed))
    return run.outcomes[0]


def test_two_distinct_falsifying_examples_are_a_falsified_property(sandbox: Sandbox) -> None:
    ref = run_one(sandbox, RAISES_ON_BIG, PBT)
    assert ref.exc_type == "ExceptionGroup", ref
    assert "x=5" in (ref.message or "") and "x=11" in (ref.message or ""), "each falsifying example is reported"
    assert cause_of("pbt", PBT, ref, ref) == "property_falsified"


def test_a_falsified_property_that_another_seed_misses_is_not_nondeterministic(sandbox: Sandbox) -> None:
    ref = run_one(sandbox, IDENTITY, PBT)
    assert ref.status == "failed" and "x=5" in (ref.message or "")
    assert cause_of("pbt", PBT, ref, Outcome(name="test_p", status="passed")) == "property_falsified"


def test_hypothesis_flaky_is_nondeterministic() -> None:
    ref = Outcome(name="test_p", status="error", exc_type="FlakyFailure", message="Hypothesis test_p(x=0) ...")
    assert cause_of("pbt", PBT, ref, ref) == "nondeterministic"


def test_the_explain_phase_names_no_harness_line_or_path(sandbox: Sandbox) -> None:
    # its report names the lines "always and only run by failing test cases", the harness's own among them
    probe = (
        "from hypothesis import Phase, settings\n\ndef test_phases():\n    assert Phase.explain not in settings().phases\n"
    )
    assert run_one(sandbox, PBT_IMPORTS_PROGRAM, probe).status == "passed"
    ref = run_one(sandbox, IDENTITY, PBT)
    text = f"{ref.message}\n{ref.traceback}"
    assert "always and only run by failing" not in text
    assert "rewrite.py" not in text and "/tfr_helpers/" not in text


@pytest.mark.parametrize(
    "source",
    [
        "import pytest\ndef test_x():\n    with pytest.raises(ValueError):\n        f(-1)\n",
        "def test_x():\n    pytest.raises(ValueError, f, -1)\n",
        "class T(unittest.TestCase):\n    def test_x(self):\n        self.assertRaises(ValueError, f, -1)\n",
        "def test_x():\n    try:\n        f(-1)\n    except ValueError:\n        return\n    assert False\n",
    ],
)
def test_expected_exceptions_read_from_the_syntax_tree(source: str) -> None:
    assert expects_exception(source)


def test_prose_and_comments_saying_except_expect_nothing() -> None:
    source = (
        "def test_x():\n"
        "    # every value except the last is kept\n"
        '    """Checks f, except for empty input."""\n'
        "    assert f([1, 2]) == [1]\n"
    )
    assert not expects_exception(source)
    ref = Outcome(name="test_x", status="error", exc_type="IndexError", in_code_under_test=True)
    assert cause_of("ebt", source, ref, ref) == "invalid_input"


@pytest.mark.parametrize(
    ("source", "feature"),
    [
        (
            "import pytest\n@pytest.mark.parametrize('n', [1, 2])\ndef test_x(n):\n    assert f(n) == n\n",
            "pytest.mark.parametrize",
        ),
        (
            "import pytest\n@pytest.fixture\ndef data():\n    return [1]\ndef test_x(data):\n    assert f(data)\n",
            "pytest fixture",
        ),
        ("def test_x(tmp_path):\n    assert f(tmp_path)\n", "pytest fixture argument"),
    ],
)
def test_pytest_features_the_harness_lacks(source: str, feature: str) -> None:
    assert unsupported_feature(source) == feature


def test_given_arguments_and_defaults_are_supported() -> None:
    assert unsupported_feature(PBT) is None
    assert unsupported_feature("def test_x(n=3):\n    assert f(n) == n\n") is None


def test_a_fixture_test_is_harness_unsupported_not_test_code_error(sandbox: Sandbox) -> None:
    source = (
        "import pytest\n\n@pytest.fixture\ndef data():\n    return [3, 1]\n\n"
        "def test_sorted(data):\n    assert f(data) == data\n"
    )
    ref = run_one(sandbox, IDENTITY, source)
    assert ref.status == "error" and ref.exc_type == "TypeError", ref
    assert cause_of("ebt", source, ref, ref) == "harness_unsupported"


def test_a_reference_that_did_not_run_is_not_a_test_code_error() -> None:
    ref = Outcome(name="test_x", status="not_run", message="the program failed to load")
    assert cause_of("ebt", "def test_x():\n    assert f(1) == 1\n", ref, ref) == "reference_not_run"
