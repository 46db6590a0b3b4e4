"""A run's logs once compressed: checkpoints, artifacts, calls and results read the same; appends resume them."""

from __future__ import annotations

import json
from pathlib import Path

from tests.helpers.synthetic import make_synthetic_run
from tfr_helpers.models.calllog import CallLog, read_call_log
from tfr_helpers.pipeline.engine.artifact_log import artifact_location, read_artifact
from tfr_helpers.pipeline.engine.codec import load_results
from tfr_helpers.pipeline.engine.store import RunStore, checkpoint_entries
from tfr_helpers.results_file import results_file


def _store(root: Path) -> RunStore:
    store = RunStore(root)
    store.stage = "generate_codes"
    store.artifact("m", "t", "prompt.md", "# prompt \u00e9")
    store.append_many("generated_codes", [("a", [1]), ("b", [2])])
    store.log_executions([{"job_s": 0.5, "tests": [["pass", 0.1]]}])
    CallLog(root).append("generate_codes", {"cached": True})
    return store


def test_compressed_logs_read_as_before(tmp_path: Path) -> None:
    written = _store(tmp_path).compress_logs()
    names = sorted(str(p.relative_to(tmp_path)) for p in tmp_path.rglob("*.jsonl*"))
    assert (
        names
        == sorted(str(p.relative_to(tmp_path)) for p in written)
        == [
            "artifacts/generate_codes.jsonl.gz",
            "calls/generate_codes.jsonl.gz",
            "checkpoints/generated_codes.jsonl.gz",
            "executions/generate_codes.jsonl.gz",
        ]
    )
    fresh = RunStore(tmp_path)
    assert [e["key"] for e in fresh.read_checkpoint("generated_codes")] == ["a", "b"]
    assert fresh.done_keys("generated_codes") == {"a", "b"}
    assert read_artifact(tmp_path, "m/t/prompt.md") == "# prompt \u00e9"
    assert artifact_location(tmp_path, "m/t/prompt.md") == tmp_path / "artifacts" / "generate_codes.jsonl.gz"
    assert [e["cached"] for e in read_call_log(tmp_path)] == [True]


def test_a_later_run_appends_to_compressed_logs_and_loses_nothing(tmp_path: Path) -> None:
    _store(tmp_path).compress_logs()
    again = RunStore(tmp_path)  # a rebind adding strategies, or a resume
    again.stage = "generate_codes"
    again.append_many("generated_codes", [("a", [9]), ("c", [3])])  # "a" is done: not written again
    again.artifact("m", "t", "reply.md", "reply")
    CallLog(tmp_path).append("generate_codes", {"cached": False})
    again.close()
    appended = ["artifacts/generate_codes.jsonl", "calls/generate_codes.jsonl", "checkpoints/generated_codes.jsonl"]
    assert all((tmp_path / rel).is_file() and not (tmp_path / f"{rel}.gz").exists() for rel in appended)
    assert [e["key"] for e in checkpoint_entries(again.checkpoint_path("generated_codes"))] == ["a", "b", "c"]
    assert (
        read_artifact(tmp_path, "m/t/prompt.md") == "# prompt \u00e9" and read_artifact(tmp_path, "m/t/reply.md") == "reply"
    )
    assert [e["cached"] for e in read_call_log(tmp_path)] == [True, False]
    again.compress_logs()
    assert [e["key"] for e in RunStore(tmp_path).read_checkpoint("generated_codes")] == ["a", "b", "c"]


def test_a_torn_checkpoint_line_survives_compression_and_the_next_append(tmp_path: Path) -> None:
    store = _store(tmp_path)
    store.close()
    with open(store.checkpoint_path("generated_codes"), "a") as fh:  # a writer killed mid-line
        fh.write('{"v": 1, "key": "torn", "da')
    store.compress_logs()
    assert [e["key"] for e in RunStore(tmp_path).read_checkpoint("generated_codes")] == ["a", "b"]
    resumed = RunStore(tmp_path)
    resumed.append("generated_codes", "torn", [4])  # the torn item, redone
    lines = store.checkpoint_path("generated_codes").read_text().splitlines()
    assert [json.loads(line)["key"] for line in lines if line.endswith("}")][-1] == "torn"
    assert [e["key"] for e in RunStore(tmp_path).read_checkpoint("generated_codes")] == ["a", "b", "torn"]


def test_results_are_written_compressed_and_a_former_layout_still_loads(tmp_path: Path) -> None:
    run = make_synthetic_run(tmp_path, n_tasks=4)  # a former layout's plain results.json
    results = load_results(run)
    assert results_file(run) == run / "results.json"
    RunStore(run).write_results(results)
    assert results_file(run) == run / "results.json.gz" and not (run / "results.json").exists()
    assert load_results(run).model_dump() == results.model_dump()
