"""EvalPlus's tiers in the study and its sensitivity to test strength, end to end on a small offline study
(simulated model) with ``plus_tiers: mini`` and the EvalPlus time-limit policy."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from tests.helpers.smoke import run_params_study
from tfr_helpers.analysis.sensitivity import evalplus_strength as evalplus_sensitivity
from tfr_helpers.analysis.writing.export import analyze_run
from tfr_helpers.pipeline.engine.codec import load_results
from tfr_helpers.records import LeftOutInput, Results
from tfr_helpers.records import TestOutcome as Outcome

PARAMS: dict[str, Any] = {
    "run_name": "strength",
    "benchmarks": ["humaneval"],
    "tasks": {"humaneval": 3},
    "models": {"coders": ["sim:default"]},
    "ebts_per_task": 2,
    "pbts_per_task": 0,
    "screening": [],
    "plus_tiers": "mini",
    "concurrency": {"sandbox_workers": 2},
    "sandbox": {"time_limit": {"policy": "evalplus"}},
}


@pytest.fixture(scope="module")
def study(tmp_path_factory: pytest.TempPathFactory, shared_benchmarks: Path) -> tuple[Path, Results]:
    run = run_params_study(tmp_path_factory.mktemp("strength"), PARAMS, shared_benchmarks)
    with pytest.MonkeyPatch.context() as mp:
        mp.setenv("TFR_BENCHMARK_DIR", str(shared_benchmarks))
        mp.setenv("TFR_CACHE_DIR", str(run.parent / "cache"))
        analyze_run(run)
    return run, load_results(run)


@pytest.mark.slow
def test_every_generated_and_refined_verdict_carries_the_twins_tiers(study: tuple[Path, Results]) -> None:
    _, results = study
    generated = [v for v in results.benchmark_verdicts if v.subject == "generated"]
    assert generated and all(v.tiers is not None and v.tiers.benchmark == "humaneval_plus_mini" for v in generated)
    refined = [r for r in results.refined_evaluations if r.benchmark_after is not None]
    assert refined and all(r.tiers_after is not None for r in refined)
    for v in generated:  # a program that passes the plus tier passes the base tier
        assert v.tiers is not None and (v.tiers.base or not v.tiers.plus)


def test_every_pair_ran_on_the_corrected_reference(study: tuple[Path, Results]) -> None:
    _, results = study
    assert results.pair_evaluations and all(p.reference_corrected is not None for p in results.pair_evaluations)


def test_results_and_captions_name_the_time_limit_policy(study: tuple[Path, Results]) -> None:
    run, results = study
    assert results.time_limit == "time limit: max(1 s, 4 x the reference's own time) per test"
    tex = (run / "analysis" / "rq1_four_cases.tex").read_text()
    assert "Time limit: max(1 s, 4 x the reference" in tex


def test_the_sensitivity_table_and_summary_section(study: tuple[Path, Results]) -> None:
    run, results = study
    assert (run / "analysis" / f"{evalplus_sensitivity.TABLE}.tex").is_file()
    section = json.loads((run / "analysis" / "summary.json").read_text())[evalplus_sensitivity.TABLE]
    measures = {r["measure"] for r in section["rows"]}
    assert {"rq1_case_changed", "base_pass_plus_fail"} <= measures
    assert all(r["source"] == "simulated" for r in section["rows"])


def test_a_pair_the_corrected_reference_judges_otherwise_counts_as_a_change(study: tuple[Path, Results]) -> None:
    _, results = study
    before = {r["measure"]: r for r in evalplus_sensitivity.strength_rows(results)}["rq1_case_changed"]
    pair = results.pair_evaluations[0]
    assert pair.reference_corrected is not None
    flipped = "failed" if pair.reference_corrected.status == "passed" else "passed"
    changed = pair.model_copy(update={"reference_corrected": Outcome(name="t", status=flipped)})
    edited = results.model_copy(update={"pair_evaluations": [changed, *results.pair_evaluations[1:]]})
    after = {r["measure"]: r for r in evalplus_sensitivity.strength_rows(edited)}["rq1_case_changed"]
    assert after["n"] == before["n"]
    assert abs(after["k"] - before["k"]) == 1
    assert after["tasks"] or before["tasks"]


def test_plus_inputs_left_out_are_named_in_the_caption_and_the_summary(study: tuple[Path, Results]) -> None:
    _, results = study
    assert evalplus_sensitivity.left_out_inputs(results) == []
    verdict = next(v for v in results.benchmark_verdicts if v.tiers is not None)
    assert verdict.tiers is not None
    gap = LeftOutInput(task_id="HumanEval+Mini/0", index=3, reason="error: MemoryError()")
    tiers = verdict.tiers.model_copy(update={"left_out": [gap]})
    edited = results.model_copy(
        update={"benchmark_verdicts": [verdict.model_copy(update={"tiers": tiers}), *results.benchmark_verdicts[1:]]}
    )
    expected = {"benchmark": tiers.benchmark, "task_id": "HumanEval+Mini/0", "index": 3, "reason": "error: MemoryError()"}
    assert evalplus_sensitivity.left_out_inputs(edited) == [expected]
    section = evalplus_sensitivity.summary_section(edited)[evalplus_sensitivity.TABLE]
    assert section["left_out_inputs"] == [expected]
    assert (
        "Plus inputs left out (the corrected reference gave no expected output): HumanEval+Mini/0 #3" in section["caption"]
    )
