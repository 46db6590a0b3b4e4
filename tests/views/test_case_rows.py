"""The one registry of case-browser row sources: a source registered anywhere shows in both browsers."""

from __future__ import annotations

from pathlib import Path

import pytest

import tfr_helpers.views.case_rows as case_rows_module
from tests.helpers.synthetic import make_synthetic_run
from tfr_helpers.analysis.tidy.attempts import Attempt
from tfr_helpers.records import Results
from tfr_helpers.views import CaseBrowser, OfflineCaseBrowser
from tfr_helpers.views.case_rows import ROW_SOURCES, CaseRow, RowSource, register_row_source, row_sources


@pytest.fixture(scope="module")
def run_dir(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return make_synthetic_run(tmp_path_factory.mktemp("runs"))


@pytest.fixture()
def registry(monkeypatch: pytest.MonkeyPatch) -> list[RowSource]:
    """The registry, restored after the test (a toy source must not leak into other tests)."""
    sources = list(ROW_SOURCES)
    monkeypatch.setattr(case_rows_module, "ROW_SOURCES", sources)
    return sources


def _toy_cases(results: Results, run_dir: Path) -> list[CaseRow]:
    return [CaseRow(id="toy-1", kind="toy case", model="m", source="s", benchmark="b", task_id="t/1", summary="toy")]


def _toy_sections(results: Results, attempt: Attempt, run_dir: Path) -> list[tuple[str, str]]:
    return [("Toy row", f"<p>toy of {attempt.feedback_id}</p>")]


def test_the_base_study_and_every_arm_register_in_one_registry_in_display_order() -> None:
    assert [s.name for s in row_sources()] == [
        "base study",
        "controls",
        "rounds",
        "trajectories",
    ]  # an arm package's on first use


def test_a_toy_source_shows_in_both_browsers_after_every_other_row(registry: list[RowSource], run_dir: Path) -> None:
    before = CaseBrowser(run_dir)
    titles_before = list(before.stack.children[0].children[1].titles)
    offline_before = OfflineCaseBrowser(run_dir).rows
    register_row_source(RowSource("toy", cases=_toy_cases, sections=_toy_sections))

    browser = CaseBrowser(run_dir)
    assert browser.current is not None
    assert list(browser.stack.children[0].children[1].titles) == [*titles_before, "Toy row"]
    assert f"toy of {browser.current.feedback_id}" in browser.shown_html()
    offline = OfflineCaseBrowser(run_dir).rows
    assert [r.id for r in offline if r.id != "toy-1"] == [r.id for r in offline_before]
    assert [r.kind for r in offline if r.id == "toy-1"] == ["toy case"]  # the page orders real sources first


def test_a_source_with_a_lower_order_comes_first_and_a_name_registers_once(registry: list[RowSource], run_dir: Path) -> None:
    register_row_source(RowSource("first", sections=_toy_sections, order=-1))
    browser = CaseBrowser(run_dir)
    assert browser.stack.children[0].children[1].titles[0] == "Toy row"
    with pytest.raises(ValueError, match="registered already"):
        register_row_source(RowSource("first", cases=_toy_cases))
