"""The HTML export of 04_case_browser works offline: widgets render from ``_static/`` and Next/Previous step."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from tests.helpers.env import CHROMIUM, require_executable
from tests.helpers.smoke import series_notebook
from tests.notebooks.smoke import ROOT

pytestmark = [pytest.mark.browser, pytest.mark.slow]

# a proxy nobody listens on: a request that escaped the route below would fail too, never reach the network
CHROMIUM_ARGS = ["--no-sandbox", "--disable-gpu", "--disable-dev-shm-usage", "--proxy-server=http://127.0.0.1:9"]


@pytest.fixture(scope="module")
def exported(request: pytest.FixtureRequest) -> tuple[Path, Path]:
    """The smoke run and the HTML of its executed case browser notebook (from the shared notebook series)."""
    require_executable(str(CHROMIUM), "apt-get install chromium")
    require_executable("npm", "apt-get install npm: the export takes the widget manager from the npm registry")
    series = request.getfixturevalue("smoke_series")  # after the checks: a missing browser skips before the study
    return series.run_dir, series_notebook(series, "04_case_browser.ipynb").html


def test_export_references_no_network(exported: tuple[Path, Path]) -> None:
    _, html_file = exported
    html = html_file.read_text()
    sources = re.findall(r"""(?:src=|Src = |import\()["']([^"']+)["']""", html)
    assert "_static/require.js" in sources and "_static/embed-amd.js" in sources
    assert not [s for s in sources if "://" in s and not s.startswith("{{")], sources
    assert "mathjax" not in html.lower()


def test_case_browser_renders_and_steps_with_the_network_off(exported: tuple[Path, Path]) -> None:
    from playwright.sync_api import Route, expect, sync_playwright

    from tfr_helpers.views import CaseBrowser

    run, html_file = exported
    attempts = CaseBrowser(run).attempts
    assert len(attempts) >= 4, "the smoke run needs at least four attempts to step through"
    external: list[str] = []
    local: list[str] = []
    failed: list[str] = []

    def offline(route: Route) -> None:
        url = route.request.url
        if url.startswith("file:"):
            local.append(url)
            route.continue_()
        else:
            external.append(url)
            route.abort("internetdisconnected")

    with sync_playwright() as p:
        browser = p.chromium.launch(executable_path=str(CHROMIUM), headless=True, args=CHROMIUM_ARGS)
        try:
            context = browser.new_context(viewport={"width": 1300, "height": 900})
            context.route("**/*", offline)
            page = context.new_page()
            page.on("requestfailed", lambda request: failed.append(request.url))
            page.goto(html_file.as_uri())
            shown = page.locator(".tfr-attempt:visible").first
            expect(shown).to_contain_text(attempts[0].feedback_id, timeout=60_000)
            page.get_by_role("button", name="Next").click()
            expect(shown).to_contain_text(attempts[1].feedback_id, timeout=10_000)
            page.get_by_role("button", name="Next").click()
            expect(shown).to_contain_text(attempts[2].feedback_id, timeout=10_000)
            page.get_by_role("button", name="Previous").click()
            expect(shown).to_contain_text(attempts[1].feedback_id, timeout=10_000)
            page.locator(".tfr-steps select").select_option(index=3)  # the list drives the panes (jslink)
            expect(shown).to_contain_text(attempts[3].feedback_id, timeout=10_000)
            fonts = page.evaluate("Promise.all([document.fonts.ready]).then(() => [...document.fonts].map(f => f.status))")
            shot = ROOT / "test-artifacts" / "case_browser_static.png"
            shot.parent.mkdir(parents=True, exist_ok=True)
            page.screenshot(path=str(shot))
        finally:
            browser.close()
    assert external == [], f"the export asked the network for {external}"
    assert any(u.endswith("/_static/embed-amd.js") for u in local), local
    assert failed == external, f"files the page asked for are missing from the export: {failed}"
    assert "loaded" in fonts and "error" not in fonts, fonts  # the buttons' Font Awesome icons
