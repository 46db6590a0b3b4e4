"""The CodeT adapter: CodeGen-16B's HumanEval code and test samples as replay records, by CodeT's own rules.

CodeT's released protocol (``CodeT/src/postprocess.py``, restated in our words):

- samples are joined to tasks by the exact prompt text, never by entry-point name (HumanEval/88 and /116 are
  both ``sort_array``);
- a raw completion is cut at each stop string in turn (``\\nclass``, ``\\ndef``, ``\\n#``, ``\\nif``,
  ``\\nprint``), and the program is the prompt followed by the cut completion;
- the test prompt ends in ``assert ``, so a test sample continues an assert: ``"assert " + sample`` is split on
  ``"assert "``; pieces that mention the entry point and are not blank get ``"assert "`` back and are
  stripped, cut at the stop strings and stripped again; a piece is kept when it contains ``assert`` and
  compiles as the body of a ``try:``/``except: pass`` block; the first 5 kept pieces are the sample's tests.
"""

from __future__ import annotations

from pathlib import Path

from tfr_helpers.errors import DataError
from tfr_helpers.replay.datasets import DatasetSpec, published_dataset
from tfr_helpers.replay.jsonl import read_jsonl
from tfr_helpers.replay.records import ReplayCode, ReplayDataset, ReplayTask, ReplayTestSample
from tfr_helpers.replay.units import assert_sample, compiles

STOP_STRINGS = ("\nclass", "\ndef", "\n#", "\nif", "\nprint")
"""CodeT's stop strings, applied in this order."""

TESTS_PER_SAMPLE = 5
"""CodeT's ``--test_case_limit``: the first 5 valid asserts of each test sample are kept."""


def cut_at_stops(text: str) -> str:
    """Cut a raw completion at CodeT's stop strings, one after another.

    Args:
        text: A raw completion.

    Returns:
        The text before the first occurrence of any stop string (the whole text when none occurs).
    """
    for stop in STOP_STRINGS:
        text = text.split(stop, 1)[0]
    return text


def valid_assert(piece: str) -> bool:
    """CodeT's check of one extracted test: non-blank, contains ``assert``, compiles inside ``try:``.

    Args:
        piece: The stripped, cut piece.

    Returns:
        Whether CodeT keeps it.
    """
    if not piece.strip() or "assert" not in piece:
        return False
    body = piece.replace("\n", "\n    ")
    return compiles(f"try:\n    {body}\nexcept:\n    pass\n")


def extract_asserts(sample: str, entry_point: str, limit: int = TESTS_PER_SAMPLE) -> list[str]:
    """Extract the asserts of one raw test sample by CodeT's rules.

    Args:
        sample: The raw completion of the test prompt (which ended in ``assert ``).
        entry_point: The task's function name.
        limit: At most this many asserts are kept, the first ones.

    Returns:
        The kept assert statements, in order.
    """
    name = entry_point.strip()
    pieces = [f"assert {p}".strip() for p in f"assert {sample}".split("assert ") if name in p and p.strip()]
    cut = [cut_at_stops(p).strip() for p in pieces]
    return [p for p in cut if valid_assert(p)][:limit]


def _join(spec: DatasetSpec, generated: Path, tasks_file: Path, role: str) -> list[tuple[dict, list[str]]]:
    """Pair each line of a generated file with its task record by exact prompt text."""
    fix = f"replace it with the file from {spec.url(spec.file(role))}"
    by_prompt = {rec["prompt"]: rec for _, rec in read_jsonl(tasks_file, fix)}
    lines = read_jsonl(generated, fix)
    if len(lines) != spec.file(role).lines:
        raise DataError(f"{generated} holds {len(lines)} lines, expected {spec.file(role).lines}; {fix}")
    out = []
    for lineno, rec in lines:
        task = by_prompt.get(rec.get("prompt"))
        samples = rec.get("samples")
        if task is None or not isinstance(samples, list) or not all(isinstance(s, str) for s in samples):
            raise DataError(f"{generated}:{lineno}: no task has this prompt or samples are not strings; {fix}")
        out.append((task | {"prompt": rec["prompt"]}, samples))
    return out


def load_codet(spec: DatasetSpec, paths: dict[str, Path], task_order: list[str]) -> ReplayDataset:
    """Turn CodeT's four HumanEval files into a replay dataset.

    Args:
        spec: The CodeT dataset's registry entry.
        paths: The verified files by role (``code``, ``tests``, ``code_tasks``, ``test_tasks``).
        task_order: The benchmark's task ids in benchmark order (tasks are returned in that order).

    Returns:
        One task per HumanEval task, with 100 code samples and 100 ``ebt`` test samples each.

    Raises:
        DataError: A file is malformed, a prompt matches no task, or a task id is not in the benchmark.
    """
    codes = {t["task_id"]: (t, s) for t, s in _join(spec, paths["code"], paths["code_tasks"], "code_tasks")}
    tests = {t["task_id"]: (t, s) for t, s in _join(spec, paths["tests"], paths["test_tasks"], "test_tasks")}
    unknown = sorted((set(codes) | set(tests)) - set(task_order))
    if unknown:
        raise DataError(f"replay dataset {spec.name} names tasks absent from {spec.benchmark}: {unknown[:5]}")
    tasks: dict[str, ReplayTask] = {}
    for task_id in task_order:
        if task_id not in codes and task_id not in tests:
            continue
        record, code_samples = codes.get(task_id, ({}, []))
        entry_point = (record or tests[task_id][0])["entry_point"]
        prompt = record.get("prompt", "")
        code = []
        for i, raw in enumerate(code_samples):
            completion = cut_at_stops(raw)
            program = prompt + completion
            code.append(ReplayCode(index=i, program=program, completion=completion, compiles=compiles(program)))
        samples: list[ReplayTestSample] = [
            assert_sample(i, "ebt", extract_asserts(raw, entry_point), empty_note="CodeT's rules keep no assert")
            for i, raw in enumerate(tests.get(task_id, ({}, []))[1])
        ]
        tasks[task_id] = ReplayTask(
            task_id=task_id, entry_point=entry_point, prompt=prompt or None, code_samples=code, test_samples=samples
        )
    return published_dataset(spec, tasks)
