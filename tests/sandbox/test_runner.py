"""Test kinds and outcome fields, through the real sandbox."""

from __future__ import annotations

from tfr_helpers.sandbox import Limits, Sandbox, TestSpec

PROG = "def add(a, b):\n    return a + b\n"


def test_snippet_fields(sandbox: Sandbox) -> None:
    run = sandbox.run(
        PROG,
        [
            TestSpec("ok", "assert add(1, 2) == 3"),
            TestSpec("bad", "assert add(1, 2) == 4"),
            TestSpec("inv", "add(None, 1)"),
            TestSpec("test_err", "1 / 0"),
            TestSpec("out", "import sys\nprint('hi')\nprint('x' * 10000, file=sys.stderr)"),
        ],
    )
    ok, bad, inv, terr, out = run.outcomes
    assert ok.status == "passed" and ok.exc_type is None
    assert (bad.status, bad.expected, bad.actual, bad.in_code_under_test) == ("failed", "4", "3", False)
    assert inv.status == "error" and inv.exc_type == "TypeError" and inv.in_code_under_test
    assert "solution.py" in inv.traceback and "test_2.py" in inv.traceback and "runner.py" not in inv.traceback
    assert terr.exc_type == "ZeroDivisionError" and not terr.in_code_under_test
    assert out.stdout == "hi\n" and len(out.stderr) == sandbox.limits.output_cap
    assert not run.passed and run.isolation == sandbox.isolation


def test_humaneval_check_and_solution_import(sandbox: Sandbox) -> None:
    check = "def check(candidate):\n    assert candidate(2, 2) == 4\n    assert candidate(0, 1) == 2\n"
    run = sandbox.run(
        PROG,
        [
            TestSpec("check", check + "check(add)"),
            TestSpec("imp", "from solution import add as g\nassert g(1, 1) == 2"),
        ],
    )
    assert run.outcomes[0].status == "failed" and (run.outcomes[0].actual, run.outcomes[0].expected) == (
        "1",
        "2",
    )
    assert run.outcomes[1].status == "passed"


def test_mbpp_setup_visible_to_program(sandbox: Sandbox) -> None:
    prog = "def root(x):\n    return math.sqrt(x)\n"
    run = sandbox.run(prog, [TestSpec("assert_0", "assert root(4) == 2.0", setup="import math")])
    assert run.passed, run.outcomes


def test_function_and_hypothesis_tests(sandbox: Sandbox) -> None:
    src = (
        "from hypothesis import given, strategies as st\n"
        "def test_plain():\n    assert add(1, 1) == 2\n"
        "@given(st.integers(), st.integers())\ndef test_commutes(a, b):\n    assert add(a, b) == add(b, a)\n"
        "@given(st.integers())\ndef test_wrong(a):\n    assert add(a, 1) == a\n"
    )
    run = sandbox.run(PROG, [TestSpec("props", src, kind="function")])
    names = [o.name for o in run.outcomes]
    assert names == ["test_plain", "test_commutes", "test_wrong"]
    assert [o.status for o in run.outcomes] == ["passed", "passed", "failed"]
    assert "test_wrong(" in run.outcomes[2].message  # the falsifying example


def test_unittest_one_outcome_per_method(sandbox: Sandbox) -> None:
    src = (
        "import unittest\nclass TestCases(unittest.TestCase):\n"
        "    def setUp(self):\n        self.x = 2\n"
        "    def test_a(self):\n        self.assertEqual(add(self.x, 1), 4)\n"
        "    def test_b(self):\n        self.assertTrue(add(1, 1) == 2)\n"
        "    def test_c(self):\n        add([], 1)\n"
        "    @unittest.skip('no')\n    def test_d(self):\n        pass\n"
    )
    run = sandbox.run(PROG, [TestSpec("bcb", src, kind="unittest")])
    got = {o.name: o for o in run.outcomes}
    assert list(got) == ["TestCases.test_a", "TestCases.test_b", "TestCases.test_c", "TestCases.test_d"]
    assert (
        got["TestCases.test_a"].status,
        got["TestCases.test_a"].actual,
        got["TestCases.test_a"].expected,
    ) == ("failed", "3", "4")
    assert got["TestCases.test_b"].status == "passed"
    assert got["TestCases.test_c"].status == "error" and got["TestCases.test_c"].in_code_under_test
    assert got["TestCases.test_d"].status == "passed"


def test_timeout_and_crash_keep_other_outcomes(sandbox: Sandbox) -> None:
    src = (
        "import unittest, os\nclass T(unittest.TestCase):\n"
        "    def test_1(self):\n        pass\n    def test_2(self):\n        os._exit(3)\n"
        "    def test_3(self):\n        while True: pass\n    def test_4(self):\n        pass\n"
    )
    run = sandbox.run(PROG, [TestSpec("u", src, kind="unittest"), TestSpec("after", "assert add(1, 1) == 2")])
    assert [(o.name, o.status) for o in run.outcomes] == [
        ("T.test_1", "passed"),
        ("T.test_2", "crashed"),
        ("T.test_3", "timeout"),
        ("T.test_4", "passed"),
        ("after", "passed"),
    ]
    assert "code 3" in run.outcomes[1].message


def test_load_error_marks_tests_not_run(sandbox: Sandbox) -> None:
    run = sandbox.run("def f(:\n", [TestSpec("a", "assert True"), TestSpec("b", "assert True")])
    assert run.load_error is not None and run.load_error.exc_type == "SyntaxError"
    assert [o.status for o in run.outcomes] == ["not_run", "not_run"] and not run.passed


def test_no_tests_found_is_an_error(sandbox: Sandbox) -> None:
    run = sandbox.run(PROG, [TestSpec("empty", "x = 1", kind="function")])
    assert [(o.name, o.status) for o in run.outcomes] == [("empty", "error")]


def test_tests_share_the_program_namespace_and_class_asserts(sandbox: Sandbox) -> None:
    # BigCodeBench-style: the reference uses `np` that only the test module imports;
    # asserts inside a class body
    prog = "def f():\n    return np.zeros(2).sum()\n"
    src = (
        "import unittest\nimport math as np\nnp.zeros = lambda n: [0.0] * n\n"
        "class TestCases(unittest.TestCase):\n    def test_x(self):\n        assert f() == 1\n"
    )
    run = sandbox.run(
        prog.replace(".sum()", "").replace("np.zeros(2)", "sum(np.zeros(2))"),
        [TestSpec("u", src, kind="unittest")],
    )
    o = run.outcomes[0]
    assert (o.name, o.status, o.actual, o.expected) == ("TestCases.test_x", "failed", "0.0", "1"), o


def test_each_spec_starts_from_the_program_names_only(sandbox: Sandbox) -> None:
    """A name defined by one test is not visible to the next: outcomes do not depend on which child ran them."""
    program = "def f(x):\n    return helper(x)\n"
    tests = [
        TestSpec(name="defines", source="def helper(x):\n    return x\nassert f(1) == 1\n"),
        TestSpec(name="uses", source="assert f(2) == 2\n"),
    ]
    run = sandbox.run(program, tests)
    assert [o.status for o in run.outcomes] == ["passed", "error"]
    assert run.outcomes[1].exc_type == "NameError"


def test_every_kind_of_change_to_builtins_is_undone_before_the_next_test(sandbox: Sandbox) -> None:
    # the runner restores builtins only when their version tag moved: each way of changing them must move it
    changes = {
        "rebind": "builtins.len = lambda x: 0",
        "add": "builtins.tfr_extra = 1",
        "delete": "del builtins.abs",
        "setdefault": "vars(builtins).setdefault('tfr_other', 2)",
        "pop": "vars(builtins).pop('min')",
        "update": "vars(builtins).update(max=None, tfr_third=3)",
    }
    check = (
        "import builtins\nassert len([1]) == 1 and abs(-1) == 1 and min(1, 2) == 1 and max(1, 2) == 2\n"
        "assert not [k for k in vars(builtins) if k.startswith('tfr_')]"
    )
    for name, change in changes.items():
        tests = [TestSpec("change", f"import builtins\n{change}"), TestSpec("check", check)]
        run = sandbox.run("", tests, Limits(timeout_s=5.0))
        assert [o.status for o in run.outcomes] == ["passed", "passed"], (name, run.outcomes)
        run = sandbox.run(f"import builtins\n{change}\n", [TestSpec("check", check)], Limits(timeout_s=5.0))
        assert run.outcomes[0].status == "passed", (name, run.outcomes)  # changed by the program's load
