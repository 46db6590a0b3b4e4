"""Acceptance: a study with ``batch: true`` gives the live results; a run killed mid-batch resumes the same batch."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
import yaml

from tests.helpers.checkpoints import log_lines
from tests.helpers.fake_llm_server import FakeLLMServer
from tfr_helpers.models import credentials
from tfr_helpers.models.batch import BatchState
from tfr_helpers.pipeline import run_stages
from tfr_helpers.pipeline.config.experiment import config_from_dict

from .study_server import RIGHT_KEY, Responder, params, study_tasks
from .test_faults_study import comparable

pytestmark = pytest.mark.slow
ROOT = Path(__file__).resolve().parents[2]


def _batch_params(base_url: str) -> dict[str, Any]:
    data = params(base_url)
    data["model_settings"] = {**data["model_settings"], "batch": {"openai-compatible": True}, "batch_poll_s": 0.05}
    return data


@pytest.fixture()
def server(shared_benchmarks: Path, tmp_path: Path) -> Iterator[FakeLLMServer]:
    with pytest.MonkeyPatch.context() as mp, FakeLLMServer(responder=Responder(study_tasks()), api_key=RIGHT_KEY) as srv:
        mp.setenv("TFR_BENCHMARK_DIR", str(shared_benchmarks))
        mp.setenv("OPENAI_COMPATIBLE_API_KEY", RIGHT_KEY)
        mp.delenv("OPENAI_COMPATIBLE_BASE_URL", raising=False)
        mp.setattr(credentials, "_dotenv_loaded", True)
        mp.setenv("TFR_CACHE_DIR", str(tmp_path / "cache-live"))
        run_stages(config_from_dict(params(srv.base_url)), tmp_path / "live", progress=False)
        mp.setenv("TFR_CACHE_DIR", str(tmp_path / "cache-batch"))
        yield srv


def test_a_batch_study_gives_the_live_results(server: FakeLLMServer, tmp_path: Path) -> None:
    live_requests = len(server.requests)
    summary = run_stages(config_from_dict(_batch_params(server.base_url)), tmp_path / "batch", progress=False)
    assert server.batches.created == 4  # codes, tests, screening, refinement: one batch per stage
    calls = server.requests[live_requests:]
    answered_live = [r for r in calls if r.path.endswith("/chat/completions")]
    assert len(answered_live) == 2 * 4  # each batch's errored and expired item went live
    assert summary.invocation_calls.failed == 0
    batch, live = comparable(tmp_path / "batch"), comparable(tmp_path / "live")
    assert batch["config"]["model_settings"].pop("batch") == {"openai-compatible": True}
    for results in (batch, live):
        results["config"]["model_settings"].pop("batch", None)
        results["config"]["model_settings"].pop("batch_poll_s")
    costs = [sum(t.pop("cost_usd") for t in r["call_totals"]) for r in (batch, live)]
    assert 0 < costs[0] < costs[1]  # answers from the batch are billed at half price
    assert batch == live


def test_sigkill_while_the_batch_is_in_progress_resumes_the_same_batch(server: FakeLLMServer, tmp_path: Path) -> None:
    path = tmp_path / "batch.yaml"
    path.write_text(yaml.safe_dump(_batch_params(server.base_url)))
    run = tmp_path / "killed"
    server.batches.release.clear()  # the batch stays in_progress
    cmd = [str(Path(sys.executable).parent / "tfr"), "stage", "generate_codes", "--params", str(path), "--run-dir", str(run)]
    env = {**os.environ, "TFR_CACHE_DIR": str(tmp_path / "cache-killed")}
    proc = subprocess.Popen(cmd, cwd=ROOT, env=env, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
    try:
        deadline = time.monotonic() + 120
        polled = False
        while time.monotonic() < deadline and not polled:  # wait for the batch to exist and be polled
            state = server.batches.batches.get("batch_1")
            polled = state is not None and state["polls"] >= 3 and (run / "batches" / "generate_codes.json").is_file()
            time.sleep(0.05)
        assert polled, "the batch was never created and polled"
        assert server.batches.batches["batch_1"]["object"]["status"] == "in_progress"
        pending = BatchState(run, "generate_codes").pending()  # what the live progress line shows meanwhile
        assert pending == ["batch_1 in_progress (5 requests to openai-compatible:fake-coder)"]
    finally:
        proc.send_signal(signal.SIGKILL)
        proc.wait(timeout=30)
    assert proc.returncode == -signal.SIGKILL
    assert not log_lines(run / "checkpoints" / "generated_codes.jsonl")

    server.batches.release.set()
    done = subprocess.run(cmd, cwd=ROOT, env=env, capture_output=True, text=True, timeout=300)
    assert done.returncode == 0, done.stderr
    assert server.batches.created == 1  # polled the same batch instead of creating (and paying for) another
    assert len(log_lines(run / "checkpoints" / "generated_codes.jsonl")) == 5
    assert BatchState(run, "generate_codes").pending() == []  # read and joined
