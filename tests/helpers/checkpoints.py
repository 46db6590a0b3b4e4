"""Reading checkpoints the way the product does, safe while a run still appends to them."""

from __future__ import annotations

from collections.abc import Iterable
from pathlib import Path

from tfr_helpers.pipeline.engine.store import checkpoint_entries


def checkpoint_keys(paths: Iterable[Path]) -> list[str]:
    """The keys of every complete line of these checkpoint files, in order (a line still being written, or torn
    by a kill, is skipped as the run's own reader skips it; a key written twice is listed twice)."""
    return [entry["key"] for path in paths for entry in checkpoint_entries(path)]
