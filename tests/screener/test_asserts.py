"""Reading asserts and prompt examples, and comparing values after normalisation."""

from __future__ import annotations

from tfr_helpers.screener.asserts import AssertPair, assert_pairs, prompt_examples, same_value

PROMPT = '''def f(x):
    """Double it.
    >>> f(2)
    4
    >>> f(3) == 6
    True
    f(1) ==> 2
    f(5) -> 10 - 0 = 10
    """
'''


def test_assert_pairs_put_the_call_first_whichever_side_it_is_on():
    src = "def test_a():\n    assert f( 1 ) == 2\n    assert [3] == f(2)\n    assert g(1) == 1\n"
    assert assert_pairs(src, "f") == [AssertPair("f(1)", "2", True), AssertPair("f(2)", "[3]", False)]
    assert assert_pairs("assert (", "f") == []


def test_prompt_examples_read_doctests_arrows_and_shown_asserts():
    got = prompt_examples(PROMPT, "f", ("assert f(7) == 14",))
    assert [(p.call, p.expected) for p in got] == [
        ("f(2)", "4"),
        ("f(3)", "6"),
        ("f(1)", "2"),
        ("f(5)", "10"),
        ("f(7)", "14"),
    ]


def test_values_compare_after_normalisation():
    assert same_value("(1, 2.0000001)", "[1, 2.0]")
    assert same_value("' a '", "'a'")
    assert not same_value("True", "False")
    assert not same_value("1", "'1'")
    assert same_value("x + 1", " x + 1")
