"""Notebook 02 on a fresh run with controls: its controls section shows the controls table, not "no control arm".

Notebook 02 runs the control stages but not ``finalize_results``: the section reads the view of a run in progress,
which builds the arms' parts as ``finalize_results`` does (``views.results_so_far``)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
import yaml

from tests.notebooks.smoke import ROOT
from tfr_helpers.arms.controls import ARM as CONTROLS_ARM
from tfr_helpers.notebooks import run_notebooks
from tfr_helpers.pipeline import load_config, run_stages
from tfr_helpers.results_file import has_results
from tfr_helpers.views import results_so_far

pytestmark = [pytest.mark.slow, pytest.mark.notebooks]
CONTROLS = ROOT / "papermill_params" / "controls_smoke.yaml"
TINY = {"benchmarks": ["humaneval"], "tasks": {"humaneval": 3}, "pbts_per_task": 0}
BEFORE_02 = ["generate_codes", "generate_tests", "evaluate_code_test_pairs"]  # what notebooks 00 and 01 run


def _section(notebook: Path, heading: str) -> str:
    """The text and HTML outputs of the code cells under the markdown cell starting with ``heading``."""
    cells = json.loads(notebook.read_text(encoding="utf-8"))["cells"]
    start = next(i for i, c in enumerate(cells) if "".join(c["source"]).startswith(heading))
    out = []
    for cell in cells[start + 1 :]:
        if cell["cell_type"] == "markdown":
            break
        for output in cell.get("outputs", []):
            data = output.get("data", {})
            out += ["".join(data.get(kind, "")) for kind in ("text/html", "text/markdown", "text/plain")]
    return "\n".join(out)


def test_notebook_02_with_controls_shows_the_controls_table(
    tmp_path: Path, shared_benchmarks: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("TFR_BENCHMARK_DIR", str(shared_benchmarks))
    monkeypatch.setenv("TFR_CACHE_DIR", str(tmp_path / "cache"))
    params = tmp_path / "controls.yaml"
    params.write_text(yaml.safe_dump(yaml.safe_load(CONTROLS.read_text(encoding="utf-8")) | TINY), encoding="utf-8")
    run = tmp_path / "run"
    run_stages(load_config(params), run, BEFORE_02, progress=False)

    run_notebooks(params, run, names=("02_rq2_refinement.ipynb",), progress=False)

    assert not has_results(run)  # the notebook read the run in progress
    controls = results_so_far(run).part(CONTROLS_ARM)
    assert controls.controls == ["resample", "retry", "placebo"]
    assert controls.refinements and controls.refined_evaluations
    shown = _section(run / "notebooks" / "02_rq2_refinement.ipynb", "## 5. Controls")
    assert "no control arm" not in shown
    for arm in ("feedback", "resample", "retry", "placebo"):
        assert arm in shown, shown[:2000]
    assert "<Figure size" in shown  # the table, then its figure (views.show_arm("controls", ...))
