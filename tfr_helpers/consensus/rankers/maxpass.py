"""MaxPass hard and soft (the pass-count baselines of B4 and Menet et al., arXiv 2602.06098).

Tests come in suites: one per test sample (a generation). ``R(c, t)`` is the fraction of suite ``t``'s tests that
program ``c`` passes. MaxPass soft scores ``mean_t R(c, t)``, MaxPass hard ``mean_t 1[R(c, t) = 1]`` (suites passed
entirely). A matrix without suites treats each unique test as its own suite (hard and soft then coincide with
the plain pass count, B4's MaxPass). Programs scoring 0 are not ranked.
"""

from __future__ import annotations

import numpy as np

from tfr_helpers.consensus.matrix import TaskMatrix
from tfr_helpers.consensus.ranking import Ranking, guard, no_ranking, rank_by_scores, register_selector


def suite_rates(matrix: TaskMatrix) -> np.ndarray:
    """``R(c, t)``: share of each suite's tests each program passes, shape (programs, suites)."""
    suites = [s for s in matrix.suites if s] or [[j] for j in range(len(matrix.tests))]
    p = matrix.matrix.astype(float)
    return np.stack([p[:, s].mean(axis=1) for s in suites], axis=1)


def mean_rate(matrix: TaskMatrix, hard: bool) -> np.ndarray:
    """``E_t[R^inf]`` (hard) or ``E_t[R]`` (soft) per program."""
    rates = suite_rates(matrix)
    if hard:
        rates = (np.round(rates, 12) == 1.0).astype(float)
    return rates.mean(axis=1)


def _maxpass(matrix: TaskMatrix, hard: bool) -> Ranking:
    why = guard(matrix)
    if why:
        return no_ranking(matrix, why)
    scores = mean_rate(matrix, hard)
    return rank_by_scores(scores, matrix.ran & (scores > 0))


@register_selector("maxpass_hard")
def maxpass_hard(matrix: TaskMatrix) -> Ranking:
    """MaxPass hard: share of test suites the program passes entirely."""
    return _maxpass(matrix, hard=True)


@register_selector("maxpass_soft")
def maxpass_soft(matrix: TaskMatrix) -> Ranking:
    """MaxPass soft: mean share of each suite's tests the program passes."""
    return _maxpass(matrix, hard=False)
