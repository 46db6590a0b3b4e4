"""EvalPlus's memory rule, and one task's trouble staying that task's: a plus input the corrected reference gives no
output for is left out of the plus tier and listed, the task kept and the command successful; a failing base
input is still an error."""

from __future__ import annotations

import functools
import json
from collections.abc import Iterator
from pathlib import Path

import pytest
from typer.testing import CliRunner

from tfr_helpers.benchmarks import clear_memory_cache
from tfr_helpers.benchmarks.evalplus import (
    ReferenceInputError,
    expected_outputs,
    left_out,
    memory_mb,
    plus_specs,
)
from tfr_helpers.benchmarks.evalplus import expected as evalplus
from tfr_helpers.benchmarks.evalplus.data import _PLUS, PlusData
from tfr_helpers.benchmarks.evalplus.memory import DEFAULT_BYTES, MIB, memory_bytes
from tfr_helpers.benchmarks.registry import _REGISTRY, BenchmarkEntry, register_benchmark
from tfr_helpers.benchmarks.samples import evaluate_samples
from tfr_helpers.benchmarks.sources import DataSource
from tfr_helpers.cli import app, sandbox_cmds
from tfr_helpers.errors import ConfigError
from tfr_helpers.records import Task
from tfr_helpers.sandbox import Limits, Sandbox, TestSpec

GIB = 1024 * MIB
NUMPY_ONLY = ("numpy",)
"""The harness imports numpy: workers preloading only it start in seconds (the default ones preload far more)."""
REFERENCE = "def grow(n):\n    if n < 0:\n        raise MemoryError()\n    return n + 1\n"
"""Fails on one input the way a reference short of memory does (Mbpp/255 on its plus input #85)."""
SOURCE = DataSource(
    benchmark="toy_mem_plus",
    rel_path="toy_mem_plus/tasks.json",
    fmt="json",
    count=1,
    required_keys=("id",),
    url="https://example.invalid/toy.json",
)


def _load(path: Path) -> list[Task]:
    tasks = []
    for row in json.loads(path.read_text()):
        task_id = f"ToyMem/{row['id']}"
        _PLUS[task_id] = PlusData(
            task_id, "toy_mem_plus", "mbpp", "grow", row["reference"], row["base"], row["plus"], 0.0, ""
        )
        tasks.append(
            Task(
                task_id=task_id,
                benchmark="toy_mem_plus",
                description="grow",
                entry_point="grow",
                signature="def grow(n):",
                reference=row["reference"],
                tests="assert grow(1) == 2",
                test_format="asserts",
            )
        )
    return tasks


@pytest.fixture
def toy_benchmark(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Iterator[Path]:
    """An EvalPlus-style benchmark of one task whose reference raises MemoryError on plus input #1."""
    data = tmp_path / "data"
    (data / "toy_mem_plus").mkdir(parents=True)
    row = {"id": 0, "reference": REFERENCE, "base": [[1], [2]], "plus": [[3], [-1], [5]]}
    (data / "toy_mem_plus" / "tasks.json").write_text(json.dumps([row]))
    monkeypatch.setenv("TFR_BENCHMARK_DIR", str(data))
    monkeypatch.setenv("TFR_CACHE_DIR", str(tmp_path / "cache"))
    monkeypatch.setattr(evalplus, "_MEMORY", {})
    clear_memory_cache()
    register_benchmark(BenchmarkEntry("toy_mem_plus", "Toy+", "ToyMem/", SOURCE, _load, tests=plus_specs))
    yield data / "toy_mem_plus" / "tasks.json"
    _REGISTRY.pop("toy_mem_plus", None)
    _PLUS.pop("ToyMem/0", None)
    clear_memory_cache()


def test_the_memory_rule_is_evalplus_own() -> None:
    assert memory_bytes(env="", machine=24 * GIB) == DEFAULT_BYTES == 4 * GIB
    assert memory_bytes(env="", machine=2 * GIB) == 2 * GIB  # a smaller machine: all of it
    assert memory_bytes(env=str(GIB), machine=24 * GIB) == GIB
    assert memory_bytes(env=str(64 * GIB), machine=24 * GIB) == 24 * GIB
    assert memory_bytes(env="-1", machine=24 * GIB) == 24 * GIB  # EvalPlus: no limit
    assert memory_mb(env="", machine=24 * GIB) == 4096
    for bad in ("lots", "0", "-2"):
        with pytest.raises(ConfigError, match="EVALPLUS_MAX_MEMORY_BYTES"):
            memory_bytes(env=bad, machine=24 * GIB)


def test_the_cache_key_names_the_memory_limit(monkeypatch: pytest.MonkeyPatch) -> None:
    data = PlusData("ToyKey/0", "toy_key_plus", "mbpp", "grow", REFERENCE, [[1]], [[2]], 0.0, "")
    monkeypatch.setenv("EVALPLUS_MAX_MEMORY_BYTES", str(GIB))
    one_gib = evalplus.content_key(data)
    monkeypatch.setenv("EVALPLUS_MAX_MEMORY_BYTES", str(2 * GIB))
    assert evalplus.content_key(data) != one_gib  # outputs computed under another limit are not reused


def test_a_spec_memory_limit_replaces_the_runs() -> None:
    grab = "b = bytearray(700 * 1024 * 1024)\n"
    with Sandbox(Limits(timeout_s=10.0, memory_mb=512), workers=1) as sandbox:
        small, large = sandbox.run_many(
            [("x = 1\n", [TestSpec("grab", grab)]), ("x = 1\n", [TestSpec("grab", grab, memory_mb=2048)])]
        )
    assert small.outcomes[0].exc_type == "MemoryError"
    assert large.passed, large.outcomes


def test_a_plus_input_without_expected_output_is_left_out_and_the_command_succeeds(
    toy_benchmark: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(sandbox_cmds, "Sandbox", functools.partial(Sandbox, preload=NUMPY_ONLY))
    result = CliRunner().invoke(app, ["benchmarks", "verify", "--benchmark", "toy_mem_plus", "--workers", "1"])
    assert result.exit_code == 0, result.output
    assert "toy_mem_plus: 1/1 reference solutions pass" in result.output
    assert "plus inputs left out (the reference gave no expected output): 1:" in result.output
    assert "ToyMem/0 plus input #1: error: MemoryError()" in result.output
    evalplus._MEMORY.clear()
    exp = expected_outputs("toy_mem_plus")["ToyMem/0"]  # from the cache: the task kept, its other inputs computed
    assert exp.left_out == {1: "error: MemoryError()"}


def test_the_left_out_input_has_no_spec_evaluate_lists_it_and_the_rest_still_judge(toy_benchmark: Path) -> None:
    task = _load(toy_benchmark)[0]
    wrong_on_2 = "def grow(n):\n    return n + 1 if n != 5 else 0\n"
    samples = toy_benchmark.parent / "samples.jsonl"
    samples.write_text("".join(json.dumps({"task_id": task.task_id, "solution": p}) + "\n" for p in (REFERENCE, wrong_on_2)))
    with Sandbox(Limits(timeout_s=10.0), workers=1, preload=NUMPY_ONLY) as sandbox:
        found = evaluate_samples("toy_mem_plus", samples, sandbox)
    exp = expected_outputs("toy_mem_plus")["ToyMem/0"]
    assert exp.base == [2, 3] and exp.plus[0] == 4 and exp.plus[2] == 6 and exp.left_out == {1: "error: MemoryError()"}
    gap = [(x.task_id, x.index, x.reason) for x in found.left_out]
    assert gap == [(x.task_id, x.index, x.reason) for x in left_out("ToyMem/0")] == [("ToyMem/0", 1, "error: MemoryError()")]
    specs = plus_specs(task)
    assert [s.name for s in specs] == ["base_0", "plus_0", "plus_1"]  # no spec holds input #1
    assert {s.memory_mb for s in specs} == {memory_mb()}
    rows = [json.loads(line) for line in found.results_path.read_text().splitlines()]
    assert [r["tiers"] for r in rows] == [{"base": True, "plus": True}, {"base": True, "plus": False}]
    assert "input #2: grow(5) returned 0" in rows[1]["result"]
    assert found.evalplus_results is not None
    assert json.loads(found.evalplus_results.read_text())["left_out"] == [x.model_dump() for x in found.left_out]


def test_a_failing_base_input_is_still_an_error_and_the_other_tasks_are_kept(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("TFR_CACHE_DIR", str(tmp_path))
    monkeypatch.setattr(evalplus, "_MEMORY", {})
    good = PlusData("ToyBase/0", "toy_base_plus", "mbpp", "grow", REFERENCE, [[1]], [[-1]], 0.0, "")
    bad = PlusData("ToyBase/1", "toy_base_plus", "mbpp", "grow", REFERENCE, [[-1]], [[2]], 0.0, "")
    for data in (good, bad):
        monkeypatch.setitem(_PLUS, data.task_id, data)
    with Sandbox(Limits(timeout_s=10.0), workers=1, preload=NUMPY_ONLY) as sandbox:
        with pytest.raises(ReferenceInputError, match=r"ToyBase/1: the reference fails on its own base input #0 "):
            expected_outputs("toy_base_plus", sandbox)
    assert evalplus.cached("ToyBase/0") is not None and evalplus.cached("ToyBase/1") is None
    assert evalplus.cached("ToyBase/0").left_out == {0: "error: MemoryError()"}  # type: ignore[union-attr]
