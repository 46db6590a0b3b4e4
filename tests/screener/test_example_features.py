"""Features from the task's own examples: BigCodeBench's doctest sessions, unittest comparisons, the examples run in
the sandbox on the code, and how far the failing input is from them."""

from __future__ import annotations

import json

import pytest

from tfr_helpers.benchmarks.bigcodebench import doc_examples
from tfr_helpers.sandbox import Limits, Sandbox
from tfr_helpers.screener.asserts import AssertPair, assert_pairs, doctest_examples, prompt_examples
from tfr_helpers.screener.features import example_input_distance, example_job, example_key, example_pass_shares
from tfr_helpers.screener.view import Failure, FeedbackView

SESSION = """>>> import random
>>> random.seed(0)
>>> counts = task_func([1, 2, 2])
>>> counts[2]
2
>>> print(sorted(counts))
[1, 2]
>>> counts  # a repr that is no literal
Counter({2: 2, 1: 1})
>>> task_func([])
{...}
>>> task_func(
... [3])
{3: 1}"""


def test_a_doctest_session_gives_examples_after_its_earlier_statements():
    got = doctest_examples(SESSION, "task_func")
    setup = "import random\nrandom.seed(0)\ncounts = task_func([1, 2, 2])"
    assert got == [
        AssertPair("counts[2]", "2", True, setup),
        AssertPair("str(sorted(counts))", "'[1, 2]'", True, setup),
        AssertPair("task_func([3])", "{3: 1}", True, setup),
    ]
    assert doctest_examples(">>> x = 1\n>>> x + 1\n2", "task_func") == []  # never calls the entry point
    assert [p.call for p in prompt_examples("Write it.", "task_func", (SESSION,))] == [p.call for p in got]


def test_bigcodebench_shows_its_docstring_example_block():
    lines = [">>> task_func(2)", "4"]
    assert doc_examples({"doc_struct": json.dumps({"examples": lines})}) == [">>> task_func(2)\n4"]
    assert doc_examples({"doc_struct": json.dumps({"examples": ["task_func(2) gives 4"]})}) == []
    assert doc_examples({"doc_struct": "{not json"}) == [] and doc_examples({}) == []


def test_unittest_equality_asserts_give_pairs():
    src = (
        "class T(unittest.TestCase):\n    def test_a(self):\n        self.assertEqual(task_func(1), 2)\n"
        "        self.assertListEqual([3], task_func(2))\n        self.assertTrue(task_func(3))\n"
    )
    assert assert_pairs(src, "task_func") == [
        AssertPair("task_func(1)", "2", True),
        AssertPair("task_func(2)", "[3]", False),
    ]


def test_the_distance_of_the_failing_input_from_the_examples():
    examples = [AssertPair("f([1, 2, 3])", "6", True), AssertPair("f(x)", "1", True, "x = f([0])")]
    assert example_input_distance(AssertPair("f([1, 2, 3])", "7", True), examples, "f") == 0.0
    near = example_input_distance(AssertPair("f([1, 2, 4])", "7", True), examples, "f")
    far = example_input_distance(AssertPair("f('a long string input')", "0", True), examples, "f")
    assert 0.0 < near < far <= 1.0
    assert example_input_distance(None, examples, "f") == 1.0  # no comparable test
    assert example_input_distance(AssertPair("f([1])", "1", True), [], "f") == 1.0  # no example
    assert example_input_distance(AssertPair("f([1])", "1", True), examples[1:], "f") == 1.0  # only a session's


def _view(code: str) -> FeedbackView:
    failure = Failure("assertion", "AssertionError", "", False, None, None)
    return FeedbackView(
        "m|B/0|0|0", "m", "B/0", "bigcodebench", "Count.", "task_func", (SESSION,), code, "", "ebt", failure, (), 0, 1, 1.0
    )


@pytest.mark.parametrize(
    ("code", "share"),
    [
        ("from collections import Counter\ndef task_func(xs):\n    return Counter(xs)\n", 1.0),
        ("def task_func(xs):\n    return {}\n", 0.0),
    ],
)
def test_the_examples_run_in_the_sandbox_on_the_code(code, share):
    view = _view(code)
    key = example_key(view.code, view.prompt, view.entry_point, view.prompt_examples)
    assert [s.source.splitlines()[-1] for s in example_job(key)[1]] == [
        "assert (counts[2]) == (2)",
        "assert (str(sorted(counts))) == ('[1, 2]')",
        "assert (task_func([3])) == ({3: 1})",
    ]
    with Sandbox(Limits(timeout_s=5.0), workers=1, preload=()) as sandbox:
        assert example_pass_shares([view], sandbox.run_many) == [share]
