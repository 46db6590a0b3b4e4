"""Live progress: the runner's snapshot file, its one-line description, and the CLI that prints it."""

from __future__ import annotations

import dataclasses
import io
import json
import subprocess
import sys
from pathlib import Path

import pytest
import yaml

from tfr_helpers.cli.live import LiveProgress
from tfr_helpers.fsutil import atomic_write_text
from tfr_helpers.pipeline.engine.progress import PROGRESS_FILE, Snapshot, describe, read_snapshot

ROOT = Path(__file__).resolve().parents[3]
SNAP = Snapshot(
    stage="generate_tests",
    done=40,
    total=120,
    calls=130,
    sandbox_runs=0,
    cost_usd=0.0123,
    time=1020.0,
    stage_start=1000.0,
    done_at_start=20,
    calls_at_start=70,
    sandbox_at_start=0,
)


def _write(run: Path, snap: Snapshot) -> None:
    atomic_write_text(run / PROGRESS_FILE, json.dumps(dataclasses.asdict(snap)))


def test_rates_and_eta_come_from_the_stage_so_far() -> None:
    calls, runs, eta = SNAP.rates()
    assert (calls, runs, eta) == (3.0, 0.0, 80.0)  # 60 calls in 20 s; 20 items in 20 s, 80 left
    assert describe(SNAP) == ("generate_tests 40/120 | 3.0 calls/s | 0.0 sandbox runs/s | $0.0123 | 00:20 | ETA 01:20")
    started = describe(dataclasses.replace(SNAP, done=20, sandbox_runs=7))  # nothing finished yet in this invocation
    assert started.endswith("| first items running: 7 sandbox runs, 60 calls so far (ETA once one finishes)")
    assert describe(dataclasses.replace(SNAP, done=120)).endswith("| 00:20 | done")
    assert "| 1:00:20 | ETA 4:01:20" in describe(dataclasses.replace(SNAP, time=4620.0))


def test_log_output_prints_each_stage_its_end_and_throttles_the_rest(tmp_path: Path) -> None:
    out = io.StringIO()
    live = LiveProgress(tmp_path, stream=out, log_every=3600, prefix=lambda: "[00_setup] ")
    live.poll()
    assert out.getvalue() == "" and read_snapshot(tmp_path) is None  # nothing written yet
    _write(tmp_path, SNAP)
    live.poll()
    _write(tmp_path, dataclasses.replace(SNAP, done=60, time=1030.0))  # progress within log_every: not printed
    live.poll()
    _write(tmp_path, dataclasses.replace(SNAP, done=120, time=1040.0, running=False))  # the stage's end: printed
    live.poll()
    live.poll()  # unchanged: nothing new
    lines = out.getvalue().splitlines()
    assert lines == [
        "[00_setup] generate_tests 40/120 | 3.0 calls/s | 0.0 sandbox runs/s | $0.0123 | 00:20 | ETA 01:20",
        "[00_setup] generate_tests 120/120 | 1.5 calls/s | 0.0 sandbox runs/s | $0.0123 | 00:40 | done",
    ]


def test_a_terminal_gets_one_line_redrawn_in_place(tmp_path: Path) -> None:
    class Tty(io.StringIO):
        def isatty(self) -> bool:
            return True

    out = Tty()
    live = LiveProgress(tmp_path, stream=out)
    _write(tmp_path, SNAP)
    live.poll()
    _write(tmp_path, dataclasses.replace(SNAP, done=60, time=1030.0))
    live.poll()
    _write(tmp_path, dataclasses.replace(SNAP, done=120, time=1040.0, running=False))  # the stage's end stays
    live.poll()
    _write(tmp_path, dataclasses.replace(SNAP, stage="evaluate_code_test_pairs", done=0, time=1041.0))
    live.poll()
    live.stop()
    screen = [line.rsplit("\r\x1b[K", 1)[-1] for line in out.getvalue().split("\n")]
    assert out.getvalue().count("\r\x1b[K") == 4
    assert screen[0].startswith("generate_tests 120/120") and screen[1].startswith("evaluate_code_test_pairs 0/120")
    assert screen[2] == ""  # stop() ends the status line


@pytest.mark.slow
def test_tfr_stage_prints_progress_in_logs_and_leaves_the_last_snapshot(tmp_path: Path, shared_benchmarks: Path) -> None:
    params = tmp_path / "p.yaml"
    study = {"run_name": "progress", "benchmarks": ["humaneval"], "tasks": 3, "screening": ["llm_judge"]}
    params.write_text(yaml.safe_dump(study))
    run = tmp_path / "run"
    env = {"PATH": "/usr/bin:/bin", "HOME": str(tmp_path), "TFR_BENCHMARK_DIR": str(shared_benchmarks)}
    proc = subprocess.run(
        [str(Path(sys.executable).parent / "tfr"), "stage", "all", "--params", str(params), "--run-dir", str(run)],
        cwd=ROOT,
        capture_output=True,
        text=True,
        timeout=600,
        env={**env, "TFR_CACHE_DIR": str(tmp_path / "cache")},
    )
    assert proc.returncode == 0, proc.stderr
    last = read_snapshot(run)
    assert last is not None and last.stage == "evaluate_refined_codes" and not last.running
    assert last.done == last.total > 0 and last.sandbox_runs > 0
    progress = [line for line in proc.stderr.splitlines() if "calls/s" in line]
    assert progress and progress[-1].startswith(f"evaluate_refined_codes {last.done}/{last.total} | ")
    assert "sandbox runs/s | $0.0000 | " in progress[-1] and progress[-1].endswith("| done")
    assert "\r" not in proc.stderr  # not a terminal: plain lines, no redrawn bars


def test_a_batch_in_flight_is_named_on_the_line(tmp_path: Path) -> None:
    from tfr_helpers.models.batch import BatchState

    BatchState(tmp_path, "generate_tests").save("k", "batch_7", "openai:gpt-5-mini", 120, "in_progress")
    out = io.StringIO()
    _write(tmp_path, SNAP)
    LiveProgress(tmp_path, stream=out).poll()
    assert out.getvalue().rstrip().endswith("| ETA 01:20 | batch batch_7 in_progress (120 requests to openai:gpt-5-mini)")
