"""Relative data and cache paths name the same directory from the launching directory, in every process."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

from tfr_helpers import launch
from tfr_helpers.errors import DataError
from tfr_helpers.fsutil import override_dir


def test_pin_environment_makes_paths_absolute_once(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    (tmp_path / "data").mkdir()
    monkeypatch.chdir(tmp_path)
    monkeypatch.delenv(launch.LAUNCH_VARIABLE, raising=False)
    monkeypatch.setenv("TFR_BENCHMARK_DIR", "data")
    monkeypatch.setenv("TFR_CACHE_DIR", "./cache/../cache")
    monkeypatch.delenv("TFR_REPLAY_DIR", raising=False)
    launch.pin_environment()
    assert os.environ["TFR_BENCHMARK_DIR"] == str(tmp_path / "data")
    assert os.environ["TFR_CACHE_DIR"] == str(tmp_path / "cache")
    assert os.environ[launch.LAUNCH_VARIABLE] == str(tmp_path)
    monkeypatch.chdir("/")  # a kernel in notebooks/, a worker in /: the same directories
    launch.pin_environment()
    assert os.environ["TFR_BENCHMARK_DIR"] == str(tmp_path / "data")
    assert override_dir(None, "TFR_BENCHMARK_DIR", "benchmark", "<b>/<file>") == tmp_path / "data"


def test_a_kernel_started_elsewhere_resolves_against_pwd(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """``papermill --cwd notebooks`` from the project: the kernel's directory differs, the shell's ``$PWD`` not."""
    (tmp_path / "data").mkdir()
    (tmp_path / "notebooks").mkdir()
    monkeypatch.chdir(tmp_path / "notebooks")
    monkeypatch.delenv(launch.LAUNCH_VARIABLE, raising=False)
    monkeypatch.setenv("PWD", str(tmp_path))
    monkeypatch.setenv("TFR_BENCHMARK_DIR", "data")
    assert override_dir(None, "TFR_BENCHMARK_DIR", "benchmark", "<b>/<file>") == tmp_path / "data"
    monkeypatch.setenv("TFR_BENCHMARK_DIR", "missing")
    with pytest.raises(DataError, match=str(tmp_path / "missing")):
        override_dir(None, "TFR_BENCHMARK_DIR", "benchmark", "<b>/<file>")


def test_the_command_pins_relative_paths_before_any_subcommand(tmp_path: Path) -> None:
    """The ``tfr`` entry point itself: a relative ``TFR_CACHE_DIR`` is reported as an absolute path."""
    env = {k: v for k, v in os.environ.items() if k not in (launch.LAUNCH_VARIABLE, "PWD")}
    env["TFR_CACHE_DIR"] = "rel-cache"
    code = "import sys; sys.argv = ['tfr', 'cache', 'info']; from tfr_helpers.cli import main; main()"
    done = subprocess.run([sys.executable, "-c", code], cwd=tmp_path, env=env, capture_output=True, text=True)
    assert done.returncode == 0, done.stderr
    assert str(tmp_path / "rel-cache" / "executions") in done.stdout, done.stdout
