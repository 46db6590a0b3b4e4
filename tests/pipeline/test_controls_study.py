"""A small offline study with all three controls: ``tfr stage all`` then the analysis write rq2_controls.tex and the
summary's controls section, and a SIGKILL inside a control stage, then a rerun, equals the uninterrupted run."""

from __future__ import annotations

import json
import re
import signal
import time
from pathlib import Path

import pytest
import yaml

from tests.analysis import test_export
from tfr_helpers.analysis import analyze, load_results
from tfr_helpers.analysis.arms.controls_report import FIGURE, TABLE

from .conftest import results_json
from .test_resume import lines, tfr_stage_all

SMOKE = Path(__file__).resolve().parents[2] / "papermill_params" / "controls_smoke.yaml"

pytestmark = pytest.mark.slow


def params() -> dict[str, object]:
    """controls_smoke.yaml, smaller, one item per checkpoint flush (a kill lands between items), no response cache."""
    data = yaml.safe_load(SMOKE.read_text())
    data |= {
        "run_name": "controls_resume",
        "tasks": {"humaneval": 5, "mbpp": 4},
        "concurrency": {"checkpoint_every": 1, "sandbox_workers": 2},
        "model_settings": {"cache_mode": "off"},
    }
    return data


@pytest.fixture(scope="module")
def baseline(tmp_path_factory: pytest.TempPathFactory, shared_benchmarks: Path) -> tuple[Path, Path]:
    """An uninterrupted run (its params file and run directory)."""
    import os

    root = tmp_path_factory.mktemp("controls_baseline")
    path = root / "params.yaml"
    path.write_text(yaml.safe_dump(params()))
    os.environ.setdefault("TFR_BENCHMARK_DIR", str(shared_benchmarks))
    proc = tfr_stage_all(path, root / "run")
    _, err = proc.communicate(timeout=600)
    assert proc.returncode == 0, err.decode()[-2000:]
    return path, root / "run"


def test_stage_all_then_the_analysis_write_the_controls_table_and_summary(
    baseline: tuple[Path, Path], tmp_path: Path
) -> None:
    _, run = baseline
    results = load_results(run)
    arm = results.controls
    assert arm is not None and arm.controls == ["resample", "retry", "placebo"]
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


@pytest.mark.parametrize("checkpoint", ["control_retry_codes"])
def test_sigkill_in_a_control_stage_then_rerun_equals_uninterrupted(
    baseline: tuple[Path, Path], tmp_path: Path, checkpoint: str
) -> None:
    params_path, expected_run = baseline
    run_dir = tmp_path / "run"
    path = run_dir / "checkpoints" / f"{checkpoint}.jsonl"
    proc = tfr_stage_all(params_path, run_dir)
    deadline = time.monotonic() + 400
    while lines(path) < 1 and proc.poll() is None and time.monotonic() < deadline:
        time.sleep(0.001)
    proc.send_signal(signal.SIGKILL)
    proc.wait()
    assert proc.returncode == -signal.SIGKILL, "the run finished before it could be killed"
    killed_at = lines(path)
    assert not (run_dir / "results.json").exists()

    rerun = tfr_stage_all(params_path, run_dir)
    _, err = rerun.communicate(timeout=600)
    assert rerun.returncode == 0, err.decode()[-2000:]
    assert results_json(run_dir) == results_json(expected_run)
    keys = [json.loads(line)["key"] for line in path.read_text().splitlines() if line.strip()]
    assert len(keys) == len(set(keys)) > killed_at >= 1, (len(keys), killed_at)
