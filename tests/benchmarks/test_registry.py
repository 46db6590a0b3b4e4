"""The benchmark registry: one module registering an entry is all a new benchmark needs."""

from __future__ import annotations

import json
import sys
import textwrap
from collections.abc import Iterator
from pathlib import Path

import pytest

from tfr_helpers.benchmarks import (
    BENCHMARKS,
    benchmark_names,
    benchmark_of_id,
    benchmark_tests,
    clear_memory_cache,
    get_task,
    load_tasks,
)
from tfr_helpers.benchmarks.registry import _REGISTRY
from tfr_helpers.errors import ConfigError, DataError
from tfr_helpers.pipeline.config.experiment import config_from_dict

_TOY_MODULE = """
from pathlib import Path

from tfr_helpers.benchmarks.files import read_records
from tfr_helpers.benchmarks.registry import BenchmarkEntry, register_benchmark
from tfr_helpers.benchmarks.sources import DataSource
from tfr_helpers.records import Task
from tfr_helpers.sandbox.spec import TestSpec

SOURCE = DataSource(benchmark="toy", rel_path="toy/toy.json", fmt="json", count=2,
                    required_keys=("id", "q", "a"), url="https://example.invalid/toy.json")


def load_toy(path: Path) -> list[Task]:
    return [
        Task(task_id=f"Toy/{r['id']}", benchmark="toy", description=r["q"], entry_point="f",
             signature="def f():", reference=f"def f():\\n    return {r['a']}\\n", tests=f"assert f() == {r['a']}",
             test_format="asserts")
        for r in read_records(path, SOURCE)
    ]


def toy_tests(task: Task) -> list[TestSpec]:
    return [TestSpec(name="toy_check", source=task.tests, kind="snippet")]


register_benchmark(BenchmarkEntry("toy", "Toy", "Toy/", SOURCE, load_toy, select=lambda ts: ts[:1], tests=toy_tests))
"""


@pytest.fixture
def toy_benchmark(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Iterator[Path]:
    """A benchmark defined in a module outside the package, with its data in an override directory."""
    (tmp_path / "toy_bench.py").write_text(textwrap.dedent(_TOY_MODULE))
    data = tmp_path / "data"
    (data / "toy").mkdir(parents=True)
    (data / "toy" / "toy.json").write_text(json.dumps([{"id": 1, "q": "one", "a": 1}, {"id": 2, "q": "two", "a": 2}]))
    monkeypatch.syspath_prepend(str(tmp_path))
    monkeypatch.setenv("TFR_BENCHMARK_DIR", str(data))
    clear_memory_cache()
    __import__("toy_bench")
    yield data
    _REGISTRY.pop("toy", None)
    sys.modules.pop("toy_bench", None)
    clear_memory_cache()


def test_builtin_benchmarks_come_from_the_registry_in_reporting_order() -> None:
    assert BENCHMARKS == ("humaneval", "mbpp", "bigcodebench") == benchmark_names()[:3]
    assert benchmark_of_id("MBPP/7").name == "mbpp"
    assert benchmark_of_id("BigCodeBench/13").label == "BigCodeBench"


def test_a_benchmark_module_outside_the_package_is_loadable_configurable_and_testable(toy_benchmark: Path) -> None:
    assert "toy" in benchmark_names()
    assert [t.task_id for t in load_tasks("toy", selected=False)] == ["Toy/1", "Toy/2"]
    assert [t.task_id for t in load_tasks("toy")] == ["Toy/1"]  # its own selection
    task = get_task("Toy/2")
    assert task.benchmark == "toy"
    assert [s.name for s in benchmark_tests(task)] == ["toy_check"]  # its own spec builder
    config = config_from_dict({"benchmarks": ["toy", "mbpp"], "tasks": {"toy": 1}})
    assert config.benchmarks == ["toy", "mbpp"]


def test_unknown_benchmarks_and_prefixes_are_named_errors() -> None:
    with pytest.raises(DataError, match="unknown benchmark 'toy'; choose one of humaneval, mbpp, bigcodebench"):
        load_tasks("toy")
    with pytest.raises(DataError, match="no known prefix; use one of HumanEval/, MBPP/, BigCodeBench/"):
        get_task("Toy/1")
    with pytest.raises(ConfigError, match="unknown benchmark 'toy'"):
        config_from_dict({"benchmarks": ["toy"]})
