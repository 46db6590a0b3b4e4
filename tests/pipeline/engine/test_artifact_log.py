"""Artifacts go to one append-only log per stage; they read back by path, a torn line costs nothing else."""

from __future__ import annotations

import json
from pathlib import Path

import pandas as pd
import pytest

from tests.helpers.synthetic import make_synthetic_run
from tfr_helpers.pipeline.engine.artifact_log import artifact_location, read_artifact
from tfr_helpers.pipeline.engine.codec import load_results
from tfr_helpers.pipeline.engine.store import RunStore
from tfr_helpers.pipeline.engine.tables import TABLES, write_tables


def test_artifacts_are_lines_of_the_stage_log_not_files(tmp_path: Path) -> None:
    store = RunStore(tmp_path)
    store.stage = "generate_codes"
    rel = store.artifact("sim:default", "HumanEval/0", "prompt_codegen.md", "# prompt\n\u00e9")
    store.stage = "evaluate_code_test_pairs"
    other = store.artifact("sim:default", "HumanEval/0", "executions/ebt_0.json", '{"case": "pass_pass"}')
    store.close()
    assert rel == "sim_default/HumanEval_0/prompt_codegen.md" and not (tmp_path / rel).exists()
    assert sorted(p.name for p in (tmp_path / "artifacts").iterdir()) == [
        "evaluate_code_test_pairs.jsonl",
        "generate_codes.jsonl",
    ]
    assert read_artifact(tmp_path, rel) == "# prompt\n\u00e9"
    assert json.loads(read_artifact(tmp_path, other) or "") == {"case": "pass_pass"}
    assert artifact_location(tmp_path, rel) == tmp_path / "artifacts" / "generate_codes.jsonl"
    assert read_artifact(tmp_path, "sim_default/HumanEval_0/nothing.md") is None


def test_a_rerun_stage_appends_again_and_the_last_line_wins(tmp_path: Path) -> None:
    store = RunStore(tmp_path)
    store.stage = "generate_codes"
    store.artifact("m", "t", "code.py", "old")
    store.close()
    log = tmp_path / "artifacts" / "generate_codes.jsonl"
    with open(log, "a", encoding="utf-8") as fh:  # a writer killed mid-line
        fh.write('{"path": "m/t/torn.md", "text": "unfini')
    assert read_artifact(tmp_path, "m/t/code.py") == "old" and read_artifact(tmp_path, "m/t/torn.md") is None
    again = RunStore(tmp_path)
    again.stage = "generate_codes"
    again.artifact("m", "t", "code.py", "new")
    again.close()
    assert read_artifact(tmp_path, "m/t/code.py") == "new"
    assert [json.loads(line)["text"] for line in log.read_text().splitlines()[-1:]] == ["new"]


def test_a_checkpoint_append_syncs_the_artifacts_first(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    store = RunStore(tmp_path)
    store.stage = "s"
    synced: list[bool] = []
    monkeypatch.setattr(store.artifacts, "sync", lambda: synced.append(True))
    store.artifact("m", "t", "a.md", "x")
    assert not synced  # no fsync per artifact
    store.append("c", "k", [1])
    assert synced == [True] and [e["key"] for e in store.read_checkpoint("c")] == ["k"]


def test_a_file_of_the_former_layout_is_read_as_before(tmp_path: Path) -> None:
    (tmp_path / "m" / "t").mkdir(parents=True)
    (tmp_path / "m" / "t" / "code.py").write_text("x = 1\n")
    assert read_artifact(tmp_path, "m/t/code.py") == "x = 1\n"
    assert artifact_location(tmp_path, "m/t/code.py") == tmp_path / "m" / "t" / "code.py"


def test_record_tables_load_in_one_call_with_a_row_per_record(tmp_path: Path) -> None:
    run = make_synthetic_run(tmp_path, n_tasks=4)
    results = load_results(run)
    (run / "pairs.jsonl").write_text("{}\n")  # a table of the former layout: replaced
    assert sorted(write_tables(run, results)) == sorted(f"{name}.jsonl.gz" for name in TABLES)
    assert not (run / "pairs.jsonl").exists()
    pairs = pd.read_json(run / "pairs.jsonl.gz", lines=True)
    assert len(pairs) == len(results.pair_evaluations)
    assert {"case", "generated_status", "reference_status", "reference_message"} <= set(pairs.columns)
    assert not any(c.startswith("isolation") for c in pairs.columns)
    refinements = pd.read_json(run / "refinements.jsonl.gz", lines=True)
    assert len(refinements) == len(results.refinements) and "after_transition" in refinements.columns
    screening = pd.read_json(run / "screening.jsonl.gz", lines=True)
    assert list(screening["decision"]) == [s.decision for s in results.screening]
