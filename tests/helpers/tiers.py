"""The slow tier's bookkeeping (a pytest plugin, loaded by ``tests/conftest.py``).

``uv run pytest -m "not slow"`` is the fast tier; it stays fast only if every long test carries the ``slow``
marker. After each run this plugin names the tests that took longer than the ``slow_tier_seconds`` ini value
(setup + call + teardown, so a module fixture counts for the test that first needs it) without the marker. It
only reports: a test never fails for its duration.
"""

from __future__ import annotations

import pytest


class UnmarkedSlowTests:
    """Sums each test's phases and lists, at the end, those over the limit that are not marked ``slow``."""

    def __init__(self, limit: float) -> None:
        self.limit = limit
        self.marked: set[str] = set()
        self.spent: dict[str, float] = {}

    def pytest_runtest_logreport(self, report: pytest.TestReport) -> None:
        # the report's keywords hold its markers: under pytest-xdist only the workers collect, the reports arrive
        if "slow" in report.keywords:
            self.marked.add(report.nodeid)
        self.spent[report.nodeid] = self.spent.get(report.nodeid, 0.0) + report.duration

    def pytest_terminal_summary(self, terminalreporter: pytest.TerminalReporter) -> None:
        over = sorted(
            ((s, node) for node, s in self.spent.items() if s > self.limit and node not in self.marked), reverse=True
        )
        if not over:
            return
        terminalreporter.write_sep("=", f"{len(over)} tests over {self.limit:g} s without the slow marker")
        for seconds, node in over:
            terminalreporter.write_line(f"{seconds:7.1f}s {node}")
        terminalreporter.write_line('mark them @pytest.mark.slow so that `pytest -m "not slow"` stays the fast tier')


def pytest_addoption(parser: pytest.Parser) -> None:
    parser.addini("slow_tier_seconds", "tests longer than this without the slow marker are listed", default="10")


def pytest_configure(config: pytest.Config) -> None:
    config.pluginmanager.register(UnmarkedSlowTests(float(config.getini("slow_tier_seconds"))), "unmarked-slow-tests")
