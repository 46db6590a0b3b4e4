"""The Reflexion adapter: GPT-4's HumanEval solutions and its own asserts as replay records.

Two files of noahshinn/reflexion's ``programming_runs``:

- ``reflexion_humaneval_py_pass_at_1.jsonl``: ``solution`` is GPT-4's final function body after the Reflexion
  loop; the program is the task's prompt (the HumanEval prompt, carried in the same line) followed by it.
  Fourteen solutions are empty strings and one is a whole module (HumanEval/133); both are kept as written;
- ``humaneval-py..gz_test-acc_1_gpt-4_pass_at_k_1_py.jsonl``: ``solution`` is the list of assert strings GPT-4
  wrote for the task (its internal tests), one ``ebt`` test sample per task. The list is a JSON list in the
  file at the pinned commit; a string holding a Python list literal is accepted too.
"""

from __future__ import annotations

import ast
from pathlib import Path
from typing import Any

from tfr_helpers.errors import DataError
from tfr_helpers.replay.datasets import DatasetSpec, published_dataset
from tfr_helpers.replay.jsonl import field, read_jsonl
from tfr_helpers.replay.records import ReplayCode, ReplayDataset, ReplayTask
from tfr_helpers.replay.units import assert_sample, compiles


def _asserts(value: Any, where: str, fix: str) -> list[str]:
    if isinstance(value, str):
        try:
            value = ast.literal_eval(value)
        except (ValueError, SyntaxError) as exc:
            raise DataError(f"{where}: 'solution' is not a list literal ({exc}); {fix}") from exc
    if not isinstance(value, list) or not all(isinstance(a, str) for a in value):
        raise DataError(f"{where}: 'solution' is not a list of assert strings; {fix}")
    return value


def _lines(spec: DatasetSpec, path: Path, role: str) -> dict[str, tuple[int, dict[str, Any]]]:
    fix = f"replace it with the file from {spec.url(spec.file(role))}"
    lines = read_jsonl(path, fix)
    if len(lines) != spec.file(role).lines:
        raise DataError(f"{path} holds {len(lines)} lines, expected {spec.file(role).lines}; {fix}")
    return {field(path, n, rec, "task_id", fix): (n, rec) for n, rec in lines}


def load_reflexion(spec: DatasetSpec, paths: dict[str, Path], task_order: list[str]) -> ReplayDataset:
    """Turn Reflexion's two HumanEval files into a replay dataset.

    Args:
        spec: The Reflexion dataset's registry entry.
        paths: The verified files by role (``code``, ``tests``).
        task_order: The benchmark's task ids in benchmark order (tasks are returned in that order).

    Returns:
        One task per HumanEval task, with one code sample and one ``ebt`` test sample each.

    Raises:
        DataError: A file is malformed or names a task that is not in the benchmark.
    """
    codes = _lines(spec, paths["code"], "code")
    tests = _lines(spec, paths["tests"], "tests")
    unknown = sorted((set(codes) | set(tests)) - set(task_order))
    if unknown:
        raise DataError(f"replay dataset {spec.name} names tasks absent from {spec.benchmark}: {unknown[:5]}")
    fix = f"replace the file with the one from {spec.source}"
    tasks: dict[str, ReplayTask] = {}
    for task_id in [t for t in task_order if t in codes or t in tests]:
        code: list[ReplayCode] = []
        prompt = None
        entry_point = ""
        if task_id in codes:
            n, rec = codes[task_id]
            prompt = field(paths["code"], n, rec, "prompt", fix)
            body = field(paths["code"], n, rec, "solution", fix)
            entry_point = field(paths["code"], n, rec, "entry_point", fix)
            program = prompt + body
            code = [ReplayCode(index=0, program=program, completion=body, compiles=compiles(program))]
        samples = []
        if task_id in tests:
            n, rec = tests[task_id]
            entry_point = field(paths["tests"], n, rec, "entry_point", fix)
            asserts = _asserts(rec.get("solution"), f"{paths['tests']}:{n}", fix)
            samples = [assert_sample(0, "ebt", asserts, empty_note="GPT-4 wrote no assert for this task")]
        tasks[task_id] = ReplayTask(
            task_id=task_id, entry_point=entry_point, prompt=prompt, code_samples=code, test_samples=samples
        )
    return published_dataset(spec, tasks)
