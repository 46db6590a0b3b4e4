"""Acceptance: papermill's own command line runs what ``tfr run`` runs, with no unknown parameter.

Both run notebook 00 alone (``tfr run --notebook 00_setup``): what the two command lines inject is compared on its
outputs (the configuration, the tasks and the generation records), which the later notebooks only read; the whole
series on the smoke params is the ``smoke_series`` fixture's (``tests/notebooks/test_series.py``)."""

from __future__ import annotations

import json
import os
import re
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

from tests.helpers.checkpoints import log_lines
from tests.notebooks.smoke import ROOT, SMOKE_PARAMS

pytestmark = [pytest.mark.slow, pytest.mark.notebooks]
BIN = Path(sys.executable).parent


def _without_timing(value: Any) -> Any:
    if isinstance(value, dict):
        return {k: _without_timing(v) for k, v in value.items() if k not in ("latency_s", "time", "call_id")}
    if isinstance(value, list):
        return [_without_timing(v) for v in value]
    return value


def _records(run: Path, name: str) -> list[Any]:
    lines = log_lines(run / name)
    return sorted((_without_timing(json.loads(line)) for line in lines), key=json.dumps)


def _papermill(*args: str, cwd: Path = ROOT) -> subprocess.CompletedProcess[str]:
    cmd = [str(BIN / "papermill"), "notebooks/00_setup.ipynb", *args, "--cwd", "notebooks"]
    return subprocess.run(cmd, cwd=cwd, capture_output=True, text=True, timeout=600, env=os.environ.copy())


def test_papermill_f_smoke_then_tfr_run_give_identical_results(tmp_path: Path) -> None:
    by_papermill, by_tfr = tmp_path / "papermill-run", tmp_path / "tfr-run"
    proc = _papermill(str(tmp_path / "00.ipynb"), "-f", str(SMOKE_PARAMS), "-p", "run_dir", str(by_papermill))
    assert proc.returncode == 0, proc.stderr[-3000:]
    assert "Passed unknown parameter" not in proc.stderr + proc.stdout

    done = subprocess.run(
        [str(BIN / "tfr"), "run", "--params", str(SMOKE_PARAMS), "--run-dir", str(by_tfr), "--notebook", "00_setup"],
        cwd=ROOT,
        capture_output=True,
        text=True,
        timeout=1800,
    )
    assert done.returncode == 0, done.stderr[-3000:]
    progress = r"^\[0\d_\w+\] \w+ \d+/\d+ \| [\d.]+ calls/s \| [\d.]+ sandbox runs/s \| \$[\d.]+ \| "
    assert re.search(progress, done.stderr, re.M), done.stderr[-3000:]  # live progress from the kernels, in the log
    for name in ("config.json", "tasks.json"):
        assert json.loads((by_papermill / name).read_text()) == json.loads((by_tfr / name).read_text()), name
    for name in ("checkpoints/generated_codes.jsonl", "checkpoints/generated_tests.jsonl", "calls/generate_codes.jsonl"):
        assert _records(by_papermill, name) == _records(by_tfr, name), name
    assert sorted(p.name for p in (by_tfr / "notebooks").glob("*.ipynb")) == ["00_setup.ipynb"]  # 00 alone
    executed = json.loads((by_tfr / "notebooks" / "00_setup.ipynb").read_text())
    assert executed["metadata"]["papermill"]["parameters"]["tasks"] == {"humaneval": 10, "mbpp": 10, "bigcodebench": 5}


def test_a_bad_value_stops_the_notebook_in_its_first_cell_naming_the_key(tmp_path: Path) -> None:
    proc = _papermill(str(tmp_path / "bad.ipynb"), "-f", str(SMOKE_PARAMS), "-p", "tasks", "-2")
    assert proc.returncode == 1
    assert "ConfigError" in proc.stderr and "tasks: a number of tasks must be positive" in proc.stderr
    executed = json.loads((tmp_path / "bad.ipynb").read_text())
    code = [c for c in executed["cells"] if c["cell_type"] == "code"]
    # parameters, injected parameters, then the first cell of the notebook fails
    assert [c["metadata"]["papermill"]["status"] for c in code[:4]] == ["completed", "completed", "failed", "pending"]
