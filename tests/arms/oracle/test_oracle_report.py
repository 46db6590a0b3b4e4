"""Known answers of the oracle-repaired arm's analysis on hand-built records."""

from __future__ import annotations

import pytest

from tfr_helpers.arms.oracle.records import OracleRefinedEvaluation, OracleRepairResults, RepairedTest
from tfr_helpers.arms.oracle.report import (
    oracle_comparison,
    oracle_table,
    present,
    repair_report,
    repair_table,
    summary_section,
)
from tfr_helpers.records import Feedback, Isolation, PairEvaluation, RefinedEvaluation, Results
from tfr_helpers.records import TestOutcome as Outcome

M = "sim:default"
PASSED, FAILED = Outcome(name="t", status="passed"), Outcome(name="t", status="failed")


def repaired(fid: str, task: str, code_fails: bool) -> RepairedTest:
    fb = Feedback(feedback_id=fid, test_id=fid, text="repaired") if code_fails else None
    return RepairedTest(
        feedback_id=fid,
        test_id=fid,
        model=M,
        task_id=task,
        benchmark="humaneval",
        cause="wrong_expected_value",
        status="repaired",
        source="def test_x():\n    assert f(1) == 2\n",
        reference=PASSED,
        generated=FAILED if code_fails else PASSED,
        feedback=fb,
    )


def refused(fid: str, cause: str, reason: str) -> RepairedTest:
    return RepairedTest(
        feedback_id=fid,
        test_id=fid,
        model=M,
        task_id="T2",
        benchmark="humaneval",
        cause=cause,  # type: ignore[arg-type]
        status="not_repaired",
        reason=reason,
    )


def evaluation(cls: type, fid: str, task: str, transition: str) -> RefinedEvaluation:
    before = transition.startswith("pass")
    return cls(  # type: ignore[no-any-return]
        feedback_id=fid,
        model=M,
        task_id=task,
        benchmark_before=before,
        benchmark_after=transition.endswith("pass"),
        generated_test_after=None,
        transition=transition,
    )


def results(with_arm: bool = True) -> Results:
    arm = OracleRepairResults(
        repaired_tests=[
            repaired("f1", "T1", True),
            repaired("f2", "T2", True),
            repaired("f3", "T1", False),
            refused("f4", "invalid_input", "invalid input: the reference raises inside the function under test"),
            refused("f5", "wrong_expected_value", "not an equality assert (Gt)"),
        ],
        refined_evaluations=[
            evaluation(OracleRefinedEvaluation, "f1", "T1", "fail->pass"),
            evaluation(OracleRefinedEvaluation, "f2", "T2", "fail->pass"),
        ],
        refinement_status={M: "run"},
    )
    return Results(
        run_name="known",
        simulated=True,
        config={},
        tasks=["T1", "T2"],
        task_benchmarks={"T1": "humaneval", "T2": "humaneval"},
        generated_codes=[],
        generated_tests=[],
        benchmark_verdicts=[],
        pair_evaluations=[],
        screening=[],
        refinements=[],
        refined_evaluations=[
            evaluation(RefinedEvaluation, "f1", "T1", "fail->fail"),
            evaluation(RefinedEvaluation, "f2", "T2", "fail->pass"),
            evaluation(RefinedEvaluation, "f3", "T1", "pass->fail"),
            evaluation(RefinedEvaluation, "f4", "T2", "fail->fail"),
        ],
        oracle_repair=arm if with_arm else None,
    )


def test_repair_report_counts_repairs_reasons_and_passes() -> None:
    row = repair_report(results()).iloc[0]
    assert (row["unreliable_ebt_feedback"], row["repaired_k"], row["repaired_pct"]) == (5, 3, 60.0)
    assert (row["not_repaired"], row["not_repaired_invalid_input"], row["not_repaired_not_equality_assert"]) == (2, 1, 1)
    assert (row["code_passes_k"], row["code_passes_n"], row["repaired_feedback"]) == (1, 3, 2)
    table = repair_table(results()).data  # the report's form: one row per model and benchmark, six columns
    shown = table.iloc[0]
    assert len(table.columns) == 6 and shown["Repaired"].startswith("3/5 60.0 [")
    assert shown["Not repaired (reasons)"] == "2 (invalid input 1, not equality assert 1)"


def test_comparison_pairs_the_arms_on_the_same_instances() -> None:
    frame = oracle_comparison(results(), n_resamples=200).set_index(["scope", "arm"])
    orig, oracle = (
        frame.loc[("code fails repaired test", "original")],
        frame.loc[("code fails repaired test", "oracle-repaired")],
    )
    assert (orig["attempts"], orig["fail->pass_k"], orig["fail->fail_k"], orig["net_change_pp"]) == (2, 1, 1, 50.0)
    assert (oracle["attempts"], oracle["fail->pass_k"], oracle["net_change_pp"], oracle["diff_vs_original_pp"]) == (
        2,
        2,
        100.0,
        50.0,
    )


def test_code_passing_the_repaired_test_is_kept_by_the_oracle_arm() -> None:
    frame = oracle_comparison(results(), n_resamples=200).set_index(["scope", "arm"])
    orig, oracle = (
        frame.loc[("code passes repaired test", "original")],
        frame.loc[("code passes repaired test", "oracle-repaired")],
    )
    assert (orig["attempts"], orig["pass->fail_k"], orig["net_change_pp"]) == (1, 1, -100.0)
    assert (oracle["attempts"], oracle["pass->pass_k"], oracle["net_change_pp"], oracle["diff_vs_original_pp"]) == (
        0,
        1,
        0.0,
        100.0,
    )


def test_summary_section_says_it_uses_the_reference_and_is_absent_without_the_arm() -> None:
    section = summary_section(results())["oracle_repair"]
    assert section["uses_reference"] is True and "reference" in section["rq2_oracle_repair"]["caption"]
    assert not present(results(with_arm=False)) and summary_section(results(with_arm=False)) == {}
    with pytest.raises(ValueError, match="oracle_repair: true"):
        repair_report(results(with_arm=False))


def pair(fid: str, task: str, text: str) -> PairEvaluation:
    """The unreliable EBT feedback ``fid`` whose refinement prompt holds ``text`` (the code text is the same)."""
    return PairEvaluation(
        test_id=fid,
        model=M,
        task_id=task,
        benchmark="humaneval",
        kind="ebt",
        generated=FAILED,
        reference=FAILED,
        case="fail_fail",
        reliability="unreliable",
        cause="wrong_expected_value",
        feedback=Feedback(feedback_id=fid, test_id=fid, text=text),
        isolation=Isolation(network="none", uid_drop=False),
    )


def paired_results() -> Results:
    """Six tasks. Code fails the repaired test: every original refinement fail->fail, every oracle one fail->pass;
    ``a1x`` repeats ``a1``'s prompt (a duplicate test: one cached reply in both arms), ``a2x`` is a second prompt of
    T2. Code passes the repaired test: the original refinement breaks it (pass->fail) on T1-T5 and fixes it on T6."""
    tasks = [f"T{i}" for i in range(1, 7)]
    fails = [(f"a{i}", t, f"feedback {i}") for i, t in enumerate(tasks, 1)] + [("a1x", "T1", "feedback 1")]
    fails += [("a2x", "T2", "other feedback 2")]
    passes = [(f"b{i}", t, f"passing {i}") for i, t in enumerate(tasks, 1)]
    arm = OracleRepairResults(
        repaired_tests=[repaired(f, t, True) for f, t, _ in fails] + [repaired(f, t, False) for f, t, _ in passes],
        refined_evaluations=[evaluation(OracleRefinedEvaluation, f, t, "fail->pass") for f, t, _ in fails],
        refinement_status={M: "run"},
    )
    original = [evaluation(RefinedEvaluation, f, t, "fail->fail") for f, t, _ in fails]
    original += [evaluation(RefinedEvaluation, f, t, "fail->pass" if t == "T6" else "pass->fail") for f, t, _ in passes]
    return Results(
        run_name="paired",
        simulated=True,
        config={},
        tasks=tasks,
        task_benchmarks=dict.fromkeys(tasks, "humaneval"),
        generated_codes=[],
        generated_tests=[],
        benchmark_verdicts=[],
        pair_evaluations=[pair(f, t, text) for f, t, text in fails + passes],
        screening=[],
        refinements=[],
        refined_evaluations=original,
        oracle_repair=arm,
    )


def test_comparison_counts_identical_prompts_once_and_tests_over_tasks_with_holm() -> None:
    frame = oracle_comparison(paired_results(), n_resamples=200).set_index(["scope", "arm"])
    fails = frame.loc[("code fails repaired test", "oracle-repaired")]
    # 8 instances, a1x's prompt repeats a1's: 7 attempts, every one +1 (Fail->Pass instead of Fail->Fail)
    assert (fails["instances"], fails["attempts"], fails["duplicate_prompts"]) == (8, 7, 1)
    assert (fails["net_change_pp"], fails["diff_vs_original_pp"]) == (100.0, 100.0)
    # six informative tasks, all +1: exact sign-flip p = 2 / 2^6
    assert (fails["informative_tasks"], fails["p_task"]) == (6, 0.0312)
    assert fails["test"] == "task swap permutation (exact, 64 patterns)"
    passes = frame.loc[("code passes repaired test", "oracle-repaired")]
    # oracle keeps the code (gain 0); original gain -1 on T1-T5, +1 on T6: per-task differences (1, 1, 1, 1, 1, -1),
    # |sum| >= 4 when 0, 1, 5 or 6 signs are +: (1 + 6 + 6 + 1) / 64
    assert (passes["diff_vs_original_pp"], passes["p_task"]) == (round(100 * 4 / 6, 1), round(14 / 64, 4))
    # Holm over the model's two scopes: 2 x 0.03125 = 0.0625, then max(0.21875, 0.0625): neither differs
    assert (fails["p_holm"], passes["p_holm"]) == (0.0625, 0.2188) and not fails["differs"] and not passes["differs"]
    originals = frame.xs("original", level="arm")
    assert originals["p_task"].isna().all() and not originals["differs"].any()
    table = oracle_table(paired_results()).data  # the table shows the difference with its Holm p
    assert table.loc[(M, "code fails repaired test", "oracle-repaired"), "Oracle - original (pp)"].endswith("Holm p=0.062")
    section = summary_section(paired_results())["oracle_repair"]
    row = section["rq2_oracle_repair"]["rows"][1]
    assert {"duplicate_prompts", "informative_tasks", "test", "p_task", "p_holm", "differs"} <= set(row)
