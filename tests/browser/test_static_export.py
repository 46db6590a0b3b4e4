"""The nbconvert HTML of 04_case_browser stays interactive without a kernel (jslink switches the panes)."""

from __future__ import annotations

import re
import shutil
import subprocess
from pathlib import Path

import pytest

from tests.notebooks.smoke import ROOT, SMOKE_PARAMS, smoke_run

pytestmark = [pytest.mark.browser, pytest.mark.slow]

CHROMIUM = Path("/usr/bin/chromium")
CDN_REQUIRE = "https://cdnjs.cloudflare.com/ajax/libs/require.js/2.1.10/require.min.js"
CDN_EMBED = "https://unpkg.com/@jupyter-widgets/html-manager@*/dist/embed-amd.js"


@pytest.fixture(scope="module")
def widget_js(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The widget manager from npm (exports load it from a CDN; tests run offline, so use local copies)."""
    if not CHROMIUM.exists():
        pytest.skip(f"{CHROMIUM} is absent: install it with .ci/install_chromium.sh")
    npm = shutil.which("npm")
    if npm is None:
        pytest.skip("npm is absent: the offline check of the static export needs the widget manager from npm")
    prefix = tmp_path_factory.mktemp("widgetjs")
    done = subprocess.run(
        [npm, "install", "--prefix", str(prefix), "--silent", "--no-audit", "--no-fund",
         "@jupyter-widgets/html-manager@1", "requirejs@2"],
        capture_output=True, text=True, timeout=300,
    )
    if done.returncode != 0:
        pytest.skip(f"npm install of the widget manager failed (registry unreachable?): {done.stderr[-500:]}")
    return prefix / "node_modules"


def test_attempt_list_switches_panes_in_static_html(tmp_path_factory: pytest.TempPathFactory,
                                                    widget_js: Path) -> None:
    from playwright.sync_api import expect, sync_playwright

    from tfr_helpers.notebooks import run_notebooks
    from tfr_helpers.views import CaseBrowser

    run = smoke_run(tmp_path_factory.getbasetemp())
    report = run_notebooks(SMOKE_PARAMS, run, names=("04_case_browser.ipynb",)).notebooks[0]
    html = report.html.read_text()
    assert CDN_REQUIRE in html and CDN_EMBED in html  # if nbconvert changes these, update the rewrite below
    html = html.replace(CDN_REQUIRE, (widget_js / "requirejs" / "require.js").as_uri())
    html = html.replace(CDN_EMBED, (widget_js / "@jupyter-widgets/html-manager/dist/embed-amd.js").as_uri())
    page_file = report.html.with_name("04_case_browser.offline.html")
    page_file.write_text(html)
    attempts = CaseBrowser(run).attempts
    with sync_playwright() as p:
        browser = p.chromium.launch(executable_path=str(CHROMIUM), headless=True,
                                    args=["--no-sandbox", "--disable-gpu", "--allow-file-access-from-files"])
        try:
            page = browser.new_page(viewport={"width": 1300, "height": 900})
            page.route(re.compile(r"^https?://"), lambda route: route.abort())  # no kernel, no network
            page.goto(page_file.as_uri())
            expect(page.locator(".tfr-attempt:visible").first).to_contain_text(attempts[0].feedback_id,
                                                                              timeout=60_000)
            page.locator(".widget-select select").first.select_option(index=3)
            expect(page.locator(".tfr-attempt:visible").first).to_contain_text(attempts[3].feedback_id,
                                                                              timeout=10_000)
            shot = ROOT / "test-artifacts" / "case_browser_static.png"
            shot.parent.mkdir(parents=True, exist_ok=True)
            page.screenshot(path=str(shot))
        finally:
            browser.close()
