"""``tfr stage``: user errors are one line and exit code 2."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

TFR = str(Path(sys.executable).parent / "tfr")


def test_bad_params_key_is_one_line_naming_the_key(tmp_path: Path) -> None:
    params = tmp_path / "p.yaml"
    params.write_text("run_name: x\nebts_per_tsk: 3\n")
    proc = subprocess.run(
        [TFR, "stage", "all", "--params", str(params)],
        capture_output=True,
        text=True,
        cwd=tmp_path,
        check=False,
    )
    assert proc.returncode == 2
    assert proc.stderr.strip().count("\n") == 0
    assert "ebts_per_tsk: unknown key" in proc.stderr and "Traceback" not in proc.stderr


def test_unknown_stage_name_is_a_user_error(tmp_path: Path) -> None:
    params = tmp_path / "p.yaml"
    params.write_text("run_name: x\n")
    proc = subprocess.run(
        [TFR, "stage", "refine", "--params", str(params)],
        capture_output=True,
        text=True,
        cwd=tmp_path,
        check=False,
    )
    assert proc.returncode == 2 and "unknown stage 'refine'" in proc.stderr
    assert not (tmp_path / "runs").exists()
