"""The execution cache in the study: results with it on (filled or served) equal results with it off (the shared
smoke study, ``tests/helpers/smoke.py``, runs with the cache off)."""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.helpers.smoke import SmokeStudy
from tfr_helpers.pipeline import load_config, run_stages

from .conftest import results_json

SMOKE = Path(__file__).resolve().parents[2] / "papermill_params" / "smoke.yaml"


@pytest.mark.slow
def test_smoke_results_are_identical_with_the_cache_off_filling_and_serving(
    pipeline_env: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch, smoke_study: SmokeStudy
) -> None:
    config = load_config(SMOKE)
    off = smoke_study.summary  # TFR_EXEC_CACHE=0
    assert off.exec_cache[0] == 0 and not (smoke_study.cache_dir / "executions").exists()
    assert not (pipeline_env / "executions").exists()
    monkeypatch.setenv("TFR_EXEC_CACHE", "1")
    filling = run_stages(config, tmp_path / "filling", progress=False)
    serving = run_stages(config, tmp_path / "serving", progress=False)  # a new run dir: every stage runs again
    assert filling.sandbox_runs > 0 and (pipeline_env / "executions").is_dir()
    # served: everything but the reference's nondeterminism reruns and runs that timed out or crashed
    assert serving.exec_cache[0] > 0 and serving.sandbox_runs < filling.sandbox_runs / 2
    assert serving.exec_cache[0] + serving.sandbox_runs >= filling.sandbox_runs
    assert any(line.startswith("execution cache:") for line in serving.lines())
    expected = smoke_study.results
    assert results_json(tmp_path / "filling") == expected
    assert results_json(tmp_path / "serving") == expected
