"""The case browser's Rounds row: the rounds of the selected attempt's chain, only in runs with rounds."""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.helpers.synthetic import make_synthetic_run
from tfr_helpers.arms.rounds import ARM
from tfr_helpers.arms.rounds.records import RoundChain, RoundsResults, RoundStep
from tfr_helpers.pipeline.engine.codec import load_results
from tfr_helpers.views import CaseBrowser


def _titles(browser: CaseBrowser) -> list[str]:
    index = browser.stack.selected_index
    accordion = browser.stack.children[index].children[1]
    return [accordion.get_title(i) for i in range(len(accordion.children))]


@pytest.fixture(scope="module")
def run_dir(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return make_synthetic_run(tmp_path_factory.mktemp("runs"), seed=2)


def test_a_run_without_rounds_has_no_rounds_row(run_dir: Path) -> None:
    assert "Rounds" not in _titles(CaseBrowser(run_dir))


def test_the_rounds_row_steps_through_the_chain_of_the_shown_attempt(run_dir: Path, tmp_path: Path) -> None:
    first = CaseBrowser(run_dir).matching[0]
    steps = [
        RoundStep(
            round=1,
            action="refined",
            suite_size=4,
            suite_reference_passed=3,
            failed=[f"{first.model}|{first.task_id}|ebt|0"],
            unreliable=[],
            feedback="FEEDBACK OF ROUND ONE",
            code="def f(x):\n    return 4242\n",
            benchmark_before=False,
            benchmark_after=True,
            transition="fail->pass",
            collision=False,
        ),
        RoundStep(
            round=2, action="stopped", suite_size=4, suite_reference_passed=4, benchmark_before=True, benchmark_after=True
        ),
    ]
    chain = RoundChain(
        chain_id=f"{first.model}|{first.task_id}|c{first.pair.code_index}",
        model=first.model,
        refiner=first.model,
        task_id=first.task_id,
        benchmark=first.benchmark,
        round_tests="fresh",
        initial_passed=False,
        steps=steps,
    )
    results = load_results(run_dir)
    rounds = RoundsResults(rounds=3, round_tests="fresh", stop_when_passing=True, chains=[chain])
    run = tmp_path / "run"
    run.mkdir()
    (run / "results.json").write_text(results.model_copy(update={"arm_parts": {ARM.name: rounds}}).model_dump_json())
    browser = CaseBrowser(run)
    assert browser.current == first and _titles(browser)[-1] == "Rounds"
    shown = browser.shown_html()
    for text in ("round 1: refined", "FEEDBACK OF ROUND ONE", "4242", "round 2: stopped", "2 of 3 rounds (stopped early)"):
        assert text in shown, text
    browser.next_button.click()  # another code sample's attempt: no chain of its own here
    if browser.current is not None and browser.current.task_id != first.task_id:
        assert "no chain for this code sample" in browser.shown_html()
