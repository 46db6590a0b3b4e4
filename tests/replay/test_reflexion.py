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
