"""MBR-Exec (Shi et al., EMNLP 2022), binary adaptation: agreement of pass/fail vectors between programs.

With only pass/fail outcomes (as B4 and Menet et al. adapt it), two programs agree when their pass vectors are
equal (hard, Menet et al.'s ``k^inf``) or to the fraction of observed outcomes on which they agree (soft, ``k^1``).
An observed outcome is one case of one suite (test sample): a test that two suites hold is observed twice, as
Menet et al.'s suites are executed one by one. A matrix without suites observes each unique test once (B4's
form). A program's score is the sample-weighted agreement with every executed program, itself included, over the
executed samples: hard = the mass of its cluster of identical rows, soft = its mean fuzzy agreement.
Programs that did not execute agree with nobody and are not ranked. Ties are levels (the release breaks them
by log-probability, which replayed files lack).
"""

from __future__ import annotations

import numpy as np

from tfr_helpers.consensus.matrix import TaskMatrix
from tfr_helpers.consensus.ranking import Ranking, guard, no_ranking, rank_by_scores, register_selector


def case_weights(matrix: TaskMatrix) -> np.ndarray:
    """How often each unique test is observed: the cases of the suites that hold it (1 each without suites)."""
    suites = [s for s in matrix.suites if s]
    if not suites:
        return np.ones(len(matrix.tests))
    return np.bincount([j for s in suites for j in s], minlength=len(matrix.tests)).astype(float)


def agreement(matrix: TaskMatrix) -> np.ndarray:
    """``k^1``: share of observed outcomes (suite cases) on which two programs agree, shape (programs, programs)."""
    p = matrix.matrix.astype(float)
    w = case_weights(matrix)
    same = (p * w) @ p.T + ((1 - p) * w) @ (1 - p).T
    return same / max(float(w.sum()), 1.0)


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
