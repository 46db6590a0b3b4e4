"""The run store: checkpoints survive torn lines, config hashes guard the run directory."""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.helpers.synthetic import make_synthetic_run
from tfr_helpers.errors import RunDirError
from tfr_helpers.pipeline.engine.artifact_log import read_artifact
from tfr_helpers.pipeline.engine.codec import encode_results, load_results
from tfr_helpers.pipeline.engine.store import RunStore, checkpoint_entries


def test_append_then_read_back_once_per_key(tmp_path: Path) -> None:
    store = RunStore(tmp_path)
    store.append("c", "a", [1])
    store.append("c", "a", [2])
    store.append("c", "b", [3])
    assert [(e["key"], e["data"]) for e in RunStore(tmp_path).read_checkpoint("c")] == [
        ("a", [1]),
        ("b", [3]),
    ]


def test_torn_last_line_is_ignored_and_next_append_starts_a_new_line(tmp_path: Path) -> None:
    store = RunStore(tmp_path)
    store.append("c", "a", [1])
    with open(store.checkpoint_path("c"), "a") as fh:
        fh.write('{"v": 1, "key": "b", "da')
    fresh = RunStore(tmp_path)
    assert fresh.done_keys("c") == {"a"}
    fresh.append("c", "b", [2])
    assert [e["key"] for e in RunStore(tmp_path).read_checkpoint("c")] == ["a", "b"]


def test_a_live_or_torn_checkpoint_reads_its_complete_lines_in_order(tmp_path: Path) -> None:
    store = RunStore(tmp_path)
    path = store.checkpoint_path("c")
    assert checkpoint_entries(path) == []
    store.append("c", "a", [1])
    with open(path, "a") as fh:
        fh.write('{"v": 1, "key": "b", "da')  # a line being written, or torn by a kill
    assert [e["key"] for e in checkpoint_entries(path)] == ["a"]
    RunStore(tmp_path).append("c", "b", [2])  # a rerun: the torn line stays, in the middle
    with open(path, "a") as fh:
        fh.write('{"v": 1, "key": "a", "data": [9]}\n')  # a key written twice is listed twice
    assert [e["key"] for e in checkpoint_entries(path)] == ["a", "b", "a"]


def test_other_config_in_same_run_dir_is_refused(tmp_path: Path) -> None:
    RunStore(tmp_path).bind_config({"seed": 0}, "hash-a")
    RunStore(tmp_path).bind_config({"seed": 0}, "hash-a")
    with pytest.raises(RunDirError, match="new --run-dir"):
        RunStore(tmp_path).bind_config({"seed": 1}, "hash-b")


def test_artifacts_are_named_under_model_and_task_dirs(tmp_path: Path) -> None:
    store = RunStore(tmp_path)
    rel = store.artifact("sim:default", "HumanEval/3", "tests/ebt_0.py", "x = 1\n")
    store.close()
    assert rel == "sim_default/HumanEval_3/tests/ebt_0.py"
    assert read_artifact(tmp_path, rel) == "x = 1\n"  # a line of artifacts/run.jsonl (outside a stage)
    assert not list(tmp_path.rglob("*.tmp"))


def test_missing_results_says_what_to_run(tmp_path: Path) -> None:
    with pytest.raises(RunDirError, match="tfr stage all"):
        load_results(tmp_path)


def test_the_same_results_object_comes_back_until_results_json_changes(tmp_path: Path) -> None:
    run = make_synthetic_run(tmp_path, n_tasks=4)
    first = load_results(run)
    assert load_results(run) is first
    fewer = first.model_copy(update={"screening": first.screening[:1]})
    (run / "results.json").write_text(encode_results(fewer))  # another size: read again
    again = load_results(run)
    assert again is not first and len(again.screening) == 1
