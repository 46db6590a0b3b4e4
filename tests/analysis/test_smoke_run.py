"""Acceptance on a real pipeline run of the simulated model (the shared smoke study): the checks of the synthetic
run."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest

from tests.analysis import test_cases
from tests.analysis.writing import test_export
from tests.helpers.smoke import SmokeStudy
from tfr_helpers.analysis import AnalysisOutputs, analyze, write_refinement_cases


@pytest.fixture(scope="module")
def smoke_run(smoke_study: SmokeStudy, tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, AnalysisOutputs]:
    """A copy of the shared smoke study (sim model, every stage), then analysed (the copy keeps the study as run)."""
    run = tmp_path_factory.mktemp("smoke") / "smoke"
    shutil.copytree(smoke_study.run_dir, run)
    outputs = analyze(run)
    write_refinement_cases(run)
    return run, outputs


pytestmark = pytest.mark.slow


def test_smoke_tables_are_well_formed(smoke_run: tuple[Path, AnalysisOutputs], tmp_path: Path) -> None:
    test_export.test_all_outputs_are_written(smoke_run)
    test_export.test_tex_structure_is_booktabs_with_even_rows(smoke_run)
    test_export.test_tex_compiles_with_pdflatex(smoke_run, tmp_path)


def test_smoke_numbers_match_summary_and_results(smoke_run: tuple[Path, AnalysisOutputs]) -> None:
    test_export.test_every_number_in_the_tables_is_in_summary(smoke_run)
    test_export.test_numbers_recomputed_from_results_json(smoke_run)
    test_export.test_counts_add_up(smoke_run)


def test_smoke_cases_list_every_attempt_with_resolving_links(smoke_run: tuple[Path, AnalysisOutputs]) -> None:
    test_cases.test_every_attempt_is_listed_once(smoke_run)
    run, _ = smoke_run
    assert test_cases._links_resolve(run / "refinement_cases.md") > 0
