"""MBR-Exec (Shi et al., EMNLP 2022), binary adaptation: agreement of pass/fail vectors between programs.

With only pass/fail outcomes (as B4 and Menet et al. adapt it), two programs agree when their pass vectors are
equal (hard) or to the fraction of tests on which they agree (soft). A program's score is the sample-weighted
agreement with every executed program, itself included, over the executed samples: hard = the mass of its
cluster of identical rows, soft = its mean fuzzy agreement. Programs that did not execute agree with nobody
and are not ranked. Ties are levels (the release breaks them by log-probability, which replayed files lack).
"""

from __future__ import annotations

import numpy as np

from tfr_helpers.consensus.matrix import TaskMatrix
from tfr_helpers.consensus.ranking import Ranking, guard, no_ranking, rank_by_scores, register_selector


def agreement(matrix: TaskMatrix) -> np.ndarray:
    """Fraction of tests on which two programs have the same outcome, shape (programs, programs)."""
    p = matrix.matrix.astype(float)
    same = p @ p.T + (1 - p) @ (1 - p).T
    return same / max(len(matrix.tests), 1)


def neighbourhood(matrix: TaskMatrix, hard: bool) -> np.ndarray:
    """``p_hat(N_c)``: sample-weighted share of executed programs equal (hard) or similar (soft) to each program."""
    sim = agreement(matrix)
    if hard:
        sim = (np.round(sim, 12) == 1.0).astype(float)
    w = np.where(matrix.ran, matrix.weights, 0.0)
    return sim @ w / w.sum()


def _mbr(matrix: TaskMatrix, hard: bool) -> Ranking:
    why = guard(matrix)
    if why:
        return no_ranking(matrix, why)
    return rank_by_scores(neighbourhood(matrix, hard), matrix.ran)


@register_selector("mbr_exec_hard")
def mbr_exec_hard(matrix: TaskMatrix) -> Ranking:
    """MBR-Exec hard: score = share of executed samples with exactly the same pass vector."""
    return _mbr(matrix, hard=True)


@register_selector("mbr_exec_soft")
def mbr_exec_soft(matrix: TaskMatrix) -> Ranking:
    """MBR-Exec soft: score = sample-weighted mean fraction of tests with the same outcome."""
    return _mbr(matrix, hard=False)
