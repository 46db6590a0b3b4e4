"""What the tests need from the machine, and the one way to react when it is missing.

Locally a missing requirement (benchmark snapshots, Chromium, npm, pdflatex) skips the test that needs it.
With ``CI=true`` it fails: CI must not pass by skipping (``.ci/run`` installs all of them). ``tests/conftest.py``
also turns any other skip into a failure under CI, except :func:`not_applicable`, for tests that cannot apply
to the machine by design (say, a check that only means something as root).
"""

from __future__ import annotations

import os
import shutil
from pathlib import Path
from typing import NoReturn

import pytest

CHROMIUM = Path("/usr/bin/chromium")
"""Debian's Chromium, driven by Playwright (``playwright install`` downloads are not used)."""
NOT_APPLICABLE = "not applicable here: "
"""Prefix of the skip reasons that CI accepts (see :func:`not_applicable`)."""


def in_ci() -> bool:
    """True when ``$CI`` is set to true (as ``.ci/run`` and the common CI services do)."""
    return os.environ.get("CI", "").strip().lower() in {"true", "1", "yes"}


def missing(reason: str) -> NoReturn:
    """A requirement of the test is missing: skip locally, fail under ``CI=true``."""
    if in_ci():
        pytest.fail(f"{reason} (CI=true: a missing requirement is a failure, not a skip)", pytrace=False)
    pytest.skip(reason)


def not_applicable(reason: str) -> NoReturn:
    """Skip, also under CI: the test cannot apply to this machine by design (not because something is missing)."""
    pytest.skip(NOT_APPLICABLE + reason)


def require_executable(name: str, install: str) -> str:
    """The path of executable ``name`` (a command or an absolute path); else :func:`missing` naming ``install``."""
    found = shutil.which(name)
    if found is None:
        missing(f"{name} not found: install it ({install})")
    return found


def benchmark_dir() -> Path:
    """The benchmark snapshots (``$TFR_BENCHMARK_DIR``, set by CI to the snapshot directory); else :func:`missing`."""
    path = Path(os.environ.get("TFR_BENCHMARK_DIR", ""))
    if not os.environ.get("TFR_BENCHMARK_DIR"):
        missing("set TFR_BENCHMARK_DIR to the benchmark snapshots")
    if not (path / "mbpp" / "sanitized-mbpp.json").is_file():
        missing(f"benchmark snapshots not found in {path}; set TFR_BENCHMARK_DIR")
    return path


def replay_dir() -> Path:
    """The published generations (``$TFR_REPLAY_DIR``, set by CI to the snapshot directory); else :func:`missing`."""
    if not os.environ.get("TFR_REPLAY_DIR"):
        missing("set TFR_REPLAY_DIR to the published generations")
    path = Path(os.environ["TFR_REPLAY_DIR"])
    if not (path / "codet" / "HumanEval_for_code_generation.jsonl").is_file():
        missing(f"replay files not found in {path}; set TFR_REPLAY_DIR")
    return path
