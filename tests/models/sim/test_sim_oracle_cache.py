"""The simulated judge's oracle runs go through the execution cache: a study rerun does not run them again."""

from __future__ import annotations

from pathlib import Path

import pytest

from tfr_helpers.models.sim import oracle
from tfr_helpers.sandbox.cache import ExecutionCache

REFERENCE = "def f(x):\n    return x + 1\n"


def test_an_identical_oracle_run_is_served_from_the_cache(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("TFR_CACHE_DIR", str(tmp_path))
    good, bad = "def test_a():\n    assert f(1) == 2\n", "def test_a():\n    assert f(1) == 3\n"
    assert oracle.reference_passes(REFERENCE, good) and not oracle.reference_passes(REFERENCE, bad)
    assert len(ExecutionCache().entries()) == 2
    box, calls = oracle._shared_sandbox(), []
    real = box.run
    monkeypatch.setattr(box, "run", lambda *a, **k: calls.append(a) or real(*a, **k))
    monkeypatch.setattr(oracle.subprocess, "run", None)  # the fallback would fail loudly
    assert oracle.reference_passes(REFERENCE, good) and not oracle.reference_passes(REFERENCE, bad)
    assert calls == []
    assert oracle.reference_passes(REFERENCE, "def test_b():\n    assert f(2) == 3\n") and len(calls) == 1
