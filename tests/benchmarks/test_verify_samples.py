"""Reference verification and samples evaluation as library functions (the CLI only prints them)."""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path

import pytest

from tfr_helpers.benchmarks import load_tasks
from tfr_helpers.benchmarks.samples import evaluate_samples, native_id, read_samples, sample_program
from tfr_helpers.benchmarks.verify import reference_failures, verify_references
from tfr_helpers.errors import ConfigError, DataError
from tfr_helpers.sandbox import Limits, Sandbox


@pytest.fixture(scope="module")
def sandbox(shared_benchmarks: Path) -> Iterator[Sandbox]:
    with Sandbox(Limits(timeout_s=10), workers=1) as box:
        yield box


def test_reference_failures_name_the_broken_reference_once(sandbox: Sandbox) -> None:
    good, bad = load_tasks("humaneval")[:2]
    bad = bad.model_copy(update={"reference": bad.reference + "\n\ndef " + bad.entry_point + "(*a, **k):\n    return 42\n"})
    failures = reference_failures([good, bad], sandbox, runs=2)
    assert list(failures) == [bad.task_id]
    assert failures[bad.task_id].run == 1 and failures[bad.task_id].problem.startswith("check: failed")
    with pytest.raises(ConfigError, match="--runs must be at least 1"):
        reference_failures([good], sandbox, runs=0)


def test_verify_references_checks_every_name_before_any_work(sandbox: Sandbox) -> None:
    with pytest.raises(DataError, match="unknown benchmark 'humaneva'"):
        verify_references(["humaneval", "humaneva"], sandbox)


def test_native_ids_follow_the_registry_prefixes() -> None:
    assert native_id("Mbpp/2") == "MBPP/2"
    assert native_id("humaneval/0") == "HumanEval/0"
    assert native_id("Other/1") == "Other/1"


def test_evaluate_samples_writes_results_and_pass_at_k(sandbox: Sandbox, tmp_path: Path) -> None:
    tasks = load_tasks("humaneval", selected=False)[:2]
    body = {t.task_id: t.reference.removeprefix(t.description) for t in tasks}
    rows = [{"task_id": t.task_id, "completion": body[t.task_id]} for t in tasks]
    rows += [{"task_id": t.task_id.replace("HumanEval", "humaneval"), "completion": "    return None\n"} for t in tasks]
    path = tmp_path / "s.jsonl"
    path.write_text("".join(json.dumps(r) + "\n" for r in rows))
    assert sample_program(tasks[0], rows[0]) == tasks[0].reference
    found = evaluate_samples("humaneval", path, sandbox)
    assert (found.samples, found.tasks) == (4, 2)
    assert found.pass_at_k == {1: pytest.approx(0.5)}
    written = [json.loads(line) for line in found.results_path.read_text().splitlines()]
    assert found.results_path.name == "s_results.jsonl"
    assert [r["passed"] for r in written] == [True, True, False, False]
    assert written[2]["task_id"] == tasks[0].task_id and written[2]["result"].startswith("check: failed")


def test_bad_samples_are_named_errors(shared_benchmarks: Path, tmp_path: Path) -> None:
    tasks = {t.task_id: t for t in load_tasks("humaneval", selected=False)[:1]}
    path = tmp_path / "bad.jsonl"
    path.write_text('{"task_id": "HumanEval/0"}\n')
    with pytest.raises(DataError, match=":1: needs a `completion` or a `solution`"):
        read_samples(path, tasks)
    path.write_text('{"task_id": "HumanEval/999", "completion": ""}\n')
    with pytest.raises(DataError, match="unknown task_id 'HumanEval/999'"):
        read_samples(path, tasks)
    with pytest.raises(ConfigError, match="cannot read the samples file"):
        read_samples(tmp_path / "missing.jsonl", tasks)
