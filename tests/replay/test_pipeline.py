"""Replayed generations through the whole pipeline: a hand-worked known answer, several samples per task,
identical programs and tests run once, skipped tasks and roles reported, bad files refused before any stage."""

from __future__ import annotations

import json
import shutil
from collections import Counter
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest

from tfr_helpers.analysis import analyze, load_results
from tfr_helpers.errors import ConfigError, DataError
from tfr_helpers.pipeline import RunSummary, run_stages
from tfr_helpers.pipeline.config.experiment import config_from_dict
from tfr_helpers.results_file import read_results_bytes

FIXTURE = Path(__file__).parent / "data" / "import3"
SPEC = f"replay:{FIXTURE}"
TASKS = ["HumanEval/0", "HumanEval/1", "HumanEval/2", "HumanEval/4"]


def params(**changes: Any) -> dict[str, Any]:
    base: dict[str, Any] = {
        "run_name": "import3",
        "benchmarks": ["humaneval"],
        "tasks": {"humaneval": TASKS},
        "models": {"coders": [{"model": SPEC, "code_samples": 2, "test_samples": 2}]},
        "ebts_per_task": 3,
        "pbts_per_task": 1,
        "screening": ["accept_all", "reject_test_code_errors", "llm_judge"],
    }
    return base | changes


@pytest.fixture
def private_cache(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    monkeypatch.setenv("TFR_CACHE_DIR", str(tmp_path / "cache"))
    return tmp_path / "cache"


@dataclass(frozen=True)
class Import3Run:
    """The study of :func:`params` as it is, run once for the tests that read it."""

    run_dir: Path
    summary: RunSummary


@pytest.fixture(scope="module")
def import3_run(tmp_path_factory: pytest.TempPathFactory) -> Import3Run:
    """Every stage of :func:`params` into its own run directory, with its own empty cache."""
    root = tmp_path_factory.mktemp("import3")
    with pytest.MonkeyPatch.context() as mp:
        mp.setenv("TFR_CACHE_DIR", str(root / "cache"))
        summary = run_stages(config_from_dict(params()), root / "run", progress=False)
    return Import3Run(root / "run", summary)


@pytest.mark.slow  # a whole study
def test_the_hand_worked_fixture_gives_exactly_the_expected_four_cases(import3_run: Import3Run) -> None:
    # Worked out by hand from tests/replay/data/import3 (code.jsonl x tests.jsonl, reference = HumanEval's):
    # HumanEval/0, code 0 (correct) x 2 asserts: pass/pass, pass/pass
    #              code 1 (`return False`): assert ...== False passes (pass/pass); ...== True fails (fail/pass)
    # HumanEval/1: not in the dataset -> skipped and reported
    # HumanEval/2, code 0 (number % 1.0): truncate(3.5)==0.5 pass/pass; truncate(1.25)==0.5 is wrong (0.25):
    #              the code and the reference both fail it -> fail/fail, wrong expected value
    # HumanEval/4, code 0 (correct) x (ebt block, pbt): pass/pass, pass/pass
    #              code 1 (`return sum(numbers` does not compile: code that fails to load): fail/pass twice
    summary = import3_run.summary
    assert summary.cases == {"pass_pass": 6, "fail_pass": 3, "fail_fail": 1}
    assert summary.causes == {"wrong_expected_value": 1}
    results = load_results(import3_run.run_dir)
    by_task = Counter((p.task_id, p.code_index, p.case) for p in results.pair_evaluations)
    assert by_task == {
        ("HumanEval/0", 0, "pass_pass"): 2,
        ("HumanEval/0", 1, "pass_pass"): 1,
        ("HumanEval/0", 1, "fail_pass"): 1,
        ("HumanEval/2", 0, "pass_pass"): 1,
        ("HumanEval/2", 0, "fail_fail"): 1,
        ("HumanEval/4", 0, "pass_pass"): 2,
        ("HumanEval/4", 1, "fail_pass"): 2,
    }
    [broken] = [c for c in results.generated_codes if c.task_id == "HumanEval/4" and c.sample_index == 1]
    assert broken.code == "from typing import List\n\n\n" + broken.code.split("\n\n\n", 1)[1]  # kept as published
    loaded = [p for p in results.pair_evaluations if p.task_id == "HumanEval/4" and p.code_index == 1]
    assert {p.generated.status for p in loaded} == {"not_run"}
    # pair ids: the test id for code sample 0, "@c1" for code sample 1 (feedback ids alike)
    fb = [p.feedback.feedback_id for p in results.pair_evaluations if p.feedback is not None]
    assert sorted(fb) == sorted(
        [
            f"{SPEC}|HumanEval/0|ebt|1@c1",
            f"{SPEC}|HumanEval/2|ebt|1",
            f"{SPEC}|HumanEval/4|ebt|0@c1",
            f"{SPEC}|HumanEval/4|pbt|0@c1",
        ]
    )


@pytest.mark.slow  # a whole study
def test_missing_tasks_samples_and_roles_are_reported_never_filled(import3_run: Import3Run, tmp_path: Path) -> None:
    shutil.copytree(import3_run.run_dir, tmp_path / "run")  # the analysis below writes into the run: a copy of it
    results = load_results(tmp_path / "run")
    reasons = {(s.task_id, s.stage, s.reason) for s in results.skipped}
    assert (None, "refine_codes", "not run: no refiner") in reasons
    assert (None, "screen_feedback", "not run: no judge") in reasons
    assert any(t == "HumanEval/1" and "task not in replay dataset import3" in r for t, _, r in reasons)
    assert ("HumanEval/2", "generate_codes", "1 of 2 code samples: the dataset holds 1") in reasons
    assert not results.refinements and not results.refined_evaluations
    assert {d.strategy for d in results.screening} == {"accept_all", "reject_test_code_errors"}  # no judge asked
    assert {c.call.model for c in results.generated_codes} == {SPEC}  # nothing simulated stands in
    [source] = results.model_sources
    assert (source.source, source.label, source.producer) == ("replayed", "replayed (imported)", "hand-written fixture")
    assert not results.simulated
    analyze(tmp_path / "run")
    rq2 = (tmp_path / "run" / "analysis" / "rq2_refinement_outcomes.tex").read_text()
    assert "not run: no refiner" in rq2 and "hand-written fixture (import3)" in rq2  # the model by its display name
    rq1 = (tmp_path / "run" / "analysis" / "rq1_four_cases.tex").read_text()
    assert "Replayed rows are real generations" in rq1 and "Unique runs" in rq1 and "Simulated" not in rq1
    # the replayed coder's two code samples per task: every interval is clustered, and says how
    assert "accept\\_all" in (tmp_path / "run" / "analysis" / "rq3_pairwise.tex").read_text()
    summary = json.loads((tmp_path / "run" / "analysis" / "summary.json").read_text())
    assert summary["intervals"]["resamples"] == 2000
    [by] = summary["tables"]["rq1_by_benchmark"]["rows"]
    assert (by["method"], by["clusters"]) == (
        "task>code bootstrap",
        len({p.task_id for p in results.pair_evaluations if p.feedback}),
    )
    assert all(r["method"] for r in summary["tables"]["rq3_pairwise"]["rows"])


@pytest.mark.slow  # a whole study
def test_a_named_refiner_refines_replayed_code(private_cache: Path, tmp_path: Path) -> None:
    coder = {"model": SPEC, "refiner": "sim:default", "judge": "sim:default"}
    run_stages(config_from_dict(params(models={"coders": [coder]})), tmp_path / "run", progress=False)
    results = load_results(tmp_path / "run")
    assert results.refinements and {r.call.model for r in results.refinements} == {"sim:default"}
    assert {d.strategy for d in results.screening} >= {"llm_judge"}
    assert not [s for s in results.skipped if s.task_id is None and s.stage in ("refine_codes", "screen_feedback")]


@pytest.mark.slow  # a whole study
def test_identical_programs_and_tests_run_once_and_count_with_multiplicity(private_cache: Path, tmp_path: Path) -> None:
    data = tmp_path / "dup"
    data.mkdir()
    line = {"task_id": "HumanEval/2", "completion": "    return number % 1.0\n"}
    wrong = {"task_id": "HumanEval/2", "completion": "    return 0.5\n"}
    (data / "code.jsonl").write_text("\n".join(json.dumps(x) for x in (line, line, wrong, line)) + "\n")
    test = {"task_id": "HumanEval/2", "test": "assert truncate_number(3.5) == 0.5\nassert truncate_number(2.25) == 0.25\n"}
    (data / "tests.jsonl").write_text("\n".join(json.dumps(test) for _ in range(3)) + "\n")
    coder = {"model": f"replay:{data}", "code_samples": 4, "test_samples": 3}
    config = params(tasks={"humaneval": ["HumanEval/2"]}, models={"coders": [coder]}, pbts_per_task=0)
    summary = run_stages(config_from_dict(config), tmp_path / "run", progress=False)
    # 4 code samples x 6 tests (3 samples x 2 asserts) = 24 pairs; the correct program (3 copies) passes all 6,
    # `return 0.5` passes the first assert and fails the second (3 copies of each test)
    assert summary.cases == {"pass_pass": 3 * 6 + 3, "fail_pass": 3}
    # one run per distinct program (2: benchmark and generated tests together) + the reference on the generated
    # tests + the reference on its own benchmark tests (the oracle's check); no rerun
    assert summary.sandbox_runs == 2 + 1 + 1
    results = load_results(tmp_path / "run")
    assert [v.passed for v in results.benchmark_verdicts] == [True, True, False, True]
    assert {len(v.run.outcomes) for v in results.benchmark_verdicts} == {1}  # HumanEval's check, split back out
    analyze(tmp_path / "run")
    rows = json.loads((tmp_path / "run" / "analysis" / "summary.json").read_text())["tables"]["rq1_four_cases"]["rows"]
    assert {(r["n"], r["unique"]) for r in rows} == {(24, 4)}  # 2 programs x 2 distinct asserts
    # results.json stores each repeated outcome once and reads back to the same records
    raw = json.loads(read_results_bytes(tmp_path / "run" / "results.json.gz"))
    assert all(set(p["reference"]) == {"$shared"} for p in raw["pair_evaluations"])
    outcomes = {json.dumps(v, sort_keys=True) for v in raw["shared_values"]}
    assert len(raw["shared_values"]) == len(outcomes) < 24
    results = load_results(tmp_path / "run")
    assert [p.generated.status for p in results.pair_evaluations].count("failed") == 3


def test_a_bad_import_line_is_refused_before_any_stage_runs(private_cache: Path, tmp_path: Path) -> None:
    bad = tmp_path / "bad"
    shutil.copytree(FIXTURE, bad)
    with (bad / "tests.jsonl").open("a") as out:
        out.write('{"task_id": "HumanEval/0", "test": 3}\n')
    config = config_from_dict(params(models={"coders": [f"replay:{bad}"]}))
    with pytest.raises(DataError, match=r"tests.jsonl:5: .*string"):
        run_stages(config, tmp_path / "run", progress=False)
    assert not (tmp_path / "run").exists()


def test_the_dataset_files_are_part_of_the_run_fingerprint(tmp_path: Path) -> None:
    copy = tmp_path / "gen"
    shutil.copytree(FIXTURE, copy)
    before = config_from_dict(params(models={"coders": [f"replay:{copy}"]})).fingerprint()
    with (copy / "code.jsonl").open("a") as out:
        out.write('{"task_id": "HumanEval/2", "completion": "    return 0.0\\n"}\n')
    after = config_from_dict(params(models={"coders": [f"replay:{copy}"]})).fingerprint()
    changed = [k for k in after if before.get(k) != after[k]]
    assert changed == [f"replay:{copy}:code.jsonl"]


@pytest.mark.slow  # a whole study
def test_a_params_entry_naming_the_two_files_is_a_dataset(private_cache: Path, tmp_path: Path) -> None:
    entry = {"code": str(FIXTURE / "code.jsonl"), "tests": str(FIXTURE / "tests.jsonl"), "model": "my-model"}
    config = config_from_dict(
        params(replay_datasets={"mine": entry}, models={"coders": [{"model": "replay:mine", "code_samples": 2}]})
    )
    assert {"replay:mine:code", "replay:mine:tests", "replay:mine:records"} <= set(config.fingerprint())
    summary = run_stages(config, tmp_path / "run", progress=False)
    assert summary.cases == {"pass_pass": 6, "fail_pass": 3, "fail_fail": 1}  # the import3 answer, as a named entry
    [source] = load_results(tmp_path / "run").model_sources
    assert (source.dataset, source.producer, source.label) == ("mine", "my-model", "replayed (imported)")


def test_a_named_import_with_a_missing_file_names_the_key(tmp_path: Path) -> None:
    with pytest.raises(ConfigError, match=r"replay_datasets\.mine\.tests: .*nope\.jsonl does not exist"):
        config_from_dict(params(replay_datasets={"mine": {"tests": str(tmp_path / "nope.jsonl")}}))
