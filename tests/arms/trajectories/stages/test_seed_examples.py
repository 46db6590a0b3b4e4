"""Known answers: the study's four worked examples (examples/seed_examples, papermill_params/seed_examples.yaml) get
the study's class and transition from tfr's own execution, and ``tfr analyze`` lists each in the study's layout."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
import yaml
from typer.testing import CliRunner

from tests.helpers.smoke import run_params_study
from tfr_helpers.arms.trajectories import ARM as TRAJECTORIES
from tfr_helpers.cli import app
from tfr_helpers.pipeline.engine.codec import load_results
from tfr_helpers.replay.trajectories.sets import clear_trajectory_cache, load_trajectories

ROOT = Path(__file__).parents[4]
EXAMPLES = ROOT / "examples" / "seed_examples"
PARAMS = ROOT / "papermill_params" / "seed_examples.yaml"

STUDY = {  # task -> (the study's class of the feedback, its transition)
    "HumanEval/149": ("unreliable", "pass->fail"),  # the EBT wants "cd" before "ab"; the refinement drops the sort
    "MBPP/63": ("unreliable", "pass->fail"),  # the EBT expects 6 where (10, 3) differs by 7; abs() is dropped
    "HumanEval/83": ("reliable", "fail->pass"),  # the code mishandles n = 1
    "MBPP/106": ("reliable", "fail->pass"),  # the code appends the list as one tuple element
}


def test_the_four_examples_load_as_one_step_each() -> None:
    clear_trajectory_cache()
    found = load_trajectories(f"replay:{EXAMPLES}")
    assert found.benchmark == "humaneval+mbpp" and not found.unusable
    assert found.origin == "hand-written"  # never labelled as a published log's evidence
    assert {t.task_id: t.usable_steps for t in found.trajectories} == dict.fromkeys(STUDY, [0])


@pytest.mark.slow  # the whole study (a one-task base study beside the four steps): over 10 s on two busy cores
def test_the_four_examples_get_the_studys_class_and_transition(tmp_path: Path, shared_benchmarks: Path) -> None:
    clear_trajectory_cache()
    params = yaml.safe_load(PARAMS.read_text(encoding="utf-8"))
    params["models"]["coders"][0]["model"] = f"replay:{ROOT / 'examples' / 'three_tasks'}"
    params["trajectories"] = [f"replay:{EXAMPLES}"]
    run = run_params_study(tmp_path, params, shared_benchmarks)
    part = load_results(run).part(TRAJECTORIES)
    assert part is not None
    assert {s.task_id: (s.step_class, s.transition) for s in part.steps} == STUDY
    causes = {s.task_id: [v.cause for v in s.tests] for s in part.steps if s.step_class == "unreliable"}
    assert causes == {"HumanEval/149": ["wrong_expected_value"], "MBPP/63": ["wrong_expected_value"]}
    # each refined code of a Pass->Fail step passes the wrong test that broke it (the misleading diagnostic)
    assert {s.task_id for s in part.steps if s.logged_tests_after} == set(STUDY)

    analyzed = CliRunner().invoke(app, ["analyze", "--run-dir", str(run)])
    assert analyzed.exit_code == 0, analyzed.output
    listed = [x.strip() for x in analyzed.output.splitlines() if " step 0: RQ1 feedback " in x]
    expected = {
        "HumanEval/149": "unreliable (wrong_expected_value); RQ2 Pass->Fail",
        "MBPP/63": "unreliable (wrong_expected_value); RQ2 Pass->Fail",
        "HumanEval/83": "reliable; RQ2 Fail->Pass",
        "MBPP/106": "reliable; RQ2 Fail->Pass",
    }
    assert len(listed) == 4
    assert "seed-examples [hand-written, not evidence, humaneval+mbpp]" in analyzed.output
    assert json.loads((run / "analysis" / "summary.json").read_text())["trajectories"]["real"] is False
    for task, text in expected.items():
        line = next(x for x in listed if x.startswith(f"trajectories:   {task} step 0"))
        assert f"RQ1 feedback {text}; RQ3 judges need a model, offline, reference-free: accept_all accept" in line

    cases = CliRunner().invoke(app, ["cases", "--run-dir", str(run)])
    assert cases.exit_code == 0, cases.output
    page = (run / "trajectory_cases_seed-examples.md").read_text(encoding="utf-8")
    assert "hand-written worked examples, not evidence" in page and "published log" not in page
    assert page.count("| RQ3 | Judges' Accept/Reject of the failing tests | the LLM judges") == 4
