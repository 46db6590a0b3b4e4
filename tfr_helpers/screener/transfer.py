"""Task-disjoint held-out splits: how the screener's transfer to a source it was not trained on is measured.

Holding out a source alone is not enough: its tasks stay in training through the other sources (every HumanEval
source shares the 164 tasks), and a test can be shared verbatim across sources (o3-mini's BigCodeBench test lists
reuse GPT-4o's tests). :func:`held_out_split` holds out a source **and its tasks and its tests**: the training part
keeps no item on a held-out task and no item whose test text (:func:`~tfr_helpers.screener.dataset.source_digest`) is
one of the held-out items' tests. Two runs of one model are two sources (``trajectories:<set>``), never pooled.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np

from tfr_helpers.screener.dataset import Example


@dataclass(frozen=True)
class Split:
    """One held-out source: boolean masks over the examples, and what the training part lost."""

    source: str
    test: np.ndarray
    """The held-out source's items."""
    train: np.ndarray
    """Items of the other sources on none of the held-out tasks and with none of the held-out tests."""
    dropped_tasks: int
    """Other sources' items left out because they are on a held-out task."""
    dropped_tests: int
    """Other sources' items left out (beyond those) because their test text is a held-out item's test."""


def held_out_split(examples: Sequence[Example], source: str) -> Split:
    """Hold out ``source`` with its tasks and tests (see the module doc).

    Raises:
        ValueError: No example comes from ``source``.
    """
    sources = np.array([e.source for e in examples])
    test = sources == source
    if not test.any():
        raise ValueError(f"no example comes from {source!r}; sources: {', '.join(sorted(set(sources.tolist())))}")
    tasks = {e.task for e, t in zip(examples, test, strict=True) if t}
    texts = {e.test for e, t in zip(examples, test, strict=True) if t and e.test}
    on_task = np.array([e.task in tasks for e in examples])
    shared = np.array([bool(e.test) and e.test in texts for e in examples])
    other = ~test
    return Split(
        source,
        test,
        other & ~on_task & ~shared,
        int((other & on_task).sum()),
        int((other & ~on_task & shared).sum()),
    )
