"""What a consensus strategy returns, and the registry of strategies.

A strategy is a pure function ``fn(matrix: TaskMatrix, **params) -> Ranking``. It sees one task's generated
programs and tests (never the reference) and returns a score per unique program, a score per unique test where
the method has one, and the tie levels that pass@k is computed over. Add one with::

    @register_selector("my_rule")
    def my_rule(matrix: TaskMatrix) -> Ranking:
        scores = matrix.matrix.sum(axis=1).astype(float)
        return rank_by_scores(scores, matrix.ran & (scores > 0))
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from tfr_helpers.consensus.matrix import TaskMatrix

SCORE_DECIMALS = 9
"""Scores equal to this many decimals are one tie level (exact for counts; absorbs float noise in soft scores)."""


@dataclass(frozen=True)
class Ranking:
    """A strategy's answer for one task.

    Attributes:
        program_scores: One score per unique program, shape (programs,); NaN for programs the method does not
            rank (did not execute, or no consensus).
        levels: Unique program indices grouped by equal score, best level first. Empty: no consensus, so
            selection falls back to the random estimator over all samples (as CodeT's release does).
        test_scores: One score per unique test (higher: more trusted), or None when the method scores no test.
        fallback: Why the task has no ranking (empty string when it has one).
        info: Method diagnostics (e.g. iterations and the last change for iterative methods).
    """

    program_scores: np.ndarray
    levels: list[list[int]]
    test_scores: np.ndarray | None = None
    fallback: str = ""
    info: dict[str, Any] = field(default_factory=dict)


Selector = Callable[..., Ranking]
SELECTORS: dict[str, Selector] = {}
"""Registered strategies by name, in registration order."""


def register_selector(name: str) -> Callable[[Selector], Selector]:
    """Register ``fn(matrix, **params) -> Ranking`` as consensus strategy ``name``."""

    def register(fn: Selector) -> Selector:
        SELECTORS[name] = fn
        return fn

    return register


def no_ranking(matrix: TaskMatrix, reason: str, test_scores: np.ndarray | None = None) -> Ranking:
    """The ranking of a task without consensus: nothing ranked, the reason recorded."""
    return Ranking(np.full(len(matrix.program_ids), np.nan), [], test_scores, fallback=reason)


def rank_by_scores(scores: np.ndarray, ranked: np.ndarray, test_scores: np.ndarray | None = None, **info: Any) -> Ranking:
    """Levels from scores: the programs in ``ranked`` grouped by equal score, highest first.

    Args:
        scores: One score per unique program.
        ranked: Boolean mask of the programs that take part.
        test_scores: Passed through.
        **info: Passed through as :attr:`Ranking.info`.

    Returns:
        The ranking; ``fallback`` is set when no program takes part.
    """
    scores = np.asarray(scores, dtype=float)
    shown = np.where(ranked, scores, np.nan)
    if not ranked.any():
        return Ranking(shown, [], test_scores, fallback="no program has a positive consensus score", info=info)
    rounded = np.round(scores, SCORE_DECIMALS)
    levels = [
        [int(i) for i in np.flatnonzero(ranked & (rounded == value))]
        for value in sorted(set(rounded[ranked].tolist()), reverse=True)
    ]
    return Ranking(shown, levels, test_scores, info=info)


def guard(matrix: TaskMatrix) -> str:
    """Why no strategy can rank this task ('' when it can): no program, no test, or no program executed."""
    if not matrix.program_ids:
        return "no programs"
    if not matrix.tests:
        return "no tests"
    if not matrix.ran.any():
        return "no program executed"
    return ""
