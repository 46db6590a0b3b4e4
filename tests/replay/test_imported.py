"""The import format: a hand-written 3-task fixture with known records, and every kind of bad input."""

from __future__ import annotations

import json
import re
import shutil
from pathlib import Path

import pytest

from tfr_helpers.benchmarks import get_task
from tfr_helpers.errors import DataError
from tfr_helpers.replay import load_import_dir, load_imported, load_replay

FIXTURE = Path(__file__).parent / "data" / "import3"


def test_fixture_gives_the_records_written_by_hand() -> None:
    dataset = load_replay(str(FIXTURE))
    assert dataset.name == "import3" and dataset.model == "hand-written fixture" and dataset.license == "MIT"
    assert dataset.origin == "imported" and dataset.real and dataset.benchmark == "humaneval"
    assert "real generations by hand-written fixture, imported from" in dataset.note
    assert list(dataset.tasks) == ["HumanEval/0", "HumanEval/2", "HumanEval/4"]
    t0, t2, t4 = dataset.tasks.values()

    # code: completions joined to the HumanEval prompt, a solution kept whole, broken code kept
    prompt0 = get_task("HumanEval/0").description
    assert [c.index for c in t0.code_samples] == [0, 1]
    assert t0.code_samples[1].program == prompt0 + "    return False\n" and t0.code_samples[1].compiles
    assert t2.code_samples[0].program == "def truncate_number(number: float) -> float:\n    return number % 1.0\n"
    assert t2.code_samples[0].completion is None
    assert t4.code_samples[1].completion == "    return sum(numbers\n" and not t4.code_samples[1].compiles

    # tests: one unit per assert; a block with other statements is one unit; pytest functions as written
    [s0] = t0.test_samples
    assert (s0.kind, [t.name for t in s0.tests]) == ("ebt", ["test_assert_0", "test_assert_1"])
    assert s0.tests[1].source == "def test_assert_1():\n    assert has_close_elements([1.0, 2.8, 3.0], 0.3) == True\n"
    assert [t.source for t in t2.test_samples[0].tests] == [
        "def test_assert_0():\n    assert truncate_number(3.5) == 0.5\n",
        "def test_assert_1():\n    assert truncate_number(1.25) == 0.5\n",
    ]
    [pbt] = t4.samples_of_kind("pbt")
    [ebt] = t4.samples_of_kind("ebt")
    assert (pbt.index, ebt.index) == (0, 0)
    assert [(t.name, t.source) for t in pbt.tests] == [
        (
            "test_mad_is_non_negative",
            "from hypothesis import given, strategies as st\n"
            "@given(st.lists(st.floats(-100, 100), min_size=1))\n"
            "def test_mad_is_non_negative(xs):\n    assert mean_absolute_deviation(xs) >= 0\n",
        )
    ]
    assert [(t.name, t.source) for t in ebt.tests] == [
        (
            "test_block",
            "import math\ndef test_block():\n    xs = [1.0, 2.0, 3.0, 4.0]\n"
            "    assert math.isclose(mean_absolute_deviation(xs), 1.0)\n",
        )
    ]


def test_without_meta_the_model_is_unspecified(tmp_path: Path) -> None:
    (tmp_path / "tests.jsonl").write_text(json.dumps({"task_id": "HumanEval/1", "test": "assert True"}) + "\n")
    dataset = load_import_dir(tmp_path)
    assert dataset.model == "unspecified" and dataset.license == "unknown" and dataset.name == tmp_path.name
    assert list(dataset.tasks) == ["HumanEval/1"] and dataset.tasks["HumanEval/1"].code_samples == []


def _code_error(tmp_path: Path, *lines: str) -> str:
    path = tmp_path / "code.jsonl"
    path.write_text("".join(line + "\n" for line in lines))
    with pytest.raises(DataError) as info:
        load_imported(path, None, name="x", model="m")
    return str(info.value)


GOOD = json.dumps({"task_id": "HumanEval/0", "completion": "    return True\n"})


@pytest.mark.parametrize(
    ("bad", "message"),
    [
        ('{"task_id": "HumanEval/0", "completion": ', r":2: not valid JSON .*each line must be"),
        ('["HumanEval/0", "x"]', r":2: a JSON list, not an object"),
        ('{"completion": "x"}', r":2: missing field 'task_id'"),
        ('{"task_id": "HumanEval/0"}', r":2: missing field 'completion' or 'solution'; give exactly one"),
        ('{"task_id": "HumanEval/0", "completion": "a", "solution": "b"}', r":2: both 'completion' and 'solution'"),
        ('{"task_id": "HumanEval/0", "completion": ["x"]}', r":2: field 'completion' is a list, not a string"),
        ('{"task_id": 7, "completion": "x"}', r":2: field 'task_id' is a int, not a string"),
        ('{"task_id": "HumanEval/999", "completion": "x"}', r":2: unknown task id 'HumanEval/999': humaneval has no"),
        ('{"task_id": "Foo/1", "completion": "x"}', r":2: unknown task id 'Foo/1' \(no benchmark prefix\)"),
        ('{"task_id": "MBPP/2", "solution": "x"}', r":2: task 'MBPP/2' is from mbpp, but .*:1 is from humaneval"),
    ],
)
def test_bad_code_line_names_file_line_and_fix(tmp_path: Path, bad: str, message: str):
    error = _code_error(tmp_path, GOOD, bad)
    assert str(tmp_path / "code.jsonl") in error
    assert re.search(message, error), error


def test_completion_is_only_for_humaneval(tmp_path: Path) -> None:
    error = _code_error(tmp_path, json.dumps({"task_id": "MBPP/2", "completion": "x"}))
    assert ":1: 'completion' is joined to a code prompt" in error and "as 'solution'" in error


@pytest.mark.parametrize(
    ("bad", "message"),
    [
        ('{"task_id": "HumanEval/0"}', r":1: missing field 'test'"),
        ('{"task_id": "HumanEval/0", "test": 3}', r":1: field 'test' is a int, not a string"),
        ('{"task_id": "HumanEval/0", "test": "assert 1", "kind": "fuzz"}', r":1: kind 'fuzz' is not 'ebt' or 'pbt'"),
        ('{"task_id": "HumanEval/1000", "test": "assert 1"}', r":1: unknown task id 'HumanEval/1000'"),
    ],
)
def test_bad_tests_line_names_file_line_and_fix(tmp_path: Path, bad: str, message: str):
    path = tmp_path / "tests.jsonl"
    path.write_text(bad + "\n")
    with pytest.raises(DataError, match=message) as info:
        load_imported(None, path, name="x", model="m")
    error = str(info.value)
    assert error.startswith(f"{path}:1: ") and ("each line must be" in error or "use the" in error)


def test_a_test_block_that_does_not_parse_is_a_sample_without_tests(tmp_path: Path) -> None:
    path = tmp_path / "tests.jsonl"
    path.write_text(json.dumps({"task_id": "HumanEval/0", "test": "assert has_close_elements([1.0], 0.5 == False"}))
    [sample] = load_imported(None, path, name="x", model="m").tasks["HumanEval/0"].test_samples
    assert sample.tests == [] and sample.module == "" and sample.note and "does not parse (line 1" in sample.note


def test_empty_or_missing_files_are_errors(tmp_path: Path) -> None:
    with pytest.raises(DataError, match="holds neither code.jsonl nor tests.jsonl"):
        load_import_dir(tmp_path)
    (tmp_path / "code.jsonl").write_text("\n")
    with pytest.raises(DataError, match="holds no line"):
        load_import_dir(tmp_path)
    (tmp_path / "meta.json").write_text('{"model": "m", "temperature": 0.2}')
    with pytest.raises(DataError, match="meta.json must be a JSON object with string fields among model"):
        load_import_dir(tmp_path)


def test_hashes_name_every_input_file(tmp_path: Path) -> None:
    from tfr_helpers.replay import replay_hashes

    shutil.copytree(FIXTURE, tmp_path / "gen")
    before = replay_hashes(str(tmp_path / "gen"))
    assert sorted(before) == sorted(
        f"replay:{tmp_path / 'gen'}:{f}" for f in ("code.jsonl", "tests.jsonl", "meta.json", "records")
    )
    with (tmp_path / "gen" / "tests.jsonl").open("a") as fh:
        fh.write(json.dumps({"task_id": "HumanEval/0", "test": "assert True"}) + "\n")
    after = replay_hashes(str(tmp_path / "gen"))
    assert [k for k in before if before[k] != after[k]] == [f"replay:{tmp_path / 'gen'}:tests.jsonl"]
    pinned = replay_hashes("reflexion-gpt4-humaneval")
    assert pinned["replay:reflexion-gpt4-humaneval:reflexion_humaneval_py_pass_at_1.jsonl"] == "548e1a6650265901"
