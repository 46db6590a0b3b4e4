"""One small sandbox shared by the sandbox tests (starting workers costs about a second)."""

from __future__ import annotations

from collections.abc import Iterator

import pytest

from tfr_helpers.sandbox import Limits, Sandbox


@pytest.fixture(scope="session")
def sandbox() -> Iterator[Sandbox]:
    """Two workers, no heavy preloads, 3 s per test."""
    with Sandbox(Limits(timeout_s=3.0), workers=2, preload=("hypothesis", "unittest")) as sb:
        yield sb
