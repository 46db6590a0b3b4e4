"""GenX dual-critic scoring (Wang et al., arXiv 2412.13464, Algorithm 2) [update order and start inferred].

Programs and tests score each other::

    c <- 1, t <- 1
    repeat: c_i <- sum_j P_ij t_j / sum_j t_j ;  t_j <- sum_i P_ij c_i / sum_i c_i

Up to scale this is power iteration on ``P P^T`` (HITS hubs and authorities): after one step ``c`` is the pass
rate (MaxPass); the fixed point is the principal eigenvector. Here sums are weighted by multiplicities (code
samples, test occurrences) and run over executed programs. ``iterations`` is a parameter (the paper reports
none); :attr:`Ranking.info` reports the iterations run, the last change and whether it converged below ``tol``.
Programs with score 0 are not ranked; test scores are ``t``.
"""

from __future__ import annotations

import numpy as np

from tfr_helpers.consensus.matrix import TaskMatrix
from tfr_helpers.consensus.ranking import Ranking, guard, no_ranking, rank_by_scores, register_selector


@register_selector("dual_critic")
def dual_critic(matrix: TaskMatrix, iterations: int = 100, tol: float = 1e-10) -> Ranking:
    """GenX dual-critic: iterate program and test scores, rank programs by the final ``c``.

    Args:
        matrix: The task's matrix.
        iterations: At most this many rounds.
        tol: Stop when no score moves more than this.

    Returns:
        Program scores ``c``, levels by equal score, test scores ``t``; ``info`` has ``iterations``,
        ``last_change`` and ``converged``.
    """
    why = guard(matrix)
    if why:
        return no_ranking(matrix, why)
    p = matrix.matrix.astype(float)
    w = np.where(matrix.ran, matrix.weights, 0.0)
    v = matrix.test_weights
    c, t = (matrix.ran).astype(float), np.ones(len(matrix.tests))
    change, done = np.inf, 0
    for _ in range(iterations):
        done += 1
        tw = (v * t).sum()
        new_c = p @ (v * t) / tw if tw > 0 else np.zeros_like(c)
        cw = (w * new_c).sum()
        new_t = (w * new_c) @ p / cw if cw > 0 else np.zeros_like(t)
        change = max(np.abs(new_c - c).max(initial=0.0), np.abs(new_t - t).max(initial=0.0))
        c, t = new_c, new_t
        if change <= tol:
            break
    info = {"iterations": done, "last_change": float(change), "converged": bool(change <= tol)}
    ranked = matrix.ran & (c > 0)
    if not ranked.any():
        return no_ranking(matrix, "no program passes any test", t)
    return rank_by_scores(c, ranked, t, **info)
