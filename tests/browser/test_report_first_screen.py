"""Notebook 01's HTML report, opened offline: the title, the sources banner and the first table on the first screen,
and the declared parameters nowhere in the visible text."""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.browser.test_static_export import CHROMIUM_ARGS
from tests.helpers.env import CHROMIUM, require_executable
from tests.helpers.smoke import series_notebook

pytestmark = [pytest.mark.browser, pytest.mark.slow]

FIRST_SCREEN_PX = 1400


@pytest.fixture(scope="module")
def report(request: pytest.FixtureRequest) -> Path:
    require_executable(str(CHROMIUM), "apt-get install chromium")
    series = request.getfixturevalue("smoke_series")  # after the check: a missing browser skips before the study
    return series_notebook(series, "01_rq1_feedback_reliability.ipynb").html


def test_the_first_screen_shows_the_question_the_sources_and_a_table(report: Path) -> None:
    from playwright.sync_api import Route, sync_playwright

    external: list[str] = []

    def local_files_only(route: Route) -> None:  # the network is blocked: every other request is refused
        url = route.request.url
        (route.continue_() if url.startswith("file:") else (external.append(url), route.abort("internetdisconnected")))

    with sync_playwright() as p:
        browser = p.chromium.launch(executable_path=str(CHROMIUM), headless=True, args=CHROMIUM_ARGS)
        try:
            page = browser.new_page(viewport={"width": 1300, "height": 900})
            page.route("**/*", local_files_only)
            page.goto(report.as_uri())
            title = page.locator("h1").first
            assert "RQ1: how reliable is test-fail feedback" in title.inner_text()
            banner = page.get_by_text("SIMULATED MODEL (sim:default)").first
            table = page.locator("table").first
            for name, element in (("title", title), ("banner", banner), ("first table", table)):
                box = element.bounding_box()
                assert box is not None, name
                assert box["y"] + box["height"] <= FIRST_SCREEN_PX, (name, box)
            text = page.locator("body").inner_text()
        finally:
            browser.close()
    assert "Experiment parameters, generated from ExperimentConfig" not in text
    assert "hypothesis_max_examples: int" not in text  # no declaration of the generated parameters cell
    assert 'run_name = "smoke"' in text  # the injected values are shown
    assert not external, external
