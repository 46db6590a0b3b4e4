"""The execution cache in the study: results with it on (filled or served) equal results with it off (the shared
smoke study, ``tests/helpers/smoke.py``, runs with the cache off).

The filling run is the shared command run (``tfr stage all`` with the execution cache on and an empty cache, the
determinism test's second study); the serving run here reads a copy of the cache it filled."""

from __future__ import annotations

import re
import shutil
from pathlib import Path

import pytest

from tests.helpers.smoke import SmokeCommandRun, SmokeStudy
from tfr_helpers.pipeline import load_config, run_stages

from .conftest import results_json

SMOKE = Path(__file__).resolve().parents[2] / "papermill_params" / "smoke.yaml"


@pytest.mark.slow
def test_smoke_results_are_identical_with_the_cache_off_filling_and_serving(
    pipeline_env: Path,
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
    smoke_study: SmokeStudy,
    smoke_command_run: SmokeCommandRun,
) -> None:
    config = load_config(SMOKE)
    off = smoke_study.summary  # TFR_EXEC_CACHE=0
    assert off.exec_cache[0] == 0 and not (smoke_study.cache_dir / "executions").exists()
    assert not (pipeline_env / "executions").exists()
    filled = re.search(r"^this invocation: .*, (\d+) sandbox runs$", smoke_command_run.stdout, re.M)
    assert filled is not None, smoke_command_run.stdout
    filling_runs = int(filled[1])  # TFR_EXEC_CACHE=1 and an empty cache
    assert filling_runs > 0 and (smoke_command_run.cache_dir / "executions").is_dir()
    shutil.copytree(smoke_command_run.cache_dir, pipeline_env, dirs_exist_ok=True)  # the shared run's cache stays
    monkeypatch.setenv("TFR_EXEC_CACHE", "1")
    serving = run_stages(config, tmp_path / "serving", progress=False)  # a new run dir: every stage runs again
    # served: everything but the reference's nondeterminism reruns and runs that timed out or crashed
    assert serving.exec_cache[0] > 0 and serving.sandbox_runs < filling_runs / 2
    assert serving.exec_cache[0] + serving.sandbox_runs >= filling_runs
    assert any(line.startswith("execution cache:") for line in serving.lines())
    expected = smoke_study.results
    assert smoke_command_run.results == expected
    assert results_json(tmp_path / "serving") == expected
