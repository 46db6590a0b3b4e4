"""The smoke study (every stage of ``papermill_params/smoke.yaml``) run once per pytest run, for the tests that only
read its outputs: the determinism, execution-cache and chunks-in-flight tests compare their own runs with it, the
notebook tests execute the notebook series on it.

It runs in-process with its own empty response cache, the execution cache off and one chunk at a time, so it is a
full, independent computation (what ``tfr stage all --params papermill_params/smoke.yaml`` does on a fresh machine)
and the plainest one. Its canonical results are taken right after the stages finish, before any test writes
notebooks or analysis outputs beside them.

A second smoke study, :func:`run_smoke_command`, is the command ``tfr stage all`` in its own process, with the
execution cache on: the determinism test compares it with the first.
"""

from __future__ import annotations

import os
import subprocess
import sys
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
    """Run every stage of the smoke params into ``base/smoke-run`` with a fresh cache under ``base``, the
    execution cache off and one chunk of a sandbox stage at a time (``TFR_CHUNKS_IN_FLIGHT=1``)."""
    from tfr_helpers.pipeline import load_config, run_stages

    run, cache = base / "smoke-run", base / "smoke-cache"
    with pytest.MonkeyPatch.context() as mp:
        mp.setenv("TFR_BENCHMARK_DIR", str(benchmarks))
        mp.setenv("TFR_CACHE_DIR", str(cache))
        mp.setenv("TFR_EXEC_CACHE", "0")
        mp.setenv("TFR_CHUNKS_IN_FLIGHT", "1")
        summary = run_stages(load_config(SMOKE_PARAMS), run, "all", progress=False)
    return SmokeStudy(run, cache, SMOKE_PARAMS, summary, results_json(run))


@dataclass(frozen=True)
class SmokeCommandRun:
    """The smoke study run by the command ``tfr stage all`` (:func:`run_smoke_command`)."""

    run_dir: Path
    cache_dir: Path
    """Its own ``TFR_CACHE_DIR``, empty when it started: it holds the responses and ``executions/`` it filled."""
    results: Any
    """``results.json`` without timing fields, read when the command ended."""
    stdout: str
    """What the command printed: the run summary's lines."""


def run_smoke_command(base: Path, benchmarks: Path, cache: Path | None = None, busy: bool = True) -> SmokeCommandRun:
    """``tfr stage all --params papermill_params/smoke.yaml`` into ``base/command-run``, in its own process (its own
    string-hash seed), with the cache ``cache`` (default: an empty ``base/command-cache``), the execution cache on and
    the default chunks in flight, while (``busy``) a busy process keeps one core loaded."""
    run, cache = base / "command-run", cache or base / "command-cache"
    env = {**os.environ, "TFR_BENCHMARK_DIR": str(benchmarks), "TFR_CACHE_DIR": str(cache), "TFR_EXEC_CACHE": "1"}
    env.pop("TFR_CHUNKS_IN_FLIGHT", None)
    cmd = [str(Path(sys.executable).parent / "tfr"), "stage", "all", "--params", str(SMOKE_PARAMS)]
    loader = subprocess.Popen([sys.executable, "-c", "while True: pass"]) if busy else None  # keeps one core busy
    try:
        done = subprocess.run(
            [*cmd, "--run-dir", str(run), "--no-progress"], capture_output=True, text=True, env=env, timeout=900
        )
    finally:
        if loader is not None:
            loader.kill()
            loader.wait()
    assert done.returncode == 0, done.stderr[-3000:]
    return SmokeCommandRun(run, cache, results_json(run), done.stdout)


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
