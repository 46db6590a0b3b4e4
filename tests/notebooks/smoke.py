"""One smoke run per test session (all stages on smoke.yaml), shared by the notebook and browser tests."""

from __future__ import annotations

import functools
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
SMOKE_PARAMS = ROOT / "papermill_params" / "smoke.yaml"


@functools.cache
def smoke_run(base: Path) -> Path:
    """Run every stage on the smoke params under ``base`` once per session and return the run directory."""
    from tfr_helpers.pipeline import load_config, run_stages

    run = base / "smoke-run"
    run_stages(load_config(SMOKE_PARAMS), run, "all", progress=False)
    return run
