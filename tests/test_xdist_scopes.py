"""The shared study runs once under pytest-xdist only if every module that uses it is scheduled in one scope."""

from __future__ import annotations

import re
from dataclasses import dataclass
from pathlib import Path

import pytest

from tests.conftest import SHARED_STUDY_FIXTURES, scope_of, scope_order

TESTS = Path(__file__).resolve().parent
NAMES = "|".join(SHARED_STUDY_FIXTURES)
USE = re.compile(rf"[(,]\s*(?:{NAMES})\s*[:,)]|getfixturevalue\(\"(?:{NAMES})\"\)")
"""A fixture taken as a test's or fixture's argument, or fetched by name."""


def test_every_user_of_the_shared_study_is_in_the_shared_scope() -> None:
    users = sorted(
        str(path.relative_to(TESTS.parent))
        for path in TESTS.rglob("test_*.py")
        if path != Path(__file__).resolve() and USE.search(path.read_text())
    )
    assert len(users) >= 5  # the notebook, determinism, execution-cache, run-stages and analysis tests
    missing = [module for module in users if scope_of(f"{module}::test_x") != "shared-study"]
    assert not missing, f"these modules use the shared study: add them to SHARED_STUDY_MODULES: {missing}"


def test_other_tests_are_scheduled_by_module() -> None:
    assert scope_of("tests/test_passk.py::test_pass_at_k_known_answers") == "tests/test_passk.py"
    assert scope_of("tests/notebooks/test_series.py::test_x[a]") == "shared-study"
    assert scope_of("tests/browser/test_reports.py::test_x") == "tests/browser/test_reports.py"  # its own study
    assert USE.search("def test_a(tmp_path: Path, smoke_study: SmokeStudy) -> None:")
    assert not USE.search("def test_smoke_study_on_two_nodes_equals_local(cluster):")


@dataclass
class _Item:
    nodeid: str
    slow: bool = False

    def get_closest_marker(self, name: str) -> object:
        return pytest.mark.slow if (name == "slow" and self.slow) else None


def test_the_heaviest_scopes_go_first_and_each_keeps_its_order() -> None:
    items = [
        _Item("tests/test_passk.py::test_a"),
        _Item("tests/test_passk.py::test_b"),
        _Item("tests/analysis/test_smoke_run.py::test_x", slow=True),
        _Item("tests/test_imports.py::test_one", slow=True),
        _Item("tests/notebooks/test_series.py::test_y", slow=True),
        _Item("tests/test_fsutil.py::test_c"),
        _Item("tests/notebooks/test_series.py::test_z", slow=True),
    ]
    order = [i.nodeid for i in scope_order(items)]  # type: ignore[arg-type]
    assert order == [
        "tests/analysis/test_smoke_run.py::test_x",  # shared-study: three slow tests, in their collected order
        "tests/notebooks/test_series.py::test_y",
        "tests/notebooks/test_series.py::test_z",
        "tests/test_imports.py::test_one",  # one slow test
        "tests/test_passk.py::test_a",  # two quick tests, then one: the longer first
        "tests/test_passk.py::test_b",
        "tests/test_fsutil.py::test_c",
    ]
