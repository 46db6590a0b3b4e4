"""A small offline study with all three controls: ``tfr stage all`` then the analysis write rq2_controls.tex and the
summary's controls section, and a SIGKILL inside a control stage, then a rerun, equals the uninterrupted run."""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest

from tests.analysis.writing import test_export
from tests.pipeline.conftest import results_json
from tests.pipeline.test_resume import finished_run, kill_then_rerun, shrunk
from tfr_helpers.analysis import analyze, load_results
from tfr_helpers.arms.controls import ARM
from tfr_helpers.arms.controls.report import FIGURE, TABLE

pytestmark = pytest.mark.slow
SMOKE = Path(__file__).resolve().parents[3] / "papermill_params" / "controls_smoke.yaml"


@pytest.fixture(scope="module")
def baseline(tmp_path_factory: pytest.TempPathFactory, shared_benchmarks: Path) -> tuple[Path, Path]:
    """An uninterrupted run of controls_smoke.yaml made small for the kill (its params file and run directory)."""
    small = shrunk(SMOKE, "controls_resume", {"humaneval": 5, "mbpp": 4})
    return finished_run(small, tmp_path_factory.mktemp("controls_baseline"), shared_benchmarks, timeout=600)


def test_stage_all_then_the_analysis_write_the_controls_table_and_summary(
    baseline: tuple[Path, Path], tmp_path: Path
) -> None:
    _, run = baseline
    results = load_results(run)
    arm = results.part(ARM)
    assert arm.controls == ["resample", "retry", "placebo"]
    refined = {r.feedback_id for r in results.refinements}
    assert refined
    for control in arm.controls:  # exactly the feedback arm's instances, once each, all evaluated
        mine = [r.feedback_id for r in arm.refinements if r.control == control]
        assert sorted(mine) == sorted(refined), control
        assert {e.feedback_id for e in arm.refined_evaluations if e.control == control} == refined
    stages = {t.stage for t in results.call_totals}
    assert {"control_resample", "control_retry", "control_placebo"} <= stages  # their calls counted apart

    out = analyze(run)
    tex = out.tables[TABLE].read_text()
    assert "RQ2 with controls" in tex and "Simulated model: demo numbers, not evidence" in tex
    test_export.test_tex_compiles_with_pdflatex((run, out), tmp_path)
    summary = json.loads(out.summary.read_text())["controls"]
    assert {"arms", "diff_pp", "p_mcnemar", "p_holm"} <= set(summary["definitions"])
    effects = summary["content_effects"]["rows"]
    assert effects and {r["control"] for r in effects} == set(arm.controls)
    known = test_export._numbers(summary["side_by_side"]["rows"]) | test_export._numbers(effects)
    shown = {round(float(x), 1) for row in test_export._body_rows(tex) for x in re.findall(r"-?\d+\.\d+", row)}
    assert shown and shown <= known
    assert any(p.name == f"{FIGURE}.png" for p in out.figures)


def test_sigkill_in_a_control_stage_then_rerun_equals_uninterrupted(baseline: tuple[Path, Path], tmp_path: Path) -> None:
    kill_then_rerun(baseline[0], tmp_path / "run", "control_retry_codes", wait_s=400, timeout=600)
    assert results_json(tmp_path / "run") == results_json(baseline[1])
