"""The execution cache in the study: results with it on (filled or served) equal results with it off.

Off: the shared smoke study (``tests/helpers/smoke.py``). Filling: the shared ``tfr stage all`` command
(``smoke_command_run``), which starts from an empty cache with the execution cache on. Serving: a run here, in a new
run directory on that command's cache."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest

from tests.helpers.smoke import SmokeCommandRun, SmokeStudy
from tfr_helpers.pipeline import load_config, run_stages

from .conftest import results_json

SMOKE = Path(__file__).resolve().parents[2] / "papermill_params" / "smoke.yaml"


@pytest.mark.slow
def test_smoke_results_are_identical_with_the_cache_off_filling_and_serving(
    shared_benchmarks: Path,
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
    smoke_study: SmokeStudy,
    smoke_command_run: SmokeCommandRun,
) -> None:
    off = smoke_study.summary  # TFR_EXEC_CACHE=0
    assert off.exec_cache[0] == 0 and not (smoke_study.cache_dir / "executions").exists()
    filling = smoke_command_run  # TFR_EXEC_CACHE=1 on an empty cache
    assert filling.sandbox_runs > 0 and (filling.cache_dir / "executions").is_dir()
    # served: a copy of the filled cache (the shared command's own stays as it left it), a new run directory
    cache = tmp_path / "cache"
    shutil.copytree(filling.cache_dir, cache)
    monkeypatch.setenv("TFR_BENCHMARK_DIR", str(shared_benchmarks))
    monkeypatch.setenv("TFR_CACHE_DIR", str(cache))
    monkeypatch.setenv("TFR_EXEC_CACHE", "1")
    serving = run_stages(load_config(SMOKE), tmp_path / "serving", progress=False)
    # served: everything but the reference's nondeterminism reruns and runs that timed out or crashed
    assert serving.exec_cache[0] > 0 and serving.sandbox_runs < filling.sandbox_runs / 2
    assert serving.exec_cache[0] + serving.sandbox_runs >= filling.sandbox_runs
    assert any(line.startswith("execution cache:") for line in serving.lines())
    expected = smoke_study.results
    assert filling.results == expected
    assert results_json(tmp_path / "serving") == expected
