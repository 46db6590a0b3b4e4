"""RQ3 on real refinement steps, on hand-made records: the step rule, prevented regressions, lost fixes, the
collapsed consensus row and summary.json's section."""

from __future__ import annotations

from tfr_helpers.arms.trajectories import ARM as TRAJECTORIES
from tfr_helpers.arms.trajectories.records.trajectories import TrajectoriesResults, TrajectoryStepEvaluation
from tfr_helpers.arms.trajectories.records.trajectory_screening import ScreenedFailingTest, TrajectoryStepScreening
from tfr_helpers.arms.trajectories.report.trajectory_screening import (
    EMPTY,
    ONE_SAMPLE,
    downstream,
    downstream_table,
    summary_section,
)
from tfr_helpers.records import Results
from tfr_helpers.records import TestOutcome as Outcome

FAIL = Outcome(name="t", status="failed", exc_type="AssertionError")


def _test(unreliable: bool, learned: str) -> ScreenedFailingTest:
    decisions = {"accept_all": "accept", "consensus_b4": "accept", "consensus_codet_top": "accept", "learned": learned}
    return ScreenedFailingTest(name="t", outcome=FAIL, unreliable=unreliable, decisions=decisions)  # type: ignore[arg-type]


def _results() -> Results:
    # task, step, transition, the learned screener's decision on each failing test
    plan = [
        ("HumanEval/1", 0, "pass->fail", [(True, "reject"), (True, "reject")]),  # screened out: regression prevented
        ("HumanEval/2", 0, "pass->fail", [(True, "reject"), (False, "accept")]),  # partly screened: still refined
        ("HumanEval/3", 0, "fail->pass", [(False, "reject")]),  # screened out: fix lost
        ("HumanEval/4", 0, "fail->pass", [(False, "accept")]),
        ("HumanEval/5", 0, "pass->pass", [(True, "reject")]),
        ("HumanEval/6", 0, "fail->fail", [(True, "accept")]),
    ]
    steps = [
        TrajectoryStepEvaluation(
            dataset="s",
            model="M",
            task_id=task,
            benchmark="humaneval",
            step=step,
            feedback_format="asserts",
            step_class="unreliable",
            transition=transition,  # type: ignore[arg-type]
        )
        for task, step, transition, _ in plan
    ]
    screening = [
        TrajectoryStepScreening(dataset="s", model="M", task_id=task, step=step, tests=[_test(u, d) for u, d in tests])
        for task, step, _, tests in plan
    ]
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
        trajectories=TrajectoriesResults(steps=steps, screening=screening),
    )


def test_a_step_is_screened_out_only_when_every_failing_test_is_rejected() -> None:
    screening = _results().part(TRAJECTORIES).screening
    assert [s.screened_out("learned") for s in screening] == [True, False, True, False, True, False]
    assert [s.partly_screened("learned") for s in screening] == [False, True, False, False, False, False]


def test_prevented_regressions_and_lost_fixes_per_strategy() -> None:
    rows = downstream(_results()).set_index("strategy")
    learned = rows.loc["learned"]
    assert (learned["first_screened"], learned["prevented"], learned["lost"], learned["net"]) == (3, 1, 1, 0)
    assert (learned["screened_out_k"], learned["partly_screened"]) == (3, 1)
    assert (learned["rejects_unreliable_k"], learned["rejects_unreliable_n"]) == (4, 5)
    assert (learned["rejects_reliable_k"], learned["rejects_reliable_n"]) == (1, 3)
    assert learned["net_per_task_pp"] == 0.0
    assert learned["net_test"] == "too few tasks"  # two informative tasks: no p-value
    assert rows.loc["accept_all", "prevented"] == 0 and rows.loc["accept_all", "informative_tasks"] == 0


def _trajectory(plan: list[tuple[str, int, str, str]]) -> Results:
    """Hand-made trajectories: (task, step, transition, the learned screener's decision on its one failing test)."""
    base = _results()
    steps = [
        TrajectoryStepEvaluation(
            dataset="s",
            model="M",
            task_id=task,
            benchmark="humaneval",
            step=step,
            feedback_format="asserts",
            step_class="unreliable",
            transition=transition,  # type: ignore[arg-type]
        )
        for task, step, transition, _ in plan
    ]
    screening = [
        TrajectoryStepScreening(dataset="s", model="M", task_id=task, step=step, tests=[_test(True, decision)])
        for task, step, _, decision in plan
    ]
    return base.model_copy(
        update={"arm_parts": {**base.arm_parts, "trajectories": TrajectoriesResults(steps=steps, screening=screening)}}
    )


def test_only_the_first_screened_step_of_a_trajectory_is_evaluated() -> None:
    results = _trajectory(
        [
            # stopped at step 0, a regression: prevented; steps 1 and 2 never happen (the lost fix at 1 is not counted)
            ("HumanEval/1", 0, "pass->fail", "reject"),
            ("HumanEval/1", 1, "fail->pass", "reject"),
            ("HumanEval/1", 2, "pass->fail", "reject"),
            # refined at step 0 as logged, stopped at step 1, a fix: lost; step 2 never happens
            ("HumanEval/2", 0, "fail->fail", "accept"),
            ("HumanEval/2", 1, "fail->pass", "reject"),
            ("HumanEval/2", 2, "pass->fail", "reject"),
            # never stopped: no change
            ("HumanEval/3", 0, "pass->fail", "accept"),
            # stopped at a step that changes nothing
            ("HumanEval/4", 0, "pass->pass", "reject"),
        ]
    )
    learned = downstream(results).set_index("strategy").loc["learned"]
    assert (learned["tasks"], learned["first_screened"]) == (4, 3)
    assert (learned["prevented"], learned["lost"], learned["net"]) == (1, 1, 0)
    assert learned["net_per_task_pp"] == 0.0


def test_the_net_effect_is_tested_by_task_and_can_go_either_way() -> None:
    plan = [(f"HumanEval/{i}", 0, "pass->fail", "reject") for i in range(7)]
    plan += [(f"HumanEval/{i}", 0, "fail->pass", "reject") for i in range(7, 9)]
    plan += [(f"HumanEval/{i}", 1, "pass->fail", "reject") for i in range(7, 9)]  # after the stop: never happen
    learned = downstream(_trajectory(plan)).set_index("strategy").loc["learned"]
    assert (learned["prevented"], learned["lost"], learned["informative_tasks"]) == (7, 2, 9)
    assert learned["net_per_task_pp"] == round(100 * 5 / 9, 1)
    # exact sign-flip over 9 informative tasks: patterns whose |sum| >= 5 of 2^9: 2 * (1 + 9 + 36) / 512
    assert learned["net_p"] == 2 * (1 + 9 + 36) / 512
    assert learned["net_p_holm"] == learned["net_p"]  # the only tested strategy of the set


def test_consensus_screeners_that_accept_everything_are_one_row_that_says_why() -> None:
    names = downstream(_results())["strategy"].tolist()
    assert names == ["accept_all", ONE_SAMPLE, "learned"]


def test_the_table_and_the_summary_section_say_the_data_are_real() -> None:
    results = _results()
    table = downstream_table(results)
    assert "not simulated" in str(table.caption)
    learned = table.data.xs("learned", level="Strategy").iloc[0]  # one table: a row per set and strategy
    assert learned["Trajectories stopped: Pass->Fail prevented, Fail->Pass lost"].split(": ")[1].startswith("1, ")
    assert len(table.data.columns) == 6 and table.data.index.names == ["Set", "Strategy"]
    assert "p (Pass->Fail)" not in table.data.columns  # no p-value fixed by construction
    section = summary_section(results)["trajectory_screening"]
    assert section["real"] is True and len(section["rows"]) == 3


def test_a_run_without_screened_steps_has_no_section() -> None:
    results = _results()
    part = results.part(TRAJECTORIES).model_copy(update={"screening": []})
    results = results.model_copy(update={"arm_parts": {**results.arm_parts, "trajectories": part}})
    assert summary_section(results) == {}
    assert downstream(results).empty
    assert downstream_table(results).data.iloc[0, 0] == EMPTY


def test_the_collapsed_row_holds_the_screeners_that_declare_several_code_samples(monkeypatch) -> None:
    from tfr_helpers.pipeline.screening.registry import STRATEGIES, Screener

    # a screener from outside the package comparing three samples joins the row; a name alone does not
    monkeypatch.setitem(STRATEGIES, "learned", Screener("learned", lambda items, ctx: [], samples=3, abstains=True))
    results = _results()
    part = results.part(TRAJECTORIES)
    assert part is not None
    more = {"learned": "accept", "consensus_unknown": "accept"}
    screening = [
        s.model_copy(update={"tests": [t.model_copy(update={"decisions": t.decisions | more}) for t in s.tests]})
        for s in part.screening
    ]
    results = results.model_copy(
        update={"arm_parts": {**results.arm_parts, "trajectories": part.model_copy(update={"screening": screening})}}
    )
    names = downstream(results)["strategy"].tolist()
    assert names == ["accept_all", ONE_SAMPLE, "consensus_unknown"]
