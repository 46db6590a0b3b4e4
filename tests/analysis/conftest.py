"""Shared fixtures: one synthetic run analysed once per test module."""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.helpers.synthetic import make_synthetic_run
from tfr_helpers.analysis import AnalysisOutputs, analyze, write_refinement_cases


@pytest.fixture(scope="module")
def analysed_run(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, AnalysisOutputs]:
    """A synthetic run with ``tfr analyze`` and ``tfr cases`` outputs written."""
    run = make_synthetic_run(tmp_path_factory.mktemp("run"), seed=3)
    outputs = analyze(run)
    write_refinement_cases(run)
    return run, outputs
