"""The replayed trajectories in the reports, on hand-made step records of the test log's tasks: the answer rows
notebook 02, summary.json and the terminal lead with, the case browser's steps, the per-set case file and the
paper table."""

from __future__ import annotations

import json
import re
from pathlib import Path

from tests.helpers.latex import overfull_boxes
from tests.helpers.records import bare_results
from tfr_helpers.analysis.answers import report_answers, summary_section
from tfr_helpers.analysis.cases import write_refinement_cases
from tfr_helpers.analysis.writing.export import sentences, to_latex
from tfr_helpers.arms.trajectories.records.trajectories import (
    LoggedTestVerdict,
    TrajectoriesResults,
    TrajectorySetInfo,
    TrajectoryStepEvaluation,
)
from tfr_helpers.arms.trajectories.report.trajectories import rq2_rows
from tfr_helpers.arms.trajectories.report.trajectories_report import latex_table
from tfr_helpers.arms.trajectories.report.trajectory_cases import trajectory_file_name
from tfr_helpers.notebooks.answer_table import summary_answer_lines
from tfr_helpers.records import Results
from tfr_helpers.views.case_rows import case_rows

LOG_DIR = Path(__file__).parents[3] / "replay" / "data" / "reflexion_log"
SET = "reflexion_log"  # a log directory's set is named for the directory
LABEL = f"unspecified · {SET}"  # the model (no meta.json: unspecified) and the set


def _step(task: str, cls: str, before: bool | None, after: bool | None, **extra: object) -> TrajectoryStepEvaluation:
    transition = None if before is None else f"{'pass' if before else 'fail'}->{'pass' if after else 'fail'}"
    return TrajectoryStepEvaluation(
        dataset=SET,
        model="unspecified",
        task_id=task,
        benchmark="bigcodebench" if task.startswith("Big") else "humaneval",
        step=0,
        feedback_format="asserts",
        step_class=cls,  # type: ignore[arg-type]
        benchmark_before=before,
        benchmark_after=after,
        transition=transition,  # type: ignore[arg-type]
        **extra,  # type: ignore[arg-type]
    )


def _results() -> Results:
    wrong = LoggedTestVerdict(
        name="assert add(2, 3) == 6",
        kind="assert",
        on_code="failed",
        on_reference="failed",
        reproduced=True,
        after="passed",
        cause="wrong_expected_value",
        reference_message="AssertionError",
    )
    steps = [
        _step("HumanEval/53", "unreliable", True, False, tests=[wrong], logged_tests_after=True),
        _step("HumanEval/23", "reliable", False, True),
        _step("HumanEval/45", "mixed", False, True),
        _step("HumanEval/13", "not_reproduced", True, True, reason="harness fault"),
        _step("BigCodeBench/17", "not_evaluable", None, None, reason="excluded: library: psutil"),
    ]
    info = TrajectorySetInfo(
        name=SET, benchmark="humaneval", model="unspecified", protocol="p", source="x", license="l", tasks=5, steps=5
    )
    return bare_results(
        config={"trajectories": [f"replay:{LOG_DIR}"]}, trajectories=TrajectoriesResults(sets=[info], steps=steps)
    )


def test_notebook_02_summary_and_terminal_lead_with_the_real_trajectory_rows_split_by_step_class() -> None:
    results = _results()
    rows = report_answers(results, "rq2")
    real = [a for a in rows if a.kind == "rq2_trajectories"]
    assert rows[: len(real)] == real and {(a.model, a.source) for a in real} == {(LABEL, "replayed")}
    # reliable /23 and mixed /45 failed before (no Pass->Fail row; said in the note), unreliable /53 passed before;
    # the not reproduced /13 and the not evaluable BigCodeBench/17 are in no row
    assert [a.measure for a in real] == [
        "P(Fail->Pass | failed before), reliable feedback",
        "P(Pass->Fail | passed before), unreliable feedback",
        "P(Fail->Pass | failed before), mixed feedback",
    ]
    reliable, unreliable, mixed = real
    arm = rq2_rows(results).set_index(["step_class", "position"])
    assert (unreliable.k, unreliable.n, unreliable.value) == (1, 1, arm.loc[("unreliable", "all")]["pass_fail_pct"])
    assert (reliable.k, reliable.n, reliable.clusters, mixed.k, mixed.n) == (1, 1, 1, 1, 1)
    assert unreliable.unit == "repair steps" and unreliable.low is not None
    assert reliable.note.startswith("1 reliable step on 1 task; no reliable step passed before")
    assert "first steps alone: 100.0%" in unreliable.note
    summary = json.loads(json.dumps(summary_section(results)))
    assert [r["measure"] for r in summary["answers"]["rq2"][:3]] == [a.measure for a in real]
    lines = summary_answer_lines(summary)
    assert lines[0].startswith("Real results") and LABEL in lines[2]
    assert any("unreliable feedback" in line and "100.0% (all 1; [20.7, 100.0])" in line for line in lines)


def test_notebook_02_reads_the_real_trajectories_answer_first_in_one_table() -> None:
    from tfr_helpers.arms.trajectories.report.trajectories_report import interpretation, rq2_table

    results = _results()
    assert interpretation(results) == (
        "On real self-repair (1 set replayed, each its own population, never pooled), a repair step broke code that "
        "passed the benchmark after unreliable feedback in 100.0% of such steps (1 set, 1 with an interval above 0). "
        "The figure and table give each set with its interval."
    )
    table = rq2_table(results).data
    assert list(table.index.get_level_values("Feedback")) == [
        "judged (all three)", "reliable", "unreliable", "mixed", "not reproduced"
    ]  # fmt: skip
    assert table.loc[(f"unspecified · {SET}", "unreliable"), "P(Pass->Fail | passed)"] == "1/1 100.0 [20.7, 100.0]"


def test_every_step_is_a_browsable_case_with_its_code_diff_and_verdicts(tmp_path: Path) -> None:
    rows = [r for r in case_rows(_results(), tmp_path) if r.kind == "trajectory step"]
    assert [r.task_id for r in rows] == ["BigCodeBench/17", "HumanEval/13", "HumanEval/23", "HumanEval/45", "HumanEval/53"]
    row = rows[-1]
    assert (row.model, row.source) == (LABEL, "replayed")
    assert row.facets == {
        "set": SET,
        "task": "HumanEval/53",
        "step class": "unreliable",
        "transition": "pass->fail",
        "step": "0",
    }
    text = {s.title.split(" (")[0].split(":")[0]: s.text for s in row.sections}
    assert "return x + y\n" in text["Code before"]
    assert "-    return x + y\n+    return x + y + 1" in text["Diff to the code after"]
    assert "assert add(2, 3) == 6 # output: 5" in text["Feedback shown to the model, as logged"]
    assert "reference failed" in text["Step class"] and "wrong_expected_value" in text["Step class"]
    assert "code before pass, code after fail" in text["Transition"]


def test_a_case_file_per_set_linked_from_refinement_cases_and_a_paper_table(tmp_path: Path) -> None:
    results = _results()
    (tmp_path / "results.json").write_text(results.model_dump_json())
    listing = write_refinement_cases(tmp_path).read_text()
    name = trajectory_file_name(SET)
    assert f"- [{name}]({name}): 5 steps of `{LABEL}` (real data, replayed)" in listing
    text = (tmp_path / name).read_text()
    assert "unreliable 1, mixed 1, reliable 1, indeterminate 0, not_reproduced 1, not_evaluable 1" in text
    assert "-    return x + y" in text and "## 5. HumanEval/53" in text
    latex = to_latex(latex_table(results), "tab:rq2_trajectories")
    assert latex.count("\\begin{table}") == 1
    caption = re.search(r"\\caption\{(.*)\}", latex)
    assert caption is not None and len(sentences(caption.group(1))) <= 2
    assert "% " in latex and "Sets (published logs)" in latex.replace("\n% ", " ")
    (tmp_path / "table.tex").write_text(latex)
    assert not overfull_boxes([tmp_path / "table.tex"], tmp_path)  # fits a 17 cm text width


def test_a_log_that_cannot_be_read_leaves_its_steps_browsable(tmp_path: Path) -> None:
    results = _results().model_copy(update={"config": {"trajectories": [f"replay:{tmp_path / 'gone'}"]}})
    rows = [r for r in case_rows(results, tmp_path) if r.kind == "trajectory step"]
    assert len(rows) == 5 and "could not be read" in rows[0].sections[0].text


def test_a_chained_step_names_the_step_above_instead_of_repeating_its_code() -> None:
    from tfr_helpers.arms.trajectories.report.trajectory_cases import LoggedSets, render_trajectory_cases
    from tfr_helpers.replay.trajectories.logged import Trajectory, TrajectoryAttempt

    codes = ["def f():\n    return 0\n", "def f():\n    return 1\n", "def f():\n    return 2\n"]
    attempts = [TrajectoryAttempt(index=i, code=c, feedback="f() failed") for i, c in enumerate(codes)]
    task = Trajectory(dataset=SET, task_id="HumanEval/0", benchmark="humaneval", entry_point="f", attempts=attempts)
    steps = [_step("HumanEval/0", "reliable", False, False).model_copy(update={"step": k}) for k in (0, 1)]
    info = TrajectorySetInfo(
        name=SET, benchmark="humaneval", model="unspecified", protocol="p", source="x", license="l", tasks=1, steps=2
    )
    results = bare_results(trajectories=TrajectoriesResults(sets=[info], steps=steps))
    text = render_trajectory_cases(results, info, LoggedSets({(SET, "HumanEval/0"): task}))
    assert text.count("return 0") == 2  # the first code before in full and in its diff
    assert "**Code before (attempt 1)**: the code after in 1. above" in text
    assert "-    return 0\n+    return 1" in text and "-    return 1\n+    return 2" in text  # every attempt readable


def test_the_real_rq2_figure_gives_each_set_a_row_and_each_step_class_a_marker() -> None:
    import matplotlib

    matplotlib.use("Agg")
    from tfr_helpers.arms.trajectories.report.trajectory_figure import plot_real_rq2

    fig = plot_real_rq2(_results())
    assert len(fig.axes) == 2  # no dose series in this run: the two transition panels only
    passed, failed = fig.axes
    assert [t.get_text() for t in passed.get_yticklabels()] == [LABEL]
    labels = [t.get_text() for t in passed.get_legend().get_texts()]
    assert labels == ["reliable", "unreliable", "mixed"]  # every class drawn in either panel, in one order
    assert [c.get_label() for c in passed.containers] == ["unreliable"]  # the only step that passed before
    assert [c.get_label() for c in failed.containers] == ["reliable", "mixed"]


def test_the_arms_headline_numbers_split_by_step_class_and_count_the_steps() -> None:
    from tfr_helpers.analysis.headlines import headline_numbers

    frame = headline_numbers(_results())
    rows = frame[frame["source"] == "replayed (published self-repair log)"].set_index("number")
    assert list(rows.index) == [
        "trajectory_fail_to_pass:reliable", "trajectory_pass_to_fail:unreliable", "trajectory_fail_to_pass:mixed"
    ]  # fmt: skip
    assert set(rows["model"]) == {LABEL} and rows.loc["trajectory_pass_to_fail:unreliable", "value"] == 100.0
    assert rows.loc["trajectory_fail_to_pass:reliable", "interval"].endswith("; 1 of 1 repair steps")


def test_the_rq3_row_names_the_run_s_screeners_that_declare_a_model_call(monkeypatch) -> None:
    from tfr_helpers.arms.trajectories.report.trajectory_cases import judges_offline
    from tfr_helpers.pipeline.screening.registry import STRATEGIES, Screener

    monkeypatch.setitem(STRATEGIES, "my_judge", Screener("my_judge", lambda items, ctx: [], calls="judge"))
    screening = ["accept_all", "llm_judge_reasoning", "reject_test_code_errors", "my_judge", "gone.module:f"]
    text = judges_offline(bare_results(config={"screening": screening}))
    assert text == "the LLM judges (llm_judge_reasoning, my_judge) need a model: not run on a replayed step"
    assert "names no LLM judge" in judges_offline(bare_results(config={"screening": ["accept_all"]}))
