"""Screenshot the first screen of exported HTML reports, offline, as the docs' pictures were taken.

    uv run tfr run --params papermill_params/smoke.yaml --run-dir runs/smoke
    uv run python docs/tools/first_screen.py runs/smoke/notebooks/01_rq1_feedback_reliability.html \
        docs/report_01_first_screen.png

Chromium (``/usr/bin/chromium``) opens the file with every request but ``file:`` refused and a proxy nobody
listens on, so the page shows only what it carries with it. The viewport is 1300 x 1000 px.
"""

from __future__ import annotations

import sys
from pathlib import Path

from playwright.sync_api import Route, sync_playwright

CHROMIUM = "/usr/bin/chromium"
ARGS = ["--no-sandbox", "--disable-gpu", "--disable-dev-shm-usage", "--proxy-server=http://127.0.0.1:9"]


def local_only(route: Route) -> None:
    if route.request.url.startswith("file:"):
        route.continue_()
    else:
        route.abort("internetdisconnected")


def first_screen(html: Path, png: Path, width: int = 1300, height: int = 1000) -> None:
    with sync_playwright() as p:
        browser = p.chromium.launch(executable_path=CHROMIUM, headless=True, args=ARGS)
        try:
            page = browser.new_page(viewport={"width": width, "height": height})
            page.route("**/*", local_only)
            page.goto(html.resolve().as_uri())
            page.wait_for_timeout(4000)  # the widget manager renders the case browser's widgets
            page.screenshot(path=str(png))
        finally:
            browser.close()


if __name__ == "__main__":
    first_screen(Path(sys.argv[1]), Path(sys.argv[2]))
