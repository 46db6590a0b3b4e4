"""The import format: a researcher's own generations as two JSONL files (see docs/replay.md).

- code file (human-eval / evalplus samples format): one line per sample, ``{"task_id": ..., "completion": ...}``
  (joined to the HumanEval prompt) or ``{"task_id": ..., "solution": ...}`` (the whole program); several lines
  for one task are several samples, indexed in file order; other fields are ignored;
- tests file: one line per test sample, ``{"task_id": ..., "test": ..., "kind": "ebt" | "pbt"}`` (kind optional,
  default ``ebt``); ``test`` is a block of asserts (one test per assert; a block with other statements is one
  test) or pytest-style ``test_*`` functions (split as the pipeline's parser splits a model's reply).

Every line is validated before anything is returned; the first bad line raises one :class:`DataError` naming
the file, the line and the fix. Code that does not compile is kept (it counts as code that fails to load).
"""

from __future__ import annotations

import ast
from pathlib import Path
from typing import Any

from tfr_helpers.benchmarks import load_tasks
from tfr_helpers.errors import DataError
from tfr_helpers.models.parse import parse_tests
from tfr_helpers.records import BenchmarkName, Task, TestKind
from tfr_helpers.replay.jsonl import field, read_jsonl
from tfr_helpers.replay.records import ReplayCode, ReplayDataset, ReplayTask, ReplayTest, ReplayTestSample
from tfr_helpers.replay.units import assert_unit, compiles

ID_PREFIXES: dict[str, BenchmarkName] = {"HumanEval/": "humaneval", "MBPP/": "mbpp", "BigCodeBench/": "bigcodebench"}
CODE_FIX = 'each line must be {"task_id": "HumanEval/0", "completion": "..."} or {"task_id": ..., "solution": "..."}'
TESTS_FIX = 'each line must be {"task_id": "HumanEval/0", "test": "assert ...", "kind": "ebt"} (kind optional)'


def _benchmark(path: Path, lineno: int, task_id: str, fix: str) -> BenchmarkName:
    for prefix, benchmark in ID_PREFIXES.items():
        if task_id.startswith(prefix):
            return benchmark
    raise DataError(
        f"{path}:{lineno}: unknown task id {task_id!r} (no benchmark prefix); use the benchmark's own ids, "
        f"starting with one of {', '.join(ID_PREFIXES)}; {fix}"
    )


class _Tasks:
    """The benchmark's tasks, loaded on first use; every file of one import must use one benchmark."""

    def __init__(self) -> None:
        self.benchmark: BenchmarkName | None = None
        self.where = ""
        self.by_id: dict[str, Task] = {}

    def get(self, path: Path, lineno: int, task_id: str, fix: str) -> Task:
        benchmark = _benchmark(path, lineno, task_id, fix)
        if self.benchmark is None:
            self.benchmark, self.where = benchmark, f"{path}:{lineno}"
            self.by_id = {t.task_id: t for t in load_tasks(benchmark, selected=False)}
        elif benchmark != self.benchmark:
            raise DataError(
                f"{path}:{lineno}: task {task_id!r} is from {benchmark}, but {self.where} is from "
                f"{self.benchmark}; put the generations of each benchmark in their own files"
            )
        if task_id not in self.by_id:
            raise DataError(
                f"{path}:{lineno}: unknown task id {task_id!r}: {benchmark} has no such task; "
                "use the benchmark's own ids (see `tfr benchmarks list`)"
            )
        return self.by_id[task_id]


def _code(path: Path, lineno: int, rec: dict[str, Any], task: Task, index: int) -> ReplayCode:
    keys = [k for k in ("completion", "solution") if k in rec]
    if len(keys) != 1:
        what = "both 'completion' and 'solution'" if keys else "missing field 'completion' or 'solution'"
        raise DataError(f"{path}:{lineno}: {what}; give exactly one: {CODE_FIX}")
    text = field(path, lineno, rec, keys[0], CODE_FIX)
    if keys[0] == "solution":
        return ReplayCode(index=index, program=text, compiles=compiles(text))
    if task.benchmark != "humaneval":
        raise DataError(
            f"{path}:{lineno}: 'completion' is joined to a code prompt, which only HumanEval has; give the "
            f"whole program of {task.task_id} as 'solution'"
        )
    program = task.description + text
    return ReplayCode(index=index, program=program, completion=text, compiles=compiles(program))


def tests_sample(block: str, kind: TestKind, entry_point: str, index: int) -> ReplayTestSample:
    """Turn one ``test`` block into a test sample.

    Args:
        block: A block of asserts, or pytest-style test functions.
        kind: ``ebt`` or ``pbt``.
        entry_point: The function under test.
        index: The sample's index within its task and kind.

    Returns:
        The sample; its tests are the units :func:`tfr_helpers.models.parse_tests` reads from ``module``. A
        block that does not parse gives a sample without tests and a note saying why.
    """

    try:
        body = ast.parse(block).body
    except SyntaxError as exc:
        note = f"the test block does not parse (line {exc.lineno}: {exc.msg})"
        return ReplayTestSample(index=index, kind=kind, tests=[], module="", note=note)
    has_units = any(
        (isinstance(n, (ast.FunctionDef, ast.AsyncFunctionDef)) and n.name.startswith("test"))
        or (isinstance(n, ast.ClassDef) and n.name.startswith("Test"))
        for n in body
    )
    module = block.strip() + "\n"
    if not has_units:
        segments = [ast.get_source_segment(block, n) or ast.unparse(n) for n in body]
        imports = [s for n, s in zip(body, segments, strict=True) if isinstance(n, (ast.Import, ast.ImportFrom))]
        rest = [(n, s) for n, s in zip(body, segments, strict=True) if not isinstance(n, (ast.Import, ast.ImportFrom))]
        if all(isinstance(n, ast.Assert) for n, _ in rest):
            units = [assert_unit(f"test_assert_{k}", s) for k, (_, s) in enumerate(rest)]
        else:
            units = [assert_unit("test_block", "\n".join(s for _, s in rest))]
        module = "\n\n".join(["\n".join(imports)] * bool(imports) + units)
    parsed = parse_tests(module, kind, entry_point)
    tests = [ReplayTest(name=t.name, source=t.source, text=t.source) for t in parsed.tests]
    return ReplayTestSample(index=index, kind=kind, tests=tests, module=module if tests else "", note=parsed.error)


def _read_codes(path: Path, known: _Tasks) -> dict[str, list[ReplayCode]]:
    codes: dict[str, list[ReplayCode]] = {}
    for lineno, rec in read_jsonl(path, CODE_FIX):
        task = known.get(path, lineno, field(path, lineno, rec, "task_id", CODE_FIX), CODE_FIX)
        samples = codes.setdefault(task.task_id, [])
        samples.append(_code(path, lineno, rec, task, len(samples)))
    return codes


def _read_tests(path: Path, known: _Tasks) -> dict[str, list[ReplayTestSample]]:
    tests: dict[str, list[ReplayTestSample]] = {}
    for lineno, rec in read_jsonl(path, TESTS_FIX):
        task = known.get(path, lineno, field(path, lineno, rec, "task_id", TESTS_FIX), TESTS_FIX)
        block = field(path, lineno, rec, "test", TESTS_FIX)
        kind = rec.get("kind", "ebt")
        if kind not in ("ebt", "pbt"):
            raise DataError(f"{path}:{lineno}: kind {kind!r} is not 'ebt' or 'pbt'; {TESTS_FIX}")
        samples = tests.setdefault(task.task_id, [])
        index = sum(s.kind == kind for s in samples)
        samples.append(tests_sample(block, kind, task.entry_point, index))
    return tests


def load_imported(
    code_path: Path | None, tests_path: Path | None, *, name: str, model: str, license: str = "unknown"
) -> ReplayDataset:
    """Load a researcher's code and/or tests files in the import format.

    Args:
        code_path: The code JSONL, or None.
        tests_path: The tests JSONL, or None.
        name: The dataset's name (for ``replay:<dir>`` the directory's name).
        model: The model that produced the generations.
        license: Their license.

    Returns:
        The dataset, tasks in benchmark order.

    Raises:
        DataError: A malformed line, a missing field, a sample that is not a string, an unknown task id, an
            unknown kind, files from two benchmarks, or neither file given (naming the file, line and fix).
    """
    if code_path is None and tests_path is None:
        raise DataError(f"replay import {name}: give a code file, a tests file or both")
    known = _Tasks()
    codes = _read_codes(code_path, known) if code_path else {}
    tests = _read_tests(tests_path, known) if tests_path else {}
    files = " + ".join(str(p) for p in (code_path, tests_path) if p is not None)
    if known.benchmark is None:
        raise DataError(f"replay import {name}: {files} holds no line; {CODE_FIX}")
    order = [t for t in known.by_id if t in codes or t in tests]
    return ReplayDataset(
        name=name,
        benchmark=known.benchmark,
        model=model,
        origin="imported",
        source=files,
        license=license,
        note=f"real generations by {model}, imported from {files}; not simulated",
        tasks={
            t: ReplayTask(
                task_id=t,
                entry_point=known.by_id[t].entry_point,
                code_samples=codes.get(t, []),
                test_samples=tests.get(t, []),
            )
            for t in order
        },
    )
