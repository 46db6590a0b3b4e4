"""The slow-tier report: a long test without the ``slow`` marker is named after the run, a marked one is not."""

from __future__ import annotations

import pytest

TESTS = """
import pytest

def test_unmarked():
    pass

@pytest.mark.slow
def test_marked():
    pass
"""


@pytest.mark.parametrize("workers", [[], ["-n", "2"]], ids=["one process", "xdist workers"])
def test_unmarked_tests_over_the_limit_are_listed_and_nothing_fails(pytester: pytest.Pytester, workers: list[str]) -> None:
    pytester.makeconftest('pytest_plugins = ["tests.helpers.tiers"]\n')
    pytester.makepyfile(test_tiers_demo=TESTS)
    # a limit of -1 s: every test is "over" it, so the report does not depend on how long anything took
    result = pytester.runpytest_subprocess("-o", "slow_tier_seconds=-1", "-p", "no:cacheprovider", *workers)
    result.assert_outcomes(passed=2)
    result.stdout.fnmatch_lines(["*1 tests over -1 s without the slow marker*", "*test_tiers_demo.py::test_unmarked*"])
    assert "test_marked" not in result.stdout.str()


def test_the_limit_is_ten_seconds_unless_set(pytester: pytest.Pytester) -> None:
    pytester.makeconftest('pytest_plugins = ["tests.helpers.tiers"]\n')
    assert pytester.parseconfig().getini("slow_tier_seconds") == "10"
    assert pytester.parseconfig("-o", "slow_tier_seconds=30").getini("slow_tier_seconds") == "30"
