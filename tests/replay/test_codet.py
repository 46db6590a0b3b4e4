"""The CodeT adapter against the published files: known answers worked out by hand from the raw samples."""

from __future__ import annotations

from pathlib import Path

from tests.replay.conftest import codet_raw
from tfr_helpers.replay import cut_at_stops, extract_asserts, load_replay

CODET = "codet-codegen16b-humaneval"


def _texts(task_id: str, index: int) -> list[str]:
    sample = load_replay(CODET).tasks[task_id].test_samples[index]
    return [t.text for t in sample.tests]


def test_humaneval_13_keeps_the_first_five_and_drops_broken_or_nameless_pieces(replay_env: Path) -> None:
    raw = codet_raw(replay_env, "test", "HumanEval/13")
    # sample 11: seven one-line asserts; only the first five are kept (CodeT's --test_case_limit 5)
    assert raw[11] == (
        "\nassert greatest_common_divisor(15, 15) == 15\nassert greatest_common_divisor(1, 4) == 1"
        "\nassert greatest_common_divisor(2, 4) == 2\nassert greatest_common_divisor(2, 6) == 2"
        "\nassert greatest_common_divisor(3, 10) == 1\nassert greatest_common_divisor(10, 6) == 2"
        "\nassert greatest_common_divisor(6, 10) == 2\n"
    )
    expected_11 = [
        "assert greatest_common_divisor(15, 15) == 15",
        "assert greatest_common_divisor(1, 4) == 1",
        "assert greatest_common_divisor(2, 4) == 2",
        "assert greatest_common_divisor(2, 6) == 2",
        "assert greatest_common_divisor(3, 10) == 1",
    ]
    # sample 44: the continuation of the prompt's "assert " starts with a newline, so the first piece is
    # "assert \ngreatest_common_divisor(4, 6) == 2", which does not compile: dropped
    assert raw[44] == (
        "\ngreatest_common_divisor(4, 6) == 2\nassert greatest_common_divisor(15, 3) == 5"
        "\nassert greatest_common_divisor(25, 5) == 5\nassert greatest_common_divisor(25, 8) == 5\n"
    )
    expected_44 = [
        "assert greatest_common_divisor(15, 3) == 5",
        "assert greatest_common_divisor(25, 5) == 5",
        "assert greatest_common_divisor(25, 8) == 5",
    ]
    # sample 14: every piece calls "_______", none names greatest_common_divisor: no test
    assert raw[14].startswith("_______(12, 4) == 4\nassert _______(24, 8) == 8\n")
    assert "greatest_common_divisor" not in raw[14]
    for index, expected in ((11, expected_11), (44, expected_44), (14, [])):
        assert extract_asserts(raw[index], "greatest_common_divisor") == expected
        assert _texts("HumanEval/13", index) == expected


def test_humaneval_2_keeps_a_piece_that_names_the_function_only_in_its_message(replay_env: Path) -> None:
    raw = codet_raw(replay_env, "test", "HumanEval/2")
    assert raw[31] == (
        "____, 'truncate_number(7.8) is wrong'\n"
        "assert truncate_number(-7.8) == -7.8, 'truncate_number(-7.8) is wrong'\n"
        "assert truncate_number(7.8) == 0.0, 'truncate_number(7.8) is wrong'\n"
    )
    expected = [
        "assert ____, 'truncate_number(7.8) is wrong'",
        "assert truncate_number(-7.8) == -7.8, 'truncate_number(-7.8) is wrong'",
        "assert truncate_number(7.8) == 0.0, 'truncate_number(7.8) is wrong'",
    ]
    assert extract_asserts(raw[31], "truncate_number") == expected
    assert _texts("HumanEval/2", 31) == expected


def test_humaneval_38_cuts_the_last_piece_at_a_comment_line(replay_env: Path) -> None:
    raw = codet_raw(replay_env, "test", "HumanEval/38")
    head = '\nassert decode_cyclic("eceb") == "eecebecebe"\nassert decode_cyclic("gjgjgj") == "ggjggjgj"\n'
    assert raw[0].startswith(head) and set(raw[0][len(head) :]) == {"#"}
    expected = ['assert decode_cyclic("eceb") == "eecebecebe"', 'assert decode_cyclic("gjgjgj") == "ggjggjgj"']
    assert extract_asserts(raw[0], "decode_cyclic") == expected
    assert _texts("HumanEval/38", 0) == expected


def test_code_samples_are_the_prompt_plus_the_completion_cut_at_stop_strings(replay_env: Path) -> None:
    raw = codet_raw(replay_env, "code", "HumanEval/0")
    task = load_replay(CODET).tasks["HumanEval/0"]
    assert len(task.code_samples) == 100 and [c.index for c in task.code_samples] == list(range(100))
    assert raw[0] == (
        "    for i in range(len(numbers)):\n        for j in range(len(numbers)):\n"
        "            if i < j and abs(numbers[i] - numbers[j]) < threshold:\n"
        "                return True\n    return False\n\n"
    )
    assert task.code_samples[0].completion == raw[0]  # no stop string in it
    assert task.code_samples[0].program == task.prompt + raw[0] and task.code_samples[0].compiles
    assert task.prompt is not None and ">>>" not in task.prompt  # CodeT's prompt: docstring examples removed
    assert cut_at_stops("    return 1\n\ndef helper():\n    pass\n") == "    return 1\n"
    assert cut_at_stops("    return 1\nif __name__ == '__main__':\n    print(1)\n") == "    return 1"
    assert cut_at_stops("    x = 1\n# done\nprint(x)\n") == "    x = 1"
    for sample, code in zip(raw, task.code_samples, strict=True):
        cut = min((sample.find(s) for s in ("\nclass", "\ndef", "\n#", "\nif", "\nprint") if s in sample), default=-1)
        assert code.completion == (sample if cut < 0 else sample[:cut])


def test_tasks_are_joined_by_prompt_not_by_entry_point(replay_env: Path) -> None:
    dataset = load_replay(CODET)
    assert list(dataset.tasks)[:3] == ["HumanEval/0", "HumanEval/1", "HumanEval/2"] and len(dataset.tasks) == 164
    t88, t116 = dataset.tasks["HumanEval/88"], dataset.tasks["HumanEval/116"]
    assert t88.entry_point == t116.entry_point == "sort_array"
    assert t88.prompt != t116.prompt
    assert t88.code_samples[0].program.startswith(t88.prompt or "")
    assert codet_raw(replay_env, "code", "HumanEval/116")[0] == t116.code_samples[0].program[len(t116.prompt or "") :]


def test_dataset_says_it_is_real_and_names_model_and_source(replay_env: Path) -> None:
    dataset = load_replay(CODET)
    assert dataset.real is True and dataset.origin == "published" and dataset.model == "CodeGen-Mono-16B"
    assert "microsoft/CodeT@35f54d6" in dataset.source and "MIT" in dataset.license
    assert "real generations by CodeGen-Mono-16B" in dataset.note and "not simulated" in dataset.note
    samples = [s for t in dataset.tasks.values() for s in t.test_samples]
    assert len(samples) == 16400 and all(s.kind == "ebt" and len(s.tests) <= 5 for s in samples)
    assert sum(len(s.tests) for s in samples) == 9124
