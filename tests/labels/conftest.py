"""A small sandbox shared by the label tests (starting workers costs about a second)."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest

from tfr_helpers.records import ModelCallRecord
from tfr_helpers.sandbox import Limits, Sandbox

SMOKE = Path(__file__).resolve().parents[2] / "papermill_params" / "smoke.yaml"
CALL = ModelCallRecord(
    model="sim:default",
    role="coder",
    stage="generate_codes",
    template="t",
    template_version="1",  # type: ignore[arg-type]
    prompt_path="p.md",
    response_path="r.md",
)
LIGHT = {"benchmarks": ["humaneval", "mbpp"], "tasks": {"humaneval": 2, "mbpp": 2}}
"""The smoke study's params, and a model call record for hand-made generated code and tests; ``LIGHT``: the
smoke study without BigCodeBench (its workers preload the scientific stack, seconds to start)."""


@pytest.fixture(scope="session")
def sandbox() -> Iterator[Sandbox]:
    """One worker with Hypothesis preloaded, 10 s per test."""
    with Sandbox(Limits(timeout_s=10.0), workers=1, preload=("hypothesis", "unittest")) as sb:
        yield sb
