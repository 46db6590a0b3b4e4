"""parse_code / parse_tests / parse_decision on messy, real-world-looking responses."""

from __future__ import annotations

import sys
import types

import pytest

from tfr_helpers.models import parse_code, parse_decision, parse_tests

CHATTY = '''Sure! Here's a first attempt:

```python
def add(a, b):
    return a - b
```

Wait, that is wrong. Here is the corrected version with a helper:

```python
import math

def _check(x):
    return x

def add(a, b):
    """Add two numbers."""
    return _check(a) + _check(b)
```

Example usage:
```
>>> add(1, 2)
3
```
'''


def test_code_picks_the_last_self_contained_block_defining_the_entry_point():
    parsed = parse_code(CHATTY, "add")
    assert parsed.error is None and "_check(a) + _check(b)" in parsed.code and "a - b" not in parsed.code


def test_code_without_entry_point_takes_the_last_block_defining_a_function():
    assert "import math" in parse_code(CHATTY).code


def test_code_from_bare_text_and_from_prose_prefixed_code():
    assert parse_code("def f(x):\n    return x + 1\n").code == "def f(x):\n    return x + 1\n"
    parsed = parse_code("Here you go:\ndef f(x):\n    return x + 1\n", "f")
    assert parsed.code.startswith("def f(x):")


def test_code_from_unclosed_fence_of_a_truncated_response():
    assert parse_code("```python\ndef f():\n    return 1\n", "f").code.startswith("def f")


@pytest.mark.parametrize(
    "text,error",
    [
        ("", "empty response"),
        (None, "empty response"),
        ("I cannot help with that request.", "not Python"),
        ("```python\ndef f(:\n```", "does not compile"),
        ("```python\ndef g():\n    return 1\n```", "defines 'f'"),
    ],
)
def test_code_failures_are_recorded_not_raised(text, error):
    parsed = parse_code(text, "f")
    assert parsed.code is None and error in parsed.error


EBT_RESPONSE = """Here are the tests:

```python
import pytest
from solution import add

def add(a, b):  # reference sketch the model should not have written
    return a + b

CASES = [(1, 2, 3)]

def _expected(a, b):
    return a + b

def test_small():
    for a, b, c in CASES:
        assert add(a, b) == c

def test_negative():
    assert add(-1, -1) == _expected(-1, -1)

def test_raises():
    with pytest.raises(TypeError):
        add("a", 1)

if __name__ == "__main__":
    test_small()
```
"""


def test_tests_are_split_into_self_contained_units():
    parsed = parse_tests(EBT_RESPONSE, "ebt", "add")
    assert parsed.error is None
    assert [t.name for t in parsed.tests] == ["test_small", "test_negative", "test_raises"]
    small, negative, raises = (t.source for t in parsed.tests)
    assert "CASES = [(1, 2, 3)]" in small and "_expected" not in small
    assert "def _expected" in negative and "CASES" not in negative
    assert "import pytest" in raises
    for unit in parsed.tests:
        compile(unit.source, unit.name, "exec")
        assert "return a + b" not in unit.source.split("def _expected")[0]  # the add redefinition is gone
        assert "__main__" not in unit.source


def test_units_run_against_the_code_under_test(monkeypatch):
    parsed = parse_tests(EBT_RESPONSE, "ebt", "add")
    wrong = types.ModuleType("solution")
    wrong.add = lambda a, b: a * b  # a wrong implementation, as the sandbox would provide it
    monkeypatch.setitem(sys.modules, "solution", wrong)
    ns: dict = {"add": wrong.add}
    exec(parsed.tests[0].source, ns)  # noqa: S102 - trusted test input
    with pytest.raises(AssertionError):
        ns["test_small"]()


PBT_RESPONSE = """```python
@given(st.integers(), st.integers())
def test_commutative(a, b):
    assert add(a, b) == add(b, a)
```
And another one:
```python
from hypothesis import given, strategies as st

ints = st.integers(min_value=0)

@given(ints)
@settings(max_examples=10)
def test_identity(a):
    assert add(a, 0) == a
```"""


def test_pbts_keep_decorators_strategies_and_get_missing_imports():
    parsed = parse_tests(PBT_RESPONSE, "pbt", "add")
    assert [t.name for t in parsed.tests] == ["test_commutative", "test_identity"]
    commutative, identity = (t.source for t in parsed.tests)
    assert "@given(st.integers(), st.integers())" in commutative
    assert "ints = st.integers(min_value=0)" in identity and "@settings(max_examples=10)" in identity
    assert "from hypothesis import settings" in identity
    ns: dict = {"add": lambda a, b: a + b}
    exec(identity, ns)  # noqa: S102
    ns["test_identity"]()


def test_duplicate_test_names_get_unique_names():
    text = "def test_a():\n    assert f(1) == 1\n\ndef test_a():\n    assert f(2) == 2\n"
    assert [t.name for t in parse_tests(text, "ebt", "f").tests] == ["test_a", "test_a_2"]


@pytest.mark.parametrize(
    "text,error",
    [
        (None, "empty"),
        ("I think the function is fine.", "not Python"),
        ("```python\nassert f(1) == 2\n```", "no 'def test_...' function"),
        ("```python\ndef test_x(:\n```", "does not compile"),
    ],
)
def test_test_parse_failures_are_recorded(text, error):
    parsed = parse_tests(text, "ebt", "f")
    assert parsed.tests == [] and error in parsed.error


@pytest.mark.parametrize(
    "text,decision",
    [
        ("Accept", "accept"),
        ("**Reject**", "reject"),
        ("The test expects 5 but the task says 4.\n\nDecision: Reject", "reject"),
        ("Reasoning: I first thought Reject...\nActually it is right.\nFinal answer: **Accept**.", "accept"),
        ("Decision: Accept\n...on reflection...\nDecision: Reject", "reject"),
        ("I would accept this failure as genuine.", "accept"),
        ("Accept or reject? Hard to say.", "undecided"),
        ("To accept or to reject...\nMy final decision: REJECT", "reject"),
        ("The test looks plausible.", "undecided"),
        ("", "undecided"),
        (None, "undecided"),
    ],
)
def test_decisions(text, decision):
    assert parse_decision(text).decision == decision


def test_decision_keeps_the_reasoning_before_the_verdict():
    parsed = parse_decision("The expected value contradicts the examples.\nDecision: Reject")
    assert parsed.reasoning == "The expected value contradicts the examples."
    assert parse_decision("Accept").reasoning is None


CLASS_RESPONSE = """```python
import unittest

class TestAdd(unittest.TestCase):
    def setUp(self):
        self.base = 1

    def test_one(self):
        self.assertEqual(add(self.base, 1), 2)

class TestPlain:
    def test_zero(self):
        assert add(0, 0) == 0
```"""


def test_test_classes_become_one_wrapper_per_method():
    parsed = parse_tests(CLASS_RESPONSE, "ebt", "add")
    assert [t.name for t in parsed.tests] == ["test_TestAdd_test_one", "test_TestPlain_test_zero"]
    for unit in parsed.tests:
        ns: dict = {"add": lambda a, b: a + b}
        exec(unit.source, ns)  # noqa: S102
        ns[unit.name]()  # setUp ran: self.base exists
        ns["add"] = lambda a, b: a - b + 5
        with pytest.raises(AssertionError):
            ns[unit.name]()
