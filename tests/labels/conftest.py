"""A small sandbox shared by the label tests (starting workers costs about a second)."""

from __future__ import annotations

from collections.abc import Iterator

import pytest

from tfr_helpers.sandbox import Limits, Sandbox


@pytest.fixture(scope="session")
def sandbox() -> Iterator[Sandbox]:
    """One worker with Hypothesis preloaded, 10 s per test."""
    with Sandbox(Limits(timeout_s=10.0), workers=1, preload=("hypothesis", "unittest")) as sb:
        yield sb
