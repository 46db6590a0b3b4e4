"""Acceptance: a hand-built Reflexion-format log, alone in a directory and named as ``replay:<dir>``, goes through
the study (every stage, then ``tfr analyze``) and every step gets its known class and transition; analyze prints
them per set."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest
from typer.testing import CliRunner

from tests.helpers.smoke import run_params_study
from tfr_helpers.analysis.writing.export import to_latex
from tfr_helpers.analysis.writing.latex import escape
from tfr_helpers.arms.trajectories import ARM as TRAJECTORIES
from tfr_helpers.arms.trajectories.report.trajectories import rq2_rows, step_classes
from tfr_helpers.arms.trajectories.report.trajectories_report import trajectories_table
from tfr_helpers.arms.trajectories.view import trajectory_html, trajectory_results
from tfr_helpers.cli import app
from tfr_helpers.pipeline.engine.codec import load_results
from tfr_helpers.replay.trajectories.sets import clear_trajectory_cache

LOG_DIR = Path(__file__).parents[3] / "replay" / "data" / "reflexion_log"

EXPECTED = {  # task -> (format, class, transition, the code after passes the logged failing tests)
    "HumanEval/53": ("asserts", "unreliable", "pass->fail", True),  # a wrong assert on correct code, then broken
    "HumanEval/23": ("asserts", "reliable", "fail->pass", True),  # a reliable failure that gets fixed
    "HumanEval/45": ("asserts", "mixed", "fail->pass", False),  # one right and one wrong failing assert
    "HumanEval/55": ("unittest", "reliable", "fail->fail", False),  # unittest output, tests from test_cases
    "HumanEval/13": ("harness_fault", "not_reproduced", "pass->pass", None),  # 'Expr' object has no attribute 'test'
    "HumanEval/60": ("asserts", "not_reproduced", "pass->pass", None),  # the logged failure does not reproduce
    "BigCodeBench/17": ("asserts", "not_evaluable", None, None),  # psutil is not installed: excluded from the selection
}


@pytest.mark.slow  # the whole study (a one-task base study beside the trajectories): over 10 s on two busy cores
def test_a_reflexion_log_in_a_directory_goes_through_the_study(tmp_path: Path, shared_benchmarks: Path) -> None:
    logs = tmp_path / "my_logs"
    shutil.copytree(LOG_DIR, logs)
    clear_trajectory_cache()
    params = {
        "run_name": "trajectories",
        "benchmarks": ["humaneval"],
        "tasks": ["HumanEval/0"],
        "models": {"coders": ["sim:default"]},
        "ebts_per_task": 1,
        "pbts_per_task": 0,
        "screening": [],
        "trajectories": [f"replay:{logs}"],
    }
    run = run_params_study(tmp_path, params, shared_benchmarks)
    results = load_results(run)
    part = results.part(TRAJECTORIES)
    assert part is not None and [s.name for s in part.sets] == ["my_logs"]
    got = {s.task_id: (s.feedback_format, s.step_class, s.transition, s.logged_tests_after) for s in part.steps}
    assert got == EXPECTED
    by_task = {s.task_id: s for s in part.steps}
    assert [v.cause for v in by_task["HumanEval/53"].tests] == ["wrong_expected_value"]
    # the code the wrong assert broke: the benchmark test it now fails, with the failing comparison
    broken = by_task["HumanEval/53"].failure_after or ""
    assert broken.split("\n")[0].endswith(": failed") and "expected" in broken
    assert by_task["HumanEval/13"].failure_after is None  # kept passing
    assert [(v.reproduced, v.on_reference) for v in by_task["HumanEval/45"].tests] == [(True, "passed"), (True, "failed")]
    assert by_task["HumanEval/55"].tests[0].name == "TestFibTen.test_ten"
    assert "psutil" in by_task["BigCodeBench/17"].reason
    assert [(u.task, u.reason.split(" ")[0]) for u in part.unusable] == [("HumanEval/35", "attempt")]
    # every judged step's reproduced failing tests screened (accept_all always; no LLM judge on a replayed log)
    screened = {s.task_id: [(t.unreliable, t.decisions) for t in s.tests] for s in part.screening}
    accept = {"accept_all": "accept"}
    assert screened == {
        "HumanEval/53": [(True, accept)],
        "HumanEval/23": [(False, accept)],
        "HumanEval/45": [(False, accept), (True, accept)],
        "HumanEval/55": [(False, accept)],
    }

    classes = step_classes(results).iloc[0]
    assert (classes["steps"], classes["unusable"], classes["reliable"], classes["not_reproduced"]) == (7, 1, 2, 2)
    rows = rq2_rows(results).set_index(["step_class", "position"])
    top = rows.loc[("all steps with a verdict", "all")]
    # passed before: HumanEval/53 (broken), /13 and /60 (kept); failed before: /23, /45 (fixed), /55 (not)
    assert (top["pass_fail_k"], top["pass_fail_n"], top["fail_pass_k"], top["fail_pass_n"]) == (1, 3, 2, 3)
    assert (top["misleading_k"], top["misleading_n"]) == (1, 2)  # /53's broken code passes the wrong assert

    analyzed = CliRunner().invoke(app, ["analyze", "--run-dir", str(run)])
    assert analyzed.exit_code == 0, analyzed.output
    summary = json.loads((run / "analysis" / "summary.json").read_text(encoding="utf-8"))
    assert summary["trajectories"]["real"] is True
    printed = [x.removeprefix("trajectories: ") for x in analyzed.output.splitlines() if x.startswith("trajectories: ")]
    assert printed[0] == (
        "unspecified my_logs [real, bigcodebench+humaneval]: 7 steps (1 unusable in the log); 4 judged (57.1%); reliable 2, "
        "unreliable 1, mixed 1, indeterminate 0, not_reproduced 2, not_evaluable 1"
    )
    every = next(x for x in printed if x.startswith("  all steps with a verdict:"))
    assert every.startswith("  all steps with a verdict: 6 steps, 6 tasks; P(Pass->Fail | passed) 33.3% [")
    assert every.endswith("(2/3, 3 tasks)")
    assert printed[1].startswith("  judged (reliable, unreliable or mixed), all steps: 4 steps, 4 tasks;")
    assert "unreliable steps: 1 steps, 1 tasks; P(Pass->Fail | passed) 100.0%" in analyzed.output
    assert sum("removed" in x for x in printed) == 4  # harness fault, not reproduced, not evaluable, unusable
    assert any(x.startswith("  judged fraction and bounds: 4 of 7 steps judged (57.1%)") for x in printed)
    assert any(x.startswith("  iteration 0: ") for x in printed)  # r_obs and r, read back from the log
    assert escape("P(Pass->Fail | passed)") in to_latex(trajectories_table(results), "tab:rq2_trajectories")

    page = trajectory_html(results, "my_logs", "HumanEval/53")
    assert "unreliable" in page and "pass -&gt; fail" in page and "wrong_expected_value" in page
    (run / "results.json.gz").unlink()  # before finalize_results: the steps come from the arm's checkpoint
    assert trajectory_results(run).part(TRAJECTORIES) == part  # the same steps in the same order

    # another screening list on the finished run: accepted, the steps are screened again by it, nothing else reruns
    again = run_params_study(tmp_path, params | {"screening": ["reject_test_code_errors"]}, shared_benchmarks)
    rescreened = load_results(again).part(TRAJECTORIES)
    assert rescreened is not None and rescreened.steps == part.steps
    assert {tuple(r.strategies) for r in rescreened.screening} == {("accept_all", "reject_test_code_errors")}
    assert len(rescreened.screening) == len(part.screening) and trajectory_results(again).part(TRAJECTORIES) == rescreened
