"""The BigCodeBench selection: stage-1 rule, hash sample, the committed file, loading errors."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from tfr_helpers.benchmarks import build_selection, load_selection, load_tasks, selection_path
from tfr_helpers.benchmarks.subsets.selection import SAMPLE_SIZE, stage1_reason, stage2_exclusions, write_selection
from tfr_helpers.errors import DataError
from tfr_helpers.records import Task


def _task(task_id: str, libs: list[str], reference: str = "def task_func():\n    return 1\n", tests: str = "") -> Task:
    return Task(
        task_id=task_id,
        benchmark="bigcodebench",
        description="d",
        entry_point="task_func",
        signature="def task_func():",
        reference=reference,
        tests=tests or "import unittest\nclass TestCases(unittest.TestCase):\n    pass\n",
        test_format="unittest",
        libraries=libs,
    )


def test_stage1_reasons() -> None:
    assert stage1_reason(_task("BigCodeBench/1", ["os", "pandas", "numpy"])) is None
    assert stage1_reason(_task("BigCodeBench/2", ["requests"])) == "network: uses library requests"
    assert stage1_reason(_task("BigCodeBench/3", ["cv2"])).startswith("library: cv2")
    assert stage1_reason(_task("BigCodeBench/4", ["turtle"])).startswith("library: turtle")
    fetch = "import os\ndef task_func(u):\n    return urlopen(u)\n"
    assert stage1_reason(_task("BigCodeBench/5", ["os"], reference=fetch)).startswith("network:")
    url = "def task_func():\n    return 'https://example.org/data.csv'\n"
    assert stage1_reason(_task("BigCodeBench/6", ["os"], reference=url)).startswith("network:")


def test_sample_is_by_hash_and_extra_exclusions_apply() -> None:
    tasks = [_task(f"BigCodeBench/{i}", ["os"]) for i in range(10)]
    first = build_selection(tasks, sample_size=4)
    again = build_selection(list(reversed(tasks)), sample_size=4)
    assert len(first.selected) == 4 and set(first.selected) == set(again.selected)
    assert sum(r.startswith("sample:") for r in first.excluded.values()) == 6
    extra = build_selection(tasks, sample_size=4, extra_exclusions={first.selected[0]: "reference fails 1/3"})
    assert len(extra.selected) == 3 and extra.excluded[first.selected[0]] == "reference fails 1/3"
    assert stage2_exclusions(extra) == {first.selected[0]: "reference fails 1/3"}


def test_committed_selection_matches_the_rule(shared_benchmarks: Path, isolated_benchmarks: Path, monkeypatch) -> None:
    monkeypatch.setenv("TFR_BENCHMARK_DIR", str(shared_benchmarks))
    committed = load_selection()
    tasks = load_tasks("bigcodebench", selected=False)
    rebuilt = build_selection(tasks, extra_exclusions=stage2_exclusions(committed))
    assert rebuilt == committed, "regenerate with `python -m tfr_helpers.benchmarks.subsets.selection`"
    ids = {t.task_id for t in tasks}
    assert set(committed.selected) | set(committed.excluded) == ids
    assert not set(committed.selected) & set(committed.excluded)
    assert 300 <= len(committed.selected) <= SAMPLE_SIZE
    assert committed.excluded["BigCodeBench/13"] == "network: uses library ftplib"
    assert selection_path().name == "bigcodebench_selection.json"


def test_selection_file_errors(tmp_path: Path) -> None:
    with pytest.raises(DataError, match="missing; regenerate"):
        load_selection(tmp_path / "nope.json")
    bad = tmp_path / "bad.json"
    bad.write_text(json.dumps({"version": 1, "selected": []}))
    with pytest.raises(DataError, match="invalid"):
        load_selection(bad)
    good = build_selection([_task("BigCodeBench/1", ["os"])])
    path = write_selection(good, tmp_path / "sel.json")
    assert load_selection(path) == good
