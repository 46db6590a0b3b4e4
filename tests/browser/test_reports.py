"""Every exported report of a study with real replayed data, a replayed trajectory log and the simulated model, opened
in Chromium with the network off at 1,400 x 1,000 px: the headline box on the first screen with a real number (02:
a real trajectory row), no parameters cell and no absolute path before "Run details", nothing wider than the
viewport, and the case browser opening a replayed case and stepping through a replayed trajectory."""

from __future__ import annotations

import json
import re
import shutil
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest
import yaml

from tests.helpers.env import CHROMIUM, require_executable
from tests.notebooks.smoke import ROOT

pytestmark = [pytest.mark.browser, pytest.mark.slow, pytest.mark.notebooks]

VIEWPORT = {"width": 1400, "height": 1000}
CHROMIUM_ARGS = ["--no-sandbox", "--disable-gpu", "--disable-background-networking", "--disable-component-update"]
CHROMIUM_ARGS += ["--disable-sync", "--disable-dev-shm-usage", "--proxy-server=http://127.0.0.1:9"]
REPLAYED = "replay:codet-codegen16b-humaneval"
SCREENSHOT = ROOT / "test-artifacts" / "case_browser_offline.png"
STEP_SCREENSHOT = ROOT / "test-artifacts" / "trajectory_step_offline.png"
FIRST_SCREEN_02 = ROOT / "test-artifacts" / "report_02_first_screen.png"
TRAJECTORY_LOG = ROOT / "tests" / "replay" / "data" / "reflexion_log"
"""The hand-built Reflexion-format log of the trajectory arm's tests (7 steps of known class and transition)."""
TRAJECTORY_MODEL = "unspecified · my_logs"
"""Its rows' model: the log names no model (no meta.json), the set is named for its directory."""
GPT4O_MODEL = "GPT-4o · gpt4o_logs"
"""A second set, named for GPT-4o by its meta.json: a step of it must show GPT-4o's code, not another set's."""
GPT4O_CODE = "return sum((x, y)) + 0  # GPT-4o's second attempt"
GPT4O_LOG = {
    "name": "HumanEval_53_add",
    "entry_point": "add",
    "implementations": [
        "def add(x: int, y: int) -> int:\n    return x - y\n",
        "def add(x: int, y: int) -> int:\n    " + GPT4O_CODE,  # no final newline: the diff must still split lines
    ],
    "test_feedback": [
        "Tested passed:\n\nTests failed:\nassert add(2, 3) == 5 # output: -1",
        "Tested passed:\n\nTests failed:\n",
    ],
    "reflections": ["(reflection)"],
    "is_solved": True,
    "solution": "def add(x: int, y: int) -> int:\n    " + GPT4O_CODE,
}
SERIES = ("00_setup.ipynb", "01_rq1_feedback_reliability.ipynb", "02_rq2_refinement.ipynb", "03_rq3_screening.ipynb")
SERIES += ("03b_consensus_selection.ipynb", "04_case_browser.ipynb")
SHARE_WITH_INTERVAL = re.compile(
    r"\d+(\.\d+)?% (\[\d+(\.\d+)?, \d+(\.\d+)?\]|\((all|none of) [\d,]+; \[\d+(\.\d+)?, \d+(\.\d+)?\]\))"
)  # a share with its interval; at 0% or 100% written as what it is: "100.0% (all 25; [86.7, 100.0])"
INTERVAL_REPORTS = ("01_rq1_feedback_reliability.ipynb", "02_rq2_refinement.ipynb", "03_rq3_screening.ipynb")
"""Reports whose real rows are shares with intervals on this study (02: the replayed trajectory's rows, its replayed
coders have no refiner; 00, 03b and 04 give counts and pass@1)."""


@dataclass(frozen=True)
class Series:
    run_dir: Path
    html: dict[str, Path]


@pytest.fixture(scope="module")
def series(tmp_path_factory: pytest.TempPathFactory, shared_benchmarks: Path) -> Series:
    """``papermill_params/replay_smoke.yaml`` on 3 tasks with ``sim:default`` and a replayed trajectory log (a
    Reflexion-format file alone in a directory) added, its notebook series run."""
    require_executable(str(CHROMIUM), "apt-get install chromium")
    from tfr_helpers.notebooks import run_notebooks

    root = tmp_path_factory.mktemp("reports")
    logs, gpt4o = root / "my_logs", root / "gpt4o_logs"
    shutil.copytree(TRAJECTORY_LOG, logs)
    gpt4o.mkdir()
    (gpt4o / "meta.json").write_text(json.dumps({"model": "GPT-4o"}))
    (gpt4o / "run._reflexion_2_model_pass_at_k_1_py.jsonl").write_text(json.dumps(GPT4O_LOG) + "\n")
    params = yaml.safe_load((ROOT / "papermill_params" / "replay_smoke.yaml").read_text())
    sets = [f"replay:{logs}", f"replay:{gpt4o}"]
    params |= {"run_name": "replay_smoke_demo", "tasks": {"humaneval": 3}, "trajectories": sets}
    params["models"]["coders"].append("sim:default")
    path = root / "params.yaml"
    path.write_text(yaml.safe_dump(params))
    with pytest.MonkeyPatch.context() as mp:
        mp.setenv("TFR_BENCHMARK_DIR", str(shared_benchmarks))
        mp.setenv("TFR_CACHE_DIR", str(root / "cache"))
        done = run_notebooks(path, root / "run", names=SERIES, progress=False)
    return Series(done.run_dir, {r.name: r.html for r in done.notebooks})


def _open(p: Any, html: Path) -> Any:
    browser = p.chromium.launch(executable_path=str(CHROMIUM), headless=True, args=CHROMIUM_ARGS)
    page = browser.new_page(viewport=VIEWPORT)
    page.route("**/*", lambda route: route.continue_() if route.request.url.startswith("file:") else route.abort())
    page.goto(html.as_uri())
    return browser, page


def _filtered(page: Any, model: str, count: int) -> Any:
    """The case browser of a page, filtered to one model's ``count`` cases."""
    from playwright.sync_api import expect

    cases = page.locator(".tfr-cases").first
    cases.locator("select[data-key='model']").select_option(model)
    expect(cases.locator(".tfr-status")).to_contain_text(f"{count} matching")
    return cases


WIDER = """() => [...document.querySelectorAll('body *')].filter(e => {
  const r = e.getBoundingClientRect(); return r.width > 0 && r.right > window.innerWidth + 1;
}).map(e => e.tagName + '.' + e.className).slice(0, 10)"""


def test_every_report_opens_on_its_answer_and_fits_the_viewport(series: Series) -> None:
    from playwright.sync_api import sync_playwright

    assert set(series.html) == set(SERIES)
    FIRST_SCREEN_02.parent.mkdir(parents=True, exist_ok=True)
    with sync_playwright() as p:
        for name, html in series.html.items():
            browser, page = _open(p, html)
            try:
                box = page.locator(".tfr-headline").first
                where = box.bounding_box()
                assert where is not None and where["y"] < VIEWPORT["height"], (name, where)
                assert box.locator(".tfr-badge-replayed").count(), name  # a real row, badged as such
                answers = box.locator(".tfr-answer").all_inner_texts()
                if name in INTERVAL_REPORTS:
                    assert any(SHARE_WITH_INTERVAL.fullmatch(a) for a in answers), (name, answers)
                if name == "02_rq2_refinement.ipynb":  # leads with the real trajectory rows, on the first screen
                    row = box.locator("tr", has_text=TRAJECTORY_MODEL).first
                    found = row.bounding_box()
                    assert found is not None and found["y"] + found["height"] < VIEWPORT["height"], found
                    assert SHARE_WITH_INTERVAL.fullmatch(row.locator(".tfr-answer").inner_text())
                    page.screenshot(path=str(FIRST_SCREEN_02))  # the first screen, as a reader meets it
                    page_text = page.locator("body").inner_text()  # the real figure and table before the demo
                    assert page_text.index("1. Real refinement") < page_text.index("Demo below")
                    figure = page.locator("img").first.bounding_box()
                    assert figure is not None and figure["y"] > where["y"] + where["height"], figure
                assert page.locator("details.tfr-provenance").count() <= 1, name  # said once per report
                text = page.locator("body").inner_text()
                wider = page.evaluate(WIDER)
            finally:
                browser.close()
            before, found, _ = text.partition("Run details")
            assert found, name
            assert "# Parameters" not in before and "run_dir =" not in before, name
            assert str(series.run_dir) not in html.read_text(), name  # nowhere in the page, not even collapsed
            assert not wider, (name, wider)


def test_every_headline_box_shows_the_numbers_of_summary_json_trajectory_rows_included(series: Series) -> None:
    from tests.notebooks.test_series import check_headline_boxes

    check_headline_boxes(series.run_dir)  # 02's rows split by step class, 03b left out (its box is not summary's)
    summary = json.loads((series.run_dir / "analysis" / "summary.json").read_text())
    measures = {a["measure"] for a in summary["answers"]["rq2"] if a["kind"] == "rq2_trajectories"}
    assert any(m.endswith(", unreliable feedback") for m in measures), measures


def test_the_case_browser_opens_a_replayed_case_offline(series: Series) -> None:
    from playwright.sync_api import expect, sync_playwright

    from tfr_helpers.views import OfflineCaseBrowser

    rows = [r for r in OfflineCaseBrowser(series.run_dir).rows if r.model == REPLAYED]
    assert len(rows) >= 2
    with sync_playwright() as p:
        browser, page = _open(p, series.html["04_case_browser.ipynb"])
        try:
            cases = _filtered(page, REPLAYED, len(rows))
            cases.locator(".tfr-case").nth(1).click()
            detail = cases.locator(".tfr-detail")
            expect(detail).to_contain_text(rows[1].id)
            expect(detail).to_contain_text("Feedback shown to the refiner")
            expect(detail).to_contain_text("Reference verdict")
            cases.locator(".tfr-search").fill(rows[1].task_id)
            expect(cases.locator(".tfr-status")).not_to_contain_text(f"{len(rows)} matching of")
            SCREENSHOT.parent.mkdir(parents=True, exist_ok=True)
            cases.screenshot(path=str(SCREENSHOT))  # the filters, the list and the opened case
        finally:
            browser.close()


def test_the_case_browser_steps_through_a_replayed_trajectory_offline(series: Series) -> None:
    from playwright.sync_api import expect, sync_playwright

    from tfr_helpers.views import OfflineCaseBrowser

    rows = [r for r in OfflineCaseBrowser(series.run_dir).rows if r.model == TRAJECTORY_MODEL]
    assert {r.kind for r in rows} == {"trajectory step"} and len(rows) == 7  # every step of the log, judged or not
    with sync_playwright() as p:
        browser, page = _open(p, series.html["04_case_browser.ipynb"])
        try:
            cases = _filtered(page, TRAJECTORY_MODEL, len(rows))
            cases.locator("select[data-key='task']").select_option("HumanEval/53")
            expect(cases.locator(".tfr-status")).to_contain_text("1 matching")
            cases.locator(".tfr-case").first.click()
            detail = cases.locator(".tfr-detail")
            expect(detail).to_contain_text("my_logs|HumanEval/53|0")
            expect(detail).to_contain_text("Diff to the code after (attempt 0 -> 1)")
            expect(detail).to_contain_text("+    return x + y + 1")
            expect(detail).to_contain_text("Step class: unreliable")
            expect(detail).to_contain_text("reference failed")
            expect(detail).to_contain_text("Transition: pass->fail")
            STEP_SCREENSHOT.parent.mkdir(parents=True, exist_ok=True)
            cases.screenshot(path=str(STEP_SCREENSHOT))  # the filters, the step and its sections
        finally:
            browser.close()


MONOSPACE = "() => getComputedStyle(document.querySelector('.tfr-detail pre.tfr-code')).fontFamily"


def test_the_case_browser_opens_on_a_real_case_in_monospace_and_reaches_a_gpt4o_step(series: Series) -> None:
    from playwright.sync_api import expect, sync_playwright

    from tfr_helpers.views import OfflineCaseBrowser

    rows = OfflineCaseBrowser(series.run_dir).rows
    assert rows[0].source != "simulated" and any(r.source == "simulated" for r in rows)  # real first
    mine = [r for r in rows if r.model == GPT4O_MODEL]
    assert len(mine) == 1
    with sync_playwright() as p:
        browser, page = _open(p, series.html["04_case_browser.ipynb"])
        try:
            cases = page.locator(".tfr-cases").first
            detail = cases.locator(".tfr-detail")
            expect(detail).to_contain_text(f"id {rows[0].id}")  # the page opens on the first case: a real one
            assert "(simulated)" not in detail.locator(".tfr-case-head").inner_text()
            family = page.evaluate(MONOSPACE)
            assert "mono" in family.lower() and "system-ui" not in family, family
            model = cases.locator("select[data-key='model']")
            assert f"{GPT4O_MODEL} (1)" in model.locator("option").all_inner_texts()  # counts beside the options
            cases.locator("select[data-key='kind']").select_option("trajectory step")
            kinds = cases.locator("select[data-key='model'] option:not([disabled])").all_inner_texts()
            assert all(t.startswith(("(all)", "unspecified", "GPT-4o")) for t in kinds), kinds  # dependent filters
            model.select_option(GPT4O_MODEL)
            expect(cases.locator(".tfr-status")).to_contain_text("1 matching")
            expect(detail).to_contain_text(GPT4O_CODE)  # GPT-4o's code, no other set's
            expect(detail).to_contain_text("+    " + GPT4O_CODE)
            assert "-    return x - y+" not in detail.inner_text()  # the diff keeps its lines apart
            model.select_option("(all)")
            cases.locator("select[data-key='kind']").select_option("(all)")
            cases.locator(".tfr-next").click()  # next/previous through the matches
            expect(detail).to_contain_text(f"id {rows[1].id}")
            cases.locator(".tfr-prev").click()
            expect(detail).to_contain_text(f"id {rows[0].id}")
            page.goto(series.html["04_case_browser.ipynb"].as_uri() + "#case-" + mine[0].id.replace("|", "%7C"))
            expect(page.locator(".tfr-cases").first.locator(".tfr-detail")).to_contain_text(GPT4O_CODE)  # a case link
        finally:
            browser.close()
