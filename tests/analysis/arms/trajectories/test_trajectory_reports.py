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
from tfr_helpers.analysis.arms.trajectories.trajectories import JUDGED_GROUP, rq2_rows
from tfr_helpers.analysis.arms.trajectories.trajectories_report import latex_table
from tfr_helpers.analysis.arms.trajectories.trajectory_cases import trajectory_file_name
from tfr_helpers.analysis.cases import write_refinement_cases
from tfr_helpers.analysis.writing.export import sentences, to_latex
from tfr_helpers.notebooks.answer_table import summary_answer_lines
from tfr_helpers.records import Results
from tfr_helpers.records.trajectories import (
    LoggedTestVerdict,
    TrajectoriesResults,
    TrajectorySetInfo,
    TrajectoryStepEvaluation,
)
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


def test_notebook_02_summary_and_terminal_lead_with_the_real_trajectory_rows() -> None:
    results = _results()
    rows = report_answers(results, "rq2")
    assert [(a.kind, a.model, a.source) for a in rows[:2]] == [("rq2_trajectories", LABEL, "replayed")] * 2
    pass_fail, fail_pass = rows[0], rows[1]
    judged = rq2_rows(results).set_index(["step_class", "position"]).loc[(JUDGED_GROUP, "all")]
    # the arm's own numbers: judged steps only (the not reproduced /13 and not evaluable BigCodeBench/17 left out)
    assert (pass_fail.k, pass_fail.n, pass_fail.value) == (1, 1, judged["pass_fail_pct"]) == (1, 1, 100.0)
    assert (fail_pass.k, fail_pass.n, fail_pass.clusters) == (2, 2, 2)
    assert fail_pass.unit == "repair steps" and pass_fail.low is not None
    assert "reliable, unreliable or mixed" in pass_fail.note and "first steps alone: 100.0%" in pass_fail.note
    summary = json.loads(json.dumps(summary_section(results)))
    assert summary["answers"]["rq2"][0]["model"] == LABEL
    lines = summary_answer_lines(summary)
    assert lines[0].startswith("Real results") and LABEL in lines[2] and "100.0% (all 1; [20.7, 100.0])" in lines[2]


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
    from tfr_helpers.analysis.arms.trajectories.trajectory_cases import LoggedSets, render_trajectory_cases
    from tfr_helpers.records.trajectories import Trajectory, TrajectoryAttempt

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
