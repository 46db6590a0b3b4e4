"""The blind sample's draw (``benchmarks/labels/``): the allocation, at most two items per task, a seeded draw, the
leak check, and the reference's calls recorded the same way whatever the test's verdict."""

from __future__ import annotations

import importlib
import random
from collections import Counter
from collections.abc import Iterator
from pathlib import Path
from types import ModuleType

import pytest

from tfr_helpers.sandbox import Limits

SCRIPTS = Path(__file__).resolve().parents[2] / "benchmarks" / "labels"


@pytest.fixture(scope="module")
def scripts() -> Iterator[dict[str, ModuleType]]:
    with pytest.MonkeyPatch.context() as mp:
        mp.syspath_prepend(str(SCRIPTS))
        yield {name: importlib.import_module(name) for name in ("blind_population", "reference_calls", "draw_blind_sample")}


def _units(pop: ModuleType, tasks: dict[str, int]) -> list[object]:
    return [pop.Unit("codet", t, f"code {k}", f"test {k}") for t, n in tasks.items() for k in range(n)]


def test_the_allocation_is_stated_for_120_and_scales(scripts: dict[str, ModuleType]) -> None:
    pop = scripts["blind_population"]
    assert pop.allocation(120) == {"codet": 60, "reflexion": 50, "reflexion_empty": 10}
    assert sum(pop.allocation(24).values()) == 24 and pop.allocation(12)["reflexion_empty"] == 1


def test_the_draw_spreads_over_tasks_and_repeats_with_its_seed(scripts: dict[str, ModuleType]) -> None:
    pop = scripts["blind_population"]
    units = _units(pop, {"T1": 9, "T2": 1, "T3": 4})
    picked = pop.draw_stratum(units, 5, random.Random(7), "codet")
    assert max(Counter(u.task_id for u in picked).values()) == 2 and {u.task_id for u in picked} == {"T1", "T2", "T3"}
    assert picked == pop.draw_stratum(units, 5, random.Random(7), "codet")
    with pytest.raises(pop.DataError, match="stratum codet has 5 units within 2 per task"):
        pop.draw_stratum(units, 6, random.Random(7), "codet")


def test_an_item_naming_a_label_or_cause_is_a_leak(scripts: dict[str, ModuleType]) -> None:
    draw = scripts["draw_blind_sample"]
    clean = {"item": "B001", "test": "assert f(1) == 2", "failure": "The test failed (assertion failed)"}
    assert draw.leaks([clean]) == []
    assert draw.leaks([{**clean, "failure": "unreliable: wrong_expected_value"}]) == [
        "B001: ['unreliable', 'wrong_expected_value']"
    ]
    assert draw.leaks([{**clean, "cause": None}]) == ["B001: unexpected fields ['cause']"]


def test_the_reference_calls_are_recorded_whatever_the_verdict(scripts: dict[str, ModuleType]) -> None:
    calls = scripts["reference_calls"]
    reference = "def f(x):\n    if x < 0:\n        raise ValueError('negative')\n    return f(x - 1) + 1 if x else 0\n"
    tests = {
        "passes": "def test_a():\n    assert f(2) == 2\n",
        "fails": "def test_a():\n    assert f(3) == 4\n",
        "raises": "def test_a():\n    y = [f(1)]\n    assert f(-1) == y\n",
        "no call": "def test_a():\n    assert ____ == f(1)\n",
    }
    jobs = [calls.CallJob(reference, "f", "test_a", source) for source in tests.values()]
    found = dict(zip(tests, calls.reference_calls(jobs, Limits(timeout_s=5)), strict=True))
    assert found["passes"] == [{"call": "f(2)", "returns": "2"}]  # the recursion inside f is not the test's call
    assert found["fails"] == [{"call": "f(3)", "returns": "3"}]
    assert found["raises"] == [{"call": "f(1)", "returns": "1"}, {"call": "f(-1)", "raises": "ValueError: negative"}]
    assert found["no call"] == [{"note": "the test made no call to a function of the task before it ended"}]
