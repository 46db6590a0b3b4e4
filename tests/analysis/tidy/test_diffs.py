"""A diff keeps its lines apart whatever the programs' final newline."""

from __future__ import annotations

from tfr_helpers.analysis.tidy.diffs import unified_diff


def test_a_last_line_without_newline_stays_a_line_of_its_own() -> None:
    diff = unified_diff("def f(n):\n    return n", "def f(n):\n    return n * n", "before", "after")
    assert "-    return n\n+    return n * n\n" in diff
    assert "return n+" not in diff


def test_programs_equal_but_for_the_final_newline_have_no_diff() -> None:
    assert unified_diff("x = 1\n", "x = 1", "a", "b") == ""
    assert unified_diff("x = 1\n", "x = 2\n", "a", "b").splitlines()[2:] == ["@@ -1 +1 @@", "-x = 1", "+x = 2"]
