"""The Reflexion adapter against the published files: GPT-4's asserts and final solutions."""

from __future__ import annotations

import json
from pathlib import Path

from tfr_helpers.replay import load_replay

REFLEXION = "reflexion-gpt4-humaneval"


def test_humaneval_0_asserts_and_solution(replay_env: Path) -> None:
    task = load_replay(REFLEXION).tasks["HumanEval/0"]
    [sample] = task.test_samples
    assert sample.kind == "ebt" and sample.index == 0
    assert [t.text for t in sample.tests] == [
        "assert has_close_elements([1.0, 2.0, 3.0], 0.5) == False",
        "assert has_close_elements([1.0, 2.0, 3.9, 4.0, 5.0, 2.2], 0.05) == False",
        "assert has_close_elements([1.0, 1.5, 2.0], 0.49) == False",
        "assert has_close_elements([], 0.5) == False",
        "assert has_close_elements([1.0], 0.5) == False",
    ]
    assert sample.tests[0].source == ("def test_assert_0():\n    assert has_close_elements([1.0, 2.0, 3.0], 0.5) == False\n")
    [code] = task.code_samples
    body = (
        "    for i in range(len(numbers)):\n        for j in range(i + 1, len(numbers)):\n"
        "            if abs(numbers[i] - numbers[j]) < threshold:\n                return True\n    return False"
    )
    assert code.completion == body and code.program == task.prompt + body and code.compiles
    assert task.prompt is not None and ">>> has_close_elements" in task.prompt  # the HumanEval prompt itself


def test_empty_and_whole_module_solutions_are_kept_as_written(replay_env: Path) -> None:
    dataset = load_replay(REFLEXION)
    empty = dataset.tasks["HumanEval/32"].code_samples[0]
    assert empty.completion == "" and empty.program == dataset.tasks["HumanEval/32"].prompt
    module = dataset.tasks["HumanEval/133"].code_samples[0]
    assert module.completion is not None and module.completion.startswith("import math\n\ndef sum_squares(lst):")


def test_every_task_once_and_counts_match_the_file(replay_env: Path) -> None:
    dataset = load_replay(REFLEXION)
    assert len(dataset.tasks) == 164 and dataset.model == "GPT-4" and dataset.real
    path = replay_env / "reflexion" / "humaneval-py..gz_test-acc_1_gpt-4_pass_at_k_1_py.jsonl"
    by_id = {r["task_id"]: r["solution"] for r in map(json.loads, path.open())}
    for task_id, task in dataset.tasks.items():
        assert [t.text for t in task.test_samples[0].tests] == by_id[task_id]


def test_assert_lists_written_as_python_literals_are_read_too(replay_env: Path, tmp_path: Path) -> None:
    import pytest

    from tfr_helpers.benchmarks import load_tasks
    from tfr_helpers.errors import DataError
    from tfr_helpers.replay.datasets import REFLEXION
    from tfr_helpers.replay.reflexion import load_reflexion

    folder = replay_env / "reflexion"
    paths = {f.role: folder / f.name for f in REFLEXION.files}
    lines = [json.loads(line) for line in paths["tests"].open()]
    paths["tests"] = tmp_path / "tests.jsonl"
    paths["tests"].write_text("".join(json.dumps(r | {"solution": repr(r["solution"])}) + "\n" for r in lines))
    order = [t.task_id for t in load_tasks("humaneval")]
    as_literals = load_reflexion(REFLEXION, paths, order)
    assert as_literals.tasks == load_replay(REFLEXION.name).tasks
    paths["tests"].write_text("".join(json.dumps(r | {"solution": "[assert x"}) + "\n" for r in lines))
    with pytest.raises(DataError, match=r"tests.jsonl:1: 'solution' is not a list literal"):
        load_reflexion(REFLEXION, paths, order)
