"""Paths the user gives through the environment, resolved once against the directory the command started in.

``tfr run`` starts notebook kernels in ``notebooks/`` and sandbox workers in ``/``, so a relative
``TFR_BENCHMARK_DIR=../data`` would name a different directory in each. :func:`pin_environment` (called by the
``tfr`` command before any subcommand) makes every such variable absolute and records the launching directory
in ``TFR_LAUNCH_DIR``, which kernels and workers inherit. A kernel started by papermill itself resolves the
same variables against ``$PWD`` (the shell's directory, which papermill's ``--cwd`` does not change), so
``papermill --cwd notebooks`` and ``tfr run`` see the same absolute paths.
"""

from __future__ import annotations

import os
from pathlib import Path

import platformdirs

PATH_VARIABLES = ("TFR_BENCHMARK_DIR", "TFR_REPLAY_DIR", "TFR_CACHE_DIR")
"""Environment variables holding a directory."""
LAUNCH_VARIABLE = "TFR_LAUNCH_DIR"


def launch_dir() -> Path:
    """The directory the command was started in: ``$TFR_LAUNCH_DIR``, else ``$PWD``, else the current one."""
    for name in (LAUNCH_VARIABLE, "PWD"):
        where = os.environ.get(name, "")
        if where and os.path.isabs(where) and os.path.isdir(where):
            return Path(where)
    return Path.cwd()


def resolve(path: str | Path) -> Path:
    """``path`` with ``~`` expanded, made absolute against :func:`launch_dir` when relative."""
    p = Path(path).expanduser()
    return p if p.is_absolute() else launch_dir() / p


def env_path(name: str) -> Path | None:
    """The directory an environment variable names, resolved by :func:`resolve`; None when unset or empty."""
    where = os.environ.get(name, "")
    return resolve(where) if where else None


def pin_environment() -> None:
    """Record the launching directory and make every variable of :data:`PATH_VARIABLES` absolute, once.

    Called before any kernel or worker starts; idempotent (a nested ``tfr`` keeps its parent's directory).
    """
    if not os.environ.get(LAUNCH_VARIABLE):
        os.environ[LAUNCH_VARIABLE] = os.getcwd()
    for name in PATH_VARIABLES:
        path = env_path(name)
        if path is not None:
            os.environ[name] = os.path.normpath(path)


def cache_root() -> Path:
    """The root of every tfr cache: ``$TFR_CACHE_DIR`` (resolved by :func:`resolve`) or the user cache dir."""
    return env_path("TFR_CACHE_DIR") or Path(platformdirs.user_cache_dir("tfr"))
