"""Loading tasks: counts, the fields of known tasks, lookups by id, the in-memory cache."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from tfr_helpers.benchmarks import BENCHMARKS, get_task, load_selection, load_tasks
from tfr_helpers.errors import DataError


@pytest.fixture
def data(shared_benchmarks: Path, isolated_benchmarks: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    monkeypatch.setenv("TFR_BENCHMARK_DIR", str(shared_benchmarks))
    return shared_benchmarks


def test_counts_of_every_benchmark(data: Path) -> None:
    counts = {b: len(load_tasks(b, selected=False)) for b in BENCHMARKS}
    assert counts == {"humaneval": 164, "mbpp": 427, "bigcodebench": 1140}
    assert len(load_tasks("bigcodebench")) == len(load_selection().selected)
    assert len(load_tasks("mbpp", selected=True)) == 427  # `selected` only narrows BigCodeBench


def test_task_ids_are_unique_and_prefixed(data: Path) -> None:
    prefixes = {"humaneval": "HumanEval/", "mbpp": "MBPP/", "bigcodebench": "BigCodeBench/"}
    for benchmark in BENCHMARKS:
        ids = [t.task_id for t in load_tasks(benchmark, selected=False)]
        assert len(set(ids)) == len(ids)
        assert all(i.startswith(prefixes[benchmark]) for i in ids)


def test_humaneval_149_fields(data: Path) -> None:
    task = get_task("HumanEval/149")
    assert task.benchmark == "humaneval"
    assert task.entry_point == "sorted_list_sum"
    assert task.signature == "def sorted_list_sum(lst):"
    assert task.description.lstrip().startswith("def sorted_list_sum(lst):")
    assert task.reference.startswith(task.description)
    assert "return sorted(new_lst, key=len)" in task.reference
    assert task.tests.startswith("def check(candidate):")
    assert task.test_format == "check"
    assert task.test_imports == [] and task.examples == []


def test_mbpp_63_fields(data: Path) -> None:
    task = get_task("MBPP/63")
    first = "assert max_difference([(3, 5), (1, 7), (10, 3), (1, 2)]) == 7"
    assert task.entry_point == "max_difference"
    assert task.signature == "def max_difference(test_list):"
    assert task.description == (
        "Write a function to find the maximum difference between available pairs in the given tuple list.\n"
        "The function should be named `max_difference`, "
        "with the signature `def max_difference(test_list):`.\n"
        "Your code should pass this example test:\n" + first
    )
    assert task.examples == [first]
    assert task.tests.splitlines()[0] == first and len(task.tests.splitlines()) == 3
    assert task.test_format == "asserts" and task.test_imports == []
    assert task.reference.startswith("def max_difference(test_list):")


def test_mbpp_106_fields(data: Path) -> None:
    task = get_task("MBPP/106")
    assert task.entry_point == "add_lists"
    assert task.signature == "def add_lists(test_list, test_tup):"
    assert task.examples == ["assert add_lists([5, 6, 7], (9, 10)) == (9, 10, 5, 6, 7)"]
    assert "`def add_lists(test_list, test_tup):`" in task.description
    assert task.tests.count("assert add_lists(") == 3


def test_mbpp_entry_point_skips_helpers_and_wrappers(data: Path) -> None:
    # MBPP/56 defines the helper `rev` next to `check`; MBPP/2 wraps the call in set(...)
    assert get_task("MBPP/56").entry_point == "check"
    assert get_task("MBPP/2").entry_point == "similar_elements"
    for task in load_tasks("mbpp"):
        called = re.compile(rf"\b{task.entry_point}\s*\(")  # MBPP/77 writes `is_Diff (12345)`
        assert all(called.search(line) for line in task.tests.splitlines()), task.task_id
        assert re.search(rf"def {task.entry_point}\s*\(", task.reference)  # MBPP/392: `def get_max_sum (n)`
        assert task.signature.startswith(f"def {task.entry_point}(")


def test_mbpp_test_imports_come_from_the_data(data: Path) -> None:
    with_imports = [t for t in load_tasks("mbpp") if t.test_imports]
    assert with_imports, "sanitized MBPP has tasks with test_imports"
    assert all(line.startswith(("import ", "from ")) for t in with_imports for line in t.test_imports)


def test_bigcodebench_13_fields(data: Path) -> None:
    task = get_task("BigCodeBench/13")
    assert task.benchmark == "bigcodebench"
    assert task.entry_point == "task_func"
    assert task.description.startswith("Download all files from a specific directory on an FTP server")
    assert task.signature.startswith("import subprocess\nimport ftplib\nimport os\ndef task_func(")
    assert task.reference.startswith(task.signature)
    assert "ftplib.FTP(ftp_server)" in task.reference
    assert "class TestCases(unittest.TestCase)" in task.tests
    assert task.test_format == "unittest"
    assert task.libraries == ["subprocess", "ftplib", "os"]


def test_memory_cache_returns_the_same_frozen_tasks(data: Path) -> None:
    first, second = load_tasks("mbpp"), load_tasks("mbpp")
    assert first is not second and first[0] is second[0]


def test_unknown_names_raise_one_data_error(data: Path) -> None:
    with pytest.raises(DataError, match="choose one of humaneval, mbpp, bigcodebench"):
        load_tasks("apps")
    with pytest.raises(DataError, match="no task 'MBPP/1'"):
        get_task("MBPP/1")  # sanitized MBPP has no task 1
    with pytest.raises(DataError, match="no known prefix"):
        get_task("APPS/1")


def test_selection_names_missing_tasks(data: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    bad = tmp_path / "sel.json"
    bad.write_text(
        '{"version": 1, "rule": "r", "benchmark_version": "v0.1.0", "selected": ["BigCodeBench/99999"], "excluded": {}}'
    )
    monkeypatch.setenv("TFR_SELECTION_FILE", str(bad))
    with pytest.raises(DataError, match="BigCodeBench/99999"):
        load_tasks("bigcodebench")
