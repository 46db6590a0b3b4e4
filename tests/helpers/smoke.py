"""The smoke study (every stage of ``papermill_params/smoke.yaml``) run once per pytest run, for the tests that only
read its outputs: the determinism and execution-cache tests compare their own runs with it, the notebook and
browser tests execute the notebook series on it.

It runs in-process with its own empty response cache and the execution cache off, so it is a full, independent
computation (what ``tfr stage all --params papermill_params/smoke.yaml`` does on a fresh machine). Its canonical
results are taken right after the stages finish, before any test writes notebooks or analysis outputs beside them.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest

from tests.pipeline.conftest import results_json
from tfr_helpers.pipeline import RunSummary

SMOKE_PARAMS = Path(__file__).resolve().parents[2] / "papermill_params" / "smoke.yaml"


@dataclass(frozen=True)
class SmokeStudy:
    """One finished smoke study."""

    run_dir: Path
    cache_dir: Path
    """Its private ``TFR_CACHE_DIR`` (responses; no ``executions/``: the execution cache was off)."""
    params: Path
    summary: RunSummary
    results: Any
    """``results.json`` without timing fields (``tests.pipeline.conftest.results_json``), read when the stages ended."""


def run_smoke_study(base: Path, benchmarks: Path) -> SmokeStudy:
    """Run every stage of the smoke params into ``base/smoke-run`` with a fresh cache under ``base``."""
    from tfr_helpers.pipeline import load_config, run_stages

    run, cache = base / "smoke-run", base / "smoke-cache"
    with pytest.MonkeyPatch.context() as mp:
        mp.setenv("TFR_BENCHMARK_DIR", str(benchmarks))
        mp.setenv("TFR_CACHE_DIR", str(cache))
        mp.setenv("TFR_EXEC_CACHE", "0")
        summary = run_stages(load_config(SMOKE_PARAMS), run, "all", progress=False)
    return SmokeStudy(run, cache, SMOKE_PARAMS, summary, results_json(run))


def series_notebook(series: Any, name: str) -> Any:
    """The report (``NotebookReport``) of one notebook of an executed series, e.g. ``04_case_browser.ipynb``."""
    return next(r for r in series.notebooks if r.name == name)


def run_params_study(root: Path, params: dict[str, Any], benchmarks: Path) -> Path:
    """Every stage of a study given as a params mapping, into ``root/run`` with a fresh cache under ``root``;
    returns the run directory."""
    import yaml

    from tfr_helpers.pipeline import load_config, run_stages

    with pytest.MonkeyPatch.context() as mp:
        mp.setenv("TFR_BENCHMARK_DIR", str(benchmarks))
        mp.setenv("TFR_CACHE_DIR", str(root / "cache"))
        path = root / "params.yaml"
        path.write_text(yaml.safe_dump(params))
        run_stages(load_config(path), root / "run", progress=False)
    return root / "run"
