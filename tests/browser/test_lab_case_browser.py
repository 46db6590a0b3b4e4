"""A real browser: JupyterLab + Debian Chromium (Playwright) run 04_case_browser.ipynb on a smoke run."""

from __future__ import annotations

import json
import os
import re
import socket
import subprocess
import sys
import time
import urllib.request
from collections.abc import Iterator
from pathlib import Path

import pytest

from tests.helpers.env import CHROMIUM, require_executable
from tests.notebooks.smoke import ROOT, SMOKE_PARAMS
from tfr_helpers.notebooks.parameters import file_parameters

pytestmark = [pytest.mark.browser, pytest.mark.slow]

CHROMIUM_ARGS = [
    "--no-sandbox",
    "--disable-gpu",
    "--disable-dev-shm-usage",
    "--no-first-run",
    "--no-default-browser-check",
    "--disable-extensions",
    "--mute-audio",
]
OVERRIDES = {
    "@jupyterlab/notebook-extension:tracker": {"autoStartDefaultKernel": True},
    "@jupyterlab/apputils-extension:notification": {"fetchNews": "false"},
}
SCREENSHOT = ROOT / "test-artifacts" / "case_browser_lab.png"


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


def _wait_http(url: str, proc: subprocess.Popen[bytes], log: Path, timeout: float = 120) -> None:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if proc.poll() is not None:
            pytest.fail(f"JupyterLab exited early:\n{log.read_text()[-3000:]}")
        try:
            with urllib.request.urlopen(url, timeout=5):
                return
        except OSError:
            time.sleep(0.5)
    pytest.fail(f"JupyterLab not ready after {timeout} s:\n{log.read_text()[-3000:]}")


@pytest.fixture(scope="module")
def lab(tmp_path_factory: pytest.TempPathFactory, request: pytest.FixtureRequest) -> Iterator[tuple[str, Path]]:
    require_executable(str(CHROMIUM), "apt-get install chromium")
    import papermill as pm

    run = request.getfixturevalue("smoke_study").run_dir  # after the check: a missing browser skips first
    root = tmp_path_factory.mktemp("lab")
    pm.execute_notebook(
        str(ROOT / "notebooks" / "04_case_browser.ipynb"),
        str(root / "04_case_browser.ipynb"),
        parameters={**file_parameters(SMOKE_PARAMS), "run_dir": str(run)},
        prepare_only=True,
    )
    settings = root / ".lab-settings"
    settings.mkdir()
    (settings / "overrides.json").write_text(json.dumps(OVERRIDES))
    port, log = _free_port(), root / "lab.log"
    env = {
        **os.environ,
        "JUPYTERLAB_SETTINGS_DIR": str(root / ".user-settings"),
        "JUPYTERLAB_WORKSPACES_DIR": str(root / ".workspaces"),
    }
    with open(log, "wb") as out:
        proc = subprocess.Popen(
            [
                sys.executable,
                "-m",
                "jupyterlab",
                "--no-browser",
                "--allow-root",
                "--ip=127.0.0.1",
                f"--port={port}",
                "--ServerApp.token=",
                "--ServerApp.password=",
                "--ServerApp.disable_check_xsrf=True",
                f"--ServerApp.root_dir={root}",
                f"--LabApp.app_settings_dir={settings}",
            ],
            cwd=root,
            stdout=out,
            stderr=subprocess.STDOUT,
            env=env,
        )
    try:
        _wait_http(f"http://127.0.0.1:{port}/api/status", proc, log)
        yield f"http://127.0.0.1:{port}", run
    finally:
        proc.terminate()
        try:
            proc.wait(timeout=20)
        except subprocess.TimeoutExpired:
            proc.kill()


def test_filter_and_next_in_jupyterlab(lab: tuple[str, Path]) -> None:
    from playwright.sync_api import expect, sync_playwright

    expect.set_options(timeout=120_000)  # a cold kernel on a busy 2-core machine

    from tfr_helpers.views import CaseBrowser

    url, run = lab
    expected = CaseBrowser(run)  # the same steps in Python give the attempt the page must show
    expected.filters["benchmark"].value = "mbpp"
    expected.next_button.click()
    attempt = expected.current
    assert attempt is not None and attempt.benchmark == "mbpp"
    strategy, decision = next(iter(attempt.decisions.items()))

    with sync_playwright() as p:
        browser = p.chromium.launch(executable_path=str(CHROMIUM), headless=True, args=CHROMIUM_ARGS)
        try:
            page = browser.new_page(viewport={"width": 1400, "height": 1000})
            page.set_default_timeout(120_000)
            page.goto(f"{url}/lab/tree/04_case_browser.ipynb")
            expect(page.get_by_text(re.compile(r"\| Idle"))).to_be_visible()
            page.get_by_role("menuitem", name="Run", exact=True).click()
            page.get_by_text("Run All Cells", exact=True).click()
            first = page.locator(".tfr-attempt:visible").first
            expect(first).to_contain_text(expected.attempts[0].feedback_id)
            page.locator(".widget-dropdown", has=page.locator("label", has_text=re.compile(r"^benchmark$"))).locator(
                "select"
            ).select_option(label="mbpp")
            page.get_by_role("button", name="Next").click()
            shown = page.locator(".tfr-attempt:visible").first
            expect(shown).to_contain_text(attempt.feedback_id)
            expect(shown).to_contain_text(attempt.task_id)
            expect(shown).to_contain_text(f"{strategy}: {decision.decision}")
            SCREENSHOT.parent.mkdir(parents=True, exist_ok=True)
            page.screenshot(path=str(SCREENSHOT), full_page=False)
        finally:
            browser.close()
    assert SCREENSHOT.stat().st_size > 10_000
