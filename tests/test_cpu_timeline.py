"""benchmarks/perf/cpu_timeline.py: runs the command, samples the cores and the run's stage, prints the parts."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

SCRIPT = Path(__file__).resolve().parents[1] / "benchmarks" / "perf" / "cpu_timeline.py"


def test_the_timeline_names_the_stage_that_ran_and_passes_the_exit_code_on(tmp_path: Path) -> None:
    run = tmp_path / "run"
    (run / "notebooks").mkdir(parents=True)
    busy = (
        "import json, pathlib, time\n"
        f"p = pathlib.Path({str(run)!r}) / 'progress.json'\n"
        "p.write_text(json.dumps({'stage': 'evaluate_code_test_pairs', 'running': True}))\n"
        "end = time.time() + 1.5\n"
        "while time.time() < end:\n"
        "    pass\n"
        "p.write_text(json.dumps({'stage': 'evaluate_code_test_pairs', 'running': False}))\n"
        "time.sleep(1.0)\n"
        "raise SystemExit(3)\n"
    )
    tsv = tmp_path / "samples.tsv"
    done = subprocess.run(
        [sys.executable, str(SCRIPT), "--run-dir", str(run), "--tsv", str(tsv), "--", sys.executable, "-c", busy],
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert done.returncode == 3, done.stderr
    lines = done.stdout.splitlines()
    assert lines[0].startswith("# ") and "exit 3" in lines[0]
    stage = next(line for line in lines if "| evaluate_code_test_pairs" in line)
    assert float(stage.split()[-3]) >= 1.0  # sampled for most of its 1.5 s
    assert any("| (between stages)" in line for line in lines) and lines[-1].startswith("all")
    assert len(tsv.read_text().splitlines()) >= 4
    assert json.loads((run / "progress.json").read_text())["running"] is False


def test_the_tree_counts_the_commands_own_cpu(tmp_path: Path) -> None:
    run = tmp_path / "run"
    busy = "import time\nend = time.time() + 1.5\nwhile time.time() < end:\n    pass\n"
    child = f"import subprocess, sys\nsubprocess.run([sys.executable, '-c', {busy!r}], check=True)\n"
    done = subprocess.run(
        [sys.executable, str(SCRIPT), "--tree", "--run-dir", str(run), "--", sys.executable, "-c", child],
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert done.returncode == 0, done.stderr
    lines = done.stdout.splitlines()
    assert "process tree" in lines[0]
    assert float(lines[-1].split()[-2]) > 0.0  # the grandchild's busy loop, counted through its parent
