"""The case browser's Controls row: an attempt shows its control siblings (code and verdicts), only with the arm."""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.helpers.synthetic import make_synthetic_run
from tfr_helpers.arms.controls import view
from tfr_helpers.arms.controls.records import ControlRefinedEvaluation, ControlRefinement, ControlsResults
from tfr_helpers.pipeline.engine.codec import load_results
from tfr_helpers.records import ModelCallRecord
from tfr_helpers.views import CaseBrowser, show_arm


def _titles(browser: CaseBrowser) -> list[str]:
    accordion = browser.stack.children[browser.stack.selected_index].children[1]
    return [accordion.get_title(i) for i in range(len(accordion.children))]


@pytest.fixture(scope="module")
def run_dir(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return make_synthetic_run(tmp_path_factory.mktemp("runs"), seed=3)


def test_a_run_without_controls_has_no_controls_row(run_dir: Path) -> None:
    assert not any(t.startswith("Controls") for t in _titles(CaseBrowser(run_dir)))


def test_the_controls_row_shows_each_sibling_with_its_code_and_verdicts(run_dir: Path, tmp_path: Path) -> None:
    first = CaseBrowser(run_dir).matching[0]
    call = ModelCallRecord(model=first.model, role="refiner", stage="control_retry", template="retry", template_version="1")
    head = {"feedback_id": first.feedback_id, "model": first.model, "task_id": first.task_id}
    refs = [
        ControlRefinement(**head, control="retry", code="def f(x):\n    return 777001\n", call=call),
        ControlRefinement(**head, control="placebo", code=None, parse_error="no code in the response", call=call),
    ]
    evs = [
        ControlRefinedEvaluation(
            **head,
            control="retry",
            benchmark_before=False,
            benchmark_after=True,
            generated_test_after=None,
            transition="fail->pass",
        ),
        ControlRefinedEvaluation(
            **head,
            control="placebo",
            benchmark_before=False,
            benchmark_after=None,
            generated_test_after=None,
            transition="no_code",
        ),
    ]
    arm = ControlsResults(controls=["resample", "retry", "placebo"], refinements=refs, refined_evaluations=evs)
    run = tmp_path / "run"
    run.mkdir()
    results = load_results(run_dir)
    (run / "results.json").write_text(
        results.model_copy(update={"arm_parts": {**results.arm_parts, "controls": arm}}).model_dump_json()
    )
    browser = CaseBrowser(run)
    assert browser.current == first and "Controls (RQ2)" in _titles(browser)
    shown = browser.shown_html()
    for text in ("resample: not run yet", "retry: fail-&gt;pass", "777001", "placebo: no_code", "same refiner"):
        assert text in shown, text


def test_notebook_02_shows_the_arm_by_name_through_the_registry(run_dir: Path) -> None:
    results = load_results(run_dir)
    assert view.section({0: results})[0].data.startswith("> This run has no control arm")  # how to switch it on
    show_arm("controls", {0: results})  # what the notebook calls: the registry finds the view
    arm = ControlsResults(controls=["retry"])
    shown = view.section({0: results.model_copy(update={"arm_parts": {**results.arm_parts, "controls": arm}})})
    assert [type(item).__name__ for item in shown] == ["Styler", "Figure"]  # the rq2_controls table, its figure
    assert "RQ2 with controls" in shown[0].to_html()
