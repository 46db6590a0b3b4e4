"""The replayed trajectories' numbers on hand-made step records: classes, faults, RQ2 per class and position."""

from __future__ import annotations

from tfr_helpers.analysis.arms.trajectories import faults, headline, rq2_rows, step_classes
from tfr_helpers.analysis.arms.trajectories_report import headline_lines, summary_section
from tfr_helpers.pipeline.arms.trajectories.step_class import classify
from tfr_helpers.records import Results
from tfr_helpers.records.trajectories import (
    LoggedTest,
    LoggedTestVerdict,
    TrajectoriesResults,
    TrajectorySetInfo,
    TrajectoryStepEvaluation,
    UnusableStep,
)


def _step(
    task: str, step: int, cls: str, before: bool | None, after: bool | None, reason: str = ""
) -> TrajectoryStepEvaluation:
    transition = None if before is None else f"{'pass' if before else 'fail'}->{'pass' if after else 'fail'}"
    return TrajectoryStepEvaluation(
        dataset="s",
        model="M",
        task_id=task,
        benchmark="humaneval",
        step=step,
        feedback_format="asserts",
        step_class=cls,  # type: ignore[arg-type]
        reason=reason,
        benchmark_before=before,
        benchmark_after=after,
        transition=transition,  # type: ignore[arg-type]
        logged_tests_after=True if cls == "unreliable" else None,
    )


def _results() -> Results:
    steps = [
        _step("HumanEval/1", 0, "unreliable", True, False),
        _step("HumanEval/1", 1, "reliable", False, True),
        _step("HumanEval/2", 0, "unreliable", True, True),
        _step("HumanEval/3", 0, "not_reproduced", True, True, "harness fault: the logging harness never ran the tests"),
        _step(
            "BigCodeBench/17",
            0,
            "not_evaluable",
            None,
            None,
            "excluded from the study's BigCodeBench selection: library: psutil",
        ),
    ]
    info = TrajectorySetInfo(
        name="s", benchmark="humaneval", model="M", protocol="p", source="x", license="l", tasks=4, steps=5
    )
    part = TrajectoriesResults(
        sets=[info],
        steps=steps,
        unusable=[UnusableStep(dataset="s", task="HumanEval/4", step=0, reason="attempt 1 is not a whole function")],
    )
    return Results(
        run_name="t",
        simulated=False,
        config={},
        tasks=[],
        task_benchmarks={},
        generated_codes=[],
        generated_tests=[],
        benchmark_verdicts=[],
        pair_evaluations=[],
        screening=[],
        refinements=[],
        refined_evaluations=[],
        trajectories=part,
    )


def test_classes_and_faults_per_set() -> None:
    results = _results()
    row = step_classes(results).iloc[0]
    assert (row["steps"], row["unusable"], row["unreliable"], row["reliable"], row["not_evaluable"]) == (5, 1, 2, 1, 1)
    found = {(r.removed_as, r.fault): r.steps for r in faults(results).itertuples()}
    assert found == {
        ("unusable", "a logged body, not a whole function"): 1,
        ("not_reproduced", "harness fault: the logging harness never ran the tests"): 1,
        ("not_evaluable", "BigCodeBench task excluded from the selection (library)"): 1,
    }


def test_rq2_per_class_and_position_with_the_task_as_cluster() -> None:
    rows = rq2_rows(_results()).set_index(["step_class", "position"])
    top = rows.loc[("all steps with a verdict", "all")]
    assert (top["steps"], top["tasks"], top["pass_fail_k"], top["pass_fail_n"]) == (4, 3, 1, 3)
    assert (top["fail_pass_k"], top["fail_pass_n"], top["pass_fail_clusters"]) == (1, 1, 3)
    assert rows.loc[("unreliable", "first"), "pass_fail_pct"] == 50.0
    assert rows.loc[("all steps with a verdict", "later"), "steps"] == 1  # the second step of HumanEval/1
    assert ("not_evaluable", "all") not in rows.index  # no benchmark verdict, no RQ2 row
    assert rows.loc[("unreliable", "all"), "misleading_k"] == 1  # passes the wrong test, fails the benchmark


def test_headline_and_printed_lines() -> None:
    results = _results()
    assert headline(results).iloc[0]["pass_fail_n"] == 2  # the judged steps: the answer rows' population
    head, *rest = headline_lines(summary_section(results))
    assert head == (
        "M s [real, humaneval]: 5 steps (1 unusable in the log); reliable 1, unreliable 2, mixed 0, "
        "indeterminate 0, not_reproduced 1, not_evaluable 1"
    )
    rates = {line.split(":")[0].strip(): line for line in rest if "P(Pass->Fail" in line}
    judged = "judged (reliable, unreliable or mixed)"
    # the judged steps first (the answer rows' population), first steps apart from later ones; the not reproduced
    # step joins them only in the last line
    assert list(rates) == [
        f"{judged}, all steps",
        f"{judged}, first steps",
        f"{judged}, later steps",
        "reliable steps",
        "unreliable steps",
        "not_reproduced steps",
        "all steps with a verdict",
    ]
    # judged: HumanEval/1 (broken at step 0, fixed at step 1) and /2 (kept); /3's not reproduced step kept too
    assert "3 steps, 2 tasks; P(Pass->Fail | passed) 50.0% [" in rates[f"{judged}, all steps"]
    assert "(1/2, 2 tasks); P(Fail->Pass | failed) 100.0%" in rates[f"{judged}, all steps"]
    assert "P(Pass->Fail | passed) -- (0/0); P(Fail->Pass | failed) 100.0%" in rates[f"{judged}, later steps"]
    assert "4 steps, 3 tasks; P(Pass->Fail | passed) 33.3% [" in rates["all steps with a verdict"]
    assert "P(Pass->Fail | passed) 50.0%" in rates["unreliable steps"]
    removed = [line.strip() for line in rest if "removed" in line]
    assert removed == [
        "removed 1 steps as not_evaluable: BigCodeBench task excluded from the selection (library)",
        "removed 1 steps as not_reproduced: harness fault: the logging harness never ran the tests",
        "removed 1 steps as unusable: a logged body, not a whole function",
    ]


def test_a_step_class_from_its_failing_tests() -> None:
    test = LoggedTest(name="t", kind="assert", source="assert f() == 1", logged_status="failed")

    def verdict(on_code: str, on_ref: str) -> LoggedTestVerdict:
        return LoggedTestVerdict(
            name="t", kind="assert", on_code=on_code, on_reference=on_ref, reproduced=on_code != "passed"
        )  # type: ignore[arg-type]

    assert classify([test], [verdict("failed", "passed")]) == ("reliable", "")
    assert classify([test, test], [verdict("failed", "passed"), verdict("failed", "failed")]) == ("mixed", "")
    assert classify([test], [verdict("error", "error")]) == ("unreliable", "")
    assert classify([test], [verdict("passed", "failed")])[0] == "not_reproduced"
    assert classify([], [])[0] == "not_reproduced"
