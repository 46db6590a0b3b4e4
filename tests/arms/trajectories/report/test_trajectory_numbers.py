"""The replayed trajectories' numbers on hand-made step records: classes, faults, RQ2 per class and position."""

from __future__ import annotations

from tfr_helpers.arms.trajectories import ARM as TRAJECTORIES
from tfr_helpers.arms.trajectories.records.trajectories import (
    LoggedTestVerdict,
    TrajectoriesResults,
    TrajectorySetInfo,
    TrajectoryStepEvaluation,
)
from tfr_helpers.arms.trajectories.report.trajectories import faults, headline, rq2_rows, step_classes
from tfr_helpers.arms.trajectories.report.trajectories_report import analyze_lines, summary_section
from tfr_helpers.arms.trajectories.report.trajectory_contrast import contrast
from tfr_helpers.arms.trajectories.report.trajectory_exclusions import excluded_vs_kept
from tfr_helpers.arms.trajectories.report.trajectory_rewards import rewards
from tfr_helpers.arms.trajectories.stages.step_class import classify
from tfr_helpers.records import Results
from tfr_helpers.replay.trajectories.logged import LoggedTest, Trajectory, TrajectoryAttempt, UnusableStep


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
    head, *rest = analyze_lines(summary_section(results))
    assert head == (
        "M s [real, humaneval]: 5 steps (1 unusable in the log); 3 judged (60.0%); reliable 1, unreliable 2, mixed 0, "
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
        "judged fraction and bounds",
        "conditional contrast",
    ]
    # judged: HumanEval/1 (broken at step 0, fixed at step 1) and /2 (kept); /3's not reproduced step kept too
    assert "3 steps, 2 tasks; P(Pass->Fail | passed) 50.0% [" in rates[f"{judged}, all steps"]
    assert "(1/2, 2 tasks); P(Fail->Pass | failed) 100.0%" in rates[f"{judged}, all steps"]
    assert "P(Pass->Fail | passed) -- (0/0); P(Fail->Pass | failed) 100.0%" in rates[f"{judged}, later steps"]
    assert "4 steps, 3 tasks; P(Pass->Fail | passed) 33.3% [" in rates["all steps with a verdict"]
    assert "P(Pass->Fail | passed) 50.0%" in rates["unreliable steps"]
    # 3 of 5 steps judged; 4 steps have a verdict (1 of 3 passed-before broke); the not evaluable step each way
    assert rates["judged fraction and bounds"].endswith(
        "3 of 5 steps judged (60.0%); P(Pass->Fail | passed) judged 50.0% (1/2), every step with a verdict 33.3% "
        "(1/3); bounds over all 5 steps with the 1 without a verdict counted each way: [25.0%, 50.0%]"
    )
    assert "no passed-before reliable step: no contrast" in rates["conditional contrast"]
    removed = [line.strip() for line in rest if line.strip().startswith("removed")]
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


def _with_steps(steps: list[TrajectoryStepEvaluation]) -> Results:
    results = _results()
    part = results.part(TRAJECTORIES).model_copy(update={"steps": steps})
    return results.model_copy(update={"arm_parts": {**results.arm_parts, "trajectories": part}})


def test_the_conditional_contrast_with_both_sides_and_per_task_weighting() -> None:
    # passed-before steps: unreliable 3 of 4 broke (task 1 carries 3 steps, all broken; task 2 one, kept),
    # reliable 0 of 2 broke; a failed-before unreliable step never enters
    steps = [_step("HumanEval/1", k, "unreliable", True, False) for k in range(3)]
    steps += [_step("HumanEval/2", 0, "unreliable", True, True), _step("HumanEval/2", 1, "unreliable", False, False)]
    steps += [_step("HumanEval/3", 0, "reliable", True, True), _step("HumanEval/4", 0, "reliable", True, True)]
    row = contrast(_with_steps(steps)).iloc[0]
    assert (row["unreliable_k"], row["unreliable_n"], row["reliable_k"], row["reliable_n"]) == (3, 4, 0, 2)
    assert row["unreliable_pct"] == 75.0 and row["unreliable_task_mean_pct"] == 50.0  # each task weighs 1
    assert row["status"] == "both sides" and row["diff_pct"] == 75.0
    assert row["diff_low"] is not None and row["diff_high"] is not None


def test_excluded_tasks_are_compared_with_kept_ones_on_what_can_be_observed() -> None:
    rows = excluded_vs_kept(_results()).set_index("group")
    # kept: HumanEval/1 (2 steps, 3 attempts: the set's cap) and /2; excluded: /3 (not reproduced), BigCodeBench/17
    assert (rows.loc["kept", "tasks"], rows.loc["kept", "steps_per_task"], rows.loc["kept", "at_cap_pct"]) == (2, 1.5, 50.0)
    assert (rows.loc["excluded", "tasks"], rows.loc["excluded", "at_cap_pct"]) == (2, 0.0)
    # the first attempt's benchmark verdict is known for /3 only: the not evaluable task has none
    assert (rows.loc["excluded", "first_pass_pct"], rows.loc["excluded", "first_known"]) == (100.0, 1)


def test_own_tests_against_the_benchmark_per_iteration() -> None:
    def attempt(k: int, failing: bool | None) -> TrajectoryAttempt:
        if failing is None:
            return TrajectoryAttempt(
                index=k, code="", feedback="'Expr' object has no attribute 'test'", feedback_format="harness_fault"
            )
        status = "failed" if failing else "passed"
        test = LoggedTest(name="t", kind="assert", source="assert f() == 1", logged_status=status)
        return TrajectoryAttempt(index=k, code="", feedback="x", feedback_format="asserts", tests=[test])

    def trajectory(task: str, attempts: list[TrajectoryAttempt]) -> Trajectory:
        return Trajectory(dataset="s", task_id=task, benchmark="humaneval", entry_point="f", attempts=attempts)

    # HumanEval/1: attempt 0 fails its tests and the benchmark, attempt 1 passes its tests, fails the benchmark;
    # HumanEval/2: attempt 0 a harness fault (no own-test verdict), passes the benchmark; attempt 1 passes both
    steps = [_step("HumanEval/1", 0, "reliable", False, False), _step("HumanEval/2", 0, "not_reproduced", True, True)]
    logged = {
        ("s", "HumanEval/1"): trajectory("HumanEval/1", [attempt(0, True), attempt(1, False)]),
        ("s", "HumanEval/2"): trajectory("HumanEval/2", [attempt(0, None), attempt(1, False)]),
    }
    rows = rewards(_with_steps(steps), logged).set_index("iteration")
    assert (rows.loc[0, "attempts"], rows.loc[0, "r_obs_unknown"]) == (2, 1)
    assert (rows.loc[0, "r_obs_k"], rows.loc[0, "r_obs_n"], rows.loc[0, "r_k"], rows.loc[0, "r_n"]) == (0, 1, 1, 2)
    assert (rows.loc[1, "r_obs_k"], rows.loc[1, "r_obs_n"], rows.loc[1, "r_k"], rows.loc[1, "r_n"]) == (2, 2, 1, 2)


def test_a_contrast_with_no_regression_on_either_side_has_no_interval() -> None:
    steps = [_step(f"HumanEval/{i}", 0, "unreliable" if i < 2 else "reliable", True, True) for i in range(5)]
    row = contrast(_with_steps(steps)).iloc[0]
    assert (row["unreliable_k"], row["reliable_k"], row["diff_pct"]) == (0, 0, 0.0)
    assert row["diff_low"] is None and row["diff_high"] is None
