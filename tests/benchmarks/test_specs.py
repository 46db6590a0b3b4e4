"""benchmark_tests: the specs of each benchmark, and that they really judge a program (run in-process)."""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

from tfr_helpers.benchmarks import benchmark_tests, get_task, load_tasks
from tfr_helpers.records import Task
from tfr_helpers.sandbox.spec import TestSpec


@pytest.fixture
def data(shared_benchmarks: Path, isolated_benchmarks: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    monkeypatch.setenv("TFR_BENCHMARK_DIR", str(shared_benchmarks))
    return shared_benchmarks


def _run(program: str, spec: TestSpec) -> None:
    """Run a snippet spec the way the sandbox contract states (program globals, setup, then source)."""
    namespace: dict[str, object] = {"__name__": "solution"}
    exec(compile(program, "solution.py", "exec"), namespace)  # trusted benchmark data only
    exec(compile(spec.setup, "setup", "exec"), namespace)
    exec(compile(spec.source, spec.name, "exec"), namespace)


def test_humaneval_is_one_check_snippet(data: Path) -> None:
    task = get_task("HumanEval/149")
    (spec,) = benchmark_tests(task)
    assert (spec.name, spec.kind, spec.setup) == ("check", "snippet", "")
    assert spec.source.startswith(task.tests.rstrip()) and spec.source.rstrip().endswith("check(sorted_list_sum)")
    _run(task.reference, spec)
    broken = task.reference.replace("sorted(new_lst, key=len)", "new_lst")
    with pytest.raises(AssertionError):
        _run(broken, spec)


def test_mbpp_is_one_snippet_per_assert_with_imports_as_setup(data: Path) -> None:
    task = get_task("MBPP/63")
    specs = benchmark_tests(task)
    assert [s.name for s in specs] == ["assert_0", "assert_1", "assert_2"]
    assert [s.source for s in specs] == task.tests.splitlines()
    for spec in specs:
        _run(task.reference, spec)
    with pytest.raises(AssertionError):
        _run(task.reference.replace("max(temp)", "min(temp)"), specs[0])
    with_imports = next(t for t in load_tasks("mbpp") if t.test_imports)
    assert {s.setup for s in benchmark_tests(with_imports)} == {"\n".join(with_imports.test_imports)}


def test_every_humaneval_and_mbpp_reference_passes_its_specs_in_process(data: Path) -> None:
    for task in load_tasks("humaneval") + load_tasks("mbpp")[:60]:
        for spec in benchmark_tests(task):
            _run(task.reference, spec)


def test_bigcodebench_is_one_unittest_spec(data: Path) -> None:
    task = get_task("BigCodeBench/13")
    (spec,) = benchmark_tests(task)
    assert (spec.name, spec.kind, spec.source) == ("TestCases", "unittest", task.tests)
    classes = [n.name for n in ast.parse(spec.source).body if isinstance(n, ast.ClassDef)]
    assert "TestCases" in classes


def test_multiline_asserts_stay_whole() -> None:
    task = Task(
        task_id="MBPP/0",
        benchmark="mbpp",
        description="d",
        entry_point="f",
        signature="def f(x):",
        reference="def f(x):\n    return x\n",
        tests="assert f(1) == (\n    1)\nassert f(2) == 2",
        test_format="asserts",
        test_imports=["import math"],
    )
    specs = benchmark_tests(task)
    assert [s.source for s in specs] == ["assert f(1) == (\n    1)", "assert f(2) == 2"]
    assert all(s.setup == "import math" for s in specs)
