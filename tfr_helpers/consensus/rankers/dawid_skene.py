"""Dawid-Skene by EM over binary agreement signals (the model ExeCRE fits; Dong et al., 2026) [inferred].

Each unique test is a signal about each executed program (``s_ij = 1``: program i passes test j). A latent
label says whether the program is correct (prior ``pi``); test ``j`` has a sensitivity ``alpha_j`` (a correct
program passes it) and a specificity ``beta_j`` (a wrong program fails it). EM from ``mu_i`` = the program's pass
rate: the E-step computes each program's posterior ``mu_i`` (in log space), the M-step re-estimates ``pi``,
``alpha``, ``beta`` with add-one smoothing, weighting programs by their multiplicity. Program scores are
``mu``; test scores are ``alpha_j`` (how surely a correct program passes the test: a failure on a high-alpha
test is trustworthy feedback). Programs passing no test are not ranked.
"""

from __future__ import annotations

import numpy as np

from tfr_helpers.consensus.matrix import TaskMatrix
from tfr_helpers.consensus.ranking import Ranking, guard, no_ranking, rank_by_scores, register_selector

_EPS = 1e-6


def fit(s: np.ndarray, w: np.ndarray, iterations: int, tol: float) -> tuple[np.ndarray, np.ndarray, dict[str, float]]:
    """EM for binary Dawid-Skene.

    Args:
        s: Signals, shape (programs, tests), 0/1.
        w: Program weights, shape (programs,).
        iterations: At most this many EM rounds.
        tol: Stop when no ``mu`` moves more than this.

    Returns:
        ``mu`` (programs,), ``alpha`` (tests,), and info (iterations, last change, converged, pi).
    """
    mu = s.mean(axis=1)
    change, done, alpha, pi = np.inf, 0, np.full(s.shape[1], 0.5), 0.5
    for _ in range(iterations):
        done += 1
        # M-step
        pi = float(np.clip((w * mu).sum() / w.sum(), _EPS, 1 - _EPS))
        alpha = ((w * mu) @ s + 1) / ((w * mu).sum() + 2)
        beta = ((w * (1 - mu)) @ (1 - s) + 1) / ((w * (1 - mu)).sum() + 2)
        # E-step
        log_a = np.log(pi) + s @ np.log(alpha) + (1 - s) @ np.log(1 - alpha)
        log_b = np.log(1 - pi) + s @ np.log(1 - beta) + (1 - s) @ np.log(beta)
        new_mu = 1.0 / (1.0 + np.exp(np.clip(log_b - log_a, -700, 700)))
        change, mu = float(np.abs(new_mu - mu).max(initial=0.0)), new_mu
        if change <= tol:
            break
    return mu, alpha, {"iterations": done, "last_change": change, "converged": change <= tol, "pi": pi}


@register_selector("dawid_skene")
def dawid_skene(matrix: TaskMatrix, iterations: int = 50, tol: float = 1e-8) -> Ranking:
    """Dawid-Skene posterior of correctness per program, sensitivity per test.

    Args:
        matrix: The task's matrix.
        iterations: At most this many EM rounds.
        tol: Convergence threshold on ``mu``.

    Returns:
        Program scores ``mu``, levels by equal score, test scores ``alpha``; ``info`` reports convergence.
    """
    why = guard(matrix)
    if why:
        return no_ranking(matrix, why)
    ran = np.flatnonzero(matrix.ran)
    s = matrix.matrix[ran].astype(float)
    mu, alpha, info = fit(s, matrix.weights[ran], iterations, tol)
    scores = np.zeros(len(matrix.program_ids))
    scores[ran] = mu
    ranked = matrix.ran & matrix.matrix.any(axis=1)
    if not ranked.any():
        return no_ranking(matrix, "no program passes any test", alpha)
    return rank_by_scores(scores, ranked, alpha, **info)
