"""Screenshot the first screen of exported HTML reports, offline, as the docs' pictures were taken.

    uv run tfr run                     # the main job: runs/default
    uv run python docs/tools/first_screen.py runs/default/notebooks docs/
    uv run python docs/tools/first_screen.py runs/default/notebooks/01_rq1_feedback_reliability.html out.png

Given a directory of reports and a target directory, every ``NN_*.html`` is shot to ``report_NN_first_screen.png``.
Chromium (``/usr/bin/chromium``) opens the file with every request but ``file:`` refused and a proxy nobody listens
on, so the page shows only what it carries with it. The viewport is 1,400 x 1,000 px, as in the browser test
(``tests/browser/test_reports.py``).
"""

from __future__ import annotations

import argparse
from pathlib import Path

from playwright.sync_api import Route, sync_playwright

CHROMIUM = "/usr/bin/chromium"
ARGS = ["--no-sandbox", "--disable-gpu", "--disable-dev-shm-usage", "--disable-background-networking"]
ARGS += ["--disable-component-update", "--disable-sync", "--proxy-server=http://127.0.0.1:9"]
WIDTH, HEIGHT = 1400, 1000


def local_only(route: Route) -> None:
    if route.request.url.startswith("file:"):
        route.continue_()
    else:
        route.abort("internetdisconnected")


def first_screens(pairs: list[tuple[Path, Path]], width: int = WIDTH, height: int = HEIGHT, full: bool = False) -> None:
    with sync_playwright() as p:
        browser = p.chromium.launch(executable_path=CHROMIUM, headless=True, args=ARGS)
        try:
            for html, png in pairs:
                page = browser.new_page(viewport={"width": width, "height": height})
                page.route("**/*", local_only)
                page.goto(html.resolve().as_uri())
                page.wait_for_timeout(2000)  # the case browser's script and any widgets render
                page.screenshot(path=str(png), full_page=full)
                page.close()
                print(png)
        finally:
            browser.close()


def targets(source: Path, target: Path) -> list[tuple[Path, Path]]:
    """(report, picture) pairs: one file to one file, or every ``NN_*.html`` of a directory into a directory."""
    if source.is_file():
        return [(source, target)]
    target.mkdir(parents=True, exist_ok=True)
    return [(html, target / f"report_{html.name.split('_')[0]}_first_screen.png") for html in sorted(source.glob("0*.html"))]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("source", type=Path, help="an exported report (.html) or a directory of them")
    parser.add_argument("target", type=Path, help="the picture (.png) for one report, or a directory for many")
    parser.add_argument("--full", action="store_true", help="the whole page, not only its first screen")
    args = parser.parse_args()
    first_screens(targets(args.source, args.target), full=args.full)


if __name__ == "__main__":
    main()
