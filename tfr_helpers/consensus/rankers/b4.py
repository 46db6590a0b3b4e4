"""B4 (Chen et al., ASE 2024, arXiv 2409.08692; released code ZJU-CTAG/B4, ``strategy.py``).

A Bayesian view of the matrix: latent correct programs ``x`` and correct tests ``y``; a correct program passes
every correct test, other cells pass at unknown rates with Beta priors. Each distinct pass row among the executed
programs (passing nothing included) is a candidate ``y``, and ``x`` = the programs with exactly that row. The
candidate's log posterior, with ``B`` the Beta function::

    log B(|x| + a_xy, n - |x| + 1) + log B(|y| + a_xy, m - |y| + 1)
    + log B(s1 + 1, N1 - s1 + 1) + log B(s0 + 1, N0 - s0 + beta0)

where ``E1`` / ``E0`` are the cells of programs outside ``x`` on tests inside / outside ``y`` (``N`` cells, ``s``
passes). Defaults from the release's README: ``a_xy = 1e3``, ``beta0 = 1e4`` (the smallest value it lists).
Rows count with their multiplicity (each code sample is a row); columns are the unique tests. Program scores
are their candidate's log posterior; test scores are 1 for the tests in the best candidate's ``y``, else 0.
"""

from __future__ import annotations

import numpy as np
from scipy.special import betaln

from tfr_helpers.consensus.matrix import TaskMatrix
from tfr_helpers.consensus.rankers.codet import consensus_sets
from tfr_helpers.consensus.ranking import Ranking, guard, no_ranking, rank_by_scores, register_selector


def log_posterior(matrix: TaskMatrix, members: list[int], a_xy: float, beta0: float) -> float:
    """B4's log posterior of the candidate whose ``x`` is ``members`` and ``y`` their common row."""
    p, w = matrix.matrix.astype(float), np.where(matrix.ran, matrix.weights, 0.0)
    y = matrix.matrix[members[0]]
    n, m = w.sum(), len(matrix.tests)
    size_x, size_y = w[members].sum(), float(y.sum())
    out = w.copy()
    out[members] = 0.0
    passes_in = out @ p[:, y]
    passes_out = out @ p[:, ~y]
    n1, s1 = out.sum() * y.sum(), passes_in.sum()
    n0, s0 = out.sum() * (~y).sum(), passes_out.sum()
    return float(
        betaln(size_x + a_xy, n - size_x + 1)
        + betaln(size_y + a_xy, m - size_y + 1)
        + betaln(s1 + 1, n1 - s1 + 1)
        + betaln(s0 + 1, n0 - s0 + beta0)
    )


@register_selector("b4")
def b4(matrix: TaskMatrix, a_xy: float = 1e3, beta0: float = 1e4) -> Ranking:
    """B4's Bayesian score of each distinct pass row.

    Args:
        matrix: The task's matrix.
        a_xy: Prior pseudo-count favouring larger ``x`` and ``y``.
        beta0: Prior pseudo-count of failures for wrong programs on wrong tests.

    Returns:
        Program scores (log posterior of their row), levels by equal score, test scores (1 in the best ``y``).
    """
    why = guard(matrix)
    if why:
        return no_ranking(matrix, why)
    scores = np.zeros(len(matrix.program_ids))
    best, best_score = None, -np.inf
    for members in consensus_sets(matrix, matrix.ran).values():
        score = log_posterior(matrix, members, a_xy, beta0)
        scores[members] = score
        if score > best_score:
            best, best_score = members, score
    assert best is not None  # guard() ensures an executed program
    return rank_by_scores(scores, matrix.ran, matrix.matrix[best[0]].astype(float))
