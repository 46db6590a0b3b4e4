"""Drive the case browser in plain Python against a synthetic run directory."""

from __future__ import annotations

import json
from pathlib import Path

import ipywidgets as W
import pytest

from tests.helpers.synthetic import make_synthetic_run
from tfr_helpers.errors import RunDirError
from tfr_helpers.pipeline.engine.artifact_log import read_artifact
from tfr_helpers.views import ALL, CaseBrowser


@pytest.fixture(scope="module")
def run_dir(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return make_synthetic_run(tmp_path_factory.mktemp("runs"))


@pytest.fixture()
def browser(run_dir: Path) -> CaseBrowser:
    return CaseBrowser(run_dir)


def _shown_task(browser: CaseBrowser) -> str:
    assert browser.current is not None
    assert browser.current.task_id in browser.shown_html()
    return browser.current.task_id


def test_initial_view_shows_the_first_attempt(browser: CaseBrowser) -> None:
    n = sum(p.feedback is not None for p in browser.results.pair_evaluations)
    assert len(browser.matching) == n > 0
    assert browser.stack.selected_index == 0
    first = browser.matching[0]
    html = browser.shown_html()
    assert first.task_id in html and first.feedback_id in html
    assert "generated code" in html and first.code.code.splitlines()[0].split("(")[0].split()[-1] in html
    assert f"{len(browser.matching)} matching attempts" in browser.status.value


def test_next_and_previous_step_through_the_list(browser: CaseBrowser) -> None:
    seen = [browser.current]
    browser.next_button.click()
    assert browser.stack.selected_index == 1 and browser.current is browser.matching[1]
    seen.append(browser.current)
    assert seen[1].feedback_id in browser.shown_html() and seen[0].feedback_id not in browser.shown_html()
    browser.prev_button.click()
    browser.prev_button.click()  # stops at the first attempt
    assert browser.stack.selected_index == 0 and browser.current is seen[0]
    for _ in range(len(browser.matching) + 2):
        browser.next_button.click()
    assert browser.current is browser.matching[-1]


@pytest.mark.parametrize(
    ("name", "attribute"),
    [(name, name) for name in ("model", "benchmark", "reliability", "transition")],
)
def test_each_filter_narrows_the_list(browser: CaseBrowser, name: str, attribute: str) -> None:
    dropdown = browser.filters[name]
    values = [v for v in dropdown.options if v != ALL]
    assert len(values) >= 2
    for value in values:
        dropdown.value = value
        assert browser.matching, f"{name}={value} matched nothing"
        assert all(getattr(a, attribute) == value for a in browser.matching)
        browser.next_button.click()
        assert getattr(browser.current, attribute) == value
        _shown_task(browser)
    dropdown.value = ALL
    assert len(browser.matching) == len(browser.attempts)


def test_decision_filter_applies_to_the_chosen_strategy(browser: CaseBrowser) -> None:
    browser.filters["strategy"].value = "llm_judge_reasoning"
    browser.filters["decision"].value = "reject"
    assert browser.matching
    for attempt in browser.matching:
        assert attempt.decisions["llm_judge_reasoning"].decision == "reject"
    html = browser.shown_html()
    assert "llm_judge_reasoning</b>: <b>reject" in html
    assert "judge&#x27;s reasoning" in html and "looks plausible" in html
    browser.filters["strategy"].value = "accept_all"
    assert browser.matching == []


def test_empty_selection_shows_a_message_not_an_error(browser: CaseBrowser) -> None:
    browser.filters["strategy"].value = "accept_all"
    browser.filters["decision"].value = "reject"
    assert browser.current is None
    assert browser.stack.children == () and browser.shown_html() == ""
    assert "No attempt matches these filters" in browser.status.value
    browser.next_button.click()
    browser.prev_button.click()
    assert browser.current is None
    browser.filters["decision"].value = ALL
    assert browser.current is browser.matching[0]


def test_rows_hold_code_diff_outcomes_and_artifacts(browser: CaseBrowser) -> None:
    browser.filters["transition"].value = "fail->pass"
    attempt = browser.current
    assert attempt is not None and attempt.refinement is not None and attempt.refinement.code
    pane = browser.stack.children[browser.stack.selected_index]
    accordion = pane.children[1]
    assert isinstance(accordion, W.Accordion)
    assert accordion.titles == ("Setup", "RQ1: feedback reliability", "RQ2: refinement", "RQ3: screening")
    setup, rq1, rq2, rq3 = (child.value for child in accordion.children)
    assert "<span style=" in setup  # pygments inline highlighting
    assert attempt.test.name in setup and "code generation prompt" in setup
    prompt = read_artifact(browser.run_dir, attempt.code.call.prompt_path)
    assert prompt is not None and prompt[:20].strip() in setup
    assert attempt.pair.case in rq1 and "reference" in rq1
    assert "diff against the generated code" in rq2 and "fail-&gt;pass" in rq2
    assert "@@" in rq2 or "identical to the generated code" in rq2
    assert all(s in rq3 for s in attempt.decisions)


def test_no_code_transition_is_shown_without_diff(browser: CaseBrowser) -> None:
    browser.filters["transition"].value = "no_code"
    assert browser.current is not None
    assert "no usable code" in browser.shown_html()


def test_widget_state_is_serialisable_for_static_html(browser: CaseBrowser) -> None:
    state = W.Widget.get_manager_state(widgets=[browser.widget])
    json.dumps(state)
    full = W.Widget.get_manager_state()["state"]
    link = full[browser.js_link.model_id]["state"]
    assert link["_model_name"] == "LinkModel"
    assert link["source"] == ["IPY_MODEL_" + browser.attempts_list.model_id, "index"]
    assert link["target"] == ["IPY_MODEL_" + browser.stack.model_id, "selected_index"]


def test_missing_results_is_one_clear_error(tmp_path: Path) -> None:
    with pytest.raises(RunDirError, match="not a started run"):
        CaseBrowser(tmp_path)
    (tmp_path / "results.json").write_text("{}")
    with pytest.raises(RunDirError, match="rerun finalize_results"):
        CaseBrowser(tmp_path)
