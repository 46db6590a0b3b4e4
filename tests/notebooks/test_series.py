"""The notebook series on the smoke params: every cell runs, every artifact lands in the run directory."""

from __future__ import annotations

import json
import re
import shutil
from pathlib import Path

import nbformat
import pytest

from tfr_helpers.analysis.inference_tables import INFERENCE_TABLES
from tfr_helpers.analysis.tables import TABLES
from tfr_helpers.notebooks.running import NOTEBOOKS
from tfr_helpers.results_file import read_results_bytes, results_file
from tfr_helpers.views.offline_browser import unpack

pytestmark = [pytest.mark.slow, pytest.mark.notebooks]


@pytest.fixture(scope="module")
def series(smoke_series):  # type: ignore[no-untyped-def]
    return smoke_series  # the smoke study's stages were done first: the series resumed them


def test_every_notebook_executes_and_exports_html(series) -> None:  # type: ignore[no-untyped-def]
    assert [r.name for r in series.notebooks] == list(NOTEBOOKS)
    for report in series.notebooks:
        nb = nbformat.read(str(report.notebook), as_version=4)
        assert not nb.metadata.papermill.exception, report.name
        statuses = {c.metadata.papermill.status for c in nb.cells if c.cell_type == "code"}
        assert statuses == {"completed"}, report.name
        assert nb.metadata.papermill.parameters["run_dir"] == str(series.run_dir)
        assert report.html.stat().st_size > 10_000
        assert report.headline["simulated"] is True


def test_resumed_series_makes_no_model_calls(series) -> None:  # type: ignore[no-untyped-def]
    html = (series.run_dir / "notebooks" / "00_setup.html").read_text()
    assert "this invocation: 0 model calls" in html
    assert "SIMULATED MODEL" in html


def test_rq_notebooks_show_tables_figures_and_generated_prose(series) -> None:  # type: ignore[no-untyped-def]
    results = json.loads(read_results_bytes(results_file(series.run_dir) or series.run_dir / "results.json.gz"))
    fails = [p for p in results["pair_evaluations"] if p["feedback"] is not None]
    rq1 = series.notebooks[1].headline["by_model"]["sim:default"]  # per model and source, never pooled
    assert rq1["source"] == "simulated"
    assert rq1["test_fail_feedback"] == len(fails)
    assert rq1["unreliable"] == sum(p["reliability"] == "unreliable" for p in fails)
    for report in series.notebooks[1:4]:
        nb = nbformat.read(str(report.notebook), as_version=4)
        outputs = [o for c in nb.cells if c.cell_type == "code" for o in c.outputs]
        assert any("image/png" in o.get("data", {}) for o in outputs), report.name
        assert any("<table" in o.get("data", {}).get("text/html", "") for o in outputs), report.name
        assert any("> " in o.get("data", {}).get("text/markdown", "") for o in outputs), report.name


def test_analysis_outputs_and_cases_are_written(series) -> None:  # type: ignore[no-untyped-def]
    run: Path = series.run_dir
    assert (run / "refinement_cases.md").stat().st_size > 0
    assert (run / "analysis" / "summary.json").is_file()
    names = {p.stem for p in (run / "analysis").glob("*.tex")}
    assert names == set(TABLES) | set(INFERENCE_TABLES), names  # the six paper tables and the inference tables
    assert list((run / "analysis" / "figures").iterdir())


def test_the_analysis_written_beside_the_later_notebooks_and_over_processes_is_the_one_process_analysis(
    series, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:  # type: ignore[no-untyped-def]
    """03 wrote its analysis (pairwise tests over forked processes) while 03b, 03c and 04 ran beside it: the same
    bytes as the analysis of a copy of the run in one process."""
    from tfr_helpers.analysis import analyze
    from tfr_helpers.analysis.processes import ENV

    copy = tmp_path / "run"
    shutil.copytree(series.run_dir, copy, ignore=shutil.ignore_patterns("notebooks", "analysis"))
    monkeypatch.setenv(ENV, "1")
    analyze(copy)
    written = sorted(p.name for p in (series.run_dir / "analysis").glob("*.*"))
    assert written == sorted(p.name for p in (copy / "analysis").glob("*.*")) and "summary.json" in written
    for name in written:  # summary.json and every table (the figures: drawn by another backend in the kernel)
        assert (series.run_dir / "analysis" / name).read_bytes() == (copy / "analysis" / name).read_bytes(), name


def test_case_browser_export_embeds_every_case(series) -> None:  # type: ignore[no-untyped-def]
    results = json.loads(read_results_bytes(results_file(series.run_dir) or series.run_dir / "results.json.gz"))
    fails = [p for p in results["pair_evaluations"] if p["feedback"] is not None]
    html = (series.run_dir / "notebooks" / "04_case_browser.html").read_text()
    found = re.search(r"<script[^>]*tfr-cases-[0-9a-f]+-data[^>]*>(.*?)</script>", html, re.S)
    assert found, "no embedded cases"
    data = unpack(found.group(1))
    assert len(data["rows"]) == len(fails)  # every test-fail feedback, not the first 100
    assert sorted(data["s"][row[0]] for row in data["rows"]) == sorted(p["feedback"]["feedback_id"] for p in fails)


def test_every_export_loads_its_scripts_from_the_run_directory(series) -> None:  # type: ignore[no-untyped-def]
    static = series.run_dir / "notebooks" / "_static"
    assert (static / "embed-amd.js").is_file() and (static / "require.js").is_file()
    for report in series.notebooks:
        sources = re.findall(r"""(?:src=|Src = |import\()["']([^"']+)["']""", report.html.read_text())
        assert "_static/require.js" in sources, report.name
        assert not [s for s in sources if "://" in s], (report.name, sources)


def test_every_headline_box_shows_the_numbers_of_summary_json(series) -> None:  # type: ignore[no-untyped-def]
    """Each report's box gives, row by row, the number, interval and population ``summary.json`` holds."""
    check_headline_boxes(series.run_dir)


def check_headline_boxes(run: Path) -> None:
    """Every headline box of a run's exported reports against its ``summary.json`` (nbconvert rewrites quotes)."""
    import html as html_lib

    from tfr_helpers.analysis.answers import answers_from_summary

    summary = json.loads((run / "analysis" / "summary.json").read_text())
    boxes = {"00_setup": "setup", "01_rq1_feedback_reliability": "rq1", "02_rq2_refinement": "rq2"}
    boxes |= {"03_rq3_screening": "rq3", "04_case_browser": "cases"}
    for name, report in boxes.items():
        page = (run / "notebooks" / f"{name}.html").read_text()
        box = re.search(r"""<div class=["']tfr-headline["'].*?Intervals: 95%""", page, re.S)
        assert box, name
        cells = re.findall(r"""<b class=["']tfr-answer["']>(.*?)</b></td><td[^>]*>(.*?)</td>""", box.group(0))
        shown = [(html_lib.unescape(n), html_lib.unescape(u)) for n, u in cells]
        rows = answers_from_summary(summary, report)
        assert rows, f"{report}: no answers in summary.json"
        assert shown == [(a.number(), a.units()) for a in rows], name
        assert not any("--" in n or "[100.0, 100.0]" in n for n, _ in shown), name
