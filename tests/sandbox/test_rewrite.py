"""Assert rewriting and unittest capture, in-process (no sandbox needed)."""

from __future__ import annotations

import unittest

import pytest

from tfr_helpers.sandbox.rewrite import CMP_ATTR, assert_helpers, compile_test, patch_unittest, safe_repr


def _run(source: str) -> BaseException:
    ns = assert_helpers()
    with pytest.raises(BaseException) as info:
        exec(compile_test(source, "t.py"), ns)  # noqa: S102
    return info.value


def test_eq_records_actual_and_expected() -> None:
    exc = _run("def f(x):\n    return x + 1\nassert f(5) == 7")
    assert isinstance(exc, AssertionError)
    assert getattr(exc, CMP_ATTR) == ("6", "7")
    assert str(exc) == "assert 6 == 7"


def test_user_message_kept_and_operands_evaluated_once() -> None:
    exc = _run("calls = []\ndef f():\n    calls.append(1)\n    return 1\nassert f() > 2, f'msg {len(calls)}'")
    assert str(exc) == "msg 1" and getattr(exc, CMP_ATTR) == ("1", "2")


def test_nested_assert_in_check_function() -> None:
    exc = _run("def check(c):\n    assert c([1]) == [2]\ncheck(lambda x: x)")
    assert getattr(exc, CMP_ATTR) == ("[1]", "[2]")


def test_passing_and_non_compare_asserts_unchanged() -> None:
    ns = assert_helpers()
    exec(compile_test("assert 1 == 1\nassert [1] in [[1]]\nassert True", "t.py"), ns)  # noqa: S102
    exc = _run("assert 0")
    assert not hasattr(exc, CMP_ATTR)


def test_unittest_assert_equal_captured() -> None:
    patch_unittest()

    class T(unittest.TestCase):
        def test_x(self) -> None:
            self.assertEqual([1, 2], [1, 3])

    with pytest.raises(AssertionError) as info:
        T("test_x").test_x()
    assert getattr(info.value, CMP_ATTR) == ("[1, 2]", "[1, 3]")


def test_safe_repr_caps_and_survives_hostile_repr() -> None:
    class Bad:
        def __repr__(self) -> str:
            raise ValueError

    assert safe_repr(Bad()).startswith("<repr failed")
    assert len(safe_repr("x" * 5000, cap=50)) == 50
